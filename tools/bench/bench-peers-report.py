#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The table and the plot of make bench-peers, from the VM's output.

    bench-peers-report.py OUTPUT_LOG TABLE.txt PLOT.png

Reads the "peers: " lines tools/bench/bench-peers.py printed, prints the
table (medians over the runs, and each figure's ratio to encd's with local
delivery at the same N), writes it to TABLE.txt and a log-scale bar chart of
the same medians to PLOT.png (matplotlib).
"""
import collections
import json
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 (after the backend)

IMPLS = ["encd", "encd-tcp", "openmpi", "torch-gloo"]
FIGS = [("wall_s", "wall (s)", "%.2f"), ("formation_ms", "formation (ms)", "%.1f"),
        ("exchange_ms", "exchange (ms)", "%.2f"), ("warm_ms", "warm (ms)", "%.2f")]


def main():
    log, table_path, plot_path = sys.argv[1:4]
    runs = collections.defaultdict(list)
    errors = []
    with open(log, errors="replace") as f:
        for line in f:
            if line.startswith("peers: "):
                r = json.loads(line[len("peers: "):])
                if r.get("error"):
                    errors.append("%s N=%d run %d: %s" % (r["impl"], r["n"], r["rep"],
                                                         r["error"].replace("\n", " ")))
                # A run whose warm part failed still has its other figures.
                if r.get("wall_s") is not None:
                    runs[(r["impl"], r["n"])].append(r)
    sizes = sorted({n for _, n in runs})
    med = {}
    for key, rs in runs.items():
        med[key] = {k: statistics.median(r[k] for r in rs if r[k] is not None)
                    if any(r[k] is not None for r in rs) else None for k, _, _ in FIGS}
        med[key]["runs"] = len(rs)
        med[key]["range"] = {k: (min(r[k] for r in rs if r[k] is not None),
                                 max(r[k] for r in rs if r[k] is not None))
                             if any(r[k] is not None for r in rs) else None for k, _, _ in FIGS}

    lines = ["encd vs OpenMPI vs torch.distributed, one VM (TCG, 2 vCPUs), N processes on "
             "loopback: form the world, AND 17 bytes, broadcast 129 bytes.",
             "Medians over the runs; (xR) = the figure / encd's (local delivery) at the same N.",
             ""]
    head = "%4s %-11s %4s" % ("N", "impl", "runs")
    for _, title, _ in FIGS:
        head += " %22s" % title
    lines.append(head)
    for n in sizes:
        base = med.get(("encd", n))
        for impl in IMPLS:
            m = med.get((impl, n))
            if not m:
                continue
            row = "%4d %-11s %4d" % (n, impl, m["runs"])
            for k, _, spec in FIGS:
                if m[k] is None:
                    row += " %22s" % "-"
                    continue
                cell = spec % m[k]
                if base and base[k] and impl != "encd":
                    cell += " (x%.1f)" % (m[k] / base[k])
                row += " %22s" % cell
            lines.append(row)
    lines.append("")
    lines.append("ranges (min-max over the runs):")
    for n in sizes:
        for impl in IMPLS:
            m = med.get((impl, n))
            if m:
                lines.append("%4d %-11s " % (n, impl) + "  ".join(
                    "%s %s" % (k.split("_")[0], (spec + "-" + spec) % m["range"][k]
                               if m["range"][k] else "-") for k, _, spec in FIGS))
    for e in errors:
        lines.append("failed: " + e)
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    with open(table_path, "w") as f:
        f.write(text)

    fig, axes = plt.subplots(1, len(FIGS), figsize=(4 * len(FIGS), 4))
    width = 0.8 / len(IMPLS)
    for ax, (k, title, _) in zip(axes, FIGS):
        for i, impl in enumerate(IMPLS):
            xs, ys = [], []
            for j, n in enumerate(sizes):
                m = med.get((impl, n))
                if m and m[k]:
                    xs.append(j + (i - (len(IMPLS) - 1) / 2) * width)
                    ys.append(m[k])
            if xs:
                ax.bar(xs, ys, width, label=impl)
        ax.set_yscale("log")
        ax.set_xticks(range(len(sizes)))
        ax.set_xticklabels(["N=%d" % n for n in sizes])
        ax.set_title(title)
    axes[0].legend(fontsize="small")
    fig.suptitle("form the world, AND 17 B, broadcast 129 B (one QEMU VM, loopback)")
    fig.tight_layout()
    fig.savefig(plot_path, dpi=100)
    print("plot: %s" % plot_path)


if __name__ == "__main__":
    main()
