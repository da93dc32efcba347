# SPDX-License-Identifier: GPL-2.0
"""A TCP relay in front of a host that sees the frames going through."""
import ctypes
import os
import socket
import struct
import threading
import time

from .wire import HDR, JOIN, TAG_LEN, parse_hostport

CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL(None, use_errno=True)


def socket_in_netns(netns, family=socket.AF_INET, kind=socket.SOCK_STREAM):
    """A socket of network namespace netns (as `ip netns add` named it): the
    calling thread enters it to make the socket, then comes back; the socket
    stays there."""
    here = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    there = os.open("/var/run/netns/" + netns, os.O_RDONLY)
    try:
        if _libc.setns(there, CLONE_NEWNET):
            raise OSError(ctypes.get_errno(), "setns into %s" % netns)
        try:
            return socket.socket(family, kind)
        finally:
            if _libc.setns(here, CLONE_NEWNET):
                raise OSError(ctypes.get_errno(), "setns back")
    finally:
        os.close(here)
        os.close(there)


def _recv(sock):
    """What came on sock next; b"" once it is closed or broken."""
    try:
        return sock.recv(65536)
    except OSError:
        return b""


def _splice(a, b):
    """Copies a to b until a closes, then half-closes b."""
    while True:
        data = _recv(a)
        if not data:
            break
        try:
            b.sendall(data)
        except OSError:
            break
    try:
        b.shutdown(socket.SHUT_WR)
    except OSError:
        pass


class Relay:
    """Listens on a port of its own and relays each connection to target,
    parsing the frames both ways (the handshake's are untagged, the rest
    carry a tag). hold(direction, type) decides which frames wait (until
    release()); every frame is kept in .frames as (conn, direction, type,
    bytes). direction is "up" (from the caller to target) or "down".

    With target_netns, target is in that network namespace and the relay
    listens at the same address in this one: a rank here names the true
    root and reaches it through the relay. The data links the other way
    (the root's host calling the relayed host where its JOIN says it
    listens) are spliced back from that namespace to this one."""

    def __init__(self, target, hold=None, tamper=None, listen=("127.0.0.1", 0),
                 target_netns=None):
        self.target = parse_hostport(target) if isinstance(target, str) else target
        self.target_netns = target_netns
        self.back, self.served = [], set()
        self.hold = hold or (lambda direction, typ: False)
        # tamper(conn, direction, type, frame): the frames to pass on instead.
        self.tamper = tamper or (lambda i, direction, typ, f: [f])
        self.lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.lsock.bind(listen)
        self.lsock.listen(64)
        self.addr = "%s:%d" % self.lsock.getsockname()[:2]
        self.frames = []
        self.held = []
        self.conns = []
        self.lock = threading.Lock()
        self.cond = threading.Condition(self.lock)
        self._stop = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self._stop:
            try:
                c, _ = self.lsock.accept()
            except OSError:
                return
            try:
                if self.target_netns:
                    u = socket_in_netns(self.target_netns)
                    u.settimeout(5)
                    u.connect(self.target)
                else:
                    u = socket.create_connection(self.target, timeout=5)
            except OSError:
                c.close()
                continue
            for s in (c, u):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                s.settimeout(None)
            conn = {"i": len(self.conns), "down": c, "up": u, "closed": set()}
            with self.lock:
                self.conns.append(conn)
            threading.Thread(target=self._pump, args=(conn, "up"), daemon=True).start()
            threading.Thread(target=self._pump, args=(conn, "down"), daemon=True).start()

    def _pump(self, conn, direction):
        src = conn["down"] if direction == "up" else conn["up"]
        dst = conn["up"] if direction == "up" else conn["down"]
        # Untagged frames: HELLO and PROOF upwards, CHALLENGE downwards.
        untagged = 2 if direction == "up" else 1
        buf = bytearray()
        while True:
            data = _recv(src)
            if not data:
                break
            buf += data
            while len(buf) >= HDR.size:
                _m, _v, typ, _f, length = HDR.unpack_from(buf)
                need = HDR.size + length + (0 if untagged else TAG_LEN)
                if len(buf) < need:
                    break
                f = bytes(buf[:need])
                del buf[:need]
                if untagged:
                    untagged -= 1
                if self.target_netns and direction == "up" and typ == JOIN:
                    self._serve_back(f)
                with self.cond:
                    self.frames.append((conn["i"], direction, typ, f))
                    hold = self.hold(direction, typ) or any(
                        h[0] is conn and h[1] == direction for h in self.held)
                    if hold:
                        self.held.append((conn, direction, f))
                    self.cond.notify_all()
                if not hold:
                    for g in self.tamper(conn["i"], direction, typ, f):
                        self._send(dst, g)
        with self.lock:
            conn["closed"].add(direction)
            held = [h for h in self.held if h[0] is conn and h[1] == direction]
        # What was held goes before the close, as a slow network would deliver it.
        for _c, _d, f in held:
            self._send(dst, f)
        with self.lock:
            self.held = [h for h in self.held if h not in held]
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def _serve_back(self, join):
        """Listens in the target's namespace where the JOIN says its host
        listens here, and splices each connection back to it."""
        (port,) = struct.unpack_from(">H", join, HDR.size + 4 + 16 + 2)
        if port in self.served:
            return      # a JOIN again: a replay, or a second world's host
        self.served.add(port)
        try:
            ls = socket_in_netns(self.target_netns)
            ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            ls.bind(("127.0.0.1", port))
            ls.listen(64)
        except OSError:
            return
        self.back.append(ls)

        def accept():
            while not self._stop:
                try:
                    a, _ = ls.accept()
                    b = socket.create_connection(("127.0.0.1", port), timeout=5)
                except OSError:
                    return
                for s in (a, b):
                    s.settimeout(None)
                    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                threading.Thread(target=_splice, args=(a, b), daemon=True).start()
                threading.Thread(target=_splice, args=(b, a), daemon=True).start()
        threading.Thread(target=accept, daemon=True).start()

    @staticmethod
    def _send(s, data):
        try:
            s.sendall(data)
        except OSError:
            pass

    def wait_frame(self, pred, timeout=20.0):
        end = time.monotonic() + timeout
        with self.cond:
            while True:
                for fr in self.frames:
                    if pred(fr):
                        return fr
                left = end - time.monotonic()
                if left <= 0:
                    return None
                self.cond.wait(left)

    def release(self):
        with self.lock:
            held, self.held = self.held, []
        for conn, direction, f in held:
            self._send(conn["up"] if direction == "up" else conn["down"], f)

    def inject(self, i, direction, data):
        """Sends bytes into connection i, as if they came from its other end."""
        conn = self.conns[i]
        self._send(conn["up"] if direction == "up" else conn["down"], data)

    def close(self):
        self._stop = True
        self.lsock.close()
        for ls in self.back:
            ls.close()
        for c in self.conns:
            for s in (c["up"], c["down"]):
                try:
                    s.close()
                except OSError:
                    pass
