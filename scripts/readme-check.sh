#!/usr/bin/env bash
# Follows README as a new user would: clones the repository's HEAD into a
# temporary directory, empties the Go build cache (so the first command
# compiles everything, as in a fresh clone), and runs README's timed
# commands there, as written, in README's order. The commands and their
# stated times are the rows of README's tables between the lines
#   <!-- readme-check: begin -->   and   <!-- readme-check: end -->
# whose first cell is a command in backquotes and whose second cell starts
# with a time: "25 s", "1 min 50 s", "2 h 5 min", or TODO-TIME (not yet
# measured: run, never compared). Words in the time cell tag a row:
# "long" (skipped by --quick) and "MPI" (run only with --mpi).
#
# A command fails when it exits non-zero, or when its time is off by more
# than 2×: longer than 2 × stated + 2 s, or shorter than stated / 2 − 2 s
# (2 s is the resolution of a stated time of a few seconds). Each runs with
# a limit of 4 × its stated time (at least stated + 60 s; 2 h for TODO-TIME),
# so a hang fails instead of blocking.
# Prints the load average, then one line per command (ok or FAIL, seconds
# measured, seconds stated, CPU seconds used: on a busy machine the wall
# time grows and the CPU time does not), then "N passed, N failed, N
# skipped" and the load average again; exit status 1 if any failed, 2 on
# bad usage or a README with no timed command.
#
# Usage: scripts/readme-check.sh [--quick] [--mpi] [--help-examples] [--list]
#   (none)           every row but the MPI ones
#   --quick          skip the rows tagged long (CI: make readme-check-quick)
#   --mpi            also the rows tagged MPI (installs OpenMPI if missing)
#   --help-examples  also every example of ocbench --help, untimed (120 s each)
#   --list           print the rows it would run (stated seconds, tags,
#                    command) from the working tree's README.md, run nothing
set -uo pipefail
# One brace group: bash reads it whole before running it, so editing this
# file while it runs cannot change what runs.
{
quick=false
withmpi=false
examples=false
list=false
for a in "$@"; do
	case $a in
	--quick) quick=true ;;
	--mpi) withmpi=true ;;
	--help-examples) examples=true ;;
	--list) list=true ;;
	*)
		echo "readme-check: unknown argument $a (usage: scripts/readme-check.sh [--quick] [--mpi] [--help-examples] [--list])" >&2
		exit 2
		;;
	esac
done
repo=$(cd "$(dirname "$0")/.." && pwd)
if $list; then
	cd "$repo" || exit 1
else
	work=$(mktemp -d)
	trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
	git clone -q "$repo" "$work/ocbench" || {
		echo "readme-check: cannot clone $repo" >&2
		exit 1
	}
	cd "$work/ocbench" || exit 1
	export PATH="/usr/local/go/bin:$PATH"
	export GOCACHE="$work/gocache"
fi

# seconds TEXT prints the first duration of TEXT in seconds ("1 min 50 s"
# → 110), or nothing when TEXT does not start with one.
seconds() {
	local t=$1 h=0 m=0 s=0
	[[ $t =~ ^[[:space:]]*(([0-9]+)[[:space:]]*h)?[[:space:]]*(([0-9]+)[[:space:]]*min)?[[:space:]]*(([0-9]+)[[:space:]]*s)? ]] || return
	[ -n "${BASH_REMATCH[2]}${BASH_REMATCH[4]}${BASH_REMATCH[6]}" ] || return
	h=${BASH_REMATCH[2]:-0} m=${BASH_REMATCH[4]:-0} s=${BASH_REMATCH[6]:-0}
	echo $((10#$h * 3600 + 10#$m * 60 + 10#$s))
}

# The rows: command <TAB> time cell, from the marked tables of README.md.
rows=$(awk '
	/<!-- readme-check: begin -->/ { on = 1; next }
	/<!-- readme-check: end -->/ { on = 0; next }
	on && /^\|/ {
		n = split($0, cell, "|")
		if (n < 4) next
		c = cell[2]
		if (c !~ /`/) next
		sub(/^[^`]*`/, "", c); sub(/`.*$/, "", c)
		t = cell[3]; gsub(/^[ \t]+|[ \t]+$/, "", t)
		print c "\t" t
	}' README.md)
if [ -z "$rows" ]; then
	echo "readme-check: README.md has no timed command (no table between <!-- readme-check: begin --> and <!-- readme-check: end -->)" >&2
	exit 2
fi

if $list; then
	while IFS=$'\t' read -r cmd cell; do
		printf '%6s  %-16s  %s\n' "$(seconds "$cell" || true)" "$(grep -ow -e long -e MPI -e TODO-TIME <<<"$cell" | tr '\n' ' ')" "$cmd"
	done <<<"$rows"
	exit 0
fi
passed=0
failed=0
skipped=0
echo "readme-check: load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null) on $(nproc) cores"
# run STATED LIMIT CMD runs one command line in the clone within LIMIT
# seconds and compares its time with STATED (seconds; empty: not compared).
# A command with --delay-violations must exit 1 and name the violation
# (it breaks δ on purpose); every other must exit 0.
run() {
	local stated=$1 limit=$2 cmd=$3 start=$SECONDS want=0 got took verdict=ok why=""
	[[ "$cmd" == *--delay-violations* ]] && want=1
	/usr/bin/time -o "$work/cpu" -f '%U %S' timeout "$limit" bash -c "$cmd" >"$work/out" 2>&1 </dev/null
	got=$?
	took=$((SECONDS - start))
	cpu=$(awk '/^[0-9.]+ [0-9.]+$/ { printf "%d", $1 + $2 + 0.5 }' "$work/cpu" 2>/dev/null)
	if [ "$got" -eq 124 ]; then
		verdict=FAIL why="killed after ${limit} s"
	elif [ "$got" -ne "$want" ] || { [ "$want" -eq 1 ] && ! grep -q VIOLATION "$work/out"; }; then
		verdict=FAIL why="exit status $got"
	elif [ -n "$stated" ] && [ "$took" -gt $((2 * stated + 2)) ]; then
		verdict=FAIL why="more than 2× the stated time"
	elif [ -n "$stated" ] && [ $((2 * took + 4)) -lt "$stated" ]; then
		verdict=FAIL why="less than half the stated time"
	fi
	local shown=none
	[ -n "$stated" ] && shown="$stated s"
	printf '%-4s  %5d s  stated %-7s  cpu %5s s  %s%s\n' "$verdict" "$took" "$shown" "${cpu:-?}" "$cmd" "${why:+  ($why)}"
	if [ "$verdict" = ok ]; then
		passed=$((passed + 1))
	else
		[ "$got" -ne 0 ] && tail -n 5 "$work/out" | sed 's/^/        /'
		failed=$((failed + 1))
	fi
}

while IFS=$'\t' read -r cmd cell; do
	if $quick && [[ " $cell " =~ [^[:alpha:]]long[^[:alpha:]] ]]; then
		skipped=$((skipped + 1))
		continue
	fi
	if ! $withmpi && [[ " $cell " =~ [^[:alpha:]]MPI[^[:alpha:]] ]]; then
		skipped=$((skipped + 1))
		continue
	fi
	stated=$(seconds "$cell")
	if [ -z "$stated" ]; then
		if [[ $cell != TODO-TIME* ]]; then
			echo "readme-check: README.md: \`$cmd\`: no time in \"$cell\" (want e.g. 25 s, 1 min 50 s, or TODO-TIME)" >&2
			exit 2
		fi
		run "" 7200 "$cmd"
		continue
	fi
	limit=$((4 * stated))
	[ "$limit" -lt $((stated + 60)) ] && limit=$((stated + 60))
	run "$stated" "$limit" "$cmd"
done <<<"$rows"

if $examples; then
	[ -x ./ocbench ] || make -s build >/dev/null
	while IFS= read -r ex; do
		run "" 120 "./$ex"
	done < <(./ocbench --help | sed -n '/^Examples:/,$p' | grep -E '^  ocbench' | sed -E 's/^  //; s/ {2,}.*$//')
fi
echo "readme-check: $passed passed, $failed failed, $skipped skipped; load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
[ "$failed" -eq 0 ]
exit
}
