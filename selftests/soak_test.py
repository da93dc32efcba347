#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A soak: worlds of random sizes formed, killed and released, over and
over, with random faults, for a while: $ENCD_SOAK_S seconds (`make soak
SOAK_S=3600` sets it; tools/vm carries it into the VM), else 60 s in the
debug lane and 15 s in the others.

Each round is one world of 2 to 12 ranks on loopback, every rank a host of
its own or all on one, and one of:
  formed    every rank forms the world, passes a barrier and releases it;
  left      as formed, but one rank releases its comm as soon as it can;
  killed    one rank is SIGKILLed at a random moment of the formation;
  injected  (debug lane) encd's socket sends and receives fail at random
            (fault injection, kmod/fault.c) for the whole round.
formed and left must succeed at every rank. In killed and injected rounds
a rank may succeed or fail, but one that fails says why, and none outlives
its deadline by more than a few seconds: no round hangs.

At the end, every world gone, Slab and VmallocUsed are printed beside
their values after the first round (and every 5 minutes of a soak of 10
or more), with what kmemleak finds; the program
fails if they grew by more than 2 MiB (the debug lane's runner also fails
it on any kmemleak report).
"""
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from encd_world import (DEBUG_LANE, Ports, Rank, finish, kernel_memory, main,  # noqa: E402
                        meminfo_now)

port = Ports(36000)
FAULTS = "/sys/kernel/debug/encd"
# Deadlines: a world that must form, and one a kill or a fault may spoil
# (whose ranks may wait for a rank that never came, until this).
FORM_MS, SPOIL_MS = 20000, 4000
GROWTH_KIB = 2048
# A long soak prints the kernel's memory this often, for its trend.
SAMPLE_S = 300


def soak_seconds():
    return int(os.environ.get("ENCD_SOAK_S") or (60 if DEBUG_LANE else 15))


def inject(probability):
    """encd's send and receive fault points fail at @probability percent
    (0: never)."""
    for point in ("fail_send", "fail_recv"):
        d = os.path.join(FAULTS, point)
        for name, value in (("probability", probability), ("interval", 1),
                            ("times", -1), ("verbose", 0)):
            with open(os.path.join(d, name), "w") as f:
                f.write("%d\n" % value)


def one_round(rng, kinds):
    """One world; returns (kind, n, formed ranks, failed ranks) or raises
    AssertionError with what went wrong."""
    kind = rng.choice(kinds)
    n = rng.randint(2, 12)
    tcp = rng.random() < 0.5
    root = "127.0.0.1:%d" % port()
    spoiled = kind in ("killed", "injected")
    deadline = SPOIL_MS if spoiled else FORM_MS
    extra = ["--barrier"] + (["--force-tcp"] if tcp else [])
    victim = rng.randrange(n)
    if kind == "injected":
        inject(rng.choice((1, 2, 5)))
    try:
        ranks = []
        for r in range(n):
            hold = "0" if kind == "left" and r == victim else "1"
            ranks.append(Rank(r, r, n, root, deadline, extra + ["--hold", hold]))
        if kind == "killed":
            time.sleep(rng.uniform(0, 0.4))
            ranks[victim].kill()
        finish(ranks, timeout=deadline / 1000 + 30)
    finally:
        if kind == "injected":
            inject(0)
    # A soak starts thousands of ranks in one case: each round's go now,
    # pipes and all, not when the case ends (main() keeps them till then).
    for r in ranks:
        r.p.stdout.close()
        r.p.stderr.close()
        Rank.started.remove(r)
    what = "%s: %d ranks%s" % (kind, n, ", each a host" if tcp else "")
    formed = failed = 0
    for r in ranks:
        if kind == "killed" and r is ranks[victim]:
            continue
        took = r.end - r.start
        if r.res.get("status") == "hung" or took > deadline / 1000 + 1 + 3:
            raise AssertionError("%s: rank %d ended after %.1f s (deadline %.1f s): %s" % (
                what, r.gid, took, deadline / 1000, r.error))
        if r.ok:
            formed += 1
        elif not spoiled:
            raise AssertionError("%s: rank %d: %s" % (what, r.gid, r.error))
        elif not r.error.strip():
            raise AssertionError("%s: rank %d failed without a sentence" % (what, r.gid))
        else:
            failed += 1
    return kind, n, formed, failed


def kmemleak():
    """What kmemleak reports after a scan, or None without kmemleak."""
    path = "/sys/kernel/debug/kmemleak"
    if not os.path.exists(path):
        return None
    with open(path, "w") as f:
        f.write("scan\n")
    with open(path) as f:
        return f.read().count("unreferenced object")


def worlds_of_random_sizes_formed_killed_and_released_hold_no_memory():
    seconds = soak_seconds()
    seed = int(time.time())
    rng = random.Random(seed)
    kinds = ["formed", "left", "killed"]
    if os.path.exists(os.path.join(FAULTS, "fail_send")):
        kinds.append("injected")
    one_round(random.Random(seed - 1), ["formed"])
    slab0, vmalloc0 = kernel_memory()
    counts = dict.fromkeys(kinds, 0)
    ranks = formed = failed = 0
    t0 = time.monotonic()
    sample = t0 + SAMPLE_S
    while time.monotonic() - t0 < seconds:
        try:
            kind, n, f, x = one_round(rng, kinds)
        except AssertionError as e:
            return False, "seed %d, round %d: %s" % (seed, sum(counts.values()) + 1, e)
        counts[kind] += 1
        ranks += n
        formed += f
        failed += x
        if seconds >= 2 * SAMPLE_S and time.monotonic() >= sample:
            # The trend, in a long soak: a leak climbs; caches level off.
            # Read as it is: kernel_memory() drops the caches, and the
            # programs of the next ranks, read again over the VM's 9p root,
            # then start seconds late, past a 4 s deadline the test counts
            # from their start (an hour's soak failed so, twice).
            slab, vmalloc = meminfo_now()
            print("# after %.0f s, %d worlds: Slab %d KiB, VmallocUsed %d KiB (%+d KiB, "
                  "caches not dropped)" % (
                      time.monotonic() - t0, sum(counts.values()), slab, vmalloc,
                      slab + vmalloc - slab0 - vmalloc0), flush=True)
            sample += SAMPLE_S
    took = time.monotonic() - t0
    time.sleep(2)
    slab1, vmalloc1 = kernel_memory()
    leaks = kmemleak()
    grew = slab1 + vmalloc1 - slab0 - vmalloc0
    fig = "%d worlds (%s) of %d ranks in %.0f s, seed %d: %d ranks formed, %d failed " \
        "with a sentence; Slab %d -> %d KiB, VmallocUsed %d -> %d KiB (%+d KiB); " \
        "kmemleak: %s" % (
            sum(counts.values()), ", ".join("%d %s" % (counts[k], k) for k in kinds), ranks,
            took, seed, formed, failed, slab0, slab1, vmalloc0, vmalloc1, grew,
            "not in this kernel" if leaks is None else "%d unreferenced objects" % leaks)
    print("# " + fig)
    return grew < GROWTH_KIB and not leaks, fig


if __name__ == "__main__":
    sys.exit(main([("worlds_of_random_sizes_formed_killed_and_released_hold_no_memory",
                    worlds_of_random_sizes_formed_killed_and_released_hold_no_memory)]))
