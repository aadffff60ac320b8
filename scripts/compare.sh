#!/usr/bin/env bash
# The comparison of every algorithm (ocbench --algo all): messages per
# critical section (mean, p99, max) beside the cost its paper or the survey
# states, synchronization delay and response time, at N = 16, 64 and 256
# under the sequential, poisson and saturated workloads, and messages
# against the offered load at N = 64. Rewrites published/compare.md (tables
# and plots, made by `ocbench report`), its plots in published/compare/, the
# readable tables published/compare/*.txt and the saved runs
# published/compare/data/*.json.
# Usage: scripts/compare.sh [seed]; RESULTS=DIR writes into DIR instead of
# published/; JOBS=N runs ocbench with --jobs N.
set -euo pipefail
cd "$(dirname "$0")/.."
seed=${1:-1}
requests=2000
# JOBS=N: every run of ocbench on N workers (--jobs N; default: ocbench's,
# the machine's cores); the tables and saved runs are the same for any N.
jobs=(${JOBS:+--jobs "$JOBS"})
make -s build
results=${RESULTS:-published}
out=$results/compare
runs=$(mktemp -d)
trap 'rm -rf "$runs"' EXIT
rm -rf "$out" "$results/compare.md"
mkdir -p "$out/data"
# Every algorithm of the group all but raynal, whose 2(N−1)² messages per
# request (more under saturation: it polls) would take hours at N = 256; it
# runs at N = 16 and 64 with 200 requests.
algos=$(./ocbench --algo list | awk '/^  / && / all/ && $1 != "raynal" { print $1 }' | paste -sd, -)
for w in sequential poisson saturated; do
  echo "== $w: ./ocbench --algo (all but raynal) --nodes 16,64,256 --workload $w --requests $requests --seed $seed"
  ./ocbench "${jobs[@]}" --algo "$algos" --nodes 16,64,256 --workload "$w" --requests "$requests" --seed "$seed" \
    --out "$runs/$w" --quiet | tee "$out/$w.txt"
  cp "$runs/$w"/runs/*.json "$out/data/$w.json"
  echo "== $w: ./ocbench --algo raynal --nodes 16,64 --workload $w --requests 200 --seed $seed"
  ./ocbench "${jobs[@]}" --algo raynal --nodes 16,64 --workload "$w" --requests 200 --seed "$seed" \
    --out "$runs/raynal-$w" --quiet | tee "$out/raynal-$w.txt"
  cp "$runs/raynal-$w"/runs/*.json "$out/data/raynal-$w.json"
done
# The load sweep: offered load ρ = N × cs-time / think time at N = 64
# (cs-time 1δ); ρ = 1 is the poisson run above.
for rho in 0.01 0.1 0.5 2 10; do
  think=$(awk "BEGIN { print 64 / $rho }")
  echo "== load ρ = $rho: ./ocbench --algo (all but raynal) --nodes 64 --workload poisson --think $think --requests $requests --seed $seed"
  ./ocbench "${jobs[@]}" --algo "$algos" --nodes 64 --workload poisson --think "$think" --requests "$requests" --seed "$seed" \
    --out "$runs/load-$rho" --quiet > "$out/load-rho-$rho.txt"
  cp "$runs/load-$rho"/runs/*.json "$out/data/load-rho-$rho.json"
done
./ocbench report -o "$results" --name compare \
  --title "ocbench: every algorithm compared, failure-free (scripts/compare.sh $seed)" \
  "$out"/data/{sequential,poisson,saturated}.json "$out"/data/raynal-*.json "$out"/data/load-rho-*.json
if grep -q VIOLATION "$out"/*.txt; then
  echo "compare: a run hit a violation (see the VIOLATION lines above)" >&2
  exit 1
fi
