#!/usr/bin/env bash
# install-mpich.sh — make sure MPICH (runtime + headers) and pkg-config are
# installed, so that `go build -tags mpi,mpich ./...` and `mpiexec.mpich`
# work. Beside OpenMPI it changes nothing the project uses: Debian's
# alternatives keep OpenMPI's mpirun and mpicc (priority 50 against 40).
#
# Idempotent: does nothing when `mpiexec.mpich` is on PATH and pkg-config
# knows `mpich`. Debian/Ubuntu only (apt-get). Uses sudo only when not root
# and sudo exists.
set -euo pipefail

have_mpich() {
	command -v mpiexec.mpich >/dev/null 2>&1 &&
		command -v pkg-config >/dev/null 2>&1 &&
		pkg-config --exists mpich
}

if have_mpich; then
	echo "install-mpich: MPICH already present ($(pkg-config --modversion mpich), $(command -v mpiexec.mpich)); nothing to do"
	exit 0
fi

. "$(dirname "$0")/apt-install.sh"
apt_install install-mpich "install MPICH (mpich, libmpich-dev) and pkg-config by hand" mpich libmpich-dev pkg-config

if ! have_mpich; then
	echo "install-mpich: installation finished but mpiexec.mpich or pkg-config mpich is still missing" >&2
	exit 1
fi
echo "install-mpich: installed MPICH $(pkg-config --modversion mpich) ($(command -v mpiexec.mpich))"
