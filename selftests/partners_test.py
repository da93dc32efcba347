#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The binary-tree and hypercube partners as the kernel uses them, for
every world size N from 1 to 64 (a sample of them outside the 6.1 lane).

schedule_test checks kmod/schedule.h in user space; this program watches
the module itself. For each N two worlds form, each of kernel ranks
(`encctl world join` processes, encd_world.Rank, sharing this kernel's
host agent) and a fake host of selftests/encd_peer/ that holds the other
ranks and records every message a kernel rank sends it: its type, sender
and receiver, off the wire. The ranks are split so that every edge of one
schedule joins a kernel rank and a fake one:

  - the tree world: the kernel holds the ranks at even depth of the
    binary tree (rank 0 among them: the kernel is the root host), the fake
    host those at odd depth, so each child and its parent are on two hosts;
  - the cube world: the kernel holds the ranks with an odd number of bits
    set, the fake host the others (rank 0 among them: the fake host is the
    root host), so each rank and its hypercube parent, one bit apart, are.

Every message a kernel rank sends the fake host must be one the schedule
says it owes (a signature to its tree parent, the unique id to each of its
hypercube children, its ring proof to its successor), each once, and every
one it owes must come; the fake host sends each kernel rank what the
schedule says it owes, and a kernel rank that expected another partner
fails its world (a message it does not owe is a protocol violation). Each
kernel rank's own counters must show as many messages of each kind, sent
and received, as its partners in the schedule: its partners on this
kernel included, which no wire shows.

The world's own comm has the ranks in order, so a bootstrap rank is its
global device id. A few more worlds bring up a replica group whose
bootstrap order is a shuffle of the ranks, split the same way by bootstrap
rank: the partners are found in that order and must be addressed by their
global device ids (the group's messages are told apart by its node's tag).

The schedules the test expects are written here from their definitions
(the parent is (r - 1) / 2, the children 2r + 1 and 2r + 2; the hypercube
parent is r with its lowest set bit cleared, the children r + 2^j for every
2^j below that bit), not taken from kmod/schedule.h; the fake host's own
(encd_peer/schedule.py) is held to them first.

Runs inside the test VM with encd loaded (partners_test.modparams: 80
cores); KTAP output, one line per world size.
"""
import json
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import encd_peer as P  # noqa: E402
from encd_world import (MSG_SIGNATURE, MSG_UNIQUE_ID, SECRET, TMP, Ports,  # noqa: E402
                        Rank, main, root_listens, stop, wait_until)

WIRE_H = P.check_tree()
if WIRE_H:
    print("# encd_peer's constants hold to %s" % WIRE_H)

# The counters' type of a ring proof (enum encd_msg_type).
MSG_RING = 5
SIG_LEN, UID_LEN, RING_LEN = 17, 129, 128
# In a 2-CPU TCG VM the two worlds of N = 64 take some 4 s, and all of
# N = 1..64 two to two and a half minutes: the 6.1 lane, which holds the
# heavy cases, runs them all. The others run a sample, as the kernel's
# schedule does not change with the lane: every N up to 9, then 16 and 17,
# 32 and 33 (a power of two, and one more rank: the hypercube gains a
# dimension) and 64, in about a minute in the debug lane (which takes more
# than twice as long: 9 s for N = 64).
FULL_LANE = os.environ.get("ENCD_LANE", "").startswith("6.1.")
SIZES = list(range(1, 65)) if FULL_LANE else [1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 17, 32, 33, 64]
# Replica groups whose bootstrap order is a shuffle of the world's ranks.
GROUP_SIZES = [5, 8, 13, 32, 64] if FULL_LANE else [5, 13]
GROUP_STREAM = 1
port = Ports(39000)
KEY = P.world_key(SECRET)
cases = []


def lowbit(r):
    return r & -r


def tree_parent(r):
    return (r - 1) // 2 if r else None


def tree_children(r, n):
    return {c for c in (2 * r + 1, 2 * r + 2) if c < n}


def cube_parent(r):
    return r - lowbit(r) if r else None


def cube_children(r, n):
    top = lowbit(r) if r else n
    return {r + (1 << j) for j in range(n.bit_length()) if (1 << j) < top and r + (1 << j) < n}


def depth(r):
    return (r + 1).bit_length() - 1


def schedules_agree():
    """Why encd_peer's schedules differ from the definitions, or None."""
    for n in range(1, 65):
        for r in range(n):
            if (P.tree_parent(r), set(P.tree_children(r, n))) != (tree_parent(r),
                                                                   tree_children(r, n)):
                return "tree, rank %d of %d" % (r, n)
            if (P.cube_parent(r, n), set(P.cube_children(r, n))) != (cube_parent(r),
                                                                       cube_children(r, n)):
                return "hypercube, rank %d of %d" % (r, n)
        # Each rank but 0 has one parent in each, whose child it is.
        for r in range(1, n):
            if r not in tree_children(tree_parent(r), n) or \
                    r not in cube_children(cube_parent(r), n):
                return "rank %d of %d is not its parent's child" % (r, n)
        if sum(len(cube_children(r, n)) for r in range(n)) != n - 1:
            return "the hypercube of %d is not a tree" % n
    return None


class Recorder(P.FakeHost):
    """A fake host that keeps (wire type, src, dst) of every bootstrap
    message a rank of another host sends one of its ranks, by the node's
    tag. A message that came before its node started is delivered again
    later: sets."""

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.got = {}

    def _deliver(self, typ, src, dst, tag, attempt, body):
        if src not in self.rankset and typ in (P.SIG, P.UID, P.RING):
            self.got.setdefault(tag, set()).add((typ, src, dst))
        super()._deliver(typ, src, dst, tag, attempt, body)

    def received(self, tag):
        return self.call(lambda: set(self.got.get(tag, ())))


def owed(kernel, key):
    """What the kernel's ranks of a comm whose bootstrap participants are
    @key owe the fake host's, {(type, src, dst)} in global device ids;
    @kernel: the bootstrap ranks that are the kernel's."""
    n = len(key)
    out = set()
    for b in kernel:
        if b and tree_parent(b) not in kernel:
            out.add((P.SIG, key[b], key[tree_parent(b)]))
        out |= {(P.UID, key[b], key[c]) for c in cube_children(b, n) if c not in kernel}
        if n > 1 and (b + 1) % n not in kernel:
            out.add((P.RING, key[b], key[(b + 1) % n]))
    return out


def counters_wrong(res, k, n):
    """Why kernel rank k's world-node counters are not its schedule's, or None."""
    got = {(c["type"], c["size"]): (c["tx"], c["rx"]) for c in res.get("counters", [])}
    want = {}
    if n > 1:
        want[(MSG_SIGNATURE, SIG_LEN)] = (1 if k else 0, len(tree_children(k, n)))
        want[(MSG_UNIQUE_ID, UID_LEN)] = (len(cube_children(k, n)), 1 if k else 0)
        want[(MSG_RING, RING_LEN)] = (1, 1)
    # A kind a rank neither sent nor received has no counter.
    want = {key: v for key, v in want.items() if v != (0, 0)}
    if got != want:
        return "rank %d of %d: counters (tx, rx) %s, want %s" % (k, n, got, want)
    return None


def world(n, kernel, group=None):
    """Forms a world of n: the kernel's ranks, the fake host the rest; with
    @group, a bootstrap order of the world's ranks, every rank also brings
    up one replica group of them in that order, and what is checked is
    that group's comm. Returns (why it went wrong or None, seconds)."""
    t = time.monotonic()
    root = "127.0.0.1:%d" % port()
    fakes = [r for r in range(n) if r not in kernel]
    timeout_ms = 30000 + 500 * n
    key = group or list(range(n))
    tag = P.node_tag(GROUP_STREAM, key) if group else P.node_tag(0, key, True)
    fake, ranks = None, []
    try:
        if fakes and 0 in fakes:
            fake = Recorder(root, n, fakes, KEY).start()
        ranks = [Rank(k, k, n, root, timeout_ms, ("--hold", "120"), secret=True,
                      program=group and group_program(key, k)) for k in sorted(kernel)]
        if fakes and fake is None:
            if not root_listens(root, 20):
                return "the kernel's root never listened: %s" % ranks[0].error, 0
            fake = Recorder(root, n, fakes, KEY).start()
        if group and fake:
            if not fake.wait("formed", timeout_ms / 1000):
                return "the world never formed", 0
            fake.call(lambda: [fake.start_node(fake.make_node(g, key, key.index(g),
                                                               GROUP_STREAM, P.ZERO_SIG))
                               for g in fakes])
        for r in ranks:
            res = r.wait_printed(timeout_ms / 1000 + 30)
            if not res or res.get("error") is not None:
                return "rank %d of %d: %s" % (r.gid, n, r.error), 0
        if fake:
            if not fake.wait("formed", 30):
                return "the fake ranks never formed: %s" % [
                    e for e in fake.events if e["ev"] not in ("joined", "registered")][:3], 0
            if group and not wait_until(lambda: sum(
                    e["ev"] == "node_ready" for e in fake.events) == len(fakes), 30):
                return "the fake ranks never formed the group", 0
            bad = [e for e in fake.events if e["ev"] in ("violation", "error", "node_failed")]
            if bad:
                return "the fake host saw %s" % bad[0], 0
        for r in ranks if not group else ():
            why = counters_wrong(r.res, r.gid, n)
            if why:
                return why, 0
        if fake:
            got = fake.received(tag)
            want = owed({key.index(k) for k in kernel}, key)
            if got != want:
                return "world of %d: from the kernel's ranks, %s not owed, %s missing" % (
                    n, sorted(got - want)[:4], sorted(want - got)[:4]), 0
    finally:
        stop(ranks)
        if fake:
            fake.stop()
    return None, time.monotonic() - t


def partners_case(n):
    def fn():
        tree = {r for r in range(n) if depth(r) % 2 == 0}
        cube = {r for r in range(n) if bin(r).count("1") % 2 == 1}
        took = []
        for what, kernel in (("tree", tree), ("cube", cube)):
            if not kernel:
                continue
            why, s = world(n, kernel)
            if why:
                return False, "%s world: %s" % (what, why)
            took.append("%s %d kernel ranks %.1f s" % (what, len(kernel), s))
        return True, "; ".join(took)
    return fn


def group_program(key, g):
    """Global device @g's program: one replica group of every rank, in the
    bootstrap order @key."""
    path = os.path.join(TMP, "partners-%d-%s-g%d.json" % (len(key), P.node_tag(0, key), g))
    b = key.index(g)
    with open(path, "w") as f:
        json.dump({"replica_groups": [{"group_id": 0, "rank": b, "rank_n": len(key),
                                       "participants": key, "bootstrap_participants": key,
                                       "bootstrap_rank": b, "stream_id": GROUP_STREAM}],
                   "ops": []}, f)
    return path


def group_case(n):
    def fn():
        key = list(range(n))
        random.Random(n).shuffle(key)
        took = []
        # The same splits, of bootstrap ranks: the partners are found in
        # bootstrap order and addressed by global device id.
        for what, pick in (("tree", lambda b: depth(b) % 2 == 0),
                           ("cube", lambda b: bin(b).count("1") % 2 == 1)):
            kernel = {key[b] for b in range(n) if pick(b)}
            why, s = world(n, kernel, key)
            if why:
                return False, "%s split of %s: %s" % (what, key, why)
            took.append("%s %d kernel ranks %.1f s" % (what, len(kernel), s))
        return True, "bootstrap order %s: %s" % (key, "; ".join(took))
    return fn


def agree():
    why = schedules_agree()
    return (False, why) if why else (True, "encd_peer's schedules are the definitions' to 64")


cases.append(("the_fake_hosts_schedules_are_the_definitions", agree))
for _n in SIZES:
    cases.append(("the_kernels_partners_in_a_world_of_%d" % _n, partners_case(_n)))
for _n in GROUP_SIZES:
    cases.append(("the_kernels_partners_in_a_shuffled_group_of_%d" % _n, group_case(_n)))

if __name__ == "__main__":
    sys.exit(main(cases))
