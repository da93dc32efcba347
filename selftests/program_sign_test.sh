#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `encctl program sign` against programs/sign.py, an independent Python
# reference of the op-signature: for every JSON program in programs/, the
# digests the kernel computes (through libenc and encctl) must be the ones
# hashlib computes from the same file. KTAP output; run by tools/vm in the VM
# with encd loaded, from the selftests directory. Without encctl or python3
# it fails (it does not skip), so that a lane cannot pass without them.
set -u

encctl=${ENCCTL:-${ENCD_BUILD:+$ENCD_BUILD/../tools/encctl}}
encctl=${encctl:-../build/tools/encctl}
if [ ! -x "$encctl" ] || ! command -v python3 >/dev/null; then
	echo "TAP version 13"
	echo "1..1"
	echo "# needs $encctl (make) and python3"
	echo "not ok 1 tools_are_there"
	exit 1
fi

# file g_device_id world_size [flag]
cases=(
	"empty.json 0 2"
	"sendrecv_pair.json 0 2"
	"sendrecv_pair.json 1 2"
	"ring_permute.json 0 4"
	"ring_permute.json 3 4 --all-groups"
	"mixed.json 2 8"
	"mixed.json 2 8 --all-groups"
	"mixed.json 5 8"
)

n=0 failed=0
ok() {
	n=$((n + 1))
	echo "ok $n $*"
}
not_ok() {
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n $*"
}

same_json() {
	python3 -c 'import json, sys; sys.exit(json.loads(sys.argv[1]) != json.loads(sys.argv[2]))' "$1" "$2"
}

echo "TAP version 13"
echo "1..$((${#cases[@]} + 4))"

vnc=0
for c in "${cases[@]}"; do
	read -r file gid world flag <<<"$c"
	name="sign_${file%.json}_g${gid}${flag:+_all_groups}"
	want=$(python3 programs/sign.py "programs/$file" --g-device-id "$gid" ${flag:+"$flag"})
	got=$("$encctl" program sign "programs/$file" --vnc "$vnc" --g-device-id "$gid" \
		--world-size "$world" ${flag:+"$flag"} -j 2>&1)
	if same_json "$want" "$got" 2>/dev/null; then
		ok "$name"
	else
		echo "# want: $want"
		echo "# got:  $got"
		not_ok "$name"
	fi
	vnc=$((vnc + 1))
done

# The global -j before the object does the same as -j after it.
a=$("$encctl" -j program sign programs/mixed.json --vnc 0 --g-device-id 2 --world-size 8)
b=$("$encctl" program sign programs/mixed.json --vnc 0 --g-device-id 2 --world-size 8 -j)
if [ -n "$a" ] && same_json "$a" "$b"; then ok "json_flag_in_either_place"; else not_ok "json_flag_in_either_place"; fi

# Text output: the global digest and one line per group and set.
want=$(python3 programs/sign.py programs/mixed.json --g-device-id 2 |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["global"])')
text=$("$encctl" program sign programs/mixed.json --vnc 0 --g-device-id 2 --world-size 8)
if grep -qx "global $want" <<<"$text" && [ "$(grep -c '^replica_group ' <<<"$text")" = 4 ] &&
   [ "$(grep -c '(not hashed)' <<<"$text")" = 2 ] &&
   [ "$(grep -c '^src_target_pairs ' <<<"$text")" = 2 ]; then
	ok "text_output"
else
	echo "$text" | sed 's/^/# /'
	not_ok "text_output"
fi

# No comm on the core and no identity to build one: a failure with a hint.
err=$("$encctl" program sign programs/mixed.json --vnc 9 2>&1 >/dev/null)
rc=$?
if [ $rc = 1 ] && grep -q -- "--g-device-id and --world-size" <<<"$err"; then
	ok "no_comm_no_identity_fails_with_a_hint"
else
	echo "# rc=$rc: $err"
	not_ok "no_comm_no_identity_fails_with_a_hint"
fi

# A program the kernel refuses: its sentence reaches the user.
bad=$(mktemp)
echo '{"replica_groups": [{"group_id": 0, "rank": -1, "participants": [0, 8]}]}' >"$bad"
err=$("$encctl" program sign "$bad" --vnc 0 --g-device-id 0 --world-size 8 2>&1 >/dev/null)
rc=$?
rm -f "$bad"
if [ $rc = 1 ] && grep -q "id 8 is not below the world size 8" <<<"$err"; then
	ok "kernel_refusal_is_explained"
else
	echo "# rc=$rc: $err"
	not_ok "kernel_refusal_is_explained"
fi

[ $failed = 0 ]
