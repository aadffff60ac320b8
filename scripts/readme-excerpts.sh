#!/usr/bin/env bash
# Refreshes the excerpts of committed results quoted in Markdown files, or
# (--check) fails when one is stale. An excerpt is the fenced block between
#   <!-- excerpt: PATH [lines A-B] -->   and   <!-- excerpt end -->
# and its content is the file PATH of the repository (lines A to B only,
# 1-based, with "lines"), verbatim. The scripts that write PATH are what
# make results runs, so README's figures come from the commands that
# produce them, never from a hand copy.
#
# Usage: scripts/readme-excerpts.sh [--check] FILE.md…   (PATH is relative
# to the repository's root, FILE.md to the current directory)
# Exit status: 0 current (or refreshed), 1 stale (--check; names each
# stale excerpt), 2 bad usage, a missing file or a malformed marker.
set -uo pipefail
check=false
if [ "${1:-}" = --check ]; then
	check=true
	shift
fi
if [ $# -eq 0 ]; then
	echo "usage: scripts/readme-excerpts.sh [--check] FILE.md…" >&2
	exit 2
fi
files=()
for f in "$@"; do
	case $f in
	/*) files+=("$f") ;;
	*) files+=("$PWD/$f") ;;
	esac
done
cd "$(dirname "$0")/.." || exit 2
python3 - "$check" "${files[@]}" <<'PY'
import re, sys
check = sys.argv[1] == "true"
begin = re.compile(r"^<!-- excerpt: (\S+)(?: lines (\d+)-(\d+))? -->$")
status = 0
for md in sys.argv[2:]:
    try:
        lines = open(md, encoding="utf-8").read().split("\n")
    except OSError as e:
        print(f"readme-excerpts: {md}: {e.strerror}", file=sys.stderr)
        sys.exit(2)
    out, i, stale = [], 0, []
    while i < len(lines):
        line = lines[i]
        m = begin.match(line)
        out.append(line)
        i += 1
        if not m:
            if line.startswith("<!-- excerpt"):
                if line == "<!-- excerpt end -->":
                    print(f"readme-excerpts: {md}:{i}: an end marker without its begin marker", file=sys.stderr)
                else:
                    print(f"readme-excerpts: {md}:{i}: malformed marker (want <!-- excerpt: PATH [lines A-B] -->)", file=sys.stderr)
                sys.exit(2)
            continue
        start = i
        while i < len(lines) and lines[i] != "<!-- excerpt end -->":
            i += 1
        if i == len(lines):
            print(f"readme-excerpts: {md}:{start}: no <!-- excerpt end --> after it", file=sys.stderr)
            sys.exit(2)
        path = m.group(1)
        try:
            src = open(path, encoding="utf-8").read().rstrip("\n").split("\n")
        except OSError as e:
            print(f"readme-excerpts: {md}:{start}: {path}: {e.strerror}", file=sys.stderr)
            sys.exit(2)
        if m.group(2):
            a, b = int(m.group(2)), int(m.group(3))
            if not 1 <= a <= b <= len(src):
                print(f"readme-excerpts: {md}:{start}: lines {a}-{b} not in {path} ({len(src)} lines)", file=sys.stderr)
                sys.exit(2)
            src = src[a - 1:b]
        block = ["```text"] + src + ["```"]
        if lines[start:i] != block:
            stale.append(f"{md}:{start}: the excerpt of {path}{' lines ' + m.group(2) + '-' + m.group(3) if m.group(2) else ''}")
        out.extend(block)
        out.append(lines[i])
        i += 1
    if check:
        for s in stale:
            print(f"readme-excerpts: stale: {s} (scripts/readme-excerpts.sh {md} refreshes it)")
        if stale:
            status = 1
    elif stale:
        open(md, "w", encoding="utf-8").write("\n".join(out))
        print(f"readme-excerpts: {md}: refreshed {len(stale)} excerpt(s)")
sys.exit(status)
PY
