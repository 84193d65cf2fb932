"""game_table.answered_by: the phone answered with a version's view, told to the other processes.

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def _has(table: str, column: str) -> bool:
    return column in {c["name"] for c in sa.inspect(op.get_bind()).get_columns(table)}


def upgrade() -> None:
    # Made only if missing: a database from before the migrations may hold it already.
    if not _has("game_table", "answered_by"):
        op.add_column("game_table", sa.Column("answered_by", sa.Text))


def downgrade() -> None:
    op.drop_column("game_table", "answered_by")  # SQLite 3.35 and later drop a column in place
