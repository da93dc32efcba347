# SPDX-License-Identifier: GPL-2.0
"""One connection: the keys (HMAC-SHA256), a frame's tag, the handshake and
the framing of a Link (no I/O), a blocking Conn, and the Peer record of a
FakeHost's socket."""
import collections
import hashlib
import hmac
import os
import socket
import struct
import time

from .wire import (CHALLENGE, CONTROL, HDR, HELLO, MAGIC, NAMES, NONCE_LEN, PROOF, WELCOME,
                   PROOF_LEN, TAG_LEN, VERSION, ProtocolError, addr_wire, header,
                   parse_hostport, raw_frame)

# --- keys ---

def mac(key, *parts):
    h = hmac.new(key, digestmod=hashlib.sha256)
    for p in parts:
        h.update(p)
    return h.digest()


def world_key(secret=None, insecure=False):
    """The world key K of a world secret, or the one of worlds the
    administrator let form without one. The loopback key is the module's and
    cannot be had: a process without /dev/encd holds none."""
    if insecure:
        return mac(bytes(32), b"encd-v2 insecure")
    if isinstance(secret, str):
        secret = secret.encode()
    return mac(secret, b"encd-v2 world secret")


def bind_key(key, root):
    """K bound to its world (kmod/auth.c): HMAC(K, "encd-v3 world" ||
    addr(root)), root as (host, port) or "host:port"."""
    if isinstance(root, str):
        root = parse_hostport(root)
    return mac(key, b"encd-v3 world", addr_wire(*root))


def tag_of(key, seq, frame):
    return mac(key, struct.pack(">Q", seq), frame)[:TAG_LEN]


# --- one connection, without I/O ---

class Link:
    """The protocol state of one connection: feed() it what arrived, take
    what to send from .out. Frames sent and received are kept (.sent and
    .received, whole, as bytes) for replays."""

    def __init__(self, key, initiator, purpose=CONTROL, check_tags=True, verify=True):
        self.key, self.initiator, self.purpose = key, initiator, purpose
        self.check_tags = check_tags
        # An initiator that does not check the responder's proof goes on
        # with its own: what a stranger guessing the key would send.
        self.verify = verify
        self.phase = "new" if initiator else "hello"
        self.nonce_i = self.nonce_r = None
        self.tx_key = self.rx_key = None
        self.tx_seq = self.rx_seq = 0
        self.buf = bytearray()
        self.out = bytearray()
        self.sent, self.received = [], []

    @property
    def up(self):
        return self.phase == "up"

    def hello(self, nonce=None):
        self.nonce_i = nonce or os.urandom(NONCE_LEN)
        self._raw(HELLO, struct.pack(">I", self.purpose) + self.nonce_i)
        self.phase = "challenge"

    def _raw(self, typ, payload):
        f = raw_frame(typ, payload)
        self.sent.append(f)
        self.out += f

    def _keys(self):
        ni, nr = self.nonce_i, self.nonce_r
        i2r = mac(self.key, b"encd-v2 key i2r", ni, nr)
        r2i = mac(self.key, b"encd-v2 key r2i", ni, nr)
        self.tx_key, self.rx_key = (i2r, r2i) if self.initiator else (r2i, i2r)
        # The responder's first tagged frame says it took the connection;
        # the initiator sends nothing more until it has it.
        if self.initiator:
            self.phase = "welcome"
        else:
            self.phase = "up"
            self.send(WELCOME, b"")

    def proof(self, initiator):
        label = b"encd-v2 initiator" if initiator else b"encd-v2 responder"
        return mac(self.key, label, struct.pack(">I", self.purpose), self.nonce_i, self.nonce_r)

    def frame(self, typ, payload, seq=None, key=None, tag=None, length=None):
        """A tagged frame, as this link would send it next (tx_seq advances
        unless seq is given); tag, key and length override for forgeries."""
        hdr = header(typ, len(payload) if length is None else length)
        if tag is None:
            tag = tag_of(key or self.tx_key, self.tx_seq if seq is None else seq, hdr + payload)
        if seq is None:
            self.tx_seq += 1
        f = hdr + payload + tag
        self.sent.append(f)
        return f

    def send(self, typ, payload):
        self.out += self.frame(typ, payload)

    def feed(self, data):
        """What arrived; returns the authenticated frames it completes as
        (type, payload). Raises ProtocolError on anything else."""
        self.buf += data
        frames = []
        while len(self.buf) >= HDR.size:
            magic, version, typ, flags, length = HDR.unpack_from(self.buf)
            if magic != MAGIC or version != VERSION or flags:
                raise ProtocolError("a frame header that is not encd's")
            tagged = self.phase in ("up", "welcome")
            need = HDR.size + length + (TAG_LEN if tagged else 0)
            if length > (1 << 20):
                raise ProtocolError("a frame of %d bytes" % length)
            if len(self.buf) < need:
                break
            f = bytes(self.buf[:need])
            del self.buf[:need]
            self.received.append(f)
            payload = f[HDR.size:HDR.size + length]
            if not tagged:
                self._handshake(typ, payload)
                continue
            if self.check_tags and not hmac.compare_digest(
                    tag_of(self.rx_key, self.rx_seq, f[:HDR.size + length]), f[-TAG_LEN:]):
                raise ProtocolError("a %s frame failed authentication" % NAMES.get(typ, typ))
            self.rx_seq += 1
            if self.phase == "welcome":
                if typ != WELCOME or length:
                    raise ProtocolError("%s (%d bytes) where WELCOME was due" % (
                        NAMES.get(typ, typ), length))
                self.phase = "up"
                continue
            frames.append((typ, payload))
        return frames

    def _handshake(self, typ, payload):
        if self.phase == "hello" and typ == HELLO and len(payload) == 4 + NONCE_LEN:
            (self.purpose,) = struct.unpack_from(">I", payload)
            self.nonce_i = payload[4:]
            self.nonce_r = os.urandom(NONCE_LEN)
            self._raw(CHALLENGE, self.nonce_r + self.proof(False))
            self.phase = "proof"
        elif self.phase == "challenge" and typ == CHALLENGE and len(payload) == 2 * NONCE_LEN:
            self.nonce_r = payload[:NONCE_LEN]
            if self.verify and not hmac.compare_digest(self.proof(False), payload[NONCE_LEN:]):
                self.phase = "refused"
                raise ProtocolError("the responder does not hold the world key")
            self._raw(PROOF, self.proof(True))
            self._keys()
        elif self.phase == "proof" and typ == PROOF and len(payload) == PROOF_LEN:
            if not hmac.compare_digest(self.proof(True), payload):
                self.phase = "refused"
                raise ProtocolError("the initiator does not hold the world key")
            self._keys()
        else:
            raise ProtocolError("%s (%d bytes) in the handshake's %s phase" % (
                NAMES.get(typ, typ), len(payload), self.phase))


# --- a blocking connection ---

class Conn:
    """A blocking TCP connection speaking through a Link."""

    def __init__(self, addr, key=None, purpose=CONTROL, timeout=5.0, check_tags=True,
                 verify=True):
        if isinstance(addr, str):
            addr = parse_hostport(addr)
        self.sock = socket.create_connection(addr, timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.link = Link(key or bytes(32), True, purpose, check_tags, verify)
        self.frames = collections.deque()

    def flush(self):
        if self.link.out:
            self.sock.sendall(bytes(self.link.out))
            self.link.out.clear()

    def handshake(self):
        """Runs the initiator's side; raises ProtocolError when the responder
        does not prove the key, or OSError when it closes."""
        self.link.hello()
        self.flush()
        while not self.link.up:
            data = self.sock.recv(65536)
            if not data:
                raise ConnectionResetError("closed during the handshake")
            self.frames.extend(self.link.feed(data))
            # PROOF, answering CHALLENGE; the link is up at WELCOME.
            self.flush()
        return self

    def send(self, typ, payload):
        self.link.send(typ, payload)
        self.flush()

    def send_raw(self, data):
        self.sock.sendall(data)

    def recv(self, timeout=5.0):
        """The next authenticated frame, or None once the peer closed."""
        end = time.monotonic() + timeout
        while not self.frames:
            left = end - time.monotonic()
            if left <= 0:
                raise TimeoutError("no frame in %.1f s" % timeout)
            self.sock.settimeout(left)
            data = self.sock.recv(65536)
            if not data:
                return None
            self.frames.extend(self.link.feed(data))
        return self.frames.popleft()

    def closed_by_peer(self, timeout=5.0):
        """Seconds until the peer closed (reading and dropping what comes),
        or None if it is still open after timeout."""
        t0 = time.monotonic()
        end = t0 + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return None
            self.sock.settimeout(left)
            try:
                if not self.sock.recv(65536):
                    return time.monotonic() - t0
            except (ConnectionResetError, BrokenPipeError):
                return time.monotonic() - t0
            except socket.timeout:
                return None

    def close(self):
        self.sock.close()


# --- a host agent ---
class Peer:
    """One socket of a FakeHost, with its Link and what waits to be sent."""

    def __init__(self, sock, link, role, host=None):
        self.sock, self.link, self.role = sock, link, role
        self.host = host            # the other host's index, when known
        self.wbuf = bytearray()
        self.connecting = False
        self.dead = False
        self.first = None           # the first frame after the handshake (JOIN/LINK)
        self.joined = None          # root: the joined host record
        self.deadline = None
        self.queue = []             # frames to tag and send once the link is up
