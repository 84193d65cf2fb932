#!/usr/bin/env bash
# Install what Forest Table needs: a Python virtual environment with the pinned packages,
# and htmx from the npm registry (package-lock.json). Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt

if [ ! -f node_modules/htmx.org/dist/htmx.min.js ] || [ ! -f node_modules/htmx-ext-sse/dist/sse.min.js ] \
   || [ ! -f node_modules/idiomorph/dist/idiomorph-ext.min.js ] || [ ! -f node_modules/terser/bin/terser ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi

# The translation catalogs compiled (the app also compiles a .po newer than its .mo in memory)
bash scripts/catalogs.sh compile
