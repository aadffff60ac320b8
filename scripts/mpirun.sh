#!/usr/bin/env bash
# mpirun with what this machine needs, so no one has to remember it:
#   scripts/mpirun.sh -np 32 ./ocbench [flags]
# - as root (containers, CI), Open MPI's mpirun refuses to start without
#   OMPI_ALLOW_RUN_AS_ROOT=1 and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;
# - --oversubscribe lets more ranks than cores run (32 ranks on a laptop);
# - -q keeps mpirun from adding its own notes when ranks exit non-zero (bad
#   input exits 2 on every rank, after one line from rank 0);
# - Ctrl-C (SIGINT) or SIGTERM interrupts ocbench as it does without MPI:
#   exit status 130 and rank 0's line saying what it saved. mpirun answers
#   these signals itself by killing the ranks (SIGTERM, SIGKILL a second
#   later), dropping their last lines, and exits 1; so mpirun runs in a
#   session of its own (the terminal's Ctrl-C reaches this script only),
#   and the first signal becomes SIGUSR2, which mpirun forwards to every
#   rank and ocbench takes as an interrupt. A second signal, or the job
#   still running 30 s after the first (a program that ignores SIGUSR2),
#   reaches mpirun as SIGTERM: its own abort.
# Extra mpirun options go before the program, e.g. --mca btl self,tcp.
set -euo pipefail
if [ "$(id -u)" = 0 ]; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
setsid mpirun --oversubscribe -q "$@" <&0 &
pid=$!
signals=0
watch=""
interrupt() {
	signals=$((signals + 1))
	if [ "$signals" = 1 ]; then
		kill -USR2 "$pid" 2>/dev/null || true
		(sleep 30 && kill -TERM "$pid" 2>/dev/null) </dev/null >/dev/null 2>&1 &
		watch=$!
	else
		kill -TERM "$pid" 2>/dev/null || true
	fi
}
trap interrupt INT TERM
# wait returns early when a trapped signal arrives: wait again until
# mpirun is gone, then take its status.
while kill -0 "$pid" 2>/dev/null; do
	wait "$pid" || true
done
code=0
wait "$pid" || code=$?
if [ -n "$watch" ]; then
	kill "$watch" 2>/dev/null || true
fi
exit "$code"
