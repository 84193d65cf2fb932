"""Live updates across app servers sharing one PostgreSQL: LISTEN/NOTIFY.

Every write that moves a table's version sends NOTIFY in its own transaction
(store.save_snapshot), so PostgreSQL delivers it at COMMIT, and only then, to every process
listening, on any machine, on its schema's own channel (`store.live_channel`): apps in two
schemas of one database never hear each other. (A server of an older release notifies on
the one channel all schemas shared; the resync below still brings its moves, seconds later.)
Each process holds one listening connection, open while it holds at least one stream, and
wakes its streams exactly as a write of its own does.

Resync is the safety net: after (re)connecting, the listener re-reads the version of every
watched table (a notice sent while it was not listening is not queued for it), and it
does so every few seconds anyway, as the SQLite watcher does.
"""

from __future__ import annotations

import logging
import threading
import time

from . import live, store

log = logging.getLogger(__name__)

# How long one wait for notices lasts before the listener checks it still has streams.
WAIT_SECONDS = 1.0
RECONNECT_SECONDS = 1.0


class ListeningHub(live.Hub):
    """The in-process hub, its watcher listening for notices instead of polling."""

    def _watch(self) -> None:
        me = threading.current_thread()
        conn = None
        next_sweep = 0.0
        try:
            while self._keeps_watching(me):
                try:
                    if conn is None:
                        conn = store.connect(self.db_path)
                        conn.raw.execute(f"LISTEN {store.live_channel(conn)}")  # (letters and digits only)
                        next_sweep = 0.0  # anything missed while not listening is read now
                    if time.monotonic() >= next_sweep:
                        next_sweep = time.monotonic() + live.SWEEP_SECONDS
                        self._sweep(conn)
                    for notice in conn.raw.notifies(timeout=WAIT_SECONDS):
                        self._publish_notice(notice.payload)
                except Exception:  # a lost server must not end live updates: listen again
                    log.exception("live updates: listening to PostgreSQL failed; reconnecting")
                    if conn is not None:
                        conn.close()
                        conn = None
                    time.sleep(RECONNECT_SECONDS)
        finally:
            if conn is not None:
                conn.close()

    def notify(self, code: str) -> None:
        # The write is committed; if the version cannot be read back just now, the notice
        # PostgreSQL sends for it (or the resync after reconnecting) still wakes the streams.
        try:
            super().notify(code)
        except store.Unavailable:
            log.warning("live updates: could not read %s's version after a write", code)

    def _publish_notice(self, payload: str) -> None:
        """A notice "code version seat_stamp [answered_by]" (store._NOTICE) wakes that table's
        streams; "code version", as servers of an older release send it, still wakes them."""
        code, _, stamps = payload.partition(" ")
        version, _, seats = stamps.partition(" ")
        seats, _, answered_by = seats.partition(" ")
        channel = self._channels.get(code)
        if channel is not None and version.isdigit() and (seats.isdigit() or not seats):
            live._note_answer(channel, answered_by, int(version))  # a tap answered on another server
            channel.publish(int(version), int(seats or 0))
