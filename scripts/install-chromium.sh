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

. "$(dirname "$0")/apt-install.sh"
apt_install install-chromium "install Chromium by hand (the browser test looks for chromium on PATH)" chromium

if ! path=$(find_chromium); then
	echo "install-chromium: installation finished but chromium is still not on PATH" >&2
	exit 1
fi
echo "install-chromium: installed $("$path" --version 2>/dev/null || echo chromium) ($path)"
