#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests and the benchmarks: Debian's postgresql
# package, a fresh cluster in a temporary folder, listening on 127.0.0.1 on a private port
# with its socket in that folder. Never a server anyone else uses.
#
#   bash scripts/postgres.sh start   # install if missing, make the cluster, start it
#   bash scripts/postgres.sh url     # print the URL to give FOREST_TABLE_DATABASE_URL
#   bash scripts/postgres.sh stop    # stop it and delete the cluster
#   bash scripts/postgres.sh down    # stop the server, keep the cluster (an outage)
#   bash scripts/postgres.sh up      # start the kept cluster again
#
# FOREST_TABLE_PG_PORT (54329) and FOREST_TABLE_PG_DIR choose the port and the folder.
#
# A test cluster: losing the last commits in a power cut does not matter, so it runs with
# fsync, synchronous_commit and full_page_writes off; an immediate stop may then lose
# acknowledged commits. FOREST_TABLE_PG_DURABLE=1 keeps PostgreSQL's durable defaults (all
# three on), as a production server must run.
set -euo pipefail

PORT="${FOREST_TABLE_PG_PORT:-54329}"
DIR="${FOREST_TABLE_PG_DIR:-${TMPDIR:-/tmp}/forest-table-pg-$PORT}"
URL="postgresql://postgres@127.0.0.1:$PORT/postgres"
OPTS="-p $PORT -c listen_addresses=127.0.0.1 -c unix_socket_directories=$DIR -c max_connections=300"
if [ "${FOREST_TABLE_PG_DURABLE:-0}" != "1" ]; then
  OPTS="$OPTS -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
fi

bindir() {
  local found
  found="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
  if [ -z "$found" ]; then
    local sudo=""
    if [ "$(id -u)" != "0" ]; then sudo="sudo"; fi
    $sudo apt-get update -q >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q postgresql >&2
    found="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
  fi
  echo "$found"
}

# initdb refuses to run as root: the cluster then belongs to the postgres system user.
as_owner() {
  if [ "$(id -u)" = "0" ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "${1:-}" in
  start)
    BIN="$(bindir)"
    if as_owner "$BIN/pg_ctl" -D "$DIR/data" status >/dev/null 2>&1; then
      exit 0  # already running
    fi
    rm -rf "$DIR"
    mkdir -p "$DIR"
    if [ "$(id -u)" = "0" ]; then chown postgres: "$DIR"; fi
    as_owner "$BIN/initdb" -D "$DIR/data" -U postgres --auth=trust --encoding=UTF8 \
      --locale=C.UTF-8 >"$DIR/initdb.log" 2>&1 || { cat "$DIR/initdb.log" >&2; exit 1; }
    as_owner "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -t 60 -o "$OPTS" \
      start >/dev/null || { cat "$DIR/server.log" >&2; exit 1; }
    ;;
  down)
    BIN="$(bindir)"
    as_owner "$BIN/pg_ctl" -D "$DIR/data" -m fast -w -t 60 stop >/dev/null
    ;;
  up)
    BIN="$(bindir)"
    as_owner "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -t 60 -o "$OPTS" \
      start >/dev/null || { cat "$DIR/server.log" >&2; exit 1; }
    ;;
  stop)
    BIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
    if [ -n "$BIN" ] && [ -d "$DIR/data" ]; then
      as_owner "$BIN/pg_ctl" -D "$DIR/data" -m immediate stop >/dev/null 2>&1 || true
    fi
    rm -rf "$DIR"
    ;;
  url)
    echo "$URL"
    ;;
  *)
    echo "usage: $0 start|stop|down|up|url" >&2
    exit 2
    ;;
esac
