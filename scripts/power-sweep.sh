#!/usr/bin/env bash
# How the overhead per failure grows with N, with victims stratified by power
# (--crash-target power: crash k hits a node of power k mod (pmax+1)), crash
# gaps of 1000δ so that one failure is handled before the next, 30 crashes
# per power and 3 seeds per N. Prints, and writes to published/power-sweep.txt
# (RESULTS=DIR: DIR/power-sweep.txt), one line per N: N, the failures, the
# stratified estimate and (power, failures, mean) for every power, then any
# violation. It fits no growth law; docs/failures.md reads it. JOBS=N runs
# ocbench with --jobs N (default: the machine's cores).
set -euo pipefail
cd "$(dirname "$0")/.."
make -s build
jobs=(${JOBS:+--jobs "$JOBS"})
out=${RESULTS:-published}/power-sweep.txt
mkdir -p "$(dirname "$out")"
{
echo "# Overhead per failure by the victim's power, measured by scripts/power-sweep.sh"
echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ); machine: $(uname -srm), $(nproc) cores; $(go version | cut -d' ' -f3)"
echo "# commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "# ./ocbench --nodes N --crashes 30·(log2 N + 1) --crash-every 1000 --think 10·N --workload poisson --cs-time 1 --downtime 20 --crash-target power --repeat 3 --check counts"
echo "# N, failures, stratified overhead per failure (msg), [(victim power, failures, mean overhead)], violation"
for n in 16 32 64 128 256 512 1024 2048 4096; do
  p=$(python3 -c "import math;print(int(math.log2($n)))")
  ./ocbench "${jobs[@]}" --nodes $n --crashes $((30*(p+1))) --crash-every 1000 --think $((10*n)) --workload poisson --cs-time 1 --downtime 20 --crash-target power --repeat 3 --no-save --json --check counts 2>/dev/null | python3 -c "
import json,sys
r=json.load(sys.stdin)['runs'][0]
print($n, r['failures'], round(r['overhead_stratified'],2), [(s['power'],s['failures'],round(s['mean'],1)) for s in r['overhead_by_victim_power']], r.get('violation',''))"
done
} | tee "$out"
