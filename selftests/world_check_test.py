#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""`encctl world check`, the cluster preflight (issue 22): every rank joins,
the world forms and runs its barriers, and rank 0 reports how the world's
hosts came to its root, from the kernel's world-host dump. Hosts are
network namespaces; a host held back, or short of a rank, is named in the
report by the ranks that never came.

Runs inside the test VM with encd loaded; KTAP output, one line per case.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from encd_world import (ENCCTL, SECRET_FILE, Netns, Ports, Rank, finish, main)  # noqa: E402

port = Ports(36000)
cases = []
BARRIERS = 5


def case(fn):
    cases.append((fn.__name__, fn))
    return fn


def start(ns, sizes, started, timeout_ms=60000, text_root=False, others_ms=None):
    """A world of sum(sizes) ranks, sizes[i] of them on host i (the root's
    host is 0), each a `world check`; only the ranks in @started run. With
    @text_root rank 0 prints its report as text: (ranks, rank 0's Popen).
    The other ranks wait @others_ms (default @timeout_ms)."""
    n = sum(sizes)
    root = "%s:%d" % (Netns.addr(1), port())
    extra = ["--barriers", str(BARRIERS)]
    ranks, proc, g = [], None, 0
    for i, size in enumerate(sizes):
        for _ in range(size):
            if g in started and g == 0 and text_root:
                proc = subprocess.Popen(
                    ["ip", "netns", "exec", ns.names[i], ENCCTL, "world", "check", "--vnc", "0",
                     "--g-device-id", "0", "--world-size", str(n), "--root", root,
                     "--timeout-ms", str(timeout_ms), "--secret-file", SECRET_FILE] + extra,
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            elif g in started:
                wait_ms = timeout_ms if g == 0 else others_ms or timeout_ms
                ranks.append(Rank(g, g, n, root, wait_ms, extra, secret=True,
                                  netns=ns.names[i], verb="check"))
            g += 1
    return ranks, proc


def show(text):
    for line in text.rstrip().splitlines():
        print("# " + line)


@case
def a_world_over_three_hosts_passes_and_rank_0_reports_every_host():
    sizes = [2, 3, 3]
    ns = Netns(len(sizes))
    try:
        ranks, _ = start(ns, sizes, range(sum(sizes)))
        finish(ranks)
        bad = [r for r in ranks if not r.ok]
        if bad:
            return False, "rank %d: %s" % (bad[0].gid, bad[0].error)
        rep = ranks[0].res
        hosts = rep.get("hosts", [])
        got = [(h["index"], h["ranks"], h["first_rank"]) for h in hosts]
        # Each host's ranks are numbered from its first; hosts come in any order.
        if sorted((f, c) for _, c, f in got) != [(0, 2), (2, 3), (5, 3)] or \
                [i for i, _, _ in got] != [0, 1, 2]:
            return False, "hosts (index, ranks, first): %s" % got
        if rep.get("missing_n") != 0 or rep.get("missing") != []:
            return False, "missing: %s of %s" % (rep.get("missing"), rep.get("missing_n"))
        if rep.get("barriers_passed") != BARRIERS or not rep.get("barrier_median_us"):
            return False, "barriers: %s passed, median %s us" % (
                rep.get("barriers_passed"), rep.get("barrier_median_us"))
        joined = [h for h in hosts if h["index"]]
        if any(h["handshake_us"] is None or h["registered_us"] is None or
               h["registered_us"] < h["joined_us"] for h in joined):
            return False, "a host without its timeline: %s" % joined
        if hosts[0]["handshake_us"] is not None or hosts[0]["rtt_us"] is not None:
            return False, "the root host has a control link: %s" % hosts[0]
        if not all(r.res.get("ok") and r.res.get("g_device_id") == r.gid for r in ranks[1:]):
            return False, "another rank's line: %s" % ranks[1].res
        # The same world, its report in text.
        ranks, proc = start(ns, sizes, range(sum(sizes)), text_root=True)
        out, err = proc.communicate(timeout=120)
        finish(ranks)
        show(out)
        want = ("world check: 8 ranks formed in ", "hosts slowest to register (of 3 that came):",
                "slowest control links to the root (handshake, TCP round trip):")
        if proc.returncode or err or not all(w in out for w in want):
            return False, "text report (exit %d): %r %r" % (proc.returncode, out, err)
        return True, "3 hosts of 2+3+3 ranks, %d barriers (median %d us), hosts registered " \
            "by +%.1f ms" % (BARRIERS, rep["barrier_median_us"],
                             max(h["registered_us"] for h in hosts) / 1000)
    finally:
        ns.close()


@case
def a_host_held_back_is_named_by_its_missing_ranks():
    sizes = [2, 2]
    ns = Netns(len(sizes))
    try:
        # Each rank's deadline runs from its own call: rank 1 waits longer,
        # or it might give up first, and its leaving would fail rank 0's
        # world before rank 0's deadline named the missing ranks.
        ranks, _ = start(ns, sizes, [0, 1], timeout_ms=3000, others_ms=20000)
        finish(ranks)
        rep = ranks[0].res
        if ranks[0].ok or rep["rc"] != 1 or rep.get("status") != "NRT_TIMEOUT":
            return False, "rank 0: %s" % rep
        if rep.get("missing") != [2, 3] or rep.get("missing_n") != 2 or \
                rep.get("hosts_n") != 1:
            return False, "missing %s of %s, %s hosts" % (
                rep.get("missing"), rep.get("missing_n"), rep.get("hosts_n"))
        if "world check: the world of 4 ranks failed: " not in rep["error"]:
            return False, rep["error"]
        if ranks[1].ok or not ranks[1].error.startswith("world check: rank 1: "):
            return False, "rank 1: %s" % ranks[1].error
        ranks, proc = start(ns, sizes, [0, 1], timeout_ms=3000, text_root=True,
                            others_ms=20000)
        out, err = proc.communicate(timeout=60)
        finish(ranks)
        show(out + err)
        if proc.returncode != 1 or "2 of 4 ranks never registered: 2 3\n" not in out:
            return False, "text report (exit %d): %r %r" % (proc.returncode, out, err)
        return True, "missing ranks 2 3; " + rep["error"]
    finally:
        ns.close()


@case
def a_host_short_of_a_rank_is_in_the_report_and_the_rank_is_missing():
    sizes = [2, 2]
    ns = Netns(len(sizes))
    try:
        ranks, _ = start(ns, sizes, [0, 1, 2], timeout_ms=3000)
        finish(ranks)
        rep = ranks[0].res
        hosts = rep.get("hosts", [])
        got = [(h["index"], h["ranks"], h["first_rank"]) for h in hosts]
        if ranks[0].ok or got != [(0, 2, 0), (1, 1, 2)] or rep.get("missing") != [3]:
            return False, "hosts %s, missing %s: %s" % (got, rep.get("missing"), rep["error"])
        return True, "host 1 came with rank 2 only; rank 3 missing"
    finally:
        ns.close()


@case
def dry_run_takes_the_launcher_s_environment():
    env = dict(os.environ, SLURM_PROCID="5", SLURM_NTASKS="16", SLURM_LOCALID="1",
               SLURM_JOB_NUM_NODES="1", SLURM_JOB_NODELIST="localhost", SLURM_JOB_ID="4242")
    p = subprocess.run([ENCCTL, "world", "check", "--from-env", "--dry-run"], env=env,
                       capture_output=True, text=True)
    want = ("rank 5 (SLURM_PROCID)", "world size 16", "vnc 1 (SLURM_LOCALID)",
            "root 127.0.0.1:24242 (SLURM_JOB_NODELIST:SLURM_JOB_ID, host localhost)",
            "no secret: a world on loopback is keyed by the kernel, for its user")
    if p.returncode or not all(w in p.stdout for w in want):
        return False, "exit %d: %r %r" % (p.returncode, p.stdout, p.stderr)
    return True, " ".join(p.stdout.split())


if __name__ == "__main__":
    sys.exit(main(cases))
