#!/usr/bin/env bash
# The exhaustive explorer on the open-cube paper's §5 under both readings of
# its tie-break for equal phases (docs/failures.md): --protocol paper (the
# outcome §5 states: the smaller id becomes the father of the other) and
# --protocol paper-mechanism (the mechanism of its example: the larger id
# stays silent). N = 4, one crash, nodes 0..K−1 requesting (K = 2, 3, 4),
# with and without --strict-timers; then N = 8 with two requesters and
# strict timers. One search at a time; each prints its verdict line, and a
# violation's shortest run goes to explore-paper-*.jsonl in $OUT (default
# a temporary directory). Usage: scripts/paper-readings-explore.sh
# [max-states] (default 50000000); MAXMEM (default 4G) bounds each search.
set -euo pipefail
cd "$(dirname "$0")/.."
states=${1:-50000000}
maxmem=${MAXMEM:-4G}
out=${OUT:-$(mktemp -d)}
make -s build

# search PROTOCOL N K [FLAGS...]: one search, its verdict and shortest run.
search() {
  local p=$1 n=$2 k=$3
  shift 3
  local tr="$out/explore-$p-n$n-k$k${1:+-strict}.jsonl"
  echo "# ocbench explore --algo opencube --nodes $n --crashes 1 --protocol $p --requesters $k $*"
  ./ocbench explore --algo opencube --nodes "$n" --crashes 1 --protocol "$p" --requesters "$k" "$@" \
    --max-states "$states" --max-memory "$maxmem" --trace "$tr" --force --quiet 2>&1 | tail -n 40 || true
}

# The runs that end quickly first.
for p in paper-mechanism paper; do
  for k in 2 3 4; do
    search "$p" 4 "$k"
  done
  for k in 2 3; do
    search "$p" 4 "$k" --strict-timers
  done
done
for p in paper-mechanism paper; do
  search "$p" 8 2 --strict-timers
done
for p in paper-mechanism paper; do
  search "$p" 4 4 --strict-timers
done
