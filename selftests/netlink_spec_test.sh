#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The "encd" generic netlink family follows its YNL spec: the uapi header's
# enums (compiled, not parsed) and the running module's family, operations,
# permissions and per-operation policies (read back through nlctrl) are what
# Documentation/netlink/specs/encd.yaml says. KTAP output; run by tools/vm
# in the VM with encd loaded, from the selftests directory. The VM has what
# the host has: without PyYAML the checks fail (they do not skip), so that a
# lane cannot pass without them.
set -u

check=../tools/netlink/spec-check.py
echo "TAP version 13"
echo "1..2"
if ! python3 -c 'import yaml' 2>/dev/null; then
	echo "# python3 with PyYAML (python3-yaml) is missing: 'make deps' installs it"
	echo "not ok 1 uapi_header_follows_the_spec # no PyYAML"
	echo "not ok 2 running_family_and_policies_follow_the_spec # no PyYAML"
	exit 1
fi

failed=0
n=0
run() {
	local name=$1 out
	shift
	n=$((n + 1))
	if out=$("$@" 2>&1); then
		echo "ok $n $name"
	else
		echo "$out" | sed 's/^/# /'
		echo "not ok $n $name"
		failed=1
	fi
}

run uapi_header_follows_the_spec python3 "$check"
run running_family_and_policies_follow_the_spec python3 "$check" --kernel
exit $failed
