#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""World formation in one VM, as figures (not a test). Runs inside the VM
with encd loaded (num_vcores >= the largest N); `make bench-bootstrap`.

    bench-bootstrap.py ENCCTL RTT_TOOL [--sizes 2,4,...] [--reps R]
                       [--hosts 2,4,8] [--per-host 32] [--warm-n 32]

1. One host, N ranks as N processes, local delivery (the default) and
   --force-tcp (each rank its own host agent, every message over loopback
   TCP): the launch's wall time until every rank reported, formation from the
   kernel's own phase timestamps (first rank's rendezvous start to the last
   rank's end of the world's last phase), validation + broadcast.
2. Several hosts in one VM: H network namespaces joined by a bridge, each a
   host of --per-host ranks with its own host agent. Bytes sent by the root
   host and by each host (the kernel's count, netlink's host-tx-bytes),
   next to formation time.
3. Warm validation + broadcast at N = --warm-n on one host: a replica group
   (group 5 of selftests/bootstrap_test.py's programs: every rank, another
   stream) bootstraps over the links the world opened. From NODE_GET's phase
   timestamps (CLOCK_BOOTTIME, one clock for every rank of the host): the
   last rank's start of validation to the last rank's end of the broadcast,
   next to ceil(log2 N) * RTT, RTT the loopback round trip measured in this
   run by RTT_TOOL.

The last line, "calibration: ...", gives the figures tools/bench/scale-model
takes with --calibrate.
"""
import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

from world_phases import formation_ms, vb_ms, world_nodes

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, "..", ".."))
WORLD_TIMEOUT_MS = 180000
WARM_GROUP = 5


class World:
    """One world's run: every rank's JSON line, and what the kernel said."""

    def __init__(self):
        self.ranks = []
        self.wall = None
        self.gcomms = []
        self.bytes = {}
        self.by_netns = {}
        self.error = None


def tcp_bytes(netns):
    """Bytes this network namespace's TCP sockets sent, by local port.

    The host agent's links are kernel sockets; inet_diag (ss) sees them, with
    tcp_info's bytes_sent (payload, retransmissions included) and
    bytes_retrans. Only used to split what the root's host sent on the
    root's port (the control links it serves) from the rest: what a host
    sent in all is the kernel's own count, host_bytes().
    """
    cmd = (["ip", "netns", "exec", netns] if netns else []) + ["ss", "-tinH"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    by_port, local = {}, None
    for line in out.splitlines():
        if line and not line[0].isspace():
            f = line.split()
            local = f[3] if len(f) >= 5 else None
            continue
        if local is None:
            continue
        sent = re.search(r"bytes_sent:(\d+)", line)
        retr = re.search(r"bytes_retrans:(\d+)", line)
        n = (int(sent.group(1)) if sent else 0) - (int(retr.group(1)) if retr else 0)
        port = int(local.rsplit(":", 1)[1])
        by_port[port] = by_port.get(port, 0) + n
        local = None
    return by_port


def host_bytes(gcomms):
    """What one host agent sent, by the kernel's own count: the
    host_tx_bytes of its comms (encctl comm show; netlink's host-tx-bytes),
    the whole frames its links sent, handshakes included. Every comm of one
    host reports the same counter, read at its own moment: the last read
    (the largest) is taken."""
    return max((g.get("host_tx_bytes") or 0) for g in gcomms) if gcomms else 0


def comm_show(encctl, netns):
    cmd = (["ip", "netns", "exec", netns] if netns else []) + [encctl, "-j", "comm", "show"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        raise RuntimeError("encctl comm show: " + p.stderr.strip())
    return json.loads(p.stdout)


def run_world(a, n, hosts, port, force_tcp=False, programs=None, snapshot=True):
    """Starts `world launch` once per host (netns, first, count) and waits
    until every rank has reported; then, while the ranks hold the world,
    reads the kernel's phases and the sockets' bytes."""
    w = World()
    tmp = tempfile.mkdtemp(prefix="bench-w")
    root_addr = "127.0.0.1" if hosts[0][0] is None else "10.79.0.1"
    procs = []
    t0 = time.monotonic()
    for i, (netns, first, count) in enumerate(hosts):
        cmd = [a.encctl, "-j", "world", "launch", "-n", str(n), "--ranks", "%d:%d" % (first, count),
               "--vnc-base", str(first), "--root", "%s:%d" % (root_addr, port),
               "--timeout-ms", str(WORLD_TIMEOUT_MS), "--barrier"]
        if snapshot:
            # Long enough for the snapshot below to read a held world.
            cmd += ["--hold", str(2 + n // 32)]
        if netns:
            cmd = ["ip", "netns", "exec", netns] + cmd + ["--secret-file", a.secret]
        if force_tcp:
            cmd.append("--force-tcp")
        if programs:
            cmd += ["--program", os.path.join(programs, "rank%u.json")]
        out = open(os.path.join(tmp, "h%d" % i), "w")
        procs.append((subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT), out))

    def lines():
        got = []
        for i in range(len(hosts)):
            with open(os.path.join(tmp, "h%d" % i)) as f:
                got += [l for l in f.read().splitlines() if l.startswith("{") and l.endswith("}")]
        return got

    deadline = t0 + WORLD_TIMEOUT_MS / 1000 + 30
    while time.monotonic() < deadline:
        got = lines()
        if len(got) >= n:
            w.wall = time.monotonic() - t0
            break
        if any(p.poll() is not None and p.returncode for p, _ in procs):
            break
        time.sleep(0.1)
    if w.wall is not None and snapshot:
        try:
            for netns, _, _ in hosts:
                w.bytes[netns] = tcp_bytes(netns)
                w.by_netns[netns] = comm_show(a.encctl, netns)
                w.gcomms += w.by_netns[netns]
        except (RuntimeError, subprocess.CalledProcessError, ValueError) as e:
            w.error = "snapshot: %s" % e
    for p, out in procs:
        try:
            p.wait(timeout=WORLD_TIMEOUT_MS / 1000 + 60)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        out.close()
    w.ranks = [json.loads(l) for l in lines()]
    bad = [r for r in w.ranks if r.get("error") is not None]
    if w.wall is None or len(w.ranks) != n or bad:
        w.error = "%d of %d ranks reported, %d failed%s" % (
            len(w.ranks), n, len(bad), ": " + bad[0].get("error", "")[:300] if bad else "")
        w.wall = None
    return w


def world_formation_ms(w):
    return formation_ms(world_nodes(w.gcomms))


def world_vb_ms(w):
    return vb_ms(world_nodes(w.gcomms))


def warm_vb_ms(w, n):
    nodes = [node for g in w.gcomms for node in g.get("nodes", [])
             if WARM_GROUP in node.get("groups", [])]
    return vb_ms(nodes) if len(nodes) == n else None


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt(x, spec="%.1f", width=9):
    return ("%" + str(width) + "s") % (spec % x if x is not None else "-")


def setup_netns(n_hosts):
    """H network namespaces bh0..bhH-1 on one bridge, host h at 10.79.0.h+1.
    Everything stays inside the VM (it has no network device of its own)."""
    sh = ["ip link add bbr0 type bridge", "ip link set bbr0 up"]
    for h in range(n_hosts):
        sh += ["ip netns add bh%d" % h,
               "ip link add bv%d type veth peer name eth0 netns bh%d" % (h, h),
               "ip link set bv%d master bbr0 up" % h,
               "ip -n bh%d addr add 10.79.0.%d/24 dev eth0" % (h, h + 1),
               "ip -n bh%d link set eth0 up" % h, "ip -n bh%d link set lo up" % h]
    for c in sh:
        subprocess.run(c.split(), check=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("encctl")
    ap.add_argument("rtt")
    ap.add_argument("--sizes", default="2,4,8,16,32,64,128,256")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--hosts", default="2,4,8")
    ap.add_argument("--per-host", type=int, default=32)
    ap.add_argument("--warm-n", type=int, default=32)
    ap.add_argument("--warm-reps", type=int, default=5)
    a = ap.parse_args()
    sizes = [int(x) for x in a.sizes.split(",") if x]
    host_counts = [int(x) for x in a.hosts.split(",") if x]
    port = [33000]

    def next_port():
        port[0] += 1
        return port[0]

    rtt = subprocess.run([a.rtt], capture_output=True, text=True, check=True).stdout.split()
    rtt_us, rtt_p90 = float(rtt[1]), float(rtt[2])
    print("loopback TCP round trip (129 bytes, user space, this run): median %.1f us, p90 %.1f us"
          % (rtt_us, rtt_p90))
    sys.stdout.flush()
    progs = tempfile.mkdtemp(prefix="bench-p")

    # 1. One host.
    print("\n# one host: N processes; wall = launch until every rank reported; formation and "
          "v+b (world) from the kernel's phase timestamps; ms unless said")
    print("%5s | %9s %9s %9s | %9s %9s %9s" % ("N", "wall s", "formation", "v+b", "tcp wall",
                                              "formation", "v+b"))
    one_host = {}
    forced_last = (World(), 0)
    forced_last[0].error = "not run"
    for n in sizes:
        row = {}
        for force in (False, True):
            runs = []
            for _ in range(a.reps if n <= 64 else 1):
                pt = next_port()
                runs.append(run_world(a, n, [(None, 0, n)], pt, force_tcp=force))
                if force and n == max(sizes):
                    forced_last = (runs[-1], pt)
            for w in runs:
                if w.error:
                    print("# N=%d%s: %s" % (n, " --force-tcp" if force else "", w.error))
            ok = [w for w in runs if not w.error]
            row[force] = (med(w.wall for w in ok), med(world_formation_ms(w) for w in ok),
                          med(world_vb_ms(w) for w in ok))
        one_host[n] = row
        print("%5d | %s %s %s | %s %s %s" % (
            n, fmt(row[False][0], "%.2f"), fmt(row[False][1]), fmt(row[False][2], "%.2f"),
            fmt(row[True][0], "%.2f"), fmt(row[True][1]), fmt(row[True][2], "%.2f")))
        sys.stdout.flush()

    # 3 (first: it is the smallest). Warm validation + broadcast.
    n = a.warm_n
    subprocess.run([sys.executable, os.path.join(TOP, "selftests", "bootstrap_test.py"),
                    "--programs", str(n), progs], check=True)
    rounds = math.ceil(math.log2(n))
    bound = rounds * rtt_us / 1000
    print("\n# warm validation + broadcast at N = %d on one host (replica group %d over the "
          "world's links):" % (n, WARM_GROUP))
    print("# last rank's start of validation to last rank's end of broadcast, kernel "
          "timestamps; bound = ceil(log2 N) * RTT = %d * %.1f us = %.3f ms" % (rounds, rtt_us, bound))
    warm = {}
    for force in (False, True):
        vals = []
        for _ in range(a.warm_reps):
            w = run_world(a, n, [(None, 0, n)], next_port(), force_tcp=force, programs=progs)
            if w.error:
                print("# warm%s: %s" % (" --force-tcp" if force else "", w.error))
                continue
            vals.append(warm_vb_ms(w, n))
        vals = [v for v in vals if v is not None]
        warm[force] = vals
        m = med(vals)
        print("%-22s median %s ms  (runs: %s)  ratio to bound %s" % (
            "--force-tcp" if force else "local delivery", fmt(m, "%.3f", 7),
            " ".join("%.3f" % v for v in vals), fmt(m / bound if m else None, "%.2f", 5)))
        sys.stdout.flush()

    # 2. Several hosts, as network namespaces.
    print("\n# several hosts in one VM: H network namespaces on a bridge, %d ranks each, "
          "local delivery within a host" % a.per_host)
    print("# bytes: what each host agent sent, by the kernel's count (host_tx_bytes); "
          "root ctl = on the root's port (ss -ti, see tcp_bytes())")
    print("%5s %4s | %9s %10s | %10s %10s %10s %10s %8s" % (
        "N", "H", "wall s", "formation", "root B", "root ctl", "host mean", "host max",
        "root B/N"))
    multi = {}
    if host_counts:
        with open(os.path.join(progs, "secret"), "w") as f:
            f.write(os.urandom(16).hex())
        a.secret = os.path.join(progs, "secret")
        setup_netns(max(host_counts))
    for hc in host_counts:
        n = hc * a.per_host
        p = next_port()
        w = run_world(a, n, [("bh%d" % h, h * a.per_host, a.per_host) for h in range(hc)], p)
        if w.error:
            print("# N=%d H=%d: %s" % (n, hc, w.error))
            continue
        per = [host_bytes(w.by_netns["bh%d" % h]) for h in range(hc)]
        ctl = w.bytes["bh0"].get(p, 0)
        formation = world_formation_ms(w)
        multi[n] = (hc, per[0], w.wall, formation)
        print("%5d %4d | %s %s | %10d %10d %10.0f %10d %8.1f" % (
            n, hc, fmt(w.wall, "%.2f"), fmt(formation, "%.1f", 10), per[0], ctl,
            statistics.mean(per), max(per), per[0] / n))
        sys.stdout.flush()

    # The forced-TCP world of the largest N: every rank a host of its own.
    w, p = forced_last
    n = max(sizes)
    if not w.error:
        b = w.bytes[None]
        # Every rank is a host of its own: each comm's counter is its host's.
        per = {g["g_device_id"]: g.get("host_tx_bytes") or 0 for g in w.gcomms}
        total = sum(per.values())
        print("\n# one VM, --force-tcp, N = H = %d (each rank a host of its own):" % n)
        print("bytes sent by the root's host: %d (%.1f per rank), %d of them on the root's "
              "port (control links served, handshakes); all hosts together %d, %.0f per host"
              % (per.get(0, 0), per.get(0, 0) / n, b.get(p, 0), total, total / n))

    # For the scale model: what one message costs beyond the wire. The warm
    # v+b is 2 * ceil(log2 N) messages one after the other: forced over TCP
    # each is RTT/2 on the wire plus the cost; handed over locally, the cost.
    tw, lw = med(warm.get(True, [])), med(warm.get(False, []))
    hops = 2 * rounds
    if tw and lw:
        c = max(tw * 1000 / hops - rtt_us / 2, 0.0)
        l = lw * 1000 / hops
        print("\ncalibration: rtt_us=%.1f warm_vb_tcp_us=%.1f warm_vb_local_us=%.1f hops=%d "
              "per_msg_us=%.1f local_us=%.1f (scale-model --calibrate %.1f,%.1f)"
              % (rtt_us, tw * 1000, lw * 1000, hops, c, l, c, l))


if __name__ == "__main__":
    main()
