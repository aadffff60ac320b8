//go:build mpi && cgo && mpich

package mpi

// Compiler and linker flags for MPICH, from its pkg-config file (Debian's
// libmpich-dev installs mpich.pc). Selected with `-tags mpi,mpich`.

// #cgo pkg-config: mpich
import "C"
