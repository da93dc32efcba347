# SPDX-License-Identifier: GPL-2.0
"""A world's figures from the kernel's phase timestamps, as `encctl -j comm
show` gives them: shared by bench-bootstrap.py (in the VM) and
multihost-figures.py (on the host, from a VM's output)."""


def phases(entries):
    """A node's phase list, by phase name."""
    return {p["phase"]: p for p in entries}


def end_ns(p):
    return p["start_ns"] + (p["duration_ns"] or 0)


def world_nodes(gcomms):
    """The world's node of every rank (the global comm's own node): it holds
    the world's phases; the gcomm's own list is for its later phases."""
    return [node for g in gcomms for node in g.get("nodes", []) if node.get("global")]


def formation_ms(nodes):
    """First rank's rendezvous start to the last rank's end of its last
    phase, over the nodes given (one clock: one kernel's)."""
    starts, ends = [], []
    for node in nodes:
        ph = phases(node.get("phases", []))
        if "rendezvous" not in ph:
            continue
        starts.append(ph["rendezvous"]["start_ns"])
        ends.append(max(end_ns(p) for p in ph.values()))
    if not starts:
        return None
    return (max(ends) - min(starts)) / 1e6


def vb_ms(nodes):
    """Last rank's start of validation to the last rank's end of the
    broadcast, over the nodes given (one per rank)."""
    st, en = [], []
    for node in nodes:
        ph = phases(node.get("phases", []))
        if "validate" not in ph or "broadcast" not in ph:
            return None
        st.append(ph["validate"]["start_ns"])
        en.append(end_ns(ph["broadcast"]))
    return (max(en) - max(st)) / 1e6 if st else None
