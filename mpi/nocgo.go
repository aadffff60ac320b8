//go:build mpi && !cgo

package mpi

// The `mpi` build tag needs cgo. Building with CGO_ENABLED=0 and -tags mpi
// stops here with an error that names the problem.
var _ = mpi_build_tag_requires_cgo__set_CGO_ENABLED_1_and_install_OpenMPI
