# SPDX-License-Identifier: GPL-2.0
"""A host agent of a world in user space (FakeHost), in a thread or as a
process (main())."""
import collections
import errno
import hashlib
import json
import os
import selectors
import socket
import struct
import threading
import time

from .link import Link, Peer, bind_key, world_key
from .schedule import (ceil_log2, cube_children, cube_parent, dissem_from, dissem_to,
                       node_tag, tree_children, tree_parent)
from .wire import (BARRIER, CHECK_SIGS, CONTROL, DATA, DEATH, DEPART, DEPART_MAX, DIGEST,
                   HOST_ID_LEN, JOIN, LINK, NAMES, NO_RANK, REGISTER, REGISTER_MAX,
                   REJECT, RING, ROUTE, SIG, SIG_ALL_GROUPS, TABLE, TABLE_PART_MAX, UID, UID_LEN,
                   ZERO_SIG, ProtocolError, addr_unwire, addr_wire, death_payload, depart_block,
                   depart_blocks, parse_hostport, reject_payload, route, text_of)

# The sentence of a departure, as the kernel's.
LEFT = ("rank %d (global device %d) left the world: its comm was released or its process "
        "closed /dev/encd")
# This peer gives its own links more time than the specification asks for
# (HANDSHAKE_S): a Python host under TCG is slow, and it is not what is tested.
OWN_DEADLINE_S = 10.0
VALIDATING, BROADCASTING, CONNECTING, READY, FAILED = range(5)
# The most of one turn of its loop a FakeHost spends starting world nodes,
# or handing over messages between its own ranks (_start_worlds(),
# _run_local()): by the clock, not by count, so that in every lane, the
# debug kernel's under TCG too, it answers a kernel's handshake (2 s, a
# few turns) while a host of thousands of ranks starts.
TURN_S = 0.02
HOLD_KINDS = ("join", "register", "sig", "uid", "ring", "barrier", "table", "challenge")


class Node:
    """One fake rank's comm node: the bootstrap of get_nccl_comm, then its
    barriers, as kmod/bootstrap.c and barrier.c run them."""
    __slots__ = ("rank", "key", "rank_n", "brank", "stream", "tag", "sig", "check", "attempt",
                 "state", "got", "match", "sig_sent", "uid", "uid_got", "valid", "ring_sent",
                 "ring_got", "ring_uid", "epoch", "round", "b_sent", "b_got", "b_active", "world", "why")

    def __init__(self, rank, key, brank, stream, tag, sig, check, world):
        self.rank, self.key, self.brank, self.stream = rank, key, brank, stream
        self.rank_n = len(key)
        self.tag, self.sig, self.check, self.world = tag, sig, check, world
        self.attempt = 0
        self.state = VALIDATING
        self.got = 0
        self.match = True
        self.sig_sent = self.uid_got = self.ring_sent = self.ring_got = False
        self.uid = self.ring_uid = None
        self.valid = True
        self.epoch = self.round = 0
        self.b_sent = self.b_got = 0
        self.b_active = False
        self.why = None

class FakeHost:
    """A host agent of a world, in user space.

    root: the world's root_comm_id ("127.0.0.1:29500"); world_size: N;
    ranks: the global device ids this host speaks for (rank 0 makes it the
    root host, listening on root); key: the world key (world_key()).
    settings: CHECK_SIGS | SIG_ALL_GROUPS, as every rank must share with
    rank 0 (a dict rank -> settings for some to differ). hold: kinds of
    messages to withhold, each True or a set of ranks (for "table", of child
    host indices): join, register, sig, uid, ring, barrier, table, challenge
    (a responder that never answers HELLO); release(kind) sends what was held.

    Everything the host sees is an event (events, wait()): joined,
    registered, table, formed (every world node of its ranks ready),
    barrier_done, reject, death, uplink_closed, link_closed, refused, error.
    """

    def __init__(self, root, world_size, ranks, key, settings=CHECK_SIGS, hold=None,
                 listen_host=None, register_batch=REGISTER_MAX, name="fake", on_event=None,
                 strict=True):
        self.root = parse_hostport(root) if isinstance(root, str) else root
        self.n = world_size
        self.ranks = sorted(set(ranks))
        self.rankset = set(self.ranks)
        # Every key of the world is bound to it, by its root.
        self.key = bind_key(key, self.root)
        self.settings = settings
        self.hold = {k: (v if v is True else set(v)) for k, v in (hold or {}).items()}
        for k in self.hold:
            if k not in HOLD_KINDS:
                raise ValueError("cannot hold %s" % k)
        self.held = collections.defaultdict(list)
        self.listen_host = listen_host
        self.batch = register_batch
        self.name = name
        self.on_event = on_event
        self.strict = strict
        self.is_root = 0 in self.rankset
        self.id = os.urandom(HOST_ID_LEN)
        self.events = []
        self.cond = threading.Condition()
        self.sel = selectors.DefaultSelector()
        self.peers = []
        self.uplink = None
        self.listener = None
        self.listen_addr = None
        self.out = {}                 # host index -> Peer of our data link to it
        self.token = None
        self.index = None
        self.hosts = None             # [(host_id, (ip, port))]
        self.rank_host = None
        self.world = {}               # rank -> its world Node
        self.world_key = self.world_tag = None
        self.nodes = {}               # (rank, tag) -> Node
        self.early = collections.defaultdict(list)
        self.pre_table = []
        self.digest = None            # the root's DIGEST of the table
        self.held_table = None        # (payload, peer): a parent's, before it
        self.table_in = None          # (bytes so far, whole length, peer): a table in parts
        self.localq = collections.deque()
        self.registered = set()
        self.failed = None
        self.formed = False
        self.stats = collections.Counter()
        self._calls = collections.deque()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self.sel.register(self._wake_r, selectors.EVENT_READ, None)
        self._stop = False
        self._thread = None
        self._later = []
        self.n_ready = 0
        # the root's state
        self.joined = []
        self.owner = {}

    # -- events --

    def event(self, ev, **kw):
        e = dict(kw, ev=ev, t=time.monotonic())
        with self.cond:
            self.events.append(e)
            self.cond.notify_all()
        if self.on_event:
            self.on_event(e)
        return e

    def wait(self, what, timeout=30.0):
        """The first event named what (or for which what(e) is true), or None."""
        pred = what if callable(what) else (lambda e: e["ev"] == what)
        end = time.monotonic() + timeout
        with self.cond:
            while True:
                for e in self.events:
                    if pred(e):
                        return e
                left = end - time.monotonic()
                if left <= 0:
                    return None
                self.cond.wait(left)

    def first(self, *names):
        with self.cond:
            for e in self.events:
                if e["ev"] in names:
                    return e
        return None

    # -- running --

    def start(self):
        if self.is_root:
            self._listen(self.root)
            self._register_local()
        else:
            self._connect_uplink()
        self._thread = threading.Thread(target=self._loop, name=self.name, daemon=True)
        self._thread.start()
        return self

    def run(self, seconds):
        """Runs in this thread (the CLI's way) for at most seconds."""
        if self.is_root:
            self._listen(self.root)
            self._register_local()
        else:
            self._connect_uplink()
        end = time.monotonic() + seconds
        self._loop(end)

    def call(self, fn, *args):
        """Runs fn(*args) in the host's thread and returns its result."""
        if threading.current_thread() is self._thread:
            return fn(*args)
        done = threading.Event()
        box = []

        def run():
            try:
                box.append((True, fn(*args)))
            except Exception as e:  # handed to the caller
                box.append((False, e))
            done.set()
        self._calls.append(run)
        self._wake_w.send(b"x")
        if not done.wait(30):
            raise TimeoutError("the host's thread did not run the call")
        ok, v = box[0]
        if not ok:
            raise v
        return v

    def stop(self):
        self._stop = True
        try:
            self._wake_w.send(b"x")
        except OSError:
            pass
        if self._thread and self._thread is not threading.current_thread():
            self._thread.join(10)
        for p in list(self.peers):
            self._close(p, quiet=True)
        if self.listener:
            self.sel.unregister(self.listener)
            self.listener.close()
            self.listener = None

    def die(self):
        """Goes at once, as a killed process: every connection reset."""
        def kill():
            for p in list(self.peers):
                try:
                    p.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                      struct.pack("ii", 1, 0))
                except OSError:
                    pass
                self._close(p, quiet=True)
            self._stop = True
        self.call(kill)
        self.stop()

    def release(self, kind):
        """Sends what was withheld of kind, and holds it no more."""
        def rel():
            self.hold.pop(kind, None)
            held, self.held[kind] = self.held[kind], []
            for fn in held:
                fn()
            if kind == "register":
                self._send_registrations()
            self._run_local()
        self.call(rel)

    def _loop(self, end=None):
        while not self._stop:
            now = time.monotonic()
            if end and now >= end:
                break
            # A call that is due (later(0, ...)) runs after a look at the
            # sockets that does not wait.
            timeout = 0 if self.localq or any(t <= now for t, _fn in self._later) else 0.05
            try:
                ready = self.sel.select(timeout)
            except OSError:
                break
            for key, mask in ready:
                obj = key.data
                if obj is None:
                    try:
                        self._wake_r.recv(4096)
                    except BlockingIOError:
                        pass
                    while self._calls:
                        self._calls.popleft()()
                elif obj == "listener":
                    self._accept()
                else:
                    self._io(obj, mask)
            self._timers()

    def later(self, delay, fn):
        """Runs fn in the host's thread after delay seconds."""
        self._later.append((time.monotonic() + delay, fn))

    def _timers(self):
        now = time.monotonic()
        due = [t for t in self._later if t[0] <= now]
        if due:
            self._later = [t for t in self._later if t[0] > now]
            for _t, fn in due:
                fn()
        for p in list(self.peers):
            if p.deadline and now >= p.deadline and not p.dead:
                if p is self.uplink and not p.link.up:
                    self._retry_uplink(p)
                else:
                    self._close(p, why="no handshake and first frame in %.0f s" % OWN_DEADLINE_S)
        self._run_local()

    # -- sockets --

    def _listen(self, addr):
        fam = socket.AF_INET6 if ":" in addr[0] else socket.AF_INET
        s = socket.socket(fam, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(addr)
        s.listen(1024)
        s.setblocking(False)
        self.listener = s
        self.listen_addr = s.getsockname()[:2]
        self.sel.register(s, selectors.EVENT_READ, "listener")

    def _accept(self):
        while True:
            try:
                s, _ = self.listener.accept()
            except (BlockingIOError, OSError):
                return
            s.setblocking(False)
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            p = Peer(s, Link(self.key, False), "in")
            p.deadline = time.monotonic() + OWN_DEADLINE_S
            self.peers.append(p)
            self.sel.register(s, selectors.EVENT_READ, p)

    def _connect(self, addr, role, purpose, host=None):
        fam = socket.AF_INET6 if ":" in addr[0] else socket.AF_INET
        s = socket.socket(fam, socket.SOCK_STREAM)
        s.setblocking(False)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        p = Peer(s, Link(self.key, True, purpose), role, host)
        p.addr = addr
        p.connecting = True
        p.deadline = time.monotonic() + OWN_DEADLINE_S
        self.peers.append(p)
        self.sel.register(s, selectors.EVENT_WRITE | selectors.EVENT_READ, p)
        err = s.connect_ex(addr)
        if err and err != errno.EINPROGRESS:
            self._connect_failed(p, err)
        return p

    def _connect_uplink(self):
        self.uplink = self._connect(self.root, "control-out", CONTROL)

    def _retry_uplink(self, p):
        # The root may not listen yet: as a kernel host does, try again soon.
        self._close(p, quiet=True)
        if p is self.uplink and not self._stop:
            self.uplink = None
            self.later(0.05, self._connect_uplink)

    def _connect_failed(self, p, err):
        if p is self.uplink:
            self._retry_uplink(p)
        else:
            self._close(p, why="connect: %s" % os.strerror(err))

    def _io(self, p, mask):
        if p.dead:
            return
        if p.connecting:
            err = p.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            if err:
                self._connect_failed(p, err)
                return
            if not mask & selectors.EVENT_WRITE:
                return
            p.connecting = False
            p.deadline = time.monotonic() + OWN_DEADLINE_S
            p.link.hello()
            self._flush(p)
            return
        if mask & selectors.EVENT_WRITE:
            self._flush(p)
        if mask & selectors.EVENT_READ:
            try:
                data = p.sock.recv(262144)
            except (BlockingIOError, InterruptedError):
                return
            except OSError as e:
                self._close(p, why=str(e))
                return
            if not data:
                self._close(p, why="closed by the other end")
                return
            self.stats["rx_bytes"] += len(data)
            from_root = self._from_root(p)
            if from_root:
                self.stats["root_bytes"] += len(data)
            was_up = p.link.up
            try:
                frames = p.link.feed(data)
            except ProtocolError as e:
                self._close(p, why=str(e))
                return
            if p.role == "in" and p.link.phase == "proof" and p.link.out and \
                    "challenge" in self.hold:
                # A responder that never answers: the CHALLENGE stays here.
                self.held["challenge"].append(lambda p=p, b=bytes(p.link.out): self._write(p, b))
                p.link.out.clear()
            if not was_up and p.link.up:
                self._link_up(p)
            self._flush(p)
            for typ, payload in frames:
                if p.dead:
                    break
                self.stats["rx_" + NAMES.get(typ, str(typ))] += 1
                self.stats["root_frames"] += from_root
                try:
                    self._frame(p, typ, payload)
                except ProtocolError as e:
                    self.event("violation", role=p.role, host=p.host, why=str(e))
                    self._close(p, why=str(e))
                    break
            self._run_local()

    def _from_root(self, p):
        """Whether p's bytes are the root host's: its control link, or a
        data link the root's host (index 0) opened. stats' root_bytes and
        root_frames count them (handshake and all), for the root's cost."""
        return p.role == "control-out" or (p.role == "data-in" and p.host == 0)

    def _write(self, p, data):
        if p.dead:
            return
        p.wbuf += data
        self._flush(p)

    def _flush(self, p):
        if p.link.out:
            p.wbuf += p.link.out
            p.link.out.clear()
        if p.dead or p.connecting or not p.wbuf:
            return
        try:
            n = p.sock.send(p.wbuf)
        except (BlockingIOError, InterruptedError):
            n = 0
        except OSError as e:
            self._close(p, why="send: %s" % e)
            return
        self.stats["tx_bytes"] += n
        del p.wbuf[:n]
        want = selectors.EVENT_READ | (selectors.EVENT_WRITE if p.wbuf else 0)
        self.sel.modify(p.sock, want, p)

    def _close(self, p, why=None, quiet=False):
        if p.dead:
            return
        p.dead = True
        try:
            self.sel.unregister(p.sock)
        except (KeyError, ValueError, OSError):
            pass
        p.sock.close()
        if p in self.peers:
            self.peers.remove(p)
        if quiet:
            return
        if p is self.uplink:
            self.event("uplink_closed", why=why, refused=p.link.phase == "refused")
            return
        if p.role == "data-out" and self.out.get(p.host) is p:
            del self.out[p.host]
        if p.role.endswith("-out") or p.first is not None:
            self.event("link_closed", role=p.role, host=p.host, why=why)
        else:
            self.event("refused", role=p.role, why=why)
        if p.joined is not None:
            self._root_host_gone(p, why)

    def send_frame(self, p, typ, payload, tag=None):
        """Queues an authenticated frame on a peer (before its handshake
        finishes, it waits); a tag given is sent in place of the right one."""
        if not p.link.up:
            p.queue.append((typ, payload, tag))
            return
        p.link.out += p.link.frame(typ, payload, tag=tag)
        self.stats["tx_" + NAMES.get(typ, str(typ))] += 1
        self._flush(p)

    def _link_up(self, p):
        p.deadline = None if p.role.endswith("-out") else p.deadline
        if p.role == "in":
            p.role = "control-in" if p.link.purpose == CONTROL else "data-in"
            return
        if p.role == "control-out":
            self._uplink_up(p)
        elif p.role == "data-out":
            p.link.send(LINK, struct.pack(">QI", self.token, self.index))
        for typ, payload, tag in p.queue:
            p.link.out += p.link.frame(typ, payload, tag=tag)
        p.queue = []

    # -- the control link, host side --

    def _uplink_up(self, p):
        if self.listener is None:
            ip = self.listen_host or p.sock.getsockname()[0]
            self._listen((ip, 0))
        if "join" in self.hold:
            self.held["join"].append(lambda: self._send_join())
            return
        self._send_join()

    def _send_join(self):
        ip, port = self.listen_addr
        jn = struct.pack(">I", self.n) + self.id + addr_wire(ip, port) + struct.pack(">I", 0)
        self.send_frame(self.uplink, JOIN, jn)
        self.event("joined", listen="%s:%d" % (ip, port))
        self._send_registrations()

    def _settings(self, r):
        return self.settings.get(r, self.settings.get("default", CHECK_SIGS)) \
            if isinstance(self.settings, dict) else self.settings

    def _send_registrations(self):
        if not self.uplink or not self.uplink.link.up or "join" in self.hold:
            return
        held = self.hold.get("register")
        todo = [r for r in self.ranks if r not in self.registered and
                not (held is True or (held and r in held))]
        for i in range(0, len(todo), self.batch):
            part = todo[i:i + self.batch]
            body = struct.pack(">I", len(part)) + b"".join(
                struct.pack(">III", r, r, self._settings(r)) for r in part)
            self.send_frame(self.uplink, REGISTER, body)
            self.registered.update(part)
        if todo:
            self.event("registered", ranks=len(self.registered))

    def _frame(self, p, typ, payload):
        if p.role == "control-out":
            if typ == TABLE:
                self._table_part(payload, p)
            elif typ == DIGEST:
                self._take_digest(payload)
            elif typ == REJECT:
                err, reason, rank = struct.unpack_from(">III", payload)
                self.event("reject", err=err, reason=reason, rank=rank,
                           text=text_of(payload, 12))
            elif typ == DEATH:
                self._on_death(payload)
            elif typ == DEPART:
                self._on_depart(payload, p)
            else:
                raise ProtocolError("the root sent %s" % NAMES.get(typ, typ))
            return
        if p.first is None:
            if typ == JOIN and p.role == "control-in" and self.is_root:
                p.first = JOIN
                p.deadline = None
                self._root_join(p, payload)
                return
            if typ == LINK and p.role == "data-in":
                token, idx = struct.unpack(">QI", payload)
                if self.token is not None and (token != self.token or idx >= len(self.hosts)):
                    raise ProtocolError("its LINK names no other host of this world")
                p.first, p.host, p.link_token = LINK, idx, token
                p.deadline = None
                return
            raise ProtocolError("%s before JOIN or LINK" % NAMES.get(typ, typ))
        if p.role == "control-in":
            if typ == REGISTER:
                self._root_register(p, payload)
            elif typ == DEATH:
                self._on_death(payload, p)
            elif typ == DEPART:
                self._on_depart(payload, p)
            else:
                raise ProtocolError("%s on a control link" % NAMES.get(typ, typ))
            return
        if typ == TABLE:
            self._table_part(payload, p)
        elif typ == DEATH:
            self._on_death(payload, p)
        elif typ == DEPART:
            self._on_depart(payload, p)
        elif typ in (SIG, UID, RING, BARRIER):
            if self.rank_host is None:
                # A message may overtake the table (the root's data link is
                # opened after the table went on its control link, but the
                # two race): kept until the table comes.
                if len(self.pre_table) >= 4096:
                    raise ProtocolError("more than 4096 messages before the table")
                self.pre_table.append((p, typ, payload))
                return
            src, dst, tag, attempt = ROUTE.unpack_from(payload)
            if self.strict and (self.rank_host[src] != p.host or dst not in self.rankset):
                raise ProtocolError("%s for a rank that is not its to send for" % NAMES[typ])
            self._deliver(typ, src, dst, tag, attempt, payload[ROUTE.size:])
        else:
            raise ProtocolError("%s on a data link" % NAMES.get(typ, typ))

    def _on_death(self, payload, p=None):
        err, reason, rank, host = struct.unpack_from(">IIII", payload)
        text = text_of(payload, 16)
        self.event("death", err=err, reason=reason, rank=None if rank == NO_RANK else rank,
                   host=None if host == NO_RANK else host, text=text, barriers=None)
        self.failed = text
        if self.is_root:
            # As a kernel root: to every host that joined, the sender too.
            for j in self.joined:
                if not j["peer"].dead:
                    self.send_frame(j["peer"], DEATH, payload)

    def _on_depart(self, payload, p):
        """Ranks that left: an event "death" a run (rank, the first, and
        count; with barriers and the host the block is about); what came
        from the parent in the host
        tree (or, at the root, from any host) goes on to the children, as
        a kernel host passes it on."""
        blocks = depart_blocks(payload)
        parent = None if self.index is None else tree_parent(self.index)
        if p.role == "control-in":
            sender = p.joined.get("index")
        else:
            sender = p.host if p.role == "data-in" else None
        # A child of the root hears what goes down on its control link only,
        # as a kernel host does (the root's data link brings its own news).
        from_parent = p.role == "control-in" or (p.role == "control-out" and parent == 0) or \
            (p.role == "data-in" and p.host == parent and parent != 0)
        for host, _news, runs, _raw in blocks:
            if self.strict and host != sender and (
                    p.role == "control-in" or (p.role == "data-in" and not from_parent)):
                raise ProtocolError("it passed on departures of host %d" % host)
            for first, count, barriers, comms in runs:
                self.event("death", err=103, reason=0, rank=first, count=count, host=host,
                           text=LEFT % (first, first), barriers=barriers, formed=comms)
        if from_parent:
            self._pass_down([b for b in blocks if b[0] != self.index])

    def _pass_down(self, blocks):
        """Sends blocks (depart_blocks()' tuples) to this host's children in
        the host tree, each but those about itself, in as few DEPARTs as fit."""
        if self.index is None or not blocks:
            return
        for c in tree_children(self.index, len(self.hosts)):
            link = self._child_link(c)
            if link is None:
                continue
            frame = b""
            for host, _news, _runs, raw in blocks:
                if host == c:
                    continue
                if len(frame) + len(raw) > DEPART_MAX:
                    self.send_frame(link, DEPART, frame)
                    frame = b""
                frame += raw
            if frame:
                self.send_frame(link, DEPART, frame)

    def _child_link(self, c):
        if self.is_root:
            for j in self.joined:
                if j.get("index") == c and not j["peer"].dead:
                    return j["peer"]
            return None
        p = self.out.get(c)
        return p if p is not None and not p.dead else None

    def tell_death(self, rank, text, err=103, barriers=None, formed=(), news=None):
        """Says that the world failed because of rank (or, with rank None,
        this host): DEATH to the root, or at the root to every host. With
        barriers, says instead that rank departed its formed world having
        completed that many (and formed those comms): a DEPART to the root
        (at the root, down the tree), naming the hosts told on a data link
        too (news; by default those this host has a data link to, as a
        kernel host names), which it does not tell here."""
        if barriers is not None:
            if news is None:
                news = sorted(h for h, p in self.out.items() if not p.dead)
            block = depart_block(self.index, [(rank, 1, barriers, formed)], news)
            if self.is_root:
                self._pass_down(depart_blocks(block))
            elif self.uplink:
                self.send_frame(self.uplink, DEPART, block)
            return
        body = death_payload(err, NO_RANK if rank is None else rank,
                             NO_RANK if self.index is None else self.index, text)
        if self.is_root:
            for j in self.joined:
                if not j["peer"].dead:
                    self.send_frame(j["peer"], DEATH, body)
        elif self.uplink:
            self.send_frame(self.uplink, DEATH, body)

    def depart(self, ranks=None, barriers=0):
        """Its ranks (by default all) leave the formed world, as a kernel
        host's do at a job's end: one block, a run of each stretch of
        consecutive ranks, to the root (at the root, down the tree) and on
        every data link it sends on. It keeps passing others' news on."""
        runs = []
        for r in sorted(self.ranks if ranks is None else ranks):
            if runs and runs[-1][0] + runs[-1][1] == r:
                runs[-1][1] += 1
            else:
                runs.append([r, 1])
        out = [p for _, p in sorted(self.out.items()) if not p.dead]
        block = depart_block(self.index, [(a, c, barriers, ()) for a, c in runs],
                             sorted(h for h, p in self.out.items() if not p.dead))
        if self.is_root:
            self._pass_down(depart_blocks(block))
        elif self.uplink:
            self.send_frame(self.uplink, DEPART, block)
        for p in out:
            self.send_frame(p, DEPART, block)
        self.event("departed", ranks=sum(c for _, c in runs))

    def tell_departure_on_data_link(self, host, rank, text, barriers, formed=(), err=103):
        """Says on the data link to host (opened if need be) that rank
        departed having formed those comms, as a kernel host does behind
        its rank's last messages."""
        link = self.data_link(host)
        self.send_frame(link, DEPART, depart_block(self.index, [(rank, 1, barriers, formed)],
                                                   [host]))

    # -- the root host --

    def _register_local(self):
        for r in self.ranks:
            self.owner[r] = None
        self.registered = set(self.ranks)
        self._root_check_complete()

    def _root_join(self, p, payload):
        ws, hid, laddr, flags = struct.unpack(">I16s20sI", payload)
        j = {"peer": p, "id": hid, "listen": addr_unwire(laddr), "ws": ws, "ranks": []}
        p.joined = j
        self.joined.append(j)
        self.event("host_joined", listen="%s:%d" % j["listen"])

    def _root_register(self, p, payload):
        (n,) = struct.unpack_from(">I", payload)
        j = p.joined
        for i in range(n):
            gid, _nec, settings = struct.unpack_from(">III", payload, 4 + 12 * i)
            why = None
            if j["ws"] != self.n:
                why = "rank %d asked for a world of %d ranks, the root's has %d" % (
                    gid, j["ws"], self.n)
            elif self.token is not None:
                why = "rank %d arrived after the world formed" % gid
            elif gid >= self.n:
                why = "rank %d is not below the world size %d" % (gid, self.n)
            elif gid in self.owner:
                why = "a second rank with global device id %d" % gid
            if why:
                self.send_frame(p, REJECT, reject_payload(22, gid, why))
                continue
            if settings != self._settings(0):
                text = "rank %d's settings 0x%x differ from rank 0's 0x%x" % (
                    gid, settings, self._settings(0))
                self.event("death", rank=gid, host=None, text=text)
                self.tell_death(gid, text, 22)
                return
            self.owner[gid] = j
            j["ranks"].append(gid)
        self.event("host_registered", ranks=len(self.owner))
        self._root_check_complete()

    def _root_host_gone(self, p, why):
        j = p.joined
        if j["ranks"] and self.failed is None:
            text = "the host at %s:%d (ranks %d-%d) went away: %s" % (
                j["listen"] + (min(j["ranks"]), max(j["ranks"]), why))
            self.failed = text
            self.event("death", rank=None, host=None, text=text)
            self.tell_death(None, text)

    def _root_check_complete(self):
        if len(self.owner) < self.n or self.token is not None:
            return
        hosts = sorted((j for j in self.joined if j["ranks"]), key=lambda j: min(j["ranks"]))
        ip, port = self.listen_addr
        body = bytearray(struct.pack(">QII", int.from_bytes(os.urandom(8), "big"), self.n,
                                     len(hosts) + 1))
        body += self.id + addr_wire(ip, port)
        for i, j in enumerate(hosts, 1):
            j["index"] = i
            body += j["id"] + addr_wire(*j["listen"])
        idx = {id(j): j["index"] for j in hosts}
        body += struct.pack(">%dI" % self.n, *[0 if self.owner[r] is None else
                                              idx[id(self.owner[r])] for r in range(self.n)])
        # The digest first, to the hosts that hear the table from a parent.
        digest = hashlib.sha256(bytes(body)).digest()
        for j in hosts:
            if tree_parent(j["index"]) != 0:
                self.send_frame(j["peer"], DIGEST, digest)
        self._take_table(bytes(body), None)

    # -- the table --

    def parse_table(self, payload):
        token, n_ranks, n_hosts = struct.unpack_from(">QII", payload)
        if n_ranks != self.n or len(payload) != 16 + 36 * n_hosts + 4 * n_ranks:
            raise ProtocolError("its table is not one of a world of %d ranks" % self.n)
        hosts = []
        for i in range(n_hosts):
            off = 16 + 36 * i
            hid = payload[off:off + 16]
            hosts.append((hid, addr_unwire(payload[off + 16:off + 36])))
        rank_host = struct.unpack_from(">%dI" % n_ranks, payload, 16 + 36 * n_hosts)
        return token, hosts, list(rank_host)

    def _take_digest(self, payload):
        if self.digest is not None or self.rank_host is not None:
            raise ProtocolError("the root sent the table's digest twice, or after the table")
        self.digest = payload
        if self.held_table:
            (payload, p), self.held_table = self.held_table, None
            if p.dead:
                return
            try:
                self._take_table(payload, p)
            except ProtocolError as e:
                self.event("violation", role=p.role, host=p.host, why=str(e))
                self._close(p, why=str(e))

    def _table_part(self, payload, p):
        """A TABLE frame: the table, or a part of it; the first part has
        the head, which says how long the whole is."""
        if self.table_in is None:
            if self.rank_host is not None or self.held_table:
                raise ProtocolError("it sent the table twice")
            if len(payload) < 16:
                raise ProtocolError("its table is not one of a world of %d ranks" % self.n)
            _token, n_ranks, n_hosts = struct.unpack_from(">QII", payload)
            total = 16 + 36 * n_hosts + 4 * n_ranks
            if n_ranks != self.n or not 0 < n_hosts <= n_ranks or len(payload) > total:
                raise ProtocolError("its table is not one of a world of %d ranks" % self.n)
            self.table_in = (bytearray(payload), total, p)
        else:
            buf, total, q = self.table_in
            if q is not p:
                raise ProtocolError("it sent part of a table another host began")
            if len(buf) + len(payload) > total:
                raise ProtocolError("its table is longer than the one its head announced")
            buf += payload
        buf, total, q = self.table_in
        if len(buf) == total:
            self.table_in = None
            self._take_table(bytes(buf), p)

    def _take_table(self, payload, p):
        if self.rank_host is not None or self.held_table:
            raise ProtocolError("it sent the table twice")
        if p is not None and p.role == "data-in":
            # From a parent: only the root's, which its digest tells.
            if self.digest is None:
                self.held_table = (payload, p)
                return
            if hashlib.sha256(payload).digest() != self.digest:
                raise ProtocolError("its table is not the one the root made")
        token, hosts, rank_host = self.parse_table(payload)
        mine = [i for i, h in enumerate(hosts) if h[0] == self.id]
        if len(mine) != 1 or any(rank_host[r] != mine[0] for r in self.ranks):
            raise ProtocolError("its table of the world does not add up")
        if p is not None and p.role == "data-in" and (
                getattr(p, "link_token", None) != token or p.host != tree_parent(mine[0])):
            raise ProtocolError("it is not this host's parent in the host tree")
        self.token, self.hosts, self.rank_host, self.index = token, hosts, rank_host, mine[0]
        self.table_bytes = payload
        self.event("table", index=self.index, hosts=len(hosts), token=token)
        for c in tree_children(self.index, len(hosts)):
            self._send_table(c, payload)
        # What came before the table first: a message for a rank whose node
        # has not started waits for it (early).
        early, self.pre_table = self.pre_table, []
        for q, typ, payload in early:
            if q.dead:
                continue
            try:
                self._frame(q, typ, payload)
            except ProtocolError as e:
                self.event("violation", role=q.role, host=q.host, why=str(e))
                self._close(q, why=str(e))
        self._start_worlds(list(self.ranks))

    def _start_worlds(self, ranks, i=0):
        """Starts the world nodes of ranks from the i-th, for TURN_S of a
        turn of the loop: a host of thousands of ranks (in Python, under
        emulation) so still answers a kernel's handshake within its 2 s
        while it starts them."""
        end = time.monotonic() + TURN_S
        while i < len(ranks):
            self._start_world(ranks[i])
            i += 1
            if time.monotonic() >= end:
                break
        self._run_local()
        if i < len(ranks):
            self.later(0, lambda: self._start_worlds(ranks, i))

    def _send_table(self, c, payload):
        held = self.hold.get("table")
        if held is True or (held and c in held):
            self.held["table"].append(lambda: self._send_table_now(c, payload))
            return
        self._send_table_now(c, payload)

    def _send_table_now(self, c, payload):
        peers = [j["peer"] for j in self.joined if j.get("index") == c] if self.is_root \
            else [self.data_link(c)]
        for peer in peers:
            for off in range(0, len(payload), TABLE_PART_MAX):
                self.send_frame(peer, TABLE, payload[off:off + TABLE_PART_MAX])

    def data_link(self, host):
        """Our data link to a host of the table, opened on first use."""
        p = self.out.get(host)
        if p is None or p.dead:
            p = self._connect(self.hosts[host][1], "data-out", DATA, host)
            self.out[host] = p
        return p

    # -- rank messages --

    def _start_world(self, r):
        if self.world_key is None:
            self.world_key = list(range(self.n))
            self.world_tag = node_tag(0, self.world_key, True)
        node = Node(r, self.world_key, r, 0, self.world_tag, ZERO_SIG,
                    bool(self._settings(r) & CHECK_SIGS), True)
        self.world[r] = node
        self.start_node(node)

    def make_node(self, rank, key, brank, stream, sig):
        """A replica group's node for one of this host's ranks (start it
        with start_node()); key is bootstrap_participants."""
        return Node(rank, list(key), brank, stream, node_tag(stream, key), sig,
                    bool(self._settings(rank) & CHECK_SIGS), False)

    def start_node(self, node):
        self.nodes[(node.rank, node.tag)] = node
        if node.brank == 0:
            root_host = self.hosts[self.rank_host[node.key[0]]][1]
            magic = int.from_bytes(os.urandom(8), "big") or 1
            node.uid = (struct.pack(">Q", magic) + addr_wire(*root_host) +
                        struct.pack(">IIIIQ", node.rank_n, node.key[0], node.stream, node.tag,
                                    self.token)).ljust(UID_LEN, b"\0")
        for m in self.early.pop((node.rank, node.tag), []):
            self._deliver(*m)
        self._advance(node)

    def _held(self, kind, src):
        h = self.hold.get(kind)
        return h is True or (h is not None and src in h)

    def _msg(self, kind, typ, node, dst_b, body, attempt=None):
        src, dst = node.rank, node.key[dst_b]
        att = node.attempt if attempt is None else attempt
        if self._held(kind, src):
            self.held[kind].append(lambda: self.send_msg(typ, src, dst, node.tag, att, body))
            return
        self.send_msg(typ, src, dst, node.tag, att, body)

    def send_msg(self, typ, src, dst, tag, attempt, body):
        """Sends a rank message as rank src would: to a rank of this host in
        memory, to another host's on our data link to it."""
        if dst in self.rankset:
            self.localq.append((typ, src, dst, tag, attempt, body))
            return
        self.send_frame(self.data_link(self.rank_host[dst]), typ,
                        route(src, dst, tag, attempt) + body)

    def _run_local(self):
        """Hands over messages between this host's ranks, for TURN_S at
        most: the loop runs the rest in its next turns, looking at the
        sockets in between (see _start_worlds())."""
        q = self.localq
        end = time.monotonic() + TURN_S
        while q:
            self._deliver(*q.popleft())
            if time.monotonic() >= end:
                return

    def _deliver(self, typ, src, dst, tag, attempt, body):
        node = self.nodes.get((dst, tag))
        if node is None or (typ == BARRIER and node.state != READY):
            self.early[(dst, tag)].append((typ, src, dst, tag, attempt, body))
            self.stats["early"] += 1
            return
        if typ == BARRIER:
            self._barrier_msg(node, src, attempt, body)
            return
        if attempt > node.attempt:
            self.early[(dst, tag)].append((typ, src, dst, tag, attempt, body))
            return
        if attempt < node.attempt or node.state == FAILED:
            return
        n, b = node.rank_n, node.brank
        if typ == SIG:
            kids = tree_children(b, n)
            i = [k for k, c in enumerate(kids) if node.key[c] == src]
            if not node.check or not i or node.got & (1 << i[0]):
                raise ProtocolError("rank %d sent SIG it does not owe" % src)
            node.got |= 1 << i[0]
            if body[:16] != node.sig or body[16] != 1:
                node.match = False
        elif typ == UID:
            c = cube_parent(b, n)
            if c is None or node.key[c] != src or node.uid_got:
                raise ProtocolError("rank %d sent UID it does not owe" % src)
            node.uid_got = True
            magic, = struct.unpack_from(">Q", body)
            rank_n, _g, stream, key_hash, token = struct.unpack_from(">IIIIQ", body, 28)
            if not magic or rank_n != n or stream != node.stream or key_hash != node.tag or \
                    token != self.token:
                self._fail(node, "the unique id from rank %d is not this group's" % src)
                return
            node.uid = body[:UID_LEN]
            node.valid = body[UID_LEN] == 1
        elif typ == RING:
            c = (b + n - 1) % n
            if n < 2 or node.key[c] != src or node.ring_got:
                raise ProtocolError("rank %d sent RING it does not owe" % src)
            node.ring_got = True
            node.ring_uid = body[:UID_LEN]
        self._advance(node)

    def _fail(self, node, why):
        node.state = FAILED
        node.why = why
        self.event("node_failed", rank=node.rank, why=why)

    def _advance(self, node):
        n, b = node.rank_n, node.brank
        while True:
            if node.state == VALIDATING:
                if node.check:
                    kids = tree_children(b, n)
                    if node.got != (1 << len(kids)) - 1:
                        return
                    if b and not node.sig_sent:
                        node.sig_sent = True
                        self._msg("sig", SIG, node, tree_parent(b),
                                  node.sig + bytes([1 if node.match else 0]))
                node.state = BROADCASTING
            elif node.state == BROADCASTING:
                if b:
                    if not node.uid_got:
                        return
                else:
                    node.valid = node.match
                msg = node.uid + bytes([1 if node.valid else 0])
                for c in cube_children(b, n):
                    self._msg("uid", UID, node, c, msg)
                if not node.valid:
                    self._fail(node, "mismatched collectives between the peers")
                    return
                node.state = CONNECTING
            elif node.state == CONNECTING:
                if n > 1:
                    if not node.ring_sent:
                        node.ring_sent = True
                        self._msg("ring", RING, node, (b + 1) % n, node.uid)
                    if not node.ring_got:
                        return
                    if node.ring_uid != node.uid:
                        self._fail(node, "its ring predecessor (global device %d) holds another "
                                   "unique id" % node.key[(b + n - 1) % n])
                        return
                node.state = READY
                self._node_ready(node)
                return
            else:
                return

    def _node_ready(self, node):
        if not node.world:
            self.event("node_ready", rank=node.rank, tag=node.tag)
        else:
            self.n_ready += 1
            if self.n_ready == len(self.ranks):
                self.formed = True
                self.event("formed")
        for m in self.early.pop((node.rank, node.tag), []):
            self._deliver(*m)

    # -- the dissemination barrier --

    def start_barrier(self, rank, tag=None):
        """Enters rank's next group barrier (of its world node by default);
        a fake rank also enters one when a message of it arrives."""
        node = self.world[rank] if tag is None else self.nodes[(rank, tag)]
        if not node.b_active:
            self._barrier_epoch(node, node.epoch + 1)
        self._run_local()

    def _barrier_epoch(self, node, epoch):
        node.epoch, node.round, node.b_sent, node.b_got, node.b_active = epoch, 0, 0, 0, True
        self._barrier_advance(node)

    def _barrier_msg(self, node, src, epoch, body):
        (k,) = struct.unpack(">I", body)
        if epoch < node.epoch or (epoch == node.epoch and not node.b_active):
            return
        if epoch > node.epoch:
            self._barrier_epoch(node, epoch)
        if node.key[dissem_from(node.brank, node.rank_n, k)] != src or node.b_got & (1 << k):
            raise ProtocolError("rank %d sent a barrier round it does not owe" % src)
        node.b_got |= 1 << k
        self._barrier_advance(node)

    def _barrier_advance(self, node):
        rounds = ceil_log2(node.rank_n)
        while node.b_active:
            k = node.round
            if k == rounds:
                node.b_active = False
                self.event("barrier_done", rank=node.rank, epoch=node.epoch)
                return
            if not node.b_sent & (1 << k):
                node.b_sent |= 1 << k
                self._msg("barrier", BARRIER, node, dissem_to(node.brank, node.rank_n, k),
                          struct.pack(">I", k), attempt=node.epoch)
            if not node.b_got & (1 << k):
                return
            node.round += 1


# --- a relay that sees the frames ---
# --- a fake host as a process ---

def parse_ranks(s):
    out = []
    for part in s.split(","):
        a, _, b = part.partition("-")
        out.extend(range(int(a), int(b or a) + 1))
    return out


def main(argv):
    """encd_peer --root HOST:PORT --world-size N --ranks 1-7,9 [--secret-file F |
    --insecure] [--no-check-sigs] [--sig-all-groups] [--hold KIND]... [--seconds S]:
    a fake host as a process, one JSON line per event on stdout (for tests that
    kill it)."""
    import argparse
    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("--root", required=True)
    ap.add_argument("--world-size", type=int, required=True)
    ap.add_argument("--ranks", required=True)
    ap.add_argument("--secret-file")
    ap.add_argument("--insecure", action="store_true")
    ap.add_argument("--no-check-sigs", action="store_true")
    ap.add_argument("--sig-all-groups", action="store_true")
    ap.add_argument("--hold", action="append", default=[], choices=HOLD_KINDS)
    ap.add_argument("--seconds", type=float, default=60)
    a = ap.parse_args(argv)
    if a.secret_file:
        with open(a.secret_file, "rb") as f:
            secret = f.read().rstrip(b"\n")
        key = world_key(secret)
    elif a.insecure:
        key = world_key(insecure=True)
    else:
        ap.error("a process without /dev/encd has no loopback key: give --secret-file or "
                 "--insecure")
    settings = (0 if a.no_check_sigs else CHECK_SIGS) | (SIG_ALL_GROUPS if a.sig_all_groups
                                                         else 0)

    def show(e):
        print(json.dumps(e), flush=True)
    h = FakeHost(a.root, a.world_size, parse_ranks(a.ranks), key, settings,
                 hold={k: True for k in a.hold}, on_event=show)
    h.run(a.seconds)
    return 0
