#!/usr/bin/env bash
# End-to-end checks of ocbench on MPI (part of `make check`, via make mpi-check).
#
# Virtual time (--clock virtual, the default under mpirun): the ranks replay
# the simulator's run, so an MPI job's record must equal the simulator's field
# for field but the runtime's own fields (results.RuntimeFields), as
# scripts/recordeq compares them:
# - every power-of-two number of ranks from 1 to 32 on a crash run of the
#   open-cube, cyclic placement, TCP, --algo ft with crashes, every crash
#   target, a failure-free survey run, the sequential workload with crashes,
#   and the default job (the ipsc2 preset) on 32 ranks;
# - a merged trace (--trace, np 4) is the simulator's, byte for byte;
# - --verify (the default) replays the run on rank 0 and says it is identical.
# Both clocks: bad input (virtual time's own refusals included: --delta auto,
# --min-delay below 0.5, --check full, an unknown --clock, --verify with
# --clock wall) and ranks that disagree end every rank with status 2 and one
# line.
# Wall clock (--clock wall, given explicitly): its refusals (the sequential
# workload with crashes, --crash-target power, δ below 0.1 ms), a killed or
# stopped rank ends the job, a crash job with 8 nodes per rank does not hang
# and its merged trace passes check-trace, and the ipsc2 job on 32 ranks
# prints both rows, safe wherever deliveries kept within δ (δ verdicts, late
# deliveries, parity p-values).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=$tmp/ocbench
go build -tags mpi -o "$bin" ./cmd/ocbench
run_cmd=(scripts/mpirun.sh)
. scripts/mpi-lib.sh

bad 4 --nodes 12
bad 4 --nodes 2
bad 3 --nodes 8
bad 4 --bogus
bad 4 --placement spiral
bad 4 --nodes 16 --trace "$tmp/no-such-dir/t.jsonl"
bad 4 --nodes 16 --delta soon
# Virtual time's own refusals (the default clock under mpirun).
bad 4 --delta auto
bad 4 --min-delay 0.2
bad 4 --check full
bad 4 --clock sundial
bad 4 --clock wall --verify
# Wall clock's refusals (virtual time runs these).
bad 4 --clock wall --workload sequential --crashes 3
bad 4 --clock wall --crashes 3 --workload poisson --crash-target power
bad 2 --clock wall --nodes 8 --delta 1e-9 --requests 50

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
agree "ocbench: ranks disagree: rank 2 has --delta 0.002, rank 0 has --delta 0.001" \
	-np 2 "$bin" --nodes 8 "${small[@]}" : -np 2 "$bin" --delta 0.002 --nodes 8 "${small[@]}"
agree "ocbench: ranks disagree: rank 2 has --crashes 5, rank 0 has --crashes 0" \
	-np 2 "$bin" --nodes 8 --workload poisson "${small[@]}" : -np 2 "$bin" --nodes 8 --workload poisson --crashes 5 "${small[@]}"
agree "ocbench: rank 3: unknown flag: --bogus" \
	-np 3 "$bin" --nodes 8 "${small[@]}" : -np 1 "$bin" --nodes 8 "${small[@]}" --bogus
# A subcommand on some ranks (issue 40, finding 14): every rank joins the
# agreement, which names both commands; before, the job hung in MPI_Init.
agree "ocbench: ranks disagree: rank 2 has the command \`ocbench version\`, rank 0 has the command \`ocbench [flags]\` (the benchmark)" \
	-np 2 "$bin" --nodes 8 "${small[@]}" : -np 2 "$bin" version
agree "ocbench: --runtime sim: the simulator runs in one process" -np 4 "$bin" --runtime sim --nodes 8 "${small[@]}"
agree "ocbench: --out: cannot create the results directory" -np 4 "$bin" --nodes 8 --requests 50 --out /dev/null/runs
# (δ and the delay floor given alike: their defaults differ between clocks.)
agree "ocbench: ranks disagree: rank 2 has --clock wall, rank 0 has --clock virtual" \
	-np 2 "$bin" --nodes 8 --delta 0.004 --min-delay 0.5 "${small[@]}" : \
	-np 2 "$bin" --clock wall --nodes 8 --delta 0.004 --min-delay 0.5 "${small[@]}"

# A rank killed (SIGKILL) or stopped (SIGSTOP) in the middle of a run: the
# job ends on every rank, non-zero, within a bound (the stopped rank: rank 0
# hears nothing from it for OCBENCH_SILENT_SECONDS and aborts the job). In
# wall-clock time, where the run lasts long enough (think 2000δ) to be hit.
faulty_rank() {
	local sig=$1 want=$2 code=0 victim="" start
	start=$(date +%s)
	OCBENCH_SILENT_SECONDS=5 timeout 120 "${run_cmd[@]}" -x OCBENCH_SILENT_SECONDS -np 4 "$bin" --clock wall --nodes 16 --workload poisson \
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

# Every power-of-two number of ranks, N ≥ P, one node per rank at 32.
crash=(--algo opencube --nodes 32 --crashes 20 --workload poisson --requests 1)
for np in 1 2 4 8 16 32; do
	same "$np" "" "" "${crash[@]}"
done
same 4 "" "--placement cyclic" "${crash[@]}"
same 4 "--mca btl self,tcp" "" "${crash[@]}"
same 4 "" "" --algo ft --nodes 16 --crashes 10 --workload poisson --requests 1
for target in token path root power; do
	same 4 "" "" --nodes 16 --crashes 10 --workload poisson --requests 1 --crash-target "$target"
done
same 4 "" "" --algo survey --nodes 16 --requests 40 --workload poisson
same 4 "" "" --nodes 16 --crashes 10 --workload sequential --requests 1

# --verify (the default in virtual time): rank 0 replays the run in the
# simulator and says the record is the same.
code=0
timeout 300 "${run_cmd[@]}" -np 4 "$bin" --nodes 16 --crashes 10 --workload poisson --requests 1 --no-save --quiet \
	>"$tmp/verify.out" 2>"$tmp/verify.err" || code=$?
if [ "$code" != 0 ] || ! grep -q '^# identical to the simulator' "$tmp/verify.out"; then
	echo "FAIL: mpirun -np 4 ocbench --nodes 16 --crashes 10 … (--verify): exit $code, output:"
	cat "$tmp/verify.out" "$tmp/verify.err"
	fail=1
else
	echo "ok   mpirun -np 4 ocbench --nodes 16 --crashes 10 … (--verify): $(grep -m1 '^# identical to the simulator' "$tmp/verify.out")"
fi

# A merged trace in virtual time: rank 0's merge of every rank's events is
# the simulator's trace, byte for byte (MPI traces the job's first run: the
# baseline is skipped so that there is one), and it passes check-trace.
trace=(--nodes 16 --crashes 5 --workload poisson --requests 1 --no-baseline --no-save --quiet)
code=0
"$bin" "${trace[@]}" --trace "$tmp/sim.jsonl" >/dev/null 2>"$tmp/trace.err" || code=$?
timeout 300 "${run_cmd[@]}" -np 4 "$bin" "${trace[@]}" --verify=false --trace "$tmp/mpi.jsonl" >/dev/null 2>>"$tmp/trace.err" || code=$?
if [ "$code" != 0 ] || ! cmp "$tmp/sim.jsonl" "$tmp/mpi.jsonl" >"$tmp/cmp.out" 2>&1; then
	echo "FAIL: mpirun -np 4 ocbench ${trace[*]} --trace: exit $code, not the simulator's trace:"
	cat "$tmp/trace.err" "$tmp/cmp.out"
	fail=1
elif ! "$bin" check-trace "$tmp/mpi.jsonl" >"$tmp/check.out" 2>&1; then
	echo "FAIL: ocbench check-trace of the merged trace of mpirun -np 4 ocbench ${trace[*]}:"
	cat "$tmp/check.out"
	fail=1
else
	echo "ok   mpirun -np 4 ocbench ${trace[*]} --trace: the simulator's trace, byte for byte ($(wc -l <"$tmp/mpi.jsonl") events)"
fi

# The default job (the ipsc2 preset) on 32 ranks is the simulator's default
# job, record for record; the wall-clock seconds of each are printed.
code=0
start=$(date +%s)
"$bin" --json --no-save --quiet >"$tmp/dsim.json" 2>"$tmp/dsim.err" || code=$?
simsecs=$(($(date +%s) - start))
start=$(date +%s)
timeout 600 "${run_cmd[@]}" -np 32 "$bin" --verify=false --json --no-save --quiet >"$tmp/dmpi.json" 2>"$tmp/dmpi.err" || code=$?
mpisecs=$(($(date +%s) - start))
if [ "$code" != 0 ] || ! "$recordeq" "${eq_flags[@]}" "$tmp/dsim.json" "$tmp/dmpi.json" >"$tmp/eq.out" 2>&1; then
	echo "FAIL: mpirun -np 32 ocbench (the default job): exit $code (124: time limit), not the simulator's records:"
	cat "$tmp/dsim.err" "$tmp/dmpi.err" "$tmp/eq.out"
	fail=1
else
	echo "ok   mpirun -np 32 ocbench (the default job): the simulator's $(grep -c '"algorithm"' "$tmp/dmpi.json") records; simulator ${simsecs}s, mpirun -np 32 ${mpisecs}s"
fi

# Wall clock: crashes with 8 nodes per rank: this job once hung (a sender
# waited in MPI_Send for a rank asleep on its doorbell; docs/design.md). Its
# seed ran in 9 s once fixed; a time limit turns a hang into a failure. Its
# trace, merged on rank 0, must pass the trace checker.
code=0
timeout 120 "${run_cmd[@]}" -np 4 "$bin" --clock wall --nodes 32 --workload poisson --crashes 40 --crash-every 50 --downtime 20 \
	--think 320 --requests 1 --seed 1 --no-baseline --no-save --json --trace "$tmp/many.jsonl" >"$tmp/many.json" 2>"$tmp/many.err" || code=$?
if [ "$code" != 0 ] || ! grep -q '"safety_violations": 0' "$tmp/many.json" || ! grep -q '"failures": 40' "$tmp/many.json"; then
	echo "FAIL: mpirun -np 4 ocbench --clock wall --nodes 32 --crashes 40 … (exit $code; 124: time limit)"
	cat "$tmp/many.err"
	fail=1
else
	echo "ok   mpirun -np 4 ocbench --clock wall --nodes 32 --crashes 40 … (8 nodes per rank): no safety violation"
fi
if ! "$bin" check-trace --delta 0.004 "$tmp/many.jsonl" >"$tmp/check.out" 2>&1; then # the run's δ, DefaultMPIDelta
	echo "FAIL: ocbench check-trace of the MPI trace of mpirun -np 4 ocbench --clock wall --nodes 32 --crashes 40 …:"
	cat "$tmp/check.out"
	fail=1
else
	echo "ok   ocbench check-trace of its merged trace: $(cat "$tmp/check.out")"
fi

# Wall clock: the ipsc2 job on 32 ranks, one seed per size at δ = 4 ms (a bounded time:
# the default job, five seeds at the δ measured on the ranks, lasts as long
# as that δ allows; scripts/mpi-targets.sh times it): both rows, with no
# safety violation. Safety rests on δ: on failure the deliveries later than δ
# are printed too.
start=$(date +%s)
code=0
timeout 600 "${run_cmd[@]}" -np 32 "$bin" --clock wall --repeat 1 --delta 0.004 --json --no-save >"$tmp/ipsc2.json" 2>"$tmp/ipsc2.err" || code=$?
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
	echo "FAIL: mpirun -np 32 ocbench --clock wall --repeat 1 --delta 0.004 --json (exit $code): $rows rows, safety violations per row: $safety, deliveries over δ: $late"
	grep -E '"(nodes|violation|max_delay_delta)"' "$tmp/ipsc2.json" || true # what broke, where, and how late the latest delivery was
	cat "$tmp/ipsc2.err"
	fail=1
elif [ "$safety" != "0 0" ]; then
	echo "warn mpirun -np 32 ocbench --clock wall --repeat 1 --delta 0.004 --json: safety violations per row $safety, each in a row with deliveries later than δ ($late): this machine broke δ, which safety rests on (issue 26: virtual time)"
	grep -E '"(nodes|violation|max_delay_delta)"' "$tmp/ipsc2.json" || true
else
	echo "ok   mpirun -np 32 ocbench --clock wall --repeat 1 --delta 0.004 --json: both ipsc2 rows in ${secs}s at δ = ${delta}s; safety violations per row: $safety; deliveries later than δ: $late; parity p-values: $pvalues"
fi
exit $fail
