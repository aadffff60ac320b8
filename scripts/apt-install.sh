# apt-install.sh — sourced by the install-*.sh scripts: apt_install NAME HINT
# PKG… installs Debian packages with apt-get, through sudo when not root.
# NAME prefixes every message; HINT says what to install by hand where
# apt-get or the rights to run it are missing. Returns non-zero on failure.

apt_install() {
	local name=$1 hint=$2
	shift 2
	local sudo=()
	if [ "$(id -u)" -ne 0 ]; then
		if ! command -v sudo >/dev/null 2>&1; then
			echo "$name: not root and sudo not available; cannot install $*" >&2
			return 1
		fi
		sudo=(sudo)
	fi
	if ! command -v apt-get >/dev/null 2>&1; then
		echo "$name: apt-get not found; $hint" >&2
		return 1
	fi
	echo "$name: running apt-get update"
	"${sudo[@]}" apt-get update -q
	echo "$name: installing $*"
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"
}
