"""Storage: tables, seats and the action log. All SQL of the app lives here.

SQLite by default; PostgreSQL when the database is a postgresql:// URL, through the thin
dialect layer of pgstore.py, which runs these same statements on the same schema. The
schema itself is made and changed by the migrations (companion/migrations, migrate.py).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from dataclasses import dataclass

from . import migrate
from .connections import LIVE_CHANNEL, POSTGRES_URL_PREFIXES, Unavailable, is_postgres_url  # noqa: F401 (the store's names)
from .connections import connect_sqlite, writers_turn

# The NOTIFY a PostgreSQL write sends on LIVE_CHANNEL: "code version seat_stamp".
_NOTICE = ("pg_notify(?, code || ' ' || CAST(version AS TEXT) || ' ' || CAST(seat_stamp AS TEXT)"
           " || COALESCE(' ' || answered_by, ''))")


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


def _table(row: sqlite3.Row | None) -> TableRow | None:
    if row is None:
        return None
    return TableRow(
        id=row["id"], code=row["code"], game=row["game"], rules_version=row["rules_version"],
        options=json.loads(row["options"]), players=json.loads(row["players"]),
        host_token_hash=row["host_token_hash"], version=row["version"],
        snapshot=json.loads(row["snapshot"]), created_at=row["created_at"],
        updated_at=row["updated_at"], seat_stamp=row["seat_stamp"],
        next_table_id=row["next_table_id"],
    )


def code_exists(conn, code: str) -> bool:
    return conn.execute("SELECT 1 FROM game_table WHERE code = ?", (code,)).fetchone() is not None


def insert_table(conn, code, game, rules_version, options, players, host_token_hash, snapshot,
                 asked_options: dict | None = None, kept_for: list | None = None) -> int:
    """`kept_for`: per seat, the token hash of the phone it is kept for (or None: free)."""
    now = time.time()
    cur = conn.execute(
        "INSERT INTO game_table (code, game, rules_version, options, players, host_token_hash,"
        " version, snapshot, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?)",
        (code, game, rules_version, json.dumps(options), json.dumps(players), host_token_hash,
         json.dumps(snapshot), now, now),
    )
    table_id = cur.lastrowid
    kept_for = kept_for or [None] * len(players)
    conn.executemany(
        "INSERT INTO seat (table_id, seat, name, token_hash, kept_for) VALUES (?, ?, ?, NULL, ?)",
        [(table_id, i, name, kept) for i, (name, kept) in enumerate(zip(players, kept_for))],
    )
    if asked_options is not None:
        conn.execute("INSERT INTO table_request (table_id, options) VALUES (?, ?)",
                     (table_id, json.dumps(asked_options)))
    return table_id


def get_table(conn, code: str) -> TableRow | None:
    return _table(conn.execute("SELECT * FROM game_table WHERE code = ?", (code,)).fetchone())


def get_table_by_id(conn, table_id: int) -> TableRow | None:
    return _table(conn.execute("SELECT * FROM game_table WHERE id = ?", (table_id,)).fetchone())


def previous_table(conn, table_id: int) -> TableRow | None:
    """The table whose next table this one is, if any."""
    return _table(conn.execute("SELECT * FROM game_table WHERE next_table_id = ?", (table_id,)).fetchone())


def link_next_table(conn, table_id: int, next_id: int) -> bool:
    """Name a table's next table, unless it has one already (then False). Every phone at
    the table is told, as of a seat change: each is offered its seat there."""
    now = time.time()
    if getattr(conn, "is_postgres", False):
        row = conn.execute(
            "WITH linked AS (UPDATE game_table SET next_table_id = ?, seat_stamp = seat_stamp + 1,"
            " updated_at = ? WHERE id = ? AND next_table_id IS NULL"
            " RETURNING code, version, seat_stamp, answered_by)"
            f" SELECT {_NOTICE} FROM linked", (next_id, now, table_id, LIVE_CHANNEL)).fetchone()
        return row is not None
    return conn.execute(
        "UPDATE game_table SET next_table_id = ?, seat_stamp = seat_stamp + 1, updated_at = ?"
        " WHERE id = ? AND next_table_id IS NULL", (next_id, now, table_id)).rowcount == 1


def get_version(conn, code: str) -> int | None:
    row = conn.execute("SELECT version FROM game_table WHERE code = ?", (code,)).fetchone()
    return None if row is None else row["version"]


def get_stamps(conn, code: str) -> tuple[int, int] | None:
    """(version, seat_stamp) of a table, or None."""
    marks = get_marks(conn, code)
    return None if marks is None else marks[1:]


def put_shared_parts(conn, table_id: int, stamp: str, parts: list[tuple[str, bytes, int, int]]) -> None:
    """Keep a table's newly rendered shared parts, (part, deflated, crc, size) each, for the
    other processes: each replaces the table's older render of that part."""
    with Transaction(conn):
        conn.executemany(
            "INSERT INTO shared_part (table_id, part, stamp, deflated, crc, size) VALUES (?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (table_id, part) DO UPDATE SET stamp = excluded.stamp,"
            " deflated = excluded.deflated, crc = excluded.crc, size = excluded.size",
            [(table_id, part, stamp, deflated, crc, size) for part, deflated, crc, size in parts])


def drop_idle_shared_parts(conn, idle_before: float) -> int:
    """Forget the shared parts of the tables with no write since `idle_before`: a part serves
    the other processes in the moments after its version is made, and a table opened again
    later renders its parts anew. Return how many were dropped."""
    with Transaction(conn):
        return conn.execute("DELETE FROM shared_part WHERE table_id IN"
                            " (SELECT id FROM game_table WHERE updated_at < ?)", (idle_before,)).rowcount


def shared_parts(conn, table_id: int, stamp: str) -> list[tuple[str, bytes, int, int]]:
    """(part, deflated, crc, size) of the table's shared parts rendered at `stamp`."""
    return [(row["part"], bytes(row["deflated"]), row["crc"], row["size"]) for row in conn.execute(
        "SELECT part, deflated, crc, size FROM shared_part WHERE table_id = ? AND stamp = ?",
        (table_id, stamp))]


def get_marks(conn, code: str) -> tuple[int, int, int] | None:
    """(id, version, seat_stamp) of a table, or None: what tells one state of it from another."""
    row = conn.execute("SELECT id, version, seat_stamp FROM game_table WHERE code = ?", (code,)).fetchone()
    return None if row is None else (row["id"], row["version"], row["seat_stamp"])


def changed_since(conn, since: float) -> list[tuple[str, int, int, float, str | None]]:
    """(code, version, seat_stamp, updated_at, answered_by) of every table written after `since`."""
    return [tuple(row) for row in conn.execute(
        "SELECT code, version, seat_stamp, updated_at, answered_by FROM game_table WHERE updated_at > ?",
        (since,))]


def versions_of(conn, codes: list[str]) -> list[tuple[str, int, int]]:
    """(code, version, seat_stamp) of the given tables."""
    marks = ",".join("?" * len(codes))
    return [tuple(row) for row in conn.execute(
        f"SELECT code, version, seat_stamp FROM game_table WHERE code IN ({marks})", codes)]


def seats(conn, table_id: int) -> list[sqlite3.Row]:
    return conn.execute(
        "SELECT seat, name, token_hash, kept_for FROM seat WHERE table_id = ? ORDER BY seat", (table_id,)
    ).fetchall()


def set_seat_token(conn, table_id: int, seat: int, token_hash: str | None) -> None:
    # Taken or freed, a seat is no longer kept for anyone.
    conn.execute(
        "UPDATE seat SET token_hash = ?, kept_for = NULL WHERE table_id = ? AND seat = ?",
        (token_hash, table_id, seat)
    )
    # Not the version: a seat changing hands must not refuse a move made meanwhile.
    if getattr(conn, "is_postgres", False):
        # Every server's phones see the seat change at once, not at the next resync.
        conn.execute(
            "WITH bumped AS (UPDATE game_table SET seat_stamp = seat_stamp + 1, updated_at = ?"
            " WHERE id = ? RETURNING code, version, seat_stamp, answered_by)"
            f" SELECT {_NOTICE} FROM bumped", (time.time(), table_id, LIVE_CHANNEL))
        return
    conn.execute("UPDATE game_table SET seat_stamp = seat_stamp + 1, updated_at = ? WHERE id = ?",
                 (time.time(), table_id))


def live_actions(conn, table_id: int, newest: int | None = None) -> list[ActionRow]:
    """The live actions in order; only the last `newest` of them when given."""
    if newest:
        rows = conn.execute(
            "SELECT * FROM (SELECT seq, seat, name, params, request_id, created_at FROM action"
            " WHERE table_id = ? AND undone_at IS NULL ORDER BY seq DESC LIMIT ?) AS newest ORDER BY seq",
            (table_id, newest),
        ).fetchall()
    else:
        rows = conn.execute(
            "SELECT seq, seat, name, params, request_id, created_at FROM action"
            " WHERE table_id = ? AND undone_at IS NULL ORDER BY seq",
            (table_id,),
        ).fetchall()
    return [
        ActionRow(r["seq"], r["seat"], r["name"], json.loads(r["params"]), r["request_id"], r["created_at"])
        for r in rows
    ]


def request_key(conn, table_id: int, request_id: str) -> str | None:
    """The key of the request that used `request_id` at this table (which phone sent what,
    tables.request_key), "" for a request logged before keys were kept, None if unused."""
    row = conn.execute(
        "SELECT request_key FROM action WHERE table_id = ? AND request_id = ?", (table_id, request_id)
    ).fetchone()
    return None if row is None else (row["request_key"] or "")


def append_action(conn, table_id, seat, name, params, request_id, at: float | None = None,
                  key: str | None = None) -> int:
    """Log an action; `at` is the server time its effect was computed with (the clock needs it),
    `key` what the request with `request_id` was (tables.request_key)."""
    row = conn.execute("SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM action WHERE table_id = ?",
                       (table_id,)).fetchone()
    seq = row["next"]
    conn.execute(
        "INSERT INTO action (table_id, seq, seat, name, params, request_id, created_at, request_key)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (table_id, seq, seat, name, json.dumps(params), request_id, time.time() if at is None else at,
         key if request_id else None),
    )
    return seq


def latest_live_action(conn, table_id: int, seat: int, names: list[str]) -> int | None:
    """The seq of `seat`'s newest live action among `names`, or None."""
    if not names:
        return None
    row = conn.execute(
        f"SELECT MAX(seq) AS seq FROM action WHERE table_id = ? AND seat = ? AND undone_at IS NULL"
        f" AND name IN ({', '.join('?' for _ in names)})", (table_id, seat, *names)).fetchone()
    return row["seq"]


def withdraw_action(conn, table_id: int, seq: int, marker: str) -> None:
    """Take a row out of the live log and forget what it held (its request id stays, so a
    retry of the same request is still recognised and not applied again; its key keeps
    the phone and the action, not the digest of the values: REQUEST_KEY_WITHDRAWN)."""
    conn.execute("UPDATE action SET name = ?, params = '{}', undone_at = ?, request_key ="
                 " CASE WHEN request_key IS NULL THEN NULL"
                 " ELSE substr(request_key, 1, length(request_key) - ?) || ? END"
                 " WHERE table_id = ? AND seq = ?",
                 (marker, time.time(), REQUEST_DIGEST_LENGTH, REQUEST_KEY_WITHDRAWN, table_id, seq))


def mark_undone(conn, table_id: int, seq: int) -> None:
    conn.execute("UPDATE action SET undone_at = ? WHERE table_id = ? AND seq = ?",
                 (time.time(), table_id, seq))


def save_snapshot(conn, table_id: int, snapshot: dict, answered_by: str | None = None) -> int:
    """Store the new state and bump the version; return the new version. `answered_by`: the
    phone (Hub.answered) whose request is answered with the view at the new version."""
    if getattr(conn, "is_postgres", False):
        # One round trip: the bump, and the notice every server's listener gets at COMMIT
        # (and only if the transaction commits).
        return conn.execute(
            "WITH bumped AS (UPDATE game_table SET snapshot = ?, version = version + 1,"
            " updated_at = ?, answered_by = ? WHERE id = ? RETURNING code, version, seat_stamp, answered_by)"
            f" SELECT version, {_NOTICE} FROM bumped",
            (json.dumps(snapshot), time.time(), answered_by, table_id, LIVE_CHANNEL)).fetchone()["version"]
    conn.execute(
        "UPDATE game_table SET snapshot = ?, version = version + 1, updated_at = ?, answered_by = ?"
        " WHERE id = ?",
        (json.dumps(snapshot), time.time(), answered_by, table_id),
    )
    return conn.execute("SELECT version FROM game_table WHERE id = ?", (table_id,)).fetchone()["version"]


def finished_snapshots(conn, game: str) -> list[dict]:
    """The states of every finished table of one game (phase "over"), oldest first."""
    rows = conn.execute(
        "SELECT snapshot FROM game_table WHERE game = ?"
        " AND json_extract(snapshot, '$.phase') = 'over' ORDER BY updated_at, id",
        (game,),
    ).fetchall()
    return [json.loads(row["snapshot"]) for row in rows]


def asked_options(conn, table_id: int) -> dict | None:
    row = conn.execute("SELECT options FROM table_request WHERE table_id = ?", (table_id,)).fetchone()
    return None if row is None else json.loads(row["options"])


# ----------------------------------------------------------------- game history


PLAYED_COLUMNS = ("uid", "table_id", "table_version", "code", "game", "game_name", "status",
                  "options", "asked_options", "started_at", "ended_at", "duration", "cooperative",
                  "won", "level", "outcome", "log")
_JSON_COLUMNS = ("options", "asked_options", "outcome", "log")


def tables_to_record(conn) -> list[sqlite3.Row]:
    """Tables changed since the history last looked at them (or never looked at)."""
    return conn.execute(
        "SELECT t.code, t.version, p.id AS played_id FROM game_table t"
        " LEFT JOIN played_game p ON p.table_id = t.id"
        " WHERE p.id IS NULL OR p.table_version IS NOT t.version ORDER BY t.id"
    ).fetchall()


# A campaign keeps its chapter table by code across evenings: never deleted nor renamed.
_NOT_CAMPAIGN = "json_extract(options, '$.campaign') IS NULL"


def delete_never_played(conn, created_before: float) -> int:
    """Delete the tables made before `created_before` where nothing was ever done (version 0:
    no move, no clock, no undo); their codes are free again. Return how many."""
    never_played = f"version = 0 AND created_at < ? AND {_NOT_CAMPAIGN}"
    with Transaction(conn):
        # A finished table whose next table goes offers a rematch again.
        conn.execute(f"UPDATE game_table SET next_table_id = NULL, seat_stamp = seat_stamp + 1"
                     f" WHERE next_table_id IN"
                     f" (SELECT id FROM game_table WHERE {never_played})", (created_before,))
        for child in ("seat", "action", "table_request", "played_game", "shared_part"):
            conn.execute(f"DELETE FROM {child} WHERE table_id IN"
                         f" (SELECT id FROM game_table WHERE {never_played})", (created_before,))
        return conn.execute(f"DELETE FROM game_table WHERE {never_played}", (created_before,)).rowcount


# An archived table keeps its row (the history refers to it) under a name no code can be,
# so its code is free for a new table and the old one can no longer be reached by it.
RELEASED_PREFIX = "~"


def release_codes(conn, idle_before: float) -> int:
    """Free the codes of recorded tables with no change since `idle_before`; return how many."""
    with Transaction(conn):
        return conn.execute(
            f"UPDATE game_table SET code = '{RELEASED_PREFIX}' || CAST(id AS TEXT)"
            f" WHERE code NOT LIKE '{RELEASED_PREFIX}%' AND updated_at < ?"
            f" AND {_NOT_CAMPAIGN}"
            " AND id IN (SELECT table_id FROM played_game WHERE table_id IS NOT NULL)",
            (idle_before,)).rowcount


def played_for_table(conn, table_id: int) -> sqlite3.Row | None:
    return conn.execute("SELECT id, uid, table_version FROM played_game WHERE table_id = ?",
                        (table_id,)).fetchone()


def imported_count(conn) -> int:
    """History rows that came from an import (no table of this server)."""
    return conn.execute("SELECT COUNT(*) FROM played_game WHERE table_id IS NULL").fetchone()[0]


def played_uid_exists(conn, uid: str) -> bool:
    return conn.execute("SELECT 1 FROM played_game WHERE uid = ?", (uid,)).fetchone() is not None


def save_played(conn, record: dict, seats: list[dict], played_id: int | None = None) -> int:
    """Insert a history row (or replace the one with `played_id`) with its seats."""
    values = [json.dumps(record[c]) if c in _JSON_COLUMNS and record[c] is not None else record[c]
              for c in PLAYED_COLUMNS]
    if played_id is None:
        cur = conn.execute(
            f"INSERT INTO played_game ({', '.join(PLAYED_COLUMNS)})"
            f" VALUES ({', '.join('?' for _ in PLAYED_COLUMNS)})", values)
        played_id = cur.lastrowid
    else:
        conn.execute(f"UPDATE played_game SET {', '.join(c + ' = ?' for c in PLAYED_COLUMNS)}"
                     " WHERE id = ?", values + [played_id])
        conn.execute("DELETE FROM played_seat WHERE played_id = ?", (played_id,))
    conn.executemany(
        "INSERT INTO played_seat (played_id, seat, name, name_key, score, place, winner)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(played_id, s["seat"], s["name"], s["name_key"], s["score"], s["place"], int(bool(s["winner"])))
         for s in seats])
    return played_id


def delete_played(conn, played_id: int) -> None:
    conn.execute("DELETE FROM played_seat WHERE played_id = ?", (played_id,))
    conn.execute("DELETE FROM played_game WHERE id = ?", (played_id,))


def _played(row: sqlite3.Row | None, full: bool = True) -> dict | None:
    if row is None:
        return None
    data = dict(row)
    for column in _JSON_COLUMNS:
        if column in data and data[column] is not None:
            data[column] = json.loads(data[column])
    return data


_LIST_COLUMNS = ("id, uid, table_id, code, game, game_name, status, started_at, ended_at, duration,"
                 " cooperative, won, level, outcome")
# How a stored outcome (json.dumps) says the players stopped the game before the rules' end.
ENDED_EARLY_JSON = '"ended_early": true'


def list_played(conn, statuses: tuple[str, ...], game: str | None = None,
                name_keys: list[str] | None = None, limit: int = 50, offset: int = 0) -> list[dict]:
    """History rows, newest first, optionally of one game and with one of `name_keys` at the table."""
    where = [f"status IN ({', '.join('?' for _ in statuses)})"]
    args: list = list(statuses)
    if game:
        where.append("game = ?")
        args.append(game)
    if name_keys is not None:
        where.append(f"id IN (SELECT played_id FROM played_seat WHERE name_key IN"
                     f" ({', '.join('?' for _ in name_keys)}))")
        args += name_keys
    rows = conn.execute(
        f"SELECT {_LIST_COLUMNS} FROM played_game WHERE {' AND '.join(where)}"
        " ORDER BY ended_at DESC, id DESC LIMIT ? OFFSET ?", args + [limit, offset]).fetchall()
    return [_played(r) for r in rows]


def get_played(conn, played_id: int) -> dict | None:
    return _played(conn.execute("SELECT * FROM played_game WHERE id = ?", (played_id,)).fetchone())


def all_played(conn, statuses: tuple[str, ...]) -> list[dict]:
    """Every history row in full, oldest first (for export)."""
    rows = conn.execute(
        f"SELECT * FROM played_game WHERE status IN ({', '.join('?' for _ in statuses)})"
        " ORDER BY ended_at, uid", statuses).fetchall()
    return [_played(r) for r in rows]


def played_seats(conn, played_ids: list[int] | None = None) -> list[sqlite3.Row]:
    if played_ids is None:
        return conn.execute("SELECT * FROM played_seat ORDER BY played_id, seat").fetchall()
    found = []
    for start in range(0, len(played_ids), 500):
        chunk = played_ids[start:start + 500]
        found += conn.execute(
            f"SELECT * FROM played_seat WHERE played_id IN ({', '.join('?' for _ in chunk)})"
            " ORDER BY played_id, seat", chunk).fetchall()
    return found


def seat_results(conn, statuses: tuple[str, ...]) -> list[sqlite3.Row]:
    """Every player's result in the listed kinds of games, oldest game first (for stats)."""
    return conn.execute(
        "SELECT g.id AS played_id, g.game, g.game_name, g.ended_at, g.cooperative, g.won, g.level,"
        " g.outcome IS NOT NULL AS has_outcome, s.seat, s.name, s.name_key, s.score, s.place, s.winner,"
        # A game the players stopped early names no winner: it is never counted in the stats.
        " g.outcome LIKE ? AS ended_early"
        f" FROM played_game g JOIN played_seat s ON s.played_id = g.id"
        f" WHERE g.status IN ({', '.join('?' for _ in statuses)})"
        " ORDER BY g.ended_at, g.id, s.seat", [f"%{ENDED_EARLY_JSON}%", *statuses]).fetchall()


def history_games(conn, statuses: tuple[str, ...]) -> list[sqlite3.Row]:
    """The games present in the history, for the filter."""
    return conn.execute(
        f"SELECT game, MAX(game_name) AS game_name, COUNT(*) AS played FROM played_game"
        f" WHERE status IN ({', '.join('?' for _ in statuses)}) GROUP BY game ORDER BY game_name",
        statuses).fetchall()


def name_spellings(conn, statuses: tuple[str, ...]) -> list[sqlite3.Row]:
    """Every spelling seen at a listed game, with how often and when last."""
    return conn.execute(
        "SELECT s.name_key, s.name, COUNT(*) AS games, MAX(g.ended_at) AS last"
        " FROM played_seat s JOIN played_game g ON g.id = s.played_id"
        f" WHERE g.status IN ({', '.join('?' for _ in statuses)})"
        " GROUP BY s.name_key, s.name ORDER BY s.name_key", statuses).fetchall()


def merges(conn) -> list[sqlite3.Row]:
    return conn.execute("SELECT * FROM name_merge ORDER BY created_at, alias_key").fetchall()


def add_merge(conn, alias_key: str, alias: str, person_key: str, person: str, at: float) -> None:
    conn.execute("INSERT INTO name_merge (alias_key, alias, person_key, person, created_at)"
                 " VALUES (?, ?, ?, ?, ?)", (alias_key, alias, person_key, person, at))


def delete_merge(conn, alias_key: str) -> bool:
    return conn.execute("DELETE FROM name_merge WHERE alias_key = ?", (alias_key,)).rowcount > 0


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
                       state=json.loads(row["state"]), created_at=row["created_at"],
                       updated_at=row["updated_at"])


def campaign_name_taken(conn, game: str, name: str) -> bool:
    return conn.execute("SELECT 1 FROM campaign WHERE game = ? AND name = ? COLLATE NOCASE",
                        (game, name)).fetchone() is not None


def insert_campaign(conn, game: str, name: str, state: dict) -> int:
    now = time.time()
    cur = conn.execute("INSERT INTO campaign (game, name, state, created_at, updated_at)"
                       " VALUES (?, ?, ?, ?, ?)", (game, name, json.dumps(state), now, now))
    return cur.lastrowid


def get_campaign(conn, campaign_id: int) -> CampaignRow | None:
    return _campaign(conn.execute("SELECT * FROM campaign WHERE id = ?",
                                  (campaign_id,)).fetchone())


def list_campaigns(conn, game: str) -> list[CampaignRow]:
    rows = conn.execute("SELECT * FROM campaign WHERE game = ? ORDER BY updated_at DESC",
                        (game,)).fetchall()
    return [_campaign(row) for row in rows]


def save_campaign(conn, campaign_id: int, state: dict) -> None:
    conn.execute("UPDATE campaign SET state = ?, updated_at = ? WHERE id = ?",
                 (json.dumps(state), time.time(), campaign_id))


def add_campaign_events(conn, campaign_id: int, texts: list[str]) -> None:
    row = conn.execute("SELECT COALESCE(MAX(seq), 0) AS last FROM campaign_event"
                       " WHERE campaign_id = ?", (campaign_id,)).fetchone()
    now = time.time()
    conn.executemany("INSERT INTO campaign_event (campaign_id, seq, text, created_at)"
                     " VALUES (?, ?, ?, ?)",
                     [(campaign_id, row["last"] + i + 1, text, now)
                      for i, text in enumerate(texts)])


def campaign_events(conn, campaign_id: int) -> list[sqlite3.Row]:
    """The campaign's history, newest first."""
    return conn.execute("SELECT seq, text, created_at FROM campaign_event WHERE campaign_id = ?"
                        " ORDER BY seq DESC", (campaign_id,)).fetchall()


# ----------------------------------------------------------------- rate limits


def limit_hit(conn, bucket: str, expiry: float, amount: int, at: float) -> int:
    """Add `amount` to a counter (a fresh window of `expiry` seconds once the old one is over)."""
    with Transaction(conn):
        conn.execute("DELETE FROM rate_limit WHERE expires_at <= ?", (at,))
        conn.execute(
            "INSERT INTO rate_limit (bucket, hits, expires_at) VALUES (?, ?, ?)"
            " ON CONFLICT (bucket) DO UPDATE SET hits = rate_limit.hits + excluded.hits",
            (bucket, amount, at + expiry))
        return conn.execute("SELECT hits FROM rate_limit WHERE bucket = ?", (bucket,)).fetchone()[0]


def limit_turn(conn, bucket: str, pace: float, longest: float, at: float) -> float | None:
    """Book the next turn of a paced queue (its row's expires_at is the next free turn):
    return the seconds to wait for it, or None, booking nothing, when that is over `longest`."""
    with Transaction(conn):
        row = conn.execute("SELECT expires_at FROM rate_limit WHERE bucket = ?", (bucket,)).fetchone()
        turn = max(row[0], at) if row is not None else at
        if turn - at > longest:
            return None
        conn.execute(
            "INSERT INTO rate_limit (bucket, hits, expires_at) VALUES (?, 0, ?)"
            " ON CONFLICT (bucket) DO UPDATE SET expires_at = excluded.expires_at",
            (bucket, turn + pace))
        return turn - at


def limit_count(conn, bucket: str, at: float) -> int:
    row = conn.execute("SELECT hits FROM rate_limit WHERE bucket = ? AND expires_at > ?",
                       (bucket, at)).fetchone()
    return 0 if row is None else row[0]


def limit_expiry(conn, bucket: str, at: float) -> float:
    row = conn.execute("SELECT expires_at FROM rate_limit WHERE bucket = ? AND expires_at > ?",
                       (bucket, at)).fetchone()
    return at if row is None else row[0]


def limit_clear(conn, bucket: str | None = None) -> int:
    """Forget one counter, or every counter when no bucket is given; return how many."""
    with Transaction(conn):
        if bucket is None:
            return conn.execute("DELETE FROM rate_limit").rowcount
        return conn.execute("DELETE FROM rate_limit WHERE bucket = ?", (bucket,)).rowcount
