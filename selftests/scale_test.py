#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Worlds of 16,384, 65,536 and 131,072 ranks in one VM (issue 21).

Runs inside the test VM with encd loaded; KTAP output, one case a size.

Each world has two kernel hosts, each in a network namespace of its own
(selftests' Netns, a bridge between them): the root's, with ranks 0 and 1,
and the last host, with the world's last rank. Every other rank is a fake
host's (encd_peer), at most 16,384 a fake host and at least two fake
hosts, in the initial namespace on the bridge's address. Hosts are
numbered by their first rank, so the kernel's second host is the last
one, and its parent in the host tree is a fake host: it takes the table
in parts (60 KiB a TABLE frame) from a member, and the root's digest.

A case passes when every kernel rank formed the world, every fake host
did, and then every rank left it (the job's end), every fake host hearing
of every kernel rank's departure and the root closing its links once all
had left, having sent the fake hosts at most twice the bytes and frames
to end the world that it sent them to form it (the root's control links
and its data links to them, as the fake hosts counted), and every fake
host likewise what it sent. It prints the time to form and end, those
counts, and the kernel memory (Slab + VmallocUsed, caches dropped) the two
kernel hosts spent per world rank while the world stood.

The sizes follow the lane: all three in the 6.1 lane, 16,384 and 65,536
on 6.12, 16,384 in the debug lane (KASAN under TCG). Cases named on the
command line run whatever the lane: `make bench-scale` runs all three.
"""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import encd_peer as P  # noqa: E402
from encd_world import (DEBUG_LANE, SECRET, Netns, Ports, Rank, kernel_memory_kib,  # noqa: E402
                        main, root_listens, sh, stop)

LANE = os.environ.get("ENCD_LANE", "")
if DEBUG_LANE:
    SIZES = (16384,)
elif LANE.startswith("6.1."):
    SIZES = (16384, 65536, 131072)
else:
    SIZES = (16384, 65536)
FAKE_MAX = 16384
BRIDGE_ADDR = "10.98.0.254"
port = Ports(36000)
KEY = P.world_key(SECRET)


def world_of(n):
    """Forms a world of n ranks as the module docstring says, then ends it."""
    ns = Netns(2, prefix="encdsc")
    sh("ip", "addr", "add", BRIDGE_ADDR + "/24", "dev", "encdbr0")
    root = "%s:%d" % (Netns.addr(1), port())
    fakes, ranks = [], []
    try:
        before = kernel_memory_kib()
        t0 = time.monotonic()
        hold = ["--no-check-sigs", "--hold", "600"]
        ranks = [Rank(g, g, n, root, 240000, hold, secret=True, netns=ns.names[0])
                 for g in (0, 1)]
        if not root_listens(root, 30, netns=ns.names[0]):
            return False, "the root never listened"
        between = list(range(2, n - 1))
        k = max(2, -(-len(between) // FAKE_MAX))
        per = -(-len(between) // k)
        for i in range(k):
            fakes.append(P.FakeHost(root, n, between[i * per:(i + 1) * per], KEY, settings=0,
                                    listen_host=BRIDGE_ADDR, name="fake%d" % i).start())
        ranks.append(Rank(2, n - 1, n, root, 240000, hold, secret=True, netns=ns.names[1]))
        for r in ranks:
            r.wait_printed(240)
        formed = [f.wait("formed", 60) for f in fakes]
        took = time.monotonic() - t0
        bad = [r for r in ranks if not r.ok]
        if bad:
            tell(fakes, ranks)
            return False, "rank %d: %s" % (bad[0].gid, bad[0].error)
        if not all(formed):
            f = fakes[formed.index(None)]
            return False, "%s never formed: %s" % (f.name, [e["ev"] for e in f.events][-6:])
        held = kernel_memory_kib() - before
        form = (sum(f.stats["root_bytes"] for f in fakes),
                sum(f.stats["root_frames"] for f in fakes))
        sent = [own_sends(f) for f in fakes]
        parts = fakes[-1].stats["rx_TABLE"]

        # The job ends: every rank leaves. The root's two first, whose
        # host stays up to pass the others' news on; then the last host's
        # rank, whose news the root passes on without a rank of its own;
        # then every fake host's, all at once, after which the root has
        # nothing left to pass on and closes its links. (The news of the
        # last ranks to leave goes nowhere: nobody is left to need it.)
        t_end = time.monotonic()
        for leaving, gids in ((ranks[:2], (0, 1)), (ranks[2:], (n - 1,))):
            stop(leaving)
            for g in gids:
                if not heard(fakes, g):
                    return False, "a fake host never heard rank %d leave" % g
        for f in fakes:
            f.call(f.depart)
        for f in fakes:
            if not f.wait("uplink_closed", 30):
                return False, "the root never closed %s's control link" % f.name
        took_end = time.monotonic() - t_end
        end = (sum(f.stats["root_bytes"] for f in fakes) - form[0],
               sum(f.stats["root_frames"] for f in fakes) - form[1])
        # What each fake host sent, which passes news down as a kernel
        # host does: the most, to form the world and to end it.
        ended = [tuple(b - a for a, b in zip(s0, own_sends(f))) for s0, f in zip(sent, fakes)]
        figures = ("%d ranks on %d hosts formed in %.1f s (a fake host took the table in %d "
                   "parts); the root sent the fake hosts %d bytes in %d frames to form the "
                   "world, %d bytes in %d frames to end it (%.1f s); a fake host sent at most "
                   "%d bytes in %d frames to form it, %d bytes in %d frames to end it; kernel "
                   "memory held %.1f bytes a rank (%+d KiB)" % (
                       n, k + 2, took, parts, form[0], form[1], end[0], end[1], took_end,
                       max(s[0] for s in sent), max(s[1] for s in sent),
                       max(e[0] for e in ended), max(e[1] for e in ended),
                       held * 1024.0 / n, held))
        # The bound: a job's end costs the root at most twice what
        # forming the world did, in bytes and in frames.
        if end[0] > 2 * form[0] or end[1] > 2 * form[1]:
            return False, "the end cost more than twice the formation: " + figures
        # And every fake host's, which passes its parent's news on to its
        # children as a kernel host does.
        for f, s0, e in zip(fakes, sent, ended):
            if e[0] > 2 * s0[0] or e[1] > 2 * s0[1]:
                return False, "%s (host %s) sent %d bytes in %d frames to end the world, " \
                    "%d in %d to form it: %s" % (f.name, f.index, e[0], e[1], s0[0], s0[1],
                                                figures)
        return True, figures
    finally:
        stop(ranks)
        for f in fakes:
            f.stop()
        ns.close()


def own_sends(f):
    """(bytes, frames) a fake host has sent, handshakes' bytes included."""
    return (f.stats["tx_bytes"],
            sum(v for key, v in f.stats.items() if key.startswith("tx_") and key != "tx_bytes"))


def tell(fakes, ranks):
    """What every fake host and kernel rank saw last, and what the kernel
    said: for a world that did not form."""
    for f in fakes:
        print("# %s (host %s, formed %s): %s" % (
            f.name, f.index, f.formed, [(e["ev"], e.get("host"), e.get("why"))
                                        for e in f.events[-8:]]))
    for r in ranks:
        print("# rank %d: %s" % (r.gid, r.error if not r.ok else "formed"))
    for line in [x for x in sh("dmesg").stdout.splitlines() if "encd" in x][-30:]:
        print("# " + line)


def heard(fakes, g, timeout=30):
    """Whether every fake host heard rank g leave; if not, says which did
    not and what they saw last, and what the kernel said."""
    def of_g(e):
        return e["ev"] == "death" and e.get("rank") is not None and \
            e["rank"] <= g < e["rank"] + e.get("count", 1)
    deaf = [f for f in fakes if not f.wait(of_g, timeout)]
    for f in deaf:
        print("# %s (host %s) never heard rank %d leave; its last events: %s" % (
            f.name, f.index, g, [(e["ev"], e.get("rank"), e.get("host"), e.get("why"))
                                 for e in f.events[-6:]]))
    if deaf:
        for line in [x for x in sh("dmesg").stdout.splitlines() if "encd" in x][-30:]:
            print("# " + line)
    return not deaf


def sized(n):
    def run():
        return world_of(n)
    run.__name__ = "a_world_of_%d_ranks_forms_and_ends" % n
    return run.__name__, run


# Every size when named on the command line (make bench-scale), the lane's
# sizes otherwise.
ALL = [sized(_n) for _n in (16384, 65536, 131072)]
cases = [c for c in ALL if int(c[0].split("_")[3]) in SIZES]

if __name__ == "__main__":
    subprocess.run(["sysctl", "-qw", "net.core.somaxconn=4096"])
    # The kernel's debug log, for the dmesg a failed case prints.
    try:
        with open("/sys/kernel/debug/dynamic_debug/control", "w") as f:
            f.write("module encd +p\n")
    except OSError:
        pass
    sys.exit(main(ALL if sys.argv[1:] else cases))
