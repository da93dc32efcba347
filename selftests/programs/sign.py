#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Recompute a program's op-signature from its JSON form, in plain Python.

An independent reference for Documentation/signature.rst: it shares no code
with the kernel or libenc. Prints what `encctl program sign -j` prints.

    sign.py FILE.json --g-device-id G [--all-groups]
"""
import argparse
import hashlib
import json
import struct

OPS = {"all_reduce": 1, "all_gather": 2, "reduce_scatter": 3, "all_to_all": 4,
       "permute": 5, "send": 6, "recv": 7, "broadcast": 8}
SEND, RECV = 6, 7


def op_view(op, stp_view, g_device_id):
    code = op["op"] if isinstance(op["op"], int) else OPS[op["op"]]
    size = op["size_n"]
    if code == SEND:
        last = op.get("peer", 0) if stp_view else op.get("channel", 0)
        return struct.pack("<IQI", SEND, size, last)
    if code == RECV:
        return struct.pack("<IQI", SEND, size, g_device_id)
    return struct.pack("<IQII", code, size, op.get("dtype", 0), op.get("alg", 0))


def ids(lst):
    return b"".join(struct.pack("<I", i) for i in lst)


def sign(prog, g_device_id, all_groups=False):
    ops = prog.get("ops", [])
    inner, groups, stps = [], [], []
    for rg in prog.get("replica_groups", []):
        if rg["rank"] != -1 and not all_groups:
            groups.append((rg["group_id"], bytes(16)))
            continue
        md = hashlib.md5(ids(rg["participants"]))
        for op in ops:
            if op.get("group") == rg["group_id"] and "stp" not in op:
                md.update(op_view(op, False, g_device_id))
        groups.append((rg["group_id"], md.digest()))
        inner.append(md.digest())
    for stp in prog.get("src_target_pairs", []):
        md = hashlib.md5(b"".join(ids(p) for p in stp["pairs"]))
        for op in ops:
            if op.get("stp") == stp["id"] and "group" not in op:
                md.update(op_view(op, True, g_device_id))
        stps.append((stp["id"], md.digest()))
        inner.append(md.digest())
    glob = hashlib.md5(b"".join(inner)).digest() if inner else bytes(16)
    return {
        "global": glob.hex(),
        "replica_groups": [{"group_id": i, "signature": d.hex()} for i, d in groups],
        "src_target_pairs": [{"id": i, "signature": d.hex()} for i, d in stps],
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--g-device-id", type=int, required=True)
    ap.add_argument("--all-groups", action="store_true")
    a = ap.parse_args()
    with open(a.file) as f:
        prog = json.load(f)
    print(json.dumps(sign(prog, a.g_device_id, a.all_groups)))


if __name__ == "__main__":
    main()
