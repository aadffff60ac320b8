#!/usr/bin/env bash
# Times MPI in virtual time (the default under mpirun) against the simulator
# on the same flags (issue 37's table) and prints one line per job and
# runtime: wall seconds, CPU seconds (user+sys of the whole process tree,
# mpirun included), the ratio of each to the simulator's, and the job's
# windows, collectives and bytes each rank gave the others (sync_cost), and
# whether rank 0's replay in the simulator found the records identical
# (--verify, not timed: --verify=false). On a shared machine read the CPU
# ratio and the counts; the wall ratio needs a quiet one. It asserts nothing
# (a speed target is not a test). The load average is printed first.
#   scripts/vt-speed.sh                        # every job, np 1 and 2
#   JOBS="sat16" NPS="1 2 4" scripts/vt-speed.sh
#   JOBS=default NPS="1 32" scripts/vt-speed.sh  # the default job
#   REQUESTS=20000 SEEDS="1 2 3" scripts/vt-speed.sh
#   BIN=/tmp/ocbench-main scripts/vt-speed.sh  # another build (tagged mpi)
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=${BIN:-$tmp/ocbench}
[ -n "${BIN:-}" ] || go build -tags mpi -o "$bin" ./cmd/ocbench
requests=${REQUESTS:-20000}
echo "# $(uptime)"

# measure NAME LABEL CMD…: runs CMD, prints its line (sim: the reference).
measure() {
	local name=$1 label=$2
	shift 2
	local code=0
	/usr/bin/time -f "%e %U %S" -o "$tmp/time" "$@" --json --no-save --quiet >"$tmp/out.json" 2>"$tmp/err" || code=$?
	python3 - "$name" "$label" "$code" "$tmp/time" "$tmp/out.json" "$tmp/err" "$tmp/sim" <<'PY'
import json, os, sys
name, label, code, tpath, path, err, simpath = sys.argv[1:]
wall, user, sys_ = (float(x) for x in open(tpath).read().split()[-3:])
cpu = user + sys_
if label == "sim":
    open(simpath, "w").write(f"{wall} {cpu}")
sw, sc = (float(x) for x in open(simpath).read().split())
try:
    runs = json.load(open(path))["runs"]
except Exception as e:
    print(f"{name} {label}: exit {code} after {wall:.1f}s, no JSON ({e}); stderr: {open(err).read().strip()[-300:]}")
    sys.exit(0)
sc_ = runs[0].get("sync_cost") or {}
b = sc_.get("bytes_per_rank") or [0]
ranks = sum(runs[0].get("cpu_seconds_per_rank") or [])
rc = f", ranks {ranks:.2f} s CPU" if ranks else ""
print(f"{name} {label}: {wall:.2f} s wall ({wall/sw:.2f}x), {cpu:.2f} s CPU ({cpu/sc:.2f}x){rc}, exit {code}, "
      f"{sc_.get('windows', 0)} windows, {sc_.get('collectives', 0)} collectives, {sum(b)/len(b):.0f} bytes per rank")
PY
}

for j in ${JOBS:-sat14 poi16 sat16 poi18 sat18}; do
	req="--requests $requests"
	case $j in
	default) flags="" req="" ;; # the default job (ten runs), e.g. NPS="1 32"
	sat14) flags="--nodes 16384 --workload saturated" ;;
	poi16) flags="--nodes 65536 --workload poisson" ;;
	sat16) flags="--nodes 65536 --workload saturated" ;;
	poi18) flags="--nodes 262144 --workload poisson" ;;
	sat18) flags="--nodes 262144 --workload saturated" ;;
	sat20) flags="--nodes 1048576 --workload saturated" ;;
	*) echo "vt-speed: unknown job $j (default sat14 poi16 sat16 poi18 sat18 sat20)" >&2; exit 2 ;;
	esac
	for seed in ${SEEDS:-1}; do
		f="$flags $req --seed $seed"
		# shellcheck disable=SC2086
		measure "$j seed $seed" sim "$bin" $f
		for np in ${NPS:-1 2}; do
			# shellcheck disable=SC2086
			measure "$j seed $seed" "np $np" scripts/mpirun.sh -np "$np" "$bin" $f --verify=false
		done
	done
done
