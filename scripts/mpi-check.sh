#!/usr/bin/env bash
# End-to-end checks of ocbench on MPI (part of `make test`): bad input, and
# ranks that disagree, end every rank with status 2 and one line, every power-of-two number of ranks
# from 1 to 32 runs, and the default job (the ipsc2 preset) under
# mpirun -np 32 prints both rows, safe wherever deliveries kept within δ.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=$tmp/ocbench
go build -tags mpi -o "$bin" ./cmd/ocbench
run_cmd=(scripts/mpirun.sh)
run() { "${run_cmd[@]}" "$@"; }
fail=0

# Bad input: exit 2 on every rank, one line on stderr, nothing on stdout.
bad() {
	local np=$1
	shift
	local code=0
	run -np "$np" "$bin" "$@" >"$tmp/out" 2>"$tmp/err" || code=$?
	if [ "$code" != 2 ] || [ "$(wc -l <"$tmp/err")" != 1 ] || [ -s "$tmp/out" ]; then
		echo "FAIL: mpirun -np $np ocbench $*: exit $code, stderr:"
		cat "$tmp/err"
		fail=1
	else
		echo "ok   mpirun -np $np ocbench $* -> exit 2: $(cat "$tmp/err")"
	fi
}
bad 4 --nodes 12
bad 4 --nodes 2
bad 3 --nodes 8
bad 4 --bogus
bad 4 --placement spiral
bad 4 --workload sequential --crashes 3
bad 4 --crashes 3 --workload poisson --crash-target power
bad 4 --nodes 16 --trace "$tmp/no-such-dir/t.jsonl"
bad 4 --nodes 16 --delta soon

# Ranks agree or stop (issue 27): ranks that disagree (an MPMD launch with
# different flags) or bad input on some ranks only end every rank with
# exit 2 within the time limit, and rank 0's one line names the first
# difference (or the bad input). Before, these hung or ran as rank 0 said.
agree() {
	local want=$1
	shift
	local code=0
	timeout 60 "${run_cmd[@]}" "$@" >"$tmp/out" 2>"$tmp/err" || code=$?
	if [ "$code" != 2 ] || [ "$(wc -l <"$tmp/err")" != 1 ] || [ -s "$tmp/out" ] || ! grep -qF -- "$want" "$tmp/err"; then
		echo "FAIL: mpirun $* (want exit 2 and one line with \"$want\"): exit $code (124: time limit), stderr:"
		cat "$tmp/err"
		fail=1
	else
		echo "ok   mpirun $* -> exit 2: $(cat "$tmp/err")"
	fi
}
small=(--requests 50 --no-save)
agree "ocbench: ranks disagree: rank 2 has --nodes 3, rank 0 has --nodes 8" \
	-np 2 "$bin" --nodes 8 "${small[@]}" : -np 2 "$bin" --nodes 3 "${small[@]}"
agree "ocbench: ranks disagree: rank 2 has --algo raymond, rank 0 has --algo opencube" \
	-np 2 "$bin" --nodes 8 "${small[@]}" : -np 2 "$bin" --algo raymond --nodes 8 "${small[@]}"
agree "ocbench: ranks disagree: rank 2 has --delta 0.002, rank 0 has --delta 0.004" \
	-np 2 "$bin" --nodes 8 "${small[@]}" : -np 2 "$bin" --delta 0.002 --nodes 8 "${small[@]}"
agree "ocbench: ranks disagree: rank 2 has --crashes 5, rank 0 has --crashes 0" \
	-np 2 "$bin" --nodes 8 --workload poisson "${small[@]}" : -np 2 "$bin" --nodes 8 --workload poisson --crashes 5 "${small[@]}"
agree "ocbench: rank 3: unknown flag: --bogus" \
	-np 3 "$bin" --nodes 8 "${small[@]}" : -np 1 "$bin" --nodes 8 "${small[@]}" --bogus
agree "ocbench: --runtime sim: the simulator runs in one process" -np 4 "$bin" --runtime sim --nodes 8 "${small[@]}"
agree "ocbench: --out: cannot create the results directory" -np 4 "$bin" --nodes 8 --requests 50 --out /dev/null/runs
agree "ocbench: --delta: 1e-09s is below" -np 2 "$bin" --nodes 8 --delta 1e-9 "${small[@]}"

# A rank killed (SIGKILL) or stopped (SIGSTOP) in the middle of a run: the
# job ends on every rank, non-zero, within a bound (the stopped rank: rank 0
# hears nothing from it for OCBENCH_SILENT_SECONDS and aborts the job).
faulty_rank() {
	local sig=$1 want=$2 code=0 victim="" start
	start=$(date +%s)
	OCBENCH_SILENT_SECONDS=5 timeout 120 "${run_cmd[@]}" -x OCBENCH_SILENT_SECONDS -np 4 "$bin" --nodes 16 --workload poisson \
		--think 2000 --requests 64 --no-save >"$tmp/f.out" 2>"$tmp/f.err" &
	local job=$!
	for _ in $(seq 50); do # rank 1's process, once it runs
		for p in $(pgrep -f "^$bin " || true); do
			if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx 'OMPI_COMM_WORLD_RANK=1'; then
				victim=$p
			fi
		done
		[ -n "$victim" ] && break
		sleep 0.2
	done
	sleep 3
	[ -n "$victim" ] && kill "-$sig" "$victim" 2>/dev/null || true
	wait "$job" || code=$?
	pkill -KILL -f "^$bin " 2>/dev/null || true
	local secs=$(($(date +%s) - start))
	if [ -z "$victim" ] || [ "$code" = 0 ] || [ "$code" = 124 ] || { [ -n "$want" ] && ! grep -q "$want" "$tmp/f.err" "$tmp/f.out"; }; then
		echo "FAIL: mpirun -np 4 ocbench, rank 1 sent SIG$sig: exit $code after ${secs}s (124: time limit), victim '${victim}', output:"
		cat "$tmp/f.err" "$tmp/f.out"
		fail=1
	else
		echo "ok   mpirun -np 4 ocbench, rank 1 sent SIG$sig: the job ended in ${secs}s, exit $code${want:+: $(grep -h -m1 "$want" "$tmp/f.err" "$tmp/f.out")}"
	fi
}
faulty_rank KILL '' # mpirun ends the job (-q: without its note)
faulty_rank STOP 'has sent nothing'

# Every power-of-two number of ranks, N ≥ P.
for np in 1 2 4 8 16 32; do
	run -np "$np" "$bin" --nodes 32 --requests 50 --no-save --json >"$tmp/p$np.json"
	if ! grep -q '"runtime": "mpi"' "$tmp/p$np.json" || ! grep -q "\"ranks\": $np," "$tmp/p$np.json" || ! grep -q '"safety_violations": 0' "$tmp/p$np.json"; then
		echo "FAIL: mpirun -np $np ocbench --nodes 32 --requests 50"
		fail=1
	else
		echo "ok   mpirun -np $np ocbench --nodes 32 --requests 50"
	fi
done

# Crashes with 8 nodes per rank: this job once hung (a sender waited in
# MPI_Send for a rank asleep on its doorbell; docs/design.md). Its seed ran
# in 9 s once fixed; a time limit turns a hang into a failure. Its trace,
# merged on rank 0, must pass the trace checker.
code=0
timeout 120 "${run_cmd[@]}" -np 4 "$bin" --nodes 32 --workload poisson --crashes 40 --crash-every 50 --downtime 20 \
	--think 320 --requests 1 --seed 1 --no-baseline --no-save --json --trace "$tmp/many.jsonl" >"$tmp/many.json" 2>"$tmp/many.err" || code=$?
if [ "$code" != 0 ] || ! grep -q '"safety_violations": 0' "$tmp/many.json" || ! grep -q '"failures": 40' "$tmp/many.json"; then
	echo "FAIL: mpirun -np 4 ocbench --nodes 32 --crashes 40 … (exit $code; 124: time limit)"
	cat "$tmp/many.err"
	fail=1
else
	echo "ok   mpirun -np 4 ocbench --nodes 32 --crashes 40 … (8 nodes per rank): no safety violation"
fi
if ! "$bin" check-trace "$tmp/many.jsonl" >"$tmp/check.out" 2>&1; then
	echo "FAIL: ocbench check-trace of the MPI trace of mpirun -np 4 ocbench --nodes 32 --crashes 40 …:"
	cat "$tmp/check.out"
	fail=1
else
	echo "ok   ocbench check-trace of its merged trace: $(cat "$tmp/check.out")"
fi

# The ipsc2 job on 32 ranks, one seed per size at δ = 4 ms (a bounded time:
# the default job, five seeds at the δ measured on the ranks, lasts as long
# as that δ allows; scripts/mpi-targets.sh times it): both rows, with no
# safety violation. Safety rests on δ: on failure the deliveries later than δ
# are printed too.
start=$(date +%s)
code=0
timeout 600 "${run_cmd[@]}" -np 32 "$bin" --repeat 1 --delta 0.004 --json --no-save >"$tmp/ipsc2.json" 2>"$tmp/ipsc2.err" || code=$?
secs=$(($(date +%s) - start))
rows=$(grep -c '"runtime": "mpi"' "$tmp/ipsc2.json" || true)
safety=$(grep '"safety_violations"' "$tmp/ipsc2.json" | tr -dc '0-9\n' | paste -sd' ' -)
late=$(grep '"delays_over_delta"' "$tmp/ipsc2.json" | tr -dc '0-9\n' | paste -sd' ' -)
delta=$(grep -m1 '"delta_seconds"' "$tmp/ipsc2.json" | sed -E 's/.*: ([-0-9.e]+).*/\1/' || true)
pvalues=$(grep '"p_value"' "$tmp/ipsc2.json" | sed -E 's/.*: ([-0-9.e]+).*/\1/' | paste -sd' ' - || true)
# A row whose deliveries all kept within δ must be safe; a row with late
# deliveries (an oversubscribed or loaded machine breaks δ in wall-clock
# time) promises nothing, and is reported, not failed.
unsafe=0
if [ "$rows" = 2 ]; then
	read -r s1 s2 <<<"$safety"
	read -r l1 l2 <<<"$late"
	if { [ "$s1" != 0 ] && [ "$l1" = 0 ]; } || { [ "$s2" != 0 ] && [ "$l2" = 0 ]; }; then
		unsafe=1
	fi
fi
if [ "$rows" != 2 ] || [ "$unsafe" != 0 ] || { [ "$code" != 0 ] && [ "$safety" = "0 0" ]; }; then
	echo "FAIL: mpirun -np 32 ocbench --repeat 1 --delta 0.004 --json (exit $code): $rows rows, safety violations per row: $safety, deliveries over δ: $late"
	grep -E '"(nodes|violation|max_delay_delta)"' "$tmp/ipsc2.json" || true # what broke, where, and how late the latest delivery was
	cat "$tmp/ipsc2.err"
	fail=1
elif [ "$safety" != "0 0" ]; then
	echo "warn mpirun -np 32 ocbench --repeat 1 --delta 0.004 --json: safety violations per row $safety, each in a row with deliveries later than δ ($late): this machine broke δ, which safety rests on (issue 26: virtual time)"
	grep -E '"(nodes|violation|max_delay_delta)"' "$tmp/ipsc2.json" || true
else
	echo "ok   mpirun -np 32 ocbench --repeat 1 --delta 0.004 --json: both ipsc2 rows in ${secs}s at δ = ${delta}s; safety violations per row: $safety; deliveries later than δ: $late; parity p-values: $pvalues"
fi
exit $fail
