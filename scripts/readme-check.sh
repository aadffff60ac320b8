#!/usr/bin/env bash
# Follows README as a new user would: clones the repository's HEAD into a
# temporary directory and runs README's commands there, as written, each
# with a time limit, then prints one line per command (ok or FAIL, seconds)
# and "N passed, N failed". Exit status 1 if any failed.
#
# Usage: scripts/readme-check.sh [--long] [--mpi]
#   default  the set-up's main job, the build, --help and every example it
#            lists, the report of results/failure-free.json, make ipsc2,
#            make scale, make bench, scripts/power-sweep.sh (about 7 minutes)
#   --long   also make test, scripts/failure-free.sh and scripts/crash-sweep.sh
#            (about 15 minutes more)
#   --mpi    also make mpi and README's mpirun commands (about 3 minutes;
#            installs OpenMPI from Debian if missing)
set -uo pipefail
long=false
withmpi=false
for a in "$@"; do
	case $a in
	--long) long=true ;;
	--mpi) withmpi=true ;;
	*) echo "readme-check: unknown argument $a (usage: scripts/readme-check.sh [--long] [--mpi])" >&2; exit 2 ;;
	esac
done
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q "$repo" "$work/ocbench" || { echo "readme-check: cannot clone $repo" >&2; exit 1; }
cd "$work/ocbench" || exit 1
export PATH="/usr/local/go/bin:$PATH"
passed=0
failed=0
# run LIMIT CMD… runs one command line in the clone, within LIMIT seconds;
# it must exit 0, or 1 with the violations named for a run that breaks the
# bound δ on purpose (--delay-violations: README says it shows what breaks).
run() {
	local limit=$1
	shift
	local start=$SECONDS want=0 got
	[[ "$*" == *--delay-violations* ]] && want=1
	timeout "$limit" bash -c "$*" >"$work/out" 2>&1
	got=$?
	if [ "$got" -eq "$want" ] && { [ "$want" -eq 0 ] || grep -q VIOLATION "$work/out"; }; then
		printf 'ok    %4ds  %s\n' $((SECONDS - start)) "$*"
		passed=$((passed + 1))
	else
		printf 'FAIL  %4ds  %s\n' $((SECONDS - start)) "$*"
		tail -n 5 "$work/out" | sed 's/^/        /'
		failed=$((failed + 1))
	fi
}
run 300 go run ./cmd/ocbench
run 300 make build
run 10 ./ocbench --help
# Every example of --help, as written (ocbench is ./ocbench here).
while IFS= read -r ex; do
	run 120 "./$ex"
done < <(./ocbench --help | sed -n '/^Examples:/,$p' | grep -E '^  ocbench' | sed -E 's/^  //; s/ {2,}.*$//')
run 60 ./ocbench report results/failure-free.json
run 60 make ipsc2
run 120 make scale
run 120 make bench
run 900 scripts/power-sweep.sh
if $long; then
	run 900 make test
	run 600 scripts/failure-free.sh
	run 600 make compare
	run 900 scripts/crash-sweep.sh
fi
if $withmpi; then
	run 600 make mpi
	run 300 scripts/mpirun.sh -np 32 ./ocbench
	run 300 scripts/mpirun.sh -np 4 ./ocbench --nodes 64 --workload poisson --crashes 50 --crash-every 100
fi
echo "readme-check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
