#!/usr/bin/env bash
# Self-stabilizing k-out-of-ℓ exclusion (kofl, issue 18): stabilization time
# after transient faults, against the paper's bound of 5 CToken traversals.
# Writes published/kofl-stabilization.txt (the tables, each with its command)
# and published/kofl-stabilization.json (the record of the first table: every
# run's stabilization, by seed).
# Usage: scripts/kofl-stabilization.sh [seed]; RESULTS=DIR writes into DIR
# instead of published/; JOBS=N runs ocbench with --jobs N (default: the
# machine's cores).
set -euo pipefail
cd "$(dirname "$0")/.."
seed=${1:-1}
make -s build
out=${RESULTS:-published}/kofl-stabilization.txt
json=${RESULTS:-published}/kofl-stabilization.json
mkdir -p "$(dirname "$out")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
jobs=(${JOBS:+--jobs "$JOBS"})
run() { echo; echo "## ./ocbench $*"; ./ocbench "${jobs[@]}" "$@" --no-save --quiet | grep -v '^# \(msg/CS\|sync\|δ =\|algorithms\|stabilization:\|k-exclusion\)'; }
{
  echo "# kofl: stabilization after transient faults, measured by scripts/kofl-stabilization.sh $seed"
  echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ); machine: $(uname -srm), $(nproc) cores; $(go version | cut -d' ' -f3)"
  echo "# commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "# rounds: CToken traversals (Root's STARTs) from the last fault until legitimate for good; hops/N: CToken hops / N;"
  echo "# δ: virtual time; bound: the paper's 5 traversals (5n). docs/algorithms/kofl.md says what each means."
  echo
  echo "## the issue's command: ./ocbench --algo kofl --nodes 16 --ell 5 --k-max 3 --transient initial --repeat 1000 --seed $seed"
  ./ocbench "${jobs[@]}" --algo kofl --nodes 16 --ell 5 --k-max 3 --transient initial --repeat 1000 --seed "$seed" --out "$tmp" --quiet
  cp "$tmp"/runs/*.json "$json"
  # Other sizes, the during plan, and the critical sections' length (poisson, 100 requests per run).
  for n in 4 16 64; do
    for tr in initial during; do
      run --algo kofl --nodes "$n" --ell 5 --k-max 3 --transient "$tr" --workload poisson --requests 100 --repeat 200 --seed "$seed"
    done
  done
  run --algo kofl --nodes 16 --ell 1 --k-max 1 --transient initial --workload saturated --requests 100 --repeat 200 --seed "$seed"
  run --algo kofl --nodes 16 --ell 5 --k-max 3 --transient initial --workload saturated --cs-time 200 --requests 100 --repeat 50 --seed "$seed"
  # The worst-case search (a random search over seeds) under corruption events.
  run --algo kofl --nodes 16 --ell 5 --k-max 3 --transient during --workload poisson --requests 200 --search 1000 --seed "$seed"
  # Messages per entry after stabilization against k and ℓ (no faults).
  echo
  echo "## messages per entry: ./ocbench --algo kofl --nodes 16 --ell L --k-max K --workload W --requests 500 --repeat 3 --seed $seed"
  echo "workload ℓ K mean_k msgs_per_entry response_mean_δ"
  for wl in saturated poisson; do
    for lk in "1 1" "3 1" "3 3" "5 1" "5 3" "5 5" "8 1" "8 8"; do
      set -- $lk
      ./ocbench "${jobs[@]}" --algo kofl --nodes 16 --ell "$1" --k-max "$2" --workload "$wl" --requests 500 --repeat 3 --seed "$seed" --json --no-save --quiet |
        jq -r --arg wl "$wl" '.runs[0] | [$wl, .ell, .k_max, ((.k_distribution | to_entries | map((.key|tonumber) * .value) | add) / (.k_distribution | add) * 100 | round / 100), (.msgs_per_entry * 100 | round / 100), (.response_delta.mean * 100 | round / 100)] | @tsv'
    done
  done
} | tee "$out"
echo "wrote $out and $json"
