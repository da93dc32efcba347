#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Holds tools/syzkaller/encd.txt to uapi/linux/encd*.h and kmod/netlink-gen.c.

  check.py [--write]

- Every struct of encd.txt marked "# uapi: struct X" has the members of the
  C struct X in order (X's head flattened: size, flags, msg_uptr, msg_len,
  head_reason), at the same offsets and with the same sizes, and X's size;
  "# uapi: struct X, then more" holds the members of X as a prefix.
- Every ioctl of the header is described once, with the struct that the
  header's kernel-doc names for it.
- Every flags set marked "# all: PREFIX..." has exactly the header's
  constants that start with one of the prefixes.
- The netlink commands are those of the operations table generated from the
  spec (kmod/netlink-gen.c), each with the attributes of the operation's
  policies ("# policy: NAME..." above a union: a command's do and dump may
  have one each, with the same attributes).
- encd.txt.const holds the value of every constant encd.txt names, as the
  header gives it (on this machine's architecture, amd64); --write writes it.

The values come from compiling a small program against the header; the
layout of a syzkaller struct is computed from its field types (intN, const,
flags, len, bytesize: N bits; intptr, ptr, ptr64: 8 bytes; string and array
with a size; structs, packed or aligned by their largest member).
"""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
DESC = os.path.join(HERE, "encd.txt")
CONST = DESC + ".const"
UAPI = os.path.join(TOP, "uapi", "linux", "encd.h")
# The netlink family's enums, which encd.h includes; generated from the spec.
UAPI_NETLINK = os.path.join(TOP, "uapi", "linux", "encd_netlink.h")
NETLINK_C = os.path.join(TOP, "kmod", "netlink-gen.c")
SYSCALLS = ("openat", "ioctl", "mmap", "sendmsg")
HEAD = {"size": "head.size", "flags": "head.flags", "msg_uptr": "head.msg_uptr",
        "msg_len": "head.msg_len", "head_reason": "head.reason"}

problems = []


def problem(msg):
    problems.append(msg)


def strip_comment(line):
    return line.split("#", 1)[0].rstrip()


def split_top(s, sep=","):
    """Splits at @sep outside brackets."""
    parts, depth, cur = [], 0, ""
    for c in s:
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
        if c == sep and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += c
    if cur.strip():
        parts.append(cur.strip())
    return parts


def parse_desc(text):
    """The description's structs, unions, flags, aliases, defines and calls."""
    d = {"structs": {}, "unions": {}, "flags": {}, "aliases": {}, "defines": {},
         "calls": [], "notes": {}}
    lines = text.split("\n")
    note = None
    i = 0
    while i < len(lines):
        raw = lines[i]
        line = strip_comment(raw)
        m = re.match(r"#\s*(uapi|all|policy):\s*(.*)$", raw.strip())
        if m:
            note = (m.group(1), m.group(2).strip())
            i += 1
            continue
        if not line.strip():
            if not raw.strip().startswith("#"):
                note = None
            i += 1
            continue
        m = re.match(r"(\w+)\s*([{\[])\s*$", line)
        if m:
            name, kind = m.group(1), m.group(2)
            close = "}" if kind == "{" else "]"
            fields = []
            i += 1
            while not strip_comment(lines[i]).strip().startswith(close):
                f = strip_comment(lines[i]).split(None, 1)
                if f:
                    ftype = re.sub(r"\s*\((out|in|inout)\)\s*$", "", f[1].strip())
                    fields.append((f[0], ftype))
                i += 1
            attrs = strip_comment(lines[i]).strip()[1:].strip()
            target = d["structs"] if kind == "{" else d["unions"]
            target[name] = {"fields": fields, "attrs": attrs}
            if note:
                d["notes"][name] = note
            note = None
            i += 1
            continue
        m = re.match(r"define\s+(\w+)\s+(.*)$", line)
        if m:
            d["defines"][m.group(1)] = m.group(2)
        elif re.match(r"type\s+\w+\[", line):
            pass
        elif re.match(r"type\s+(\w+)\s+(.*)$", line):
            m = re.match(r"type\s+(\w+)\s+(.*)$", line)
            d["aliases"][m.group(1)] = m.group(2).strip()
        elif re.match(r"(\w+)\s*=\s*(.*)$", line):
            m = re.match(r"(\w+)\s*=\s*(.*)$", line)
            d["flags"][m.group(1)] = [v.strip() for v in m.group(2).split(",")]
            if note:
                d["notes"][m.group(1)] = note
        elif re.match(r"[\w$]+\(.*\)", line):
            d["calls"].append(line.strip())
        note = None
        i += 1
    return d


def parse_header(text):
    """The header's structs (member names, in order), constants and ioctl docs."""
    structs = {}
    for m in re.finditer(r"^struct (\w+) \{\n(.*?)^\};", text, re.S | re.M):
        members = []
        for line in m.group(2).split("\n"):
            line = re.sub(r"/\*.*?\*/", "", line).strip()
            mm = re.match(r"(?:struct\s+)?\w+\s+(\w+)(\[[^\]]*\])?;", line)
            if mm:
                members.append((mm.group(1), line.split()[0] == "struct" and line.split()[1]))
        structs[m.group(1)] = members
    names = set(re.findall(r"^#define (ENCD_\w+)\b", text, re.M))
    for body in re.findall(r"^enum[^{]*\{(.*?)^\};", text, re.S | re.M):
        names.update(re.findall(r"^\s*(ENCD_\w+)", body, re.M))
    ioctl_struct = {}
    for m in re.finditer(r"^ \* struct (\w+) - (ENCD_IOC_[\w, ]+)$", text, re.M):
        for ioc in re.findall(r"ENCD_IOC_\w+", m.group(2)):
            ioctl_struct[ioc] = m.group(1)
    return structs, names, ioctl_struct


def c_values(names, exprs, layout_probes):
    """Compiles a program that prints constants and the C layout probes."""
    prog = ["#include <fcntl.h>", "#include <stddef.h>", "#include <stdio.h>",
            "#include <sys/syscall.h>", "#include <linux/encd.h>", "int main(void) {"]
    for n in sorted(names):
        expr = exprs.get(n, n)
        prog.append('printf("c %s %%llu\\n", (unsigned long long)(%s));' % (n, expr))
    for key, expr in layout_probes:
        prog.append('printf("l %s %%llu\\n", (unsigned long long)(%s));' % (key, expr))
    prog.append("return 0; }")
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "v.c")
        exe = os.path.join(tmp, "v")
        with open(src, "w") as f:
            f.write("\n".join(prog) + "\n")
        cc = os.environ.get("CC", "cc")
        r = subprocess.run([cc, "-I", os.path.join(TOP, "uapi"), "-o", exe, src],
                           capture_output=True, text=True)
        if r.returncode:
            sys.exit("check.py: cannot compile the values:\n" + r.stderr)
        out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    consts, layout = {}, {}
    for line in out.split("\n"):
        if line:
            kind, key, val = line.split(" ")
            (consts if kind == "c" else layout)[key] = int(val)
    return consts, layout


def int_of(tok, consts):
    tok = tok.strip()
    if re.match(r"-?(0x[0-9a-fA-F]+|\d+)$", tok):
        return int(tok, 0)
    return consts[tok]


class Layout:
    def __init__(self, desc, consts):
        self.desc = desc
        self.consts = consts

    def type_size(self, t):
        """(size, align) of a field type; size None for a variable one."""
        t = t.strip()
        m = re.match(r"(\w+)(?:\[(.*)\])?$", t)
        base, args = m.group(1), split_top(m.group(2)) if m.group(2) else []
        if base in self.desc["aliases"]:
            return self.type_size(self.desc["aliases"][base])
        m = re.match(r"int(8|16|32|64)(be)?$", base)
        if m:
            n = int(m.group(1)) // 8
            return n, n
        if base in ("intptr", "ptr", "ptr64", "vma", "vma64"):
            return 8, 8
        if base in ("const", "flags", "len", "bytesize", "bitsize") or base.startswith("bytesize"):
            return self.type_size(args[1]) if len(args) > 1 else (8, 8)
        if base == "string":
            return (int_of(args[1], self.consts), 1) if len(args) > 1 else (None, 1)
        if base == "array":
            size, align = self.type_size(args[0])
            if len(args) < 2 or ":" in args[1]:
                return None, align
            return size * int_of(args[1], self.consts), align
        if base in self.desc["structs"]:
            return self.struct_layout(base)[1:]
        if base == "fd_encd":
            return 4, 4
        raise KeyError("unknown type " + t)

    def struct_layout(self, name):
        """([(field, offset, size)], size, align) of a struct of the description."""
        s = self.desc["structs"][name]
        packed = "packed" in s["attrs"]
        off, max_align, fields = 0, 1, []
        for fname, ftype in s["fields"]:
            size, align = self.type_size(ftype)
            align = 1 if packed else align
            off = (off + align - 1) // align * align
            fields.append((fname, off, size))
            if size is None:
                break
            off += size
            max_align = max(max_align, align)
        size = (off + max_align - 1) // max_align * max_align
        return fields, size, max_align


def c_members(structs, name):
    """The member paths of a C struct, its head flattened."""
    out = []
    for member, sub in structs[name]:
        if sub == "encd_head":
            out += ["head." + m for m, _ in structs["encd_head"]]
        else:
            out.append(member)
    return out


def check_structs(desc, hstructs, consts, layout):
    lay = Layout(desc, consts)
    for name, note in desc["notes"].items():
        if note[0] != "uapi":
            continue
        m = re.match(r"struct (\w+)(, then more)?$", note[1])
        if not m or m.group(1) not in hstructs:
            problem("%s: \"uapi: %s\" names no struct of the header" % (name, note[1]))
            continue
        cname, prefix = m.group(1), bool(m.group(2))
        members = c_members(hstructs, cname)
        fields, size, _ = lay.struct_layout(name)
        names = [HEAD.get(f, f) if "head.size" in members else f for f, _, _ in fields]
        if (names[:len(members)] if prefix else names) != members:
            problem("%s: fields %s, struct %s has %s" % (name, names, cname, members))
            continue
        for (fname, off, fsize), member in zip(fields, members):
            coff, csize = layout["%s.%s.off" % (cname, member)], layout["%s.%s.size" % (cname, member)]
            if (off, fsize) != (coff, csize):
                problem("%s.%s: offset %s size %s, struct %s has %d and %d" %
                        (name, fname, off, fsize, cname, coff, csize))
        if not prefix and size != layout[cname + ".size"]:
            problem("%s: %d bytes, struct %s has %d" % (name, size, cname, layout[cname + ".size"]))


def check_ioctls(desc, ioctl_struct, hnames):
    described = {}
    for call in desc["calls"]:
        m = re.match(r"ioctl\$(\w+)\(.*cmd const\[(\w+)\], arg ptr\[\w+, (\w+)\]\)", call)
        if m:
            if m.group(1) != m.group(2):
                problem("ioctl$%s uses cmd %s" % (m.group(1), m.group(2)))
            described[m.group(2)] = m.group(3)
    for ioc in sorted(n for n in hnames if n.startswith("ENCD_IOC_")):
        if ioc not in described:
            problem("%s: no ioctl$%s" % (ioc, ioc))
            continue
        note = desc["notes"].get(described[ioc], ("", ""))
        want = ioctl_struct.get(ioc)
        if not want or note[1] != "struct " + want:
            problem("ioctl$%s: takes %s (uapi: %s), the header's kernel-doc says struct %s" %
                    (ioc, described[ioc], note[1], want))


def check_flags(desc, hnames):
    for name, note in desc["notes"].items():
        if note[0] != "all":
            continue
        prefixes = note[1].split()
        want = {n for n in hnames if any(n.startswith(p) for p in prefixes)}
        have = set(desc["flags"].get(name, []))
        if want != have:
            problem("%s: has %s, the header's %s are %s" %
                    (name, sorted(have), " ".join(prefixes), sorted(want)))


def check_netlink(desc):
    with open(NETLINK_C) as f:
        src = f.read()
    policies = {}
    for m in re.finditer(r"static const struct nla_policy (\w+)\[[^\]]*\] = \{(.*?)\n\};", src, re.S):
        policies[m.group(1)] = set(re.findall(r"\[(ENCD_A_\w+)\]", m.group(2)))
    ops_src = re.search(r"const struct genl_split_ops \w+\[\w*\] = \{(.*?)\n\};", src, re.S).group(1)
    ops = {}
    for block in re.findall(r"\{(.*?)\}", ops_src, re.S):
        cmd = re.search(r"\.cmd\s*= (\w+)", block)
        pol = re.search(r"\.policy\s*= (\w+)", block)
        if cmd:
            ops.setdefault(cmd.group(1), set())
            if pol:
                ops[cmd.group(1)].add(pol.group(1))
    sends = {}
    for call in desc["calls"]:
        m = re.match(r"sendmsg\$(\w+)\(.*msghdr_encd\[(\w+), (\w+)\]", call)
        if m:
            if m.group(1) != m.group(2):
                problem("sendmsg$%s sends %s" % (m.group(1), m.group(2)))
            sends[m.group(2)] = m.group(3)
    if set(sends) != set(ops):
        problem("netlink commands %s, kmod/netlink-gen.c has %s" % (sorted(sends), sorted(ops)))
    for cmd, union in sends.items():
        want = ops.get(cmd, set())
        if union == "void" or not want:
            if (union == "void") != (not want):
                problem("sendmsg$%s: %s, kmod/netlink-gen.c's policies are %s" %
                        (cmd, union, sorted(want)))
            continue
        note = desc["notes"].get(union, ("", ""))
        if note[0] != "policy" or set(note[1].split()) != want:
            problem("%s: marked %s, the operation's policies are %s" % (union, note, sorted(want)))
            continue
        attrs = set()
        for _, ftype in desc["unions"][union]["fields"]:
            m = re.match(r"(?:nlattr|nlnest)\[(\w+),", ftype)
            if m:
                attrs.add(m.group(1))
        for pol in sorted(want):
            if attrs != policies.get(pol):
                problem("%s: attributes %s, %s has %s" % (union, sorted(attrs), pol,
                                                           sorted(policies.get(pol, ()))))


def main():
    write = sys.argv[1:] == ["--write"]
    if sys.argv[1:] and not write:
        sys.exit("usage: check.py [--write]")
    with open(DESC) as f:
        text = f.read()
    with open(UAPI) as f:
        hstructs, hnames, ioctl_struct = parse_header(f.read())
    with open(UAPI_NETLINK) as f:
        hnames |= parse_header(f.read())[1]
    desc = parse_desc(text)

    # What the description uses; a define's expression is for syz-extract to compile.
    body = "\n".join(strip_comment(line) for line in text.split("\n")
                     if not line.startswith("define "))
    body = re.sub(r'"[^"]*"', "", body)
    names = set(re.findall(r"\b(ENCD_\w+|AT_FDCWD)\b", body)) | set(desc["defines"])
    for n in sorted(names - hnames - set(desc["defines"]) - {"AT_FDCWD"}):
        problem("%s is not in the header" % n)
    names &= hnames | set(desc["defines"]) | {"AT_FDCWD"}
    names |= {"__NR_" + s for s in SYSCALLS}

    probes = []
    for cname in hstructs:
        probes.append((cname + ".size", "sizeof(struct %s)" % cname))
        for member in c_members(hstructs, cname):
            probes.append(("%s.%s.off" % (cname, member), "offsetof(struct %s, %s)" % (cname, member)))
            probes.append(("%s.%s.size" % (cname, member),
                           "sizeof(((struct %s *)0)->%s)" % (cname, member)))
    consts, layout = c_values(names, desc["defines"], probes)

    check_structs(desc, hstructs, consts, layout)
    check_ioctls(desc, ioctl_struct, hnames)
    check_flags(desc, hnames)
    check_netlink(desc)

    generated = ["# Code generated by tools/syzkaller/check.py --write from uapi/linux/encd.h. DO NOT EDIT.",
                 "arches = amd64"]
    generated += ["%s = %d" % (n, consts[n]) for n in sorted(consts)]
    generated = "\n".join(generated) + "\n"
    if write:
        with open(CONST, "w") as f:
            f.write(generated)
    else:
        try:
            with open(CONST) as f:
                if f.read() != generated:
                    problem("encd.txt.const differs from the header's values: run %s --write" %
                            os.path.relpath(__file__, TOP))
        except FileNotFoundError:
            problem("no encd.txt.const: run %s --write" % os.path.relpath(__file__, TOP))

    for p in problems:
        print("check-syzkaller: " + p, file=sys.stderr)
    n_structs = sum(1 for n in desc["notes"].values() if n[0] == "uapi")
    print("check-syzkaller: %s: %d structs, %d ioctls, %d netlink commands, %d constants, %d problem(s)" %
          (os.path.relpath(DESC, TOP), n_structs,
           sum(c.startswith("ioctl$") for c in desc["calls"]),
           sum(c.startswith("sendmsg$") for c in desc["calls"]), len(consts), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
