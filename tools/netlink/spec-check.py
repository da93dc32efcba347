#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks the hand-written parts of the "encd" generic netlink family against
its YNL spec, Documentation/netlink/specs/encd.yaml.

  spec-check.py [--spec YAML] [--header encd.h] [--kernel]

Always: every constant the spec defines (family name and version, multicast
group, enums, attribute and command numbers with their __MAX / MAX) is in
uapi/linux/encd.h with the value YNL's genetlink-c rules give it, and the
header's enums under the spec's prefixes have nothing the spec lacks. The
values are read by compiling the header, not by parsing it.

With --kernel (in the test VM, encd loaded): the running family, read back
through nlctrl (CTRL_CMD_GETFAMILY and CTRL_CMD_GETPOLICY), has the spec's
version, multicast groups, operations (do/dump, admin-perm) and, per
operation, exactly the request attributes of the spec with their types and
checks.

Prints one line per problem and exits 1 if there was any, 0 otherwise.
"""

import argparse
import os
import socket
import struct
import subprocess
import sys
import tempfile

import yaml

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))

problems = []


def problem(msg):
    problems.append(msg)
    print('spec-check: ' + msg)


def c_name(*parts):
    return ''.join(parts).upper().replace('-', '_')


def spec_constants(spec):
    """{C name: value} of everything the spec puts in the uapi header."""
    want = {}
    want[c_name(spec['c-family-name'])] = spec['name']
    want[c_name(spec['c-version-name'])] = spec.get('version', 1)
    consts = {}
    for d in spec.get('definitions', []):
        if d['type'] == 'const':
            consts[d['name']] = d['value']
            want[c_name('encd-', d['name'])] = d['value']
        elif d['type'] == 'enum':
            prefix = d.get('name-prefix', spec['name'] + '-' + d['name'] + '-')
            value = d.get('value-start', 0)
            for e in d['entries']:
                name = e if isinstance(e, str) else e['name']
                want[c_name(prefix, name)] = value
                value += 1
    for aset in spec['attribute-sets']:
        prefix = aset['name-prefix']
        value = 1
        for a in aset['attributes']:
            value = a.get('value', value)
            want[c_name(prefix, a['name'])] = value
            value += 1
        want[c_name('__', prefix, 'max')] = value
        want[c_name(prefix, 'max')] = value - 1
    ops = spec['operations']
    value = 1
    for op in ops['list']:
        value = op.get('value', value)
        want[c_name(ops['name-prefix'], op['name'])] = value
        value += 1
    want[c_name('__', ops['name-prefix'], 'max')] = value
    want[c_name(ops['name-prefix'], 'max')] = value - 1
    for g in spec['mcast-groups']['list']:
        want[c_name(g['c-define-name'])] = g['name']
    return want, consts


def header_values(header, want):
    """Compiles a program that prints each wanted name's value from @header."""
    lines = ['#include <stdio.h>', '#include "%s"' % header, 'int main(void)', '{']
    for name, value in sorted(want.items()):
        if isinstance(value, str):
            lines.append('\tprintf("%%s %%s\\n", "%s", %s);' % (name, name))
        else:
            lines.append('\tprintf("%%s %%lld\\n", "%s", (long long)(%s));' % (name, name))
    lines += ['\treturn 0;', '}']
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, 'values.c')
        exe = os.path.join(tmp, 'values')
        with open(src, 'w') as f:
            f.write('\n'.join(lines) + '\n')
        cc = subprocess.run([os.environ.get('CC', 'cc'), '-std=gnu11', '-o', exe, src],
                            capture_output=True, text=True)
        if cc.returncode:
            for line in cc.stderr.splitlines():
                if 'error:' in line:
                    problem('header: ' + line.split('error: ')[-1])
            return None
        out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    values = {}
    for line in out.splitlines():
        name, _, value = line.partition(' ')
        values[name] = value
    return values


def header_enum_members(header):
    """Every enumerator of every enum in @header."""
    text = open(header).read()
    members = []
    pos = 0
    while True:
        start = text.find('enum', pos)
        if start < 0:
            return members
        brace = text.find('{', start)
        semi = text.find(';', start)
        if brace < 0 or semi < brace:
            pos = start + 4
            continue
        end = text.find('}', brace)
        for item in text[brace + 1:end].split(','):
            item = item.split('/*')[0].strip()
            if item:
                members.append(item.split('=')[0].strip())
        pos = end


def check_header(spec, header):
    want, _ = spec_constants(spec)
    values = header_values(header, want)
    if values is None:
        return
    for name, value in sorted(want.items()):
        got = values.get(name)
        if got != str(value):
            problem('header: %s is %s, the spec says %s' % (name, got, value))
    prefixes = [c_name(a['name-prefix']) for a in spec['attribute-sets']]
    prefixes.append(c_name(spec['operations']['name-prefix']))
    for d in spec['definitions']:
        if d['type'] == 'enum':
            prefixes.append(c_name(d['name-prefix']))
    for member in header_enum_members(header):
        bare = member.lstrip('_')
        if any(bare.startswith(p) for p in prefixes) and member not in want:
            problem('header: %s is not in the spec' % member)


# --- the running kernel, through nlctrl ---

GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_CMD_GETPOLICY = 10
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
CTRL_ATTR_VERSION = 3
CTRL_ATTR_OPS = 6
CTRL_ATTR_MCAST_GROUPS = 7
CTRL_ATTR_POLICY = 8
CTRL_ATTR_OP_POLICY = 9
CTRL_ATTR_OP_ID = 1
CTRL_ATTR_OP_FLAGS = 2
CTRL_ATTR_MCAST_GRP_NAME = 1
CTRL_ATTR_POLICY_DO = 1
CTRL_ATTR_POLICY_DUMP = 2
GENL_ADMIN_PERM = 0x01
GENL_CMD_CAP_DO = 0x02
GENL_CMD_CAP_DUMP = 0x04
GENL_UNS_ADMIN_PERM = 0x10
NLM_F_REQUEST = 1
NLM_F_ACK = 4
NLM_F_DUMP = 0x300
NLMSG_ERROR = 2
NLMSG_DONE = 3
NL_POLICY_TYPE_ATTR_TYPE = 1
NL_POLICY_TYPE_ATTR_MIN_VALUE_S = 2
NL_POLICY_TYPE_ATTR_MAX_VALUE_S = 3
NL_POLICY_TYPE_ATTR_MIN_VALUE_U = 4
NL_POLICY_TYPE_ATTR_MAX_VALUE_U = 5
NL_POLICY_TYPE_ATTR_MIN_LENGTH = 6
NL_POLICY_TYPE_ATTR_MAX_LENGTH = 7
NL_ATTR_TYPES = {'flag': 1, 'u8': 2, 'u16': 3, 'u32': 4, 'u64': 5, 's8': 6, 's16': 7,
                 's32': 8, 's64': 9, 'binary': 10, 'string': 12, 'nest': 13}
INT_RANGE = {'u8': (0, 2**8 - 1), 'u16': (0, 2**16 - 1), 'u32': (0, 2**32 - 1),
             'u64': (0, 2**64 - 1), 's8': (-2**7, 2**7 - 1), 's16': (-2**15, 2**15 - 1),
             's32': (-2**31, 2**31 - 1), 's64': (-2**63, 2**63 - 1)}


def attrs(data):
    """[(type, payload)] of a run of netlink attributes."""
    out = []
    while len(data) >= 4:
        length, atype = struct.unpack_from('=HH', data)
        if length < 4 or length > len(data):
            break
        out.append((atype & 0x3fff, data[4:length]))
        data = data[(length + 3) & ~3:]
    return out


def genl_request(sock, cmd, payload, flags):
    seq = genl_request.seq = getattr(genl_request, 'seq', 0) + 1
    msg = struct.pack('=BBH', cmd, 1, 0) + payload
    sock.send(struct.pack('=IHHII', 16 + len(msg), GENL_ID_CTRL, NLM_F_REQUEST | flags, seq, 0)
              + msg)
    replies = []
    while True:
        data = sock.recv(65536)
        while len(data) >= 16:
            length, mtype, _, mseq, _ = struct.unpack_from('=IHHII', data)
            body = data[16:length]
            data = data[(length + 3) & ~3:]
            if mseq != seq:
                continue
            if mtype == NLMSG_ERROR:
                err = struct.unpack_from('=i', body)[0]
                if err:
                    raise OSError(-err, os.strerror(-err))
                return replies
            if mtype == NLMSG_DONE:
                return replies
            replies.append(dict(attrs(body[4:])))


def name_attr(name):
    data = name.encode() + b'\0'
    return struct.pack('=HH', 4 + len(data), CTRL_ATTR_FAMILY_NAME) + data + \
        b'\0' * (-len(data) % 4)


def u32(data):
    return struct.unpack('=I', data)[0]


def read_int(data):
    return struct.unpack('=q' if len(data) == 8 else '=i', data)[0]


def read_uint(data):
    return struct.unpack('=Q' if len(data) == 8 else '=I', data)[0]


def expected_policy(spec, op):
    """{attr number: (netlink type, min, max or length)} of an op's requests."""
    aset = next(a for a in spec['attribute-sets'] if a['name'] == op['attribute-set'])
    numbers, value = {}, 1
    for a in aset['attributes']:
        value = a.get('value', value)
        numbers[a['name']] = (value, a)
        value += 1
    _, consts = spec_constants(spec)
    want = {}
    for kind in ('do', 'dump'):
        for name in op.get(kind, {}).get('request', {}).get('attributes', []):
            number, a = numbers[name]
            checks = a.get('checks', {})
            if a['type'] in INT_RANGE:
                lo, hi = INT_RANGE[a['type']]
                want[number] = (a['type'], checks.get('min', lo), checks.get('max', hi))
            else:
                length = checks.get('exact-len')
                want[number] = (a['type'], None, consts.get(length, length))
    return want


def kernel_policy(policies, index):
    got = {}
    for number, nest in policies.get(index, {}).items():
        p = dict(attrs(nest))
        ntype = u32(p[NL_POLICY_TYPE_ATTR_TYPE])
        name = next((k for k, v in NL_ATTR_TYPES.items() if v == ntype), str(ntype))
        if NL_POLICY_TYPE_ATTR_MIN_VALUE_U in p:
            got[number] = (name, read_uint(p[NL_POLICY_TYPE_ATTR_MIN_VALUE_U]),
                           read_uint(p[NL_POLICY_TYPE_ATTR_MAX_VALUE_U]))
        elif NL_POLICY_TYPE_ATTR_MIN_VALUE_S in p:
            got[number] = (name, read_int(p[NL_POLICY_TYPE_ATTR_MIN_VALUE_S]),
                           read_int(p[NL_POLICY_TYPE_ATTR_MAX_VALUE_S]))
        else:
            got[number] = (name, None, read_uint(p[NL_POLICY_TYPE_ATTR_MAX_LENGTH])
                           if NL_POLICY_TYPE_ATTR_MAX_LENGTH in p else None)
    return got


def check_kernel(spec):
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 16)
    sock.bind((0, 0))
    fam = genl_request(sock, CTRL_CMD_GETFAMILY, name_attr(spec['name']), NLM_F_ACK)[0]
    if u32(fam[CTRL_ATTR_VERSION]) != spec.get('version', 1):
        problem('kernel: version %d, the spec says %d' % (u32(fam[CTRL_ATTR_VERSION]),
                                                          spec.get('version', 1)))
    groups = sorted(dict(attrs(g))[CTRL_ATTR_MCAST_GRP_NAME].rstrip(b'\0').decode()
                    for _, g in attrs(fam.get(CTRL_ATTR_MCAST_GROUPS, b'')))
    want_groups = sorted(g['name'] for g in spec['mcast-groups']['list'])
    if groups != want_groups:
        problem('kernel: multicast groups %s, the spec says %s' % (groups, want_groups))

    kops = {}
    for _, nest in attrs(fam.get(CTRL_ATTR_OPS, b'')):
        o = dict(attrs(nest))
        kops[u32(o[CTRL_ATTR_OP_ID])] = u32(o.get(CTRL_ATTR_OP_FLAGS, b'\0\0\0\0'))

    reply = genl_request(sock, CTRL_CMD_GETPOLICY, name_attr(spec['name']), NLM_F_DUMP)
    policies, op_policy = {}, {}
    for r in reply:
        if CTRL_ATTR_POLICY in r:
            for index, nest in attrs(r[CTRL_ATTR_POLICY]):
                policies.setdefault(index, {})
                for number, attr in attrs(nest):
                    policies[index][number] = attr
        if CTRL_ATTR_OP_POLICY in r:
            for cmd, nest in attrs(r[CTRL_ATTR_OP_POLICY]):
                op_policy[cmd] = {k: u32(v) for k, v in attrs(nest)}

    value = 1
    seen = set()
    for op in spec['operations']['list']:
        value = op.get('value', value)
        cmd, value = value, value + 1
        if 'do' not in op and 'dump' not in op:
            if cmd in kops:
                problem('kernel: %s is a notification in the spec, an op in the kernel'
                        % op['name'])
            continue
        seen.add(cmd)
        flags = kops.get(cmd)
        if flags is None:
            problem('kernel: no op %s (%d)' % (op['name'], cmd))
            continue
        if bool(flags & GENL_CMD_CAP_DO) != ('do' in op):
            problem('kernel: %s do is %s' % (op['name'], bool(flags & GENL_CMD_CAP_DO)))
        if bool(flags & GENL_CMD_CAP_DUMP) != ('dump' in op):
            problem('kernel: %s dump is %s' % (op['name'], bool(flags & GENL_CMD_CAP_DUMP)))
        admin = 'admin-perm' in op.get('flags', [])
        if bool(flags & (GENL_ADMIN_PERM | GENL_UNS_ADMIN_PERM)) != admin:
            problem('kernel: %s admin permission is %s, the spec says %s'
                    % (op['name'], bool(flags & GENL_ADMIN_PERM), admin))
        want = expected_policy(spec, op)
        for kind, key in (('do', CTRL_ATTR_POLICY_DO), ('dump', CTRL_ATTR_POLICY_DUMP)):
            if kind not in op:
                continue
            got = kernel_policy(policies, op_policy.get(cmd, {}).get(key, -1))
            if got != want:
                problem('kernel: %s %s policy is %s, the spec says %s'
                        % (op['name'], kind, got, want))
    for cmd in sorted(set(kops) - seen):
        problem('kernel: op %d is not in the spec' % cmd)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--spec', default=os.path.join(TOP, 'Documentation/netlink/specs/encd.yaml'))
    ap.add_argument('--header', default=os.path.join(TOP, 'uapi/linux/encd.h'))
    ap.add_argument('--kernel', action='store_true',
                    help='also check the running module through nlctrl')
    args = ap.parse_args()
    with open(args.spec) as f:
        spec = yaml.safe_load(f)
    check_header(spec, os.path.abspath(args.header))
    if args.kernel:
        check_kernel(spec)
    if not problems:
        print('spec-check: the header%s follow%s %s' % (
            ' and the kernel' if args.kernel else '', '' if args.kernel else 's',
            os.path.relpath(args.spec, TOP)))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
