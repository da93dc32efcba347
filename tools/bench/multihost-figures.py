#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The figures of `multihost-bootstrap.sh --bench`, from each VM's output.

    multihost-figures.py OUT VMS RANKS_PER_VM ROOT_PORT

Each VM printed its ranks' JSON lines, "bench-ss: " lines (ss -tinH, one
socket a line) and one "bench-comm: " line (encctl -j comm show), taken
while its ranks held the formed world. Prints formation on the root VM's
clock and the bytes each VM's host agent sent: the kernel's own count (every
comm's host_tx_bytes, netlink's host-tx-bytes), and, from ss, the share of
the root's port.
"""
import json
import os
import re
import sys

from world_phases import formation_ms, vb_ms, world_nodes


def vm_figures(path, root_port):
    sent = ctl = 0
    comms, ranks = [], 0
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("bench-ss: "):
                fields = line.split()
                local = fields[4] if len(fields) > 5 else ""
                s = re.search(r"bytes_sent:(\d+)", line)
                r = re.search(r"bytes_retrans:(\d+)", line)
                n = (int(s.group(1)) if s else 0) - (int(r.group(1)) if r else 0)
                sent += n
                if local.endswith(":%d" % root_port):
                    ctl += n
            elif line.startswith("bench-comm: "):
                comms = json.loads(line[len("bench-comm: "):])
            elif line.startswith("{") and '"ok":true' in line:
                ranks += 1
    # The host agent's counter, as its comms report it (one counter, each
    # comm read at its moment: the last read is the largest); the sockets'
    # sum if no comm could be read.
    counted = [g["host_tx_bytes"] for g in comms if g.get("host_tx_bytes") is not None]
    return (max(counted) if counted else sent), ctl, comms, ranks


def main():
    out, vms, per, root_port = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    n = vms * per
    rows = [vm_figures(os.path.join(out, "vm%d" % i, "output.log"), root_port)
            for i in range(vms)]
    comms = rows[0][2]
    # The world's phases are on each rank's world node.
    world = world_nodes(comms)
    formation, vb = formation_ms(world), vb_ms(world)
    print("%d ranks on %d VMs (%d each), one host agent per VM" % (n, vms, per))
    if formation is not None:
        print("formation on the root VM's clock: %.1f ms (its first rank's rendezvous start to "
              "its last rank's end)" % formation)
    if vb is not None:
        print("root VM: last rank's start of validation to last rank's end of broadcast: "
              "%.2f ms" % vb)
    print("bytes sent by each VM's host agent (whole frames, every link; the kernel's count):")
    for i, (sent, ctl, _, ranks) in enumerate(rows):
        print("  vm%d%s: %9d bytes%s, %d ranks ok" % (
            i, " (root)" if i == 0 else "       ", sent,
            " (%d on the root's port)" % ctl if i == 0 else "", ranks))
    others = [r[0] for r in rows[1:]]
    if others:
        print("root: %d bytes, %.1f per rank; other hosts: mean %.0f, max %d" % (
            rows[0][0], rows[0][0] / n, sum(others) / len(others), max(others)))


if __name__ == "__main__":
    main()
