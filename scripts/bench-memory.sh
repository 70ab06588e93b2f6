#!/usr/bin/env bash
# Memory per series: heap bytes per series of each kind of metric (ours beside
# prometheus-client, the `prometheus` crate and metrics-exporter-prometheus), at this
# machine's core count and at an emulated 64 cores, one table per core count; then the memory
# targets. Not a timing benchmark: it runs in seconds once built and is safe on a busy machine.
#
# The histograms' per-core shards are sized from std::thread::available_parallelism, which
# reads sched_getaffinity: the LD_PRELOAD shim benches/tools/cpus.c makes that report
# BENCH_CPUS CPUs.
#
# Usage: bash scripts/bench-memory.sh           (the tables and the targets)
#        bash scripts/bench-memory.sh --scale   (and the scale test: 100,000 classic + native
#                                                histograms at this machine's core count and
#                                                at 64 cores)
# BENCH_MEMORY_CPUS="2 16 64" sets the core counts (default: this machine's and 64).
set -euo pipefail
cd "$(dirname "$0")/.."

scale=0
for arg in "$@"; do
  case $arg in
    --scale) scale=1 ;;
    *) echo "usage: bash scripts/bench-memory.sh [--scale]" >&2; exit 2 ;;
  esac
done

manifest=benches/Cargo.toml
target=$(realpath -m "${CARGO_TARGET_DIR:-benches/target}")
shim=$target/tools/libcpus.so
mkdir -p "$target/tools"
cc -shared -fPIC -O2 -Wall -Wextra -o "$shim" benches/tools/cpus.c -ldl
if [ "$(BENCH_CPUS=64 LD_PRELOAD=$shim nproc)" != 64 ]; then
  echo "bench-memory: the shim does not change the CPU count (nproc under it: $(BENCH_CPUS=64 LD_PRELOAD=$shim nproc))" >&2
  exit 1
fi

echo "== building (release)" >&2
cargo build --quiet --release --manifest-path "$manifest" \
  --bin memory --bin memory-scale --bin bench-report
bin=$target/release

echo "== machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for cpus in ${BENCH_MEMORY_CPUS:-$(nproc) 64}; do
  echo
  echo "== $cpus cores"
  BENCH_CPUS=$cpus LD_PRELOAD=$shim "$bin/memory"
done

echo
echo "targets:"
"$bin/bench-report" --memory

if [ "$scale" = 1 ]; then
  echo
  echo "== scale test, $(nproc) cores"
  "$bin/memory-scale" --series 100000
  echo
  echo "== scale test, 64 cores"
  BENCH_CPUS=64 LD_PRELOAD=$shim "$bin/memory-scale" --series 100000
fi
