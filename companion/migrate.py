"""The schema's migrations (Alembic, companion/migrations), run at every start and by hand
(`flask db upgrade`, `flask db current`, `flask db check`, ...).

One process at a time: on SQLite under the writers' lock file and BEGIN IMMEDIATE, on
PostgreSQL under a transaction-scoped advisory lock in the one transaction the migrations
run in. The first process to start migrates; the others wait for it, then find the
database at the newest revision and do nothing.

A database from before the migrations (no alembic_version table) is recognised by the
columns it has: its tables are completed as its release's start would have (the first
revision makes only what is missing), the revision matching its columns is stamped, and
the revisions after it run.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory

from .connections import POSTGRES_URL_PREFIXES, SCHEMA_LOCK, Unavailable, writers_turn

log = logging.getLogger("forest_table.migrations")

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
BASE = "0001"
# The columns added by hand before the migrations, in the order they came, each with the
# revision that adds it: a database from before has a first run of them.
HAND_ADDED = (("game_table", "seat_stamp", "0002"), ("game_table", "answered_by", "0003"),
              ("game_table", "next_table_id", "0004"), ("seat", "kept_for", "0004"),
              ("action", "request_key", "0005"))


def config(connection: sa.Connection | None = None) -> Config:
    cfg = Config(stdout=sys.stdout)  # the caller's stdout now (a test's runner catches it)
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["connection"] = connection
    return cfg


_head: list[str] = []


def head() -> str:
    """The newest revision (read once per process)."""
    if not _head:
        _head.append(ScriptDirectory.from_config(config()).get_current_head())
    return _head[0]


def sqlalchemy_url(url: str) -> str:
    """A postgresql:// URL as SQLAlchemy names psycopg 3."""
    for prefix in POSTGRES_URL_PREFIXES:
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    return url


@contextlib.contextmanager
def locked_connection(conn):
    """A SQLAlchemy connection to the database of `conn` (a store connection), in one
    transaction that holds the schema lock, committed at the end."""
    if getattr(conn, "is_postgres", False):
        engine = sa.create_engine(sqlalchemy_url(conn.url), poolclass=sa.NullPool)
        try:
            with engine.begin() as connection:
                connection.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": SCHEMA_LOCK})
                yield connection
        except sa.exc.OperationalError as exc:
            raise Unavailable(f"PostgreSQL cannot be reached: {exc.orig}") from None
        finally:
            engine.dispose()
        return
    # SQLite: on the very connection given (an in-memory database has no other), rows as
    # plain tuples while SQLAlchemy reads them.
    row_factory, conn.row_factory = conn.row_factory, None
    engine = sa.create_engine("sqlite://", creator=lambda: conn, poolclass=sa.StaticPool)

    @sa.event.listens_for(engine, "begin")
    def _begin(connection):
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    try:
        with writers_turn(conn), engine.begin() as connection:
            yield connection
    finally:
        conn.row_factory = row_factory


def current(connection: sa.Connection) -> str | None:
    if not sa.inspect(connection).has_table("alembic_version"):
        return None
    return connection.execute(sa.text("SELECT version_num FROM alembic_version")).scalar()


def recognise(connection: sa.Connection) -> str:
    """The revision a database from before the migrations is at, by its columns."""
    inspector = sa.inspect(connection)
    found = BASE
    for table, column, revision in HAND_ADDED:
        if column not in {c["name"] for c in inspector.get_columns(table)}:
            break
        found = revision
    return found


def upgrade(conn, target: str = "head") -> None:
    """Bring the database of `conn` to `target` (default: the newest revision)."""
    with locked_connection(conn) as connection:
        at = current(connection)
        if at is not None and target == "head" and at == head():
            return
        cfg = config(connection)
        if at is None and sa.inspect(connection).has_table("game_table"):
            command.upgrade(cfg, BASE)  # the tables its release did not have yet
            at = recognise(connection)
            log.warning("A database from before the migrations: recognised as revision %s.", at)
            command.stamp(cfg, at)
        command.upgrade(cfg, target)


def downgrade(conn, target: str) -> None:
    with locked_connection(conn) as connection:
        command.downgrade(config(connection), target)


def run(conn, what, *args, **kw):
    """Run an Alembic command (current, history, check, stamp...) on the database of `conn`."""
    with locked_connection(conn) as connection:
        return what(config(connection), *args, **kw)
