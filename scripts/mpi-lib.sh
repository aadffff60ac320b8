# mpi-lib.sh — sourced by scripts/mpi-check.sh (Open MPI) and
# scripts/mpich-check.sh (MPICH): the checks both make of an MPI build of
# ocbench. The caller sets tmp (a scratch directory), bin (the MPI build,
# which also runs alone as the simulator) and run_cmd (the launcher and its
# options, e.g. (scripts/mpirun.sh)); launcher names it in the output
# (default mpirun). It builds recordeq into tmp; fail becomes 1 when a check
# fails.
recordeq=$tmp/recordeq
go build -o "$recordeq" ./scripts/recordeq
# recordeq ignores the runtime's fields; results.RuntimeFields also names
# clock and identical_to_simulator, which its defaults do not (yet).
eq_flags=(--ignore clock,identical_to_simulator)
launcher=${launcher:-mpirun}
run() { "${run_cmd[@]}" "$@"; }
fail=0

# Bad input: exit 2 on every rank, one line on stderr, nothing on stdout.
bad() {
	local np=$1
	shift
	local code=0
	run -np "$np" "$bin" "$@" >"$tmp/out" 2>"$tmp/err" || code=$?
	if [ "$code" != 2 ] || [ "$(wc -l <"$tmp/err")" != 1 ] || [ -s "$tmp/out" ]; then
		echo "FAIL: $launcher -np $np ocbench $*: exit $code, stderr:"
		cat "$tmp/err"
		fail=1
	else
		echo "ok   $launcher -np $np ocbench $* -> exit 2: $(cat "$tmp/err")"
	fi
}

# Virtual time: the MPI job's record is the simulator's, field for field but
# the runtime's fields. same NP 'LAUNCHER OPTIONS' 'MPI FLAGS' FLAGS… runs
# FLAGS in the simulator, and FLAGS with the MPI-only flags under the
# launcher with -np NP (with --verify=false: recordeq is the check here),
# and compares the two records with recordeq.
same() {
	local np=$1 opts=$2 mpiflags=$3 code=0 start
	shift 3
	local what="$launcher ${opts:+$opts }-np $np ocbench${*:+ $*}${mpiflags:+ $mpiflags}"
	start=$(date +%s)
	"$bin" "$@" --json --no-save --quiet >"$tmp/sim.json" 2>"$tmp/sim.err" || code=$?
	if [ "$code" = 0 ]; then
		# shellcheck disable=SC2086 # options and flags, word-split on purpose
		timeout 300 "${run_cmd[@]}" $opts -np "$np" "$bin" "$@" $mpiflags --verify=false --json --no-save --quiet \
			>"$tmp/mpi.json" 2>"$tmp/mpi.err" || code=$?
	fi
	local secs=$(($(date +%s) - start))
	if [ "$code" != 0 ]; then
		echo "FAIL: $what: exit $code (124: time limit):"
		cat "$tmp/sim.err" "$tmp/mpi.err"
		fail=1
	elif ! grep -q '"runtime": "mpi"' "$tmp/mpi.json" || ! grep -q "\"ranks\": $np," "$tmp/mpi.json" ||
		! grep -q '"clock": "virtual"' "$tmp/mpi.json"; then
		echo "FAIL: $what: not an MPI run on $np ranks in virtual time"
		fail=1
	elif ! "$recordeq" "${eq_flags[@]}" "$tmp/sim.json" "$tmp/mpi.json" >"$tmp/eq.out" 2>&1; then
		echo "FAIL: $what: not the simulator's record (recordeq sim mpi):"
		cat "$tmp/eq.out"
		fail=1
	elif grep -q '"safety_violations": [1-9]' "$tmp/mpi.json"; then
		echo "FAIL: $what: a safety violation (the simulator's too)"
		fail=1
	else
		echo "ok   $what: the simulator's records (runs: $(grep -c '"algorithm"' "$tmp/mpi.json"), ${secs}s)"
	fi
}
