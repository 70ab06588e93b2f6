#!/usr/bin/env bash
# Quick check of the core comparisons on any machine: short criterion runs of the counter,
# histogram, timer, per-token ITL record (local view, shared handle, batched baselines),
# request-lifecycle, scheduler-stats and scrape (same-shape encode in text and protobuf, the shape
# with native buckets in protobuf, scrape while recording)
# benchmarks, then one line per comparison with its ratio, and the targets. The runs take about a minute once
# the benchmarks are built (the first build takes a few minutes).
#
# Results go to benches/target/criterion-quick, apart from the full run's, so a quick check
# never overwrites the figures behind docs/benchmarks.md.
#
# Usage: scripts/bench-quick.sh            (BENCH_THREADS=4 scripts/bench-quick.sh for 4 threads)
set -euo pipefail
cd "$(dirname "$0")/.."

manifest=benches/Cargo.toml
export CRITERION_HOME="$PWD/benches/target/criterion-quick"
flags=(--warm-up-time 0.2 --measurement-time 0.5 --sample-size 20 --noplot)

echo "== building (release)" >&2
cargo build --quiet --release --manifest-path "$manifest" --benches --bin bench-report

echo "== running (short measurement; log in benches/target/bench-quick.log)" >&2
start=$(date +%s)
{
  cargo bench --manifest-path "$manifest" --bench counter --bench histogram --bench axes \
    --bench plugin --bench idle --bench local --bench timer --bench facade -- "${flags[@]}"
  # The vLLM recorders, without the (slower) encoding benchmarks.
  cargo bench --manifest-path "$manifest" --bench vllm -- "${flags[@]}" \
    'request_lifecycle|scheduler_stats'
  # Scrapes: the same shape through ours and prometheus-client's encoders (64 and 1,024 label
  # sets, both text formats and protobuf; with native buckets at 64, in protobuf), and
  # recording with and without a concurrent scraper.
  cargo bench --manifest-path "$manifest" --bench encode -- "${flags[@]}"
} >benches/target/bench-quick.log 2>&1 || {
  tail -n 30 benches/target/bench-quick.log >&2
  exit 1
}
echo "== ran in $(($(date +%s) - start)) s on $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2

cargo run --quiet --release --manifest-path "$manifest" --bin bench-report -- --dir "$CRITERION_HOME"
