#!/usr/bin/env bash
# Checks that the committed results are current: regenerates the cheap ones
# (scripts/report.sh, seed 1: the iPSC/2 runs and the failure-free sequential
# runs up to N = 4096, with the report and its plots) into a temporary
# directory and compares every file it writes with the committed one, then
# checks that README.md's and docs/results.md's excerpts equal the files
# they quote (scripts/readme-excerpts.sh --check).
#
# Compared: the fields that are deterministic for a seed. Left out before
# comparing: saved runs' environment (date, commit, host, command line) and
# wall_seconds; runs.csv's file, date, commit and wall_seconds columns; in
# text, dates, commits, machine and Go version, host names, temporary
# directories and the results directory's own path. Plots (SVG) are compared
# byte for byte.
#
# Usage: scripts/results-check.sh [--keep]   (--keep: leave the regenerated
# files in the temporary directory and print its path)
# Exit status 0 current, 1 stale (names every stale file, with a diff),
# 2 bad usage.
set -uo pipefail
keep=false
for a in "$@"; do
	case $a in
	--keep) keep=true ;;
	*)
		echo "results-check: unknown argument $a (usage: scripts/results-check.sh [--keep])" >&2
		exit 2
		;;
	esac
done
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d)
$keep || trap 'rm -rf "$tmp"' EXIT
fresh=$tmp/results
mkdir -p "$fresh"

for s in report; do
	if ! RESULTS=$fresh "scripts/$s.sh" >"$tmp/$s.log" 2>&1; then
		echo "results-check: scripts/$s.sh failed:" >&2
		tail -n 5 "$tmp/$s.log" >&2
		exit 1
	fi
done

# norm FILE ROOT prints FILE without its run-dependent parts (ROOT, the
# results directory FILE was written under, becomes "published").
norm() {
	python3 - "$1" "$2" <<'EOF'
import csv, io, json, re, sys
path, root = sys.argv[1], sys.argv[2].rstrip("/")
text = open(path, encoding="utf-8").read()

def drop_wall(v):
    if isinstance(v, dict):
        return {k: drop_wall(x) for k, x in v.items() if k not in ("wall_seconds", "cpu_seconds_per_rank")}
    if isinstance(v, list):
        return [drop_wall(x) for x in v]
    return v

if path.endswith(".json"):
    try:
        v = json.loads(text)
    except ValueError:
        # failure-free.json: several JSON values in a wrapper object.
        print(text)
        sys.exit(0)
    if isinstance(v, dict):
        v.pop("environment", None)
    print(json.dumps(drop_wall(v), indent=1, sort_keys=True, ensure_ascii=False))
elif path.endswith(".csv"):
    rows = list(csv.reader(io.StringIO(text)))
    skip = {"file", "date", "commit", "wall_seconds"}
    keepcols = [i for i, h in enumerate(rows[0]) if h not in skip] if rows else []
    for r in rows:
        print(",".join(r[i] if i < len(r) else "" for i in keepcols))
elif path.endswith(".svg"):
    print(text)
else:
    text = text.replace(root + "/", "published/").replace(root, "published")
    subs = [
        (r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "DATE"),
        (r"\bcommit:? [0-9a-f]{7,40}(-dirty)?", "commit C"),
        (r"machine: [^;\n]*", "machine: M"),
        (r"\bgo1\.\d+(\.\d+)?", "GO"),
        (r"rank\(s\) on [^;\n]*", "rank(s) on HOST"),
        (r"/tmp/tmp\.[A-Za-z0-9]+", "TMP"),
    ]
    for pat, rep in subs:
        text = re.sub(pat, rep, text)
    print(text, end="")
EOF
}

stale=0
while IFS= read -r f; do
	rel=${f#"$fresh"/}
	if [ ! -e "published/$rel" ]; then
		echo "results-check: published/$rel is not committed (scripts write it)"
		stale=$((stale + 1))
		continue
	fi
	if ! diff -u --label "published/$rel (committed)" --label "published/$rel (regenerated)" \
		<(norm "published/$rel" published) <(norm "$f" "$fresh") >"$tmp/diff"; then
		echo "results-check: published/$rel is stale:"
		head -n 20 "$tmp/diff" | sed 's/^/    /'
		stale=$((stale + 1))
	fi
done < <(find "$fresh" -type f | sort)
# A committed file of the regenerated directories that the scripts no
# longer write is stale too.
while IFS= read -r f; do
	[ -e "$fresh/${f#published/}" ] || {
		echo "results-check: $f is committed but no script writes it"
		stale=$((stale + 1))
	}
done < <(find published/report -type f | sort)

scripts/readme-excerpts.sh --check README.md docs/results.md || stale=$((stale + 1))
$keep && echo "results-check: regenerated files kept in $fresh"
if [ "$stale" -gt 0 ]; then
	echo "results-check: $stale stale; make results regenerates every committed result"
	exit 1
fi
echo "results-check: the committed results and the excerpts are current"
