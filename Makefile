# ocbench — build, test and measure. `make help` lists the targets.
GO ?= go
SEEDS ?= 100000

.PHONY: help build test vet unit seeds failure-free bench scale clean

help:
	@echo "make build         build ./ocbench (simulator runtime)"
	@echo "make test          vet + all tests (the README's test command; CI runs it)"
	@echo "make seeds         the long seed sweep: SEEDS=$(SEEDS) seeds per configuration"
	@echo "make failure-free  measure the failure-free table into results/"
	@echo "make bench         Go benchmarks (simulator events per second)"
	@echo "make scale         N = 2^20 nodes, 10^6 sequential requests, timed"

build:
	$(GO) build -o ocbench ./cmd/ocbench

vet:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt: these files need formatting:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

unit:
	$(GO) test -count=1 ./...

test: vet unit

seeds:
	$(GO) test -count=1 -timeout 0 -run 'TestSeedSweep' ./bench -seeds $(SEEDS)

failure-free:
	scripts/failure-free.sh

bench:
	$(GO) test -run XXX -bench . -benchtime 3x ./bench

scale: build
	/usr/bin/time -f "wall %es, max RSS %MkB" ./ocbench --nodes 1048576 --requests 1000000 --workload sequential --seed 1

clean:
	rm -f ocbench ocbench-mpi
