"""ReFrame check of ocbench's default job under MPI.

Builds ocbench with MPI (go build -tags mpi) from this repository, runs
the default job (the ipsc2 preset: opencube, N = 32 and 64, crashes, five
seeds) on `ranks` ranks, and checks:

- sanity: every row's violations are 0; ocbench's --verify says, per N,
  that rank 0 replayed the runs in the simulator and found the records
  equal; scripts/recordeq finds the job's saved run equal to a simulator
  run of the same seeds, field for field but the runtime's fields;
- performance: messages per failure (the overhead per failure column) at
  N = 32 and 64, referenced to the paper's figures (8 and 9.75) with
  bounds that hold ocbench's own figures and flag a change of them
  (ocbench_patterns.py says which); the job's wall time (reported, no
  bound).

The patterns, references and bounds live in ocbench_patterns.py.
Run it with hpc/reframe/settings.py (make reframe-check, or
docs/hpc.md).
"""

import os
import sys

import reframe as rfm
import reframe.utility.sanity as sn
from reframe.core.builtins import (performance_function, run_before,
                                   sanity_function, variable)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ocbench_patterns as pat  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))


@rfm.simple_test
class OcbenchDefaultJob(rfm.RegressionTest):
    descr = ("ocbench's default job under MPI: the simulator's records, "
             "0 violations, messages per failure at N = 32 and 64")
    valid_systems = ['*']
    valid_prog_environs = ['*']
    tags = {'ocbench', 'mpi'}
    maintainers = ['ocbench']
    # Ranks (a power of two, at most 32): 4 by default, which keeps the
    # check short on a laptop; the figures are the same on any number.
    ranks = variable(int, value=4)
    sourcesdir = None
    build_system = 'CustomBuild'
    executable = './ocbench'
    executable_opts = []
    time_limit = '20m'
    # Open MPI's mpirun refuses to run as root without these (containers).
    env_vars = {'OMPI_ALLOW_RUN_AS_ROOT': '1',
                'OMPI_ALLOW_RUN_AS_ROOT_CONFIRM': '1'}
    reference = {
        '*': {
            **{pat.perf_name(n): pat.reference(n) for n in pat.NODES},
            'wall_seconds': (0, None, None, 's'),
        }
    }

    @run_before('compile')
    def build_ocbench(self):
        self.build_system.commands = [
            f'go build -C {REPO} -tags mpi -o {self.stagedir}/ocbench '
            './cmd/ocbench',
            f'go build -C {REPO} -o {self.stagedir}/recordeq ./scripts/recordeq',
        ]

    @run_before('run')
    def launch(self):
        self.num_tasks = self.ranks
        launcher = self.job.launcher.registered_name
        if launcher == 'mpirun':
            # More ranks than cores on a laptop.
            self.job.launcher.options = ['--oversubscribe']
        elif launcher == 'srun':
            self.job.launcher.options = ['--mpi=pmix']
        self.prerun_cmds = ['t0=$(date +%s.%N)']
        self.postrun_cmds = [
            'echo "wall_seconds: $(awk -v t0="$t0" -v t1="$(date +%s.%N)" '
            "'BEGIN { printf \"%.2f\", t1 - t0 }')\"",
            # The simulator, in this process alone, on the same seeds.
            './ocbench --no-save --json --quiet > sim.json',
            './recordeq --ignore clock,identical_to_simulator sim.json '
            'runs/*.json && echo "recordeq: records equal the simulator\'s"',
        ]

    @sanity_function
    def validate(self):
        return sn.all([
            *(sn.assert_eq(sn.extractsingle(pat.row(n), self.stdout,
                                            'violations', int), 0)
              for n in pat.NODES),
            *(sn.assert_found(pat.identical(n), self.stdout)
              for n in pat.NODES),
            sn.assert_found(pat.RECORDEQ, self.stdout),
        ])

    @performance_function(pat.UNIT)
    def overhead_per_failure(self, n=32):
        return sn.extractsingle(pat.row(n), self.stdout, 'overhead', float)

    @performance_function('s')
    def wall_seconds(self):
        return sn.extractsingle(pat.WALL, self.stdout, 'seconds', float)

    @run_before('performance')
    def set_perf_variables(self):
        self.perf_variables = {
            pat.perf_name(n): self.overhead_per_failure(n) for n in pat.NODES
        }
        self.perf_variables['wall_seconds'] = self.wall_seconds()
