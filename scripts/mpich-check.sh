#!/usr/bin/env bash
# mpich-check.sh — ocbench on MPICH (`-tags mpi,mpich`), part of `make check`.
# Installs MPICH if missing (scripts/install-mpich.sh), then:
# - vets the mpich-tagged build;
# - runs the binding's tests (package mpi) on 1 and 4 ranks;
# - runs the virtual-time tests of package rank on 4 ranks (records equal to
#   the simulator's, the merged trace byte for byte);
# - runs the default job on 32 ranks and a crash run on 4: the simulator's
#   records field for field (scripts/mpi-lib.sh's same, as mpi-check.sh);
# - requires bad input to end every rank with status 2 and one line (its bad).
# Prints one line per check; exit status 1 if any failed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-mpich.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=$tmp/ocbench
go vet -tags mpi,mpich ./mpi ./rank ./cmd/ocbench
go test -c -tags mpi,mpich -o "$tmp/mpi.test" ./mpi
go test -c -tags mpi,mpich -o "$tmp/rank.test" ./rank
go build -tags mpi,mpich -o "$bin" ./cmd/ocbench
run_cmd=(timeout 600 mpiexec.mpich)
launcher=mpiexec.mpich
. scripts/mpi-lib.sh
echo "mpich-check: MPICH $(pkg-config --modversion mpich), $(command -v mpiexec.mpich)"

# tests NAME NP TESTBINARY ARGS…: a test binary on NP ranks, ok or FAIL with
# its output's tail.
tests() {
	local name=$1 np=$2 start=$SECONDS code=0
	shift 2
	run -np "$np" "$@" >"$tmp/tests.out" 2>&1 || code=$?
	if [ "$code" = 0 ]; then
		echo "ok   $name, np $np ($((SECONDS - start)) s)"
	else
		echo "FAIL: $name, np $np: exit $code"
		tail -n 15 "$tmp/tests.out" | sed 's/^/      /'
		fail=1
	fi
}
tests "package mpi" 1 "$tmp/mpi.test" -test.timeout 5m
tests "package mpi" 4 "$tmp/mpi.test" -test.timeout 5m
tests "package rank, virtual time" 4 "$tmp/rank.test" -test.run 'MPIVirtual|MPITrace' -test.timeout 8m

same 32 "" ""
same 4 "" "" --algo opencube --nodes 32 --crashes 20 --workload poisson --requests 1
bad 4 --nodes 12
bad 3 --nodes 8
exit $fail
