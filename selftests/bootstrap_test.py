#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""World formation over loopback, one process per rank, through encctl.

Runs inside the test VM with encd loaded (num_vcores >= 80). KTAP output,
one result line per case. Each rank is `encctl -j world join` on its own
vnc (encd_world.Rank); its JSON line says what happened (see
tools/encctl/world.c). The ranks of one kernel share a host agent, the root
host: what they send each other is handed over inside the module.

Where a case kills a rank, or refuses one, it first makes sure the world
is where the case says (each rank blocked in the call it names, each node
in the state it names): a kill too early or too late must fail the case,
not pass it by accident. Failures are held to their exact status, exit
status and sentence; deadlines to both ends.
"""
import json
import os
import signal
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import encd_peer as P  # noqa: E402
from encd_world import (MSG_SIGNATURE, MSG_UNIQUE_ID, SECRET, TMP, Ports, Rank,  # noqa: E402
                        encctl_json, finish, join_error, join_failed, main, stop, wait_until)

# Before anything runs: the peer speaks the protocol of this tree's
# kmod/wire.h (a WireMismatch names each constant that differs). Silently:
# with --programs (for benchmarks) this program prints nothing.
P.check_tree()

results = []
port = Ports(31000)
# One jiffy: the kernel's deadlines are counted in them from the call's start.
JIFFY_S = 0.01
# ioctl(2) on x86_64, and the two calls a rank waits in: _IO(0xE5, 0x89)
# and _IO(0xE5, 0x8a), as uapi/linux/encd.h numbers them.
SYS_IOCTL = 16
IOC_SETUP, IOC_INIT_GROUPS = 0xE589, 0xE58A
ROOT_GAVE_UP = ("enc_setup_global_comm: root: %d of %d ranks arrived before the wait ended "
                "(timed out); missing: %s (ETIMEDOUT)")
LEFT = P.LEFT
NOT_THE_SECRET = ("enc_setup_global_comm: the root at %s does not hold the world secret of "
                  "this rank: every rank of a world needs the same secret (or, on loopback, "
                  "none, and one user or encd's loopback_group) (EACCES)")


def case(name):
    def wrap(fn):
        results.append((name, fn))
        return fn
    return wrap


def failed_as(r, status, error, reason=None):
    """Whether rank result @r failed with exactly @status, exit status 1,
    libenc's sentence @error and, when given, the reason (encctl's name of
    it) @reason; else why not."""
    want = join_error(r["g_device_id"], error)
    if not join_failed(r) or r["rc"] != 1 or r["status"] != status or r["error"] != want:
        return "rank %s: failed %s, exit %s, %s: %s; want %s: %s" % (
            r.get("g_device_id"), join_failed(r), r["rc"], r["status"], r["error"], status, want)
    if reason is not None and r.get("reason") != reason:
        return "rank %s: reason %s, want %s: %s" % (r.get("g_device_id"), r.get("reason"),
                                                   reason, want)
    return None


def waits_in(rank, ioc):
    """Whether @rank's process is blocked in ioctl(2) with command @ioc on
    /dev/encd (its /proc/PID/syscall: the number and arguments of the
    system call it is in)."""
    try:
        with open("/proc/%d/syscall" % rank.p.pid) as f:
            fields = f.read().split()
        if int(fields[0]) != SYS_IOCTL or int(fields[2], 16) != ioc:
            return False
        return os.readlink("/proc/%d/fd/%d" % (rank.p.pid, int(fields[1], 16))) == "/dev/encd"
    except (OSError, ValueError, IndexError):
        return False


def all_wait_in(ranks, ioc, timeout=30):
    """Whether every one of @ranks is, and stays for 0.3 s, blocked in @ioc:
    a rank found there twice is past what the call does before it waits
    (a SETUP has registered its rank, an INIT_REPLICA_GROUPS started its
    group's bootstrap)."""
    def now():
        return all(waits_in(r, ioc) for r in ranks)
    if not wait_until(now, timeout, 0.05):
        return False
    time.sleep(0.3)
    return now()


def world_programs(n, offender=None, vary_stream=True):
    """One JSON program per rank: replica groups that share bootstrap
    participants with the world (pool hits), distinct ones, a sendrecv group,
    a src-target set and a group with no ops."""
    paths = []
    allr = list(range(n))
    for r in range(n):
        groups = [
            {"group_id": 0, "rank": r, "rank_n": n, "participants": allr},
            {"group_id": 1, "rank": r, "rank_n": n, "participants": allr},
            {"group_id": 2, "rank": n - 1 - r, "rank_n": n, "participants": allr[::-1],
             "stream_id": 1 if vary_stream else 0},
            # A sendrecv group of every rank: signed, so it catches a mismatch.
            {"group_id": 5, "rank": -1, "rank_n": n, "participants": allr,
             "bootstrap_rank": r, "stream_id": 2},
        ]
        ops = [
            {"op": "all_reduce", "size_n": 1 << 20, "dtype": 7, "alg": 2, "group": 0},
            {"op": "all_gather", "size_n": 4096, "dtype": 7, "group": 2},
            {"op": "all_reduce", "size_n": 2048 if r == offender else 1024, "dtype": 1,
             "group": 5},
        ]
        stps = []
        if n >= 2:
            pair = r ^ 1
            if pair < n:
                lo, hi = min(r, pair), max(r, pair)
                groups.append({"group_id": 3, "rank": -1, "rank_n": 2,
                               "participants": [lo, hi], "bootstrap_rank": 0 if r == lo else 1,
                               "stream_id": 2})
                if r == lo:
                    ops.append({"op": "send", "size_n": 64, "peer": hi, "channel": hi,
                                "group": 3})
                else:
                    ops.append({"op": "recv", "size_n": 64, "peer": lo, "group": 3})
            stps.append({"id": 7, "pairs": [[i, (i + 1) % n] for i in range(n)]})
            groups.append({"group_id": 4, "rank": r, "rank_n": n, "participants": allr,
                           "src_target_pairs_id": 7, "stream_id": 3})
            ops.append({"op": "permute", "size_n": 4096, "dtype": 1, "stp": 7})
        prog = {"replica_groups": groups, "src_target_pairs": stps, "ops": ops}
        path = os.path.join(TMP, "w%d-o%s-r%d.json" % (n, offender, r))
        with open(path, "w") as f:
            json.dump(prog, f)
        paths.append(path)
    return paths


def pool_counts(path):
    """(new, hits) that INIT_REPLICA_GROUPS must count for the program at
    @path: a group whose bootstrap participants on its stream an earlier
    group already had is a pool hit. The world's own comm is kept out of
    the pools, so a group of the world's ranks in order is not one."""
    with open(path) as f:
        groups = json.load(f)["replica_groups"]
    keys = [(g.get("stream_id", 0), tuple(g["participants"])) for g in groups]
    return len(set(keys)), len(keys) - len(set(keys))


def run_world(n, programs=None, extra=("--barrier",), timeout_ms=None, vnc_base=0):
    root = "127.0.0.1:%d" % port()
    # Slow lanes (KASAN under TCG) need time to start 64 processes.
    timeout_ms = timeout_ms or 30000 + 1500 * n
    ranks = [Rank(vnc_base + r, r, n, root, timeout_ms,
                  extra, program=programs[r] if programs else None) for r in range(n)]
    return finish(ranks, timeout_ms / 1000 + 60)


def check_counters(res, n):
    """Across the world's ranks, validation used only 17-byte messages and the
    broadcast only 129-byte ones, n - 1 of each."""
    tot = {}
    for r in res:
        for c in r.get("counters", []):
            if c["type"] in (MSG_SIGNATURE, MSG_UNIQUE_ID):
                key = (c["type"], c["size"])
                tx, rx = tot.get(key, (0, 0))
                tot[key] = (tx + c["tx"], rx + c["rx"])
    want = {}
    if n > 1:
        want = {(MSG_SIGNATURE, 17): (n - 1, n - 1), (MSG_UNIQUE_ID, 129): (n - 1, n - 1)}
    return tot == want, "counters %s, want %s" % (tot, want)


def world_case(n):
    def fn():
        progs = world_programs(n)
        t = time.monotonic()
        res = run_world(n, progs)
        bad = [r for r in res if join_failed(r) or r["rc"]]
        if bad:
            return False, "rank %s: %s" % (bad[0].get("g_device_id"), bad[0].get("error"))
        # Groups 0 and 1 have the world's participants on stream 0: group 0
        # bootstraps (and validates) a node of its own and group 1 finds it.
        for r, path in zip(res, progs):
            want = pool_counts(path)
            got = (r["groups"]["new"], r["groups"]["hits"])
            if r["rank_n"] != n or got != want:
                return False, "rank %d: rank_n %d, %d new comms and %d pool hits, want %s" % (
                    r["rank"], r["rank_n"], got[0], got[1], want)
        ok, why = check_counters(res, n)
        if not ok:
            return False, why
        return True, "%d ranks in %.1f s, %d new comms and %d pool hits on rank 0" % (
            n, time.monotonic() - t, res[0]["groups"]["new"], res[0]["groups"]["hits"])
    return fn


for _n in (1, 2, 3, 5, 8, 16, 32, 64):
    case("world_of_%d_ranks_forms_with_groups_and_barriers" % _n)(world_case(_n))


def mismatch_case(k):
    def fn():
        n = 8
        res = run_world(n, world_programs(n, offender=k), extra=())
        for r in res:
            if not join_failed(r) or "mismatched collectives between the peers" not in r["error"]:
                return False, "rank %d: %s" % (r["g_device_id"], r["error"])
        recs = {r["g_device_id"]: r.get("mismatch") for r in res}
        if k:
            parent = (k - 1) >> 1
            m = recs.get(parent)
            if not m or m["child_g_device_id"] != k or m["group_id"] != 5:
                return False, "rank %d recorded %s, not rank %d" % (parent, m, k)
            if "global device %d" % k not in res[parent]["error"]:
                return False, "the parent's error does not name %d: %s" % (k, res[parent]["error"])
        else:
            m = recs.get(0)
            others = [recs.get(i) for i in range(1, n) if recs.get(i)]
            if not m or others:
                return False, "records: %s" % recs
        return True, "offender %d found" % k
    return fn


for _k in range(8):
    case("mismatch_at_rank_%d_fails_every_rank_and_names_it" % _k)(mismatch_case(_k))


@case("check_sigs_off_forms_the_mismatched_world")
def _():
    res = run_world(8, world_programs(8, offender=3), extra=("--no-check-sigs", "--barrier"))
    bad = [r for r in res if join_failed(r)]
    if bad:
        return False, bad[0]["error"]
    sig = [c for r in res for c in r.get("counters", []) if c["type"] == MSG_SIGNATURE]
    return not sig, "no signature messages without check_sigs: %s" % sig


@case("missing_rank_times_out_within_deadline_plus_1s")
def _():
    n, root = 4, "127.0.0.1:%d" % port()
    # The root's deadline comes well before the others': it times out,
    # naming the missing rank, and leaves; a rank that leaves fails its
    # world for everyone, so the others then fail at once, naming it, long
    # before their own deadline.
    deadlines = [1500, 4000, 4000]
    ranks = [Rank(r, r, n, root, deadlines[r]) for r in range(n - 1)]
    res = finish(ranks)
    bad = failed_as(res[0], "NRT_TIMEOUT", ROOT_GAVE_UP % (3, 4, "3"), "timeout")
    for r in res[1:]:
        bad = bad or failed_as(r, "NRT_FAILURE", "enc_setup_global_comm: %s (ECONNABORTED)" % (
            LEFT % (0, 0)), "departed")
    if bad:
        return False, bad
    # The root's setup call, timed by itself, ends at its deadline, not
    # before it and not more than 1 s after it; the others end once it
    # could have gone (not before its deadline), within 1 s of it.
    root_s = res[0]["phases"]["setup"] / 1e6
    if not 1.5 - JIFFY_S <= root_s <= 1.5 + 1.0:
        return False, "the root's setup took %.2f s for a deadline of 1.5 s" % root_s
    for r in ranks[1:]:
        if not ranks[0].start + 1.5 - JIFFY_S <= r.end <= ranks[0].end + 1.0:
            return False, "rank %d ended %.2f s after the root started, the root %.2f s" % (
                r.gid, r.end - ranks[0].start, ranks[0].end - ranks[0].start)
    return True, "root %.2f s, the others %s s after it; root: %s" % (
        root_s, ["%.2f" % (r.end - ranks[0].end) for r in ranks[1:]], res[0]["error"])


@case("unreachable_root_times_out")
def _():
    root = "127.0.0.1:%d" % port()
    rank = Rank(1, 1, 2, root, 2000)
    r = rank.wait()
    bad = failed_as(r, "NRT_TIMEOUT", "enc_setup_global_comm: rank 1: no table of the world "
                    "from the root at %s: timed out (ETIMEDOUT)" % root)
    if bad:
        return False, bad
    setup = r["phases"]["setup"] / 1e6
    # Not before the deadline, and not much after it.
    if not 2.0 - JIFFY_S <= setup <= 2.0 + 1.0 or rank.end - rank.start > 4.0:
        return False, "setup took %.2f s (%.1f s in all)" % (setup, rank.end - rank.start)
    return True, "%s in %.2f s: %s" % (r["status"], setup, r["error"])


def closed_by_peer(s, end):
    """When (time.monotonic()) socket @s was seen closed by the other end,
    whatever it sent before, or None if it was still open at @end."""
    try:
        while True:
            s.settimeout(max(0.001, end - time.monotonic()))
            if not s.recv(4096):
                return time.monotonic()
    except ConnectionResetError:
        return time.monotonic()
    except OSError:
        return None


@case("garbage_wrong_magic_version_size_and_silence_are_turned_away")
def _():
    n, p = 3, port()
    root = "127.0.0.1:%d" % p
    ranks = [Rank(0, 0, n, root, 20000, ("--barrier",))]
    try:
        if not all_wait_in(ranks, IOC_SETUP):
            return False, "the root never waited in SETUP: %s" % ranks[0].error
        # A HELLO's payload is right: what goes around it is not.
        hello = struct.pack(">I", P.CONTROL) + os.urandom(P.NONCE_LEN)
        junk = {
            "http": b"GET / HTTP/1.0\r\n\r\n" * 4,
            "magic": P.header(P.HELLO, len(hello), magic=0xDEADBEEF) + hello,
            "version": P.header(P.HELLO, len(hello), version=9) + hello,
            "flags": P.header(P.HELLO, len(hello), flags=1) + hello,
            "size": P.header(P.HELLO, 3) + b"xyz",
            "huge": P.header(P.HELLO, 0x7FFFFFFF),
            "type": P.header(P.JOIN, len(hello)) + hello,
            "silence": b"",
        }
        socks, sent = {}, {}
        for what, data in junk.items():
            s = socket.create_connection(("127.0.0.1", p), timeout=2)
            sent[what] = time.monotonic()
            if data:
                s.sendall(data)
            socks[what] = s
        # While the root still waits: each connection is closed, the junk at
        # once, the silent one once its 2 s to say HELLO are over.
        late = []
        for what, s in socks.items():
            end = sent[what] + (P.HANDSHAKE_S + 1.5 if what == "silence" else 1.0)
            closed = closed_by_peer(s, end)
            s.close()
            if closed is None or (what == "silence" and
                                  closed < sent[what] + P.HANDSHAKE_S - JIFFY_S):
                late.append("%s: %s" % (what, "open" if closed is None else
                                        "closed after %.2f s" % (closed - sent[what])))
        if late or ranks[0].done.is_set():
            return False, "%s; the root: %s" % (late, ranks[0].res)
        ranks += [Rank(r, r, n, root, 20000, ("--barrier",)) for r in range(1, n)]
        res = finish(ranks)
    finally:
        stop(ranks)
    bad = [r for r in res if join_failed(r)]
    return not bad, [r["error"] for r in bad] if bad else "%d turned away, world formed" % (
        len(junk))


@case("duplicate_g_device_id_is_refused_by_name")
def _():
    n, root = 3, "127.0.0.1:%d" % port()
    ranks = [Rank(r, r, n, root, 20000) for r in range(n - 1)]
    try:
        # Ranks 0 and 1 registered and wait for rank 2: the second rank 1
        # comes while the world forms, and is refused alone.
        if not all_wait_in(ranks, IOC_SETUP):
            return False, "ranks 0 and 1 never waited in SETUP: %s" % [r.error for r in ranks]
        dup = Rank(10, 1, n, root, 20000)
        bad = failed_as(dup.wait(), "NRT_INVALID", "enc_setup_global_comm: rank 1: a second "
                        "rank with global device id 1 on this host (EINVAL)")
        if bad:
            return False, bad
        if not all_wait_in(ranks, IOC_SETUP, 1):
            return False, "the refusal ended another rank's wait: %s" % [r.res for r in ranks]
        ranks.append(Rank(n - 1, n - 1, n, root, 20000))
        res = finish(ranks)
    finally:
        stop(ranks)
    bad = [r for r in res if join_failed(r)]
    return not bad, bad[0]["error"] if bad else dup.error


@case("wrong_world_size_is_refused_by_name")
def _():
    n, root = 3, "127.0.0.1:%d" % port()
    ranks = [Rank(0, 0, n, root, 20000)]
    try:
        if not all_wait_in(ranks, IOC_SETUP):
            return False, "the root never waited in SETUP: %s" % ranks[0].error
        # Another world size is another world's host agent: it joins the
        # root over TCP, and the root refuses its rank.
        wrong = Rank(11, 1, n + 1, root, 20000)
        bad = failed_as(wrong.wait(), "NRT_INVALID", "enc_setup_global_comm: rank 1: the root "
                        "refused it: rank 1 asked for a world of 4 ranks, the root's has 3 "
                        "(EINVAL)", "world-differs")
        if bad:
            return False, bad
        if not all_wait_in(ranks, IOC_SETUP, 1):
            return False, "the refusal ended the root's wait: %s" % ranks[0].res
        ranks += [Rank(r, r, n, root, 20000) for r in range(1, n)]
        res = finish(ranks)
    finally:
        stop(ranks)
    bad = [r for r in res if join_failed(r)]
    return not bad, bad[0]["error"] if bad else wrong.error


def killed_and_the_others(victim, others, call, sentence, status, t_kill):
    """Why the kill of @victim or what @others did after it is wrong (each
    must fail with @status and @sentence, from @call, within 1 s of the
    kill and not before it), or None."""
    v = victim.wait()
    if v["rc"] != -signal.SIGKILL:
        return "rank %d was not killed: exit %s, %s" % (victim.gid, v["rc"], v["error"])
    for r in others:
        bad = failed_as(r.wait(), status, "%s: %s" % (call, sentence))
        if bad:
            return bad
        if not t_kill <= r.end <= t_kill + 1.0:
            return "rank %d ended %.2f s after the kill" % (r.gid, r.end - t_kill)
    return None


@case("killed_rank_during_rendezvous_fails_the_others_at_once_naming_it")
def _():
    n, root = 4, "127.0.0.1:%d" % port()
    ranks = [Rank(r, r, n, root, 20000) for r in range(n - 1)]
    try:
        # Ranks 0 to 2 registered and wait for rank 3, which never comes.
        if not all_wait_in(ranks, IOC_SETUP):
            return False, "ranks 0 to 2 never waited in SETUP: %s" % [r.error for r in ranks]
        t_kill = ranks[2].kill()
        bad = killed_and_the_others(ranks[2], ranks[:2], "enc_setup_global_comm",
                                    LEFT % (2, 2) + " (ECONNABORTED)", "NRT_FAILURE", t_kill)
    finally:
        stop(ranks)
    if bad:
        return False, bad
    return True, "%.2f s after the kill: %s" % (
        max(r.end for r in ranks[:2]) - t_kill, ranks[0].error)


def group_nodes(root, stream):
    """{g_device_id: state} of the group nodes (the world's own left out) on
    @stream of the world at @root."""
    return {c["g_device_id"]: n["state"] for c in encctl_json("comm", "show")
            if c["root_comm_id"] == root for n in c["nodes"]
            if n["stream"] == stream and not n["global"]}


@case("killed_rank_during_group_bootstrap_fails_the_others_at_once_naming_it")
def _():
    n = 4
    progs = world_programs(n)
    root = "127.0.0.1:%d" % port()
    # Rank 3 forms the world but never brings its groups up; it holds.
    ranks = [Rank(r, r, n, root, 20000, program=progs[r]) for r in range(n - 1)]
    victim = Rank(n - 1, n - 1, n, root, 20000, ("--hold", "60"))
    try:
        formed = victim.wait_printed(60)
        if not formed or join_failed(formed):
            return False, "rank 3 did not join: %s" % formed
        # Group 0, the first of each program, needs rank 3: ranks 0 and 1
        # wait for their tree children's signatures (1 for 3's), rank 2,
        # a leaf, for the unique id.
        waiting = {0: "validating", 1: "validating", 2: "broadcasting"}
        if not wait_until(lambda: group_nodes(root, 0) == waiting, 30, 0.2) or \
           not all_wait_in(ranks, IOC_INIT_GROUPS):
            return False, "ranks 0 to 2 never all waited in group 0: %s" % (
                group_nodes(root, 0))
        t_kill = victim.kill()
        bad = killed_and_the_others(
            victim, ranks, "enc_init_replica_groups",
            "failed to init NCCL comm stream_id:0 group_id:0: %s (ECONNABORTED)" % (
                LEFT % (3, 3)), "NRT_FAILURE", t_kill)
    finally:
        stop(ranks + [victim])
    if bad:
        return False, bad
    return True, "%.2f s after the kill: %s" % (max(r.end for r in ranks) - t_kill,
                                                ranks[0].error)


@case("comm_pool_is_keyed_by_bootstrap_participants_not_participants")
def _():
    # libnrt keys a comm pool by the byte image of bootstrap_participants.
    # Of three groups on one stream, group 1 has group 0's bootstrap list
    # but other participants, group 2 group 0's participants but another
    # bootstrap list: group 1 shares group 0's comm, group 2 has its own.
    # Keyed by participants, it would be the other way round.
    n, root = 2, "127.0.0.1:%d" % port()
    progs = []
    for r in range(n):
        groups = [
            {"group_id": 0, "rank": r, "rank_n": 2, "participants": [0, 1],
             "bootstrap_participants": [0, 1], "bootstrap_rank": r, "stream_id": 1},
            {"group_id": 1, "rank": 1 - r, "rank_n": 2, "participants": [1, 0],
             "bootstrap_participants": [0, 1], "bootstrap_rank": r, "stream_id": 1},
            {"group_id": 2, "rank": r, "rank_n": 2, "participants": [0, 1],
             "bootstrap_participants": [1, 0], "bootstrap_rank": 1 - r, "stream_id": 1},
        ]
        ops = [{"op": "all_reduce", "size_n": 256, "dtype": 1, "group": g} for g in range(3)]
        path = os.path.join(TMP, "pool-key-r%d.json" % r)
        with open(path, "w") as f:
            json.dump({"replica_groups": groups, "ops": ops}, f)
        progs.append(path)
    ranks = [Rank(r, r, n, root, 20000, ("--hold", "60"), program=progs[r]) for r in range(n)]
    try:
        for k in ranks:
            res = k.wait_printed(60)
            if not res or join_failed(res):
                return False, "rank %d: %s" % (k.gid, k.error)
            if (res["groups"]["new"], res["groups"]["hits"]) != (2, 1):
                return False, "rank %d: %s new comms and pool hits, want 2 and 1" % (
                    k.gid, res["groups"])
        got = {}
        for c in encctl_json("comm", "show"):
            if c["root_comm_id"] != root:
                continue
            got[c["g_device_id"]] = sorted(
                (tuple(x["participants"]), tuple(x["groups"]), x["refcnt"], x["rank"])
                for x in c["nodes"] if x["stream"] == 1 and not x["global"])
    finally:
        stop(ranks)
    want = {r: sorted([((0, 1), (0, 1), 2, r), ((1, 0), (2,), 1, 1 - r)]) for r in range(n)}
    if got != want:
        return False, "(pool key, groups, refcnt, bootstrap rank) per rank: %s, want %s" % (
            got, want)
    return True, "key [0, 1]: groups 0 and 1; key [1, 0]: group 2"


@case("world_secret_admits_its_ranks_and_refuses_others_by_name")
def _():
    n, root = 3, "127.0.0.1:%d" % port()
    # Rank 0 has the secret from ENC_WORLD_SECRET, the others from a file.
    ranks = [Rank(0, 0, n, root, 20000, ("--barrier",), env_secret=SECRET)]
    try:
        if not all_wait_in(ranks, IOC_SETUP):
            return False, "the root never waited in SETUP: %s" % ranks[0].error
        strangers = [Rank(20, 1, n, root, 20000), Rank(21, 1, n, root, 20000, env_secret="wrong")]
        for r in strangers:
            bad = failed_as(r.wait(), "NRT_FAILURE", NOT_THE_SECRET % root, "auth")
            if bad:
                return False, bad
        ranks += [Rank(r, r, n, root, 20000, ("--barrier",), secret=True) for r in range(1, n)]
        res = finish(ranks)
    finally:
        stop(ranks)
    bad = [r for r in res if join_failed(r)]
    return not bad, [r["error"] for r in bad] if bad else strangers[0].error


@case("rank_that_connects_to_itself_retries_until_the_root_is_up")
def _():
    # With a tiny ephemeral range that holds the root's port, a rank retrying
    # a root that is not up yet picks that port as its source and connects to
    # itself (TCP simultaneous open); it must see through it.
    path = "/proc/sys/net/ipv4/ip_local_port_range"
    with open(path) as f:
        orig = f.read()
    ranks = []
    try:
        with open(path, "w") as f:
            f.write("41000 41003")
        root = "127.0.0.1:41000"
        ranks.append(Rank(1, 1, 2, root, 15000))
        time.sleep(1.5)
        ranks.insert(0, Rank(0, 0, 2, root, 15000))
        res = finish(ranks)
    finally:
        stop(ranks)
        with open(path, "w") as f:
            f.write(orig)
    bad = [r["error"] for r in res if join_failed(r)]
    return not bad, bad or "formed"


@case("world_forms_over_ipv6_and_localhost")
def _():
    out = []
    for root in ("[::1]:%d" % port(), "localhost:%d" % port()):
        res = finish([Rank(r, r, 3, root, 20000, ("--barrier",)) for r in range(3)])
        bad = [r["error"] for r in res if join_failed(r)]
        if bad:
            return False, "%s: %s" % (root, bad)
        out.append(root)
    return True, "formed through " + " and ".join(out)


@case("group_barrier_holds_every_rank_until_the_last_arrives")
def _():
    # Ranks 0-3 of 5 enter a group barrier; rank 4 forms the world with them
    # but never enters it: it holds the world 5 s and leaves. The barrier
    # keeps the four at least until then (it cannot have ended 4 s after
    # they all started), and they fail naming rank 4. A barrier that let
    # them through heard from nobody: its partners are wrong.
    n, hold, root = 5, 5, "127.0.0.1:%d" % port()
    t0 = time.time()
    ranks = [Rank(r, r, n, root, 20000, ("--barriers", "1")) for r in range(n - 1)]
    last = Rank(n - 1, n - 1, n, root, 20000, ("--hold", str(hold)))
    time.sleep(max(0.0, t0 + hold - 1 - time.time()))
    early = [r for r, k in enumerate(ranks) if k.done.is_set()]
    for k in ranks + [last]:
        k.wait()
    if early:
        return False, "rank %d ended while rank %d held the world: %s" % (
            early[0], n - 1, ranks[early[0]].error or "its barrier passed")
    if not last.ok:
        return False, "rank %d: %s" % (n - 1, last.error)
    want = "rank %d (global device %d) left the world" % (n - 1, n - 1)
    for r, k in enumerate(ranks):
        if k.ok or not k.error.startswith("enc_comm_barrier: ") or want not in k.error:
            return False, "rank %d: %s" % (r, k.error or "its barrier passed")
    return True, ranks[0].error


@case("tcp_worlds_whose_ranks_leave_as_soon_as_formed_form_everywhere")
def _():
    # The end of a job without a last barrier: every rank is a host of its
    # own and leaves the moment its own comms formed. Its last messages of
    # a comm may still be queued, on a data link still shaking hands or
    # unread in a socket, and another host may be sending to it as it
    # closes: every other rank must still get what it sent, and none may
    # take its leaving for a failure. 16 ranks with their groups, 4 times.
    n, worlds = 16, 4
    progs = world_programs(n)
    t = time.monotonic()
    for w in range(worlds):
        res = run_world(n, progs, extra=("--force-tcp",))
        bad = [r for r in res if join_failed(r) or r["rc"]]
        if bad:
            return False, "world %d of %d: rank %s: %s" % (
                w + 1, worlds, bad[0].get("g_device_id"), bad[0].get("error"))
    return True, "%d worlds of %d ranks in %.1f s" % (worlds, n, time.monotonic() - t)


@case("world_forms_again_after_failures")
def _():
    res = run_world(4, extra=("--barrier",))
    bad = [r for r in res if join_failed(r)]
    return not bad, bad[0]["error"] if bad else "ok"


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--programs":
        # Writes the per-rank programs of a world of N ranks to DIR (for
        # demos and benchmarks): DIR/rank<r>.json.
        for r, path in enumerate(world_programs(int(sys.argv[2]))):
            os.replace(path, os.path.join(sys.argv[3], "rank%d.json" % r))
        sys.exit(0)
    sys.exit(main(results))
