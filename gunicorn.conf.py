"""Gunicorn settings for serving Forest Table to a whole club: `bash scripts/serve.sh`.

Every phone at every table holds one server-sent-event stream open for minutes, so the
server must hold thousands of idle connections cheaply while it renders views for the
phones that act. Each setting can be changed with an environment variable; see the
README's "Serving a whole club".
"""

from __future__ import annotations

import os


def _env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "")
    return int(value) if value.strip() else default


_host = os.environ.get("FOREST_TABLE_HOST", "0.0.0.0")
_port = _env_int("FOREST_TABLE_PORT", 8000)

wsgi_app = "companion:create_app()"
bind = [f"{_host}:{_port}"]

# Rendering a view is Python work, so one process per core does it in parallel; a write
# in one process reaches the phones connected to another through the live-update watcher.
workers = _env_int("FOREST_TABLE_WORKERS", max(2, os.cpu_count() or 1))
worker_class = os.environ.get("FOREST_TABLE_WORKER_CLASS", "gthread")
# gthread: a thread per open connection, since an open stream holds its thread. Each
# worker takes new connections only while it has fewer than worker_connections.
threads = _env_int("FOREST_TABLE_THREADS", 1500)
worker_connections = _env_int("FOREST_TABLE_WORKER_CONNECTIONS", threads)
backlog = 2048
# Seconds an idle keep-alive connection stays open between a phone's requests.
keepalive = 5
# A worker that stops answering its master for this long is replaced.
timeout = 30
# On a restart open streams are cut after this; the phones reconnect and resync.
graceful_timeout = 5
# Load the app once in the master and fork: the workers share its memory pages.
preload_app = worker_class != "gevent"

accesslog = os.environ.get("FOREST_TABLE_ACCESS_LOG") or None
errorlog = "-"
loglevel = os.environ.get("FOREST_TABLE_LOG_LEVEL", "info")
proc_name = "forest-table"
# The runtime control socket (gunicornc) is not needed, and one fixed path would clash
# between two servers on the same machine.
control_socket_disable = True


def when_ready(server):
    from companion.web.phone import lan_address

    public = os.environ.get("FOREST_TABLE_PUBLIC_URL")
    shown = public or f"http://{lan_address() or 'localhost'}:{_port}"
    server.log.info("Forest Table is running with %s %s workers. On every phone, open: %s",
                    workers, worker_class, shown)
