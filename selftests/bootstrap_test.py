#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""World formation over loopback, one process per rank, through encctl.

Runs inside the test VM with encd loaded (num_vcores >= 80). KTAP output,
one result line per case. Each rank is `encctl -j world join` on its own
vnc; its JSON line says what happened (see tools/encctl/world.c).
"""
import json
import os
import re
import socket
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.environ.get("ENCD_BUILD", "")
ENCCTL = os.path.join(BUILD, "..", "tools", "encctl")
if not BUILD or not os.access(ENCCTL, os.X_OK):
    ENCCTL = os.path.join(HERE, "..", "build", "tools", "encctl")
TMP = tempfile.mkdtemp(prefix="encd-bootstrap-")
MSG_SIGNATURE, MSG_UNIQUE_ID = 3, 4
results = []
port_next = [31000]


def port():
    port_next[0] += 1
    return port_next[0]


def case(name):
    def wrap(fn):
        results.append((name, fn))
        return fn
    return wrap


def join_cmd(vnc, gid, n, root, timeout_ms=20000, program=None, extra=()):
    cmd = [ENCCTL, "-j", "world", "join", "--vnc", str(vnc), "--g-device-id", str(gid),
           "--world-size", str(n), "--root", root, "--timeout-ms", str(timeout_ms)]
    if program:
        cmd += ["--program", program]
    return cmd + list(extra)


def start(cmd, secret=None):
    env = dict(os.environ)
    env.pop("ENC_WORLD_SECRET", None)
    if secret:
        env["ENC_WORLD_SECRET"] = secret
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)


def finish(p, timeout=300):
    out, err = p.communicate(timeout=timeout)
    lines = [line for line in out.splitlines() if line.startswith("{")]
    res = json.loads(lines[-1]) if lines else {"ok": False, "error": "no output: " + err}
    res["rc"] = p.returncode
    return res


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


def run_world(n, programs=None, extra=("--barrier",), timeout_ms=None, vnc_base=0):
    root = "127.0.0.1:%d" % port()
    # Slow lanes (KASAN under TCG) need time to start 64 processes.
    timeout_ms = timeout_ms or 30000 + 1500 * n
    procs = [start(join_cmd(vnc_base + r, r, n, root, timeout_ms,
                            programs[r] if programs else None, extra)) for r in range(n)]
    return [finish(p) for p in procs]


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
        t = time.time()
        res = run_world(n, progs)
        bad = [r for r in res if not r["ok"] or r["rc"]]
        if bad:
            return False, "rank %s: %s" % (bad[0].get("g_device_id"), bad[0].get("error"))
        # Groups 0 and 1 have the world's participants on stream 0: the
        # world's own comm stays out of the pools, so group 0 bootstraps (and
        # validates) a node and group 1 finds it.
        for r in res:
            if r["rank_n"] != n or r["groups"]["hits"] < 1:
                return False, "rank %d: rank_n %d, pool hits %d" % (
                    r["rank"], r["rank_n"], r["groups"]["hits"])
        ok, why = check_counters(res, n)
        if not ok:
            return False, why
        return True, "%d ranks in %.1f s, %d new comms and %d pool hits per rank" % (
            n, time.time() - t, res[0]["groups"]["new"], res[0]["groups"]["hits"])
    return fn


for _n in (1, 2, 3, 5, 8, 16, 32, 64):
    case("world_of_%d_ranks_forms_with_groups_and_barriers" % _n)(world_case(_n))


def mismatch_case(k):
    def fn():
        n = 8
        res = run_world(n, world_programs(n, offender=k), extra=())
        for r in res:
            if r["ok"] or "mismatched collectives between the peers" not in (r["error"] or ""):
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
    bad = [r for r in res if not r["ok"]]
    if bad:
        return False, bad[0]["error"]
    sig = [c for r in res for c in r.get("counters", []) if c["type"] == MSG_SIGNATURE]
    return not sig, "no signature messages without check_sigs: %s" % sig


@case("missing_rank_times_out_within_deadline_plus_1s")
def _():
    n, root = 4, "127.0.0.1:%d" % port()
    # The root's deadline comes well before the others': it times out,
    # naming the missing rank, and leaves; a rank that leaves fails its
    # world for everyone, so the others then fail at once naming it (or,
    # should their own deadline come first, time out).
    deadlines = [1500, 4000, 4000]
    t = time.time()
    procs = [start(join_cmd(r, r, n, root, deadlines[r])) for r in range(n - 1)]
    res = [finish(p) for p in procs]
    took = time.time() - t
    r0 = res[0]
    if r0["ok"] or r0["status"] != "NRT_TIMEOUT" or "missing: 3" not in (r0["error"] or ""):
        return False, "the root: %s %s" % (r0["status"], r0["error"])
    for r in res[1:]:
        if r["ok"] or not (r["status"] == "NRT_TIMEOUT" or
                           (r["status"] == "NRT_FAILURE" and "rank 0 (global device 0) left the world"
                            in (r["error"] or ""))):
            return False, "rank %d: %s %s" % (r["g_device_id"], r["status"], r["error"])
    # Each setup call, timed by itself, ends at its deadline (the root's)
    # or before (the others'), never more than 1 s after it.
    root_s = r0["phases"]["setup"] / 1e6
    if not 1.5 <= root_s <= 1.5 + 1.0:
        return False, "the root's setup took %.1f s for a deadline of 1.5 s" % root_s
    slowest = max(r["phases"]["setup"] for r in res) / 1e6
    if slowest > 4.0 + 1.0:
        return False, "a setup call took %.1f s" % slowest
    return True, "%.1f s (root %.1f s, slowest call %.1f s); root: %s" % (
        took, root_s, slowest, r0["error"])


@case("unreachable_root_times_out")
def _():
    t = time.time()
    r = finish(start(join_cmd(1, 1, 2, "127.0.0.1:%d" % port(), 2000)))
    took = time.time() - t
    return (not r["ok"] and r["status"] == "NRT_TIMEOUT" and took < 4.0,
            "%s in %.1f s: %s" % (r["status"], took, r["error"]))


def frame(magic=0x454E4342, version=1, typ=0, tag=0, payload=b""):
    return struct.pack(">IHHII", magic, version, typ, tag, len(payload)) + payload


@case("garbage_wrong_magic_version_size_and_silence_are_turned_away")
def _():
    n, p = 3, port()
    root = "127.0.0.1:%d" % p
    r0 = start(join_cmd(0, 0, n, root, 20000, extra=("--barrier",)))
    socks = []
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", p), timeout=1).close()
            break
        except OSError:
            time.sleep(0.05)
    for data in (b"GET / HTTP/1.0\r\n\r\n" * 4, frame(magic=0xdeadbeef),
                 frame(version=9), frame(typ=0, payload=b"x" * 3),
                 struct.pack(">IHHII", 0x454E4342, 1, 0, 0, 0x7fffffff), b""):
        s = socket.create_connection(("127.0.0.1", p), timeout=2)
        if data:
            s.sendall(data)
        socks.append(s)
    others = [start(join_cmd(r, r, n, root, 20000, extra=("--barrier",))) for r in range(1, n)]
    res = [finish(r0)] + [finish(q) for q in others]
    for s in socks:
        s.close()
    bad = [r for r in res if not r["ok"]]
    return not bad, [r["error"] for r in bad] if bad else "world formed"


@case("duplicate_g_device_id_is_refused_by_name")
def _():
    n, root = 3, "127.0.0.1:%d" % port()
    # Both ones arrive before the world is complete: the second is refused.
    procs = [start(join_cmd(r, r, n, root, 20000)) for r in range(n - 1)]
    time.sleep(0.3)
    dup = start(join_cmd(10, 1, n, root, 20000))
    time.sleep(0.5)
    procs.append(start(join_cmd(n - 1, n - 1, n, root, 20000)))
    res = [finish(p) for p in procs] + [finish(dup)]
    ok = [r for r in res if r["ok"]]
    bad = [r for r in res if not r["ok"]]
    if len(ok) != n or len(bad) != 1:
        return False, "%d ok, errors: %s" % (len(ok), [r["error"] for r in bad])
    e = bad[0]["error"]
    return "second rank with global device id 1" in e and bad[0]["status"] == "NRT_INVALID", e


@case("wrong_world_size_is_refused_by_name")
def _():
    n, root = 3, "127.0.0.1:%d" % port()
    r0 = start(join_cmd(0, 0, n, root, 20000))
    time.sleep(0.3)
    wrong = finish(start(join_cmd(11, 1, n + 1, root, 20000)))
    rest = [start(join_cmd(r, r, n, root, 20000)) for r in range(1, n)]
    res = [finish(r0)] + [finish(p) for p in rest]
    if not all(r["ok"] for r in res):
        return False, [r["error"] for r in res if not r["ok"]][0]
    e = wrong["error"] or ""
    return (not wrong["ok"] and "rank 1 asked for a world of 4 ranks" in e), e


@case("killed_rank_during_rendezvous_fails_the_others_by_the_deadline")
def _():
    n, root = 4, "127.0.0.1:%d" % port()
    procs = [start(join_cmd(r, r, n, root, 3000)) for r in range(n - 1)]
    time.sleep(0.5)
    procs[2].kill()
    t = time.time()
    res = [finish(p) for i, p in enumerate(procs) if i != 2]
    procs[2].wait()
    took = time.time() - t
    return (all(not r["ok"] for r in res) and took < 5.0,
            "%.1f s: %s" % (took, [r["status"] for r in res]))


@case("killed_rank_during_group_bootstrap_fails_the_others_fast")
def _():
    n = 4
    progs = world_programs(n)
    root = "127.0.0.1:%d" % port()
    # Rank 3 forms the world but never brings its groups up; it holds.
    procs = [start(join_cmd(r, r, n, root, 6000, progs[r])) for r in range(n - 1)]
    victim = start(join_cmd(n - 1, n - 1, n, root, 6000, None, ("--hold", "60")))
    time.sleep(3)
    victim.kill()
    t = time.time()
    res = [finish(p) for p in procs]
    victim.wait()
    took = time.time() - t
    bad = [r for r in res if r["ok"]]
    # Who was linked to it sees the drop at once; who was not, the deadline.
    return (not bad and took < 6.0 + 1.5,
            "%.1f s after the kill: %s" % (took, [r["error"] for r in res][:1]))


@case("world_secret_admits_its_ranks_and_refuses_others_by_name")
def _():
    n, root, key = 3, "127.0.0.1:%d" % port(), "correct horse battery staple"
    procs = [start(join_cmd(0, 0, n, root, 20000, extra=("--barrier",)), key)]
    time.sleep(0.3)
    nokey = finish(start(join_cmd(20, 1, n, root, 20000)))
    badkey = finish(start(join_cmd(21, 1, n, root, 20000), "wrong"))
    procs += [start(join_cmd(r, r, n, root, 20000, extra=("--barrier",)), key)
              for r in range(1, n)]
    res = [finish(p) for p in procs]
    if not all(r["ok"] for r in res):
        return False, [r["error"] for r in res if not r["ok"]]
    for r in (nokey, badkey):
        if r["ok"] or "does not hold the world secret" not in (r["error"] or ""):
            return False, "a rank without the secret: %s" % r["error"]
    return True, nokey["error"]


@case("rank_that_connects_to_itself_retries_until_the_root_is_up")
def _():
    # With a tiny ephemeral range that holds the root's port, a rank retrying
    # a root that is not up yet picks that port as its source and connects to
    # itself (TCP simultaneous open); it must see through it.
    path = "/proc/sys/net/ipv4/ip_local_port_range"
    orig = open(path).read()
    try:
        with open(path, "w") as f:
            f.write("41000 41003")
        root = "127.0.0.1:41000"
        r1 = start(join_cmd(1, 1, 2, root, 15000))
        time.sleep(1.5)
        r0 = start(join_cmd(0, 0, 2, root, 15000))
        res = [finish(r0), finish(r1)]
    finally:
        with open(path, "w") as f:
            f.write(orig)
    bad = [r["error"] for r in res if not r["ok"]]
    return not bad, bad or "formed"


@case("world_forms_over_ipv6_and_localhost")
def _():
    out = []
    for root in ("[::1]:%d" % port(), "localhost:%d" % port()):
        procs = [start(join_cmd(r, r, 3, root, 20000, extra=("--barrier",))) for r in range(3)]
        res = [finish(p) for p in procs]
        bad = [r["error"] for r in res if not r["ok"]]
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
    procs = [start(join_cmd(r, r, n, root, 20000, extra=("--barriers", "1")))
             for r in range(n - 1)]
    last = start(join_cmd(n - 1, n - 1, n, root, 20000, extra=("--hold", str(hold))))
    time.sleep(max(0.0, t0 + hold - 1 - time.time()))
    early = [r for r, p in enumerate(procs) if p.poll() is not None]
    res = [finish(p) for p in procs]
    res_last = finish(last)
    if early:
        return False, "rank %d ended while rank %d held the world: %s" % (
            early[0], n - 1, res[early[0]]["error"] or "its barrier passed")
    if not res_last["ok"]:
        return False, "rank %d: %s" % (n - 1, res_last["error"])
    want = "rank %d (global device %d) left the world" % (n - 1, n - 1)
    for r in res:
        if r["ok"] or not r["error"].startswith("enc_comm_barrier: ") or want not in r["error"]:
            return False, "rank %d: %s" % (r["g_device_id"], r["error"] or "its barrier passed")
    return True, res[0]["error"]


@case("world_forms_again_after_failures")
def _():
    res = run_world(4, extra=("--barrier",))
    bad = [r for r in res if not r["ok"]]
    return not bad, bad[0]["error"] if bad else "ok"


def main():
    print("TAP version 13")
    print("1..%d" % len(results))
    fails = 0
    for i, (name, fn) in enumerate(results, 1):
        try:
            ok, why = fn()
        except Exception as e:  # a test bug or a hang is a failure, not a crash
            ok, why = False, "%s: %s" % (type(e).__name__, e)
        fails += not ok
        print("%s %d %s # %s" % ("ok" if ok else "not ok", i, name, str(why).replace("\n", " ")))
        sys.stdout.flush()
    print("# %d passed, %d failed" % (len(results) - fails, fails))
    return 1 if fails else 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--programs":
        # Writes the per-rank programs of a world of N ranks to DIR (for
        # demos and benchmarks): DIR/rank<r>.json.
        for r, path in enumerate(world_programs(int(sys.argv[2]))):
            os.replace(path, os.path.join(sys.argv[3], "rank%d.json" % r))
        sys.exit(0)
    sys.exit(main())
