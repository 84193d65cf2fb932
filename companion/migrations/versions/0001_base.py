"""The schema as the oldest shipped databases have it: every table and index, none of the
columns added by hand later (seat_stamp, answered_by, next_table_id, kept_for, request_key;
the revisions after this one add them).

A frozen copy, not companion/schema.py: that module says what the schema is now, this one
what it was. Every table and index is made only if missing, so a database from before the
migrations (which made its tables with CREATE TABLE IF NOT EXISTS, whatever its release)
gains the tables its release did not have yet and keeps the ones it has (migrate.py).

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

Time = sa.REAL().with_variant(postgresql.DOUBLE_PRECISION(), "postgresql")


def _id():
    return sa.Column("id", sa.Integer, sa.Identity(), primary_key=True)


def upgrade() -> None:
    def table(name, *columns):
        op.create_table(name, *columns, if_not_exists=True)

    def index(name, table_name, columns, **kw):
        op.create_index(name, table_name, columns, if_not_exists=True, **kw)

    table("game_table",
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
          sa.Column("updated_at", Time, nullable=False))
    table("seat",
          sa.Column("table_id", sa.Integer, sa.ForeignKey("game_table.id"), nullable=False),
          sa.Column("seat", sa.Integer, nullable=False),
          sa.Column("name", sa.Text, nullable=False),
          sa.Column("token_hash", sa.Text),
          sa.PrimaryKeyConstraint("table_id", "seat"))
    table("action",
          sa.Column("table_id", sa.Integer, sa.ForeignKey("game_table.id"), nullable=False),
          sa.Column("seq", sa.Integer, nullable=False),
          sa.Column("seat", sa.Integer),
          sa.Column("name", sa.Text, nullable=False),
          sa.Column("params", sa.Text, nullable=False),
          sa.Column("request_id", sa.Text),
          sa.Column("created_at", Time, nullable=False),
          sa.Column("undone_at", Time),
          sa.PrimaryKeyConstraint("table_id", "seq"))
    index("action_request", "action", ["table_id", "request_id"], unique=True,
          sqlite_where=sa.text("request_id IS NOT NULL"),
          postgresql_where=sa.text("request_id IS NOT NULL"))
    table("shared_part",
          sa.Column("table_id", sa.Integer, sa.ForeignKey("game_table.id"), nullable=False),
          sa.Column("part", sa.Text, nullable=False),
          sa.Column("stamp", sa.Text, nullable=False),
          sa.Column("deflated", sa.LargeBinary, nullable=False),
          sa.Column("crc", sa.BigInteger, nullable=False),
          sa.Column("size", sa.Integer, nullable=False),
          sa.PrimaryKeyConstraint("table_id", "part"))
    # These three keys without NOT NULL, as the databases made before (schema.SQLITE_NULLABLE_KEYS).
    table("table_request",
          sa.Column("table_id", sa.Integer, sa.ForeignKey("game_table.id"), primary_key=True,
                    autoincrement=False, nullable=True),
          sa.Column("options", sa.Text, nullable=False))
    table("played_game",
          _id(),
          sa.Column("uid", sa.Text, nullable=False, unique=True),
          sa.Column("table_id", sa.Integer, sa.ForeignKey("game_table.id"), unique=True),
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
          sa.Column("log", sa.Text, nullable=False))
    index("played_game_listing", "played_game", ["status", "ended_at"])
    index("played_game_by_game", "played_game", ["game", "status", "ended_at"])
    table("played_seat",
          sa.Column("played_id", sa.Integer, sa.ForeignKey("played_game.id", ondelete="CASCADE"),
                    nullable=False),
          sa.Column("seat", sa.Integer, nullable=False),
          sa.Column("name", sa.Text, nullable=False),
          sa.Column("name_key", sa.Text, nullable=False),
          sa.Column("score", sa.Integer),
          sa.Column("place", sa.Integer),
          sa.Column("winner", sa.Integer, nullable=False, server_default=sa.text("0")),
          sa.PrimaryKeyConstraint("played_id", "seat"))
    index("played_seat_name", "played_seat", ["name_key", "played_id"])
    table("name_merge",
          sa.Column("alias_key", sa.Text, primary_key=True, nullable=True),
          sa.Column("alias", sa.Text, nullable=False),
          sa.Column("person_key", sa.Text, nullable=False),
          sa.Column("person", sa.Text, nullable=False),
          sa.Column("created_at", Time, nullable=False))
    table("campaign",
          _id(),
          sa.Column("game", sa.Text, nullable=False),
          sa.Column("name", sa.Text, nullable=False),
          sa.Column("state", sa.Text, nullable=False),
          sa.Column("created_at", Time, nullable=False),
          sa.Column("updated_at", Time, nullable=False))
    # One name per game whatever its case, each database in its own words.
    if op.get_context().dialect.name == "postgresql":
        op.execute("CREATE UNIQUE INDEX IF NOT EXISTS campaign_name ON campaign (game, lower(name))")
    else:
        op.execute("CREATE UNIQUE INDEX IF NOT EXISTS campaign_name ON campaign (game, name COLLATE NOCASE)")
    table("campaign_event",
          sa.Column("campaign_id", sa.Integer, sa.ForeignKey("campaign.id"), nullable=False),
          sa.Column("seq", sa.Integer, nullable=False),
          sa.Column("text", sa.Text, nullable=False),
          sa.Column("created_at", Time, nullable=False),
          sa.PrimaryKeyConstraint("campaign_id", "seq"))
    index("game_table_updated", "game_table", ["updated_at"])
    table("rate_limit",
          sa.Column("bucket", sa.Text, primary_key=True, nullable=True),
          sa.Column("hits", sa.Integer, nullable=False),
          sa.Column("expires_at", Time, nullable=False))
    index("rate_limit_expiry", "rate_limit", ["expires_at"])


def downgrade() -> None:
    for name in ("rate_limit", "campaign_event", "campaign", "name_merge", "played_seat",
                 "played_game", "table_request", "shared_part", "action", "seat", "game_table"):
        op.drop_table(name)
