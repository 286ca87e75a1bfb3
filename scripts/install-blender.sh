#!/usr/bin/env bash
# Debian's Blender (3.4) and numpy for test/dm.test.ts, which checks corskin's Delta Mush against
# Blender's Corrective Smooth modifier (headless, `blender -b`): installed with apt-get
# --no-install-recommends when no `blender` is on the PATH; nothing else is upgraded. Without it
# the reference tests are skipped with a message.
set -euo pipefail
if command -v blender >/dev/null 2>&1; then exit 0; fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "corskin: installing Debian's 'blender' and 'python3-numpy' with apt-get --no-install-recommends (Delta Mush reference test)"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends --no-upgrade blender python3-numpy >/dev/null
echo "corskin: installed $(blender --version 2>/dev/null | head -1 || echo blender)"
