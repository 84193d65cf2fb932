"""game_table.seat_stamp: seats reach every phone live, a stamp apart from the game's version.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def _has(table: str, column: str) -> bool:
    return column in {c["name"] for c in sa.inspect(op.get_bind()).get_columns(table)}


def upgrade() -> None:
    # Made only if missing: a database from before the migrations may hold it already.
    if not _has("game_table", "seat_stamp"):
        op.add_column("game_table", sa.Column("seat_stamp", sa.Integer, nullable=False, server_default=sa.text("0")))


def downgrade() -> None:
    op.drop_column("game_table", "seat_stamp")  # SQLite 3.35 and later drop a column in place
