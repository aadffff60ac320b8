#!/usr/bin/env bash
# How the overhead per failure moves with N (8 … 1024), the request load and
# the crash spacing, in the simulator. Writes results/crash-sweep.txt (the
# tables), the saved runs in results/crash-sweep/data/ and, from them, the
# report with plots results/crash-sweep/report.md (through `ocbench report`).
# Usage: scripts/crash-sweep.sh [seed]
set -euo pipefail
cd "$(dirname "$0")/.."
seed=${1:-1}
make -s build
out=results/crash-sweep.txt
plots=results/crash-sweep
runs=$(mktemp -d)
trap 'rm -rf "$runs"' EXIT
common=(--workload poisson --cs-time 1 --downtime 20 --seed "$seed" --repeat 3 --out "$runs" --quiet)
# run prints the table rows of one ocbench call, violations included (a run
# with a violation exits 1; the sweep goes on and the row says so).
run() { ./ocbench "$@" "${common[@]}" 2>&1 | grep -v '^# [^V]' || true; }
{
  echo "# Overhead per failure, measured by scripts/crash-sweep.sh $seed"
  echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ); machine: $(uname -srm), $(nproc) cores; $(go version | cut -d' ' -f3); commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo
  echo "## N: 100 crashes, gaps exp(mean 100δ), think exp(mean 10·N δ)"
  for n in 8 16 32 64 128 256 512 1024; do
    run --nodes "$n" --crashes 100 --crash-every 100 --think $((10 * n)) | { [ "$n" = 8 ] && cat || tail -n +2; }
  done
  echo
  echo "## load at N=32: think exp(mean T δ), 100 crashes every 100δ"
  for t in 32 64 160 320 1280 3200; do
    run --nodes 32 --crashes 100 --crash-every 100 --think "$t" | sed "s/^/think=$t /" | { [ "$t" = 32 ] && cat || tail -n +2; }
  done
  echo
  echo "## crash spacing at N=32: think exp(mean 320δ), 100 crashes every G δ"
  for g in 25 50 100 200 400 1000; do
    run --nodes 32 --crashes 100 --crash-every "$g" --think 320 | sed "s/^/every=$g /" | { [ "$g" = 25 ] && cat || tail -n +2; }
  done
} | tee "$out"
rm -rf "$plots"
mkdir -p "$plots/data"
cp "$runs"/runs/*.json "$runs"/runs/runs.csv "$plots/data/"
./ocbench report -o "$plots" --title "Crash sweep: overhead per failure against N, load and crash spacing (scripts/crash-sweep.sh $seed)" "$plots/data"
echo "wrote $out and $plots/"
