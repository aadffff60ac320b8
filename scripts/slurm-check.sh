#!/usr/bin/env bash
# slurm-check.sh — scripts/slurm.sbatch under a real Slurm (make slurm-check,
# part of make check): a one-machine Slurm from Debian's packages
# (scripts/install-slurm.sh: installs, configures and starts munged,
# slurmctld and slurmd), then the default job (the ipsc2 preset, N = 32 and
# 64) submitted with sbatch, once per launcher:
# - mpirun inside the allocation, 32 ranks (-np 32 --oversubscribe: the
#   allocation holds one task per core of this machine);
# - srun --mpi=pmix, 8 ranks (-n 8 --overcommit), when `srun --mpi=list`
#   names pmix; otherwise the check says so and skips it.
# Each job must complete within SLURM_CHECK_TIMEOUT seconds (default 900;
# the job is cancelled then) and its record must equal the simulator's for
# the same seed, field for field but the runtime's fields (scripts/recordeq),
# on the ranks asked for, in virtual time, with no safety violation.
# The daemons this script started are stopped at its end; those that ran
# before keep running. Needs root.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
timeout_s=${SLURM_CHECK_TIMEOUT:-900}

if [ "$(id -u)" -ne 0 ]; then
	echo "slurm-check: needs root (scripts/install-slurm.sh starts Slurm's daemons)" >&2
	exit 1
fi
before=$(scripts/install-slurm.sh --running || true)
tmp=$(mktemp -d)
cleanup() {
	local started=()
	for d in slurmd slurmctld munged; do
		grep -qx "$d" <<<"$before" || started+=("$d")
	done
	if [ ${#started[@]} -gt 0 ]; then
		scripts/install-slurm.sh --stop "${started[@]}" || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
start=$(date +%s)
scripts/install-slurm.sh
echo "slurm-check: Slurm up in $(($(date +%s) - start))s"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

go build -tags mpi -o "$tmp/ocbench" ./cmd/ocbench
go build -o "$tmp/recordeq" ./scripts/recordeq
flags=(--json --no-save --quiet)
"$tmp/ocbench" "${flags[@]}" >"$tmp/sim.json"
cpus=$(sinfo -h -o %c | head -1)
passed=0
failed=0

# job LAUNCHER NP ENV… submits slurm.sbatch with ENV in its environment,
# waits for it, and compares its record with the simulator's.
job() {
	local launcher=$1 np=$2 jid state t0 secs what
	shift 2
	what="sbatch slurm.sbatch ($launcher, $np ranks)"
	t0=$(date +%s)
	# The #SBATCH lines are for a cluster (4 machines, 8 ranks each); here
	# one machine, one task per core.
	jid=$(cd "$tmp" && env OCBENCH_LAUNCHER="$launcher" "$@" sbatch --parsable \
		--nodes=1 --ntasks="$cpus" --ntasks-per-node="$cpus" --time=00:20:00 \
		--output="$tmp/$launcher.out" --error="$tmp/$launcher.err" \
		"$repo/scripts/slurm.sbatch" "${flags[@]}" --verify=false)
	state=""
	while [ $(($(date +%s) - t0)) -lt "$timeout_s" ]; do
		state=$(scontrol show job "$jid" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
		case $state in
		PENDING | RUNNING | CONFIGURING | COMPLETING | "") sleep 2 ;;
		*) break ;;
		esac
	done
	secs=$(($(date +%s) - t0))
	if [ "$state" != COMPLETED ]; then
		case $state in
		PENDING | RUNNING | CONFIGURING | COMPLETING | "")
			scancel "$jid" || true
			state="$state, cancelled after ${timeout_s}s"
			;;
		esac
		echo "FAIL: $what: job $jid $state"
		cat "$tmp/$launcher.err" 2>/dev/null || true
		failed=$((failed + 1))
	elif ! grep -q "\"ranks\": $np," "$tmp/$launcher.out" || ! grep -q '"runtime": "mpi"' "$tmp/$launcher.out" ||
		! grep -q '"clock": "virtual"' "$tmp/$launcher.out"; then
		echo "FAIL: $what: job $jid is not an MPI run on $np ranks in virtual time"
		cat "$tmp/$launcher.err"
		failed=$((failed + 1))
	elif ! "$tmp/recordeq" --ignore clock,identical_to_simulator "$tmp/sim.json" "$tmp/$launcher.out" >"$tmp/eq" 2>&1; then
		echo "FAIL: $what: job $jid's records are not the simulator's (recordeq sim job):"
		cat "$tmp/eq"
		failed=$((failed + 1))
	elif grep -q '"safety_violations": [1-9]' "$tmp/$launcher.out"; then
		echo "FAIL: $what: job $jid: a safety violation"
		failed=$((failed + 1))
	else
		echo "ok   $what: job $jid completed in ${secs}s, $(grep -c '"algorithm"' "$tmp/$launcher.out") runs, the simulator's records"
		passed=$((passed + 1))
	fi
}

job mpirun 32 OCBENCH_MPIRUN_FLAGS="-np 32 --oversubscribe"
if srun --mpi=list 2>&1 | grep -qw pmix; then
	job srun 8 OCBENCH_SRUN_FLAGS="-n 8 --ntasks-per-node=8 --overcommit"
else
	echo "skip sbatch slurm.sbatch (srun): srun --mpi=list names no pmix, so srun cannot start Open MPI's ranks here: $(srun --mpi=list 2>&1 | tr '\n' ' ')"
fi
echo "slurm-check: $passed passed, $failed failed ($(sinfo -V), $(($(date +%s) - start))s)"
[ "$failed" = 0 ]
