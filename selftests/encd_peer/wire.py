# SPDX-License-Identifier: GPL-2.0
"""The wire protocol as kmod/wire.h gives it: its constants, frame headers,
addresses, and the payloads of REJECT and DEATH.
"""
import socket
import struct

MAGIC, VERSION = 0x454E4332, 3
HDR = struct.Struct(">IBBHI")
TAG_LEN, NONCE_LEN, PROOF_LEN, HOST_ID_LEN = 16, 32, 32, 16
UID_LEN, TEXT_MAX, REGISTER_MAX = 128, 200, 256
(HELLO, CHALLENGE, PROOF, JOIN, REGISTER, REJECT, TABLE, DEATH, LINK, SIG, UID, RING,
 BARRIER) = range(1, 14)
NAMES = {v: k for k, v in dict(HELLO=HELLO, CHALLENGE=CHALLENGE, PROOF=PROOF, JOIN=JOIN,
                               REGISTER=REGISTER, REJECT=REJECT, TABLE=TABLE, DEATH=DEATH,
                               LINK=LINK, SIG=SIG, UID=UID, RING=RING, BARRIER=BARRIER).items()}
CONTROL, DATA = 1, 2
NO_RANK = 0xFFFFFFFF
CHECK_SIGS, SIG_ALL_GROUPS = 0x1, 0x2
ROUTE = struct.Struct(">IIII")
HANDSHAKE_S = 2.0


ZERO_SIG = bytes(16)


class ProtocolError(Exception):
    """What the other end did wrong; the connection is of no more use."""


# --- frames ---

def header(typ, length, magic=MAGIC, version=VERSION, flags=0):
    return HDR.pack(magic, version, typ, flags, length)


def raw_frame(typ, payload):
    return header(typ, len(payload)) + payload



def addr_wire(host, port):
    """An address as frames carry it: u16 family, u16 port, 16 address bytes."""
    if ":" in host:
        return struct.pack(">HH", 10, port) + socket.inet_pton(socket.AF_INET6, host)
    return struct.pack(">HH", 2, port) + socket.inet_aton(host) + bytes(12)


def addr_unwire(b):
    fam, port = struct.unpack_from(">HH", b)
    if fam == 10:
        return socket.inet_ntop(socket.AF_INET6, b[4:20]), port
    if fam == 2:
        return socket.inet_ntoa(b[4:8]), port
    raise ProtocolError("address family %d" % fam)


def parse_hostport(s):
    host, _, port = s.rpartition(":")
    host = host.strip("[]")
    return ("127.0.0.1" if host == "localhost" else host), int(port)


def route(src, dst, tag, attempt):
    return ROUTE.pack(src, dst, tag, attempt)


def death_payload(err, rank, host, text, barriers=None, formed=(), news=()):
    """DEATH: a failure, or with barriers (the world barriers the rank
    completed) a rank's departure from its formed world, whose trailer
    lists the replica groups' comms it had formed (tags, or (tag, barriers
    completed) pairs) and the hosts its host tells on a data link too."""
    t = text.encode()[:TEXT_MAX]
    body = struct.pack(">IIIIH", err, rank, host, NO_RANK if barriers is None else barriers,
                       len(t)) + t
    if barriers is None:
        return body
    comms = [c if isinstance(c, tuple) else (c, 0) for c in formed]
    body += struct.pack(">II", len(comms), len(news))
    body += b"".join(struct.pack(">II", tag, n) for tag, n in comms)
    return body + b"".join(struct.pack(">I", h) for h in news)


def reject_payload(err, rank, text):
    t = text.encode()[:TEXT_MAX]
    return struct.pack(">IIH", err, rank, len(t)) + t


def text_of(payload, off):
    (n,) = struct.unpack_from(">H", payload, off)
    return payload[off + 2:off + 2 + n].decode("ascii", "replace")
