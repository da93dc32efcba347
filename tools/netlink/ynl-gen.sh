#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The code of the "encd" generic netlink family that its spec,
# Documentation/netlink/specs/encd.yaml, determines, made by the kernel's
# own YNL generator (linux-source-6.12's tools/net/ynl/ynl-gen-c.py), which
# also validates the spec against the kernel's schema for its protocol:
#
#   uapi/linux/encd_netlink.h   every enum and define of the family
#   kmod/netlink-gen.h          the handlers the operations table names
#   kmod/netlink-gen.c          the request policies and that table
#
# They are committed, as the kernel commits its generated netlink code, so
# that building the module (DKMS too) and installing the header never need
# linux-source-6.12.
#
#   ynl-gen.sh           rewrites the files that differ from what the spec gives
#   ynl-gen.sh --check   changes nothing; fails, showing the difference, when
#                        one of them is not what the spec gives
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
check=
case ${1:-} in
--check) check=1 ;;
"") ;;
*)
	echo "usage: $0 [--check]" >&2
	exit 2
	;;
esac

ksrc=$("$top/tools/kernel-source.sh" 6.12)
spec=Documentation/netlink/specs/encd.yaml

# The generator expects a kernel tree: it names the spec by its path below
# the directory that holds MAINTAINERS, and finds the schema of the spec's
# protocol two directories above the spec.
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/Documentation/netlink/specs" "$stage/out"
touch "$stage/MAINTAINERS"
cp "$top/$spec" "$stage/$spec"
ln -s "$ksrc"/Documentation/netlink/genetlink*.yaml "$stage/Documentation/netlink/"

status=0
# gen MODE KIND FILE: FILE, generated into the stage, then compared or copied.
gen() {
	local mode=$1 kind=$2 file=$3 out

	out=$stage/out/$(basename "$file")
	python3 "$ksrc/tools/net/ynl/ynl-gen-c.py" --mode "$mode" "--$kind" \
		--spec "$stage/$spec" -o "$out"
	if cmp -s "$out" "$top/$file"; then
		return
	fi
	if [ -n "$check" ]; then
		echo "ynl-gen: $file is not what $spec gives; run 'make ynl-regen':" >&2
		diff -u "$top/$file" "$out" >&2 || true
		status=1
	else
		cp "$out" "$top/$file"
		echo "ynl-gen: wrote $file"
	fi
}

gen uapi header uapi/linux/encd_netlink.h
gen kernel header kmod/netlink-gen.h
gen kernel source kmod/netlink-gen.c
exit $status
