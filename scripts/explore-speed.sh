#!/usr/bin/env bash
# The explorer's speed case (issue 38): the open-cube with its failure
# protocol as §5 writes it, N = 4, one crash, every node requesting once,
# searched RUNS times on one worker (the CPU-bound figure) and on all
# cores. Prints, per run, the wall-clock states/s the explorer reports,
# the states per CPU second (user+sys of the whole process), the CPU time
# per state, the bytes per stored state and the peak RSS, with the load
# average before each run (the figures mean little on a loaded machine).
# Usage: scripts/explore-speed.sh [runs] [extra explore flags...]
# OCBENCH=path measures that ocbench binary instead of a build of this
# checkout (to compare two builds, run it once for each, in turn).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
shift || true
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [[ -n ${OCBENCH:-} ]]; then
  cp "$OCBENCH" "$tmp/ocbench"
  echo "# $OCBENCH; $(nproc) cores"
else
  go build -o "$tmp/ocbench" ./cmd/ocbench
  echo "# commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown); $(nproc) cores; $(go version | cut -d' ' -f3)"
fi
echo "# ocbench explore --algo opencube --nodes 4 --crashes 1 --protocol paper --trace - --quiet --workers W $*"
printf '%-8s %-4s %10s %12s %14s %10s %9s %9s  %s\n' workers run states 'states/s' 'states/CPU s' 'CPU ns/st' 'B/state' 'RSS MiB' load
for w in 1 "$(nproc)"; do
  for r in $(seq "$runs"); do
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    /usr/bin/time -f '%U %S %M' -o "$tmp/time" "$tmp/ocbench" explore --algo opencube --nodes 4 --crashes 1 --protocol paper \
      --trace - --quiet --workers "$w" "$@" >"$tmp/out" || true
    read -r user sys rss < <(tail -1 "$tmp/time")
    stats=$(grep -o '[0-9]* states, [0-9]* transitions.*B/state stored' "$tmp/out" | head -1)
    states=${stats%% states,*}
    rate=$(sed -n 's/.*(\([0-9]*\) states\/s;.*/\1/p' <<<"$stats")
    bps=$(sed -n 's/.*; \([0-9.]*\) B\/state stored.*/\1/p' <<<"$stats")
    awk -v w="$w" -v r="$r" -v n="$states" -v rate="$rate" -v u="$user" -v s="$sys" -v b="$bps" -v m="$rss" -v l="$load" \
      'BEGIN { c = u + s; printf "%-8s %-4s %10d %12d %14.0f %10.0f %9s %9.0f  %s\n", w, r, n, rate, n / c, c / n * 1e9, b, m / 1024, l }'
  done
done
