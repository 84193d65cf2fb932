"""The database's schema as SQLAlchemy Core tables: what the migrations (companion/migrations)
build, step by step, and what `flask db check` compares a migrated database with.

Times are 8-byte floats on both databases (REAL on SQLite, DOUBLE PRECISION on PostgreSQL:
PostgreSQL's REAL is 4 bytes, too coarse for a timestamp); ids are SQLite's INTEGER PRIMARY
KEY (the rowid) and PostgreSQL identity columns.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

metadata = sa.MetaData()

Time = sa.REAL().with_variant(postgresql.DOUBLE_PRECISION(), "postgresql")


def _id() -> sa.Column:
    return sa.Column("id", sa.Integer, sa.Identity(), primary_key=True)


def _table_id(**kw) -> sa.Column:
    return sa.Column("table_id", sa.Integer, sa.ForeignKey("game_table.id"), **kw)


game_table = sa.Table(
    "game_table", metadata,
    _id(),
    sa.Column("code", sa.Text, nullable=False, unique=True),
    sa.Column("game", sa.Text, nullable=False),
    sa.Column("rules_version", sa.Integer, nullable=False),
    sa.Column("options", sa.Text, nullable=False),
    sa.Column("players", sa.Text, nullable=False),
    sa.Column("host_token_hash", sa.Text, nullable=False),
    sa.Column("version", sa.Integer, nullable=False, server_default=sa.text("0")),
    sa.Column("snapshot", sa.Text, nullable=False),
    sa.Column("created_at", Time, nullable=False),
    sa.Column("updated_at", Time, nullable=False),
    # Moves with every seat taken or freed; apart from the version, which actions check
    # strictly, so a phone joining never makes another phone's move stale.
    sa.Column("seat_stamp", sa.Integer, nullable=False, server_default=sa.text("0")),
    # The phone whose tap made this version and was answered with its view (a hash of its
    # seat tokens), so that its stream in another process need not push it that view again.
    sa.Column("answered_by", sa.Text),
    # The table the same group plays next (a rematch, a campaign's next chapter): set once,
    # in the transaction that creates it, so every phone at this table goes to the same one.
    sa.Column("next_table_id", sa.Integer),
    # Each process's live-update watcher asks many times a second what changed lately.
    sa.Index("game_table_updated", "updated_at"),
    # Unique: a table is the next table of one table at most, so its predecessor is found by it.
    sa.Index("game_table_next", "next_table_id", unique=True,
             sqlite_where=sa.text("next_table_id IS NOT NULL"),
             postgresql_where=sa.text("next_table_id IS NOT NULL")),
)

seat = sa.Table(
    "seat", metadata,
    _table_id(nullable=False, primary_key=True),
    sa.Column("seat", sa.Integer, nullable=False, primary_key=True),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("token_hash", sa.Text),
    # A seat kept for the phone that held it at the table before (the hash of that seat's
    # token there): only that phone may take it, until the host frees it.
    sa.Column("kept_for", sa.Text),
)

action = sa.Table(
    "action", metadata,
    _table_id(nullable=False, primary_key=True),
    sa.Column("seq", sa.Integer, nullable=False, primary_key=True),
    sa.Column("seat", sa.Integer),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("params", sa.Text, nullable=False),
    sa.Column("request_id", sa.Text),
    sa.Column("created_at", Time, nullable=False),
    sa.Column("undone_at", Time),
    sa.Column("request_key", sa.Text),
    sa.Index("action_request", "table_id", "request_id", unique=True,
             sqlite_where=sa.text("request_id IS NOT NULL"),
             postgresql_where=sa.text("request_id IS NOT NULL")),
)

# The parts of a table's view that every seated phone sees alike, as the newest version's
# render left them (raw deflate blocks, web/shared_parts.py).
shared_part = sa.Table(
    "shared_part", metadata,
    _table_id(nullable=False, primary_key=True),
    sa.Column("part", sa.Text, nullable=False, primary_key=True),
    sa.Column("stamp", sa.Text, nullable=False),
    sa.Column("deflated", sa.LargeBinary, nullable=False),
    sa.Column("crc", sa.BigInteger, nullable=False),
    sa.Column("size", sa.Integer, nullable=False),
)

# The options as they were asked for (e.g. "random"), so a rematch draws random choices again.
table_request = sa.Table(
    "table_request", metadata,
    _table_id(primary_key=True, autoincrement=False),
    sa.Column("options", sa.Text, nullable=False),
)

# Game history: one row per finished or abandoned table, or per imported game.
played_game = sa.Table(
    "played_game", metadata,
    _id(),
    sa.Column("uid", sa.Text, nullable=False, unique=True),
    _table_id(unique=True),
    sa.Column("table_version", sa.Integer),
    sa.Column("code", sa.Text, nullable=False),
    sa.Column("game", sa.Text, nullable=False),
    sa.Column("game_name", sa.Text, nullable=False),
    sa.Column("status", sa.Text, nullable=False),
    sa.Column("options", sa.Text, nullable=False),
    sa.Column("asked_options", sa.Text),
    sa.Column("started_at", Time, nullable=False),
    sa.Column("ended_at", Time, nullable=False),
    sa.Column("duration", Time),
    sa.Column("cooperative", sa.Integer, nullable=False, server_default=sa.text("0")),
    sa.Column("won", sa.Integer),
    sa.Column("level", sa.Text),
    sa.Column("outcome", sa.Text),
    sa.Column("log", sa.Text, nullable=False),
    sa.Index("played_game_listing", "status", "ended_at"),
    sa.Index("played_game_by_game", "game", "status", "ended_at"),
)

played_seat = sa.Table(
    "played_seat", metadata,
    sa.Column("played_id", sa.Integer, sa.ForeignKey("played_game.id", ondelete="CASCADE"),
              nullable=False, primary_key=True),
    sa.Column("seat", sa.Integer, nullable=False, primary_key=True),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("name_key", sa.Text, nullable=False),
    sa.Column("score", sa.Integer),
    sa.Column("place", sa.Integer),
    sa.Column("winner", sa.Integer, nullable=False, server_default=sa.text("0")),
    sa.Index("played_seat_name", "name_key", "played_id"),
)

# Two spellings of one person: alias_key counts as person_key (chains are followed).
name_merge = sa.Table(
    "name_merge", metadata,
    sa.Column("alias_key", sa.Text, primary_key=True),
    sa.Column("alias", sa.Text, nullable=False),
    sa.Column("person_key", sa.Text, nullable=False),
    sa.Column("person", sa.Text, nullable=False),
    sa.Column("created_at", Time, nullable=False),
)

campaign = sa.Table(
    "campaign", metadata,
    _id(),
    sa.Column("game", sa.Text, nullable=False),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("state", sa.Text, nullable=False),
    sa.Column("created_at", Time, nullable=False),
    sa.Column("updated_at", Time, nullable=False),
    # One campaign name per game, whatever its case: on SQLite (game, name COLLATE NOCASE),
    # on PostgreSQL (game, lower(name)); an expression index, which the comparison of
    # `flask db check` leaves aside, so it is made by the first migration on each database.
)

campaign_event = sa.Table(
    "campaign_event", metadata,
    sa.Column("campaign_id", sa.Integer, sa.ForeignKey("campaign.id"), nullable=False,
              primary_key=True),
    sa.Column("seq", sa.Integer, nullable=False, primary_key=True),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("created_at", Time, nullable=False),
)

# Rate-limit counters, shared by every worker process (and every machine on this database).
rate_limit = sa.Table(
    "rate_limit", metadata,
    sa.Column("bucket", sa.Text, primary_key=True),
    sa.Column("hits", sa.Integer, nullable=False),
    sa.Column("expires_at", Time, nullable=False),
    sa.Index("rate_limit_expiry", "expires_at"),
)

# Primary keys that SQLite lets hold NULL, as every database made before the migrations
# declared them (no NOT NULL: SQLite's old quirk for a key that is not the rowid); kept so,
# and compared so on SQLite (migrations/env.py). PostgreSQL makes every key NOT NULL.
SQLITE_NULLABLE_KEYS = (("name_merge", "alias_key"), ("rate_limit", "bucket"), ("table_request", "table_id"))

# Every table of the schema, parents before children (the order a copy must follow).
COPY_ORDER = ("game_table", "seat", "action", "table_request", "played_game", "played_seat",
              "name_merge", "campaign", "campaign_event", "rate_limit")
