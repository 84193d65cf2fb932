"""Storage: tables, seats and the action log. All SQL of the app lives here.

SQLite by default; PostgreSQL when the database is a postgresql:// URL (its connections in
pgstore.py). Every statement is SQLAlchemy Core over the tables of schema.py, built once and
compiled once per dialect (dialects.py): the same functions run on both databases. The
schema itself is made and changed by the migrations (companion/migrations, migrate.py).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql
from sqlalchemy.dialects import sqlite as sqlite_dialect

from . import migrate
from .games.words import from_data, loads, to_data
from .connections import LIVE_CHANNEL, POSTGRES_URL_PREFIXES, Unavailable, is_postgres_url  # noqa: F401 (the store's names)
from .connections import connect_sqlite, writers_turn
from .dialects import POSTGRESQL, dialect_of, names, sized, spread, statement
from .schema import (action, campaign, campaign_event, game_table, name_merge, played_game, played_seat,
                     rate_limit, seat, shared_part, table_request)


def connect(path: str) -> sqlite3.Connection:
    """Open the database: a SQLite file in WAL mode, so readers never wait for the one
    writer, or a PostgreSQL server given by its URL."""
    if is_postgres_url(path):
        from . import pgstore  # psycopg is loaded only where PostgreSQL is used
        return pgstore.connect(path)
    return connect_sqlite(path)


def init_schema(conn) -> None:
    """Bring the database to the newest schema (the migrations; one process at a time)."""
    migrate.upgrade(conn)


@dataclass
class TableRow:
    id: int
    code: str
    game: str
    rules_version: int
    options: dict
    players: list
    host_token_hash: str
    version: int
    snapshot: dict
    created_at: float
    updated_at: float
    seat_stamp: int = 0
    next_table_id: int | None = None


# A request key ends with a digest of the request's values this long; a withdrawn pick's
# key ends with REQUEST_KEY_WITHDRAWN instead, so nothing stored tells what was picked.
REQUEST_DIGEST_LENGTH = 32
REQUEST_KEY_WITHDRAWN = "*"


@dataclass
class ActionRow:
    seq: int
    seat: int | None
    name: str
    params: dict
    request_id: str | None
    created_at: float


class Transaction:
    """BEGIN IMMEDIATE ... COMMIT: one writer at a time, so version checks are exact.
    On PostgreSQL the same with locks every app server shares (pgstore.WriteTransaction):
    given the code of the one table it writes, it waits only for writers of that table."""

    def __init__(self, conn: sqlite3.Connection, table_code: str | None = None):
        self.conn = conn
        self._other = conn.write_transaction(table_code) if getattr(conn, "is_postgres", False) else None

    def __enter__(self) -> sqlite3.Connection:
        if self._other is not None:
            return self._other.__enter__()
        with contextlib.ExitStack() as taken:  # a failure here gives back what was taken
            taken.enter_context(writers_turn(self.conn))
            self.conn.execute("BEGIN IMMEDIATE")
            self._held = taken.pop_all()
        return self.conn

    def __exit__(self, exc_type, exc, tb) -> None:
        if self._other is not None:
            return self._other.__exit__(exc_type, exc, tb)
        try:
            if exc_type is None:
                self.conn.execute("COMMIT")
            else:
                self.conn.execute("ROLLBACK")
        finally:
            self._held.close()


def _state_text(state) -> str:
    """A state (or a history record's part) as stored: its words kept as data (words.to_data),
    so each phone reads them in its own language, never as English alone."""
    return json.dumps(to_data(state))


def _state(text: str):
    """A stored state with its words made again; a state stored before they were data holds
    plain English strings, which read as they are."""
    return loads(text)


def _table(row: sqlite3.Row | None) -> TableRow | None:
    if row is None:
        return None
    return TableRow(
        id=row["id"], code=row["code"], game=row["game"], rules_version=row["rules_version"],
        options=json.loads(row["options"]), players=json.loads(row["players"]),
        host_token_hash=row["host_token_hash"], version=row["version"],
        snapshot=_state(row["snapshot"]), created_at=row["created_at"],
        updated_at=row["updated_at"], seat_stamp=row["seat_stamp"],
        next_table_id=row["next_table_id"],
    )


def _p(name: str) -> sa.BindParameter:
    return sa.bindparam(name)


# ----------------------------------------------------------------- tables, seats, the log


@statement
def _code_exists(dialect):
    return sa.select(sa.literal(1)).where(game_table.c.code == _p("code"))


def code_exists(conn, code: str) -> bool:
    return _code_exists.run(conn, {"code": code}).fetchone() is not None


@statement
def _insert_table(dialect):
    return sa.insert(game_table).values(
        code=_p("code"), game=_p("game"), rules_version=_p("rules_version"), options=_p("options"),
        players=_p("players"), host_token_hash=_p("host_token_hash"), version=0,
        snapshot=_p("snapshot"), created_at=_p("now"), updated_at=_p("now")).returning(game_table.c.id)


@statement
def _insert_seat(dialect):
    return sa.insert(seat).values(table_id=_p("table_id"), seat=_p("seat"), name=_p("name"),
                                  token_hash=sa.null(), kept_for=_p("kept_for"))


@statement
def _insert_request(dialect):
    return sa.insert(table_request).values(table_id=_p("table_id"), options=_p("options"))


def insert_table(conn, code, game, rules_version, options, players, host_token_hash, snapshot,
                 asked_options: dict | None = None, kept_for: list | None = None) -> int:
    """`kept_for`: per seat, the token hash of the phone it is kept for (or None: free)."""
    now = time.time()
    table_id = _insert_table.run(conn, {
        "code": code, "game": game, "rules_version": rules_version, "options": json.dumps(options),
        "players": json.dumps(players), "host_token_hash": host_token_hash,
        "snapshot": _state_text(snapshot), "now": now}).fetchone()[0]
    kept_for = kept_for or [None] * len(players)
    _insert_seat.run_many(conn, [{"table_id": table_id, "seat": i, "name": name, "kept_for": kept}
                                 for i, (name, kept) in enumerate(zip(players, kept_for))])
    if asked_options is not None:
        _insert_request.run(conn, {"table_id": table_id, "options": json.dumps(asked_options)})
    return table_id


def _table_where(column):
    return statement(lambda dialect: sa.select(game_table).where(column == _p("key")))


_table_by_code = _table_where(game_table.c.code)
_table_by_id = _table_where(game_table.c.id)
_table_before = _table_where(game_table.c.next_table_id)


def get_table(conn, code: str) -> TableRow | None:
    return _table(_table_by_code.run(conn, {"key": code}).fetchone())


def get_table_by_id(conn, table_id: int) -> TableRow | None:
    return _table(_table_by_id.run(conn, {"key": table_id}).fetchone())


def previous_table(conn, table_id: int) -> TableRow | None:
    """The table whose next table this one is, if any."""
    return _table(_table_before.run(conn, {"key": table_id}).fetchone())


def _notice(changed) -> sa.ColumnElement:
    """The NOTIFY a PostgreSQL write sends on its schema's channel (`live_channel`), in its
    own statement (so it is delivered at COMMIT, and only then): "code version seat_stamp
    [answered_by]"."""
    text = (changed.c.code + " " + sa.cast(changed.c.version, sa.Text) + " "
            + sa.cast(changed.c.seat_stamp, sa.Text)
            + sa.func.coalesce(" " + changed.c.answered_by, ""))
    return sa.func.pg_notify(_live_channel(), text)


def _live_channel() -> sa.ColumnElement:
    # A notice reaches every listener of the database, whatever its schema: two apps in two
    # schemas of one database (two venues, or a test's twins) would wake each other's
    # streams for a table of the same code, with a version the listener's table never had.
    # So each schema has its own channel (a short digest of its name: a channel's name is
    # at most 63 bytes).
    return sa.literal(LIVE_CHANNEL + "_") + sa.func.left(sa.func.md5(sa.func.current_schema()), 16)


@statement
def _live_channel_name(dialect):
    return sa.select(_live_channel())


def live_channel(conn) -> str:
    """The channel the writes of this connection's schema notify on (PostgreSQL)."""
    return _live_channel_name.run(conn).fetchone()[0]


_RETURNED = (game_table.c.code, game_table.c.version, game_table.c.seat_stamp, game_table.c.answered_by)


def _told(update, *first) -> sa.Executable:
    """On PostgreSQL: the update, then the notice of each row it changed, in one round trip."""
    changed = update.returning(*_RETURNED).cte("changed")
    return sa.select(*(getattr(changed.c, name) for name in first), _notice(changed))


@statement
def _newest_live(dialect):
    return (sa.select(game_table.c.code)
            .where(game_table.c.updated_at > _p("since"), game_table.c.next_table_id.is_(None))
            .order_by(game_table.c.created_at.desc(), game_table.c.id.desc()).limit(1))


def newest_live_code(conn, since: float) -> str | None:
    """The code of the table created last among those that moved after `since` and have no
    next table (a rematch, a next chapter), or None."""
    row = _newest_live.run(conn, {"since": since}).fetchone()
    return row[0] if row else None


@statement
def _link_next(dialect):
    update = (sa.update(game_table)
              .where(game_table.c.id == _p("table_id"), game_table.c.next_table_id.is_(None))
              .values(next_table_id=_p("next_id"), seat_stamp=game_table.c.seat_stamp + 1,
                      updated_at=_p("now")))
    return _told(update) if dialect == POSTGRESQL else update


def link_next_table(conn, table_id: int, next_id: int) -> bool:
    """Name a table's next table, unless it has one already (then False). Every phone at
    the table is told, as of a seat change: each is offered its seat there."""
    done = _link_next.run(conn, {"next_id": next_id, "now": time.time(), "table_id": table_id})
    if dialect_of(conn) == POSTGRESQL:
        return done.fetchone() is not None
    return done.rowcount == 1


@statement
def _version(dialect):
    return sa.select(game_table.c.version).where(game_table.c.code == _p("code"))


def get_version(conn, code: str) -> int | None:
    row = _version.run(conn, {"code": code}).fetchone()
    return None if row is None else row["version"]


def get_stamps(conn, code: str) -> tuple[int, int] | None:
    """(version, seat_stamp) of a table, or None."""
    marks = get_marks(conn, code)
    return None if marks is None else marks[1:]


def _upsert(dialect, table):
    return (postgresql.insert(table) if dialect == POSTGRESQL else sqlite_dialect.insert(table))


@statement
def _put_part(dialect):
    insert = _upsert(dialect, shared_part).values(
        table_id=_p("table_id"), part=_p("part"), stamp=_p("stamp"), deflated=_p("deflated"),
        crc=_p("crc"), size=_p("size"))
    return insert.on_conflict_do_update(
        index_elements=[shared_part.c.table_id, shared_part.c.part],
        set_={name: insert.excluded[name] for name in ("stamp", "deflated", "crc", "size")})


@statement
def _drop_stale_part(dialect):
    return sa.delete(shared_part).where(shared_part.c.table_id == _p("table_id"),
                                        shared_part.c.part == _p("part"),
                                        shared_part.c.stamp != _p("stamp"))


def put_shared_parts(conn, table_id: int, stamp: str, parts: list[tuple[str, bytes, int, int]],
                     stale: list[str] = ()) -> None:
    """Keep a table's newly rendered shared parts, (part, deflated, crc, size) each, for the
    other processes: each replaces the table's older render of that part. The `stale` parts
    (other names for parts written now) go, unless another process kept them at `stamp`."""
    with Transaction(conn):
        _put_part.run_many(conn, [
            {"table_id": table_id, "part": part, "stamp": stamp, "deflated": deflated, "crc": crc,
             "size": size} for part, deflated, crc, size in parts])
        if stale:
            _drop_stale_part.run_many(conn, [{"table_id": table_id, "part": part, "stamp": stamp}
                                             for part in stale])


@statement
def _drop_idle_parts(dialect):
    return sa.delete(shared_part).where(shared_part.c.table_id.in_(
        sa.select(game_table.c.id).where(game_table.c.updated_at < _p("idle_before"))))


def drop_idle_shared_parts(conn, idle_before: float) -> int:
    """Forget the shared parts of the tables with no write since `idle_before`: a part serves
    the other processes in the moments after its version is made, and a table opened again
    later renders its parts anew. Return how many were dropped."""
    with Transaction(conn):
        return _drop_idle_parts.run(conn, {"idle_before": idle_before}).rowcount


@statement
def _parts(dialect):
    at_stamp = shared_part.c.stamp == _p("stamp")
    return (sa.select(shared_part.c.part, shared_part.c.stamp,
                      sa.case((at_stamp, shared_part.c.deflated), else_=sa.null()).label("deflated"),
                      shared_part.c.crc, shared_part.c.size)
            .where(shared_part.c.table_id == _p("table_id")))


def shared_parts(conn, table_id: int, stamp: str) -> tuple[list[tuple[str, bytes, int, int]], list[tuple[str, str]]]:
    """(part, deflated, crc, size) of the table's shared parts rendered at `stamp`; and
    (part, stamp) of those kept for an older stamp, whose names say the languages they
    were read in (their bytes are not read)."""
    found, older = [], []
    for row in _parts.run(conn, {"table_id": table_id, "stamp": stamp}).fetchall():
        if row["deflated"] is None:
            older.append((row["part"], row["stamp"]))
        else:
            found.append((row["part"], bytes(row["deflated"]), row["crc"], row["size"]))
    return found, older


@statement
def _marks(dialect):
    return (sa.select(game_table.c.id, game_table.c.version, game_table.c.seat_stamp)
            .where(game_table.c.code == _p("code")))


def get_marks(conn, code: str) -> tuple[int, int, int] | None:
    """(id, version, seat_stamp) of a table, or None: what tells one state of it from another."""
    row = _marks.run(conn, {"code": code}).fetchone()
    return None if row is None else (row["id"], row["version"], row["seat_stamp"])


@statement
def _changed_since(dialect):
    return (sa.select(game_table.c.code, game_table.c.version, game_table.c.seat_stamp,
                      game_table.c.updated_at, game_table.c.answered_by)
            .where(game_table.c.updated_at > _p("since")))


def changed_since(conn, since: float) -> list[tuple[str, int, int, float, str | None]]:
    """(code, version, seat_stamp, updated_at, answered_by) of every table written after `since`."""
    return [tuple(row) for row in _changed_since.run(conn, {"since": since}).fetchall()]


@sized
def _versions_of(dialect, size):
    return (sa.select(game_table.c.code, game_table.c.version, game_table.c.seat_stamp)
            .where(game_table.c.code.in_(names("c", size))))


def versions_of(conn, codes: list[str]) -> list[tuple[str, int, int]]:
    """(code, version, seat_stamp) of the given tables."""
    if not codes:
        return []
    return [tuple(row) for row in _versions_of(len(codes)).run(conn, spread("c", codes)).fetchall()]


@statement
def _seats(dialect):
    return (sa.select(seat.c.seat, seat.c.name, seat.c.token_hash, seat.c.kept_for)
            .where(seat.c.table_id == _p("table_id")).order_by(seat.c.seat))


def seats(conn, table_id: int) -> list[sqlite3.Row]:
    return _seats.run(conn, {"table_id": table_id}).fetchall()


@statement
def _set_token(dialect):
    # Taken or freed, a seat is no longer kept for anyone.
    return (sa.update(seat).where(seat.c.table_id == _p("table_id"), seat.c.seat == _p("seat"))
            .values(token_hash=_p("token_hash"), kept_for=sa.null()))


@statement
def _bump_seats(dialect):
    update = (sa.update(game_table).where(game_table.c.id == _p("table_id"))
              .values(seat_stamp=game_table.c.seat_stamp + 1, updated_at=_p("now")))
    # On PostgreSQL every server's phones see the seat change at once, not at the next resync.
    return _told(update) if dialect == POSTGRESQL else update


def set_seat_token(conn, table_id: int, seat: int, token_hash: str | None) -> None:
    _set_token.run(conn, {"token_hash": token_hash, "table_id": table_id, "seat": seat})
    # Not the version: a seat changing hands must not refuse a move made meanwhile.
    _bump_seats.run(conn, {"now": time.time(), "table_id": table_id})


_LIVE = (action.c.seq, action.c.seat, action.c.name, action.c.params, action.c.request_id,
         action.c.created_at)


@statement
def _live_actions(dialect):
    return (sa.select(*_LIVE).where(action.c.table_id == _p("table_id"), action.c.undone_at.is_(None))
            .order_by(action.c.seq))


@statement
def _newest_actions(dialect):
    newest = (sa.select(*_LIVE).where(action.c.table_id == _p("table_id"), action.c.undone_at.is_(None))
              .order_by(action.c.seq.desc()).limit(_p("newest")).subquery("newest"))
    return sa.select(newest).order_by(newest.c.seq)


def live_actions(conn, table_id: int, newest: int | None = None) -> list[ActionRow]:
    """The live actions in order; only the last `newest` of them when given."""
    if newest:
        rows = _newest_actions.run(conn, {"table_id": table_id, "newest": newest}).fetchall()
    else:
        rows = _live_actions.run(conn, {"table_id": table_id}).fetchall()
    return [
        ActionRow(r["seq"], r["seat"], r["name"], json.loads(r["params"]), r["request_id"], r["created_at"])
        for r in rows
    ]


@statement
def _request_key(dialect):
    return (sa.select(action.c.request_key)
            .where(action.c.table_id == _p("table_id"), action.c.request_id == _p("request_id")))


def request_key(conn, table_id: int, request_id: str) -> str | None:
    """The key of the request that used `request_id` at this table (which phone sent what,
    tables.request_key), "" for a request logged before keys were kept, None if unused."""
    row = _request_key.run(conn, {"table_id": table_id, "request_id": request_id}).fetchone()
    return None if row is None else (row["request_key"] or "")


@statement
def _next_seq(dialect):
    return (sa.select((sa.func.coalesce(sa.func.max(action.c.seq), 0) + 1).label("next"))
            .where(action.c.table_id == _p("table_id")))


@statement
def _append_action(dialect):
    return sa.insert(action).values(
        table_id=_p("table_id"), seq=_p("seq"), seat=_p("seat"), name=_p("name"), params=_p("params"),
        request_id=_p("request_id"), created_at=_p("at"), request_key=_p("key"))


def append_action(conn, table_id, seat, name, params, request_id, at: float | None = None,
                  key: str | None = None) -> int:
    """Log an action; `at` is the server time its effect was computed with (the clock needs it),
    `key` what the request with `request_id` was (tables.request_key)."""
    seq = _next_seq.run(conn, {"table_id": table_id}).fetchone()["next"]
    _append_action.run(conn, {
        "table_id": table_id, "seq": seq, "seat": seat, "name": name, "params": json.dumps(params),
        "request_id": request_id, "at": time.time() if at is None else at,
        "key": key if request_id else None})
    return seq


@sized
def _latest_live(dialect, size):
    return (sa.select(sa.func.max(action.c.seq).label("seq"))
            .where(action.c.table_id == _p("table_id"), action.c.seat == _p("seat"),
                   action.c.undone_at.is_(None), action.c.name.in_(names("n", size))))


def latest_live_action(conn, table_id: int, seat: int, names: list[str]) -> int | None:
    """The seq of `seat`'s newest live action among `names`, or None."""
    if not names:
        return None
    return _latest_live(len(names)).run(
        conn, {"table_id": table_id, "seat": seat, **spread("n", names)}).fetchone()["seq"]


@statement
def _withdraw(dialect):
    key = action.c.request_key
    return (sa.update(action).where(action.c.table_id == _p("table_id"), action.c.seq == _p("seq"))
            .values(name=_p("marker"), params="{}", undone_at=_p("now"),
                    request_key=sa.case((key.is_(None), sa.null()), else_=(
                        sa.func.substr(key, 1, sa.func.length(key) - REQUEST_DIGEST_LENGTH)
                        + REQUEST_KEY_WITHDRAWN))))


def withdraw_action(conn, table_id: int, seq: int, marker: str) -> None:
    """Take a row out of the live log and forget what it held (its request id stays, so a
    retry of the same request is still recognised and not applied again; its key keeps
    the phone and the action, not the digest of the values: REQUEST_KEY_WITHDRAWN)."""
    _withdraw.run(conn, {"marker": marker, "now": time.time(), "table_id": table_id, "seq": seq})


@statement
def _mark_undone(dialect):
    return (sa.update(action).where(action.c.table_id == _p("table_id"), action.c.seq == _p("seq"))
            .values(undone_at=_p("now")))


def mark_undone(conn, table_id: int, seq: int) -> None:
    _mark_undone.run(conn, {"now": time.time(), "table_id": table_id, "seq": seq})


@statement
def _save_snapshot(dialect):
    update = (sa.update(game_table).where(game_table.c.id == _p("table_id"))
              .values(snapshot=_p("snapshot"), version=game_table.c.version + 1, updated_at=_p("now"),
                      answered_by=_p("answered_by")))
    # On PostgreSQL one round trip: the bump, and the notice every server's listener gets at
    # COMMIT (and only if the transaction commits).
    return _told(update, "version") if dialect == POSTGRESQL else update.returning(game_table.c.version)


def save_snapshot(conn, table_id: int, snapshot: dict, answered_by: str | None = None) -> int:
    """Store the new state and bump the version; return the new version. `answered_by`: the
    phone (Hub.answered) whose request is answered with the view at the new version."""
    return _save_snapshot.run(conn, {"snapshot": _state_text(snapshot), "now": time.time(),
                                     "answered_by": answered_by, "table_id": table_id}).fetchone()[0]


def _json_field(dialect, column, field: str):
    """A top-level field of a JSON text column, as text (NULL when absent)."""
    if dialect == POSTGRESQL:
        return sa.cast(column, sa.JSON)[field].as_string()
    return sa.type_coerce(column, sa.JSON)[field].as_string()


@statement
def _finished(dialect):
    return (sa.select(game_table.c.snapshot)
            .where(game_table.c.game == _p("game"), _json_field(dialect, game_table.c.snapshot, "phase") == "over")
            .order_by(game_table.c.updated_at, game_table.c.id))


def finished_snapshots(conn, game: str) -> list[dict]:
    """The states of every finished table of one game (phase "over"), oldest first."""
    return [_state(row["snapshot"]) for row in _finished.run(conn, {"game": game}).fetchall()]


@statement
def _asked(dialect):
    return sa.select(table_request.c.options).where(table_request.c.table_id == _p("table_id"))


def asked_options(conn, table_id: int) -> dict | None:
    row = _asked.run(conn, {"table_id": table_id}).fetchone()
    return None if row is None else json.loads(row["options"])


# ----------------------------------------------------------------- game history


PLAYED_COLUMNS = ("uid", "table_id", "table_version", "code", "game", "game_name", "status",
                  "options", "asked_options", "started_at", "ended_at", "duration", "cooperative",
                  "won", "level", "outcome", "log")
_JSON_COLUMNS = ("options", "asked_options", "outcome", "log")


@statement
def _to_record(dialect):
    t, p = game_table, played_game
    return (sa.select(t.c.code, t.c.version, p.c.id.label("played_id"))
            .join_from(t, p, p.c.table_id == t.c.id, isouter=True)
            .where(sa.or_(p.c.id.is_(None), p.c.table_version.is_distinct_from(t.c.version)))
            .order_by(t.c.id))


def tables_to_record(conn) -> list[sqlite3.Row]:
    """Tables changed since the history last looked at them (or never looked at)."""
    return _to_record.run(conn).fetchall()


def _not_campaign(dialect):
    # A campaign keeps its chapter table by code across evenings: never deleted nor renamed.
    return _json_field(dialect, game_table.c.options, "campaign").is_(None)


def _never_played(dialect):
    return sa.select(game_table.c.id).where(
        game_table.c.version == 0, game_table.c.created_at < _p("before"), _not_campaign(dialect))


@statement
def _unlink_never_played(dialect):
    # A finished table whose next table goes offers a rematch again.
    return (sa.update(game_table).where(game_table.c.next_table_id.in_(_never_played(dialect)))
            .values(next_table_id=sa.null(), seat_stamp=game_table.c.seat_stamp + 1))


_CHILDREN = (seat, action, table_request, played_game, shared_part)
_delete_children = [statement(lambda dialect, child=child: sa.delete(child).where(
    child.c.table_id.in_(_never_played(dialect)))) for child in _CHILDREN]


@statement
def _delete_never_played(dialect):
    return sa.delete(game_table).where(game_table.c.id.in_(_never_played(dialect)))


def delete_never_played(conn, created_before: float) -> int:
    """Delete the tables made before `created_before` where nothing was ever done (version 0:
    no move, no clock, no undo); their codes are free again. Return how many."""
    values = {"before": created_before}
    with Transaction(conn):
        _unlink_never_played.run(conn, values)
        for child in _delete_children:
            child.run(conn, values)
        return _delete_never_played.run(conn, values).rowcount


# An archived table keeps its row (the history refers to it) under a name no code can be,
# so its code is free for a new table and the old one can no longer be reached by it.
RELEASED_PREFIX = "~"


@statement
def _release(dialect):
    t = game_table
    return (sa.update(t).where(
        sa.not_(t.c.code.like(RELEASED_PREFIX + "%")), t.c.updated_at < _p("idle_before"),
        _not_campaign(dialect),
        t.c.id.in_(sa.select(played_game.c.table_id).where(played_game.c.table_id.is_not(None))))
        .values(code=sa.literal(RELEASED_PREFIX) + sa.cast(t.c.id, sa.Text)))


def release_codes(conn, idle_before: float) -> int:
    """Free the codes of recorded tables with no change since `idle_before`; return how many."""
    with Transaction(conn):
        return _release.run(conn, {"idle_before": idle_before}).rowcount


@statement
def _played_for_table(dialect):
    return (sa.select(played_game.c.id, played_game.c.uid, played_game.c.table_version)
            .where(played_game.c.table_id == _p("table_id")))


def played_for_table(conn, table_id: int) -> sqlite3.Row | None:
    return _played_for_table.run(conn, {"table_id": table_id}).fetchone()


@statement
def _imported_count(dialect):
    return sa.select(sa.func.count()).select_from(played_game).where(played_game.c.table_id.is_(None))


def imported_count(conn) -> int:
    """History rows that came from an import (no table of this server)."""
    return _imported_count.run(conn).fetchone()[0]


@statement
def _uid_exists(dialect):
    return sa.select(sa.literal(1)).where(played_game.c.uid == _p("uid"))


def played_uid_exists(conn, uid: str) -> bool:
    return _uid_exists.run(conn, {"uid": uid}).fetchone() is not None


@statement
def _insert_played(dialect):
    return (sa.insert(played_game).values({c: _p(c) for c in PLAYED_COLUMNS})
            .returning(played_game.c.id))


@statement
def _update_played(dialect):
    return (sa.update(played_game).where(played_game.c.id == _p("played_id"))
            .values({c: _p(c) for c in PLAYED_COLUMNS}))


@statement
def _delete_played_seats(dialect):
    return sa.delete(played_seat).where(played_seat.c.played_id == _p("played_id"))


@statement
def _insert_played_seat(dialect):
    return sa.insert(played_seat).values(
        {c: _p(c) for c in ("played_id", "seat", "name", "name_key", "score", "place", "winner")})


def save_played(conn, record: dict, seats: list[dict], played_id: int | None = None) -> int:
    """Insert a history row (or replace the one with `played_id`) with its seats."""
    values = {c: _state_text(record[c]) if c in _JSON_COLUMNS and record[c] is not None else record[c]
              for c in PLAYED_COLUMNS}
    if isinstance(values.get("level"), str):  # a level's words kept as data, said per phone
        values["level"] = _event_text(values["level"])
    if played_id is None:
        played_id = _insert_played.run(conn, values).fetchone()[0]
    else:
        _update_played.run(conn, {**values, "played_id": played_id})
        _delete_played_seats.run(conn, {"played_id": played_id})
    _insert_played_seat.run_many(conn, [
        {"played_id": played_id, "seat": s["seat"], "name": s["name"], "name_key": s["name_key"],
         "score": s["score"], "place": s["place"], "winner": int(bool(s["winner"]))} for s in seats])
    return played_id


@statement
def _delete_played(dialect):
    return sa.delete(played_game).where(played_game.c.id == _p("played_id"))


def delete_played(conn, played_id: int) -> None:
    _delete_played_seats.run(conn, {"played_id": played_id})
    _delete_played.run(conn, {"played_id": played_id})


def _played(row: sqlite3.Row | None, full: bool = True) -> dict | None:
    if row is None:
        return None
    data = dict(zip(row.keys(), tuple(row)))
    for column in _JSON_COLUMNS:
        if column in data and data[column] is not None:
            data[column] = _state(data[column])
    if isinstance(data.get("level"), str):
        data["level"] = stored_words(data["level"])
    return data


_LIST_COLUMNS = ("id", "uid", "table_id", "code", "game", "game_name", "status", "started_at", "ended_at",
                 "duration", "cooperative", "won", "level", "outcome")
# How a stored outcome (json.dumps) says the players stopped the game before the rules' end.
ENDED_EARLY_JSON = '"ended_early": true'


@sized
def _list_played(dialect, shape):
    statuses, by_game, keys = shape
    p = played_game
    where = [p.c.status.in_(names("s", statuses))]
    if by_game:
        where.append(p.c.game == _p("game"))
    if keys is not None:
        where.append(p.c.id.in_(sa.select(played_seat.c.played_id)
                                .where(played_seat.c.name_key.in_(names("k", keys)))))
    return (sa.select(*(p.c[c] for c in _LIST_COLUMNS)).where(*where)
            .order_by(p.c.ended_at.desc(), p.c.id.desc()).limit(_p("limit")).offset(_p("offset")))


def list_played(conn, statuses: tuple[str, ...], game: str | None = None,
                name_keys: list[str] | None = None, limit: int = 50, offset: int = 0) -> list[dict]:
    """History rows, newest first, optionally of one game and with one of `name_keys` at the table."""
    shape = (len(statuses), bool(game), None if name_keys is None else len(name_keys))
    values = {**spread("s", statuses), "game": game, "limit": limit, "offset": offset,
              **spread("k", name_keys or ())}
    return [_played(r) for r in _list_played(shape).run(conn, values).fetchall()]


@statement
def _get_played(dialect):
    return sa.select(played_game).where(played_game.c.id == _p("played_id"))


def get_played(conn, played_id: int) -> dict | None:
    return _played(_get_played.run(conn, {"played_id": played_id}).fetchone())


@sized
def _all_played(dialect, size):
    return (sa.select(played_game).where(played_game.c.status.in_(names("s", size)))
            .order_by(played_game.c.ended_at, played_game.c.uid))


def all_played(conn, statuses: tuple[str, ...]) -> list[dict]:
    """Every history row in full, oldest first (for export)."""
    return [_played(r) for r in _all_played(len(statuses)).run(conn, spread("s", statuses)).fetchall()]


@statement
def _every_played_seat(dialect):
    return sa.select(played_seat).order_by(played_seat.c.played_id, played_seat.c.seat)


@sized
def _played_seats(dialect, size):
    return (sa.select(played_seat).where(played_seat.c.played_id.in_(names("p", size)))
            .order_by(played_seat.c.played_id, played_seat.c.seat))


def played_seats(conn, played_ids: list[int] | None = None) -> list[sqlite3.Row]:
    if played_ids is None:
        return _every_played_seat.run(conn).fetchall()
    found = []
    for start in range(0, len(played_ids), 500):
        chunk = played_ids[start:start + 500]
        found += _played_seats(len(chunk)).run(conn, spread("p", chunk)).fetchall()
    return found


@sized
def _seat_results(dialect, size):
    g, s = played_game, played_seat
    return (sa.select(g.c.id.label("played_id"), g.c.game, g.c.game_name, g.c.ended_at, g.c.cooperative,
                      g.c.won, g.c.level, g.c.outcome.is_not(None).label("has_outcome"), s.c.seat,
                      s.c.name, s.c.name_key, s.c.score, s.c.place, s.c.winner,
                      # A game the players stopped early names no winner: never counted in the stats.
                      g.c.outcome.like(_p("early")).label("ended_early"))
            .join_from(g, s, s.c.played_id == g.c.id).where(g.c.status.in_(names("s", size)))
            .order_by(g.c.ended_at, g.c.id, s.c.seat))


def seat_results(conn, statuses: tuple[str, ...]) -> list[sqlite3.Row]:
    """Every player's result in the listed kinds of games, oldest game first (for stats)."""
    return _seat_results(len(statuses)).run(
        conn, {"early": f"%{ENDED_EARLY_JSON}%", **spread("s", statuses)}).fetchall()


@sized
def _history_games(dialect, size):
    g = played_game
    return (sa.select(g.c.game, sa.func.max(g.c.game_name).label("game_name"),
                      sa.func.count().label("played"))
            .where(g.c.status.in_(names("s", size))).group_by(g.c.game)
            .order_by(sa.literal_column("game_name")))


def history_games(conn, statuses: tuple[str, ...]) -> list[sqlite3.Row]:
    """The games present in the history, for the filter."""
    return _history_games(len(statuses)).run(conn, spread("s", statuses)).fetchall()


@sized
def _name_spellings(dialect, size):
    g, s = played_game, played_seat
    return (sa.select(s.c.name_key, s.c.name, sa.func.count().label("games"),
                      sa.func.max(g.c.ended_at).label("last"))
            .join_from(s, g, g.c.id == s.c.played_id).where(g.c.status.in_(names("s", size)))
            .group_by(s.c.name_key, s.c.name).order_by(s.c.name_key))


def name_spellings(conn, statuses: tuple[str, ...]) -> list[sqlite3.Row]:
    """Every spelling seen at a listed game, with how often and when last."""
    return _name_spellings(len(statuses)).run(conn, spread("s", statuses)).fetchall()


@statement
def _merges(dialect):
    return sa.select(name_merge).order_by(name_merge.c.created_at, name_merge.c.alias_key)


def merges(conn) -> list[sqlite3.Row]:
    return _merges.run(conn).fetchall()


@statement
def _add_merge(dialect):
    return sa.insert(name_merge).values(
        {c: _p(c) for c in ("alias_key", "alias", "person_key", "person", "created_at")})


def add_merge(conn, alias_key: str, alias: str, person_key: str, person: str, at: float) -> None:
    _add_merge.run(conn, {"alias_key": alias_key, "alias": alias, "person_key": person_key,
                          "person": person, "created_at": at})


@statement
def _delete_merge(dialect):
    return sa.delete(name_merge).where(name_merge.c.alias_key == _p("alias_key"))


def delete_merge(conn, alias_key: str) -> bool:
    return _delete_merge.run(conn, {"alias_key": alias_key}).rowcount > 0


# ----------------------------------------------------------------- campaigns


@dataclass
class CampaignRow:
    id: int
    game: str
    name: str
    state: dict
    created_at: float
    updated_at: float


def _campaign(row: sqlite3.Row | None) -> CampaignRow | None:
    if row is None:
        return None
    return CampaignRow(id=row["id"], game=row["game"], name=row["name"],
                       state=_state(row["state"]), created_at=row["created_at"],
                       updated_at=row["updated_at"])


@statement
def _name_taken(dialect):
    # Case folded as the unique index campaign_name does (ASCII letters on SQLite).
    return sa.select(sa.literal(1)).where(
        campaign.c.game == _p("game"), sa.func.lower(campaign.c.name) == sa.func.lower(_p("name")))


def campaign_name_taken(conn, game: str, name: str) -> bool:
    return _name_taken.run(conn, {"game": game, "name": name}).fetchone() is not None


@statement
def _insert_campaign(dialect):
    return (sa.insert(campaign).values(game=_p("game"), name=_p("name"), state=_p("state"),
                                       created_at=_p("now"), updated_at=_p("now"))
            .returning(campaign.c.id))


def insert_campaign(conn, game: str, name: str, state: dict) -> int:
    return _insert_campaign.run(conn, {"game": game, "name": name, "state": _state_text(state),
                                       "now": time.time()}).fetchone()[0]


@statement
def _get_campaign(dialect):
    return sa.select(campaign).where(campaign.c.id == _p("campaign_id"))


def get_campaign(conn, campaign_id: int) -> CampaignRow | None:
    return _campaign(_get_campaign.run(conn, {"campaign_id": campaign_id}).fetchone())


@statement
def _list_campaigns(dialect):
    return sa.select(campaign).where(campaign.c.game == _p("game")).order_by(campaign.c.updated_at.desc())


def list_campaigns(conn, game: str) -> list[CampaignRow]:
    return [_campaign(row) for row in _list_campaigns.run(conn, {"game": game}).fetchall()]


@statement
def _save_campaign(dialect):
    return (sa.update(campaign).where(campaign.c.id == _p("campaign_id"))
            .values(state=_p("state"), updated_at=_p("now")))


def save_campaign(conn, campaign_id: int, state: dict) -> None:
    _save_campaign.run(conn, {"state": _state_text(state), "now": time.time(), "campaign_id": campaign_id})


@statement
def _last_event(dialect):
    return (sa.select(sa.func.coalesce(sa.func.max(campaign_event.c.seq), 0).label("last"))
            .where(campaign_event.c.campaign_id == _p("campaign_id")))


@statement
def _add_event(dialect):
    return sa.insert(campaign_event).values(campaign_id=_p("campaign_id"), seq=_p("seq"),
                                            text=_p("text"), created_at=_p("now"))


def add_campaign_events(conn, campaign_id: int, texts: list[str]) -> None:
    last = _last_event.run(conn, {"campaign_id": campaign_id}).fetchone()["last"]
    now = time.time()
    _add_event.run_many(conn, [{"campaign_id": campaign_id, "seq": last + i + 1, "text": _event_text(text), "now": now}
                               for i, text in enumerate(texts)])


@statement
def _events(dialect):
    e = campaign_event
    return (sa.select(e.c.seq, e.c.text, e.c.created_at).where(e.c.campaign_id == _p("campaign_id"))
            .order_by(e.c.seq.desc()))


def _event_text(text) -> str:
    """A campaign event as stored: a Text as its data (JSON), plain English as it is."""
    data = to_data(text)
    return text if isinstance(data, str) else json.dumps(data)


def stored_words(text: str):
    """Words stored by `_event_text`: a Text again, or plain English as it was stored."""
    if text.startswith(('{"$t"', '{"$names"')):
        try:
            return loads(text)
        except ValueError:
            pass
    return text


@dataclass
class CampaignEvent:
    seq: int
    text: object  # a Text, or plain English stored before words were data
    created_at: float

    def __getitem__(self, key):  # read like the rows it replaces
        return getattr(self, key)


def campaign_events(conn, campaign_id: int) -> list[CampaignEvent]:
    """The campaign's history, newest first."""
    return [CampaignEvent(row["seq"], stored_words(row["text"]), row["created_at"])
            for row in _events.run(conn, {"campaign_id": campaign_id}).fetchall()]


# ----------------------------------------------------------------- rate limits


@statement
def _drop_expired(dialect):
    return sa.delete(rate_limit).where(rate_limit.c.expires_at <= _p("at"))


@statement
def _add_hits(dialect):
    insert = _upsert(dialect, rate_limit).values(bucket=_p("bucket"), hits=_p("amount"),
                                                 expires_at=_p("expires_at"))
    return insert.on_conflict_do_update(index_elements=[rate_limit.c.bucket],
                                        set_={"hits": rate_limit.c.hits + insert.excluded.hits})


@statement
def _hits(dialect):
    return sa.select(rate_limit.c.hits).where(rate_limit.c.bucket == _p("bucket"))


def limit_hit(conn, bucket: str, expiry: float, amount: int, at: float) -> int:
    """Add `amount` to a counter (a fresh window of `expiry` seconds once the old one is over)."""
    with Transaction(conn):
        _drop_expired.run(conn, {"at": at})
        _add_hits.run(conn, {"bucket": bucket, "amount": amount, "expires_at": at + expiry})
        return _hits.run(conn, {"bucket": bucket}).fetchone()[0]


@statement
def _turn(dialect):
    return sa.select(rate_limit.c.expires_at).where(rate_limit.c.bucket == _p("bucket"))


@statement
def _book_turn(dialect):
    insert = _upsert(dialect, rate_limit).values(bucket=_p("bucket"), hits=0, expires_at=_p("expires_at"))
    return insert.on_conflict_do_update(index_elements=[rate_limit.c.bucket],
                                        set_={"expires_at": insert.excluded.expires_at})


def limit_turn(conn, bucket: str, pace: float, longest: float, at: float) -> float | None:
    """Book the next turn of a paced queue (its row's expires_at is the next free turn):
    return the seconds to wait for it, or None, booking nothing, when that is over `longest`."""
    with Transaction(conn):
        row = _turn.run(conn, {"bucket": bucket}).fetchone()
        turn = max(row[0], at) if row is not None else at
        if turn - at > longest:
            return None
        _book_turn.run(conn, {"bucket": bucket, "expires_at": turn + pace})
        return turn - at


@statement
def _count(dialect):
    return sa.select(rate_limit.c.hits).where(rate_limit.c.bucket == _p("bucket"),
                                              rate_limit.c.expires_at > _p("at"))


def limit_count(conn, bucket: str, at: float) -> int:
    row = _count.run(conn, {"bucket": bucket, "at": at}).fetchone()
    return 0 if row is None else row[0]


@statement
def _expiry(dialect):
    return sa.select(rate_limit.c.expires_at).where(rate_limit.c.bucket == _p("bucket"),
                                                    rate_limit.c.expires_at > _p("at"))


def limit_expiry(conn, bucket: str, at: float) -> float:
    row = _expiry.run(conn, {"bucket": bucket, "at": at}).fetchone()
    return at if row is None else row[0]


@statement
def _clear_all(dialect):
    return sa.delete(rate_limit)


@statement
def _clear_one(dialect):
    return sa.delete(rate_limit).where(rate_limit.c.bucket == _p("bucket"))


def limit_clear(conn, bucket: str | None = None) -> int:
    """Forget one counter, or every counter when no bucket is given; return how many."""
    with Transaction(conn):
        if bucket is None:
            return _clear_all.run(conn).rowcount
        return _clear_one.run(conn, {"bucket": bucket}).rowcount
