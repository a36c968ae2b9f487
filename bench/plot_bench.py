#!/usr/bin/env python3
"""Bar chart of a trilinear3d_bench JSON file: effective bandwidth per case for ours, PyTorch, memcpy and
the streaming floor (the case's bytes read and written once, no arithmetic).

Usage: plot_bench.py RESULTS.json OUTPUT.png
Needs Debian's python3-matplotlib (run with /usr/bin/python3).
"""
import json
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as handle:
        results = json.load(handle)
    cases = [c for c in results["cases"] if not c.get("error")]
    if not cases:
        print("plot_bench: no case results in " + argv[1], file=sys.stderr)
        return 1

    labels = []
    for case in cases:
        fmt = case["format"] + (", ac" if case["align_corners"] else "")
        kind = " fwd" if case["direction"] == "forward" else ""
        label = f'{case["id"]}{kind}\n{case["dtype"]} {fmt}'
        if not case["check"]["ok"]:
            label += "\nCHECK FAILED"
        labels.append(label)
    series = [
        ("ours", [c["ours_gbs"] for c in cases], "#1f77b4"),
        ("PyTorch", [c["torch_gbs"] for c in cases], "#ff7f0e"),
        ("memcpy", [c["memcpy_gbs"] for c in cases], "#7f7f7f"),
    ]
    # The streaming floor as a bandwidth: the case's bytes / floor time (files from before it: none).
    if all(c.get("floor_ms") for c in cases):
        series.append(("streaming floor", [c["bytes"] / (c["floor_ms"] * 1e6) for c in cases], "#2ca02c"))

    positive = [v for _, values, _ in series for v in values if v is not None and v > 0]
    bottom = 10 ** math.floor(math.log10(min(positive) / 2))
    top = max(positive)

    def text(value):
        return f"{value:.0f}" if value >= 100 else f"{value:.1f}" if value >= 1 else f"{value:.2g}"

    width = 0.8 / len(series)
    fig, ax = plt.subplots(figsize=(max(8.0, 1.15 * len(cases) + 2), 5.6))
    for index, (name, values, color) in enumerate(series):
        offset = (index - (len(series) - 1) / 2) * width
        for position, value in enumerate(values):
            x = position + offset
            if value is None:  # PyTorch has no CPU kernel for this dtype
                ax.text(x, bottom * 1.2, "n/a", ha="center", va="bottom", fontsize=7, rotation=90, color=color)
                continue
            ax.bar(x, value, width, color=color)
            ax.text(x, value * 1.06, text(value), ha="center",
                    va="bottom", fontsize=6.5, rotation=90)
    # One legend entry per series, even where the first case has no PyTorch bar.
    handles = [plt.Rectangle((0, 0), 1, 1, color=color) for _, _, color in series]
    ax.legend(handles, [name for name, _, _ in series], loc="upper right", fontsize=9)

    ax.set_yscale("log")
    ax.set_ylim(bottom, top * 4)
    ax.set_xticks(range(len(cases)))
    ax.set_xticklabels(labels, fontsize=8)
    ax.set_ylabel("effective bandwidth, GB/s (log scale)")
    ax.grid(axis="y", which="both", alpha=0.3)
    ax.set_axisbelow(True)

    machine = results["machine"]
    ax.set_title(
        "trilinear3d vs PyTorch CPU: (gradOut + gradInput bytes) / time; memcpy counts read + write;\n"
        "streaming floor: the same bytes read once / written once, no arithmetic\n"
        f'{machine["cpu_model"]}, {machine["threads"]} threads each, ISA {machine["isa"]}, '
        f'PyTorch {machine["torch_version"]}, medians of {machine["reps"]}, {machine["date"]}',
        fontsize=9,
    )
    fig.tight_layout()
    fig.savefig(argv[2], dpi=120)
    print("plot_bench: wrote " + argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
