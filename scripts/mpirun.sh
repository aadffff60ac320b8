#!/usr/bin/env bash
# mpirun with what this machine needs, so no one has to remember it:
#   scripts/mpirun.sh -np 32 ./ocbench [flags]
# - as root (containers, CI), Open MPI's mpirun refuses to start without
#   OMPI_ALLOW_RUN_AS_ROOT=1 and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;
# - --oversubscribe lets more ranks than cores run (32 ranks on a laptop);
# - -q keeps mpirun from adding its own notes when ranks exit non-zero (bad
#   input exits 2 on every rank, after one line from rank 0).
# Extra mpirun options go before the program, e.g. --mca btl self,tcp.
set -euo pipefail
if [ "$(id -u)" = 0 ]; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
exec mpirun --oversubscribe -q "$@"
