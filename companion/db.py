"""The database connection of a request, on flask.g, and the database commands."""

from __future__ import annotations

import os
import sqlite3

import click
from sqlalchemy import pool as sa_pool
from flask import current_app, g
from flask.cli import AppGroup

from . import migrate, store
from .schema import COPY_ORDER  # noqa: F401 (the order a copy must follow)


def database_of(app) -> str:
    """The database the app uses: DATABASE_URL (a PostgreSQL server) when set, else the
    SQLite file DATABASE."""
    return app.config.get("DATABASE_URL") or app.config["DATABASE"]


class SqlitePool:
    """Idle SQLite connections of one process, reused request after request: opening one,
    setting its pragmas and closing it again cost about a millisecond, as much as reading
    and checking a move, on every request. SQLAlchemy's QueuePool keeps up to `keep` of
    them idle (the newest first, its cache warm), closes the ones beyond, and rolls back
    whatever a failed request left open. A connection is never used by two requests at
    once, and never in a process other than the one that opened it."""

    def __init__(self, path: str, keep: int = 8):
        self.path = path
        self.keep = keep
        self._pid = os.getpid()
        self._pool = self._new_pool()
        self._lent: dict[int, object] = {}  # id of a lent connection -> the pool's record of it

    def _new_pool(self) -> sa_pool.QueuePool:
        return sa_pool.QueuePool(lambda: store.connect(self.path), pool_size=self.keep,
                                 max_overflow=-1, use_lifo=True, reset_on_return="rollback")

    @property
    def _idle(self) -> list:
        return [None] * self._pool.checkedin()

    def borrow(self) -> sqlite3.Connection:
        if self._pid != os.getpid():  # forked: the parent's connections are not ours
            self._pool, self._lent, self._pid = self._new_pool(), {}, os.getpid()
        lent = self._pool.connect()
        conn = lent.dbapi_connection
        self._lent[id(conn)] = lent
        return conn

    def give_back(self, conn: sqlite3.Connection) -> None:
        lent = self._lent.pop(id(conn), None)
        if lent is None or self._pid != os.getpid():
            conn.close()
            return
        lent.close()  # back to the pool, rolled back if a failed request left a write open

    def close(self) -> None:
        self._pool.dispose()


def _sqlite_pool(app, path: str) -> SqlitePool:
    pool = app.extensions.get("forest_sqlite_pool")
    if pool is None or pool.path != path:
        pool = app.extensions["forest_sqlite_pool"] = SqlitePool(path)
    return pool


def get_db():
    if "db" not in g:
        target = database_of(current_app)
        if store.is_postgres_url(target):
            from . import pgstore
            g.db = pgstore.borrow(target)  # from the process's pool, given back at teardown
        else:
            pool = _sqlite_pool(current_app, target)
            g.db = pool.borrow()
            g.db_pool = pool
    return g.db


def close_db(_exc=None) -> None:
    conn = g.pop("db", None)
    pool = g.pop("db_pool", None)
    if conn is None:
        return
    if pool is not None:
        pool.give_back(conn)
    else:
        conn.close()


@click.command("init-db")
def init_db_command() -> None:
    """Create the tables if they do not exist yet (flask db upgrade)."""
    store.init_schema(get_db())
    click.echo("Database ready.")


db_group = AppGroup("db", help="The schema's migrations (Alembic). The app runs `upgrade` by itself at start.")


def _alembic(what, *args, **kw):
    from alembic.util import CommandError
    conn = store.connect(database_of(current_app))
    try:
        return migrate.run(conn, what, *args, **kw)
    except CommandError as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        conn.close()


@db_group.command("upgrade")
@click.argument("revision", default="head")
def db_upgrade(revision: str) -> None:
    """Migrate the database to REVISION (default: the newest)."""
    conn = store.connect(database_of(current_app))
    try:
        migrate.upgrade(conn, revision)
    finally:
        conn.close()
    click.echo(f"Database at {revision}.")


@db_group.command("downgrade")
@click.argument("revision")
def db_downgrade(revision: str) -> None:
    """Migrate the database back to REVISION (the text cleaning of 0006 is not undone).
    The app upgrades again at its next start: run the older release's code on it."""
    conn = store.connect(database_of(current_app))
    try:
        migrate.downgrade(conn, revision)
    finally:
        conn.close()
    click.echo(f"Database at {revision}.")


@db_group.command("current")
def db_current() -> None:
    """The database's revision."""
    from alembic import command
    _alembic(command.current, verbose=False)


@db_group.command("history")
def db_history() -> None:
    """Every revision, newest first."""
    from alembic import command
    _alembic(command.history)


@db_group.command("revision")
@click.option("-m", "--message", required=True, help="what the change is for")
def db_revision(message: str) -> None:
    """Write the next revision from the differences between the database (at the newest
    revision) and companion/schema.py, for a developer to read and complete."""
    from alembic import command
    _alembic(command.revision, message=message, autogenerate=True)


@db_group.command("check")
def db_check() -> None:
    """Compare the database with the schema of companion/schema.py: any difference fails."""
    from alembic import command
    _alembic(command.check)


def init_app(app) -> None:
    app.teardown_appcontext(close_db)
    app.cli.add_command(init_db_command)
    app.cli.add_command(db_group)
    app.cli.add_command(backup_command)
    app.cli.add_command(copy_to_postgres_command)
    target = database_of(app)
    if not store.is_postgres_url(target):
        # The default database lives in the instance folder, made at first start.
        folder = os.path.dirname(os.path.abspath(target))
        os.makedirs(folder, exist_ok=True)
    try:
        conn = store.connect(target)
        try:
            store.init_schema(conn)
        finally:
            conn.close()
    except store.Unavailable as exc:
        # No server to talk to: say so and stop, rather than serve phones nothing but errors.
        raise SystemExit(f"Forest Table cannot start: {exc}. Start PostgreSQL (or correct "
                         "FOREST_TABLE_DATABASE_URL), or unset it to use SQLite.") from None


def backup(source_path: str, target_path: str) -> None:
    """Copy the database consistently while the app runs (SQLite's online backup)."""
    source = store.connect(source_path)
    target = sqlite3.connect(target_path)
    try:
        with target:
            source.backup(target)
    finally:
        target.close()
        source.close()


@click.command("backup")
@click.argument("target")
def backup_command(target: str) -> None:
    """Write a consistent copy of the database to TARGET while the app keeps running."""
    if store.is_postgres_url(database_of(current_app)):
        raise click.ClickException("This app keeps its data in PostgreSQL: back it up with "
                                   "pg_dump (see the README, Backup and restore).")
    backup(current_app.config["DATABASE"], target)
    click.echo(f"Backed up to {target}.")


def copy_database(source, target) -> dict[str, int]:
    """Copy every row of one database into another whose tables are empty, in one
    transaction on the target; return the rows copied per table."""
    import sqlalchemy as sa

    from .dialects import Statement
    from .schema import metadata
    copied = {}
    with store.Transaction(target):
        for name in COPY_ORDER:
            table = metadata.tables[name]
            if Statement(lambda d, t=table: sa.select(sa.literal(1)).select_from(t).limit(1)).run(
                    target).fetchone() is not None:
                raise click.ClickException(f"The target database already holds data (in {name}); "
                                           "copy into an empty one.")
        for name in COPY_ORDER:
            table = metadata.tables[name]
            rows = Statement(lambda d, t=table: sa.select(t)).run(source).fetchall()
            if rows:
                columns = list(rows[0].keys())
                Statement(lambda d, t=table: sa.insert(t).values({c: sa.bindparam(c) for c in columns})
                          ).run_many(target, [dict(zip(columns, tuple(row))) for row in rows])
            copied[name] = len(rows)
        if getattr(target, "is_postgres", False):
            # New rows must get ids after the copied ones.
            for name in ("game_table", "played_game", "campaign"):
                target.execute(f"SELECT setval(pg_get_serial_sequence('{name}', 'id'),"
                               f" COALESCE((SELECT MAX(id) FROM {name}), 0) + 1, false)")
    return copied


@click.command("copy-to-postgres")
@click.argument("sqlite_file", type=click.Path(exists=True, dir_okay=False))
@click.argument("url", envvar="FOREST_TABLE_DATABASE_URL")
def copy_to_postgres_command(sqlite_file: str, url: str) -> None:
    """Copy a SQLite database (stop the app first) into an empty PostgreSQL database at URL
    (by default FOREST_TABLE_DATABASE_URL): tables, seats, logs, history, campaigns."""
    if not store.is_postgres_url(url):
        raise click.ClickException("Give the PostgreSQL database as a postgresql:// URL.")
    source = store.connect(sqlite_file)
    store.init_schema(source)  # an older file gains the tables added since
    try:
        target = store.connect(url)
    except store.Unavailable as exc:
        raise click.ClickException(str(exc)) from None
    try:
        store.init_schema(target)
        copied = copy_database(source, target)
    finally:
        target.close()
        source.close()
    click.echo("Copied " + ", ".join(f"{n} {name}" for name, n in copied.items() if n) + ".")
