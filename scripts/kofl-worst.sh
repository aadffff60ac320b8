#!/usr/bin/env bash
# kofl's stabilization measured so that it could fail (issue 28): the
# adversarial initial configurations, Root's time-out as the parameter it
# is, and a worst-case climb. The paper's bound, "five CToken traversal
# time i.e., 5n", is checked in its unit, CToken traversals (traversals,
# max, bound, over bound); asynchronous rounds (beside 5n read as rounds,
# a unit the paper does not use) and δ are further measures. Writes
# published/kofl-worst.txt (each table with its command). About 3 minutes on
# 2 cores.
# Usage: scripts/kofl-worst.sh [seed]; JOBS=N runs ocbench with --jobs N
# (default: the machine's cores).
set -euo pipefail
cd "$(dirname "$0")/.."
seed=${1:-1}
make -s build
out=published/kofl-worst.txt
jobs=(${JOBS:+--jobs "$JOBS"})
row() { ./ocbench "${jobs[@]}" "$@" --wide --no-save --quiet | grep '^ *kofl'; }
{
  echo "# kofl: worst-case stabilization, measured by scripts/kofl-worst.sh $seed"
  echo "# commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown); $(nproc) cores; $(go version | cut -d' ' -f3)"
  echo "# the paper's bound: \"five CToken traversal time i.e., 5n\", in a model where delivery is finite but unbounded and"
  echo "# Root's time-out has no value. Checked in its unit: traversals mean/p99/max, bound (traversals), over bound."
  echo "# Further measures, not the paper's unit: hops/N (CToken hops / N), async rounds (a round ends once every message in"
  echo "# flight at its start is received) beside 5n read as rounds (runs over it), and δ (docs/algorithms/kofl.md)."
  echo "# Columns as ocbench prints them."
  echo
  echo "## adversarial configurations: ./ocbench --algo kofl --nodes N --ell 3 --k-max 2 --transient adversarial --adversary A --workload poisson --requests 100 --repeat 50 --seed $seed"
  ./ocbench --algo kofl --nodes 4 --ell 3 --k-max 2 --transient adversarial --adversary root-seq --requests 10 --wide --no-save --quiet | grep '^  algorithm' | sed 's/^/adversary   /'
  for a in root-seq overflow ctokens excess empty; do
    for n in 4 8 16 32; do
      printf '%-10s' "$a"; row --algo kofl --nodes "$n" --ell 3 --k-max 2 --transient adversarial --adversary "$a" --workload poisson --requests 100 --repeat 50 --seed "$seed"
    done
  done
  echo
  echo "## uniform arbitrary configurations, for comparison: ./ocbench --algo kofl --nodes N --ell 3 --k-max 2 --transient initial --workload poisson --requests 100 --repeat 50 --seed $seed"
  for n in 4 8 16 32; do row --algo kofl --nodes "$n" --ell 3 --k-max 2 --transient initial --workload poisson --requests 100 --repeat 50 --seed "$seed"; done
  echo
  echo "## how Root's time-out, which the paper leaves open, moves the figures (δ per ring node; default 4): ./ocbench --algo kofl --nodes 16 --ell 3 --k-max 2 --transient initial --timeout T --workload poisson --requests 100 --repeat 50 --seed $seed"
  for to in 1 1.5 2 4 8; do printf 'T=%-5s' "$to"; row --algo kofl --nodes 16 --ell 3 --k-max 2 --transient initial --timeout "$to" --workload poisson --requests 100 --repeat 50 --seed "$seed"; done
  echo
  for n in 4 8 16; do
    for tr in "initial" "adversarial --adversary excess"; do
      echo "## climb: ./ocbench --algo kofl --nodes $n --ell 3 --k-max 2 --transient $tr --workload poisson --requests 100 --climb 300 --seed $seed"
      # shellcheck disable=SC2086
      ./ocbench --algo kofl --nodes "$n" --ell 3 --k-max 2 --transient $tr --workload poisson --requests 100 --climb 300 --seed "$seed" --no-save --quiet | grep '^# \(worst found\|replay\|[0-9]* configurations\)'
    done
  done
} > "$out"
echo "wrote $out"
