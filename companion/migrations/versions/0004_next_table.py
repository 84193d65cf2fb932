"""game_table.next_table_id (one next table for the whole group: a rematch, a campaign's next
chapter) with its unique index game_table_next, and seat.kept_for (a seat there kept for the
phone that held it before).

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def _has(table: str, column: str) -> bool:
    return column in {c["name"] for c in sa.inspect(op.get_bind()).get_columns(table)}


def upgrade() -> None:
    # Made only if missing: a database from before the migrations may hold them already.
    if not _has("game_table", "next_table_id"):
        op.add_column("game_table", sa.Column("next_table_id", sa.Integer))
    op.create_index("game_table_next", "game_table", ["next_table_id"], unique=True,
                    sqlite_where=sa.text("next_table_id IS NOT NULL"),
                    postgresql_where=sa.text("next_table_id IS NOT NULL"), if_not_exists=True)
    if not _has("seat", "kept_for"):
        op.add_column("seat", sa.Column("kept_for", sa.Text))


def downgrade() -> None:
    op.drop_column("seat", "kept_for")  # SQLite 3.35 and later drop a column in place
    op.drop_index("game_table_next", table_name="game_table")
    op.drop_column("game_table", "next_table_id")  # SQLite 3.35 and later drop a column in place
