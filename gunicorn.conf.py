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

wsgi_app = "companion.serving:production_app()"
bind = [f"{_host}:{_port}"]

# Rendering a view is Python work, so one process per core does it in parallel; a write
# in one process reaches the phones connected to another through the live-update watcher.
workers = _env_int("FOREST_TABLE_WORKERS", max(2, os.cpu_count() or 1))
# gevent: an open stream is a greenlet waiting for its table to change, some 16-19 KiB in
# all with the request and socket gunicorn keeps for it (bench/README.md).
# Measured against gthread (a thread per stream) with 2,500 streams on 2 cores: half the
# update latency at the 95th percentile and two thirds of the memory (bench/README.md).
worker_class = os.environ.get("FOREST_TABLE_WORKER_CLASS", "gevent")
# gthread only: an open stream holds a thread for minutes, so a worker needs a thread for
# every stream it may hold, or an action would queue behind streams. A thread costs
# memory only once it has been used.
threads = _env_int("FOREST_TABLE_THREADS", 2500)
# Connections (so streams) one worker holds at most; the phones spread over the workers,
# though not evenly. Each phone holds two: its stream and a kept-alive one for its
# requests, so 2,000 tables of five phones come to some 20,000 over the workers.
# gthread: its threads, plus a few idle kept-alive connections that wait without one.
worker_connections = _env_int("FOREST_TABLE_WORKER_CONNECTIONS",
                              12000 if worker_class == "gevent" else threads + 200)
backlog = 2048
# Seconds an idle kept-alive connection stays open between a phone's requests. A phone at a
# table taps every few seconds to a minute; with gunicorn's usual few seconds most taps
# opened a new connection (a round trip more for the phone; at a club some 3 % of the
# server's CPU per move, bench/README.md). An idle one costs the worker some 13 KiB.
keepalive = _env_int("FOREST_TABLE_KEEPALIVE", 75)
# A worker that stops answering its master for this long is replaced.
timeout = 30
# On a restart open streams are cut after this; the phones reconnect and resync.
graceful_timeout = 5
# gthread: load the app once in the master and fork, so the workers share its pages.
# gevent must patch the standard library before the app is imported, in each worker.
preload_app = worker_class != "gevent"

accesslog = os.environ.get("FOREST_TABLE_ACCESS_LOG") or None
errorlog = "-"
loglevel = os.environ.get("FOREST_TABLE_LOG_LEVEL", "info")
proc_name = "forest-table"
# The runtime control socket (gunicornc) is not needed, and one fixed path would clash
# between two servers on the same machine.
control_socket_disable = True


def _lan_address() -> str | None:
    # The master must not import the app (gevent patches the standard library in each
    # worker first), so this is the app's own look-up in short: connect() on UDP sends
    # nothing, it only asks the kernel which interface it would use.
    import socket

    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))
        address = probe.getsockname()[0]
    except OSError:
        return None
    finally:
        probe.close()
    return None if address.startswith("127.") or address == "0.0.0.0" else address


def when_ready(server):
    public = os.environ.get("FOREST_TABLE_PUBLIC_URL")
    shown = public or f"http://{_lan_address() or 'localhost'}:{_port}"
    # The settings in force, command-line options included.
    count, kind = server.cfg.workers, server.cfg.worker_class_str
    # On standard output whatever the log level, as `python app.py` prints it: the
    # address the host opens on every phone.
    print(f"\n  Forest Table is running (gunicorn, {count} {kind} worker{'s' if count != 1 else ''}). "
          f"On every phone at the table, open:\n\n      {shown}\n\n"
          f"  On the TV or the host's laptop, the table screen everyone sees (it follows the newest "
          f"table):\n\n      {shown}/screen\n", flush=True)
