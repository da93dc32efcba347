#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# World formation time for N = 2 .. 64 ranks on loopback, one process per
# rank, split into rendezvous / validation / broadcast / comm init, with the
# loopback TCP round trip measured in the same run, and the ratio of
# validation + broadcast to the bound 2 * ceil(log2 N) * RTT. Runs inside
# the VM (make bench-bootstrap), encd loaded with enough virtual cores.
#
#   bench-bootstrap.sh ENCCTL RTT_TOOL [N...]
set -eu
encctl=$1 rtt=$2
shift 2
sizes=${*:-2 4 8 16 32 64}
reps=${BENCH_REPS:-3}
out=$(mktemp -d)
port=33000

"$rtt" > "$out/rtt"
# The kernel's own round trip: a 2-rank group barrier is one round, each rank
# sending and receiving once, so it takes about half a round trip.
port=$((port + 1))
"$encctl" -j world launch -n 2 --root "127.0.0.1:$port" --barriers 300 > "$out/kbarrier" ||
	echo "the barrier run failed" >&2
top=$(cd "$(dirname "$0")/../.." && pwd)
for n in $sizes; do
	# Replica groups too: group 5 has the world's participants on another
	# stream, so its bootstrap runs over links the world already opened.
	mkdir -p "$out/p$n"
	python3 "$top/selftests/bootstrap_test.py" --programs "$n" "$out/p$n"
	r=0
	while [ "$r" -lt "$reps" ]; do
		port=$((port + 1))
		if ! "$encctl" -j world launch -n "$n" --root "127.0.0.1:$port" --barrier \
			--program "$out/p$n/rank%u.json" > "$out/w$n.$r"; then
			echo "world of $n failed:" >&2
			grep -m 3 '"ok":false' "$out/w$n.$r" | cut -c 1-400 >&2
		fi
		r=$((r + 1))
	done
done

python3 - "$out" "$reps" $sizes <<'PY'
import glob, json, math, os, statistics, sys
out, reps, sizes = sys.argv[1], int(sys.argv[2]), [int(x) for x in sys.argv[3:]]
rtt_med, rtt_p90 = [float(x) for x in open(os.path.join(out, "rtt")).read().split()[1:3]]
print("loopback TCP round trip (129 bytes, user space): median %.1f us, p90 %.1f us" % (
    rtt_med, rtt_p90))
kb = [json.loads(l) for l in open(os.path.join(out, "kbarrier")) if l.startswith("{")]
kb = [r["barrier_median_us"] for r in kb if r.get("ok") and "barrier_median_us" in r]
krtt = 2 * max(kb) if kb else float("nan")
print("kernel peer links: 2-rank group barrier median %.1f us, so a round trip of ~%.1f us" % (
    max(kb) if kb else float("nan"), krtt))
print("per world: the median over %d runs of the slowest rank's figure, in ms" % reps)
print("bound = 2 * ceil(log2 N) * RTT (user-space RTT); ratio = v+b / bound; kratio with the kernel RTT")
print("warm = v+b of a replica group whose links the world already opened (group 5)")
print("%4s %11s %9s %9s %9s %9s %9s %10s %6s %7s %8s %6s %7s" % (
      "N", "rendezvous", "validate", "broadcast", "comm-init", "v+b", "total", "bound(ms)",
      "ratio", "kratio", "warm", "wratio", "wkratio"))
for n in sizes:
    runs = []
    for f in glob.glob(os.path.join(out, "w%d.*" % n)):
        ranks = [json.loads(l) for l in open(f) if l.startswith("{")]
        if len(ranks) != n or not all(r["ok"] for r in ranks):
            continue
        ph = lambda r, k: r["phases"][k] / 1000.0
        runs.append({
            "rdv": max(ph(r, "rendezvous") for r in ranks),
            "val": max(ph(r, "validate") for r in ranks),
            "bc": max(ph(r, "broadcast") for r in ranks),
            "init": max(ph(r, "comm_init") + ph(r, "local_barrier") for r in ranks),
            "vb": max(ph(r, "validate") + ph(r, "broadcast") for r in ranks),
            "tot": max(ph(r, "setup") for r in ranks),
            "warm": max(sum(g[k] for k in ("validate", "broadcast")) / 1000.0
                        for r in ranks for g in r.get("group_comms", []) if g["group_id"] == 5),
        })
    if not runs:
        print("%4d   (failed)" % n)
        continue
    med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    rounds = 2 * math.ceil(math.log2(n))
    bound = rounds * rtt_med / 1000.0
    kbound = rounds * krtt / 1000.0
    print("%4d %11.2f %9.2f %9.2f %9.2f %9.2f %9.2f %10.3f %6.1f %7.1f %8.2f %6.1f %7.1f" % (
        n, med["rdv"], med["val"], med["bc"], med["init"], med["vb"], med["tot"], bound,
        med["vb"] / bound, med["vb"] / kbound, med["warm"], med["warm"] / bound,
        med["warm"] / kbound))
PY
rm -rf "$out"
