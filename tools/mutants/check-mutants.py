#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The mutation check (make check-mutants): every tools/mutants/NAME.patch is
one deliberate bug in the module or its schedules, and the test programs its
header names must catch it.

    check-mutants.py [--kver KVER] [NAME]...

For the unmutated tree first, then for each mutant (all of them, or the
NAMEs), in a copy of the checkout's files under build/mutants/ (the checkout
itself is never touched): apply the patch (one that no longer applies is an
error), build, and run the patch's test programs in its lane's VM
(tools/vm, `make vm-check` or `make vm-check-debug`). A mutant is killed when
at least one program fails (a failed case, a crash, a timeout, a leak, a
failed rmmod), the kernel reports a problem, or the VM does not finish. The
unmutated tree must pass every program of each lane's selection, with at
least one case that is not skipped, or a kill would mean nothing.

Prints the table (mutant, lane, programs that caught it, build and VM
seconds) and keeps it in build/mutants/table.txt, with each run's log in
build/mutants/logs/. Exits 0 only when the unmutated tree passes and every
mutant is killed.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(TOP, "build", "mutants")
LANES = ("debian", "debug")
# The debug lane's build directory, as tools/vm/vm.mk names it.
DEBUG_KVER = "debug-amd64"


class Error(Exception):
    """Something that makes the check itself fail, not a mutant."""


class Mutant:
    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)[:-len(".patch")]
        fields, key = {}, None
        with open(path) as f:
            text = f.read()
        head, sep, _ = text.partition("\ndiff --git ")
        if not sep:
            raise Error("%s: no diff in it" % path)
        for line in head.splitlines():
            m = re.match(r"([A-Z][a-z]+): *(.*)$", line)
            if m:
                key = m.group(1)
                fields[key] = m.group(2)
            elif line.startswith(" ") and key:
                fields[key] += " " + line.strip()
            elif line.strip():
                raise Error("%s: not a header line: %r" % (path, line))
        for k in ("Where", "Bug", "Lane", "Tests"):
            if not fields.get(k):
                raise Error("%s: the header has no %s:" % (path, k))
        self.where, self.bug, self.lane = fields["Where"], fields["Bug"], fields["Lane"]
        self.tests = fields["Tests"].split()
        if self.name in ("snapshot", "unmutated", "logs"):
            raise Error("%s: build/mutants/%s is the check's own" % (path, self.name))
        if self.lane not in LANES:
            raise Error("%s: Lane: %s is none of %s" % (path, self.lane, ", ".join(LANES)))


def program_names():
    """The test programs of the tree, as tools/vm/run-tests.sh names them."""
    names = set()
    for f in os.listdir(os.path.join(TOP, "selftests")):
        m = re.match(r"(.*_test)\.(c|sh)$", f)
        if m:
            names.add(m.group(1))
    return names


def snapshot(dest):
    """The checkout's files as they are now, tracked or new, without build/."""
    if os.path.exists(dest):
        shutil.rmtree(dest)
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           cwd=TOP, check=True, capture_output=True).stdout.decode().split("\0")
    for f in filter(None, files):
        src = os.path.join(TOP, f)
        if not os.path.lexists(src):
            continue  # deleted in the checkout, not yet in git
        os.makedirs(os.path.dirname(os.path.join(dest, f)), exist_ok=True)
        shutil.copy2(src, os.path.join(dest, f), follow_symlinks=False)


def copy_tree(snap, dest):
    if os.path.exists(dest):
        shutil.rmtree(dest)
    shutil.copytree(snap, dest, symlinks=True)


def apply(mutant, dest):
    # The copy lies inside the checkout: git must not take it for part of
    # the checkout's repository.
    env = dict(os.environ, GIT_CEILING_DIRECTORIES=OUT)
    p = subprocess.run(["git", "apply", "--verbose", mutant.path], cwd=dest, env=env,
                       capture_output=True, text=True)
    if p.returncode:
        raise Error("%s no longer applies to this tree:\n%s" % (mutant.path, p.stderr.strip()))


def make_env():
    """The caller's make variables stay out: each make here is given its own
    (KVER, TESTS); VM_MEM and the like still come from the environment."""
    env = dict(os.environ)
    for k in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES"):
        env.pop(k, None)
    return env


def run(cmd, log, cwd=None):
    with open(log, "a") as f:
        f.write("$ %s\n" % " ".join(cmd))
        f.flush()
        return subprocess.run(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT,
                              env=make_env()).returncode


def parse_output(path):
    """Per program of a run-tests.sh log: its failed cases and failures,
    and its counts of cases that passed and were skipped."""
    progs, cur = {}, None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\r\n")
            m = re.match(r"# ---- (\S+)$", line)
            if m:
                cur = progs.setdefault(m.group(1), {"failed": [], "ok": 0, "skip": 0})
                continue
            m = re.match(r"# FAIL: (.*)$", line)
            if m:
                # These two are said before the program's own section.
                who = re.search(r"(?:before|no selftest named) (\S+)$", m.group(1))
                prog = progs.setdefault(who.group(1), {"failed": [], "ok": 0, "skip": 0}) \
                    if who else cur
                if prog is not None:
                    prog["failed"].append(m.group(1))
                continue
            if cur is None:
                continue
            if re.match(r"not ok \d+", line):
                cur["failed"].append(line)
            elif re.match(r"ok \d+", line):
                cur["ok"] += 1
                if re.search(r"# *skip", line, re.I):
                    cur["skip"] += 1
    return progs


def run_lane(label, src, lane, tests, kver):
    """Builds the tree in src and runs tests in the lane's VM. Returns what
    happened: build_s, vm_s, progs (parse_output), kernel_problems,
    finished."""
    log = os.path.join(OUT, "logs", label + ".log")
    open(log, "w").close()
    jobs = ["-j%d" % (os.cpu_count() or 1)]
    if lane == "debian":
        bdir = os.path.join(src, "build", kver)
        build = ["make", "-C", src, "--no-print-directory"] + jobs + ["all", "KVER=" + kver]
        check = ["make", "-C", src, "--no-print-directory", "vm-check", "KVER=" + kver]
    else:
        p = subprocess.run([os.path.join(src, "tools", "vm", "debug-kernel.sh")],
                           capture_output=True, text=True, env=make_env())
        if p.returncode:
            raise Error("%s: the debug kernel is not there:\n%s" % (label, p.stderr.strip()))
        bdir = os.path.join(src, "build", DEBUG_KVER)
        # As vm-check-debug builds it: it finds this build up to date.
        build = ["make", "-C", src, "--no-print-directory"] + jobs + [
            "all", "KVER=" + DEBUG_KVER, "KDIR=" + p.stdout.strip(), "ENCD_FAULT_INJECTION=y"]
        check = ["make", "-C", src, "--no-print-directory", "vm-check-debug"]
    t = time.monotonic()
    if run(["nice", "-n", "10"] + build, log):
        raise Error("%s does not build: see %s" % (label, log))
    build_s = time.monotonic() - t
    result = os.path.join(bdir, "vm", "result")
    if os.path.exists(result):
        os.unlink(result)
    run(check + ["TESTS=" + " ".join(tests)], log)
    if not os.path.exists(result):
        raise Error("%s: the lane did not start its VM: see %s" % (label, log))
    res = {}
    with open(result) as f:
        for line in f:
            k, _, v = line.strip().partition("=")
            res[k] = v
    shutil.copy(os.path.join(bdir, "vm", "output.log"),
                os.path.join(OUT, "logs", label + ".output.log"))
    # The first report's first line, e.g. "BUG: kernel NULL pointer dereference".
    first_problem = None
    problems = os.path.join(bdir, "vm", "kernel-problems.txt")
    if os.path.exists(problems):
        with open(problems, errors="replace") as f:
            lines = [x.strip() for x in f if x.strip() and not x.startswith("--- ")]
        first_problem = lines[0] if lines else None
    return {"build_s": build_s, "vm_s": int(res.get("elapsed", 0)),
            "progs": parse_output(os.path.join(bdir, "vm", "output.log")),
            "kernel_problems": int(res.get("kernel_problems", 0)),
            "first_problem": first_problem,
            "finished": res.get("finished") == "1", "log": log}


def caught_by(r):
    """What failed in a run: programs, the kernel, the VM."""
    who = ["%s (%d)" % (p, len(v["failed"])) for p, v in sorted(r["progs"].items())
           if v["failed"]]
    if r["kernel_problems"]:
        who.append("kernel report (%d)" % r["kernel_problems"])
    if not r["finished"]:
        who.append("VM did not finish")
    return who


def main():
    ap = argparse.ArgumentParser(description="Runs the mutation check (make check-mutants).")
    ap.add_argument("--kver", required=True, help="the Debian kernel of the debian lane")
    ap.add_argument("names", nargs="*", help="mutants to run (default: all)")
    args = ap.parse_args()
    start = time.monotonic()

    paths = sorted(os.path.join(HERE, f) for f in os.listdir(HERE) if f.endswith(".patch"))
    mutants = [Mutant(p) for p in paths]
    if args.names:
        unknown = set(args.names) - {m.name for m in mutants}
        if unknown:
            raise Error("no mutant named %s in %s" % (", ".join(sorted(unknown)), HERE))
        mutants = [m for m in mutants if m.name in args.names]
    if not mutants:
        raise Error("no mutants in %s" % HERE)
    have = program_names()
    for m in mutants:
        missing = [t for t in m.tests if t not in have]
        if missing:
            raise Error("%s: no test program named %s" % (m.path, ", ".join(missing)))

    os.makedirs(os.path.join(OUT, "logs"), exist_ok=True)
    rows, spent = [], [0.0]

    def show(name, lane, what, r):
        spent[0] += r["build_s"] + r["vm_s"]
        rows.append("%-16s %-7s %-60s %6.0f %5d" % (name, lane, what, r["build_s"], r["vm_s"]))
        print("mutants: " + rows[-1], flush=True)

    # Every run starts from the same files, whatever happens to the
    # checkout meanwhile.
    snap = os.path.join(OUT, "snapshot")
    snapshot(snap)

    # The unmutated tree, with each lane's selection: the union of its mutants'.
    src = os.path.join(OUT, "unmutated")
    copy_tree(snap, src)
    for lane in LANES:
        tests = sorted({t for m in mutants if m.lane == lane for t in m.tests})
        if not tests:
            continue
        print("mutants: the unmutated tree, %s lane: %s" % (lane, " ".join(tests)), flush=True)
        r = run_lane("unmutated-" + lane, src, lane, tests, args.kver)
        bad = caught_by(r) + ["%s (did not run)" % t for t in tests if t not in r["progs"]] + \
            ["%s (no case ran)" % t for t in tests
             if t in r["progs"] and r["progs"][t]["ok"] <= r["progs"][t]["skip"]]
        show("unmutated", lane, "FAILS: " + ", ".join(bad) if bad else "passes all %d" % len(tests),
             r)
        if bad:
            raise Error("the unmutated tree fails the %s lane's selection (%s), so a kill "
                        "would mean nothing: see %s" % (lane, ", ".join(bad), r["log"]))
    shutil.rmtree(src)

    survivors, details = [], []
    for m in mutants:
        src = os.path.join(OUT, m.name)
        copy_tree(snap, src)
        apply(m, src)
        print("mutants: %s (%s): %s\nmutants: %s lane: %s" % (
            m.name, m.where, m.bug, m.lane, " ".join(m.tests)), flush=True)
        r = run_lane(m.name, src, m.lane, m.tests, args.kver)
        who = caught_by(r)
        show(m.name, m.lane, ", ".join(who) if who else "SURVIVED (ran %s)" % " ".join(m.tests), r)
        if not who:
            survivors.append(m.name)
        for p, v in sorted(r["progs"].items()):
            if v["failed"]:
                details.append("%s: %s: %s" % (m.name, p, v["failed"][0][:140]))
        if r["kernel_problems"] and r["first_problem"]:
            details.append("%s: kernel: %s" % (m.name, r["first_problem"][:140]))
        shutil.rmtree(src)
    shutil.rmtree(snap)

    total = time.monotonic() - start
    table = ["%-16s %-7s %-60s %6s %5s" % ("mutant", "lane", "caught by (failures)", "build",
                                           "vm")] + rows
    table.append("%d mutants, %d killed, %d survived%s; %.0f s in all: %.0f s building and "
                 "in VMs, %.0f s waiting for the machine's VM lock and setting up" % (
                     len(mutants), len(mutants) - len(survivors), len(survivors),
                     ": " + ", ".join(survivors) if survivors else "", total, spent[0],
                     total - spent[0]))
    text = "\n".join(table) + "\n"
    if details:
        text += "\nWhat each program that caught a mutant reported first:\n" + \
            "\n".join(details) + "\n"
    with open(os.path.join(OUT, "table.txt"), "w") as f:
        f.write(text)
    print("\n" + text, end="")
    return 1 if survivors else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Error as e:
        print("mutants: ERROR: %s" % e, file=sys.stderr)
        sys.exit(2)
