#!/usr/bin/env bash
# What this machine's scheduler allows δ to be: the one-way wake-up delay
# of a sleeping process, without MPI or Go (scripts/wake-latency.c), for 2
# processes and for as many as an oversubscribed MPI job (default 32), at
# the ipsc2 job's message rate under MPI at δ = 4 ms (RATE, rings per second
# in all: 2,000, its ten runs at 0.8 messages per δ each). A delivery under
# MPI is at least this late; no δ below the slowest wake-ups seen here can
# hold over a run of 150,000 deliveries. About 40 s.
#   scripts/wake-latency.sh [PROCESSES...]
#   RATE=4000 scripts/wake-latency.sh 8
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d)/wake-latency
trap 'rm -rf "$(dirname "$bin")"' EXIT
gcc -O2 -o "$bin" scripts/wake-latency.c
echo "# $(nproc) cores, $(date -u +%F), load average $(cut -d' ' -f1-3 /proc/loadavg)"
rate=${RATE:-2000}
echo "# $rate rings per second in all, 40,000 wake-ups per line"
[ $# -gt 0 ] || set -- 2 32
for p in "$@"; do
	# each of p processes rings every p/rate seconds on average
	"$bin" "$p" $((40000 / p)) $((p * 1000000 / rate))
done
