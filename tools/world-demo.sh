#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The world part of the demo: a 16-rank world on this host (one process per
# rank, vnc 0..15, loopback), each rank with several replica groups (groups
# sharing the world's bootstrap participants, groups on other streams, a
# sendrecv pair, a src-target set, a group with no ops), a group barrier and
# a local barrier; while the ranks hold the world, the comms and their nodes
# are listed. Needs encd loaded with at least 16 virtual cores; run it in the
# VM (make demo), never on the host.
#
#   world-demo.sh [RANKS]
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
encctl=$top/build/tools/encctl
n=${1:-16}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! grep -q 'encdvm\.' /proc/cmdline; then
	echo "world-demo.sh: not in the encd test VM; run it with 'make demo'" >&2
	exit 2
fi

python3 "$top/selftests/bootstrap_test.py" --programs "$n" "$tmp"
echo "forming a world of $n ranks through 127.0.0.1:61100 ..."
"$encctl" world launch -n "$n" --root 127.0.0.1:61100 --program "$tmp/rank%u.json" \
	--barrier --hold 8 > "$tmp/launch.log" 2>&1 &
launch=$!

# Wait until every rank's comm is bootstrapped and its groups are up.
for _ in $(seq 1 120); do
	ready=$("$encctl" -j comm show 2>/dev/null | python3 -c '
import json, sys
comms = json.load(sys.stdin)
print(sum(1 for c in comms if c["state"] == "bootstrapped" and len(c.get("nodes", [])) >= 4))
' 2>/dev/null || echo 0)
	[ "$ready" -ge "$n" ] && break
	sleep 0.5
done
echo
"$encctl" status
echo
echo "rank 0 in detail:"
"$encctl" comm show dev 0 ctx 0
wait "$launch" || true
echo
tail -n 1 "$tmp/launch.log"
