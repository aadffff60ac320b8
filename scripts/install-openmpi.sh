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

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		SUDO=(sudo)
	else
		echo "install-openmpi: not root and sudo not available; cannot install OpenMPI" >&2
		exit 1
	fi
fi

if ! command -v apt-get >/dev/null 2>&1; then
	echo "install-openmpi: apt-get not found; install OpenMPI (libopenmpi-dev, openmpi-bin) and pkg-config by hand" >&2
	exit 1
fi

pkgs=(libopenmpi-dev openmpi-bin pkg-config)
echo "install-openmpi: running apt-get update"
"${SUDO[@]}" apt-get update -q
echo "install-openmpi: installing ${pkgs[*]}"
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${pkgs[@]}"

if ! have_ompi; then
	echo "install-openmpi: installation finished but mpirun or pkg-config ompi is still missing" >&2
	exit 1
fi
echo "install-openmpi: installed OpenMPI $(pkg-config --modversion ompi) ($(command -v mpirun))"
