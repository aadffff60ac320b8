#!/usr/bin/env bash
# install-reframe.sh — ReFrame (PyPI's reframe-hpc) in a virtual
# environment under a cache directory outside the repository, for
# hpc/reframe's check (make reframe, make reframe-check):
#   scripts/install-reframe.sh      # prints the reframe command's path last
#
# Idempotent: a virtual environment whose reframe answers --version is
# kept. Where from, in this order:
# 1. PyPI: python3 -m venv, then pip install reframe-hpc==REFRAME_VERSION
#    (default 4.6.3, the version the check was tested with);
# 2. REFRAME_SRC=DIR, a ReFrame source tree (e.g. a git checkout of tag
#    v4.6.3), for machines that do not reach PyPI: run by Debian's python3
#    in a virtual environment that sees Debian's packages of ReFrame's
#    dependencies (installed here through apt-get); archspec, which Debian
#    lacks, must be importable or sit in DIR/external/<machine>/archspec.
# Exit status 1, with the reason on stderr, where neither works.
# Messages go to stderr; stdout holds only the path.
# Directory: $OCBENCH_CACHE, else $XDG_CACHE_HOME/ocbench, else
# ~/.cache/ocbench.
set -euo pipefail
name=install-reframe
version=${REFRAME_VERSION:-4.6.3}
cache=${OCBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ocbench}
say() { echo "$name: $*" >&2; }

works() { # works DIR: DIR/bin/reframe answers --version
	[ -x "$1/bin/reframe" ] && "$1/bin/reframe" --version >/dev/null 2>&1
}

pypi=$cache/reframe-$version
src=$cache/reframe-src
for venv in "$pypi" "$src"; do
	if works "$venv"; then
		say "ReFrame $("$venv/bin/reframe" --version) already in $venv"
		echo "$venv/bin/reframe"
		exit 0
	fi
done

mkdir -p "$cache"
# 1. PyPI.
why=""
rm -rf "$pypi"
probe=$(mktemp -d)
# The wheel first, one try: where the index is out of reach this fails at
# once, before a virtual environment is made.
if ! python3 -m pip download -q --no-deps --retries 0 --timeout 20 -d "$probe" "reframe-hpc==$version" >&2; then
	why="pip download reframe-hpc==$version failed (is PyPI reachable?)"
elif ! python3 -m venv "$pypi" >&2; then
	why="python3 -m venv failed"
elif ! "$pypi/bin/pip" install -q --retries 1 --timeout 30 "reframe-hpc==$version" >&2; then
	why="pip install reframe-hpc==$version failed (is PyPI reachable?)"
elif ! works "$pypi"; then
	why="reframe from PyPI does not answer --version"
else
	rm -rf "$probe"
	say "installed ReFrame $("$pypi/bin/reframe" --version) from PyPI into $pypi"
	echo "$pypi/bin/reframe"
	exit 0
fi
rm -rf "$pypi" "$probe"
say "$why"

# 2. A source tree.
if [ -z "${REFRAME_SRC:-}" ]; then
	say "no ReFrame: PyPI gave none and REFRAME_SRC (a ReFrame source tree) is not set"
	exit 1
fi
if [ ! -f "$REFRAME_SRC/bin/reframe" ]; then
	say "REFRAME_SRC=$REFRAME_SRC holds no bin/reframe"
	exit 1
fi
. "$(dirname "$0")/apt-install.sh"
if ! /usr/bin/python3 -c 'import jsonschema, lxml, requests, semver, argcomplete, yaml' 2>/dev/null; then
	apt_install "$name" "install ReFrame's dependencies for /usr/bin/python3 by hand" >&2 \
		python3-venv python3-jsonschema python3-lxml python3-requests python3-semver python3-argcomplete python3-yaml
fi
rm -rf "$src"
/usr/bin/python3 -m venv --system-site-packages "$src" >&2
rm -f "$src/bin/reframe"
cat >"$src/bin/reframe" <<EOF
#!/bin/sh
# ReFrame from the source tree $REFRAME_SRC (scripts/install-reframe.sh).
exec "$src/bin/python" "$REFRAME_SRC/bin/reframe" "\$@"
EOF
chmod +x "$src/bin/reframe"
if ! works "$src"; then
	say "ReFrame from $REFRAME_SRC does not answer --version: $("$src/bin/reframe" --version 2>&1 | tail -1)"
	rm -rf "$src"
	exit 1
fi
say "ReFrame $("$src/bin/reframe" --version) from $REFRAME_SRC in $src"
echo "$src/bin/reframe"
