#!/usr/bin/env bash
# install-openmpi.sh — make sure OpenMPI (runtime + headers) and pkg-config are
# installed, so that `go build -tags mpi ./...` and `mpirun` work.
#
# Idempotent: does nothing when `mpirun` is on PATH and pkg-config knows `ompi`.
# Debian/Ubuntu only (apt-get). Uses sudo only when not root and sudo exists.
set -euo pipefail

have_ompi() {
	command -v mpirun >/dev/null 2>&1 &&
		command -v pkg-config >/dev/null 2>&1 &&
		pkg-config --exists ompi
}

if have_ompi; then
	echo "install-openmpi: OpenMPI already present ($(pkg-config --modversion ompi), $(command -v mpirun)); nothing to do"
	exit 0
fi

. "$(dirname "$0")/apt-install.sh"
apt_install install-openmpi "install OpenMPI (libopenmpi-dev, openmpi-bin) and pkg-config by hand" libopenmpi-dev openmpi-bin pkg-config

if ! have_ompi; then
	echo "install-openmpi: installation finished but mpirun or pkg-config ompi is still missing" >&2
	exit 1
fi
echo "install-openmpi: installed OpenMPI $(pkg-config --modversion ompi) ($(command -v mpirun))"
