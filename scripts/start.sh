#!/usr/bin/env bash
# Install what is needed, then serve Forest Table to the phones on this network with the
# production server: gunicorn (gunicorn.conf.py) with one gevent worker process, which
# holds every phone's live-update stream and is plenty for a table or two. A club runs
# scripts/serve.sh, one worker per core. `python app.py` is the development server.
set -euo pipefail
cd "$(dirname "$0")/.."
export FOREST_TABLE_WORKERS="${FOREST_TABLE_WORKERS:-1}"
exec bash scripts/serve.sh "$@"
