# ocbench — build, test and measure. `make help` lists the targets.
GO ?= go
SEEDS ?= 100000
MPIRUN ?= mpirun
MPIRUN_FLAGS ?= --oversubscribe
# OpenMPI's mpirun refuses to run as root without these two (containers, CI).
MPIENV = OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

.PHONY: help build test check short vet vet-mpi unit unit-short fuzz seeds crash-seeds suspicion-seeds shape-seeds crash-sweep paper-protocol ipsc2 failure-free compare report bench scale clean openmpi mpi mpi-test mpi-test-long farm-mpi mpi-check mpich mpich-check slurm slurm-check reframe reframe-check chromium view-test view-short view-png faults-mpi large-n explore-ci

help:
	@echo "make build         build ./ocbench (simulator runtime)"
	@echo "make test          gofmt, vet, staticcheck, every package's tests with each sweep cut to a sample (-short), ocbench view in Chromium, fuzzing, the MPI tests on 1, 4 and 8 ranks (installs OpenMPI and Chromium through apt-get if missing, and staticcheck's modules: network needed the first time; the README's test command, about 10 minutes)"
	@echo "make check         the long part CI runs after make test: every test in full, every browser test, longer fuzzing, the MPI tests on 32 ranks and over TCP, scripts/mpi-check.sh, MPICH, Slurm, ReFrame, the explorer's CI subset (about 25 minutes)"
	@echo "make short         the tests with -short only (about a minute and a half; no vet, no MPI)"
	@echo "make vet           gofmt, go vet and staticcheck (and the mpi-tagged build's, when OpenMPI is installed)"
	@echo "make vet-mpi       go vet and staticcheck of the mpi-tagged build (needs OpenMPI's headers)"
	@echo "make unit          every package's tests, full length (part of make check)"
	@echo "make unit-short    every package's tests with -short (part of make test)"
	@echo "make fuzz          fuzz the frame and boundary decoders (FUZZTIME executions each, 400000x by default)"
	@echo "make openmpi       install OpenMPI from Debian if missing (scripts/install-openmpi.sh)"
	@echo "make chromium      install Chromium from Debian if missing (scripts/install-chromium.sh)"
	@echo "make view-short    ocbench view's browser test of a crash trace in headless Chromium (part of make test)"
	@echo "make view-test     every browser test of ocbench view, a 10^5-event trace included (part of make check)"
	@echo "make view-png      regenerate published/view.png, the screenshot of a crash trace's page (installs Chromium if missing)"
	@echo "make results       regenerate every committed table, report and plot, and README's excerpts (about 10 minutes on 2 cores; JOBS=N: ocbench --jobs N in the sweeps)"
	@echo "make results-check regenerate the cheap results into a temporary directory; fail if the committed ones differ (about 15 s)"
	@echo "make readme-check  follow README from a fresh clone; fail if a command fails or a stated time is off by more than 2×"
	@echo "make readme-check-quick  the same without the long rows (about 4 minutes; CI runs it)"
	@echo "make mpi           build ./ocbench with MPI support (installs OpenMPI from Debian if missing); then scripts/mpirun.sh -np 32 ./ocbench"
	@echo "make mpi-test      the MPI tests under mpirun on 1, 4 and 8 ranks, and make farm-mpi (part of make test)"
	@echo "make farm-mpi      the task farm under mpirun (--mpi-mode farm) against one process: the same records and output"
	@echo "make mpi-test-long the MPI tests on 32 ranks, over TCP, with MPI_THREAD_MULTIPLE, and the per-message cost (part of make check)"
	@echo "make faults-mpi    the fault-injection suite's cases under mpirun (OpenMPI required): FAULTS_FLAGS=-short (make test) runs MPMD jobs mixing subcommands with the benchmark, and --verify of a broken run; without it (make check) also SIGINT and SIGTERM to scripts/mpirun.sh; both run the verdict line's test (VALID or INVALID from rank 0, every rank's exit status)"
	@echo "make mpi-check     scripts/mpi-check.sh: every runtime against the simulator, bad input on every rank, killed and stopped ranks (part of make check)"
	@echo "make mpich         install MPICH from Debian if missing (scripts/install-mpich.sh); OpenMPI stays the default mpirun"
	@echo "make mpich-check   scripts/mpich-check.sh: the MPICH build (-tags mpi,mpich): the binding's tests, virtual time equal to the simulator, the default job on 32 ranks, bad input (part of make check)"
	@echo "make slurm         install and start a one-machine Slurm from Debian's packages (scripts/install-slurm.sh; root; the daemons keep running, scripts/install-slurm.sh --stop ends them)"
	@echo "make slurm-check   scripts/slurm-check.sh: scripts/slurm.sbatch under a one-machine Slurm, with mpirun (32 ranks) and srun --mpi=pmix (8 ranks), each job's records against the simulator's; stops the daemons it started (part of make check; 3 to 3.5 minutes at load 36 to 60 on 2 cores)"
	@echo "make reframe       install ReFrame (PyPI's reframe-hpc, or REFRAME_SRC=DIR, a source tree) into a virtual environment under ~/.cache/ocbench (scripts/install-reframe.sh)"
	@echo "make reframe-check hpc/reframe's check run by ReFrame on this machine: ocbench built with MPI, the default job on 4 ranks, sanity (the simulator's records, 0 violations) and messages per failure against the paper's figures; without ReFrame, the same job and patterns by hand (part of make check; 1 minute at load 36, 2.5 at load 60)"
	@echo "make explore-ci    ocbench explore, N = 4, every node requesting once, of the EXPLORE_CI algorithms: each must be clean and complete (about 5 million states; within 2 minutes; part of make check)"
	@echo "make seeds         the long seed sweep: SEEDS=$(SEEDS) seeds per configuration"
	@echo "make crash-seeds   the long crash sweep: SEEDS=$(SEEDS) seeds over the crash configurations"
	@echo "make suspicion-seeds  crash-free runs at every load that must never suspect a failure (SUSPICION_SEEDS=30 per configuration)"
	@echo "make shape-seeds   count crash-sweep runs that end, after the repair pass, with a broken open-cube (SHAPE_SEEDS=285 per configuration)"
	@echo "make ipsc2         the iPSC/2 experiment (what ocbench runs with no flags)"
	@echo "make crash-sweep   overhead per failure against N, load and crash spacing, into published/ (JOBS=N: ocbench --jobs N; default every core)"
	@echo "make paper-protocol  seeds in which --protocol paper (§5 as written) breaks, load by load, and its overhead where none does (~20 min)"
	@echo "make failure-free  measure the failure-free table into published/"
	@echo "make compare       every algorithm compared (msg/CS, sync delay, response; N = 16, 64, 256; three loads) into published/compare.md (about 40 s on 2 cores, a minute on one; JOBS=N: ocbench --jobs N, JOBS=1 also one call at a time; default every core)"
	@echo "make report        the example report (ipsc2 + failure-free, saved runs and SVG plots) into published/report/"
	@echo "make bench         the simulator's events per second (sequential open-cube, N = 2^10 and 2^16) against a bare event heap's in 21 pairs: their median ratio and range"
	@echo "make scale         N = 2^20 nodes, 10^6 sequential requests, timed"
	@echo "make large-n       the memory estimate against the peak of runs up to N = 2^25 (sequential; 2^22 poisson and saturated): within 1.5×, about 10 minutes and 6 GiB"
	@echo "make clean         remove the binaries make builds (ocbench, mpi.test, rank.test)"
	@echo "make help          this list"

# The commit, for `ocbench version` and saved runs (builds may not stamp it),
# with -dirty when the code differs from it: results and Markdown, which
# make results rewrites as it goes, do not count.
LDFLAGS = -X main.commitStamp=$(shell git rev-parse HEAD 2>/dev/null)$(shell git diff --quiet HEAD -- . ':(exclude)published' ':(exclude)*.md' 2>/dev/null || echo -dirty)

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o ocbench ./cmd/ocbench

# gofmt, go vet and staticcheck (a tool of go.mod: go tool staticcheck),
# without and with the mpi tag; the mpi-tagged build needs OpenMPI's
# headers, so without them vet says so and mpi-test (which installs
# OpenMPI) vets it.
vet:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt: these files need formatting:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) tool staticcheck ./...
	@if pkg-config --exists ompi 2>/dev/null; then $(MAKE) -s vet-mpi; else echo "vet: OpenMPI is not installed: make mpi-test vets the mpi-tagged build"; fi

vet-mpi:
	$(GO) vet -tags mpi ./...
	$(GO) tool staticcheck -tags mpi ./...

# The browser tests (view, TestBrowser*) run in view-test, which make test
# runs first, with Chromium installed.
unit:
	$(GO) test -count=1 -timeout 30m -skip '^TestBrowser' ./...

unit-short:
	$(GO) test -short -count=1 -timeout 15m -skip '^TestBrowser' ./...

# The README's test command: every package with its sweeps cut to a sample,
# ocbench view in a real browser, the decoders fuzzed briefly, the MPI
# binding and runtimes on 1, 4 and 8 ranks.
test: vet view-short unit-short
	$(MAKE) -s fuzz FUZZTIME=$(or $(FUZZTIME),100000x)
	$(MAKE) mpi-test
	$(MAKE) faults-mpi FAULTS_FLAGS=-short

# The long part, which CI runs after make test: every test in full, fuzzing
# longer, the MPI tests on 32 ranks and over TCP, scripts/mpi-check.sh, and
# the MPICH build (scripts/mpich-check.sh), scripts/slurm.sbatch under Slurm,
# (scripts/slurm-check.sh), the ReFrame check (scripts/reframe-check.sh) and
# the explorer's CI subset (make explore-ci).
check: unit view-test fuzz mpi-test-long mpi-check faults-mpi mpich-check slurm-check reframe-check explore-ci

# The CI subset of `ocbench explore --algo all --nodes 4 --requests 1`
# (docs/explore.md): the algorithms whose whole space with every node
# requesting is explored within 2 minutes; exit 1 if one is not clean and
# complete.
EXPLORE_CI ?= opencube,centralized,naimi-trehel,naimi-trehel-ft,raymond,neilsen-mizuno,neilsen-mizuno-star,neilsen-mizuno-line,kakugawa,nishio,maekawa,mizuno-neilsen-rao,helary-plouzeau-raynal-line,helary-plouzeau-raynal-tree,suzuki-kasami,suzuki-kasami-bounded,singhal-token,singhal,ricart-agrawala-token
explore-ci: build
	./ocbench explore --algo $(EXPLORE_CI) --nodes 4 --requests 1 --quiet --trace -

# Every package's tests, the sweeps cut to a sample (testing.Short): the
# quick check while working; make test stays the full one.
short:
	$(GO) test -short -count=1 ./...

# The frame and boundary decoders, fuzzed for a while (their seed corpora also
# run in unit). The budget is a count of executions, not a duration: Go's
# fuzzing coordinator can fail a duration-bounded run with "context deadline
# exceeded" when a loaded machine starves a worker at the deadline.
fuzz:
	$(GO) test -run XXX -fuzz FuzzDecode -fuzztime $(or $(FUZZTIME),400000x) ./wire
	$(GO) test -run XXX -fuzz FuzzReadBoundary -fuzztime $(or $(FUZZTIME),400000x) ./bench

openmpi:
	@scripts/install-openmpi.sh

chromium:
	@scripts/install-chromium.sh

# ocbench view's pages in a real browser (view/browser_test.go): with
# OCBENCH_VIEW_BROWSER=required a missing Chromium fails the test instead
# of skipping it.
view-test: chromium
	OCBENCH_VIEW_BROWSER=required $(GO) test -count=1 -run 'TestBrowser' -v ./view

# The browser test of a crash trace alone (make test); view-test adds every
# algorithm's page and a 10^5-event trace (make check).
view-short: chromium
	OCBENCH_VIEW_BROWSER=required $(GO) test -short -count=1 -run 'TestBrowser' -v ./view

view-png: chromium
	OCBENCH_VIEW_BROWSER=required $(GO) test -count=1 -run 'TestBrowser$$' ./view -screenshot $(CURDIR)/published/view.png

mpi: openmpi
	$(GO) build -tags mpi -ldflags "$(LDFLAGS)" -o ocbench ./cmd/ocbench

mpi-test: openmpi vet-mpi
	$(GO) test -c -tags mpi -o mpi.test ./mpi
	$(MPIENV) $(MPIRUN) $(MPIRUN_FLAGS) -np 1 ./mpi.test -test.timeout 5m
	$(MPIENV) $(MPIRUN) $(MPIRUN_FLAGS) -np 4 ./mpi.test -test.timeout 5m
	$(MPIENV) $(MPIRUN) $(MPIRUN_FLAGS) -np 4 --mca btl self,tcp ./mpi.test -test.timeout 5m
	$(GO) test -c -tags mpi -o rank.test ./rank
	$(MPIENV) $(MPIRUN) $(MPIRUN_FLAGS) -np 4 ./rank.test -test.run 'MPIParity|MPICrashes|MPIBurst|MPIMeasureDelays|MPIKofl|MPIVirtual' -test.v -test.timeout 5m
	$(MPIENV) $(MPIRUN) $(MPIRUN_FLAGS) -np 4 ./rank.test -test.run 'MPITrace' -test.v -test.timeout 5m
	$(MPIENV) $(MPIRUN) $(MPIRUN_FLAGS) -np 8 ./rank.test -test.run 'MPITargeted' -test.v -test.timeout 5m
	$(MAKE) farm-mpi

# The task farm under mpirun (--mpi-mode farm): records, output and saved
# runs those of one process, bad input on every rank (cmd/ocbench's
# TestFarmMPI, about a minute on a quiet machine).
farm-mpi: openmpi
	OCBENCH_FAULTS_MPI=required $(GO) test -count=1 -timeout 10m -run 'TestFarmMPI' -v ./cmd/ocbench

# The MPI tests that take minutes: 32 ranks, TCP, MPI_THREAD_MULTIPLE, the
# per-message cost.
mpi-test-long: openmpi
	$(GO) test -c -tags mpi -o mpi.test ./mpi
	$(GO) test -c -tags mpi -o rank.test ./rank
	$(MPIENV) $(MPIRUN) $(MPIRUN_FLAGS) -np 4 -x OCBENCH_MPI_THREAD=multiple ./mpi.test -test.timeout 5m
	$(MPIENV) $(MPIRUN) $(MPIRUN_FLAGS) -np 4 --mca btl self,tcp ./rank.test -test.run 'MPIParity|MPICrashes|MPIBurst|MPIMeasureDelays|MPIKofl|MPIVirtual' -test.v -test.timeout 5m
	$(MPIENV) $(MPIRUN) $(MPIRUN_FLAGS) -np 32 ./rank.test -test.run 'MPIParity|MPICrashes|MPIBurst|MPIMeasureDelays|MPIKofl|MPIVirtual' -test.timeout 10m
	$(MPIENV) $(MPIRUN) $(MPIRUN_FLAGS) -np 32 --mca btl self,tcp ./rank.test -test.run 'MPIParity|MPICrashes|MPIBurst|MPIMeasureDelays|MPIKofl|MPIVirtual' -test.timeout 10m
	$(MPIENV) $(MPIRUN) $(MPIRUN_FLAGS) -np 2 ./rank.test -test.run MPIMessageCost -test.v -test.timeout 5m
	$(MPIENV) $(MPIRUN) $(MPIRUN_FLAGS) -np 2 --mca btl self,tcp ./rank.test -test.run MPIMessageCost -test.v -test.timeout 5m

# Every runtime against the simulator, bad input on every rank, killed and
# stopped ranks (about 5 minutes).
mpi-check: openmpi
	scripts/mpi-check.sh

# The fault-injection suite (cmd/ocbench/faults_test.go: TestFaults runs in
# unit and unit-short) has its MPI cases here, with OpenMPI required rather
# than skipped when missing; with them, the verdict line under mpirun
# (TestMPIVerdict: one line from rank 0, every rank's exit status).
faults-mpi: openmpi
	OCBENCH_FAULTS_MPI=required $(GO) test -count=1 -timeout 10m $(FAULTS_FLAGS) -run 'TestFaultsMPI|TestMPIVerdict' -v ./cmd/ocbench

mpich:
	@scripts/install-mpich.sh

# The MPICH build against its tests and the simulator (about a minute and a
# half; installs MPICH if missing).
mpich-check:
	scripts/mpich-check.sh

# A one-machine Slurm (munged, slurmctld, slurmd from Debian; root),
# left running.
slurm:
	@scripts/install-slurm.sh

# scripts/slurm.sbatch submitted to a one-machine Slurm that the script
# starts (and stops, unless it ran before), with mpirun and with srun.
slurm-check: openmpi
	scripts/slurm-check.sh

reframe:
	@scripts/install-reframe.sh >/dev/null

# hpc/reframe/ocbench_check.py under ReFrame (installed if missing), or,
# where ReFrame cannot be installed, its job and patterns by hand.
reframe-check: openmpi
	scripts/reframe-check.sh

seeds:
	$(GO) test -count=1 -timeout 0 -run 'TestSeedSweep' ./bench -seeds $(SEEDS)

crash-seeds:
	$(GO) test -count=1 -timeout 0 -run 'TestCrashSweep' ./bench -crash-seeds $(SEEDS)

# No suspicion without crashes: every load, N 8 … 256, delay floors 0, δ/2, δ,
# FIFO or not, full checks (SUSPICION_SEEDS per configuration).
suspicion-seeds:
	$(GO) test -count=1 -timeout 0 -run 'TestNoFalseSuspicion' ./bench -suspicion-seeds $(or $(SUSPICION_SEEDS),30)

shape-seeds:
	$(GO) test -count=1 -timeout 0 -run 'TestShapeSweep' -v ./bench -shape-seeds $(or $(SHAPE_SEEDS),285) | grep -v '^=== RUN'

crash-sweep:
	scripts/crash-sweep.sh

paper-protocol:
	scripts/paper-protocol.sh

ipsc2: build
	./ocbench --preset ipsc2

failure-free:
	scripts/failure-free.sh

compare:
	scripts/compare.sh

report:
	scripts/report.sh

# The simulator against a bare event loop (container/heap, no protocol, as
# many events) and against the fair floor (a typed heap touching a random
# node's state per event) in 21 pairs timed back to back: the median ratios
# of their events per second, the range, and the load average
# (BenchmarkSimulator in bench/bench_test.go; docs/speed.md).
bench:
	$(GO) test -run XXX -bench Simulator -benchtime 21x ./bench

large-n:
	OCBENCH_LARGE_N=1 $(GO) test -count=1 -timeout 60m -run '^TestMemoryEstimateRange$$' -v ./bench

scale: build
	/usr/bin/time -f "wall %es, max RSS %MkB" ./ocbench --nodes 1048576 --requests 1000000 --workload sequential --seed 1

clean:
	rm -f ocbench mpi.test rank.test

.PHONY: results results-check readme-check readme-check-quick

# Every committed table, report and plot under published/, then README's and
# docs/results.md's excerpts of them (scripts/readme-excerpts.sh). Long: the
# crash sweep and the kofl stabilization runs take most of it.
results:
	scripts/report.sh
	scripts/failure-free.sh
	scripts/compare.sh
	scripts/crash-sweep.sh
	scripts/kofl-stabilization.sh
	scripts/kofl-worst.sh
	scripts/power-sweep.sh
	$(MAKE) view-png
	$(MAKE) -s build
	/usr/bin/time -f "wall %es, max RSS %MkB (make scale, by make results)" \
	  ./ocbench --nodes 1048576 --requests 1000000 --workload sequential --seed 1 --no-save --quiet > published/scale.txt 2>&1
	scripts/readme-excerpts.sh README.md docs/results.md

# The cheap results (scripts/report.sh: published/report/) regenerated into a
# temporary directory and compared with the committed ones, dates, commits
# and timings left out; and README's excerpts against their files.
results-check:
	scripts/results-check.sh

# README followed from a fresh clone, every stated time within 2×
# (readme-check-quick: without the rows marked long; CI runs it).
readme-check:
	scripts/readme-check.sh

readme-check-quick:
	scripts/readme-check.sh --quick
