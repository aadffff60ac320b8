#!/usr/bin/env bash
# install-chromium.sh — make sure a headless-capable Chromium is installed, so
# that view's browser test (view/browser_test.go, driven by chromedp) runs.
#
# Idempotent: does nothing when chromium (or chromium-browser, google-chrome)
# is on PATH. Debian/Ubuntu only (apt-get). Uses sudo only when not root and
# sudo exists.
set -euo pipefail

find_chromium() {
	local b
	for b in chromium chromium-browser google-chrome google-chrome-stable headless-shell; do
		if command -v "$b" >/dev/null 2>&1; then
			command -v "$b"
			return 0
		fi
	done
	return 1
}

if path=$(find_chromium); then
	echo "install-chromium: Chromium already present ($path); nothing to do"
	exit 0
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		SUDO=(sudo)
	else
		echo "install-chromium: not root and sudo not available; cannot install Chromium" >&2
		exit 1
	fi
fi

if ! command -v apt-get >/dev/null 2>&1; then
	echo "install-chromium: apt-get not found; install Chromium by hand (the browser test looks for chromium on PATH)" >&2
	exit 1
fi

echo "install-chromium: running apt-get update"
"${SUDO[@]}" apt-get update -q
echo "install-chromium: installing chromium"
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium

if ! path=$(find_chromium); then
	echo "install-chromium: installation finished but chromium is still not on PATH" >&2
	exit 1
fi
echo "install-chromium: installed $("$path" --version 2>/dev/null || echo chromium) ($path)"
