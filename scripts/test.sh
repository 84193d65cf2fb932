#!/usr/bin/env bash
# Install what is needed (including Debian's chromium for the browser tests), then run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

if [ ! -x /usr/bin/chromium ] || [ ! -d /usr/share/fonts/truetype/noto ]; then
  SUDO=""
  if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q chromium fonts-dejavu-core fonts-noto-color-emoji
fi

exec .venv/bin/python -m pytest "$@"
