"""ReFrame configuration for ocbench's check (ocbench_check.py).

System "ocbench", any host, two partitions:
- local: jobs run on this machine, ranks started by Open MPI's mpirun
  (make reframe-check runs this one: --system ocbench:local);
- slurm: jobs submitted with sbatch to the Slurm that
  scripts/install-slurm.sh brings up (or a cluster's default partition),
  ranks started by srun --mpi=pmix; --overcommit lets more ranks than
  cores run on a laptop (drop it on a cluster).
The environment is ReFrame's builtin one: go, mpirun and Open MPI's
headers from PATH (make openmpi installs them).
"""

site_configuration = {
    'systems': [
        {
            'name': 'ocbench',
            'descr': 'ocbench on this machine',
            'hostnames': ['.*'],
            'modules_system': 'nomod',
            'partitions': [
                {
                    'name': 'local',
                    'descr': 'this machine, mpirun',
                    'scheduler': 'local',
                    'launcher': 'mpirun',
                    'environs': ['builtin'],
                    'max_jobs': 1,
                },
                {
                    'name': 'slurm',
                    'descr': 'Slurm (scripts/install-slurm.sh), srun',
                    'scheduler': 'squeue',
                    'launcher': 'srun',
                    'access': ['--overcommit'],
                    'environs': ['builtin'],
                    'max_jobs': 1,
                },
            ],
        },
    ],
}
