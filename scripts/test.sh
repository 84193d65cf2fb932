#!/usr/bin/env bash
# Install what is needed (including Debian's chromium for the browser tests and its
# postgresql), then run every test: on SQLite, and the store, table, concurrency, crash,
# secrecy, history and serving tests on a throwaway PostgreSQL as well.
# FOREST_TABLE_TEST_POSTGRES=skip runs SQLite only (no PostgreSQL started).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

if [ ! -x /usr/bin/chromium ] || [ ! -d /usr/share/fonts/truetype/noto ]; then
  SUDO=""
  if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q chromium fonts-dejavu-core fonts-noto-color-emoji
fi

if [ "${FOREST_TABLE_TEST_POSTGRES:-}" != "skip" ] && [ -z "${FOREST_TABLE_TEST_DATABASE_URL:-}" ]; then
  bash scripts/postgres.sh start
  trap 'bash scripts/postgres.sh stop' EXIT
  export FOREST_TABLE_TEST_DATABASE_URL="$(bash scripts/postgres.sh url)"
fi

# Three processes on two cores: a browser test waits on its phones and servers much of the
# time (a run with two used some 12 of its 30 core-minutes), so a third keeps the cores
# busy: 9.3 minutes for the suite here against 15.0 with two.
.venv/bin/python -m pytest -n 3 --dist load "$@"
