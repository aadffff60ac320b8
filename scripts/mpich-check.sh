#!/usr/bin/env bash
# mpich-check.sh — ocbench on MPICH (`-tags mpi,mpich`), part of `make check`.
# Installs MPICH if missing (scripts/install-mpich.sh), then:
# - vets the mpich-tagged build;
# - runs the binding's tests (package mpi) on 1 and 4 ranks;
# - runs the virtual-time tests of package rank on 4 ranks (records equal to
#   the simulator's, the merged trace byte for byte);
# - runs the default job on 32 ranks and requires both rows "identical to the
#   simulator" and the simulator's numbers;
# - requires bad input to end every rank with status 2.
# Prints one line per check; exit status 1 if any failed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-mpich.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run=(timeout 600 mpiexec.mpich)
fail=0
check() { # check NAME CMD…: runs CMD, prints ok or FAIL with its output's tail
	local name=$1 start=$SECONDS
	shift
	if "$@" >"$tmp/out" 2>&1; then
		echo "ok    $name ($((SECONDS - start)) s)"
	else
		echo "FAIL  $name (exit $?)"
		tail -n 15 "$tmp/out" | sed 's/^/      /'
		fail=1
	fi
}

go vet -tags mpi,mpich ./mpi ./rank ./cmd/ocbench
go test -c -tags mpi,mpich -o "$tmp/mpi.test" ./mpi
go test -c -tags mpi,mpich -o "$tmp/rank.test" ./rank
go build -tags mpi,mpich -o "$tmp/ocbench" ./cmd/ocbench
go build -o "$tmp/ocbench-sim" ./cmd/ocbench
echo "mpich-check: $(pkg-config --modversion mpich), $(command -v mpiexec.mpich)"

check "package mpi, 1 rank" "${run[@]}" -n 1 "$tmp/mpi.test" -test.timeout 5m
check "package mpi, 4 ranks" "${run[@]}" -n 4 "$tmp/mpi.test" -test.timeout 5m
check "package rank, virtual time, 4 ranks" "${run[@]}" -n 4 "$tmp/rank.test" -test.run 'MPIVirtual|MPITrace' -test.timeout 8m

# The default job: both rows identical to the simulator, and the same table.
default() {
	"${run[@]}" -n 32 "$tmp/ocbench" --no-save >"$tmp/mpi.txt"
	"$tmp/ocbench-sim" --no-save >"$tmp/sim.txt"
	[ "$(grep -c '^# identical to the simulator' "$tmp/mpi.txt")" = 2 ] || {
		echo "not two 'identical to the simulator' lines:"
		cat "$tmp/mpi.txt"
		return 1
	}
	diff <(grep -v '^#' "$tmp/sim.txt") <(grep -v '^#' "$tmp/mpi.txt")
}
check "mpiexec.mpich -n 32 ocbench (the default job): the simulator's table" default

# Bad input: status 2 on every rank (mpiexec passes the highest on), one line.
bad() {
	local got=0
	"${run[@]}" -n 4 "$tmp/ocbench" --nodes 12 --no-save >"$tmp/bad.out" 2>"$tmp/bad.err" || got=$?
	[ "$got" = 2 ] && [ "$(wc -l <"$tmp/bad.err")" = 1 ] && [ ! -s "$tmp/bad.out" ] || {
		echo "exit $got, stderr:"
		cat "$tmp/bad.err"
		return 1
	}
}
check "mpiexec.mpich -n 4 ocbench --nodes 12: exit 2, one line" bad
exit $fail
