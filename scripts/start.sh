#!/usr/bin/env bash
# Install what is needed, then serve Forest Table to the phones on this network.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python app.py "$@"
