#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The "encd" generic netlink family follows its YNL spec: the uapi header's
# enums (compiled, not parsed) and the running module's family, operations,
# permissions and per-operation policies (read back through nlctrl) are what
# Documentation/netlink/specs/encd.yaml says. KTAP output; run by tools/vm
# in the VM with encd loaded, from the selftests directory.
set -u

check=../tools/netlink/spec-check.py
echo "TAP version 13"
if ! python3 -c 'import yaml' 2>/dev/null; then
	echo "1..0 # SKIP needs python3 with PyYAML (python3-yaml)"
	exit 4
fi
echo "1..2"

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
