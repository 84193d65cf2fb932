#!/usr/bin/env bash
# Install what is needed, then serve Forest Table with gunicorn (gevent worker processes
# holding thousands of open live-update streams): the way to run it for a whole club.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# Every open stream is an open file: allow as many as the system lets this user have.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
exec .venv/bin/gunicorn --config gunicorn.conf.py "$@"
