package main

import "testing"

// TestLauncher reads the world size and rank from each launcher's
// environment, and takes a Slurm batch script's own environment for no
// launch.
func TestLauncher(t *testing.T) {
	vars := []string{"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "PMI_SIZE", "PMI_RANK",
		"SLURM_STEP_NUM_TASKS", "PMIX_RANK", "SLURM_NTASKS", "SLURM_PROCID"}
	for _, c := range []struct {
		name     string
		env      map[string]string
		size, me int
		ok       bool
	}{
		{"none", nil, 1, 0, false},
		{"mpirun", map[string]string{"OMPI_COMM_WORLD_SIZE": "32", "OMPI_COMM_WORLD_RANK": "5"}, 32, 5, true},
		{"hydra or srun --mpi=pmi2", map[string]string{"PMI_SIZE": "4", "PMI_RANK": "3"}, 4, 3, true},
		{"srun --mpi=pmix", map[string]string{"SLURM_STEP_NUM_TASKS": "8", "PMIX_RANK": "7", "SLURM_NTASKS": "8", "SLURM_PROCID": "7"}, 8, 7, true},
		{"sbatch script", map[string]string{"SLURM_NTASKS": "32", "SLURM_PROCID": "0", "SLURM_STEP_NUM_TASKS": "1"}, 1, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, v := range vars {
				t.Setenv(v, c.env[v])
			}
			size, me, ok := launcher()
			if size != c.size || me != c.me || ok != c.ok {
				t.Errorf("launcher() = %d, %d, %v; want %d, %d, %v", size, me, ok, c.size, c.me, c.ok)
			}
		})
	}
}
