# SPDX-License-Identifier: GPL-2.0
"""The wire protocol as kmod/wire.h gives it: its constants, frame headers,
addresses, and the payloads of REJECT, DEATH and DEPART.

check_against(path) holds these constants to a copy of kmod/wire.h (the
test programs call it at their start, `make check-peer-constants` on the
host); `python3 wire.py [PATH]` runs it from a shell.
"""
import os
import re
import socket
import struct
import sys

MAGIC, VERSION = 0x454E4332, 7
HDR = struct.Struct(">IBBHI")
TAG_LEN, NONCE_LEN, PROOF_LEN, HOST_ID_LEN = 16, 32, 32, 16
UID_LEN, TEXT_MAX, REGISTER_MAX = 128, 200, 256
# A table goes in consecutive parts of its payload, each a TABLE of at most this.
TABLE_PART_MAX = 60 << 10
# The most hosts a world (and so a table) has.
HOSTS_MAX = 65536
(HELLO, CHALLENGE, PROOF, JOIN, REGISTER, REJECT, TABLE, DEATH, LINK, SIG, UID, RING,
 BARRIER, WELCOME, DIGEST, DEPART) = range(1, 17)
NAMES = {v: k for k, v in dict(HELLO=HELLO, CHALLENGE=CHALLENGE, PROOF=PROOF, JOIN=JOIN,
                               REGISTER=REGISTER, REJECT=REJECT, TABLE=TABLE, DEATH=DEATH,
                               LINK=LINK, SIG=SIG, UID=UID, RING=RING, BARRIER=BARRIER,
                               WELCOME=WELCOME, DIGEST=DIGEST, DEPART=DEPART).items()}
# A DEPART's blocks: at most this many bytes a frame, naming at most
# NEWS_MAX hosts (or NEWS_EVERY) and COMMS_MAX comms a run.
DEPART_MAX, NEWS_MAX, NEWS_EVERY, COMMS_MAX = 60 << 10, 4096, 0xFFFFFFFF, 1024
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


def death_payload(err, rank, host, text, reason=0):
    """DEATH: the world failed, because of rank (or NO_RANK) of host.
    A reason of 0 leaves it to the errno."""
    t = text.encode()[:TEXT_MAX]
    return struct.pack(">IIIIH", err, reason, rank, host, len(t)) + t


def depart_block(host, runs, news=()):
    """One block of a DEPART: ranks of host that left their formed world.
    runs: (first, count, barriers, formed), formed the replica groups'
    comms (tags, or (tag, barriers completed) pairs); news: the hosts told
    on a data link too (NEWS_EVERY for all)."""
    news = list(news) if news != NEWS_EVERY else None
    body = struct.pack(">III", host, NEWS_EVERY if news is None else len(news), len(runs))
    body += b"".join(struct.pack(">I", h) for h in news or ())
    for first, count, barriers, formed in runs:
        comms = [c if isinstance(c, tuple) else (c, 0) for c in formed]
        body += struct.pack(">IIII", first, count, barriers, len(comms))
        body += b"".join(struct.pack(">II", tag, n) for tag, n in comms)
    return body


def depart_blocks(payload):
    """A DEPART's blocks: (host, news (None: every host), runs, bytes)."""
    out, off = [], 0
    try:
        while off < len(payload):
            start = off
            host, n_news, n_runs = struct.unpack_from(">III", payload, off)
            off += 12
            news = None
            if n_news != NEWS_EVERY:
                if n_news > NEWS_MAX:
                    raise ProtocolError("a DEPART block naming %d hosts" % n_news)
                news = list(struct.unpack_from(">%dI" % n_news, payload, off))
                off += 4 * n_news
            if not n_runs:
                raise ProtocolError("a DEPART block of no runs")
            runs = []
            for _ in range(n_runs):
                first, count, barriers, n_comms = struct.unpack_from(">IIII", payload, off)
                off += 16
                if n_comms > COMMS_MAX:
                    raise ProtocolError("a DEPART run of %d comms" % n_comms)
                comms = [struct.unpack_from(">II", payload, off + 8 * i) for i in range(n_comms)]
                off += 8 * n_comms
                runs.append((first, count, barriers, comms))
            if off > len(payload):
                raise struct.error("past the end")
            out.append((host, news, runs, payload[start:off]))
    except struct.error:
        raise ProtocolError("a DEPART whose blocks do not add up")
    return out


def reject_payload(err, rank, text, reason=0):
    t = text.encode()[:TEXT_MAX]
    return struct.pack(">IIIH", err, reason, rank, len(t)) + t


def text_of(payload, off):
    (n,) = struct.unpack_from(">H", payload, off)
    return payload[off + 2:off + 2 + n].decode("ascii", "replace")


# --- held to kmod/wire.h ---

# The layouts this peer packs and unpacks (the format strings of the modules
# that use them), each the size of the C struct, and the offsets it reads.
SIZES = {
    "encd_wire_hdr": HDR.size,
    "encd_wire_hello": 4 + NONCE_LEN,
    "encd_wire_challenge": NONCE_LEN + PROOF_LEN,
    "encd_wire_proof": PROOF_LEN,
    "encd_wire_digest": 32,
    "encd_wire_addr": len(addr_wire("0.0.0.0", 0)),
    "encd_wire_join": struct.calcsize(">I16s20sI"),
    "encd_wire_rank": struct.calcsize(">III"),
    "encd_wire_register": struct.calcsize(">I"),
    "encd_wire_reject": struct.calcsize(">IIIH"),
    "encd_wire_death": struct.calcsize(">IIIIH"),
    "encd_wire_departed_comm": struct.calcsize(">II"),
    "encd_wire_depart_block": struct.calcsize(">III"),
    "encd_wire_depart_run": struct.calcsize(">IIII"),
    "encd_wire_table_host": HOST_ID_LEN + 20,
    "encd_wire_table": struct.calcsize(">QII"),
    "encd_wire_link": struct.calcsize(">QI"),
    "encd_wire_route": ROUTE.size,
    "encd_wire_sig": len(ZERO_SIG) + 1,
    "encd_uid": UID_LEN,
}
OFFSETS = {
    ("encd_wire_reject", "reason"): 4,
    ("encd_wire_reject", "text_len"): 12,
    ("encd_wire_death", "reason"): 4,
    ("encd_wire_death", "text_len"): 16,
    ("encd_uid", "root"): 8,
    ("encd_uid", "rank_n"): 28,
    ("encd_uid", "world_token"): 44,
}


class WireMismatch(Exception):
    """This peer's idea of the protocol is not kmod/wire.h's."""


_C_TYPES = {"u8": 1, "char": 1, "__u8": 1, "__be16": 2, "__be32": 4, "__be64": 8}


def _c_value(expr, defines):
    """The value of a #define's or an enumerator's integer expression."""
    expr = re.sub(r"/\*.*?\*/", "", expr).strip()
    expr = re.sub(r"\b[A-Z_][A-Z0-9_]*\b", lambda m: str(defines[m.group(0)])
                  if m.group(0) in defines else m.group(0), expr)
    expr = re.sub(r"\b(0x[0-9a-fA-F]+|[0-9]+)[uUlL]+\b", r"\1", expr)
    if not re.fullmatch(r"[0-9a-fA-Fx()+\-*<> ]+", expr):
        return None
    return eval(expr, {"__builtins__": {}})  # digits and operators only


def parse_wire_h(path, uapi=None):
    """kmod/wire.h's constants: {name: value} of its #defines and
    enumerators (and of uapi, the header it includes, when given), its
    structs' sizes and offsets ({name: (size, {member: offset})}) and the
    enumerators of enum encd_wire_type in order."""
    defines = {}
    texts = []
    for p in ([uapi] if uapi else []) + [path]:
        with open(p) as f:
            texts.append(f.read())
    for text in texts:
        text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
        for m in re.finditer(r"^#define\s+([A-Z_][A-Z0-9_]*)[ \t]+(.+)$", text, re.M):
            v = _c_value(m.group(2), defines)
            if v is not None:
                defines[m.group(1)] = v
    text = re.sub(r"/\*.*?\*/", "", texts[-1], flags=re.S)
    order = {}
    for m in re.finditer(r"\benum\s*(\w*)\s*\{(.*?)\}", text, re.S):
        names, nxt = [], 0
        for item in m.group(2).split(","):
            item = item.strip()
            if not item:
                continue
            name, _, val = item.partition("=")
            name = name.strip()
            nxt = _c_value(val, defines) if val.strip() else nxt
            defines[name] = nxt
            names.append(name)
            nxt += 1
        if m.group(1):
            order[m.group(1)] = names
    structs = {}
    for m in re.finditer(r"\bstruct\s+(\w+)\s*\{(.*?)\}\s*__packed\s*;", text, re.S):
        off, members = 0, {}
        for decl in m.group(2).split(";"):
            d = re.fullmatch(r"\s*(struct\s+\w+|\w+)\s+(\w+)\s*(?:\[([^\]]*)\])?\s*", decl)
            if not d:
                continue
            typ, name, count = d.groups()
            if typ.startswith("struct "):
                size = structs.get(typ.split()[1], (None,))[0]
            else:
                size = _C_TYPES.get(typ)
            n = 1 if count is None else (0 if not count.strip() else
                                         _c_value(count, defines))
            if size is None or n is None:
                off = None
                break
            members[name] = off
            off += size * n
        if off is not None:
            structs[m.group(1)] = (off, members)
    return defines, structs, order


def check_against(path, uapi=None):
    """Raises WireMismatch, naming the constant, where this peer's protocol
    differs from the header at path (kmod/wire.h; uapi: the
    uapi/linux/encd.h it includes, by default the one beside it)."""
    if uapi is None:
        guess = os.path.join(os.path.dirname(os.path.abspath(path)), "..", "uapi", "linux",
                             "encd.h")
        uapi = guess if os.path.exists(guess) else None
    defines, structs, order = parse_wire_h(path, uapi)
    bad = []

    def same(cname, ours, pyname):
        if cname not in defines:
            bad.append("%s: not in %s (this peer has %s = %r)" % (cname, path, pyname, ours))
        elif defines[cname] != ours:
            bad.append("%s is %r in %s, this peer has %s = %r" % (
                cname, defines[cname], path, pyname, ours))

    same("ENCD_WIRE_MAGIC", MAGIC, "MAGIC")
    same("ENCD_WIRE_VERSION", VERSION, "VERSION")
    for cname, pyname in (("ENCD_TAG_LEN", "TAG_LEN"), ("ENCD_NONCE_LEN", "NONCE_LEN"),
                          ("ENCD_PROOF_LEN", "PROOF_LEN"), ("ENCD_HOST_ID_LEN", "HOST_ID_LEN"),
                          ("ENCD_UID_LEN", "UID_LEN"), ("ENCD_TEXT_MAX", "TEXT_MAX"),
                          ("ENCD_REGISTER_MAX", "REGISTER_MAX"),
                          ("ENCD_TABLE_PART_MAX", "TABLE_PART_MAX"),
                          ("ENCD_WORLD_HOSTS_MAX", "HOSTS_MAX"),
                          ("ENCD_WIRE_DEPART_MAX", "DEPART_MAX"),
                          ("ENCD_DEPARTURE_NEWS_MAX", "NEWS_MAX"),
                          ("ENCD_DEPARTURE_NEWS_EVERY", "NEWS_EVERY"),
                          ("ENCD_DEPARTURE_COMMS_MAX", "COMMS_MAX"),
                          ("ENCD_WIRE_NO_RANK", "NO_RANK"),
                          ("ENCD_WIRE_CHECK_SIGS", "CHECK_SIGS"),
                          ("ENCD_WIRE_SIG_ALL_GROUPS", "SIG_ALL_GROUPS"),
                          ("ENCD_LINK_CONTROL", "CONTROL"), ("ENCD_LINK_DATA", "DATA")):
        same(cname, globals()[pyname], pyname)
    same("ENCD_HANDSHAKE_MS", int(HANDSHAKE_S * 1000), "HANDSHAKE_S * 1000")
    if uapi:
        same("ENCD_SIG_LEN", len(ZERO_SIG), "len(ZERO_SIG)")
    same("ENCD_WIRE_UID_LEN", UID_LEN + 1, "UID_LEN + 1")
    same("ENCD_WIRE_RING_LEN", UID_LEN, "UID_LEN")
    same("ENCD_WIRE_BARRIER_LEN", 4, "4 (BARRIER's round)")
    # Every frame type, in the enum's order.
    types = [n for n in order.get("encd_wire_type", []) if n != "ENCD_WIRE_NTYPES"]
    ours = sorted(NAMES)
    if [n[len("ENCD_WIRE_"):] for n in types] != [NAMES[v] for v in ours]:
        bad.append("enum encd_wire_type is %s in %s, this peer has %s" % (
            ", ".join(types) or "missing", path, ", ".join(NAMES[v] for v in ours)))
    for n in types:
        short = n[len("ENCD_WIRE_"):]
        if short in NAMES.values():
            same(n, globals()[short], short)
    for name, size in SIZES.items():
        if name not in structs:
            bad.append("struct %s: no packed struct of that name in %s" % (name, path))
        elif structs[name][0] != size:
            bad.append("struct %s is %d bytes in %s, this peer packs %d" % (
                name, structs[name][0], path, size))
    for (name, member), off in OFFSETS.items():
        got = structs.get(name, (0, {}))[1].get(member)
        if got != off:
            bad.append("struct %s's %s is at %s in %s, this peer reads it at %d" % (
                name, member, got, path, off))
    if bad:
        raise WireMismatch("selftests/encd_peer does not speak %s's protocol:\n  %s" % (
            path, "\n  ".join(bad)))


def tree_wire_h():
    """kmod/wire.h of the tree this package is in, or None when it is not
    there (a copy of the selftests alone)."""
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    path = os.path.join(top, "kmod", "wire.h")
    return path if os.path.exists(path) else None


def check_tree():
    """check_against() the tree's kmod/wire.h, when it is reachable; the
    header checked, or None."""
    path = tree_wire_h()
    if path:
        check_against(path)
    return path


if __name__ == "__main__":
    try:
        if sys.argv[1:]:
            check_against(sys.argv[1])
            where = sys.argv[1]
        else:
            where = check_tree()
    except WireMismatch as e:
        print(e, file=sys.stderr)
        sys.exit(1)
    if not where:
        print("no kmod/wire.h beside selftests/encd_peer", file=sys.stderr)
        sys.exit(2)
