#!/usr/bin/env bash
# Debian's Chromium for the browser tests, `corskin render` and the HTML report test (never a
# downloaded browser): installed with apt-get when no Chromium is found (CORSKIN_CHROMIUM, or
# chromium on the PATH). Installs Chromium and what it strictly depends on
# (--no-install-recommends), and never upgrades packages that are already installed
# (--no-upgrade on the dependencies; apt-get install never runs a full upgrade).
set -euo pipefail
if [ -n "${CORSKIN_CHROMIUM:-}" ] && [ -x "$CORSKIN_CHROMIUM" ]; then exit 0; fi
if command -v chromium >/dev/null 2>&1; then exit 0; fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "corskin: no Chromium found (set CORSKIN_CHROMIUM to use another one)."
echo "corskin: installing Debian's 'chromium' package with apt-get --no-install-recommends, for"
echo "         the browser tests and 'corskin render' (no other package is upgraded)."
$SUDO apt-get update -qq
# --simulate first so the list of new packages is printed before anything is installed.
NEW=$(DEBIAN_FRONTEND=noninteractive $SUDO apt-get install --simulate --no-install-recommends -y chromium |
  awk '/^Inst /{print $2}' | tr '\n' ' ')
echo "corskin: packages to install: ${NEW:-none}"
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends --no-upgrade chromium >/dev/null
echo "corskin: installed $(chromium --version 2>/dev/null || echo chromium)"
