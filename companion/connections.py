"""What every storage module shares, below all of them: the error for a database out of
reach, which database a target names, and SQLite's connections with the writers' locks.

store.py (the statements), pgstore.py (PostgreSQL's connections) and migrate.py (the
schema's migrations) all import from here and never from each other in a circle.
"""

from __future__ import annotations

import contextlib
import fcntl
import sqlite3
import threading


class Unavailable(Exception):
    """The database cannot be reached just now (a PostgreSQL server lost); nothing was written."""


POSTGRES_URL_PREFIXES = ("postgresql://", "postgres://")
# On PostgreSQL every committed version bump is announced there as "CODE VERSION".
LIVE_CHANNEL = "forest_table"
# The app's own advisory lock keys on PostgreSQL (any constants of its own that fit int4).
WRITE_LOCK = 0x466F7265
SCHEMA_LOCK = WRITE_LOCK + 1


def is_postgres_url(target) -> bool:
    return isinstance(target, str) and target.startswith(POSTGRES_URL_PREFIXES)


def connect_sqlite(path: str) -> sqlite3.Connection:
    """A SQLite file in WAL mode, so readers never wait for the one writer."""
    conn = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False,
                           factory=_Connection)
    conn.target = path
    conn.writer_lock = _writer_lock_file(path)
    conn.row_factory = sqlite3.Row
    # Worker processes starting together on a new database each switch it to WAL, and a
    # switch meeting another under way fails at once ("database is locked"), whatever the
    # busy timeout: they take turns on the writers' lock file.
    with _writers_turn(conn.writer_lock):
        conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA busy_timeout=30000")
    # A small page cache per connection (256 KiB, not 2 MiB): a pooled connection empties its
    # cache whenever another connection wrote since its last read (WAL), so at a busy club it
    # held little of use, while the connections of a process with 2,000 tables open kept
    # some 18 MiB (memory per open stream 16.8 -> 15.9 KiB; CPU per action unchanged).
    conn.execute("PRAGMA cache_size=-256")
    return conn


# Writers of one process queue here rather than in SQLite's busy handler, which sleeps
# in growing steps (up to 100 ms) and so lets a waiting writer miss a lock freed long ago.
_writer = threading.Lock()


class _Connection(sqlite3.Connection):
    writer_lock = None  # the lock file every process writing this database shares, if any
    target = None  # the path it was opened with

    def close(self) -> None:
        try:
            super().close()
        finally:
            if self.writer_lock is not None:
                self.writer_lock.close()
                self.writer_lock = None


def _writer_lock_file(path: str):
    """The writers of all processes queue on a lock file beside the database (flock), for
    the same reason: a writer blocked there wakes the moment the lock is released, where
    SQLite's busy handler polls with sleeps of 1, 2, 5... ms and, in a gevent worker,
    freezes every phone of the worker for as long. An in-memory database has none."""
    if not isinstance(path, str) or path in ("", ":memory:") or path.startswith("file:"):
        return None
    try:
        return open(path + "-writers", "a+b")  # noqa: SIM115 (held as long as the connection)
    except OSError:
        return None  # a read-only folder: SQLite's own busy handler still orders the writers


@contextlib.contextmanager
def _writers_turn(lock_file):
    """Hold the writers' lock file (None: no file, nothing to hold)."""
    if lock_file is None:
        yield
        return
    fcntl.flock(lock_file, fcntl.LOCK_EX)
    try:
        yield
    finally:
        fcntl.flock(lock_file, fcntl.LOCK_UN)


@contextlib.contextmanager
def writers_turn(conn: sqlite3.Connection):
    """This connection's turn to write: first among the process's writers, then among every
    process's (the lock file). BEGIN IMMEDIATE comes after, so SQLite never makes it wait."""
    with _writer, _writers_turn(getattr(conn, "writer_lock", None)):
        yield
