#!/usr/bin/env python3
"""Plot TTFT and ITL distributions from a `frontend --print-metrics` exposition.

    cargo run --release --example frontend -- --print-metrics --requests 2000 --speed 20 \
        --seed 1 --churn-interval 0 > /tmp/demo.prom
    python3 scripts/plot_latency.py /tmp/demo.prom -o docs/images/latency.png

Reads the Prometheus text format, sums each histogram's buckets over engines, and draws per
bucket the share of samples (bars) with the cumulative distribution on top (line), which is
what `histogram_quantile` interpolates over. Needs matplotlib (`pip install matplotlib`).
"""

import argparse
import math
import re
import sys
from collections import defaultdict

SAMPLE = re.compile(r'^(?P<name>[a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(?P<labels>.*)\})?\s+(?P<value>\S+)$')
LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')

PANELS = [
    ("vllm:time_to_first_token_seconds", "Time to first token"),
    ("vllm:inter_token_latency_seconds", "Inter-token latency"),
]


def read_buckets(text, histogram):
    """Cumulative counts by upper bound, summed over every series of the histogram."""
    cumulative = defaultdict(float)
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        if not m or m["name"] != histogram + "_bucket":
            continue
        labels = dict(LABEL.findall(m["labels"] or ""))
        le = labels.get("le")
        if le is None:
            continue
        cumulative[math.inf if le == "+Inf" else float(le)] += float(m["value"])
    return sorted(cumulative.items())


def fmt_bound(le):
    if math.isinf(le):
        return "+Inf"
    return f"{le * 1000:g} ms" if le < 1 else f"{le:g} s"


def quantile(buckets, q):
    """Prometheus' histogram_quantile: linear interpolation inside the bucket."""
    total = buckets[-1][1]
    if total == 0:
        return math.nan
    rank = q * total
    prev_le, prev_count = 0.0, 0.0
    for le, count in buckets:
        if count >= rank:
            if math.isinf(le):
                return prev_le
            if count == prev_count:
                return le
            return prev_le + (le - prev_le) * (rank - prev_count) / (count - prev_count)
        prev_le, prev_count = le, count
    return math.nan


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("exposition", nargs="?", default="-", help="file, or - for stdin")
    parser.add_argument("-o", "--output", default="docs/images/latency.png")
    parser.add_argument("--title", default="Simulated serving frontend (metric-handles demo)")
    args = parser.parse_args()

    text = sys.stdin.read() if args.exposition == "-" else open(args.exposition).read()

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(PANELS), figsize=(13, 4.8))
    for ax, (name, title) in zip(axes, PANELS):
        buckets = read_buckets(text, name)
        if not buckets or buckets[-1][1] == 0:
            sys.exit(f"error: no samples of {name} in the exposition")
        total = buckets[-1][1]
        # Trim empty buckets at both ends so the populated range fills the panel.
        per_bucket = [c - p for (_, c), (_, p) in zip(buckets, [(0, 0.0)] + buckets[:-1])]
        first = next(i for i, c in enumerate(per_bucket) if c > 0)
        last = max(i for i, c in enumerate(per_bucket) if c > 0)
        lo, hi = max(first - 1, 0), min(last + 1, len(buckets) - 1)
        labels = ["≤ " + fmt_bound(le) for le, _ in buckets[lo : hi + 1]]
        shares = [100 * c / total for c in per_bucket[lo : hi + 1]]
        cdf = [100 * c / total for _, c in buckets[lo : hi + 1]]
        xs = range(len(labels))
        ax.bar(xs, shares, color="#4C72B0", label="samples in bucket (%)")
        ax.set_xticks(list(xs))
        ax.set_xticklabels(labels, rotation=45, ha="right", fontsize=8)
        ax.set_ylabel("% of samples in bucket")
        ax.set_ylim(0, 100)
        twin = ax.twinx()
        twin.plot(xs, cdf, color="#DD8452", marker="o", label="cumulative (%)")
        twin.set_ylim(0, 102)
        twin.set_ylabel("cumulative %")
        p50, p90, p99 = (quantile(buckets, q) for q in (0.5, 0.9, 0.99))
        ax.set_title(
            f"{title}  ({name})\n{int(total)} samples · p50 {p50 * 1000:.0f} ms · "
            f"p90 {p90 * 1000:.0f} ms · p99 {p99 * 1000:.0f} ms",
            fontsize=10,
        )
        handles = ax.get_legend_handles_labels()[0] + twin.get_legend_handles_labels()[0]
        ax.legend(handles, [h.get_label() for h in handles], loc="center right", fontsize=8)
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle(args.title)
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
