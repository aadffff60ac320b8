//go:build mpi && cgo && !mpich

package mpi

// Compiler and linker flags for Open MPI, from its pkg-config file (Debian's
// libopenmpi-dev installs ompi.pc). Build with `-tags mpi,mpich` to use
// MPICH's mpich.pc instead (see cgo_mpich.go). Extra flags can be added with
// the CGO_CFLAGS and CGO_LDFLAGS environment variables and another .pc
// directory with PKG_CONFIG_PATH.

// #cgo pkg-config: ompi
import "C"
