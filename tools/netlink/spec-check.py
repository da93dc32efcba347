#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks what generating the "encd" netlink code from its YNL spec,
Documentation/netlink/specs/encd.yaml, does not already guarantee.

  spec-check.py [--spec YAML] [--header encd.h] [--kernel]

The uapi enums and defines, the request policies and the operations table
are generated from the spec (tools/netlink/ynl-gen.sh; `make check` fails
when they are not what it gives). Two things are still written by hand:

Always: the constants the spec takes from linux/encd.h (its definitions with
a header) have the spec's values there. The values are read by compiling
the header, not by parsing it.

With --kernel (in the test VM, encd loaded): the family that registers the
generated table (by hand in kmod/netlink.c, which before 6.2 also merges a
command's do and dump entries into one) is the spec's. Read back through
nlctrl with the kernel's YNL (linux-source-6.12's tools/net/ynl and its
nlctrl spec), it has the spec's version, multicast groups, operations
(do/dump, admin-perm) and, per operation, exactly the request attributes of
the spec with their types and checks.

Prints one line per problem and exits 1 if there was any, 0 otherwise.
"""

import argparse
import os
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


def spec_consts(spec):
    """{name: value} of the spec's constants."""
    return {d['name']: d['value'] for d in spec.get('definitions', []) if d['type'] == 'const'}


def header_values(header, names):
    """Compiles a program that prints each of @names' value from @header."""
    lines = ['#include <stdio.h>', '#include "%s"' % header, 'int main(void)', '{']
    for name in names:
        lines.append('\tprintf("%%s %%lld\\n", "%s", (long long)(%s));' % (name, name))
    lines += ['\treturn 0;', '}']
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, 'values.c')
        exe = os.path.join(tmp, 'values')
        with open(src, 'w') as f:
            f.write('\n'.join(lines) + '\n')
        cc = subprocess.run([os.environ.get('CC', 'cc'), '-std=gnu11', '-I',
                             os.path.join(os.path.dirname(header), '..'), '-o', exe, src],
                            capture_output=True, text=True)
        if cc.returncode:
            for line in cc.stderr.splitlines():
                if 'error:' in line:
                    problem('header: ' + line.split('error: ')[-1])
            return {}
        out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    return dict(line.split(' ', 1) for line in out.splitlines())


def check_header(spec, header):
    """The definitions the spec says linux/encd.h has."""
    want = {c_name(spec['name'], '-', d['name']): d['value']
            for d in spec.get('definitions', [])
            if d['type'] == 'const' and d.get('header') == 'linux/encd.h'}
    values = header_values(header, sorted(want))
    for name, value in sorted(want.items()):
        if name in values and values[name] != str(value):
            problem('header: %s is %s, the spec says %s' % (name, values[name], value))


# --- the running kernel, through nlctrl ---

# The kernel's policy type of each spec type (ynl-gen-c.py's choice).
NL_TYPES = {'flag': 'flag', 'u8': 'u8', 'u16': 'u16', 'u32': 'u32', 'u64': 'u64', 's8': 's8',
            's16': 's16', 's32': 's32', 's64': 's64', 'binary': 'binary',
            'string': 'nul-string', 'nest': 'nested'}
INT_RANGE = {'u8': (0, 2**8 - 1), 'u16': (0, 2**16 - 1), 'u32': (0, 2**32 - 1),
             'u64': (0, 2**64 - 1), 's8': (-2**7, 2**7 - 1), 's16': (-2**15, 2**15 - 1),
             's32': (-2**31, 2**31 - 1), 's64': (-2**63, 2**63 - 1)}


def expected_policy(spec, op, kind):
    """{attr number: (policy type, min, max or length)} of an op's @kind requests."""
    aset = next(a for a in spec['attribute-sets'] if a['name'] == op['attribute-set'])
    numbers, value = {}, 1
    for a in aset['attributes']:
        value = a.get('value', value)
        numbers[a['name']] = (value, a)
        value += 1
    consts = spec_consts(spec)
    want = {}
    for name in op[kind].get('request', {}).get('attributes', []):
        number, a = numbers[name]
        checks = a.get('checks', {})
        if a['type'] in INT_RANGE:
            lo, hi = INT_RANGE[a['type']]
            lo, hi = checks.get('min', lo), checks.get('max', hi)
            want[number] = (NL_TYPES[a['type']], consts.get(lo, lo), consts.get(hi, hi))
        else:
            length = checks.get('exact-len', checks.get('max-len'))
            want[number] = (NL_TYPES[a['type']], None, consts.get(length, length))
    return want


def kernel_policy(entries):
    got = {}
    for p in entries:
        if 'min-value-u' in p:
            got[p['attr-id']] = (p['type'], p['min-value-u'], p['max-value-u'])
        elif 'min-value-s' in p:
            got[p['attr-id']] = (p['type'], p['min-value-s'], p['max-value-s'])
        else:
            got[p['attr-id']] = (p['type'], None, p.get('max-length'))
    return got


def ynl_nlctrl():
    """YNL's nlctrl family, from linux-source-6.12."""
    ksrc = subprocess.run([os.path.join(TOP, 'tools', 'kernel-source.sh'), '6.12'],
                          capture_output=True, text=True, check=True).stdout.strip()
    sys.path.insert(0, os.path.join(ksrc, 'tools', 'net', 'ynl'))
    from lib import YnlFamily  # noqa: E402 (found only now)
    return YnlFamily(os.path.join(ksrc, 'Documentation', 'netlink', 'specs', 'nlctrl.yaml'))


def check_kernel(spec):
    ctrl = ynl_nlctrl()
    fam = ctrl.do('getfamily', {'family-name': spec['name']})
    if fam['version'] != spec.get('version', 1):
        problem('kernel: version %d, the spec says %d' % (fam['version'], spec.get('version', 1)))
    groups = sorted(g['name'] for nest in fam.get('mcast-groups', []) for g in nest.values())
    want_groups = sorted(g['name'] for g in spec['mcast-groups']['list'])
    if groups != want_groups:
        problem('kernel: multicast groups %s, the spec says %s' % (groups, want_groups))
    kops = {o['id']: o['flags'] for nest in fam.get('ops', []) for o in nest.values()}

    policies, op_policy = {}, {}
    for r in ctrl.dump('getpolicy', {'family-name': spec['name']}):
        if 'policy' in r:
            policies.setdefault(r['policy']['policy-id'], []).append(r['policy'])
        if 'op-policy' in r:
            op_policy[r['op-policy']['op-id']] = r['op-policy']

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
        for kind in ('do', 'dump'):
            if ('cmd-cap-' + kind in flags) != (kind in op):
                problem('kernel: %s %s is %s' % (op['name'], kind, 'cmd-cap-' + kind in flags))
        admin = 'admin-perm' in op.get('flags', [])
        if bool(flags & {'admin-perm', 'uns-admin-perm'}) != admin:
            problem('kernel: %s admin permission is %s, the spec says %s'
                    % (op['name'], 'admin-perm' in flags, admin))
        for kind in ('do', 'dump'):
            if kind not in op:
                continue
            index = op_policy.get(cmd, {}).get(kind)
            got = kernel_policy(policies.get(index, []))
            want = expected_policy(spec, op, kind)
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
