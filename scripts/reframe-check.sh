#!/usr/bin/env bash
# reframe-check.sh — hpc/reframe's check run by ReFrame on this machine
# (make reframe-check, part of make check):
# - ReFrame from scripts/install-reframe.sh (PyPI's reframe-hpc in a
#   virtual environment under ~/.cache/ocbench, or REFRAME_SRC);
# - reframe -C hpc/reframe/settings.py -c hpc/reframe/ocbench_check.py
#   --system ocbench:local -r: ocbench built with MPI, the default job on 4
#   ranks under mpirun; it must pass (sanity and performance) and run one
#   test case (REFRAME_SYSTEM=ocbench:slurm: through Slurm and srun
#   instead, with Slurm running: make slurm); perflogs are kept in $OCBENCH_PERFLOG_DIR (default
#   ~/.cache/ocbench/perflogs), one line per run;
# - the check's patterns (hpc/reframe/ocbench_patterns.py) must pass the
#   job's output and fail it with a violation, or with an overhead per
#   failure 20% over ocbench's, written in.
# Where ReFrame cannot be installed (no PyPI, no REFRAME_SRC), the script
# says so and runs the check's job by hand instead (the same commands,
# under mpirun) with the same patterns; OCBENCH_REFRAME=required makes a
# missing ReFrame fail instead. Output ends with "N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
# No __pycache__ beside the check in the repository.
export PYTHONDONTWRITEBYTECODE=1
cache=${OCBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ocbench}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)
passed=0
failed=0
ok() {
	echo "ok   $*"
	passed=$((passed + 1))
}
fail() {
	echo "FAIL: $*"
	failed=$((failed + 1))
}
out=""

if rf=$(scripts/install-reframe.sh); then
	system=${REFRAME_SYSTEM:-ocbench:local}
	perflogs=${OCBENCH_PERFLOG_DIR:-$cache/perflogs}
	t0=$(date +%s)
	code=0
	(cd "$tmp" && TMPDIR="$tmp" "$rf" -C "$repo/hpc/reframe/settings.py" -c "$repo/hpc/reframe/ocbench_check.py" \
		--system "$system" --prefix "$tmp/rfm" --perflogdir "$perflogs" -r) >"$tmp/reframe.out" 2>&1 || code=$?
	out=$tmp/rfm/output/ocbench/${system#ocbench:}/builtin/OcbenchDefaultJob/rfm_job.out
	if [ "$code" = 0 ] && grep -q 'Ran 1/1 test case' "$tmp/reframe.out"; then
		ok "reframe ($("$rf" --version)) ocbench_check.py --system $system: passed in $(($(date +%s) - t0))s: $(grep '^P: ' "$tmp/reframe.out" | sed 's/^P: //' | paste -sd';' -); perflog in $perflogs"
	else
		fail "reframe ocbench_check.py --system $system: exit $code:"
		cat "$tmp/reframe.out"
	fi
elif [ "${OCBENCH_REFRAME:-}" = required ]; then
	fail "ReFrame could not be installed (scripts/install-reframe.sh) and OCBENCH_REFRAME=required"
else
	echo "skip reframe: ReFrame could not be installed here (scripts/install-reframe.sh: no PyPI, no REFRAME_SRC); the check's job runs without it, with the check's patterns"
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	go build -tags mpi -o "$tmp/ocbench" ./cmd/ocbench
	go build -o "$tmp/recordeq" ./scripts/recordeq
	out=$tmp/job.out
	t0=$(date +%s)
	(
		cd "$tmp"
		# The check's job: ocbench_check.py's run, prerun and postrun commands.
		t0=$(date +%s.%N)
		mpirun --oversubscribe -np 4 ./ocbench
		echo "wall_seconds: $(awk -v t0="$t0" -v t1="$(date +%s.%N)" 'BEGIN { printf "%.2f", t1 - t0 }')"
		./ocbench --no-save --json --quiet >sim.json
		./recordeq --ignore clock,identical_to_simulator sim.json runs/*.json && echo "recordeq: records equal the simulator's"
	) >"$out" 2>"$tmp/job.err" || true
	if python3 hpc/reframe/ocbench_patterns.py "$out" >"$tmp/patterns.out"; then
		ok "the check's job without ReFrame (mpirun -np 4 ocbench) in $(($(date +%s) - t0))s: $(paste -sd';' "$tmp/patterns.out")"
	else
		fail "the check's job without ReFrame (mpirun -np 4 ocbench):"
		cat "$tmp/patterns.out" "$out" "$tmp/job.err"
	fi
fi

# The patterns fail an output that should fail: a violation, or an
# overhead per failure 20% over the one measured, at N = 32.
if [ -s "$out" ]; then
	sed -E 's/^(\s*opencube\s+32\s.*\s)0(\s*)$/\11\2/' "$out" >"$tmp/violation.out"
	awk '$1 == "opencube" && $2 == 32 { sub($4, sprintf("%.2f", $4 * 1.2)) } { print }' "$out" >"$tmp/over.out"
	for bad in violation over; do
		what="a violation"
		[ "$bad" = violation ] || what="an overhead per failure 20% higher"
		if cmp -s "$out" "$tmp/$bad.out"; then
			fail "ocbench_patterns.py: could not write $what into the job's output (the row's format changed?)"
		elif python3 hpc/reframe/ocbench_patterns.py "$tmp/$bad.out" >"$tmp/patterns.out"; then
			fail "ocbench_patterns.py passes the job's output with $what written in"
		else
			ok "ocbench_patterns.py fails the job's output with $what written in: $(grep FAIL "$tmp/patterns.out" | paste -sd';' -)"
		fi
	done
fi
echo "reframe-check: $passed passed, $failed failed ($(($(date +%s) - start))s)"
[ "$failed" = 0 ]
