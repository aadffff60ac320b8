#!/usr/bin/env bash
# How the overhead per failure moves with N (8 … 1024), the request load and
# the crash spacing, in the simulator. Writes published/crash-sweep.txt (the
# tables), the saved runs in published/crash-sweep/data/ and, from them, the
# report with plots published/crash-sweep/report.md (through `ocbench report`).
# Every row sits under a header with its columns: every call prints one
# column set (--columns), and a block repeats the header only where it
# changes. Usage: scripts/crash-sweep.sh [seed]; RESULTS=DIR writes into DIR
# instead of published/; JOBS=N runs ocbench with --jobs N (default: the
# machine's cores).
set -euo pipefail
cd "$(dirname "$0")/.."
seed=${1:-1}
make -s build
results=${RESULTS:-published}
out=$results/crash-sweep.txt
plots=$results/crash-sweep
runs=$(mktemp -d)
trap 'rm -rf "$runs"' EXIT
common=(${JOBS:+--jobs "$JOBS"} --workload poisson --cs-time 1 --downtime 20 --seed "$seed" --repeat 3 --out "$runs" --quiet)
# Every call prints the same columns (--columns: a column shows even when it
# is "-" in every row, e.g. paper away from N = 32 and 64), so that the rows
# of several calls line up under one heading.
cols=algorithm,N,failures,overhead/failure,paper,ratio,differential,served,msg/cs,regenerated,stale-discarded,searches,false-susp,detection/req,recovery-mean,lost,violations
# run prints the table rows of one ocbench call (its flags after the common
# ones, so that they win), violations included (a run
# with a violation exits 1; the sweep goes on and the row says so).
run() { ./ocbench "${common[@]}" --columns "$cols" "$@" 2>&1 | awk '(!/^# / && !/^VALID: /) || /^# (VIOLATION|outside)/' || true; }
# headers keeps a table header line only where it differs from the last one
# kept since the last section line (## …) or blank line; the text from
# "algorithm" on is compared, runs of spaces as one, so row labels
# (think=32, N=8) and column widths do not count. With one column set
# (--columns) that is one header per block.
headers() {
  awk '/^#|^$/ { last = "" } / algorithm  / { h = substr($0, index($0, "algorithm")); gsub(/ +/, " ", h); if (h == last) next; last = h } { print }'
}
{
  echo "# Overhead per failure, measured by scripts/crash-sweep.sh $seed"
  echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ); machine: $(uname -srm), $(nproc) cores; $(go version | cut -d' ' -f3); commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo
  echo "## N: 100 crashes, gaps exp(mean 100δ), think exp(mean 10·N δ), 10 seeds (1000 failures per N)"
  for n in 8 16 32 64 128 256 512 1024 2048 4096; do
    run --nodes "$n" --crashes 100 --crash-every 100 --think $((10 * n)) --repeat 10 | cat
  done | headers
  echo
  echo "## load at N=32: saturated, then think exp(mean T δ); 100 crashes every 100δ, 30 seeds (3000 failures per row)"
  {
    run --nodes 32 --crashes 100 --crash-every 100 --workload saturated --repeat 30 | sed "s/^/saturated /"
    for t in 1 4 32 64 160 320 1280 3200; do
      run --nodes 32 --crashes 100 --crash-every 100 --think "$t" --repeat 30 | sed "s/^/think=$t /"
    done
  } | headers
  echo
  echo "## delay floor at N=32: delays uniform in [F·δ, δ] (F = 1: every delay exactly δ), think 320δ, 100 crashes every 100δ"
  {
    for f in 0 0.5 1; do
      run --nodes 32 --crashes 100 --crash-every 100 --think 320 --min-delay "$f" | sed "s/^/floor=$f /"
    done
    run --nodes 32 --crashes 100 --crash-every 100 --think 320 --min-delay 1 --fifo | sed "s/^/floor=1,fifo /"
  } | headers
  echo
  echo "## crash spacing at N=32: think exp(mean 320δ), 100 crashes every G δ"
  for g in 25 50 100 200 400 1000; do
    run --nodes 32 --crashes 100 --crash-every "$g" --think 320 | sed "s/^/every=$g /"
  done | headers
  echo
  echo "## every fault-tolerant algorithm (--algo ft: $(./ocbench --help | grep -o 'ft (those with a failure protocol: [^)]*' | sed 's/.*: //')), 3 seeds per row"
  echo "### N: 100 crashes, gaps exp(mean 100δ), think exp(mean 10·N δ)"
  for n in 8 16 32 64 128 256 512 1024; do
    run --algo ft --nodes "$n" --crashes 100 --crash-every 100 --think $((10 * n)) | sed "s/^/N=$n /"
  done | headers
  echo "### load, crash spacing, downtime, permanent crashes and crashes aimed at the token, at N=32 (100 crashes)"
  {
    run --algo ft --nodes 32 --crashes 100 --crash-every 100 --workload saturated | sed "s/^/saturated /"
    for t in 32 320 3200; do run --algo ft --nodes 32 --crashes 100 --crash-every 100 --think "$t" | sed "s/^/think=$t /"; done
    for g in 25 200 1000; do run --algo ft --nodes 32 --crashes 100 --crash-every "$g" --think 320 | sed "s/^/every=$g /"; done
    for d in 5 100; do run --algo ft --nodes 32 --crashes 100 --crash-every 200 --downtime "$d" --think 320 | sed "s/^/down=$d /"; done
    run --algo ft --nodes 32 --crashes 29 --crash-every 200 --permanent 1 --think 320 | sed "s/^/permanent /"
    run --algo ft --nodes 32 --crashes 100 --crash-every 200 --crash-target token --think 320 | sed "s/^/target=token /"
  } | headers
} | tee "$out"
rm -rf "$plots"
mkdir -p "$plots/data"
cp "$runs"/runs/*.json "$runs"/runs/runs.csv "$plots/data/"
./ocbench report -o "$plots" --title "Crash sweep: overhead per failure against N, load and crash spacing (scripts/crash-sweep.sh $seed)" "$plots/data"
echo "wrote $out and $plots/"
