"""PostgreSQL behind the same store functions as SQLite (psycopg 3): its connections.

store.py keeps every SQL statement of the app, built once with SQLAlchemy Core and compiled
for each database by its dialect (dialects.py); a connection from here runs PostgreSQL's
text of them.

Requests borrow connections from one pool per process (SQLAlchemy's QueuePool). A lost server surfaces as
`Unavailable` (the web answers 503, nothing half-applied: every write is one transaction).
Once it is lost, a circuit breaker answers every request 503 at once instead of letting
each wait for the pool, while one background probe tries the server twice a second; the
first probe that connects gives the process a fresh pool, so service is back within
moments of the server.
"""

from __future__ import annotations

import os
import threading
import time
import zlib
from urllib.parse import urlsplit, urlunsplit

import psycopg
from sqlalchemy import exc as sa_exc
from sqlalchemy.dialects.postgresql import psycopg as sa_psycopg
from sqlalchemy.pool import QueuePool

from .connections import SCHEMA_LOCK, WRITE_LOCK, Unavailable  # noqa: F401 (SCHEMA_LOCK: the schema's, migrate.py)

# Writers take transaction-scoped advisory locks, so a version check is exact across every
# process and machine, as BEGIN IMMEDIATE makes it on SQLite. A move at one table takes
# WRITE_LOCK shared plus that table's own lock, so moves at different tables run side by
# side on every server; a write not tied to one table (a new table, the history, a
# campaign) takes WRITE_LOCK alone and exclusive, so it still runs by itself.
POOL_SIZE = int(os.environ.get("FOREST_TABLE_DATABASE_POOL_SIZE", "20"))
# How long a request waits for a connection (or a lost server) before it is answered 503.
POOL_TIMEOUT = 3.0
CONNECT_TIMEOUT = 5
# While the server is lost: how often the background probe tries it, and how long one try
# may take (libpq's shortest connect timeout is 2 s).
PROBE_SECONDS = 0.5
PROBE_CONNECT_TIMEOUT = 2


def safe_url(url: str) -> str:
    """The URL with any password hidden, for messages and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port:
        host += f":{parts.port}"
    return urlunsplit(parts._replace(netloc=f"{parts.username}:***@{host}"))


# ----------------------------------------------------------------- rows and cursors


class Row:
    """A row read by name or position, like sqlite3.Row (dict(row) and tuple(row) work)."""

    __slots__ = ("_names", "_values")

    def __init__(self, names: dict[str, int], values):
        self._names = names
        self._values = values

    def __getitem__(self, key):
        if isinstance(key, str):
            return self._values[self._names[key]]
        return self._values[key]

    def keys(self):
        return list(self._names)

    def __iter__(self):
        return iter(self._values)

    def __len__(self):
        return len(self._values)

    def __repr__(self):
        return f"Row({dict(zip(self._names, self._values))!r})"


def _row_factory(cursor):
    names = {column.name: i for i, column in enumerate(cursor.description or ())}
    return lambda values: Row(names, values)


class Cursor:
    """What the store functions read from an executed statement."""

    def __init__(self, cursor):
        self._cursor = cursor
        self.rowcount = cursor.rowcount

    def fetchone(self):
        return self._cursor.fetchone()

    def fetchall(self):
        return self._cursor.fetchall()

    def __iter__(self):
        return iter(self._cursor.fetchall())


# ----------------------------------------------------------------- connections


def _open(url: str) -> psycopg.Connection:
    return psycopg.connect(url, autocommit=True, row_factory=_row_factory,
                           connect_timeout=CONNECT_TIMEOUT)


def _reason(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _unavailable(url: str, exc: BaseException, raw: psycopg.Connection | None = None) -> Unavailable:
    """The error to raise for `exc`; the breaker opens when it says the server is lost (not
    for a statement's own failure, such as a deadlock or a cancelled query)."""
    sqlstate = getattr(exc, "sqlstate", None)
    if (raw is not None and (raw.closed or raw.broken)) or sqlstate is None \
            or sqlstate.startswith(("08", "57P")):
        breaker(url).trip(_reason(exc))
    return Unavailable(f"PostgreSQL at {safe_url(url)} cannot be reached: {_reason(exc)}")


class Breaker:
    """One process's view of whether the server at `url` is reachable.

    Closed (the server answers): requests use the pool. Open (a connection or a query found
    it lost): every request is refused at once with `Unavailable` (a 503 within moments, not
    a wait of POOL_TIMEOUT per request, which made a worker answer one request every few
    seconds), and one background thread probes the server every PROBE_SECONDS. The first
    probe that connects drops the process's pool, whose own reconnection backs off for up
    to minutes, and closes the breaker: the next request gets a fresh pool. Kept in process
    memory only: losing it costs one more failed request."""

    def __init__(self, url: str):
        self.url = url
        self.open_since: float | None = None
        self.reason = ""
        self.probes = 0  # tries of the server while open, all told (the tests read it)
        self._suspected = float("-inf")
        self._lock = threading.Lock()

    @property
    def is_open(self) -> bool:
        return self.open_since is not None

    def check(self) -> None:
        if self.open_since is not None:
            raise Unavailable(f"PostgreSQL at {safe_url(self.url)} cannot be reached: {self.reason} "
                              "(trying again in the background)")

    def suspect(self) -> None:
        """A request waited a while for a connection: try the server once (one request at
        a time, at most every PROBE_SECONDS) and open the breaker if it does not answer,
        rather than let every request wait out POOL_TIMEOUT."""
        now = time.monotonic()
        if self.open_since is not None or now - self._suspected < PROBE_SECONDS:
            return
        with self._lock:
            if now - self._suspected < PROBE_SECONDS:
                return
            self._suspected = now
        if not _answers(self.url):
            self.trip("the server does not answer")

    def trip(self, reason: str) -> None:
        with self._lock:
            if self.open_since is not None:
                return
            self.open_since, self.reason = time.monotonic(), reason
        threading.Thread(target=self._probe, name="forest-table-db-probe", daemon=True).start()

    def _probe(self) -> None:
        while True:
            time.sleep(PROBE_SECONDS)
            self.probes += 1
            if not _answers(self.url):
                continue
            close_pool(self.url, wait=False)
            with self._lock:
                self.open_since = None
            return


_breakers: dict[tuple[int, str], Breaker] = {}


def breaker(url: str) -> Breaker:
    key = (os.getpid(), url)  # a breaker inherited through a fork is never used
    found = _breakers.get(key)
    if found is None:
        with _pools_lock:
            found = _breakers.setdefault(key, Breaker(url))
    return found


class PgConnection:
    """One PostgreSQL connection with sqlite3's calls. A connection of its own (not from the
    pool) reopens by itself after the server was lost."""

    is_postgres = True

    def __init__(self, url: str, raw: psycopg.Connection | None = None, pool=None):
        self.url = url
        self._raw = raw
        self._pool = pool

    @property
    def raw(self) -> psycopg.Connection:
        if self._raw is None or self._raw.closed or self._raw.broken:
            if self._pool is not None:
                raise Unavailable(f"PostgreSQL at {safe_url(self.url)} was lost during this request.")
            breaker(self.url).check()
            try:
                self._raw = _open(self.url)
            except psycopg.OperationalError as exc:
                raise _unavailable(self.url, exc) from None
        return self._raw

    def execute(self, sql: str, params=None) -> Cursor:
        """Run one statement in PostgreSQL's words (the store's are compiled by SQLAlchemy,
        dialects.py) with its values by name (%(name)s) or position (%s)."""
        try:
            return Cursor(self.raw.execute(sql, params))
        except psycopg.OperationalError as exc:
            raise _unavailable(self.url, exc, self._raw) from exc

    def executemany(self, sql: str, rows) -> None:
        try:
            with self.raw.cursor() as cursor:
                cursor.executemany(sql, list(rows))
        except psycopg.OperationalError as exc:
            raise _unavailable(self.url, exc, self._raw) from exc

    def executescript(self, script: str) -> None:
        try:
            self.raw.execute(script)
        except psycopg.OperationalError as exc:
            raise _unavailable(self.url, exc, self._raw) from exc

    def write_transaction(self, table_code: str | None = None):
        return WriteTransaction(self, table_code)

    def close(self) -> None:
        raw, self._raw = self._raw, None
        if raw is None:
            return
        if self._pool is not None:
            if raw.closed or raw.broken:
                self._pool.invalidate()  # not lent again: the pool opens a new one when needed
            self._pool.close()  # back to the pool (a transaction left open is rolled back)
        else:
            raw.close()


def table_lock_key(code: str) -> int:
    """A table's lock key: a stable int4 from its code (two codes sharing one only wait
    for each other), a number, so it is safe to write into the statement."""
    return zlib.crc32(code.upper().encode()) - 2**31


class WriteTransaction:
    """BEGIN, the app's write locks, ... COMMIT (ROLLBACK on any error): one writer at a time
    per table (or one in all, for a write not tied to a table) over every app server sharing
    the database, and all of a write or none of it."""

    BEGIN = f"BEGIN; SELECT pg_advisory_xact_lock({WRITE_LOCK})"  # one round trip

    def __init__(self, conn: PgConnection, table_code: str | None = None):
        self.conn = conn
        self.begin = self.BEGIN if table_code is None else (
            f"BEGIN; SELECT pg_advisory_xact_lock_shared({WRITE_LOCK}),"
            f" pg_advisory_xact_lock({WRITE_LOCK}, {table_lock_key(table_code)})")

    def __enter__(self) -> PgConnection:
        try:
            self.conn.raw.execute(self.begin)
        except psycopg.OperationalError as exc:
            raise _unavailable(self.conn.url, exc, self.conn._raw) from exc
        return self.conn

    def __exit__(self, exc_type, exc, tb) -> bool:
        try:
            self.conn.raw.execute("COMMIT" if exc_type is None else "ROLLBACK")
        except psycopg.OperationalError as lost:
            if exc_type is None:
                # Lost before COMMIT was acknowledged: the server rolls the write back.
                raise _unavailable(self.conn.url, lost, self.conn._raw) from lost
            # The write failed already; a lost server rolls it back by itself.
        return False


# What the pool asks of a dialect: how to try a connection before lending it, and whether
# an error means the server is gone.
_POOL_DIALECT = sa_psycopg.dialect(dbapi=psycopg)
_pools: dict[tuple[int, str], QueuePool] = {}
_pools_lock = threading.Lock()


def _pool(url: str) -> QueuePool:
    key = (os.getpid(), url)  # a pool inherited through a fork is never used
    with _pools_lock:
        pool = _pools.get(key)
        if pool is None:
            # SQLAlchemy's pool: up to POOL_SIZE connections, each tried before it is lent
            # (a connection whose server restarted is replaced before a request gets it),
            # rolled back when given back. A request waits GETCONN_SLICE at a time (borrow).
            pool = _pools[key] = QueuePool(lambda: _open(url), pool_size=POOL_SIZE, max_overflow=0,
                                           timeout=GETCONN_SLICE, pre_ping=True, use_lifo=True,
                                           reset_on_return="rollback", dialect=_POOL_DIALECT)
        return pool


def close_pool(url: str, wait: bool = True) -> None:
    """Close this process's pool for `url` (its idle connections go; one still lent out is
    closed when given back). The next request makes a new one."""
    with _pools_lock:
        pool = _pools.pop((os.getpid(), url), None)
    if pool is not None:
        pool.dispose()


# A request waits for a connection in slices this long, so it stops waiting as soon as
# another request (or the pool's check) found the server lost.
GETCONN_SLICE = 0.25


def borrow(url: str) -> PgConnection:
    """A connection from this process's pool, for one request; close() gives it back."""
    deadline = time.monotonic() + POOL_TIMEOUT
    while True:
        breaker(url).check()
        pool = _pool(url)
        try:
            lent = pool.connect()
        except sa_exc.TimeoutError as exc:
            # No connection yet: is the server there? (One try per process every
            # PROBE_SECONDS: a pool merely busy costs one connection attempt then.)
            breaker(url).suspect()
            if time.monotonic() < deadline:
                continue
            raise Unavailable(f"PostgreSQL at {safe_url(url)} cannot be reached: no connection "
                              f"within {POOL_TIMEOUT:g} s.") from exc
        except psycopg.OperationalError as exc:
            # The connection tried before lending failed, and so did a new one: the server
            # is gone, not restarted.
            raise _unavailable(url, exc) from None
        return PgConnection(url, lent.dbapi_connection, lent)


def _answers(url: str) -> bool:
    try:
        psycopg.connect(url, autocommit=True, connect_timeout=PROBE_CONNECT_TIMEOUT).close()
    except Exception:  # noqa: BLE001 - whatever stops a connection
        return False
    return True


def connect(url: str) -> PgConnection:
    """A connection of its own (the live-update listener, the limiter, the commands)."""
    conn = PgConnection(url)
    conn.raw  # connect now, so a server that is down is reported here
    return conn
