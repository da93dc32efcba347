# SPDX-License-Identifier: GPL-2.0
"""What the Python selftests that form worlds through encctl share: finding
encctl, running it, reading what its ranks say, waiting, and the KTAP
output of a list of cases. Imported by bootstrap_test.py and
netlink_world_test.py (not a test itself)."""
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.environ.get("ENCD_BUILD", "")
ENCCTL = os.path.join(BUILD, "..", "tools", "encctl")
if not BUILD or not os.access(ENCCTL, os.X_OK):
    ENCCTL = os.path.join(HERE, "..", "build", "tools", "encctl")
MSG_SIGNATURE, MSG_UNIQUE_ID = 3, 4


class Ports:
    """Loopback ports for roots, one fresh one per call, from @base up."""

    def __init__(self, base):
        self.next = base

    def __call__(self):
        self.next += 1
        return self.next


def encctl_json(*args):
    out = subprocess.run([ENCCTL, "-j"] + list(args), capture_output=True, text=True,
                         check=True, timeout=60).stdout
    return json.loads(out)


def finish(p, timeout=600):
    """The last JSON line an `encctl -j world join` printed, with "rc": its
    exit status (0 or 1 by the result; negative: the signal that killed
    it). A rank that said ok but did not exit 0 did not succeed."""
    out, err = p.communicate(timeout=timeout)
    lines = [line for line in out.splitlines() if line.startswith("{")]
    res = json.loads(lines[-1]) if lines else {"ok": False, "error": "no output: " + err,
                                               "status": None}
    res["rc"] = p.returncode
    if res["ok"] and p.returncode != 0:
        res["ok"], res["error"] = False, "said ok, but exited with %d" % p.returncode
    return res


def wait_for(pred, timeout=60, step=0.1):
    """The first true value of pred() within @timeout seconds, or None."""
    end = time.time() + timeout
    while time.time() < end:
        value = pred()
        if value:
            return value
        time.sleep(step)
    return None


def reap(procs):
    """Kills and waits for what a failed case left running."""
    for p in procs:
        if p.poll() is None:
            p.kill()
        p.wait()


def ktap_main(cases):
    """Runs (name, fn) cases in order; fn returns (ok, why). KTAP output."""
    print("TAP version 13")
    print("1..%d" % len(cases))
    fails = 0
    for i, (name, fn) in enumerate(cases, 1):
        try:
            ok, why = fn()
        except Exception as e:  # a test bug or a hang is a failure, not a crash
            ok, why = False, "%s: %s" % (type(e).__name__, e)
        fails += not ok
        print("%s %d %s # %s" % ("ok" if ok else "not ok", i, name, str(why).replace("\n", " ")))
        sys.stdout.flush()
    print("# %d passed, %d failed" % (len(cases) - fails, fails))
    return 1 if fails else 0
