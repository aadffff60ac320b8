#!/usr/bin/env bash
# What this machine's scheduler allows δ to be: the one-way wake-up delay
# of a sleeping process, without MPI or Go (scripts/wake-latency.c), for 2
# processes and for as many as an oversubscribed MPI job (default 32).
# A delivery under MPI is at least this late; no δ below the max seen here
# can hold over a run of hundreds of thousands of deliveries. About 30 s.
#   scripts/wake-latency.sh [PROCESSES...]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d)/wake-latency
trap 'rm -rf "$(dirname "$bin")"' EXIT
gcc -O2 -o "$bin" scripts/wake-latency.c
echo "# $(nproc) cores, $(date -u +%F), load average $(cut -d' ' -f1-3 /proc/loadavg)"
[ $# -gt 0 ] || set -- 2 32
for p in "$@"; do
	"$bin" "$p" $((40000 / p)) # about 40,000 wake-ups whatever the number of processes
done
