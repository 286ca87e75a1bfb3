#!/usr/bin/env bash
# Debian's Chromium for the browser tests, `corskin render` and the HTML report test (never a
# downloaded browser): installed with apt-get when no Chromium is found (CORSKIN_CHROMIUM, or
# chromium on the PATH).
set -euo pipefail
if [ -n "${CORSKIN_CHROMIUM:-}" ] && [ -x "$CORSKIN_CHROMIUM" ]; then exit 0; fi
if command -v chromium >/dev/null 2>&1; then exit 0; fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
