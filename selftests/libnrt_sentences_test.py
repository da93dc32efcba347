#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""get_nccl_comm's failures in libnrt's words: a comm init whose ring does
not agree and a local barrier that cannot be set up, each in libnrt's
sentence ("failed to init NCCL comm stream_id:%d group_id:%d", "failed to
setup local barrier"), and every wait of a bootstrap that ends at its
deadline, in the sentence of what it waited for ("failed to receive
signature validation result from %d", and its siblings: the unique id, the
ring proof, the local barrier).

Runs inside the test VM with encd loaded; KTAP output, one line per case.
Kernel ranks are `encctl world join` processes (encd_world.Rank), with a
world secret so that a fake host of selftests/encd_peer/ can be one of
the world's hosts: it withholds the message a kernel rank waits for, or
says what a faithful peer never would. What the kernel rank says is held
to its exact status, sentence and reason, and a deadline to both ends.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import encd_peer as P  # noqa: E402
from encd_world import (DEBUG_LANE, SECRET, TMP, Ports, Rank, encctl_json, join_error,  # noqa: E402
                        main, root_listens, stop, wait_until)

# Before anything runs: the peer speaks the protocol of this tree's
# kmod/wire.h (a WireMismatch names each constant that differs).
WIRE_H = P.check_tree()
if WIRE_H:
    print("# encd_peer's constants hold to %s" % WIRE_H)

port = Ports(37000)
KEY = P.world_key(SECRET)
# A kernel rank's deadline where the case waits for it to end: long enough
# for a world of a few ranks to get to the wait that is held, in every lane.
SHORT_MS = 4000 if DEBUG_LANE else 2000
LONG_MS = 30000
# One jiffy: the kernel's deadlines are counted in them from the call's start.
JIFFY_S = 0.01
cases = []


def case(fn):
    cases.append((fn.__name__, fn))
    return fn


class World:
    """Kernel ranks and one fake host (the ranks fake_ranks) of a world of
    n: the fake host first when it is the root host (it holds rank 0), else
    once the kernel's root listens. deadlines: {rank: ms}; programs: {rank:
    path}; extra: {rank: encctl arguments}; hold: the fake host's."""

    def __init__(self, n, fake_ranks, deadlines=None, programs=None, extra=None, hold=None):
        self.root = "127.0.0.1:%d" % port()
        self.fake, self.ranks = None, []
        deadlines, programs, extra = deadlines or {}, programs or {}, extra or {}
        if 0 in fake_ranks:
            self.fake = P.FakeHost(self.root, n, fake_ranks, KEY, hold=hold).start()
        self.ranks = [Rank(r, r, n, self.root, deadlines.get(r, LONG_MS), extra.get(r, ()),
                           secret=True, program=programs.get(r))
                      for r in range(n) if r not in fake_ranks]
        if self.fake is None:
            if not root_listens(self.root, 20):
                raise RuntimeError("the kernel's root never listened")
            self.fake = P.FakeHost(self.root, n, fake_ranks, KEY, hold=hold).start()

    def rank(self, gid):
        return next(r for r in self.ranks if r.gid == gid)

    def stop(self):
        stop(self.ranks)
        self.fake.stop()


def program(name, r, groups):
    """Rank r's JSON program of @groups (no ops: a group without ops still
    gets its comm); its path."""
    path = os.path.join(TMP, "%s-r%d.json" % (name, r))
    with open(path, "w") as f:
        json.dump({"replica_groups": groups, "ops": []}, f)
    return path


def failed_as(rank, status, sentence, reason):
    """Why rank (a Rank that ended) did not fail with exactly @status,
    exit status 1, libenc's @sentence and the reason @reason; or None."""
    r = rank.res
    want = join_error(rank.gid, sentence)
    if r.get("rc") != 1 or r.get("status") != status or r.get("error") != want or \
            r.get("reason") != reason:
        return "rank %d: exit %s, %s, %s: %s; want %s, %s: %s" % (
            rank.gid, r.get("rc"), r.get("status"), r.get("reason"), r.get("error"), status,
            reason, want)
    return None


def ended_at_deadline(rank, phase, ms):
    """Why @rank's call (its @phase, timed by encctl) did not end at its
    deadline of @ms: not before it, and within 1 s after it; or None."""
    took = rank.res["phases"][phase] / 1e6
    if not ms / 1000.0 - JIFFY_S <= took <= ms / 1000.0 + 1.0:
        return "rank %d: %s took %.2f s for a deadline of %.1f s" % (rank.gid, phase, took,
                                                                     ms / 1000.0)
    return None


def setup_timed_out(n, fake_ranks, hold, victim, awaited):
    """The kernel rank @victim of a world of @n, whose fake host withholds
    @hold, ends its SETUP at its deadline saying it waited for @awaited."""
    w = World(n, fake_ranks, {victim: SHORT_MS}, hold={hold: True})
    try:
        v = w.rank(victim)
        v.wait(LONG_MS / 1000.0)
    finally:
        w.stop()
    bad = failed_as(v, "NRT_TIMEOUT", "enc_setup_global_comm: %s: timed out (rank %d, "
                    "forming the world) (ETIMEDOUT)" % (awaited, victim), "timeout") or \
        ended_at_deadline(v, "setup", SHORT_MS)
    return (False, bad) if bad else (True, v.error)


@case
def a_missing_signature_times_out_with_libnrts_receive_sentence():
    # Rank 0 of 2 waits for its binary-tree child's 17 bytes.
    return setup_timed_out(2, [1], "sig", 0, "failed to receive signature validation result "
                           "from 1 (bootstrap rank 1)")


@case
def a_missing_unique_id_times_out_naming_its_hypercube_parent():
    # Rank 1 of 2 sent its signature up and waits for the root's 129 bytes.
    return setup_timed_out(2, [0], "uid", 1, "failed to receive the unique id from 0 "
                           "(bootstrap rank 0)")


@case
def a_missing_ring_proof_times_out_as_a_comm_init_failure():
    # Rank 0 of 2 has the unique id and waits for its ring predecessor's.
    return setup_timed_out(2, [1], "ring", 0, "failed to init NCCL comm stream_id:0 group_id:-1: "
                           "no ring proof from its predecessor, global device 1")


@case
def a_local_barrier_short_of_a_rank_times_out_counting_the_arrived():
    # Ranks 0 and 2 of 3 share this kernel; rank 2's ring predecessor is
    # the fake rank 1, which withholds its proof: rank 0 passes its ring
    # (its predecessor is rank 2) and waits at the local barrier for rank 2.
    return setup_timed_out(3, [1], "ring", 0, "failed to setup local barrier: 1 of the group's "
                           "2 ranks on this host arrived")


@case
def a_replica_groups_timed_out_wait_names_its_comm_and_the_peer():
    # The world forms; the fake rank 1 never starts its part of group 3,
    # so rank 0 waits for its signature until INIT's deadline.
    n = 2
    progs = {0: program("late-sig", 0, [{"group_id": 3, "rank": 0, "rank_n": 2,
                                         "participants": [0, 1], "stream_id": 1}])}
    w = World(n, [1], {0: SHORT_MS}, progs)
    try:
        if not w.fake.wait("formed", 30):
            return False, "the world never formed: %s" % w.ranks[0].error
        v = w.rank(0)
        v.wait(LONG_MS / 1000.0)
    finally:
        w.stop()
    bad = failed_as(v, "NRT_TIMEOUT", "enc_init_replica_groups: failed to init NCCL comm "
                    "stream_id:1 group_id:3: failed to receive signature validation result from "
                    "1 (bootstrap rank 1): timed out (ETIMEDOUT)", "timeout") or \
        ended_at_deadline(v, "init_groups", SHORT_MS)
    return (False, bad) if bad else (True, v.error)


@case
def a_ring_predecessor_with_another_unique_id_fails_comm_init():
    # Rank 0 of 2 makes group 3's unique id and sends it down; the fake
    # rank 1 sends back, as its ring proof, an id that is not the one it
    # was given. libnrt's ncclInitComm would fail there; so does encd's
    # ring check, in libnrt's sentence, naming the predecessor.
    n = 2
    progs = {0: program("ring-lie", 0, [{"group_id": 3, "rank": 0, "rank_n": 2,
                                        "participants": [0, 1], "stream_id": 1}])}
    w = World(n, [1], {}, progs)
    try:
        f = w.fake
        if not f.wait("formed", 30):
            return False, "the world never formed: %s" % w.ranks[0].error
        f.call(f.hold.__setitem__, "ring", True)
        node = f.make_node(1, [0, 1], 1, 1, P.ZERO_SIG)
        f.call(f.start_node, node)
        # Held once the fake rank has the id and would send its proof.
        if not wait_until(lambda: f.call(lambda: bool(f.held["ring"])), 30):
            return False, "the fake rank never got to its ring proof"
        v = w.rank(0)
        if v.done.is_set():
            return False, "rank 0 ended before the proof: %s" % v.error
        lie = bytes(b ^ 0xFF for b in f.call(lambda: bytes(node.uid)))
        f.call(f.send_msg, P.RING, 1, 0, node.tag, node.attempt, lie)
        v.wait(30)
    finally:
        w.stop()
    bad = failed_as(v, "NRT_FAILURE", "enc_init_replica_groups: failed to init NCCL comm "
                    "stream_id:1 group_id:3: its ring predecessor (global device 1) holds "
                    "another unique id (EPROTO)", "protocol")
    return (False, bad) if bad else (True, v.error)


# Two replica groups of 4 on stream 0 whose bootstrap participants differ
# but hash to the same node tag (jhash2, initial value 0: found by search).
# A unique id carries the tag, not the participants, so one id can pass
# for both groups' own. Kernel ranks 1 and 2 are in K1, rank 3 in K2.
K1 = [59, 1, 2, 15]
K2 = [33, 3, 12, 54]


@case
def a_local_barrier_whose_ranks_disagree_on_their_number_fails_with_libnrts_sentence():
    # The fake ranks 59 and 33, the two groups' bootstrap roots, send both
    # groups the same unique id. Ranks 1 and 2 (K1) meet at the local
    # barrier of that id, two ranks of this host; then rank 3 (K2, one rank
    # of this host) comes to the same id's barrier, whose count it does not
    # share: libnrt's setup_local_barrier fails, and so does encd's.
    if P.node_tag(0, K1) != P.node_tag(0, K2):
        return False, "K1 and K2 no longer share a tag: %#x, %#x" % (P.node_tag(0, K1),
                                                                       P.node_tag(0, K2))
    n = 64
    groups = {1: (K1, 1), 2: (K1, 2), 3: (K2, 1)}
    progs = {r: program("lb-count", r, [{"group_id": 5, "rank": b, "rank_n": 4,
                                         "participants": k, "bootstrap_participants": k,
                                         "bootstrap_rank": b, "stream_id": 0}])
             for r, (k, b) in groups.items()}
    w = World(n, [r for r in range(n) if r not in groups], {}, progs,
              {1: ("--hold", "60"), 2: ("--hold", "60")})
    try:
        f = w.fake
        if not f.wait("formed", 60):
            return False, "the world never formed: %s" % [r.error for r in w.ranks]
        # K2's root keeps its ring proof until K1 has formed.
        f.call(f.hold.__setitem__, "ring", {K2[0]})

        def start_groups():
            root1 = f.make_node(K1[0], K1, 0, 0, P.ZERO_SIG)
            f.start_node(root1)
            f.start_node(f.make_node(K1[3], K1, 3, 0, P.ZERO_SIG))
            # K2's root waits for its children's signatures: it has sent
            # nothing yet when it takes K1's id for its own.
            root2 = f.make_node(K2[0], K2, 0, 0, P.ZERO_SIG)
            f.start_node(root2)
            root2.uid = root1.uid
            f.start_node(f.make_node(K2[2], K2, 2, 0, P.ZERO_SIG))
            f.start_node(f.make_node(K2[3], K2, 3, 0, P.ZERO_SIG))
        f.call(start_groups)
        for gid in (1, 2):
            res = w.rank(gid).wait_printed(60)
            if not res or res.get("error") is not None:
                return False, "rank %d (K1) did not form its group: %s" % (gid,
                                                                          w.rank(gid).error)
        v = w.rank(3)

        def rank3_waits_for_the_proof():
            return {x["state"] for c in encctl_json("comm", "show")
                    if c["root_comm_id"] == w.root and c["g_device_id"] == 3
                    for x in c["nodes"] if not x["global"]} == {"connecting"}
        if not wait_until(rank3_waits_for_the_proof, 30, 0.2) or v.done.is_set():
            return False, "rank 3 was not waiting for its ring proof: %s" % v.error
        f.release("ring")
        v.wait(30)
    finally:
        w.stop()
    bad = failed_as(v, "NRT_INVALID", "enc_init_replica_groups: failed to init NCCL comm "
                    "stream_id:0 group_id:5: failed to setup local barrier: the group's ranks on "
                    "this host disagree on their number (1 local ranks) (EINVAL)",
                    "world-differs")
    return (False, bad) if bad else (True, v.error)


if __name__ == "__main__":
    sys.exit(main(cases))
