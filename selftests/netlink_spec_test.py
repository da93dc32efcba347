#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The "encd" generic netlink family follows its YNL spec,
Documentation/netlink/specs/encd.yaml.

Runs inside the test VM with encd loaded; KTAP output, one line per case.
tools/netlink/spec-check.py holds the constants the spec takes from
linux/encd.h and the running family's operations, permissions and policies
(read back through nlctrl) to the spec. Then the kernel's own YNL
(linux-source-6.12's tools/net/ynl), knowing nothing of encd but the spec,
drives the family while a small world forms: its library subscribes to the
events and sees the world form, and its CLI dumps the global comms and the
comm nodes, gets one comm, the topology and the module's settings, and has a
bad request refused, all of it held to what `encctl -j status` says.
"""
import functools
import json
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, ".."))
BUILD = os.environ.get("ENCD_BUILD", "")
ENCCTL = os.path.join(BUILD, "..", "tools", "encctl")
if not BUILD or not os.access(ENCCTL, os.X_OK):
    ENCCTL = os.path.join(TOP, "build", "tools", "encctl")
SPEC = os.path.join(TOP, "Documentation", "netlink", "specs", "encd.yaml")
CHECK = os.path.join(TOP, "tools", "netlink", "spec-check.py")
WORLD_N = 4
ROOT = "127.0.0.1:33411"
results = []
world = {}


def case(fn):
    results.append(fn)
    return fn


@functools.lru_cache(maxsize=None)
def ksrc():
    return subprocess.run([os.path.join(TOP, "tools", "kernel-source.sh"), "6.12"],
                          capture_output=True, text=True, check=True).stdout.strip()


def schema():
    return os.path.join(ksrc(), "Documentation", "netlink", "genetlink-c.yaml")


def ynl_cli(*args):
    """The YNL CLI on encd's spec: (exit status, output). The spec is held
    to the kernel's schema once, by the subscription case's YnlFamily: a
    validation per call would double each call's time under emulation."""
    cmd = [sys.executable, os.path.join(ksrc(), "tools", "net", "ynl", "cli.py"),
           "--spec", SPEC, "--no-schema", "--output-json"] + list(args)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout + p.stderr


def ynl_json(*args):
    rc, out = ynl_cli(*args)
    if rc:
        raise RuntimeError("ynl %s: status %d: %s" % (" ".join(args), rc, out))
    return json.loads(out)


def encctl_status():
    out = subprocess.run([ENCCTL, "-j", "status"], capture_output=True, text=True, check=True,
                         timeout=60).stdout
    return json.loads(out)


def world_comms(comms, sep="-"):
    """The comms of this test's world, by core; YNL's keys, or encctl's (sep "_")."""
    return {c["nec%sdev" % sep]: c for c in comms if c["root%scomm%sid" % (sep, sep)] == ROOT}


# encctl's JSON keys and YNL's (the spec's attribute names) for the same fields
GCOMM_FIELDS = [("ctx", "ctx"), ("serial", "serial"), ("g_device_id", "g-device-id"),
                ("g_device_cnt", "g-device-cnt"), ("virtual_server_id", "virtual-server-id"),
                ("pod_type", "pod-type"), ("pod_node_id", "pod-node-id"), ("pod_sz", "pod-sz"),
                ("state", "state"), ("check_sigs", "check-sigs"), ("holders", "holders"),
                ("created_ns", "created"), ("host_tx_bytes", "host-tx-bytes"),
                ("owner_uid", "owner-uid")]
# What YNL leaves out of a message: a flag that is not set, or an attribute
# the kernel did not send (encctl's null).
GCOMM_FLAGS = {"check-sigs"}
TOPO_FIELDS = [("num_vcores", "num-vcores"), ("pod_type", "pod-type"),
               ("pod_node_id", "pod-node-id"), ("pod_sz", "pod-sz"),
               ("reservation_id", "reservation-id"),
               ("virtual_server_size", "virtual-server-size"), ("source", "source")]


@case
def constants_from_encd_h_follow_the_spec():
    out = subprocess.run([sys.executable, CHECK], capture_output=True, text=True)
    return out.returncode == 0, out.stdout.strip() or out.stderr.strip()


@case
def running_family_and_policies_follow_the_spec():
    out = subprocess.run([sys.executable, CHECK, "--kernel"], capture_output=True, text=True)
    return out.returncode == 0, (out.stdout.strip() or out.stderr.strip()).replace("\n", "; ")


@case
def ynl_subscription_sees_a_world_form():
    sys.path.insert(0, os.path.join(ksrc(), "tools", "net", "ynl"))
    from lib import YnlFamily  # noqa: E402 (found only now)

    ynl = YnlFamily(SPEC, schema())
    ynl.ntf_subscribe("events")
    world["launch"] = subprocess.Popen(
        [ENCCTL, "-j", "world", "launch", "-n", str(WORLD_N), "--root", ROOT, "--hold", "600"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    added, formed = set(), set()
    end = time.time() + 300
    while time.time() < end and len(formed) < WORLD_N:
        ynl.check_ntf()
        for ntf in ynl.async_msg_queue:
            msg = ntf["msg"]
            if ntf["name"] == "gcomm-add-ntf" and msg["root-comm-id"] == ROOT:
                added.add(msg["nec-dev"])
            elif ntf["name"] == "world-formed-ntf" and msg.get("global") and \
                    msg["rank-n"] == WORLD_N and msg["state"] == "ready":
                formed.add(msg["nec-dev"])
        ynl.async_msg_queue.clear()
        time.sleep(0.2)
    if len(added) != WORLD_N or formed != added:
        return False, "gcomm-add-ntf from cores %s, world-formed-ntf from %s" % (
            sorted(added), sorted(formed))
    world["devs"] = formed
    return True, "%d gcomm-add-ntf, %d world-formed-ntf" % (len(added), len(formed))


@case
def ynl_cli_dump_of_global_comms_is_what_encctl_shows():
    if "devs" not in world:
        return False, "no world formed"
    dumped = world_comms(ynl_json("--dump", "gcomm-get"))
    shown = world_comms(encctl_status()["comms"], "_")
    if set(dumped) != world["devs"] or set(shown) != world["devs"]:
        return False, "cores %s in the dump, %s in encctl status" % (sorted(dumped), sorted(shown))
    for dev, c in dumped.items():
        s = shown[dev]
        for mine, theirs in GCOMM_FIELDS:
            got = c.get(theirs, False if theirs in GCOMM_FLAGS else None)
            if got != s[mine] or type(got) is not type(s[mine]):
                return False, "core %d: %s is %s in the dump, %s in encctl status" % (
                    dev, theirs, got, s[mine])
        if c["state"] != "bootstrapped" or c["g-device-cnt"] != WORLD_N:
            return False, "core %d: %s" % (dev, c)
        # One host agent, the root's, for ranks that are all local: no links.
        if c.get("host-tx-bytes") != 0:
            return False, "core %d: host-tx-bytes %s" % (dev, c.get("host-tx-bytes"))
    return True, "%d comms, field by field" % len(dumped)


@case
def ynl_cli_dump_of_nodes_shows_each_world_node_whole():
    if "devs" not in world:
        return False, "no world formed"
    comms = world_comms(ynl_json("--dump", "gcomm-get"))
    nodes = ynl_json("--dump", "node-get")
    serials = {c["serial"]: dev for dev, c in comms.items()}
    mine = [n for n in nodes if n["gcomm-serial"] in serials]
    if len(mine) != WORLD_N:
        return False, "%d nodes of the world's comms, want %d" % (len(mine), WORLD_N)
    for n in mine:
        dev = serials[n["gcomm-serial"]]
        if not n.get("global") or n["state"] != "ready" or n["rank-n"] != WORLD_N or \
           n["participants"] != list(range(WORLD_N)) or n["participants-offset"] != 0 or \
           n["nec-dev"] != dev or n["rank"] != comms[dev]["g-device-id"]:
            return False, "core %d: %s" % (dev, n)
    return True, "%d world nodes" % len(mine)


@case
def ynl_cli_gets_a_comm_and_the_topology():
    if "devs" not in world:
        return False, "no world formed"
    dev = min(world["devs"])
    got = ynl_json("--do", "gcomm-get", "--json", json.dumps({"nec-dev": dev, "ctx": 0}))
    dumped = world_comms(ynl_json("--dump", "gcomm-get"))[dev]
    if got != dumped:
        return False, "do says %s, the dump %s" % (got, dumped)
    topo = ynl_json("--do", "topo-get")
    host = encctl_status()["host"]
    for mine, theirs in TOPO_FIELDS:
        if topo[theirs] != host[mine]:
            return False, "topo-get %s is %s, encctl status %s" % (theirs, topo[theirs], host[mine])
    vcores = ynl_json("--dump", "vcore-get")
    if [v["vnc"] for v in vcores] != list(range(host["num_vcores"])):
        return False, "vcore-get lists %s" % [v["vnc"] for v in vcores]
    return True, "gcomm-get of core %d, topo-get, %d vcores" % (dev, len(vcores))


@case
def ynl_cli_module_get_is_the_parameter_and_encctl_status():
    with open("/sys/module/encd/parameters/allow_insecure_worlds") as f:
        param = f.read().strip()
    with open("/sys/module/encd/parameters/networks") as f:
        networks = f.read().rstrip("\n")
    got = ynl_json("--do", "module-get")
    status = encctl_status()
    shown = status["allow_insecure_worlds"]
    want = 1 if param == "Y" else 0
    if got != {"allow-insecure-worlds": want, "networks": networks} or \
            shown is not bool(want) or status["networks"] != networks:
        return False, "parameters %s and %r, module-get %s, encctl status %s and %r" % (
            param, networks, got, shown, status["networks"])
    return True, "allow-insecure-worlds %d, networks %r" % (want, networks)


@case
def ynl_cli_request_out_of_range_is_refused_by_name():
    rc, out = ynl_cli("--do", "gcomm-get", "--json", json.dumps({"nec-dev": 256, "ctx": 0}))
    if rc == 0 or "out of range" not in out.lower() or "nec-dev" not in out:
        return False, "status %d: %s" % (rc, out)
    return True, out.strip().splitlines()[-1]


def main():
    print("TAP version 13")
    print("1..%d" % len(results))
    fails = 0
    try:
        for i, fn in enumerate(results, 1):
            try:
                ok, why = fn()
            except Exception as e:  # a test bug or a hang is a failure, not a crash
                ok, why = False, "%s: %s" % (type(e).__name__, e)
            fails += not ok
            print("%s %d %s # %s" % ("ok" if ok else "not ok", i, fn.__name__,
                                     str(why).replace("\n", " ")))
            sys.stdout.flush()
    finally:
        if "launch" in world:
            os.killpg(world["launch"].pid, signal.SIGKILL)
            world["launch"].wait()
    print("# %d passed, %d failed" % (len(results) - fails, fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
