"""SQLite storage: tables, seats and the action log. All SQL of the app lives here."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass

SCHEMA = """
CREATE TABLE IF NOT EXISTS game_table (
    id INTEGER PRIMARY KEY,
    code TEXT NOT NULL UNIQUE,
    game TEXT NOT NULL,
    rules_version INTEGER NOT NULL,
    options TEXT NOT NULL,
    players TEXT NOT NULL,
    host_token_hash TEXT NOT NULL,
    version INTEGER NOT NULL DEFAULT 0,
    snapshot TEXT NOT NULL,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS seat (
    table_id INTEGER NOT NULL REFERENCES game_table(id),
    seat INTEGER NOT NULL,
    name TEXT NOT NULL,
    token_hash TEXT,
    PRIMARY KEY (table_id, seat)
);
CREATE TABLE IF NOT EXISTS action (
    table_id INTEGER NOT NULL REFERENCES game_table(id),
    seq INTEGER NOT NULL,
    seat INTEGER,
    name TEXT NOT NULL,
    params TEXT NOT NULL,
    request_id TEXT,
    created_at REAL NOT NULL,
    undone_at REAL,
    PRIMARY KEY (table_id, seq)
);
CREATE UNIQUE INDEX IF NOT EXISTS action_request
    ON action (table_id, request_id) WHERE request_id IS NOT NULL;
-- Each process's live-update watcher asks many times a second what changed lately.
CREATE INDEX IF NOT EXISTS game_table_updated ON game_table (updated_at);
"""


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


@dataclass
class ActionRow:
    seq: int
    seat: int | None
    name: str
    params: dict
    request_id: str | None
    created_at: float


def connect(path: str) -> sqlite3.Connection:
    """Open the database in WAL mode, so readers never wait for the one writer."""
    conn = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA busy_timeout=30000")
    return conn


def init_schema(conn: sqlite3.Connection) -> None:
    conn.executescript(SCHEMA)


# Writers of one process queue here rather than in SQLite's busy handler, which sleeps
# in growing steps (up to 100 ms) and so lets a waiting writer miss a lock freed long ago.
_writer = threading.Lock()


class Transaction:
    """BEGIN IMMEDIATE ... COMMIT: one writer at a time, so version checks are exact."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        _writer.acquire()
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except BaseException:
            _writer.release()
            raise
        return self.conn

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            if exc_type is None:
                self.conn.execute("COMMIT")
            else:
                self.conn.execute("ROLLBACK")
        finally:
            _writer.release()


def _table(row: sqlite3.Row | None) -> TableRow | None:
    if row is None:
        return None
    return TableRow(
        id=row["id"], code=row["code"], game=row["game"], rules_version=row["rules_version"],
        options=json.loads(row["options"]), players=json.loads(row["players"]),
        host_token_hash=row["host_token_hash"], version=row["version"],
        snapshot=json.loads(row["snapshot"]), created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


def code_exists(conn, code: str) -> bool:
    return conn.execute("SELECT 1 FROM game_table WHERE code = ?", (code,)).fetchone() is not None


def insert_table(conn, code, game, rules_version, options, players, host_token_hash, snapshot) -> int:
    now = time.time()
    cur = conn.execute(
        "INSERT INTO game_table (code, game, rules_version, options, players, host_token_hash,"
        " version, snapshot, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?)",
        (code, game, rules_version, json.dumps(options), json.dumps(players), host_token_hash,
         json.dumps(snapshot), now, now),
    )
    table_id = cur.lastrowid
    conn.executemany(
        "INSERT INTO seat (table_id, seat, name, token_hash) VALUES (?, ?, ?, NULL)",
        [(table_id, i, name) for i, name in enumerate(players)],
    )
    return table_id


def get_table(conn, code: str) -> TableRow | None:
    return _table(conn.execute("SELECT * FROM game_table WHERE code = ?", (code,)).fetchone())


def get_version(conn, code: str) -> int | None:
    row = conn.execute("SELECT version FROM game_table WHERE code = ?", (code,)).fetchone()
    return None if row is None else row["version"]


def changed_since(conn, since: float) -> list[tuple[str, int, float]]:
    """(code, version, updated_at) of every table written after `since`."""
    return [tuple(row) for row in conn.execute(
        "SELECT code, version, updated_at FROM game_table WHERE updated_at > ?", (since,))]


def versions_of(conn, codes: list[str]) -> list[tuple[str, int]]:
    marks = ",".join("?" * len(codes))
    return [tuple(row) for row in conn.execute(
        f"SELECT code, version FROM game_table WHERE code IN ({marks})", codes)]


def seats(conn, table_id: int) -> list[sqlite3.Row]:
    return conn.execute(
        "SELECT seat, name, token_hash FROM seat WHERE table_id = ? ORDER BY seat", (table_id,)
    ).fetchall()


def set_seat_token(conn, table_id: int, seat: int, token_hash: str | None) -> None:
    conn.execute(
        "UPDATE seat SET token_hash = ? WHERE table_id = ? AND seat = ?", (token_hash, table_id, seat)
    )


def live_actions(conn, table_id: int, newest: int | None = None) -> list[ActionRow]:
    """The live actions in order; only the last `newest` of them when given."""
    if newest:
        rows = conn.execute(
            "SELECT * FROM (SELECT seq, seat, name, params, request_id, created_at FROM action"
            " WHERE table_id = ? AND undone_at IS NULL ORDER BY seq DESC LIMIT ?) ORDER BY seq",
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


def request_seen(conn, table_id: int, request_id: str) -> bool:
    return conn.execute(
        "SELECT 1 FROM action WHERE table_id = ? AND request_id = ?", (table_id, request_id)
    ).fetchone() is not None


def append_action(conn, table_id, seat, name, params, request_id) -> int:
    row = conn.execute("SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM action WHERE table_id = ?",
                       (table_id,)).fetchone()
    seq = row["next"]
    conn.execute(
        "INSERT INTO action (table_id, seq, seat, name, params, request_id, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        (table_id, seq, seat, name, json.dumps(params), request_id, time.time()),
    )
    return seq


def mark_undone(conn, table_id: int, seq: int) -> None:
    conn.execute("UPDATE action SET undone_at = ? WHERE table_id = ? AND seq = ?",
                 (time.time(), table_id, seq))


def save_snapshot(conn, table_id: int, snapshot: dict) -> int:
    """Store the new state and bump the version; return the new version."""
    conn.execute(
        "UPDATE game_table SET snapshot = ?, version = version + 1, updated_at = ? WHERE id = ?",
        (json.dumps(snapshot), time.time(), table_id),
    )
    return conn.execute("SELECT version FROM game_table WHERE id = ?", (table_id,)).fetchone()["version"]
