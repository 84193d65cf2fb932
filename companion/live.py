"""Live updates: wake the server-sent-event streams of a table when its version moves.

Within one process a condition variable wakes the streams at once; every stream also
re-reads its table's version from the database about once a second, so a change made
by another worker process reaches it too.
"""

from __future__ import annotations

import threading
import time

from . import store


class Hub:
    def __init__(self):
        self._lock = threading.Lock()
        self._conditions: dict[str, threading.Condition] = {}

    def _condition(self, code: str) -> threading.Condition:
        with self._lock:
            cond = self._conditions.get(code)
            if cond is None:
                cond = self._conditions[code] = threading.Condition()
            return cond

    def notify(self, code: str) -> None:
        cond = self._condition(code)
        with cond:
            cond.notify_all()

    def wait(self, code: str, timeout: float) -> None:
        cond = self._condition(code)
        with cond:
            cond.wait(timeout)


def event_stream(hub: Hub, db_path: str, code: str, known_version: int | None, *,
                 poll: float, keepalive: float, max_seconds: float):
    """Yield SSE text: an `update` event carrying the version whenever it changes."""
    conn = store.connect(db_path)
    try:
        # Tell the browser how soon to reconnect when the stream ends or drops.
        yield "retry: 1500\n\n"
        started = last_sent = time.monotonic()
        while time.monotonic() - started < max_seconds:
            version = store.get_version(conn, code)
            if version is None:
                yield "event: gone\ndata: table closed\n\n"
                return
            if version != known_version:
                known_version = version
                last_sent = time.monotonic()
                yield f"event: update\ndata: {version}\n\n"
            elif time.monotonic() - last_sent >= keepalive:
                last_sent = time.monotonic()
                yield ": keepalive\n\n"
            hub.wait(code, poll)
    finally:
        conn.close()


def init_app(app) -> None:
    app.extensions["forest_hub"] = Hub()
