"""Statements built once with SQLAlchemy Core and compiled once per database dialect.

The store's every statement is a Core construct over the tables of schema.py; SQLAlchemy's
compiler says it in SQLite's words or PostgreSQL's (placeholders, JSON fields, IS DISTINCT
FROM, RETURNING, ON CONFLICT), and the text it made is kept, per dialect, for the life of
the process. A call then goes straight to the driver's cursor with its values by name:
no statement is built or compiled per call, and no text is rewritten.
"""

from __future__ import annotations

from typing import Callable

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine.interfaces import BindTyping

SQLITE = "sqlite"
POSTGRESQL = "postgresql"

_sqlite = sqlite.pysqlite.dialect(paramstyle="named")  # :name, as sqlite3 takes it
_postgresql = postgresql.psycopg.dialect(paramstyle="pyformat")  # %(name)s, as psycopg takes it
_postgresql.bind_typing = BindTyping.NONE  # no ::VARCHAR after each value: psycopg types them
DIALECTS = {SQLITE: _sqlite, POSTGRESQL: _postgresql}


def dialect_of(conn) -> str:
    return POSTGRESQL if getattr(conn, "is_postgres", False) else SQLITE


class Compiled:
    """A statement's text for one dialect, with the values it holds itself (a constant
    in the statement is a value too)."""

    __slots__ = ("text", "fixed")

    def __init__(self, statement, dialect: str):
        compiled = statement.compile(dialect=DIALECTS[dialect])
        self.text = compiled.string
        # The values a statement holds itself (not the ones each call gives by name), as the
        # dialect sends them (a JSON field's name becomes SQLite's path '$."phase"').
        self.fixed = {}
        for bind in compiled.binds.values():
            if not bind.required:
                process = bind.type.dialect_impl(DIALECTS[dialect]).bind_processor(DIALECTS[dialect])
                value = bind.effective_value
                self.fixed[compiled.bind_names[bind]] = process(value) if process else value

    def values(self, given: dict | None) -> dict:
        if not self.fixed:
            return given or {}
        return {**self.fixed, **given} if given else self.fixed


class Statement:
    """`build(dialect)` -> a Core statement; compiled on first use per dialect."""

    __slots__ = ("build", "_compiled")

    def __init__(self, build: Callable[[str], sa.Executable]):
        self.build = build
        self._compiled: dict[str, Compiled] = {}

    def compiled(self, dialect: str) -> Compiled:
        found = self._compiled.get(dialect)
        if found is None:
            found = self._compiled[dialect] = Compiled(self.build(dialect), dialect)
        return found

    def run(self, conn, values: dict | None = None):
        found = self.compiled(dialect_of(conn))
        return conn.execute(found.text, found.values(values))

    def run_many(self, conn, rows: list[dict]) -> None:
        found = self.compiled(dialect_of(conn))
        conn.executemany(found.text, [found.values(row) for row in rows])


def statement(build: Callable[[str], sa.Executable]) -> Statement:
    """Decorator: a statement of the store (its builder takes the dialect's name)."""
    return Statement(build)


class Sized:
    """A statement with a list of values (`IN (...)`): built once per dialect and length."""

    def __init__(self, build: Callable[[str, int], sa.Executable]):
        self.build = build
        self._made: dict[int, Statement] = {}

    def __call__(self, size: int) -> Statement:
        found = self._made.get(size)
        if found is None:
            found = self._made[size] = Statement(lambda dialect: self.build(dialect, size))
        return found


def sized(build: Callable[[str, int], sa.Executable]) -> Sized:
    return Sized(build)


def names(prefix: str, size: int) -> list[sa.BindParameter]:
    """`size` bound values prefix0, prefix1, ...; `spread` gives their values."""
    return [sa.bindparam(f"{prefix}{i}") for i in range(size)]


def spread(prefix: str, items) -> dict:
    return {f"{prefix}{i}": item for i, item in enumerate(items)}


_texts: dict[tuple[str, str], Compiled] = {}


def run_text(conn, sql: str, values: dict | None = None):
    """A statement written as text with :name values (sqlalchemy.text), compiled for the
    connection's dialect: for the commands and the tests, not the request path."""
    dialect = dialect_of(conn)
    found = _texts.get((sql, dialect))
    if found is None:
        found = _texts[(sql, dialect)] = Compiled(sa.text(sql), dialect)
    return conn.execute(found.text, found.values(values))
