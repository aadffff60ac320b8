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
# the machine's cores), and with JOBS=1 one call of ocbench at a time; the
# tables and saved runs are the same for any N.
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
# call NAME TITLE ARGS...: ./ocbench ARGS into $out/NAME.txt, its saved runs
# into $out/data/NAME.json. The calls run at once, in the background, each
# on its --jobs workers, so that a call's longest run (raynal's at N = 64,
# helary-plouzeau-raynal's saturated at N = 256) overlaps the other calls'
# runs; finish waits for them and prints each title and table in the order
# of the calls. With JOBS=1 they run one at a time.
names=()
call() {
  local name=$1
  names+=("$name")
  echo "$2" > "$runs/$name.title"
  shift 2
  { st=0; ./ocbench "${jobs[@]}" "$@" --seed "$seed" --out "$runs/$name" --quiet > "$out/$name.txt" 2> "$runs/$name.err" || st=$?
    echo "$st" > "$runs/$name.status"; } &
  if [ "${JOBS:-}" = 1 ]; then wait; fi
}
finish() {
  wait
  local failed=0 name
  for name in "${names[@]}"; do
    cat "$runs/$name.title"
    case $name in load-*) ;; *) cat "$out/$name.txt" ;; esac
    cat "$runs/$name.err" >&2
    if [ "$(cat "$runs/$name.status")" != 0 ]; then
      echo "compare: $(cat "$runs/$name.title" | sed 's/^== //') exited with status $(cat "$runs/$name.status")" >&2
      failed=1
    else
      cp "$runs/$name"/runs/*.json "$out/data/$name.json"
    fi
  done
  return "$failed"
}
for w in sequential poisson saturated; do
  call "$w" "== $w: ./ocbench --algo (all but raynal) --nodes 16,64,256 --workload $w --requests $requests --seed $seed" \
    --algo "$algos" --nodes 16,64,256 --workload "$w" --requests "$requests"
  call "raynal-$w" "== $w: ./ocbench --algo raynal --nodes 16,64 --workload $w --requests 200 --seed $seed" \
    --algo raynal --nodes 16,64 --workload "$w" --requests 200
done
# The load sweep: offered load ρ = N × cs-time / think time at N = 64
# (cs-time 1δ); ρ = 1 is the poisson run above. Its tables are not printed.
for rho in 0.01 0.1 0.5 2 10; do
  think=$(awk "BEGIN { print 64 / $rho }")
  call "load-rho-$rho" "== load ρ = $rho: ./ocbench --algo (all but raynal) --nodes 64 --workload poisson --think $think --requests $requests --seed $seed" \
    --algo "$algos" --nodes 64 --workload poisson --think "$think" --requests "$requests"
done
finish
./ocbench report -o "$results" --name compare \
  --title "ocbench: every algorithm compared, failure-free (scripts/compare.sh $seed)" \
  "$out"/data/{sequential,poisson,saturated}.json "$out"/data/raynal-*.json "$out"/data/load-rho-*.json
if grep -q VIOLATION "$out"/*.txt; then
  echo "compare: a run hit a violation (see the VIOLATION lines above)" >&2
  exit 1
fi
