#!/usr/bin/env bash
# How much faster a sweep runs on every core (--jobs) and as an MPI task
# farm (--mpi-mode farm) than in one process, in pairs run in turn (A B A
# B …), with /usr/bin/time; docs/speed.md, "Sweeps on every core".
#   scripts/sweep-speed.sh [PAIRS]        # 5 pairs per line unless given
#   SWEEP="--nodes 16 --requests 100 --repeat 8 --no-save --quiet" SWEEP20=… scripts/sweep-speed.sh 3
# Builds ./ocbench-sweep and ./ocbench-sweep-mpi (the latter only when
# Open MPI is installed) in a temporary directory. Prints, per comparison,
# the medians (min–max) of the pairs' ratios A/B in wall time and in CPU
# time (user + sys), and the load average before and after. A wall ratio
# A/B of 0.5 is a speed-up of 2; on a machine with other work the second
# core is not free, so the wall ratio then says little, and the "ceiling"
# line says what the machine gave: two copies of the one-process sweep at
# once against one alone (2 × one's wall time / the pair's; 2 when two
# cores are free).
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${1:-5}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/ocbench" ./cmd/ocbench
mpi=""
if command -v mpirun >/dev/null && pkg-config --exists ompi 2>/dev/null; then
	go build -tags mpi -o "$dir/ocbench-mpi" ./cmd/ocbench
	mpi=1
fi
ob="$dir/ocbench"
# The sweeps (SWEEP and SWEEP20 replace them): the ipsc2 experiment of every
# fault-tolerant algorithm, 40 runs; and with 20 seeds, 160 runs.
sweep=${SWEEP:-"--algo ft --no-save --quiet"}
sweep20=${SWEEP20:-"--algo ft --repeat 20 --no-save --quiet"}

# once CMD…: the wall and CPU seconds of one run of CMD, "wall cpu".
once() {
	/usr/bin/time -f '%e %U %S' -o "$dir/t" "$@" >/dev/null 2>"$dir/err" || {
		cat "$dir/err" >&2
		exit 1
	}
	awk '{ printf "%s %.3f\n", $1, $2 + $3 }' "$dir/t"
}

# median FILE COLUMN: the median of a column, and the range.
median() {
	sort -g -k"$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.3f (%.3f–%.3f)", m, v[1], v[NR] }'
}

# pair NAME "A" "B": PAIRS pairs of A and B in turn, after one warm-up of each.
pair() {
	local name=$1 a=$2 b=$3
	: >"$dir/r"
	once $a >/dev/null
	once $b >/dev/null
	for _ in $(seq "$pairs"); do
		read -r aw ac < <(once $a)
		read -r bw bc < <(once $b)
		echo "$aw $ac $bw $bc" | awk '{ printf "%.4f %.4f %s %s %s %s\n", $1 / $3, $2 / $4, $1, $2, $3, $4 }' >>"$dir/r"
	done
	printf '%-34s A/B wall %s, cpu %s; A %s s wall, B %s s wall (medians)\n' "$name" "$(median "$dir/r" 1)" "$(median "$dir/r" 2)" \
		"$(median "$dir/r" 3 | cut -d' ' -f1)" "$(median "$dir/r" 5 | cut -d' ' -f1)"
}

# two CMD…: two copies of CMD at once, "wall cpu" of the pair.
two() {
	local start end
	start=$(date +%s.%N)
	"$@" >/dev/null 2>&1 &
	local p=$!
	"$@" >/dev/null 2>&1
	wait "$p"
	end=$(date +%s.%N)
	echo "$start $end" | awk '{ printf "%.3f 0\n", $2 - $1 }'
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; $pairs pairs per line"
pair "--jobs 2 / --jobs 1 (SWEEP)" "$ob $sweep --jobs 2" "$ob $sweep --jobs 1"
pair "--jobs 2 / --jobs 1 (SWEEP20)" "$ob $sweep20 --jobs 2" "$ob $sweep20 --jobs 1"
: >"$dir/c"
for _ in $(seq "$pairs"); do
	read -r tw _ < <(two "$ob" $sweep --jobs 1)
	read -r ow _ < <(once "$ob" $sweep --jobs 1)
	echo "$tw $ow" | awk '{ printf "%.4f\n", 2 * $2 / $1 }' >>"$dir/c"
done
printf '%-34s %s (2 = two free cores)\n' "ceiling: 2 copies at once" "$(median "$dir/c" 1)"
if [ -n "$mpi" ]; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	mr="mpirun --oversubscribe -q"
	pair "farm np 2 / np 1 (SWEEP20)" "$mr -np 2 $dir/ocbench-mpi $sweep20 --mpi-mode farm" "$mr -np 1 $dir/ocbench-mpi $sweep20 --mpi-mode farm"
	pair "farm np 2 / --jobs 1 (SWEEP20)" "$mr -np 2 $dir/ocbench-mpi $sweep20 --mpi-mode farm" "$dir/ocbench-mpi $sweep20 --jobs 1"
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
