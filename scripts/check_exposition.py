#!/usr/bin/env python3
"""Parse a /metrics exposition in both text formats with Python's prometheus_client parsers.

Usage: check_exposition.py TEXT_0_0_4_FILE OPENMETRICS_FILE [EXPECTED_NAMES_FILE]

* TEXT_0_0_4_FILE is parsed with prometheus_client.parser.text_string_to_metric_families
  (the classic Prometheus text format 0.0.4);
* OPENMETRICS_FILE with prometheus_client.openmetrics.parser.text_string_to_metric_families.

Both must parse, describe the same families (name, type, samples and values), and every
histogram must be well formed (cumulative buckets, +Inf bucket equal to _count, finite _sum).
OpenMetrics' own types are compared with the Prometheus-text fallback Python's
prometheus_client writes for them: an info `x` is the gauge `x_info`, a stateset a gauge, and a
gaugehistogram `x` the histogram `x` of its buckets beside the gauges `x_gcount` and `x_gsum`.
With EXPECTED_NAMES_FILE (one family name per line), each name must be present in both.
Exits non-zero with a message on the first failure; prints a one-line summary otherwise.
"""

import math
import sys
from types import SimpleNamespace

from prometheus_client.openmetrics.parser import (
    text_string_to_metric_families as parse_openmetrics,
)
from prometheus_client.parser import text_string_to_metric_families as parse_text


def fail(message):
    print(f"check_exposition: FAILED: {message}", file=sys.stderr)
    sys.exit(1)


def families(parser, text, label):
    try:
        parsed = list(parser(text))
    except Exception as error:  # the parsers raise ValueError and friends
        fail(f"{label} does not parse: {error!r}")
    by_name = {}
    for family in parsed:
        if family.name in by_name:
            fail(f"{label}: family {family.name} appears twice")
        by_name[family.name] = family
    return by_name


def sample_key(sample):
    # The formats may render a bound differently ("1" in 0.0.4, "1.0" in OpenMetrics): compare
    # `le` as a number.
    labels = {
        k: (float(v) if k == "le" else v) for k, v in sample.labels.items()
    }
    return (sample.name, tuple(sorted(labels.items())))


def check_histogram(family, label):
    series = {}
    for sample in family.samples:
        labels = {k: v for k, v in sample.labels.items() if k != "le"}
        key = tuple(sorted(labels.items()))
        entry = series.setdefault(key, {"buckets": [], "count": None, "sum": None})
        if sample.name.endswith("_bucket"):
            entry["buckets"].append((float(sample.labels["le"]), sample.value))
        elif sample.name.endswith("_count"):
            entry["count"] = sample.value
        elif sample.name.endswith("_sum"):
            entry["sum"] = sample.value
    for key, entry in series.items():
        where = f"{label}: {family.name}{dict(key)}"
        buckets = entry["buckets"]
        if not buckets or not math.isinf(buckets[-1][0]):
            fail(f"{where}: no +Inf bucket")
        if any(b[1] > c[1] for b, c in zip(buckets, buckets[1:])):
            fail(f"{where}: buckets are not cumulative")
        if entry["count"] != buckets[-1][1]:
            fail(f"{where}: _count {entry['count']} != +Inf bucket {buckets[-1][1]}")
        if entry["sum"] is None or not math.isfinite(entry["sum"]):
            fail(f"{where}: _sum {entry['sum']} is not finite")
    return len(series)


def as_classic(om):
    """The OpenMetrics families `om` as the Prometheus text (0.0.4) falls back on them."""
    classic = {}
    for name, family in om.items():
        if family.type == "info":
            classic[name + "_info"] = SimpleNamespace(
                name=name + "_info", type="gauge", samples=family.samples
            )
        elif family.type == "stateset":
            classic[name] = SimpleNamespace(name=name, type="gauge", samples=family.samples)
        elif family.type == "gaugehistogram":
            check_gauge_histogram(family)
            by_suffix = {"_bucket": [], "_gcount": [], "_gsum": []}
            for sample in family.samples:
                by_suffix[sample.name[len(name):]].append(sample)
            classic[name] = SimpleNamespace(
                name=name, type="histogram", samples=by_suffix["_bucket"], gauge_histogram=True
            )
            for suffix in ("_gcount", "_gsum"):
                classic[name + suffix] = SimpleNamespace(
                    name=name + suffix, type="gauge", samples=by_suffix[suffix]
                )
        else:
            classic[name] = family
    return classic


def check_gauge_histogram(family):
    series = {}
    for sample in family.samples:
        labels = {k: v for k, v in sample.labels.items() if k != "le"}
        entry = series.setdefault(tuple(sorted(labels.items())), {"buckets": [], "gcount": None})
        if sample.name.endswith("_bucket"):
            entry["buckets"].append((float(sample.labels["le"]), sample.value))
        elif sample.name.endswith("_gcount"):
            entry["gcount"] = sample.value
    for key, entry in series.items():
        where = f"OpenMetrics: {family.name}{dict(key)}"
        buckets = entry["buckets"]
        if not buckets or not math.isinf(buckets[-1][0]):
            fail(f"{where}: no +Inf bucket")
        if any(b[1] > c[1] for b, c in zip(buckets, buckets[1:])):
            fail(f"{where}: buckets are not cumulative")
        if entry["gcount"] != buckets[-1][1]:
            fail(f"{where}: _gcount {entry['gcount']} != +Inf bucket {buckets[-1][1]}")


def main(argv):
    if len(argv) not in (3, 4):
        fail(__doc__.strip().splitlines()[2])
    with open(argv[1], encoding="utf-8") as f:
        text = f.read()
    with open(argv[2], encoding="utf-8") as f:
        openmetrics = f.read()

    classic = families(parse_text, text, "text format 0.0.4")
    om = as_classic(families(parse_openmetrics, openmetrics, "OpenMetrics"))
    if not classic:
        fail("the text exposition holds no family")
    if set(classic) != set(om):
        fail(
            "the formats describe different families: only in 0.0.4: "
            f"{sorted(set(classic) - set(om))}, only in OpenMetrics: {sorted(set(om) - set(classic))}"
        )

    samples = 0
    histograms = 0
    for name, family in sorted(classic.items()):
        other = om[name]
        if family.type != other.type:
            fail(f"{name}: type {family.type} in 0.0.4 but {other.type} in OpenMetrics")
        a = {sample_key(s): s.value for s in family.samples}
        b = {sample_key(s): s.value for s in other.samples}
        if a != b:
            diff = sorted(set(a.items()) ^ set(b.items()), key=str)[:6]
            fail(f"{name}: samples differ between the formats, e.g. {diff}")
        samples += len(a)
        if family.type == "histogram" and not getattr(other, "gauge_histogram", False):
            histograms += check_histogram(family, "0.0.4")
            check_histogram(other, "OpenMetrics")

    if len(argv) == 4:
        with open(argv[3], encoding="utf-8") as f:
            expected = [line.strip() for line in f if line.strip()]
        missing = [n for n in expected if n not in classic]
        if missing:
            fail(f"expected families missing: {missing}")

    print(
        f"check_exposition: OK: {len(classic)} families, {samples} samples, "
        f"{histograms} histogram series, identical in both formats"
    )


if __name__ == "__main__":
    main(sys.argv)
