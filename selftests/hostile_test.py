#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""encd against hostile peers: strangers, replays, forgeries, floods, and
members that lie (issue 9). The kernel's side is `encctl world join`; the
other side is selftests/encd_peer/, written from
Documentation/bootstrap.rst, holding the world key or not.

Runs inside the test VM with encd loaded; KTAP output, one line per case.
A stranger (no key) only ever gets its own connection closed, and the
world forms; a member (it holds the key) that breaks the protocol fails its
world, and every rank's sentence names it. Worlds are small (2-8 ranks)
so that the whole program takes about a minute and a half under TCG.
"""
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import encd_peer as P  # noqa: E402
from encd_world import (DEBUG_LANE, TMP, Ports, Rank, SECRET, encctl_json,  # noqa: E402
                        finish, kernel_memory_kib, module_param, names_rank, root_listens,
                        root_netns, sh, stop, wait_until, main)

# Before anything runs: the peer speaks the protocol of this tree's
# kmod/wire.h (a WireMismatch names each constant that differs).
WIRE_H = P.check_tree()
if WIRE_H:
    print("# encd_peer's constants hold to %s" % WIRE_H)

port = Ports(33000)
KEY = P.world_key(SECRET)
# Every kernel rank's deadline: a failure "at once" is well under it.
DEADLINE_MS = 20000
cases = []


def case(fn):
    cases.append((fn.__name__, fn))
    return fn


def loopback():
    return "127.0.0.1:%d" % port()


def errors(ranks):
    return ["rank %s: %s" % (r.gid, r.error) for r in ranks if not r.ok]


def all_ok(ranks):
    bad = errors(ranks)
    return (not bad, bad[0] if bad else "the world of %d formed" % len(ranks))


def stranger_attempt(root, key):
    """A process without the world key tries the handshake: it cannot
    check the responder's proof, sends one of its own anyway, then a JOIN
    without waiting for WELCOME. Returns (seconds from its PROOF until the
    responder closed, or None; what it got after CHALLENGE, which must be
    nothing: not even WELCOME)."""
    c = P.Conn(root, key=key, verify=False)
    c.link.hello()
    c.flush()
    got = b""
    t0 = time.monotonic()
    try:
        c.sock.settimeout(5)
        while c.link.phase == "challenge":
            data = c.sock.recv(4096)
            if not data:
                return 0.0, got
            c.link.feed(data)
        got, c.link.buf = bytes(c.link.buf), bytearray()
        t0 = time.monotonic()
        c.flush()
        c.send_raw(c.link.frame(P.JOIN, bytes(44)))
        end = t0 + 5
        while time.monotonic() < end:
            c.sock.settimeout(end - time.monotonic())
            data = c.sock.recv(4096)
            if not data:
                return time.monotonic() - t0, got
            got += data
        return None, got
    except (ConnectionResetError, BrokenPipeError):
        return time.monotonic() - t0, got
    except OSError:
        return None, got
    finally:
        c.close()


# --- who may join ---

@case
def a_process_without_dev_encd_cannot_join_a_loopback_world():
    n, root = 3, loopback()
    ranks = [Rank(r, r, n, root, DEADLINE_MS, ["--barrier"]) for r in range(2)]
    if not root_listens(root):
        return False, "the root never listened"
    # It can only guess the key: the insecure one, a random one.
    for name, key in (("the insecure key", P.world_key(insecure=True)),
                      ("a random key", os.urandom(32))):
        f = P.FakeHost(root, n, [2], key).start()
        e = f.wait(lambda e: e["ev"] in ("uplink_closed", "joined", "table"), 10)
        f.stop()
        if not e or e["ev"] != "uplink_closed" or not e["refused"]:
            return False, "a host with %s: %s" % (name, e)
        took, got = stranger_attempt(root, key)
        # The root refuses a PROOF it cannot verify on arrival: well under
        # its 2 s handshake deadline.
        if took is None or took > 2.5 or got:
            return False, "with %s its PROOF was not refused at once (%s, %s)" % (name, took, got)
    ranks.append(Rank(2, 2, n, root, DEADLINE_MS, ["--barrier"]))
    finish(ranks)
    ok, why = all_ok(ranks)
    return ok, why if not ok else "two guessed keys refused in the handshake; " + why


@case
def a_wrong_secret_is_refused_and_the_right_one_admits_a_peer():
    n, root = 3, loopback()
    ranks = [Rank(r, r, n, root, DEADLINE_MS, ["--barrier"], secret=True) for r in range(2)]
    if not root_listens(root):
        return False, "the root never listened"
    wrong = P.FakeHost(root, n, [2], P.world_key("not " + SECRET)).start()
    e = wrong.wait(lambda e: e["ev"] in ("uplink_closed", "joined"), 10)
    wrong.stop()
    if not e or e["ev"] != "uplink_closed" or not e["refused"]:
        return False, "a host with the wrong secret: %s" % e
    took, got = stranger_attempt(root, P.world_key("not " + SECRET))
    if took is None or took > 2.5 or got:
        return False, "a PROOF made with the wrong secret was not refused at once"
    # The same peer with the right secret is rank 2 of the world.
    right = P.FakeHost(root, n, [2], KEY).start()
    formed = right.wait("formed", 20)
    for r in range(2):
        ranks[r].wait()
    right.stop()
    ok, why = all_ok(ranks)
    if not ok or not formed:
        return False, why if not ok else "the peer with the secret did not form the world"
    return True, "wrong secret refused; with the secret the peer is rank 2 of a formed world"


@case
def a_root_off_loopback_needs_a_secret():
    sh("ip", "addr", "add", "10.99.0.1/32", "dev", "lo", check=False)
    root = "10.99.0.1:%d" % port()
    r = Rank(0, 0, 2, root, DEADLINE_MS)
    r.wait()
    want = ("root_comm_id %s is not a loopback address and the world has no secret: give every "
            "rank the same secret (ENC_WORLD_SECRET, or encctl --secret-file) or load encd with "
            "allow_insecure_worlds=1" % root)
    if r.ok or r.res.get("status") != "NRT_INVALID" or want not in r.error:
        return False, "without a secret: %s %s" % (r.res.get("status"), r.error)
    if r.end - r.start > 5:
        return False, "the refusal took %.1f s" % (r.end - r.start)
    root = "10.99.0.1:%d" % port()
    ranks = [Rank(i, i, 2, root, DEADLINE_MS, ["--barrier"], secret=True) for i in range(2)]
    finish(ranks)
    ok, why = all_ok(ranks)
    if not ok:
        return False, "with a secret: " + why
    # Where the administrator allowed it, anyone who can reach the root joins.
    with module_param("allow_insecure_worlds", 1, 0):
        root = "10.99.0.1:%d" % port()
        r0 = Rank(0, 0, 2, root, DEADLINE_MS)
        anyone = P.FakeHost(root, 2, [1], P.world_key(insecure=True)).start()
        formed = anyone.wait("formed", 20)
        r0.wait()
        anyone.stop()
    if not r0.ok or not formed:
        return False, "with allow_insecure_worlds=1: %s, peer formed: %s" % (r0.error, formed)
    return True, "refused: \"%s\"; formed with a secret; with allow_insecure_worlds=1 a peer " \
        "holding no secret joined" % r.error


NOBODY = ("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups")


@case
def another_user_s_rank_can_neither_join_nor_fail_a_loopback_world():
    """A loopback world is its user's: another user's rank of the same root
    and size, even one whose settings differ (which would fail the world
    from a member), fails alone, at once, with a sentence; the world forms
    with its own user's rank. With loopback_group, that group's processes
    share one."""
    dev = "/dev/encd"
    mode = os.stat(dev).st_mode & 0o777
    os.chmod(dev, 0o666)
    try:
        n, root = 3, loopback()
        ranks = [Rank(r, r, n, root, DEADLINE_MS, ["--barrier"]) for r in range(2)]
        if not root_listens(root):
            return False, "the root never listened"
        other = Rank(2, 2, n, root, DEADLINE_MS, ["--barrier", "--no-check-sigs"], runas=NOBODY)
        other.wait()
        want = ("the root at %s does not hold the world secret of this rank: every rank of a "
                "world needs the same secret (or, on loopback, none, and one user or encd's "
                "loopback_group)" % root)
        if other.ok or want not in other.error or other.end - other.start > 5 or \
                other.res.get("reason") != "auth":
            return False, "nobody's rank: %s (%s) after %.1f s" % (
                other.error, other.res.get("reason"), other.end - other.start)
        ranks.append(Rank(2, 2, n, root, DEADLINE_MS, ["--barrier"]))
        finish(ranks)
        ok, why = all_ok(ranks)
        if not ok:
            return False, "after nobody's rank: " + why
        # One group shares its loopback worlds: root's ranks and nobody's,
        # all with the group as their effective group.
        with module_param("loopback_group", 4242, -1):
            root = loopback()
            group = ("setpriv", "--regid=4242", "--clear-groups")
            ranks = [Rank(r, r, n, root, DEADLINE_MS, ["--barrier"], runas=group)
                     for r in range(2)]
            if not root_listens(root):
                return False, "the group's root never listened"
            ranks.append(Rank(2, 2, n, root, DEADLINE_MS, ["--barrier"],
                              runas=NOBODY[:2] + ("--regid=4242", "--clear-groups")))
            finish(ranks)
        ok, why = all_ok(ranks)
        if not ok:
            return False, "with loopback_group=4242: " + why
        return True, "refused at once: \"%s\"; the world formed with its own user's rank; " \
            "with loopback_group, ranks of two users in the group formed one" % other.error
    finally:
        os.chmod(dev, mode)


@case
def a_host_that_announces_another_address_is_refused():
    """A member's JOIN names where the other hosts will call it: the root
    takes only the address its connection came from."""
    n, root = 2, loopback()
    r0 = Rank(0, 0, n, root, DEADLINE_MS, ["--barrier"], secret=True)
    if not root_listens(root):
        return False, "the root never listened"
    f = P.FakeHost(root, n, [1], KEY, listen_host="127.0.0.2").start()
    e = f.wait(lambda e: e["ev"] in ("reject", "table", "uplink_closed"), 10)
    f.stop()
    want = "it announced 127.0.0.2 for its peers to call, not 127.0.0.1, the address it came from"
    if not e or e["ev"] != "reject" or e["rank"] != P.NO_RANK or want not in e["text"]:
        return False, "the host announcing 127.0.0.2: %s" % e
    r1 = Rank(1, 1, n, root, DEADLINE_MS, ["--barrier"], secret=True)
    finish([r0, r1])
    ok, why = all_ok([r0, r1])
    return ok, why if not ok else "refused: \"%s\"; %s" % (e["text"], why)


@case
def a_parent_that_forwards_a_table_of_its_own_making_fails_the_world():
    """The table goes down the host tree, parent to child, and a parent is
    a member like any other. Host 3 hears it from host 1, a fake member
    that moves host 2's port in it (host 3 would call it there); host 3
    takes only the table whose digest the root sent it on its own control
    link, and fails the world naming host 1."""
    n, root = 4, loopback()
    extra = ["--force-tcp", "--barrier"]
    r0 = Rank(0, 0, n, root, DEADLINE_MS, extra, secret=True)
    if not root_listens(root):
        return False, "the root never listened"
    f = P.FakeHost(root, n, [1], KEY)
    forward = f._send_table_now

    def of_its_own_making(c, payload):
        b = bytearray(payload)
        b[16 + 36 * 2 + 16 + 3] ^= 1    # host 2's listen port, low byte
        forward(c, bytes(b))
    f._send_table_now = of_its_own_making
    f.start()
    ranks = [r0] + [Rank(r, r, n, root, DEADLINE_MS, extra, secret=True) for r in (2, 3)]
    finish(ranks)
    f.stop()
    r3 = ranks[2]
    want = "its table is not the one the root made"
    if r3.ok or want not in r3.error or not names_host(r3.error, 1):
        return False, "rank 3: %s" % (r3.error or "formed")
    if any(r.ok for r in ranks):
        return False, "a rank formed a world with a forged table: %s" % errors(ranks)
    return True, "rank 3: \"%s\"" % r3.error


def fake_root_of_a_large_world(table_parts):
    """A fake root of a world of HOSTS_MAX + 4 ranks, all but the last,
    started. Once the kernel host of the last one registered, the root
    sends it the TABLE frames table_parts(n) gives, instead of the world's
    table. Returns (f, told: set once they went, n, root)."""
    n, root = P.HOSTS_MAX + 4, loopback()
    f = P.FakeHost(root, n, range(n - 1), KEY)
    told = threading.Event()

    def complete():
        if len(f.owner) < n or told.is_set():
            return
        told.set()
        for part in table_parts(n):
            for j in f.joined:
                if j["ranks"]:
                    f.send_frame(j["peer"], P.TABLE, part)
    f._root_check_complete = complete
    f.start()
    return f, told, n, root


@case
def a_member_root_s_table_of_too_many_hosts_is_refused_from_its_head():
    """A member acting as a world's root could make every kernel host keep
    what it keeps of each host for as many hosts as its table names (up to
    one a rank). The fake root of a world of HOSTS_MAX + 4 ranks sends
    kernel rank n-1 a table whose head names HOSTS_MAX + 1 hosts: the
    kernel host refuses it from its first part, naming the root, and keeps
    nothing of it."""
    def too_many_hosts(n):
        head = struct.pack(">QII", 7, n, P.HOSTS_MAX + 1)
        return [head + bytes(P.TABLE_PART_MAX - len(head))]
    f, told, n, root = fake_root_of_a_large_world(too_many_hosts)
    try:
        if not root_listens(root):
            return False, "the fake root never listened"
        r = Rank(1, n - 1, n, root, DEADLINE_MS, ["--force-tcp"], secret=True)
        r.wait()
        want = "its table names %d hosts, more than the %d a world may have" % (
            P.HOSTS_MAX + 1, P.HOSTS_MAX)
        if not told.is_set():
            return False, "the kernel rank never registered: %s" % r.error
        if r.ok or want not in r.error or ("the root host at %s" % root) not in r.error:
            return False, "rank %d: %s" % (n - 1, r.error or "formed")
        if r.end - r.start > DEADLINE_MS / 2000:
            return False, "rank %d failed at its deadline: %s" % (n - 1, r.error)
        return True, "rank %d: \"%s\"" % (n - 1, r.error)
    finally:
        f.stop()
        finish([r] if "r" in locals() else [])


# --- the networks encd may use ---

# Addresses off loopback for the networks cases, on lo: the root's network
# (NETS), and one outside it (OUTSIDE). A loopback address would not do:
# it is always allowed to a world whose root is on loopback.
NETS, INSIDE, OUTSIDE = "10.99.0.0/24", "10.99.0.1", "10.99.1.1"
NETWORKS = "/sys/module/encd/parameters/networks"
# What empties it: Python writes nothing at all for "".
EMPTY = "\n"


def networks_addresses():
    for a in (INSIDE, OUTSIDE):
        sh("ip", "addr", "add", a + "/32", "dev", "lo", check=False)


def set_networks(value):
    """Writes the networks parameter: None, or the errno it was refused with."""
    fd = os.open(NETWORKS, os.O_WRONLY)
    try:
        os.write(fd, value.encode())
        return None
    except OSError as e:
        return e.errno
    finally:
        os.close(fd)


def networks_now():
    with open(NETWORKS) as f:
        return f.read().rstrip("\n")


def kernel_log():
    return subprocess.run(["dmesg"], capture_output=True, text=True).stdout


@case
def the_networks_parameter_refuses_bad_values_and_setup_refuses_a_root_outside():
    """networks is parsed whole as it is written: a bad value is refused
    with EINVAL and a warning saying why, the old value staying; a good one
    reads back as encd shows it, in `encctl status` too. A rank whose root
    is outside the networks is refused at setup, at once, with a sentence
    naming the parameter; a loopback world still forms."""
    networks_addresses()
    with module_param("networks", NETS, EMPTY):
        bad = (("10.99.0.0/33", "the length of an IPv4 prefix is 0 to 32"),
               ("10.99.0.1/24", "has bits set past its prefix length"),
               ("10.99.0.0/24,,fd00::/8", "an empty item"),
               ("eth0", "is not a numeric IPv4 or IPv6 address"),
               ("fd00::/129", "the length of an IPv6 prefix is 0 to 128"),
               (",".join(["10.%d.0.0/16" % i for i in range(17)]), "more than 16 prefixes"))
        for value, why in bad:
            err = set_networks(value)
            if err != 22:
                return False, "networks=%s: errno %s, not EINVAL" % (value, err)
            if networks_now() != NETS:
                return False, "after networks=%s was refused it reads %r" % (value,
                                                                            networks_now())
            if "networks=%s refused: " % value not in kernel_log() or why not in kernel_log():
                return False, "networks=%s: no warning saying \"%s\"" % (value, why)
        if set_networks(" %s , FD00::0/8\n" % NETS) is not None:
            return False, "a good value was refused"
        shown = "%s,fd00::/8" % NETS
        status = encctl_json("status").get("networks")
        if networks_now() != shown or status != shown:
            return False, "networks reads %r, encctl status shows %r" % (networks_now(), status)
        set_networks(NETS)
        root = "10.99.2.1:%d" % port()
        r = Rank(0, 0, 2, root, DEADLINE_MS, secret=True)
        r.wait()
        want = ("root_comm_id %s is outside the networks encd may use: networks=%s (a parameter "
                "of the encd module)" % (root, NETS))
        if r.ok or want not in r.error or r.res.get("reason") != "address":
            return False, "a root outside: %s (%s)" % (r.error or "formed", r.res.get("reason"))
        if r.end - r.start > 5:
            return False, "the refusal took %.1f s" % (r.end - r.start)
        lo = loopback()
        ranks = [Rank(i, i, 2, lo, DEADLINE_MS, ["--barrier"]) for i in range(2)]
        finish(ranks)
        ok, why = all_ok(ranks)
        if not ok:
            return False, "a loopback world with networks=%s: %s" % (NETS, why)
    status = encctl_json("status").get("networks")
    if networks_now() != "" or status != "":
        return False, "networks not emptied: %r, encctl status %r" % (networks_now(), status)
    return True, "%d bad values refused with EINVAL and a warning; \"%s\"; a loopback world " \
        "formed" % (len(bad), r.error)


@case
def a_listener_closes_a_connection_from_outside_the_networks_at_once():
    """With networks set, the root's listener closes a connection from an
    address outside them as it accepts it: not even a CHALLENGE answers its
    HELLO. One from inside gets its CHALLENGE, and a world of hosts inside
    forms."""
    networks_addresses()
    with module_param("networks", NETS, EMPTY):
        root = "%s:%d" % (INSIDE, port())
        r0 = Rank(0, 0, 2, root, DEADLINE_MS, ["--barrier", "--force-tcp"], secret=True)
        if not root_listens(root):
            return False, "the root never listened"
        got = {}
        for src in (OUTSIDE, INSIDE):
            s = socket.socket()
            s.settimeout(5)
            try:
                s.bind((src, 0))
                s.connect(P.parse_hostport(root))
                link = P.Link(KEY, True, P.CONTROL)
                link.hello()
                s.sendall(bytes(link.out))
                got[src] = s.recv(4096)
            except (ConnectionResetError, BrokenPipeError):
                got[src] = b""
            except socket.timeout:
                got[src] = None
            finally:
                s.close()
        if got[OUTSIDE] != b"":
            return False, "a connection from %s got %r, not closed" % (OUTSIDE, got[OUTSIDE])
        if not got[INSIDE]:
            return False, "a connection from %s got %r, not a CHALLENGE" % (INSIDE, got[INSIDE])
        r1 = Rank(1, 1, 2, root, DEADLINE_MS, ["--barrier", "--force-tcp"], secret=True)
        finish([r0, r1])
    ok, why = all_ok([r0, r1])
    return ok, why if not ok else "from %s: closed; from %s: %d bytes of CHALLENGE; %s" % (
        OUTSIDE, INSIDE, len(got[INSIDE]), why)


@case
def a_member_root_cannot_make_a_host_call_outside_the_networks():
    """A fake root at 10.99.0.1 gives kernel rank 1 a table of four hosts
    of one rank each that puts host 3, the kernel host's child in the host
    tree, at 10.99.1.1, outside networks=10.99.0.0/24, where the test
    listens: the kernel host refuses the table, naming the root, and never
    calls there. With 10.99.1.1 in the networks, the same table makes it
    call there at once, to pass the table on: the listener would have seen
    it."""
    networks_addresses()
    n = 4
    out = []
    for nets, refused in ((NETS, True), (NETS + "," + OUTSIDE + "/32", False)):
        trap = socket.socket()
        trap.bind((OUTSIDE, 0))
        trap.listen(8)
        trap.setblocking(False)
        root = "%s:%d" % (INSIDE, port())
        f = P.FakeHost(root, n, [0, 2, 3], KEY)
        told = threading.Event()

        def forged_table(f=f, trap=trap, told=told):
            if len(f.owner) < n or told.is_set():
                return
            told.set()
            j = next(j for j in f.joined if j["ranks"])
            body = struct.pack(">QII", 7, n, 4) + f.id + P.addr_wire(*f.listen_addr)
            body += j["id"] + P.addr_wire(*j["listen"])
            body += os.urandom(P.HOST_ID_LEN) + P.addr_wire(INSIDE, 1)
            body += os.urandom(P.HOST_ID_LEN) + P.addr_wire(*trap.getsockname())
            body += struct.pack(">4I", 0, 1, 2, 3)
            f.send_frame(j["peer"], P.TABLE, body)
        f._root_check_complete = forged_table
        try:
            with module_param("networks", nets, EMPTY):
                f.start()
                if not root_listens(root):
                    return False, "the fake root never listened"
                r = Rank(1, 1, n, root, DEADLINE_MS, ["--barrier", "--force-tcp"], secret=True)
                r.wait()
            time.sleep(0.5)
            try:
                c, _ = trap.accept()
                c.close()
                called = True
            except BlockingIOError:
                called = False
        finally:
            f.stop()
            trap.close()
        if not told.is_set():
            return False, "networks=%s: the kernel rank never registered: %s" % (nets, r.error)
        if r.ok:
            return False, "networks=%s: the world formed with a forged table" % nets
        want = ("its table gives host 3 the address %s, outside the networks encd may use "
                "(networks=%s)" % (OUTSIDE, NETS))
        if refused:
            if want not in r.error or root not in r.error or called:
                return False, "networks=%s: %s; called %s: %s" % (nets, r.error, OUTSIDE, called)
            if r.end - r.start > DEADLINE_MS / 2000:
                return False, "rank 1 failed at its deadline: %s" % r.error
            out.append("\"%s\"; %s never called" % (r.error, OUTSIDE))
        else:
            if not called:
                return False, "networks=%s: the kernel never called %s: %s" % (nets, OUTSIDE,
                                                                               r.error)
            out.append("with %s/32 in the networks it called there" % OUTSIDE)
    return True, "; ".join(out)


def small_memory_cgroup(limit):
    """A cgroup v2 of its own with memory.max = limit: its path, or None
    where the kernel has no memory cgroups."""
    top = "/sys/fs/cgroup"
    if not os.path.exists(top + "/cgroup.controllers"):
        subprocess.run(["mount", "-t", "cgroup2", "none", top], capture_output=True)
    try:
        with open(top + "/cgroup.controllers") as f:
            if "memory" not in f.read().split():
                return None
        with open(top + "/cgroup.subtree_control", "w") as f:
            f.write("+memory")
        path = top + "/encd-small"
        os.makedirs(path, exist_ok=True)
        with open(path + "/memory.max", "w") as f:
            f.write(str(limit))
        return path
    except OSError:
        return None


def large_table_in_small_cgroup(killable):
    """A host's memory is charged to the cgroup of the rank that made it.
    The kernel rank runs in a cgroup of its own; once it waits in SETUP,
    the cgroup's limit is set to what it holds and 512 KiB more, and the
    fake root of a world of HOSTS_MAX + 4 ranks sends it a table of
    HOSTS_MAX hosts (2.6 MB on the wire, some 4.5 MiB to take in and keep),
    which cannot fit. A killable rank is killed by the cgroup's OOM killer
    while its SETUP waits and the table fails half-way; one the OOM killer
    may not take (oom_score_adj -1000) fails with a sentence. Either way the kernel stays up (the runner reads its
    log after the program), and the same core then forms a world of its
    own. Returns (ok, why)."""
    cg = small_memory_cgroup(8 << 20)
    if cg is None:
        return False, "no memory cgroup controller in this kernel"

    def large_table(n):
        with open(cg + "/memory.current") as fc:
            held = int(fc.read())
        with open(cg + "/memory.max", "w") as fm:
            fm.write(str(held + (512 << 10)))
        body = struct.pack(">QII", 7, n, P.HOSTS_MAX) + bytes(36 * P.HOSTS_MAX + 4 * n)
        step = P.TABLE_PART_MAX
        return [body[off:off + step] for off in range(0, len(body), step)]
    f, told, n, root = fake_root_of_a_large_world(large_table)
    r = None
    try:
        if not root_listens(root):
            return False, "the fake root never listened"
        adj = "" if killable else "echo -1000 >/proc/self/oom_score_adj && "
        into_cg = ["sh", "-c", '%secho $$ >%s/cgroup.procs && exec "$@"' % (adj, cg), "sh"]
        r = Rank(1, n - 1, n, root, DEADLINE_MS, ["--force-tcp"], secret=True,
                 runas=into_cg)
        r.wait()
        if not told.is_set():
            return False, "the kernel rank never registered: %s" % r.error
        killed = r.res.get("rc") == -signal.SIGKILL
        if killable and not killed and "out of memory" not in r.error:
            return False, "rank %d: %s" % (n - 1, r.error or "formed")
        if not killable and (killed or "out of memory" not in r.error):
            return False, "rank %d: %s" % (n - 1, "killed" if killed else r.error or "formed")
    finally:
        f.stop()
        if r:
            finish([r])
    after = Rank(1, 0, 1, loopback(), DEADLINE_MS)
    after.wait()
    if not after.ok:
        return False, "the core formed no world after: %s" % after.error
    return True, "rank %d: %s" % (n - 1, "killed by the cgroup's OOM killer" if killed else
                                  "\"%s\"" % r.error)


@case
def a_rank_in_a_small_memory_cgroup_killed_as_its_large_table_fails_leaves_no_trace():
    return large_table_in_small_cgroup(True)


@case
def a_rank_in_a_small_memory_cgroup_fed_a_large_table_fails_with_a_sentence():
    return large_table_in_small_cgroup(False)


@case
def news_a_parent_passes_on_names_the_parent():
    """News of departures goes down the host tree, and a parent is a
    member: it could pass on a departure that did not happen. Each kernel
    rank is its own host (--force-tcp); host 3's parent is host 1, a fake
    member, which tells it that rank 2 (host 2) left having completed no
    barrier. Rank 3 fails its barrier at once, and its sentence names
    host 1 as the one that passed the news on."""
    n, root = 4, loopback()
    extra = ["--force-tcp", "--barrier"]
    r0 = Rank(0, 0, n, root, DEADLINE_MS, extra, secret=True)
    if not root_listens(root):
        return False, "the root never listened"
    f = P.FakeHost(root, n, [1], KEY, hold={"barrier": True}).start()
    ranks = [r0] + [Rank(r, r, n, root, DEADLINE_MS, extra, secret=True) for r in (2, 3)]
    try:
        if not f.wait("formed", 20):
            return False, "the member never formed: %s" % errors(ranks)
        f.call(lambda: f.send_frame(f.data_link(3), P.DEPART,
                                    P.depart_block(2, [(2, 1, 0, ())], [])))
        r3 = ranks[2]
        r3.wait()
        want = "rank 2 (global device 2) left the world"
        if r3.ok or want not in r3.error or "(news passed on by host 1)" not in r3.error:
            return False, "rank 3: %s" % (r3.error or "formed")
        if r3.end - r3.start > DEADLINE_MS / 2000:
            return False, "rank 3 failed at its deadline: %s" % r3.error
        return True, "rank 3: \"%s\"" % r3.error
    finally:
        f.stop()
        finish(ranks)


@case
def a_member_that_repeats_its_departure_fails_the_world_naming_it():
    """Each way tells a host of a rank's departure once. A member that
    sends one DEPART again and again would make the root check every copy
    and pass each on down the host tree, where, batched, the copies name
    more ranks than the world has: the host that got them refused them,
    and the world failed naming that honest host. Host 3, a fake member
    of 21 ranks (3-23) in a world of 24, sends its departure (every rank,
    one barrier completed) 30 times to the root, while the kernel ranks
    0, 1 and 2, each its own host (--force-tcp), wait in a barrier that
    departure does not block. The root takes the first and refuses the
    second: every rank fails at once naming host 3, and none names host 1
    or 2 (the root's children, which the copies would have reached)."""
    n, root = 24, loopback()
    extra = ["--force-tcp", "--barrier"]
    r0 = Rank(0, 0, n, root, DEADLINE_MS, extra, secret=True)
    if not root_listens(root):
        return False, "the root never listened"
    f = P.FakeHost(root, n, range(3, n), KEY, hold={"barrier": True}).start()
    ranks = [r0] + [Rank(r, r, n, root, DEADLINE_MS, extra, secret=True) for r in (1, 2)]
    try:
        if not f.wait("formed", 30):
            return False, "the member never formed: %s" % errors(ranks)
        block = P.depart_block(f.index, [(3, n - 3, 1, ())], [])
        f.call(lambda: [f.send_frame(f.uplink, P.DEPART, block) for _ in range(30)])
        ok, why = fail_naming(ranks, 3)
        if not ok:
            return False, why
        if "it said again that rank 3 left" not in r0.error:
            return False, "rank 0: %s" % r0.error
        for r in ranks:
            if names_rank(r.error, 1) or names_rank(r.error, 2):
                return False, "rank %d names an honest host: %s" % (r.gid, r.error)
        return True, "rank 0: \"%s\"" % r0.error
    finally:
        f.stop()
        stop(ranks)


@case
def a_rankless_host_stops_passing_news_on_when_its_parent_goes():
    """A host whose ranks all left passes news down the host tree while
    ranks of its subtree stay; once its parent is gone no news can come,
    and it ends. Each kernel rank is its own host (--force-tcp); host 3's
    parent is host 1 and its child host 7, both fake members. Rank 3
    leaves; host 1's rank departs, and host 1 closes its links: host 3
    closes its link to host 7 at once, while rank 7 stays and the world
    stands (nobody hears of a failure)."""
    n, root = 8, loopback()
    extra = ["--force-tcp", "--hold", "600"]
    r0 = Rank(0, 0, n, root, DEADLINE_MS, extra, secret=True)
    if not root_listens(root):
        return False, "the root never listened"
    parent = P.FakeHost(root, n, [1], KEY, name="parent").start()
    child = P.FakeHost(root, n, [7], KEY, name="child").start()
    ranks = [r0] + [Rank(r, r, n, root, DEADLINE_MS, extra, secret=True) for r in range(2, 7)]
    try:
        for r in ranks:
            r.wait_printed(60)
        if not all(r.ok for r in ranks) or not child.wait("formed", 20):
            return False, "the world never formed: %s" % errors(ranks)
        r3 = ranks[2]
        r3.kill()
        r3.wait()
        parent.call(parent.depart)
        # The root has its word before its control link goes.
        time.sleep(0.5)
        went = time.monotonic()
        parent.stop()
        gone = child.wait(lambda e: e["ev"] == "link_closed" and e.get("host") == 3, 10)
        if not gone:
            return False, "host 3 still passes news on with its parent gone"
        if child.failed:
            return False, "the world failed: %s" % child.failed
        return True, "host 3 closed its link to host 7 %.2f s after its parent went" % (
            gone["t"] - went)
    finally:
        parent.stop()
        child.stop()
        stop(ranks)


def rankless_host_world(extra, vnc=0):
    """The world of a_rankless_host_stops_passing_news_on_when_its_parent_goes:
    8 ranks, each its own host, the kernel's on cores vnc + rank; hosts 1
    (host 3's parent) and 7 (its child) are fake members. Rank 3 leaves:
    host 3 passes news on to host 7. Returns (ranks, parent, child, why
    not) with the ranks but rank 3 running."""
    n, root = 8, loopback()
    r0 = Rank(vnc, 0, n, root, DEADLINE_MS, extra, secret=True)
    if not root_listens(root):
        return [r0], None, None, "the root never listened"
    parent = P.FakeHost(root, n, [1], KEY, name="parent").start()
    child = P.FakeHost(root, n, [7], KEY, name="child").start()
    ranks = [r0] + [Rank(vnc + r, r, n, root, DEADLINE_MS, extra, secret=True)
                    for r in range(2, 7)]
    for r in ranks:
        r.wait_printed(60)
    if not all(r.ok for r in ranks) or not child.wait("formed", 20):
        return ranks, parent, child, "the world never formed: %s" % errors(ranks)
    ranks[2].kill()
    ranks[2].wait()
    return ranks, parent, child, None


def news_hosts():
    return encctl_json("status").get("news_hosts", [])


@case
def a_rankless_host_ends_at_its_deadline_while_its_peers_hold_its_links():
    """A host whose ranks all left passes news on while ranks of its
    subtree stay, and no file holds it: its peers could keep it, and its
    memory, by holding its links open. It has a deadline
    (forwarding_timeout_ms, 2 s here). As above, rank 3 leaves while rank
    7 (host 3's child) stays, and host 3's parent, a fake member, keeps its
    links open and departs nothing: encctl status lists host 3 (its world,
    age, time left, links), and host 3 closes its link to host 7 at its
    deadline, while the world stands."""
    with module_param("forwarding_timeout_ms", 2000, 30000):
        ranks, parent, child, why = rankless_host_world(["--force-tcp", "--hold", "600"])
        left = time.monotonic()
    try:
        if why:
            return False, why
        listed = [h for h in news_hosts() if h.get("index") == 3]
        if not listed or listed[0].get("world_size") != 8 or listed[0].get("links", 0) < 2 \
                or not listed[0].get("parent") or listed[0].get("children") != 1:
            return False, "encctl status lists no host 3 passing news on: %s" % news_hosts()
        gone = child.wait(lambda e: e["ev"] == "link_closed" and e.get("host") == 3, 15)
        if not gone:
            return False, "host 3 still passes news on 15 s after its last rank left"
        took = time.monotonic() - left
        if took < 1:
            return False, "host 3 ended %.2f s after its last rank left, before its deadline" % took
        if child.failed or parent.failed:
            return False, "the world failed: %s" % (child.failed or parent.failed)
        if any(h.get("index") == 3 for h in news_hosts()):
            return False, "encctl status still lists host 3: %s" % news_hosts()
        return True, "listed as %s; closed its link to host 7 %.1f s after rank 3 left" % (
            listed[0], took)
    finally:
        if parent:
            parent.stop()
        if child:
            child.stop()
        stop(ranks)


@case
def past_the_bound_the_oldest_host_passing_news_on_ends():
    """At most forwarding_hosts_per_user hosts made by one user's ranks pass
    news on (1 here): past it, the oldest ends. Two worlds as above, one
    after the other: once the second's host 3 passes news on, the first's
    closes its link to its host 7, long before its deadline (30 s), and
    encctl status lists the second's alone."""
    worlds = []
    try:
        with module_param("forwarding_hosts_per_user", 1, 4):
            for vnc in (0, 8):
                worlds.append(rankless_host_world(["--force-tcp", "--hold", "600"], vnc))
                if worlds[-1][3]:
                    return False, worlds[-1][3]
            first, second = worlds[0][2], worlds[1][2]
            gone = first.wait(lambda e: e["ev"] == "link_closed" and e.get("host") == 3, 10)
            listed = [h.get("root") for h in news_hosts() if h.get("index") == 3]
        if not gone:
            return False, "the first world's host 3 still passes news on"
        if second.wait(lambda e: e["ev"] == "link_closed" and e.get("host") == 3, 0) or \
                len(listed) != 1:
            return False, "the second world's host 3 ended too, or: %s" % news_hosts()
        if first.failed or second.failed:
            return False, "a world failed: %s" % (first.failed or second.failed)
        return True, "the first host ended at once; listed: %s" % listed
    finally:
        for ranks, parent, child, _ in worlds:
            for f in (parent, child):
                if f:
                    f.stop()
            stop(ranks)


@case
def a_WELCOME_with_a_bad_tag_fails_the_world_naming_the_host():
    """WELCOME, the responder's word that it took a connection, is tagged
    with its key: one that does not verify (forged, or from a man in the
    middle) is not taken for it. Host 1, a fake member, answers the root's
    data link with such a WELCOME: the root's rank fails naming host 1."""
    n, root = 2, loopback()
    r0 = Rank(0, 0, n, root, DEADLINE_MS, ["--barrier"], secret=True)
    if not root_listens(root):
        return False, "the root never listened"
    keys = P.Link._keys

    def forged_welcome(link):
        keys(link)
        if not link.initiator:
            link.out[-P.TAG_LEN:] = os.urandom(P.TAG_LEN)
    P.Link._keys = forged_welcome
    try:
        f = P.FakeHost(root, n, [1], KEY).start()
        r0.wait()
        f.stop()
    finally:
        P.Link._keys = keys
    want = "a WELCOME frame failed authentication"
    if r0.ok or want not in r0.error or not names_host(r0.error, 1):
        return False, "rank 0: %s" % (r0.error or "formed")
    return True, "rank 0: \"%s\"" % r0.error


def names_host(text, index):
    return ("host %d (" % index) in text


# --- replays, forgeries, other worlds ---

def relayed_world(n, tamper=None, hold=None, extra=("--barrier",), kernel=None, relayed=None):
    """Kernel ranks on the root host (0..n-2 by default), in a network
    namespace of their own, and one rank (n-1) in this one that reaches the
    root through a relay: a host of its own, naming the true root, at whose
    address the relay listens here (encd_world.ROOT_NS). With a secret."""
    ns = root_netns()
    root = loopback()
    relayed = n - 1 if relayed is None else relayed
    kernel = [r for r in range(n) if r != relayed] if kernel is None else kernel
    ranks = [Rank(r, r, n, root, DEADLINE_MS, extra, True, netns=ns) for r in kernel]
    if not root_listens(root, netns=ns):
        return None, ranks, None
    relay = P.Relay(root, hold=hold, tamper=tamper, listen=P.parse_hostport(root),
                    target_netns=ns)
    ranks.append(Rank(relayed, relayed, n, root, DEADLINE_MS, extra, True))
    ranks.sort(key=lambda r: r.gid)
    return relay, ranks, root


@case
def a_relay_between_two_worlds_of_one_secret_and_size_splices_nothing():
    """Keys are bound to the root's address and the world's size. A process
    with no key relays connections meant for one root to another (two
    worlds of one secret and one size): the first world's rank, calling
    the relay as its root, is refused by the second root in the handshake,
    at once; the second world then forms with its own rank."""
    n, root = 2, loopback()
    r0 = Rank(0, 0, n, root, DEADLINE_MS, ["--barrier"], secret=True)
    if not root_listens(root):
        return False, "the root never listened"
    relay = P.Relay(root)
    spliced = Rank(1, 1, n, relay.addr, DEADLINE_MS, ["--barrier"], secret=True)
    spliced.wait()
    relay.close()
    want = "does not hold the world secret of this rank"
    if spliced.ok or want not in spliced.error or spliced.end - spliced.start > 5:
        return False, "the spliced rank, after %.1f s: %s" % (
            spliced.end - spliced.start, spliced.error or "formed")
    r1 = Rank(1, 1, n, root, DEADLINE_MS, ["--barrier"], secret=True)
    finish([r0, r1])
    ok, why = all_ok([r0, r1])
    return ok, why if not ok else "refused: \"%s\"; %s" % (spliced.error, why)


def fail_naming(ranks, who, words=()):
    """Every rank failed, well before its deadline, with a sentence that
    names who (a rank, or a host by the ranks it has) and has words."""
    for r in ranks:
        r.wait()
        if r.ok:
            return False, "rank %d formed the world" % r.gid
        if r.end - r.start > DEADLINE_MS / 2000:
            return False, "rank %d failed at its deadline: %s" % (r.gid, r.error)
    for r in ranks:
        if not names_rank(r.error, who) and not any(w in r.error for w in words):
            return False, "rank %d does not name %d: %s" % (r.gid, who, r.error)
    return True, ranks[0].error


@case
def a_frame_replayed_on_its_own_link_fails_the_world_naming_the_host():
    def twice(i, direction, typ, f):
        return [f, f] if direction == "up" and typ == P.REGISTER else [f]
    relay, ranks, _ = relayed_world(2, tamper=twice)
    if relay is None:
        return False, "the root never listened"
    ok, why = fail_naming(ranks, 1, ("lost the root host",))
    relay.close()
    if ok and "failed authentication" not in ranks[0].error:
        return False, "rank 0: %s" % ranks[0].error
    return ok, why


@case
def frames_replayed_on_another_link_are_refused():
    # A stranger replays what a rank's host sent on its control link, on a
    # connection of its own: its PROOF answers another challenge. Rank 2
    # comes after it, so the world is still forming.
    relay, ranks, root = relayed_world(3, kernel=[0], relayed=1)
    if relay is None:
        return False, "the root never listened"
    if not relay.wait_frame(lambda fr: fr[1] == "up" and fr[2] == P.REGISTER):
        return False, "rank 1 never registered"
    captured = [f for c, d, t, f in relay.frames if d == "up"]
    s = socket.create_connection(P.parse_hostport(root), timeout=5)
    s.sendall(b"".join(captured))
    t0 = time.monotonic()
    s.settimeout(5)
    got = b""
    try:
        while True:
            data = s.recv(4096)
            if not data:
                break
            got += data
    except OSError:
        pass
    took = time.monotonic() - t0
    s.close()
    ranks.append(Rank(2, 2, 3, root, DEADLINE_MS, ["--barrier"], secret=True))
    finish(ranks)
    relay.close()
    ok, why = all_ok(ranks)
    # All it may see is a CHALLENGE (12 + 64 bytes), then the close.
    if not ok or len(got) > 76 or took > 2.5:
        return False, "replayed handshake: %d bytes back, closed after %.1f s; %s" % (
            len(got), took, why)
    stranger = "a stranger's replayed handshake got %d bytes back and was closed after %.1f s" % (
        len(got), took)
    # A member replays another host's REGISTER on its own control link: it
    # was tagged with another link's key.
    # Rank 1 reaches the root through the relay; the member is rank 2 and
    # keeps the world in its first barrier. The relay is a slow network:
    # the root's DEATH comes long after its data link to rank 1 closed,
    # so rank 1 can only name rank 2 if that link said why first.
    def slow_death(i, direction, typ, f):
        if direction == "down" and typ == P.DEATH:
            time.sleep(0.5)
        return [f]
    relay, ranks, root = relayed_world(3, tamper=slow_death, kernel=[0],
                                       relayed=1)
    if relay is None:
        return False, "the root never listened"
    f = P.FakeHost(root, 3, [2], KEY, hold={"barrier": True}).start()
    reg = relay.wait_frame(lambda fr: fr[1] == "up" and fr[2] == P.REGISTER)
    if not f.wait("formed", 20) or not reg:
        f.stop()
        finish(ranks)
        relay.close()
        return False, "the world did not form: %s" % errors(ranks)
    f.call(lambda: f._write(f.uplink, reg[3]))
    ok, why = fail_naming(ranks, 2)
    f.stop()
    relay.close()
    if ok and "failed authentication" not in ranks[0].error:
        return False, ranks[0].error
    return ok, stranger + "; a member's: " + why


@case
def forged_frames_from_strangers_only_close_their_connections():
    n, root = 2, loopback()
    r0 = Rank(0, 0, n, root, DEADLINE_MS, ["--barrier"])
    if not root_listens(root):
        return False, "the root never listened"
    route = P.route(1, 0, 0, 0)
    # Every type the wire defines after the handshake.
    forged = {P.JOIN: struct.pack(">I", n) + bytes(16) + P.addr_wire("127.0.0.1", 1) + bytes(4),
              P.REGISTER: struct.pack(">IIII", 1, 1, 0, 1),
              P.REJECT: P.reject_payload(22, 0, "forged"),
              P.TABLE: struct.pack(">QII", 1, 2, 1) + bytes(36) + bytes(8),
              P.DEATH: P.death_payload(103, 1, 0, "forged"),
              P.LINK: struct.pack(">QI", 1, 1),
              P.SIG: route + bytes(17), P.UID: route + bytes(129), P.RING: route + bytes(128),
              P.BARRIER: route + bytes(4), P.WELCOME: b"", P.DIGEST: bytes(32),
              P.DEPART: P.depart_block(0, [(0, 1, 0, ())])}
    slow = []
    for typ, payload in forged.items():
        s = socket.create_connection(P.parse_hostport(root), timeout=5)
        s.sendall(P.raw_frame(typ, payload) + os.urandom(16))
        t0 = time.monotonic()
        s.settimeout(5)
        try:
            closed = s.recv(4096) == b""
        except OSError:
            closed = True
        took = time.monotonic() - t0
        s.close()
        if not closed or took > 2.5:
            slow.append("%s: %s after %.1f s" % (P.NAMES[typ], "closed" if closed else "open",
                                                 took))
    r1 = Rank(1, 1, n, root, DEADLINE_MS, ["--barrier"])
    finish([r0, r1])
    ok, why = all_ok([r0, r1])
    if slow or not ok:
        return False, slow or why
    return True, "%s each closed on arrival; %s" % (", ".join(P.NAMES[t] for t in forged), why)


def closed_after(sock, timeout):
    """(seconds until the peer closed sock, or None; bytes it sent first)."""
    t0, back = time.monotonic(), 0
    while time.monotonic() < t0 + timeout:
        sock.settimeout(t0 + timeout - time.monotonic())
        try:
            data = sock.recv(65536)
        except (ConnectionResetError, BrokenPipeError):
            data = b""
        except socket.timeout:
            break
        if not data:
            return time.monotonic() - t0, back
        back += len(data)
    return None, back


@case
def a_JOIN_or_LINK_with_a_bad_tag_is_refused_even_from_a_keyholder():
    """The first frame of a link names who calls (JOIN: a host joining;
    LINK: a host of the table, by its index and the world's token). Sent
    with the world's key but a bad tag, each only closes its connection,
    with nothing sent back after WELCOME: not the REJECT a JOIN naming a
    port nobody listens at earns, nor the link a right LINK opens. The
    JOIN goes while the root still takes them, the LINK once the table is
    out (to the root host's listener, with the member's token and index);
    the world, held by the member, then forms."""
    n, root = 3, loopback()
    key = P.bind_key(KEY, root)
    ranks = [Rank(0, 0, n, root, DEADLINE_MS, ["--barrier"], secret=True)]
    if not root_listens(root):
        return False, "the root never listened"
    bad = []

    def bad_first_frame(name, addr, purpose, typ, payload):
        c = P.Conn(addr, key=key, purpose=purpose).handshake()
        c.send_raw(c.link.frame(typ, payload, tag=os.urandom(16)))
        took, back = closed_after(c.sock, 5)
        if took is None or took > 2.5 or back:
            bad.append("%s: %s, %d bytes back" % (
                name, "open" if took is None else "closed after %.1f s" % took, back))
        c.close()
    bad_first_frame("JOIN", root, P.CONTROL, P.JOIN,
                    struct.pack(">I", n) + bytes(16) + P.addr_wire("127.0.0.1", 1) + bytes(4))
    f = P.FakeHost(root, n, [1], KEY, hold={"sig": True}).start()
    ranks.append(Rank(2, 2, n, root, DEADLINE_MS, ["--barrier"], secret=True))
    if not f.wait("table", 20):
        f.stop()
        finish(ranks)
        return False, "the member got no table: %s" % errors(ranks)
    bad_first_frame("LINK", f.hosts[0][1], P.DATA, P.LINK,
                    struct.pack(">QI", f.token, f.index))
    f.release("sig")
    finish(ranks)
    f.stop()
    ok, why = all_ok(ranks)
    if bad or not ok:
        return False, bad or why
    return True, "JOIN and LINK closed on arrival; %s" % why


def injected_case(typ, payload):
    """A frame the test makes up is injected into the root's side of a
    control link (a man in the middle): its tag cannot be right."""
    fired = threading.Event()

    def inject(i, direction, t, f):
        if direction == "down" and t == P.TABLE and not fired.is_set():
            fired.set()
            return [P.header(typ, len(payload)) + payload + os.urandom(16), f]
        return [f]
    relay, ranks, root = relayed_world(2, tamper=inject)
    if relay is None:
        return False, "the root never listened"
    ok, why = fail_naming(ranks, 1, ("lost the root host",))
    relay.close()
    if ok and ("failed authentication" not in ranks[1].error or
               "forged by the test" in ranks[1].error):
        return False, "rank 1: %s" % ranks[1].error
    return ok, "rank 1: %s; rank 0: %s" % (ranks[1].error, ranks[0].error)


@case
def a_forged_REJECT_in_a_control_link_fails_the_world_naming_the_peer():
    return injected_case(P.REJECT, P.reject_payload(22, 1, "forged by the test"))


@case
def a_forged_TABLE_in_a_control_link_fails_the_world_naming_the_peer():
    return injected_case(P.TABLE, struct.pack(">QII", 7, 2, 1) + bytes(36) + bytes(8))


@case
def a_forged_DEATH_in_a_control_link_fails_the_world_naming_the_peer():
    return injected_case(P.DEATH, P.death_payload(103, 1, 0, "forged by the test"))


@case
def a_forged_DIGEST_in_a_control_link_fails_the_world_naming_the_peer():
    return injected_case(P.DIGEST, bytes(32))


@case
def a_forged_DEPART_in_a_control_link_fails_the_world_naming_the_peer():
    return injected_case(P.DEPART, P.depart_block(0, [(0, 1, 0, ())]))


def member_case(n, fake_ranks, hold, act, extra=(), who=None, words=()):
    """A world with a secret: kernel ranks on the root host, a fake host
    (a member) with fake_ranks that withholds hold and then does act(f)."""
    root = loopback()
    kr = [r for r in range(n) if r not in fake_ranks]
    ranks = [Rank(r, r, n, root, DEADLINE_MS, extra, secret=True) for r in kr]
    if not root_listens(root):
        return False, "the root never listened"
    f = P.FakeHost(root, n, fake_ranks, KEY, hold={k: True for k in hold}).start()
    if not f.wait("table", 20):
        f.stop()
        finish(ranks)
        return False, "the member got no table: %s" % errors(ranks)
    f.call(act, f)
    death = f.wait("death", 10)
    f.stop()
    ok, why = fail_naming(ranks, fake_ranks[0] if who is None else who, words)
    if not ok:
        return ok, why
    if not death or not (names_rank(death["text"], fake_ranks[0] if who is None else who) or
                         any(w in death["text"] for w in words)):
        return False, "the member heard: %s" % death
    if not death["reason"]:
        return False, "the member heard no reason: %s" % death
    return True, why


def to_root(f, typ, payload, tag=None):
    f.send_frame(f.data_link(0), typ, payload, tag)


def world_route(f, src, dst, attempt=0):
    return P.route(src, dst, f.world_tag, attempt)


@case
def a_member_s_SIG_UID_RING_BARRIER_with_bad_tags_fail_the_world_naming_it():
    out = []
    for typ, body in ((P.SIG, bytes(17)), (P.UID, bytes(129)), (P.RING, bytes(128)),
                      (P.BARRIER, bytes(4))):
        ok, why = member_case(2, [1], ["sig"], lambda f, t=typ, b=body: to_root(
            f, t, world_route(f, 1, 0) + b, tag=os.urandom(16)), ["--barrier"])
        if not ok:
            return False, "%s: %s" % (P.NAMES[typ], why)
        out.append(P.NAMES[typ])
    return True, "%s refused: %s" % (", ".join(out), why)


@case
def a_member_that_lies_fails_the_world_naming_it():
    def sig_of_another(f):
        # A SIG that says it comes from rank 0, which is not the member's.
        to_root(f, P.SIG, world_route(f, 0, 0) + bytes(17))

    def sig_twice(f):
        f.release("sig")
        to_root(f, P.SIG, world_route(f, 1, 0) + bytes(17))

    def barrier_not_owed(f):
        to_root(f, P.BARRIER, world_route(f, 1, 0, attempt=1) + struct.pack(">I", 5))

    def uid_of_another_world(f):
        uid = bytearray(129)
        struct.pack_into(">Q", uid, 0, 1)
        struct.pack_into(">IIIIQ", uid, 28, 4, 0, 0, f.world_tag, f.token ^ 1)
        uid[128] = 1
        f.send_frame(f.data_link(f.rank_host[3]), P.UID, world_route(f, 2, 3) + bytes(uid))

    lies = [
        ("REJECT on a data link", 2, [1], ["sig"], lambda f: to_root(
            f, P.REJECT, P.reject_payload(22, 0, "a lie")), (), None, ()),
        ("the table again", 2, [1], ["sig"], lambda f: to_root(
            f, P.TABLE, f.table_bytes), (), None, ()),
        ("a SIG of another host's rank", 2, [1], ["sig"], sig_of_another, (), None, ()),
        ("a SIG it does not owe", 2, [1], ["sig"], sig_twice, (), None, ()),
        ("a barrier round it does not owe", 2, [1], ["barrier"], barrier_not_owed,
         ["--barrier"], None, ()),
        # Rank 3 takes the unique id from rank 2 (the member's) down the
        # hypercube and finds another world's token in it: a message rank 2
        # does not owe, which fails the world at once, naming its host.
        ("a unique id of another world", 4, [2], ["uid"], uid_of_another_world, (), None,
         ("global device 2 sent bootstrap rank 3 a unique id that is not this group's",)),
        # Departures: a member is believed about its own ranks only, and
        # passes on others' news only to its children in the host tree.
        ("the root's rank's departure, passed on by a member", 2, [1], ["sig"],
         lambda f: to_root(f, P.DEPART, P.depart_block(0, [(0, 1, 0, ())])), (), None,
         ("it passed on departures of host 0, and is not this host's parent",)),
        ("the root's rank's departure, on its control link", 2, [1], ["sig"],
         lambda f: f.send_frame(f.uplink, P.DEPART, P.depart_block(0, [(0, 1, 0, ())])), (),
         None, ("it said that ranks of host 0 left",)),
        ("another host's rank in its own block", 2, [1], ["sig"],
         lambda f: to_root(f, P.DEPART, P.depart_block(1, [(0, 1, 0, ())])), (), None,
         ("it said that rank 0 of host 1 left, which is host 0's",)),
        ("its own rank named more often than the world has ranks", 2, [1], ["sig"],
         lambda f: to_root(f, P.DEPART, P.depart_block(1, [(1, 1, 0, ())] * 3)), (), None,
         ("it said that ranks 1 to 1+1 left a world of 2",)),
    ]
    seen = []
    for name, n, fr, hold, act, extra, who, words in lies:
        ok, why = member_case(n, fr, hold, act, extra, who, words)
        if not ok:
            return False, "%s: %s" % (name, why)
        seen.append("%s: \"%s\"" % (name, why))
    return True, "; ".join(seen)


@case
def frames_of_another_world_are_refused():
    """Two worlds share a secret; a member of the first calls a host of the
    second with its own world's token, then a SIG that would fail the second
    world's validation (a zero signature, not ok). The host closes that
    connection as a stranger's and takes nothing from it: a host of another
    world may call an address that is now this world's, and must not be
    able to fail it. The second world forms once its own member's SIG comes,
    which it could not had the stranger's been taken (one SIG is owed)."""
    w1 = loopback()
    r1 = Rank(0, 0, 2, w1, DEADLINE_MS, ["--hold", "20"], secret=True)
    if not root_listens(w1):
        return False, "the first root never listened"
    m1 = P.FakeHost(w1, 2, [1], KEY).start()
    if not m1.wait("formed", 20):
        m1.stop()
        r1.kill()
        return False, "the first world did not form"
    w2 = loopback()
    r2 = Rank(1, 0, 2, w2, DEADLINE_MS, ["--barrier"], secret=True)
    m2 = None
    try:
        if not root_listens(w2):
            return False, "the second root never listened"
        m2 = P.FakeHost(w2, 2, [1], KEY, hold={"sig": True}).start()
        if not m2.wait("table", 20):
            return False, "the second world's member got no table: %s" % r2.error

        def call_w2(f):
            p = f._connect(P.parse_hostport(w2), "data-out", P.DATA, 0)
            f.send_frame(p, P.SIG, P.route(1, 0, f.world_tag, 0) + bytes(16) + b"\0")
            return p
        t0 = time.monotonic()
        p = m1.call(call_w2, m1)
        closed = wait_until(lambda: p.dead, 5, 0.02)
        took = time.monotonic() - t0
        if not closed or took > 2.5:
            return False, "the other world's connection was %s" % (
                "still open after 5 s" if not closed else "closed only after %.1f s" % took)
        if r2.done.is_set():
            return False, "the second world ended: %s" % r2.error
        m2.release("sig")
        r2.wait()
        if not r2.ok or not m2.wait("barrier_done", 10):
            return False, "the second world did not form: %s" % r2.error
        if m1.first("death") or not r1.ok:
            return False, "the first world failed: %s" % (m1.first("death") or r1.error)
        return True, "the other world's LINK and SIG: closed after %.1f s, nothing taken; " \
            "both worlds formed" % took
    finally:
        m1.stop()
        if m2:
            m2.stop()
        r1.kill()
        r1.wait()
        r2.kill()
        r2.wait()


# --- bounded memory and time ---

def memory_world(n_fake):
    root = loopback()
    r0 = Rank(0, 0, n_fake + 1, root, 120000, ["--hold", "120"], secret=True)
    if not root_listens(root):
        return None, r0
    f = P.FakeHost(root, n_fake + 1, range(1, n_fake + 1), KEY).start()
    if not f.wait("formed", 30):
        f.stop()
        r0.kill()
        return None, r0
    r0.wait_printed()
    return f, r0


def measured_world(n_fake):
    """A world of memory_world(n_fake), after one formed and gone first, so
    that what the first world of a module allocates for good (caches, the
    workqueue's workers) is not counted: (fake host, rank 0, Slab+VmallocUsed
    before it in KiB), or (None, why, None)."""
    f, r0 = memory_world(n_fake)
    if f is None:
        return None, "the warm-up world did not form: %s" % r0.error, None
    f.stop()
    r0.kill()
    r0.wait()
    before = kernel_memory_kib()
    f, r0 = memory_world(n_fake)
    if f is None:
        return None, "the world did not form: %s" % r0.error, None
    return f, r0, before


# The debug lane's kernel (KASAN, lockdep) under TCG moves loopback bytes
# slowly enough that 256 whole MiB would take minutes, and the kernel closes
# the link at the header, before the body: there, each frame is its header
# (1 MiB announced) and its first 64 KiB.
FLOOD_SENT = (64 << 10) if DEBUG_LANE else (1 << 20)


def flood_1mib(f, frames):
    """frames frames of 1 MiB on data links to host 0: the first on the
    open one, each other on a new one (the kernel closes a link at such a
    header). Returns how many links took the whole frame's header."""
    big = os.urandom(1 << 20)
    sent = 0
    for i in range(frames):
        def one(f):
            p = f.data_link(0) if i == 0 else f._connect(f.hosts[0][1], "data-out", P.DATA, 0)
            if p.link.up:
                f._write(p, P.header(P.SIG, len(big)) + big[:FLOOD_SENT] +
                         (os.urandom(16) if FLOOD_SENT == len(big) else b""))
            else:
                p.queue.append((P.SIG, big, os.urandom(16)))
            return p
        p = f.call(one, f)
        wait_until(lambda: p.dead or (p.link.up and not p.queue and not p.wbuf), 10, 0.01)
        sent += p.link.up
        f.call(lambda p=p: f._close(p, quiet=True))
    return sent


@case
def a_joined_peer_flooding_holds_less_than_1_MiB():
    f, r0, before = measured_world(3)
    if f is None:
        return False, r0
    formed = kernel_memory_kib()
    # 256 messages nobody asked for (tags of nodes nobody started): the
    # most one link may leave waiting.
    def early(f):
        for i in range(256):
            to_root(f, P.SIG, P.route(1, 0, 0x5EED0000 + i, 0) + bytes(17))
    f.call(early, f)
    time.sleep(1)
    held = kernel_memory_kib()
    # 10,000 barrier rounds of an epoch that is over: dropped as they come.
    # A thousand a call: under the debug kernel each frame costs the host's
    # thread milliseconds (an HMAC each side), and a call has 30 s.
    def stale(f):
        for i in range(1000):
            to_root(f, P.BARRIER, world_route(f, 1, 0, attempt=0) + struct.pack(">I", 0))
    for _ in range(10):
        f.call(stale, f)
    time.sleep(2)
    stale_kib = kernel_memory_kib()
    alive = not f.first("death")
    links = flood_1mib(f, 256)
    death = f.wait("death", 10)
    flooded = kernel_memory_kib()
    f.stop()
    r0.kill()
    r0.wait()
    time.sleep(1)
    after = kernel_memory_kib()
    fig = ("Slab+VmallocUsed: %d KiB before, %+d formed, %+d with 256 early messages, %+d after "
           "10,000 stale rounds, %+d after 256 frames of 1 MiB on %d links, %+d once the world "
           "is gone" % (before, formed - before, held - before, stale_kib - before,
                        flooded - before, links, after - before))
    print("# " + fig)
    if not alive:
        return False, "stale barrier rounds failed the world: " + fig
    if not death or not names_rank(death["text"], 1):
        return False, "the 1 MiB frames did not fail the world naming the member: %s" % death
    worst = max(held, stale_kib, flooded, after) - before
    return worst < 1024 and links >= 200, fig


@case
def the_message_after_the_budget_fails_the_world_naming_the_member():
    """A data link may leave 256 messages nobody asked for waiting, not
    one more: the 257th fails the world, naming the host that sent it."""
    f, r0 = memory_world(1)
    if f is None:
        return False, "the world did not form: %s" % r0.error

    def early(f, first, n):
        for i in range(first, first + n):
            to_root(f, P.SIG, P.route(1, 0, 0x5EED0000 + i, 0) + bytes(17))
    try:
        f.call(early, f, 0, 256)
        time.sleep(1)
        if f.first("death"):
            return False, "256 early messages failed the world: %s" % f.first("death")["text"]
        f.call(early, f, 256, 1)
        death = f.wait("death", 10)
    finally:
        f.stop()
        r0.kill()
        r0.wait()
    want = "it sent more than 256 messages nobody asked for"
    if not death or want not in death["text"] or not names_rank(death["text"], 1):
        return False, "after the 257th: %s" % death
    return True, "256 held; the 257th: \"%s\"" % death["text"]


@case
def a_member_s_links_together_hold_less_than_1_MiB():
    """A member may open many data links to one host, each with messages
    nobody asked for. The budget of early messages is per data link, and a
    host keeps one data link from each other host (the member's is the one
    it formed the world with, so all 32 new ones are refused as strangers'
    are: closed, the world goes on): the member holds one budget, not 33."""
    f, r0, before = measured_world(3)
    if f is None:
        return False, r0
    n_links = 32

    def many(f):
        ps = []
        for k in range(n_links):
            p = f._connect(f.hosts[0][1], "data-out", P.DATA, 0)
            for i in range(256):
                p.queue.append((P.SIG, P.route(1, 0, 0x5EED0000 + (k << 8) + i, 0) +
                                bytes(17), None))
            ps.append(p)
        return ps
    ps = f.call(many, f)
    wait_until(lambda: all(p.dead or (p.link.up and not p.queue and not p.wbuf) for p in ps),
               30, 0.1)
    time.sleep(1)
    held = kernel_memory_kib()
    up = sum(1 for p in ps if not p.dead)
    death = f.first("death")
    f.stop()
    r0.kill()
    r0.wait()
    fig = "%d links x 256 early messages: Slab+VmallocUsed %+d KiB (%d links still open, %s)" % (
        n_links, held - before, up, "world failed: " + death["text"] if death else "world alive")
    print("# " + fig)
    return held - before < 1024 and not up and not death, fig


class Flood:
    """silent connections that send nothing and slow ones that send one
    byte a second, each opened again a second after the root closes it."""

    def __init__(self, root, silent, slow):
        self.addr = P.parse_hostport(root)
        self.stop = False
        self.opened = 0
        self.socks = {}
        self.slots = [("silent", i) for i in range(silent)] + [("slow", i) for i in range(slow)]
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _open(self, slot):
        s = socket.socket()
        s.setblocking(False)
        s.connect_ex(self.addr)
        self.socks[slot] = (s, time.monotonic())
        self.opened += 1

    def _run(self):
        import selectors
        sel = selectors.DefaultSelector()
        for slot in self.slots:
            self._open(slot)
            sel.register(self.socks[slot][0], selectors.EVENT_READ, slot)
        reopen = {}
        last_tick = time.monotonic()
        while not self.stop:
            for key, _ in sel.select(0.1):
                slot = key.data
                s = self.socks[slot][0]
                try:
                    data = s.recv(4096)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if not data:
                    sel.unregister(s)
                    s.close()
                    reopen[slot] = time.monotonic() + 1
            now = time.monotonic()
            for slot, t in list(reopen.items()):
                if t <= now:
                    del reopen[slot]
                    self._open(slot)
                    sel.register(self.socks[slot][0], selectors.EVENT_READ, slot)
            if now - last_tick >= 1:
                last_tick = now
                for slot, (s, _t) in self.socks.items():
                    if slot[0] == "slow" and slot not in reopen:
                        try:
                            s.send(b"E")
                        except OSError:
                            pass
        for s, _t in self.socks.values():
            s.close()

    def close(self):
        self.stop = True
        self.thread.join(10)


def timed_world(n, flood=None, settle=2):
    """Seconds from starting ranks 1..n-1 (rank 0, the root, is up and
    listening) until every rank formed the world; each rank is a host of
    its own (--force-tcp), so each one connects to the root. They stay a
    while after it formed: a rank that leaves fails the world. flood(root)
    starts a flood (an object with close() and .opened) settle seconds
    before the other ranks; it runs until they are done."""
    root = loopback()
    extra = ["--force-tcp", "--hold", "3"]
    r0 = Rank(0, 0, n, root, 60000, extra)
    if not root_listens(root):
        return None, "the root never listened"
    fl = flood(root) if flood else None
    if fl:
        time.sleep(settle)
    t0 = time.monotonic()
    ranks = [r0] + [Rank(r, r, n, root, 60000, extra) for r in range(1, n)]
    finish(ranks)
    took = max(r.printed or r.end for r in ranks[1:]) - t0
    if fl:
        fl.close()
    opened = fl.opened if fl else 0
    ok, why = all_ok(ranks)
    return (took, opened) if ok else None, why


def more_files():
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 8192)), hard))


def baseline_world(n):
    """The best of two timed_world(n)s without a flood (the first world of
    a run is slower: the page cache): (seconds, None) or (None, why)."""
    best = None
    for _ in range(2):
        res, why = timed_world(n)
        if not res:
            return None, "without a flood: " + why
        best = min(best or res[0], res[0])
    return best, None


@case
def a_thousand_silent_and_a_thousand_slow_connections_do_not_slow_formation():
    more_files()
    t_base, why = baseline_world(8)
    if not t_base:
        return False, why
    # The flood's own work (a Python thread, and the root accepting and
    # closing thousands of connections) shares the VM's two CPUs with the
    # ranks: a world that starts as the root's 2 s handshake cut-off closes
    # the first 2,000 pays for that on the CPU. Three worlds, started 1, 2
    # and 3 s into the flood (before, at and after that cut-off), and the
    # best of them, as for the baseline: a flood that held the root up
    # would slow all three.
    runs = []
    for settle in (1, 2, 3):
        res, why = timed_world(8, flood=lambda root: Flood(root, 1000, 1000), settle=settle)
        if not res:
            return False, "with them: " + why
        runs.append(res)
    res = min(runs)
    fig = "8 ranks (--force-tcp) form in %.2f s alone, %.2f s with 1,000 silent and 1,000 " \
        "slow connections at the root (best of %s s, 1/2/3 s into it; %d opened)" % (
            t_base, res[0], "/".join("%.2f" % r[0] for r in runs), res[1])
    print("# " + fig)
    # The bound: under twice the time without them.
    return res[0] < 2 * t_base, fig


# Opens connections to the root as fast as it can, keeping its last 256;
# prints how many it opened and in how many seconds.
CHURN = r"""
import collections, signal, socket, struct, sys, time
addr = (sys.argv[1], int(sys.argv[2]))
stop = []
signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
# Ready: a SIGTERM from now on ends the loop and the count is printed.
print("ready", flush=True)
# A reset, not a FIN: no TIME_WAIT here, so the flood never runs out of
# ephemeral ports, nor takes them from the world's own links.
linger = struct.pack("ii", 1, 0)
keep, n, t0 = collections.deque(), 0, time.monotonic()
while not stop:
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)
    s.setblocking(False)
    if s.connect_ex(addr) not in (0, 115):
        s.close()
        continue
    n += 1
    keep.append(s)
    if len(keep) > 256:
        keep.popleft().close()
print(n, time.monotonic() - t0, flush=True)
"""


class Churn:
    """Unprivileged processes (nobody, no /dev/encd, no key) each opening
    connections to the root as fast as it can. They run at nice 19: the
    VM has two CPUs, and what is measured is what the root does with their
    connections, not the share of the CPUs two busy loops take from the
    ranks."""

    def __init__(self, root, procs=2):
        host, port_ = P.parse_hostport(root)
        self.ps = [subprocess.Popen(("nice", "-n", "19") + NOBODY +
                                    (sys.executable, "-c", CHURN, host, str(port_)),
                                    stdout=subprocess.PIPE, text=True)
                   for _ in range(procs)]
        # A SIGTERM before a process's handler is set kills it silently.
        for p in self.ps:
            p.stdout.readline()
        self.opened, self.rate = 0, 0.0

    def close(self):
        secs = 0.0
        for p in self.ps:
            p.send_signal(signal.SIGTERM)
        for p in self.ps:
            out, _ = p.communicate(timeout=20)
            n, t = out.split()
            self.opened += int(n)
            secs = max(secs, float(t))
        self.rate = self.opened / secs if secs else 0.0


@case
def unprivileged_processes_flooding_the_root_with_connections_lose_nothing():
    """Two processes of another user open connections to the root's port
    as fast as they can for the whole formation of an 8-host world. They
    share the world's address, so past its 64 slots the root drops first
    the connections that have not said HELLO (the flood's), and only then
    world links still in their handshake; a link cut off before WELCOME
    connects again having sent nothing, 50 ms later each time (only a root
    that does not listen yet is asked less often). The world forms, never
    a rank waiting for its deadline (60 s) on a message thrown away; how
    much longer than alone it took is a figure, printed, not a bound: it is
    as many retries as the flood cut off."""
    more_files()
    t_base, why = baseline_world(8)
    if not t_base:
        return False, why
    runs, floods = [], []
    for settle in (1, 2):
        fl = []
        res, why = timed_world(8, flood=lambda root: fl.append(Churn(root)) or fl[-1],
                               settle=settle)
        if not res:
            return False, "under the flood (%d connections): %s" % (
                fl[0].opened if fl else 0, why)
        runs.append(res[0])
        floods.append(fl[0])
    rate = max(f.rate for f in floods)
    fig = "8 hosts form in %.2f s alone, %.2f s while 2 unprivileged processes open %.0f " \
        "connections a second at the root (%s s; %s connections)" % (
            t_base, min(runs), rate, "/".join("%.2f" % t for t in runs),
            "/".join("%d" % f.opened for f in floods))
    print("# " + fig)
    # Each flood opened more connections than the root serves in their
    # handshake at once (64), so the root dropped some: the flood was real
    # in every lane, however slow (the debug kernel's is a tenth of 6.1's).
    # A message thrown away would have held a rank to its deadline.
    return max(runs) < 10 and all(f.opened > 64 for f in floods), fig


# --- one protocol, agreed up front ---

def in_setup(rank):
    """Whether a rank's process waits in SETUP for its world (its
    /proc/PID/wchan): it has registered with its host agent."""
    try:
        with open("/proc/%d/wchan" % rank.p.pid) as f:
            return f.read().strip() == "encd_world_ioctl_setup"
    except OSError:
        return False


def listening_ports():
    """The TCP ports something listens on."""
    ports = set()
    for path in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(path) as f:
            next(f)
            for line in f:
                fields = line.split()
                if fields[3] == "0A":
                    ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def settings_case(n, odd, odd_extra, force_tcp):
    """Every rank but the odd one first, each registered at the root, then
    the odd one: the root fails the world as it registers, and every rank
    hears it at once. Ranks that start together race the root's own: one
    that reaches root_comm_id after the root's ranks failed and left finds
    nobody there, and can only see its deadline pass."""
    root = loopback()
    extra = ["--force-tcp"] if force_tcp else []
    before = listening_ports()
    ranks = [Rank(r, r, n, root, DEADLINE_MS, extra) for r in range(n) if r != odd]

    def registered():
        # A host's listener for data links opens once its link to the
        # root is up, just before its JOIN: one per rank with --force-tcp
        # (the root's is root_comm_id).
        hosts = len(ranks) if force_tcp else 1
        return all(in_setup(r) for r in ranks) and len(listening_ports() - before) >= hosts
    if not wait_until(registered, 20, 0.05):
        for r in ranks:
            r.kill()
        finish(ranks)
        return False, "the other ranks never all waited at the root: %s" % errors(ranks)
    ranks.append(Rank(odd, odd, n, root, DEADLINE_MS, extra + odd_extra))
    odd_start = ranks[-1].start
    finish(ranks)
    ranks.sort(key=lambda r: r.gid)
    for r in ranks:
        if r.ok or r.res.get("status") != "NRT_INVALID":
            return False, "rank %d: %s %s" % (r.gid, r.res.get("status"), r.error)
        # "At once": within 2 s of the odd rank's start, not at the deadline.
        if r.end - odd_start > 2.0:
            return False, "rank %d failed %.1f s after rank %d started" % (
                r.gid, r.end - odd_start, odd)
        if "rank %d " % odd not in r.error or "rank 0 (the root)" not in r.error:
            return False, "rank %d: %s" % (r.gid, r.error)
    return True, ranks[0].error


@case
def mixed_check_sigs_is_refused_at_once_naming_the_rank():
    for tcp in (False, True):
        ok, why = settings_case(4, 3, ["--no-check-sigs"], tcp)
        if not ok:
            return False, "%s: %s" % ("--force-tcp" if tcp else "one host", why)
    return True, why


@case
def mixed_signing_flags_are_refused_at_once_naming_the_rank():
    ok, why = settings_case(4, 2, ["--sig-all-groups"], True)
    if not ok:
        return False, why
    return settings_case(4, 1, ["--sig-all-groups"], False)


def whole_world_programs(n, offender, sendrecv):
    """Group 0 is the whole world in order on stream 0: the world's own
    participants. The offender's op on it differs."""
    import json
    paths = []
    for r in range(n):
        if sendrecv:
            g = {"group_id": 0, "rank": -1, "rank_n": n, "participants": list(range(n)),
                 "bootstrap_rank": r}
        else:
            g = {"group_id": 0, "rank": r, "rank_n": n, "participants": list(range(n))}
        op = {"op": "all_reduce", "size_n": 2048 if r == offender else 1024, "dtype": 1,
              "group": 0}
        path = os.path.join(TMP, "whole-%d-%d-%d.json" % (n, sendrecv, r))
        with open(path, "w") as f:
            json.dump({"replica_groups": [g], "src_target_pairs": [], "ops": [op]}, f)
        paths.append(path)
    return paths


@case
def a_mismatch_in_a_whole_world_group_on_stream_0_is_caught():
    n, offender = 4, 3
    out = []
    for sendrecv, extra in ((True, []), (False, ["--sig-all-groups"])):
        progs = whole_world_programs(n, offender, sendrecv)
        root = loopback()
        ranks = [Rank(r, r, n, root, DEADLINE_MS, extra, program=progs[r]) for r in range(n)]
        finish(ranks)
        for r in ranks:
            if r.ok or "mismatched collectives between the peers" not in r.error:
                return False, "rank %d: %s" % (r.gid, r.error)
        parent = (offender - 1) >> 1
        m = ranks[parent].res.get("mismatch") or {}
        if m.get("child_g_device_id") != offender or m.get("group_id") != 0:
            return False, "rank %d recorded %s" % (parent, m)
        out.append("%s group: rank %d names rank %d" % (
            "sendrecv" if sendrecv else "--sig-all-groups", parent, offender))
    return True, "; ".join(out)


@case
def rmmod_ends_the_hosts_passing_news_on_whatever_their_peers_hold():
    """No host agent holds the module: rmmod ends those passing news on,
    and waits for them, whatever their peers hold open. As above, rank 3
    leaves while its parent and child, fake members, hold their links; then
    every kernel rank exits, and the root (whose subtree still has ranks 1
    and 7) passes news on too. rmmod encd succeeds within 5 s, and host 3's
    link to host 7 is closed. The module is loaded again with this
    program's parameters for the cases after."""
    ranks, parent, child, why = rankless_host_world(["--force-tcp", "--hold", "600"])
    try:
        if why:
            return False, why
        stop(ranks)
        held = news_hosts()
        if not any(h.get("index") == 3 for h in held):
            return False, "host 3 passes no news on: %s" % held
        t0 = time.monotonic()
        p = sh("rmmod", "encd", check=False)
        took = time.monotonic() - t0
        if p.returncode:
            return False, "rmmod encd: %s" % p.stderr.strip()
        gone = child.wait(lambda e: e["ev"] == "link_closed" and e.get("host") == 3, 5)
        if took > 5 or not gone:
            return False, "rmmod took %.1f s; host 3's link to host 7 %s" % (
                took, "closed" if gone else "still open")
        return True, "%d hosts passing news on; rmmod took %.1f s" % (len(held), took)
    finally:
        if parent:
            parent.stop()
        if child:
            child.stop()
        if not os.path.exists("/sys/module/encd"):
            with open(os.path.join(os.environ["ENCD_SELFTESTS"], "hostile_test.modparams")) as f:
                params = f.read().split()
            sh("insmod", os.environ["ENCD_KO"], *params)


if __name__ == "__main__":
    sys.exit(main(cases))
