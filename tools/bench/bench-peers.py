#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""encd, OpenMPI and torch.distributed doing one job in one VM, as figures
(not a test): form a world of N ranks (N processes on loopback), AND 17
bytes across it, broadcast 129 bytes from rank 0. Runs inside the VM with
encd loaded (num_vcores >= the largest N); `make bench-peers`.

    bench-peers.py ENCCTL BENCH_MPI [--sizes 8,16,32] [--torch-sizes 8]
                   [--reps 3] [--peer-reps 2]

encd: `encctl world launch` (its world formation is the job: validation
ANDs the 17-byte signatures up a tree, the broadcast sends the 129-byte
unique id down a hypercube), with local delivery (the default) and with
--force-tcp. OpenMPI: mpirun of tools/bench/bench-mpi.c with btl tcp,self
on loopback. torch: N processes of tools/bench/bench-torch.py, gloo,
init_method=tcp://. For each, per run:

  wall       the launch command until every rank exited (s)
  formation  the slowest rank's time in its init call: enc_setup_global_comm,
             MPI_Init, init_process_group (ms)
  exchange   the slowest rank's first AND + broadcast: encd's world
             validation + broadcast (kernel phases), the peers' first
             Allreduce + Bcast after init (ms)
  warm       the same over links already open: encd's replica group 5
             (every rank, another stream) of selftests/bootstrap_test.py's
             programs; the peers' median of 20 more (ms)

Each run prints a "peers: " JSON line; tools/bench/bench-peers-report.py
makes the table and the plot from them on the host.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, "..", ".."))
TIMEOUT_S = 900
port = [34000]


def next_port():
    port[0] += 1
    return port[0]


def json_lines(text):
    out = []
    for line in text.splitlines():
        if line.startswith("{") and line.endswith("}"):
            out.append(json.loads(line))
    return out


def report(impl, n, rep, wall, formation, exchange, warm, error=None):
    rec = {"impl": impl, "n": n, "rep": rep, "wall_s": wall, "formation_ms": formation,
           "exchange_ms": exchange, "warm_ms": warm}
    if error:
        rec["error"] = error[:400]
    print("peers: " + json.dumps(rec), flush=True)


def run_encd(a, n, rep, force_tcp, progs):
    impl = "encd-tcp" if force_tcp else "encd"
    base = [a.encctl, "-j", "world", "launch", "-n", str(n), "--timeout-ms", "300000"]
    if force_tcp:
        base.append("--force-tcp")
    t0 = time.monotonic()
    p = subprocess.run(base + ["--root", "127.0.0.1:%d" % next_port()], capture_output=True,
                       text=True, timeout=TIMEOUT_S)
    wall = time.monotonic() - t0
    ranks = json_lines(p.stdout)
    if p.returncode or len(ranks) != n:
        report(impl, n, rep, None, None, None, None,
               launch_failure(p.returncode, ranks, n, failed_ranks(ranks, p.stderr)))
        return
    formation = max(r["phases"]["setup"] for r in ranks) / 1e3
    exchange = max(r["phases"]["validate"] + r["phases"]["broadcast"] for r in ranks) / 1e3
    # The warm figure: a second world, with the programs' replica groups.
    p = subprocess.run(base + ["--root", "127.0.0.1:%d" % next_port(),
                               "--program", os.path.join(progs, "rank%u.json")],
                       capture_output=True, text=True, timeout=TIMEOUT_S)
    ranks = json_lines(p.stdout)
    if p.returncode or len(ranks) != n:
        report(impl, n, rep, wall, formation, exchange, None,
               "the warm world: " +
               launch_failure(p.returncode, ranks, n, failed_ranks(ranks, p.stderr)))
        return
    warm = max(g["validate"] + g["broadcast"] for r in ranks for g in r["group_comms"]
               if g["group_id"] == 5) / 1e3
    report(impl, n, rep, wall, formation, exchange, warm)


def launch_failure(rc, ranks, n, why):
    """One sentence for a launch that failed: its exit status, how many of
    its ranks reported, and why."""
    return "exit %s, %d of %d ranks: %s" % (rc, len(ranks), n, why)


def failed_ranks(ranks, stderr):
    """The first failed rank's sentence, or the launch's own output."""
    bad = [r for r in ranks if r.get("error") is not None]
    if bad:
        return "rank %s: %s" % (bad[0].get("rank"), bad[0].get("error"))
    return stderr[-300:]


def peer_figures(impl, n, rep, wall, rc, stdout, stderr):
    ranks = json_lines(stdout)
    if rc or len(ranks) != n:
        report(impl, n, rep, None, None, None, None,
               launch_failure(rc, ranks, n, (stdout + stderr)[-300:]))
        return
    report(impl, n, rep, wall, max(r["init_us"] for r in ranks) / 1e3,
           max(r["exchange_us"] for r in ranks) / 1e3, max(r["warm_us"] for r in ranks) / 1e3)


def run_mpi(a, n, rep):
    cmd = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "-np", str(n),
           "--mca", "btl", "tcp,self", "--mca", "pml", "ob1",
           "--mca", "btl_tcp_if_include", "lo", "--mca", "oob_tcp_if_include", "lo",
           a.bench_mpi, "20"]
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        report("openmpi", n, rep, None, None, None, None, "timed out")
        return
    peer_figures("openmpi", n, rep, time.monotonic() - t0, p.returncode, p.stdout, p.stderr)


def run_torch(a, n, rep):
    pt = next_port()
    script = os.path.join(HERE, "bench-torch.py")
    t0 = time.monotonic()
    procs = [subprocess.Popen(["/usr/bin/python3", script, str(r), str(n), str(pt), "20"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for r in range(n)]
    out, err, rc = "", "", 0
    for p in procs:
        try:
            o, e = p.communicate(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            p.kill()
            o, e = p.communicate()
        out, err, rc = out + o, err + e, rc or p.returncode
    peer_figures("torch-gloo", n, rep, time.monotonic() - t0, rc, out, err)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("encctl")
    ap.add_argument("bench_mpi")
    ap.add_argument("--sizes", default="8,16,32")
    ap.add_argument("--torch-sizes", default="8")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--peer-reps", type=int, default=2)
    a = ap.parse_args()
    sizes = [int(x) for x in a.sizes.split(",") if x]
    torch_sizes = [int(x) for x in a.torch_sizes.split(",") if x]
    progs = tempfile.mkdtemp(prefix="bench-peers-")
    for n in sizes:
        d = os.path.join(progs, str(n))
        os.mkdir(d)
        subprocess.run([sys.executable, os.path.join(TOP, "selftests", "bootstrap_test.py"),
                        "--programs", str(n), d], check=True)
        for rep in range(a.reps):
            run_encd(a, n, rep, False, d)
            run_encd(a, n, rep, True, d)
        for rep in range(a.peer_reps):
            run_mpi(a, n, rep)
        if n in torch_sizes:
            run_torch(a, n, 0)


if __name__ == "__main__":
    main()
