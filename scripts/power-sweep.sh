#!/usr/bin/env bash
# How the overhead per failure grows with N, with victims stratified by power
# (--crash-target power: crash k hits a node of power k mod (pmax+1)), crash
# gaps of 1000δ so that one failure is handled before the next, 30 crashes
# per power and 3 seeds per N. Prints, per N, the failures, the stratified
# estimate and (power, failures, mean) for every power. docs/failures.md
# reads it. About 5 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
make -s build
for n in 16 32 64 128 256 512 1024 2048 4096; do
  p=$(python3 -c "import math;print(int(math.log2($n)))")
  ./ocbench --nodes $n --crashes $((30*(p+1))) --crash-every 1000 --think $((10*n)) --workload poisson --cs-time 1 --downtime 20 --crash-target power --repeat 3 --no-save --json --check counts 2>/dev/null | python3 -c "
import json,sys
r=json.load(sys.stdin)['runs'][0]
print($n, r['failures'], round(r['overhead_stratified'],2), [(s['power'],s['failures'],round(s['mean'],1)) for s in r['overhead_by_victim_power']], r.get('violation',''))"
done
