# SPDX-License-Identifier: GPL-2.0
"""What the Python selftests that form worlds share: ranks as `encctl world
join` processes, timed to the moment each one ends; encctl's JSON; waiting;
the kernel's memory as /proc/meminfo counts it; network namespaces as hosts;
and the KTAP output of a list of cases. Imported by bootstrap_test.py,
netlink_world_test.py, hostile_test.py and peer_faults_test.py (not a test
itself).

Runs inside the test VM with encd loaded; never on the host.
"""
import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback

from encd_peer import parse_hostport, socket_in_netns

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.environ.get("ENCD_BUILD", "")
ENCCTL = os.path.join(BUILD, "..", "tools", "encctl")
# The debug lane (KASAN, lockdep and kmemleak under TCG, some ten times
# slower; the runner's $ENCD_LANE is its build's name): tests size their
# loops by it.
DEBUG_LANE = os.environ.get("ENCD_LANE", "").startswith("debug")
if not BUILD or not os.access(ENCCTL, os.X_OK):
    ENCCTL = os.path.join(HERE, "..", "build", "tools", "encctl")
# The types of a node's counters in `encctl -j world join`'s output.
MSG_SIGNATURE, MSG_UNIQUE_ID = 3, 4
TMP = tempfile.mkdtemp(prefix="encd-world-")
SECRET = "a world secret the peer tests share"
SECRET_FILE = os.path.join(TMP, "secret")
with open(SECRET_FILE, "w") as _f:
    _f.write(SECRET + "\n")


class Ports:
    """Root ports, a fresh one per world (a port in TIME_WAIT is not reused),
    from @base up."""

    def __init__(self, base):
        self.next = base

    def __call__(self):
        self.next += 1
        return self.next


def join_error(gid, sentence):
    """The "error" of `encctl -j world join --g-device-id @gid` when the
    step that failed said @sentence (libenc's, most often)."""
    return "world join: rank %d: %s" % (gid, sentence)


def join_failed(res):
    """Whether a rank's result is a failure: encctl's error document, whose
    "error" is the sentence beside "status" (a rank that formed says
    "error": null)."""
    return res.get("error") is not None


class Rank:
    """One rank: `encctl -j world join` (or @verb: check), in a network
    namespace if given, through @runas (a command such as setpriv's that
    runs it as another user) if given.
    The world's secret is SECRET_FILE's with @secret True, @env_secret
    through libenc's ENC_WORLD_SECRET, else none.
    .start and .end are the time.monotonic() at which it was started and
    its output ended (it exited); .printed when it printed its JSON line;
    .res that line (the first one: join prints it before --hold), with
    "rc": its exit status (negative: the signal that killed it). A rank
    that printed no error but did not exit 0 did not succeed: its .res
    gets an "error"."""

    # Every rank a case started: main() kills what is left of them when the
    # case ends, so that a case that failed half-way (an exception, an early
    # return) leaves no rank holding a core, a port or a world to the next.
    started = []

    def __init__(self, vnc, gid, n, root, timeout_ms=30000, extra=(), secret=False, netns=None,
                 program=None, env_secret=None, verb="join", runas=()):
        cmd = [ENCCTL, "-j", "world", verb, "--vnc", str(vnc), "--g-device-id", str(gid),
               "--world-size", str(n), "--root", root, "--timeout-ms", str(timeout_ms)]
        if secret:
            cmd += ["--secret-file", SECRET_FILE]
        if program:
            cmd += ["--program", program]
        cmd = list(runas) + cmd + list(extra)
        if netns:
            cmd = ["ip", "netns", "exec", netns] + cmd
        self.gid, self.vnc = gid, vnc
        env = dict(os.environ)
        env.pop("ENC_WORLD_SECRET", None)
        if env_secret:
            env["ENC_WORLD_SECRET"] = env_secret
        self.p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  env=env)
        Rank.started.append(self)
        self.start = time.monotonic()
        self.res = None
        self.printed = None
        self.end = None
        self.err = ""
        self.done = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            if line.startswith("{") and self.res is None:
                self.res = json.loads(line)
                self.printed = time.monotonic()
        self.end = time.monotonic()
        self.err = self.p.stderr.read()
        self.p.wait()
        if self.res is None:
            self.res = {"error": "no output: %s" % self.err.strip(), "status": "none",
                        "g_device_id": self.gid}
        self.res["rc"] = self.p.returncode
        if not join_failed(self.res) and self.p.returncode != 0:
            self.res.pop("ok", None)
            self.res["error"] = "said ok, but exited with %d" % self.p.returncode
        self.done.set()

    def wait(self, timeout=120):
        if not self.done.wait(timeout):
            self.kill()
            self.done.wait(10)
            self.res = {"error": "still running after %d s" % timeout, "status": "hung",
                        "g_device_id": self.gid, "rc": None}
        return self.res

    def wait_printed(self, timeout=120):
        end = time.monotonic() + timeout
        while self.printed is None and not self.done.is_set() and time.monotonic() < end:
            time.sleep(0.05)
        return self.res

    def kill(self):
        """SIGKILL; returns the time it was sent."""
        t = time.monotonic()
        try:
            self.p.kill()
        except OSError:
            pass
        return t

    @property
    def ok(self):
        return bool(self.res) and not join_failed(self.res)

    @property
    def error(self):
        """The sentence of the step that failed, as libenc (or this class)
        said it: the result's "error" without the "world join: rank G: "
        encctl puts before it, so that it names only whom the step blamed;
        "" if it did not fail."""
        e = (self.res or {}).get("error") or ""
        own = join_error(self.gid, "")
        return e[len(own):] if e.startswith(own) else e


def finish(ranks, timeout=120):
    return [r.wait(timeout) for r in ranks]


def stop(ranks, timeout=30):
    """Kills what is still running of @ranks and waits for all of them."""
    for r in ranks:
        if not r.done.is_set():
            r.kill()
    return finish(ranks, timeout)


def encctl_json(*args, netns=None):
    cmd = ["ip", "netns", "exec", netns] if netns else []
    p = subprocess.run(cmd + [ENCCTL, "-j"] + list(args), capture_output=True, text=True,
                       timeout=120)
    if p.returncode:
        raise RuntimeError("encctl %s: exit %d: %s" % (" ".join(args), p.returncode,
                                                        (p.stderr or p.stdout).strip()[:300]))
    return json.loads(p.stdout)


def world_nodes(netns=None):
    """{g_device_id: its world node} for every comm `encctl comm show` lists."""
    args = ["comm", "show"]
    if netns:
        p = subprocess.run(["ip", "netns", "exec", netns, ENCCTL, "-j"] + args,
                           capture_output=True, text=True, timeout=60)
        comms = json.loads(p.stdout) if p.returncode == 0 else []
    else:
        comms = encctl_json(*args)
    out = {}
    for c in comms:
        for n in c.get("nodes", []):
            if n.get("global"):
                out[c["g_device_id"]] = n
    return out


def ranks_with_a_host(netns=None):
    """The g_device_ids of the comms (of network namespace netns) whose rank
    is in its host agent: the kernel gives a comm host_tx_bytes from its
    rank's join on (SETUP)."""
    return {c["g_device_id"] for c in encctl_json("comm", "show", netns=netns)
            if c.get("host_tx_bytes") is not None}


def node_counter(node, typ, field="tx"):
    return sum(c[field] for c in node.get("counters", []) if c["type"] == typ)


def wait_until(pred, timeout=30.0, step=0.1):
    """The first true value of pred() within @timeout seconds, or None."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(step)
    return None


def root_listens(root, timeout=20, netns=None):
    """Waits until the root at @root (host:port; in network namespace
    @netns, or this one) listens: a connection that opens (and is closed at
    once, which the root counts as a stranger that left). True, or None
    after @timeout seconds."""
    def try_once():
        s = socket_in_netns(netns) if netns else socket.socket()
        s.settimeout(1)
        try:
            s.connect(parse_hostport(root))
            return True
        except OSError:
            return False
        finally:
            s.close()
    return wait_until(try_once, timeout, 0.05)


# Worlds whose root side is seen through a relay (encd_peer.Relay) keep it
# in this network namespace: keys are bound to the root's address, so the
# relayed rank names the true root, and the relay listens at that address
# here. A loopback world's key is its namespace's, so such worlds need a
# secret.
ROOT_NS = "encd-relayed-root"


def root_netns():
    """The network namespace of relayed worlds' root side, made once."""
    if not os.path.exists("/var/run/netns/" + ROOT_NS):
        sh("ip", "netns", "add", ROOT_NS)
        sh("ip", "-n", ROOT_NS, "link", "set", "lo", "up")
    return ROOT_NS


def names_rank(text, r):
    """Whether a sentence names rank r: "rank r (global device r)", or a host
    "(1 rank r-r)" / "(3 ranks 5-7)" whose ranks include it."""
    if re.search(r"\brank %d\b(?!-)" % r, text or ""):
        return True
    for a, b in re.findall(r"\branks? (\d+)-(\d+)", text or ""):
        if int(a) <= r <= int(b):
            return True
    return False


def kernel_memory():
    """(Slab, VmallocUsed), in KiB, once what can be freed was (dentries,
    inodes: the tests' processes come and go; RCU-freed objects), and once
    every slab cache gave back its empty slabs. Shrinking a cache is also
    what empties KASAN's quarantine of it: under the debug lane's kernel,
    freed objects wait there, in their slabs, up to 1/32 of memory, and
    would count as held."""
    subprocess.run(["sync"])
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")
    time.sleep(0.5)
    for cache in os.listdir("/sys/kernel/slab"):
        path = os.path.join("/sys/kernel/slab", cache)
        if os.path.islink(path):
            continue
        try:
            with open(os.path.join(path, "shrink"), "w") as f:
                f.write("1\n")
        except FileNotFoundError:
            pass  # a cache destroyed since the listing
    return meminfo_now()


def meminfo_now():
    """(Slab, VmallocUsed), in KiB, as they are: nothing dropped first."""
    mi = {}
    with open("/proc/meminfo") as f:
        for line in f:
            k, v = line.split(":")
            mi[k] = int(v.split()[0])
    return mi["Slab"], mi["VmallocUsed"]


def kernel_memory_kib():
    """Slab + VmallocUsed, in KiB: kernel_memory()'s sum."""
    return sum(kernel_memory())


@contextlib.contextmanager
def module_param(name, value, back):
    """encd's parameter @name set to @value for a while, then to @back."""
    path = "/sys/module/encd/parameters/" + name
    with open(path, "w") as f:
        f.write(str(value))
    try:
        yield
    finally:
        with open(path, "w") as f:
            f.write(str(back))


def sh(*cmd, check=True):
    p = subprocess.run(list(cmd), capture_output=True, text=True)
    if check and p.returncode:
        raise RuntimeError("%s: %s" % (" ".join(cmd), p.stderr.strip()))
    return p


class Netns:
    """Network namespaces as hosts: each gets a veth to a bridge in the
    initial namespace and an address 10.98.0.<i>/24 (loopback up too)."""

    def __init__(self, n, prefix="encdh"):
        self.names = []
        sh("ip", "link", "add", "encdbr0", "type", "bridge")
        sh("ip", "link", "set", "encdbr0", "up")
        for i in range(1, n + 1):
            name = "%s%d" % (prefix, i)
            sh("ip", "netns", "add", name)
            self.names.append(name)
            sh("ip", "link", "add", "encdv%d" % i, "type", "veth", "peer", "name", "eth0",
               "netns", name)
            sh("ip", "link", "set", "encdv%d" % i, "master", "encdbr0", "up")
            sh("ip", "netns", "exec", name, "ip", "link", "set", "lo", "up")
            sh("ip", "netns", "exec", name, "ip", "addr", "add", "10.98.0.%d/24" % i, "dev",
               "eth0")
            sh("ip", "netns", "exec", name, "ip", "link", "set", "eth0", "up")

    @staticmethod
    def addr(i):
        return "10.98.0.%d" % i

    def close(self):
        for name in self.names:
            sh("ip", "netns", "del", name, check=False)
        sh("ip", "link", "del", "encdbr0", check=False)


def main(cases):
    """Runs (name, fn) cases in order as KTAP: fn returns (ok, why); an
    exception (a test bug or a hang) is a failure, not a crash. Names on
    the command line pick cases (each as often as it is named)."""
    if sys.argv[1:]:
        by_name = dict(cases)
        unknown = [a for a in sys.argv[1:] if a not in by_name]
        if unknown:
            print("unknown case(s): %s; the cases are: %s" % (
                " ".join(unknown), " ".join(n for n, _ in cases)), file=sys.stderr)
            return 2
        cases = [(a, by_name[a]) for a in sys.argv[1:]]
    print("TAP version 13")
    print("1..%d" % len(cases))
    fails = 0
    for i, (name, fn) in enumerate(cases, 1):
        t = time.monotonic()
        try:
            ok, why = fn()
        except Exception as e:
            for line in traceback.format_exc().splitlines():
                print("# " + line)
            ok, why = False, "%s: %s" % (type(e).__name__, e)
        left = [r for r in Rank.started if r.p.poll() is None]
        if left:
            print("# %s left %d rank(s) running: killed" % (name, len(left)))
            stop(left)
        Rank.started.clear()
        fails += not ok
        print("%s %d %s # %s [%.1f s]" % ("ok" if ok else "not ok", i, name,
                                          str(why).replace("\n", " "), time.monotonic() - t))
        sys.stdout.flush()
    print("# %d passed, %d failed" % (len(cases) - fails, fails))
    return 1 if fails else 0
