#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Ranks and hosts that die, worlds at the largest size and hosts of
uneven sizes (issues 10 and 13), with selftests/encd_peer/ standing in
for hosts where the world must be held at a chosen point.

Runs inside the test VM with encd loaded; KTAP output, one line per case.

A rank is killed (SIGKILL) at each point of the protocol, in worlds of 2, 8
and 32 ranks (2 and 8 in the debug lane, see KILL_SIZES), and every other
rank must fail within 2 s of the kill, with a
sentence that names it: well before the 30 s deadline every rank has, so a
survivor that waits for its deadline cannot pass. What holds the world at a
point is deterministic, never a sleep:
  - before its registration reaches the root, and after it registered: the
    victim's host reaches the root through a Relay that holds back its
    REGISTER, or the root's TABLE;
  - during validation, the broadcast and comm init: a fake host withholds
    one of its rank's SIG, UID or RING, and the victim is the rank that
    waits for it (encctl comm show says it does);
  - in the local barrier, in a group barrier: the ranks disagree on how
    many barriers to do (--barrier or --barriers 2), so that the victim
    waits in one while the others wait in the other; with 8 and 32 ranks
    the bootstrap's own local barrier is used, held by a fake rank's RING.
"""
import errno
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import encd_peer as P  # noqa: E402
from encd_world import (DEBUG_LANE, SECRET, SECRET_FILE, Netns, Ports, Rank,  # noqa: E402
                        encctl_json, finish, main, names_rank, node_counter, ranks_with_a_host,
                        root_listens, root_netns, stop, wait_until, world_nodes)

# Before anything runs: the peer speaks the protocol of this tree's
# kmod/wire.h (a WireMismatch names each constant that differs).
WIRE_H = P.check_tree()
if WIRE_H:
    print("# encd_peer's constants hold to %s" % WIRE_H)

port = Ports(35000)
KEY = P.world_key(SECRET)
DEADLINE_MS = 30000
LEFT = P.LEFT
# The bound on how soon every survivor fails after a death.
FAIL_FAST_S = 2.0
cases = []
figures = {}


def case(fn):
    cases.append((fn.__name__, fn))
    return fn


def loopback():
    return "127.0.0.1:%d" % port()


def node_state(gid, want):
    def check():
        n = world_nodes().get(gid)
        return n and n["state"] == want
    return check


class Scene:
    """A world held at one point: kernel ranks (Rank), maybe a fake host
    and a relay, and the victim, a kernel rank."""

    def __init__(self):
        self.ranks, self.fake, self.relay, self.victim = [], None, None, None

    def stop(self):
        stop(self.ranks)
        if self.fake:
            self.fake.stop()
        if self.relay:
            self.relay.close()


def scene_relay(n, hold_dir, hold_type):
    """Ranks 0..n-2 on the root host, in the network namespace of relayed
    roots (encd_world.ROOT_NS); the victim n-1 here, behind a relay at the
    root's address that holds hold_type going hold_dir. Held until the
    relay has it."""
    sc = Scene()
    root, ns = loopback(), root_netns()
    sc.ranks = [Rank(r, r, n, root, DEADLINE_MS, secret=True, netns=ns) for r in range(n - 1)]
    if not root_listens(root, 20, netns=ns):
        return sc, False
    sc.relay = P.Relay(root, hold=lambda d, t: d == hold_dir and t == hold_type,
                       listen=P.parse_hostport(root), target_netns=ns)
    sc.victim = Rank(n - 1, n - 1, n, root, DEADLINE_MS, secret=True)
    sc.ranks.append(sc.victim)
    held = sc.relay.wait_frame(lambda f: f[1] == hold_dir and f[2] == hold_type, 30)
    # The victim's frame is held, but the root host's own ranks start in
    # parallel: one that is not yet in the world when the victim dies joins
    # a new world of the same key after the first one failed, and waits for
    # its deadline there. Held only once every one of them has joined its
    # host agent (no world node yet: those come with the table).
    mine = set(range(n - 1))
    return sc, bool(held and wait_until(lambda: mine <= ranks_with_a_host(ns), 40, 0.2))


def scene_fake(n, fake_ranks, hold, victim, state, fake_root=False):
    """Kernel ranks (a secret: the fake host needs the key) and a fake host
    that withholds hold; held once the victim's world node is in state."""
    sc = Scene()
    root = loopback()
    kernel = [r for r in range(n) if r not in fake_ranks]
    if fake_root:
        sc.fake = P.FakeHost(root, n, fake_ranks, KEY, hold={hold: True}).start()
    sc.ranks = [Rank(r, r, n, root, DEADLINE_MS, secret=True) for r in kernel]
    if not fake_root:
        if not root_listens(root, 20):
            return sc, False
        sc.fake = P.FakeHost(root, n, fake_ranks, KEY, hold={hold: True}).start()
    sc.victim = next(r for r in sc.ranks if r.gid == victim)
    return sc, bool(wait_until(node_state(victim, state), 40, 0.2))


def scene_barriers(n, victim, victim_extra, others_extra, rounds_sent):
    """Every rank the kernel's; the victim and the others ask for different
    barriers. Held once the victim's world node sent rounds_sent barrier
    rounds and every other one sent theirs."""
    sc = Scene()
    root = loopback()
    sc.ranks = [Rank(r, r, n, root, DEADLINE_MS,
                     victim_extra if r == victim else others_extra) for r in range(n)]
    sc.victim = sc.ranks[victim]
    rounds = P.ceil_log2(n)

    def held():
        nodes = world_nodes()
        if len(nodes) < n:
            return False
        for r in range(n):
            want = rounds_sent if r == victim else (
                rounds + 1 if "--barriers" in others_extra else rounds)
            if node_counter(nodes[r], "barrier") != want:
                return False
        return True
    ok = bool(wait_until(held, 40, 0.2))
    # The victim's next call (enc_local_barrier, or its second group
    # barrier) starts right after its last round went out: give it a moment
    # to be in it. Were it killed just before, the others would fail the same.
    time.sleep(0.3)
    return sc, ok


def kill_and_time(sc):
    """Kills the victim; returns (worst survivor delay, [problems])."""
    v = sc.victim.gid
    running = [r for r in sc.ranks if r is not sc.victim]
    early = [r.gid for r in running if r.done.is_set()]
    if early:
        return None, ["ranks %s had already ended: %s" % (
            early, [r.error for r in running if r.done.is_set()][:1])]
    t_kill = sc.victim.kill()
    problems, delays = [], []
    for r in running:
        r.wait(DEADLINE_MS / 1000 + 30)
        d = r.end - t_kill
        delays.append(d)
        if r.ok:
            problems.append("rank %d formed" % r.gid)
        elif not 0 <= d <= FAIL_FAST_S:
            problems.append("rank %d failed %.2f s after the kill: %s" % (r.gid, d, r.error))
        elif not names_rank(r.error, v):
            problems.append("rank %d does not name rank %d: %s" % (r.gid, v, r.error))
    if sc.fake:
        e = sc.fake.wait(lambda e: e["t"] >= t_kill and e["ev"] in (
            "death", "uplink_closed", "link_closed"), FAIL_FAST_S + 5)
        if not e:
            problems.append("the fake host heard nothing")
        else:
            d = e["t"] - t_kill
            delays.append(d)
            if d > FAIL_FAST_S:
                problems.append("the fake host heard of it %.2f s after the kill" % d)
            # When the victim was the root host's last rank, the root host
            # goes with it: its links may close before its DEATH is sent.
            if e["ev"] == "death" and not names_rank(e["text"], v):
                problems.append("the fake host heard: %s" % e["text"])
    return (max(delays) if delays else 0.0), problems


def point_scene(n, point):
    if point == "before_registration":
        return scene_relay(n, "up", P.REGISTER)
    if point == "registered":
        return scene_relay(n, "down", P.TABLE)
    if point == "validation":
        f = n - 1
        return scene_fake(n, [f], "sig", P.tree_parent(f), "validating")
    if point == "broadcast":
        if n == 2:
            # Only rank 1 ever waits for a unique id: the fake host is the root.
            return scene_fake(n, [0], "uid", 1, "broadcasting", fake_root=True)
        f = n // 2
        return scene_fake(n, [f], "uid", f + 1, "broadcasting")
    if point == "comm_init":
        f = n - 1 if n == 2 else n // 2 - 1
        return scene_fake(n, [f], "ring", (f + 1) % n, "connecting")
    if point == "local_barrier":
        if n == 2:
            return scene_barriers(n, 0, ["--barrier"], ["--barriers", "2"], P.ceil_log2(n))
        f = n // 2 - 1
        # Rank f + 1 waits for f's ring proof; f + 2 has its own and waits
        # for f + 1 at the local barrier.
        return scene_fake(n, [f], "ring", f + 2, "barrier")
    if point == "group_barrier":
        return scene_barriers(n, n - 1, ["--barriers", "2"], ["--barrier"],
                              P.ceil_log2(n) + 1)
    raise ValueError(point)


POINTS = ("before_registration", "registered", "validation", "broadcast", "comm_init",
          "local_barrier", "group_barrier")


def kill_case(n):
    def fn():
        out, bad = [], []
        for point in POINTS:
            sc, held = point_scene(n, point)
            try:
                if not held:
                    bad.append("%s: the world was never held there (%s)" % (
                        point, [r.error for r in sc.ranks if r.done.is_set()][:1]))
                    continue
                worst, problems = kill_and_time(sc)
            finally:
                sc.stop()
            if problems:
                bad.append("%s: %s" % (point, problems[0]))
            else:
                out.append("%s %.2f s" % (point, worst))
                figures.setdefault(point, {})[n] = worst
        if bad:
            return False, "; ".join(bad)
        return True, "slowest survivor after the kill: " + ", ".join(out)
    fn.__name__ = "a_rank_killed_at_each_point_of_a_world_of_%d_fails_the_others_within_2s" % n
    return fn


# The debug lane (KASAN, lockdep and kmemleak under TCG: some ten times
# slower) runs the same kill points in worlds of 2 and 8: 32 ranks add no
# code path, take minutes of its budget there, and measure the emulator.
KILL_SIZES = (2, 8) if DEBUG_LANE else (2, 8, 32)
for _n in KILL_SIZES:
    cases.append((kill_case(_n).__name__, kill_case(_n)))


@case
def a_host_agent_killed_mid_formation_fails_the_others_within_2s():
    out = []
    for when, holds, n_kernel in (("after REGISTER", [], 4), ("after the table", ["sig"], 5)):
        n, root = 8, loopback()
        # After REGISTER: rank 4 never comes, so the world waits for it.
        ranks = [Rank(r, r, n, root, DEADLINE_MS, secret=True) for r in range(n_kernel)]
        if not root_listens(root, 20):
            return False, "the root never listened"
        cmd = [sys.executable, P.__file__, "--root", root, "--world-size", str(n),
               "--ranks", "5-7", "--secret-file", SECRET_FILE, "--seconds", "60"]
        for h in holds:
            cmd += ["--hold", h]
        agent = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
        want = "registered" if not holds else "table"
        seen = None
        for line in agent.stdout:
            if '"ev": "%s"' % want in line:
                seen = line
                break
        if not seen:
            agent.kill()
            finish(ranks)
            return False, "%s: the fake host never got there" % when
        if when == "after the table":
            wait_until(node_state(2, "validating"), 20, 0.2)
        t_kill = time.monotonic()
        agent.kill()
        agent.wait()
        finish(ranks, DEADLINE_MS / 1000 + 30)
        for r in ranks:
            d = r.end - t_kill
            if r.ok or not 0 <= d <= FAIL_FAST_S or not names_rank(r.error, 5):
                return False, "%s: rank %d %s after %.2f s: %s" % (
                    when, r.gid, "formed" if r.ok else "failed", d, r.error)
        out.append("%s: every rank failed within %.2f s: \"%s\"" % (
            when, max(r.end for r in ranks) - t_kill, ranks[0].error))
    return True, "; ".join(out)


@case
def a_world_of_16384_is_listed_whole():
    """Rank 0 is the kernel's, ranks 1..16383 one fake host's; encctl must
    list the world node's 16,384 participants (status and comm show)."""
    n, root = 16384, loopback()
    t0 = time.monotonic()
    r0 = Rank(0, 0, n, root, 180000, ["--no-check-sigs", "--hold", "120"], secret=True)
    if not root_listens(root, 30):
        return False, "the root never listened"
    f = P.FakeHost(root, n, range(1, n), KEY, settings=0).start()
    formed = f.wait("formed", 240)
    r0.wait_printed(60)
    took = time.monotonic() - t0
    try:
        if not formed or not r0.ok:
            return False, "the world did not form: %s; fake: %s" % (
                r0.error, [e["ev"] for e in f.events][:8])
        got = []
        for what in (("status",), ("comm", "show")):
            try:
                j = encctl_json(*what)
            except RuntimeError as e:
                got.append("encctl %s: %s" % (" ".join(what), e))
                continue
            comms = j["comms"] if isinstance(j, dict) else j
            parts = [x.get("participants", []) for c in comms if c["g_device_cnt"] == n
                     for x in c.get("nodes", []) if x.get("global")]
            if len(parts) != 1 or parts[0] != list(range(n)):
                got.append("encctl %s: %s" % (" ".join(what), [len(x) for x in parts]))
        figures["16k"] = took
        if got:
            return False, "formed in %.1f s, but %s" % (took, "; ".join(got))
        return True, "formed in %.1f s; status and comm show list 16,384 participants" % took
    finally:
        r0.kill()
        r0.wait()
        f.stop()


def netns_world(ns, sizes, root_host, extra):
    """One world over network namespaces: sizes[i] ranks in namespace i,
    numbered from the root's host on. Each namespace's ranks share its
    host agent; the root is not on loopback, so the world has a secret.
    Every rank leaves as soon as it is done (its SETUP, or with extra
    ["--barrier"] its barrier), while the 32 of a large host may still be
    in theirs: a departure spares a SETUP in progress and a barrier the
    rank completed, and a host whose ranks all left closes its links
    quietly."""
    order = [root_host] + [i for i in range(len(sizes)) if i != root_host]
    n = sum(sizes)
    root = "%s:%d" % (Netns.addr(root_host + 1), port())
    ranks, g = [], 0
    for i in order:
        for _ in range(sizes[i]):
            ranks.append(Rank(g, g, n, root, 60000, extra, secret=True,
                              netns=ns.names[i]))
            g += 1
    finish(ranks, 120)
    bad = [r for r in ranks if not r.ok]
    if bad:
        return False, "rank %d: %s" % (bad[0].gid, bad[0].error)
    return True, "%s ranks, the root on the host of %d" % ("+".join(
        str(sizes[i]) for i in order), sizes[root_host])


@case
def worlds_over_hosts_of_1_3_and_32_ranks_form():
    ns = Netns(3)
    try:
        out = []
        # The root on the host of 1, then of 32; a world that ends with a
        # barrier, then one that ends as soon as it forms.
        for root_host, extra in ((0, ["--barrier"]), (2, [])):
            t = time.monotonic()
            ok, why = netns_world(ns, [1, 3, 32], root_host, extra)
            if not ok:
                return False, why
            out.append("%s%s in %.1f s" % (why, ", with a barrier" if extra else "",
                                           time.monotonic() - t))
        return True, "; ".join(out)
    finally:
        ns.close()


@case
def a_rank_that_leaves_right_after_a_barrier_does_not_fail_it_for_the_others():
    """A rank that completed a barrier and left at once can be heard
    leaving (through the root) before its last messages of that barrier
    arrive (on its data links). Here a fake host's rank 1 does exactly
    that: it completes the first of two barriers with its own messages
    held, says it left (having completed one), then lets them go. Ranks
    2 and 3 need them: they finish that barrier, and every rank fails the
    next one at once, naming rank 1."""
    n, root = 4, loopback()
    extra = ["--barriers", "2"]
    ranks = [Rank(0, 0, n, root, DEADLINE_MS, extra, secret=True)]
    if not root_listens(root, 20):
        return False, "the root never listened"
    f = P.FakeHost(root, n, [1], KEY, hold={"barrier": True}).start()
    ranks += [Rank(r, r, n, root, DEADLINE_MS, extra, secret=True) for r in (2, 3)]
    try:
        if not f.wait("barrier_done", 30):
            return False, "the fake rank 1 never completed its barrier"
        f.call(f.tell_death, 1, LEFT % (1, 1), errno.ECONNABORTED, 1)
        time.sleep(0.5)
        ended = [r for r in ranks[1:] if r.done.is_set()]
        f.release("barrier")
        finish(ranks)
    finally:
        f.stop()
    if ended:
        return False, "rank %d did not wait for rank 1's last messages: %s" % (
            ended[0].gid, ended[0].error)
    rounds = 2
    for r in ranks:
        # The world comm's barrier rounds (the 4-byte messages) it heard.
        got = [c["rx"] for c in r.res.get("counters", []) if c["size"] == 4]
        if r.ok or not r.error.startswith("enc_comm_barrier: ") or LEFT % (1, 1) not in r.error:
            return False, "rank %d: %s" % (r.gid, r.error or "its second barrier passed")
        if got != [rounds]:
            return False, "rank %d heard %s barrier messages, not the first barrier's %d: %s" % (
                r.gid, got, rounds, r.error)
    return True, "the first barrier ended everywhere; the second failed: %s" % ranks[0].error


def group_of_all_programs(n):
    """Programs for ranks 0..n-1 with one replica group of all of them
    (group 0, stream 1): a "%d" path, one file per rank."""
    prog = os.path.join(tempfile.mkdtemp(prefix="peer-faults-"), "group-of-%d-%%d.json" % n)
    for r in range(n):
        with open(prog % r, "w") as f:
            json.dump({"replica_groups": [{"group_id": 0, "rank": r, "rank_n": n,
                                           "participants": list(range(n)), "stream_id": 1}],
                       "ops": [{"op": "all_reduce", "size_n": 64, "group": 0}]}, f)
    return prog


def group_with_a_departing_fake_rank(news):
    """A world of 4 whose ranks 0, 2 and 3 are real and rank 1 is a fake
    host's; then the replica group of all four. The fake rank 1 forms its
    part of the group, its ring proof to rank 2 held, and says it left:
    news "root": through the root, saying it had not formed the group's
    comm but naming the real ranks' host as one its host tells on a data
    link too (so that news settles nothing there), then it lets the proof
    go; "formed": on its data link to the real ranks' host, that it had
    formed it, then it lets the proof go; "lost": on that data link, that
    it had not, and never sends the proof. Returns (ranks, what went wrong
    or None, seconds from the news to rank 2's end for "lost")."""
    n, root = 4, loopback()
    prog = group_of_all_programs(n)
    extra = ["--no-check-sigs"]
    ranks = [Rank(0, 0, n, root, DEADLINE_MS, extra, secret=True, program=prog % 0)]
    if not root_listens(root, 20):
        return ranks, "the root never listened", None
    f = P.FakeHost(root, n, [1], KEY, settings=0).start()
    ranks += [Rank(r, r, n, root, DEADLINE_MS, extra, secret=True, program=prog % r)
              for r in (2, 3)]
    try:
        if not f.wait("formed", 30):
            return ranks, "the fake rank 1 never formed the world", None
        f.call(f.hold.__setitem__, "ring", True)
        node = f.make_node(1, range(n), 1, 1, P.ZERO_SIG)
        f.call(f.start_node, node)
        if not f.wait("node_ready", 30):
            return ranks, "the fake rank 1 never formed its part of the group", None
        t = time.monotonic()
        if news == "lost":
            f.call(f.tell_departure_on_data_link, 0, 1, LEFT % (1, 1), 0, (),
                   errno.ECONNABORTED)
            if not ranks[1].done.wait(FAIL_FAST_S + 1):
                return ranks, "rank 2 still waits for rank 1's proof, which never comes", None
            took = time.monotonic() - t
            finish(ranks, 10)
            return ranks, None, took
        if news == "root":
            f.call(f.tell_death, 1, LEFT % (1, 1), errno.ECONNABORTED, 0, (), [0])
        else:
            f.call(f.tell_departure_on_data_link, 0, 1, LEFT % (1, 1), 0, (node.tag,),
                   errno.ECONNABORTED)
        time.sleep(0.5)
        ended = [r for r in ranks if r.done.is_set()]
        if ended:
            return ranks, "rank %d did not wait for rank 1's proof on its way: %s" % (
                ended[0].gid, ended[0].error), None
        f.release("ring")
        finish(ranks)
        return ranks, None, None
    finally:
        f.stop()
        stop(ranks)


def group_formed_despite(news):
    ranks, bad, _ = group_with_a_departing_fake_rank(news)
    if bad:
        return False, bad
    for r in ranks:
        if not r.ok:
            return False, "rank %d: %s" % (r.gid, r.error)
    return True, "the group formed, rank 1's proof came after its leaving"


@case
def a_replica_group_forms_when_the_root_tells_of_a_rank_that_left_first():
    """News through the root can overtake what the rank sent."""
    return group_formed_despite("root")


@case
def a_replica_group_forms_when_a_rank_left_having_formed_it():
    """Its DEATH lists the group's comm: it sent all it owed."""
    return group_formed_despite("formed")


@case
def a_replica_group_fails_at_once_when_a_rank_left_before_forming_it():
    ranks, bad, took = group_with_a_departing_fake_rank("lost")
    if bad:
        return False, bad
    for r in ranks:
        if r.ok or not r.error.startswith("enc_init_replica_groups: ") or \
                LEFT % (1, 1) not in r.error:
            return False, "rank %d: %s" % (r.gid, r.error or "its group formed")
    if took > FAIL_FAST_S:
        return False, "rank 2 failed %.2f s after the news" % took
    return True, "rank 2 failed after %.2f s: %s" % (took, ranks[1].error)


@case
def a_group_barrier_a_departed_rank_completed_passes_and_the_next_fails_at_once():
    """As the world's: a fake host's rank 1 completes the first of two
    barriers of the replica group of all four with its own messages of it
    held, says through the root that it left having completed one of that
    comm's barriers (its host naming the real ranks' host as one it tells
    on a data link too), then lets them go. The real ranks need them: they
    finish that barrier, and fail the next one at once, naming rank 1."""
    n, root = 4, loopback()
    prog = group_of_all_programs(n)
    extra = ["--no-check-sigs", "--barriers", "2", "--barrier-group", "0"]
    ranks = [Rank(0, 0, n, root, DEADLINE_MS, extra, secret=True, program=prog % 0)]
    if not root_listens(root, 20):
        return False, "the root never listened"
    f = P.FakeHost(root, n, [1], KEY, settings=0).start()
    ranks += [Rank(r, r, n, root, DEADLINE_MS, extra, secret=True, program=prog % r)
              for r in (2, 3)]
    try:
        if not f.wait("formed", 30):
            return False, "the fake rank 1 never formed the world"
        # Held from the start: the real ranks enter the barrier as soon
        # as the group formed, and rank 1 with their first round.
        f.call(f.hold.__setitem__, "barrier", True)
        node = f.make_node(1, range(n), 1, 1, P.ZERO_SIG)
        f.call(f.start_node, node)
        if not f.wait("node_ready", 30):
            return False, "the fake rank 1 never formed its part of the group"
        if not f.wait("barrier_done", 30):
            return False, "the fake rank 1 never completed the group's first barrier"
        f.call(f.tell_death, 1, LEFT % (1, 1), errno.ECONNABORTED, 0, [(node.tag, 1)], [0])
        time.sleep(0.5)
        ended = [r for r in ranks[1:] if r.done.is_set()]
        t = time.monotonic()
        f.release("barrier")
        finish(ranks)
        took = time.monotonic() - t
    finally:
        f.stop()
    if ended:
        return False, "rank %d did not wait for rank 1's last messages: %s" % (
            ended[0].gid, ended[0].error)
    for r in ranks:
        if r.ok or not r.error.startswith("enc_comm_barrier: ") or LEFT % (1, 1) not in r.error:
            return False, "rank %d: %s" % (r.gid, r.error or "its second barrier passed")
        if r.res.get("barriers_passed") != 1:
            return False, "rank %d passed %s group barriers, not the first alone: %s" % (
                r.gid, r.res.get("barriers_passed"), r.error)
    if took > FAIL_FAST_S:
        return False, "the ranks ended %.2f s after rank 1's messages came" % took
    return True, "the first barrier ended everywhere; the second failed in %.2f s: %s" % (
        took, ranks[0].error)


def closed_within(sock, seconds):
    """Seconds until the peer closed sock (read to its end), or None if it
    was still open after seconds."""
    start = time.monotonic()
    while True:
        left = seconds - (time.monotonic() - start)
        if left <= 0:
            return None
        sock.settimeout(left)
        try:
            if not sock.recv(4096):
                return time.monotonic() - start
        except socket.timeout:
            return None
        except OSError:
            return time.monotonic() - start


@case
def a_host_that_forwards_the_table_late_does_not_fail_the_world():
    """The table goes down the tree of hosts; a message may reach a host
    before its table does (here host 1, a fake one, passes it to its
    children 3 and 4 a second late, as a busy host could). Every rank is a
    host of its own (--force-tcp); no signatures, so rank 0 sends the
    unique id to rank 4 at once. Another host may be calling host 4 (a
    child of host 1, as host 3 is) as the table reaches it (host 3 itself,
    which gets it at the same time): a connection still shaking hands then
    is not host 4's to close before its handshake's deadline."""
    n, root = 5, loopback()
    # They stay a while once formed: the fake host leaves its world when
    # told to stop, which would fail the barriers of the ranks still in them.
    extra = ["--force-tcp", "--no-check-sigs", "--barrier", "--hold", "3"]
    ranks = [Rank(0, 0, n, root, DEADLINE_MS, extra, secret=True)]
    if not root_listens(root, 20):
        return False, "the root never listened"
    f = P.FakeHost(root, n, [1], KEY, settings=0, hold={"table": True}).start()
    if not f.wait("joined", 20):
        f.stop()
        return False, "the fake host did not join"
    ranks += [Rank(r, r, n, root, DEADLINE_MS, extra, secret=True) for r in range(2, n)]
    caller = None
    if f.wait("table", 20):
        time.sleep(1)
        # Its handshake's deadline (2 s from the accept) is after the window.
        caller = socket.create_connection(f.hosts[4][1], 5)
        # A data link's HELLO, and no PROOF after host 4's CHALLENGE.
        hello = P.Link(KEY, True, P.DATA)
        hello.hello()
        caller.sendall(bytes(hello.out))
        time.sleep(0.3)
        f.release("table")
        closed_after = closed_within(caller, 1.2)
        caller.close()
    f.wait("formed", 20)
    for r in ranks:
        r.wait_printed(40)
    barrier = f.wait("barrier_done", 10) if all(r.ok for r in ranks) else None
    finish(ranks)
    f.stop()
    bad = [r for r in ranks if not r.ok]
    if bad:
        # Every failed rank: the first to fail is not always the first listed.
        return False, "; ".join("rank %d: %s" % (r.gid, r.error) for r in bad)
    if caller is None:
        return False, "the fake host never got the table"
    if closed_after is not None:
        return False, ("host 4 closed a connection still in its handshake %.2f s after its table"
                       % closed_after)
    return bool(barrier), ("formed with the table a second late at hosts 3 and 4; a connection "
                           "shaking hands with host 4 outlived its table")


if __name__ == "__main__":
    rc = main(cases)
    for point, by_n in figures.items():
        print("# figure: %s: %s" % (point, by_n))
    sys.exit(rc)
