#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Worlds started by the real job launchers (issue 22): torchrun (Debian's
python3-torch) and Open MPI's mpirun each start 8 ranks of `encctl world
check --from-env` in this VM; every rank takes its place from the
launcher's environment alone (mpirun's ranks are told the root, which Open
MPI does not name), the world forms and passes its barriers, and rank 0
reports one host of 8 ranks.

Runs inside the test VM with encd loaded; KTAP output, one line per case.
"""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from encd_world import ENCCTL, TMP, Ports, main  # noqa: E402

port = Ports(37000)
N = 8
CHECK = [ENCCTL, "-j", "world", "check", "--from-env", "--barriers", "3",
         "--timeout-ms", "60000"]
cases = []


def case(fn):
    cases.append((fn.__name__, fn))
    return fn


def launched(cmd, env=None, timeout=240):
    """Runs a launcher; (its exit status, the JSON documents its ranks
    printed, its stderr)."""
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                       env=dict(os.environ, **(env or {})))
    docs = []
    for line in p.stdout.splitlines():
        line = line.strip()
        if line.startswith("{"):
            docs.append(json.loads(line))
    return p.returncode, docs, p.stderr


def world_of_one_host(rc, docs, err):
    """Every rank passed, and rank 0's report has one host of N ranks."""
    if rc != 0 or len(docs) != N:
        return False, "exit %d, %d documents: %s %s" % (rc, len(docs), docs[:2], err[-600:])
    bad = [d for d in docs if not d.get("ok")]
    if bad:
        return False, "a rank failed: %s" % bad[0]
    reports = [d for d in docs if "hosts" in d]
    if len(reports) != 1:
        return False, "%d reports" % len(reports)
    rep = reports[0]
    hosts = [(h["index"], h["ranks"], h["first_rank"]) for h in rep["hosts"]]
    ids = sorted(d["g_device_id"] for d in docs if "g_device_id" in d)
    if hosts != [(0, N, 0)] or rep["missing_n"] or ids != list(range(1, N)):
        return False, "hosts %s, missing %s, other ranks %s" % (hosts, rep["missing_n"], ids)
    return True, "%d ranks formed in %d us, %d barriers (median %d us)" % (
        N, rep["setup_us"], rep["barriers_passed"], rep["barrier_median_us"])


@case
def torchrun_starts_a_world_of_8_from_its_environment():
    torchrun = shutil.which("torchrun")
    if not torchrun:
        return False, "no torchrun: python3-torch is not installed (make deps)"
    p = port()
    # torchrun's own store listens on MASTER_PORT; the world's root on the
    # next. Debian 12's torchrun (torch 1.13 under Python 3.11) fails at
    # start when --redirects or --tee is 0, their default: stream 2 works,
    # and leaves the ranks' stdout alone.
    rc, docs, err = launched([torchrun, "--nnodes", "1", "--nproc_per_node", str(N),
                              "--master_addr", "127.0.0.1", "--master_port", str(p),
                              "--redirects", "2", "--tee", "2", "--log_dir",
                              os.path.join(TMP, "torchrun"), "--no_python"] + CHECK)
    ok, why = world_of_one_host(rc, docs, err)
    return ok, "torchrun --nproc_per_node %d: %s" % (N, why)


@case
def mpirun_starts_a_world_of_8_from_its_environment():
    mpirun = shutil.which("mpirun")
    if not mpirun:
        return False, "no mpirun: openmpi-bin is not installed (make deps)"
    root = "127.0.0.1:%d" % port()
    # Its daemons talk over loopback, named: left to choose, in a lane's VM
    # where hostile_test had put 10.99.0.1 on lo (the VM's one interface),
    # Open MPI found "no network interfaces ... for out-of-band
    # communications".
    rc, docs, err = launched([mpirun, "--allow-run-as-root", "--oversubscribe",
                              "--mca", "oob_tcp_if_include", "lo", "-n", str(N)] +
                             CHECK + ["--root", root])
    ok, why = world_of_one_host(rc, docs, err)
    if not ok:
        addrs = subprocess.run(["ip", "-br", "addr"], capture_output=True, text=True).stdout
        why += "; interfaces: " + "; ".join(" ".join(ln.split()) for ln in addrs.splitlines())
    return ok, "mpirun -n %d: %s" % (N, why)


if __name__ == "__main__":
    sys.exit(main(cases))
