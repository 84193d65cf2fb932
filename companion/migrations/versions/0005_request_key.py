"""action.request_key: a retried request is matched on its phone and its values.

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def _has(table: str, column: str) -> bool:
    return column in {c["name"] for c in sa.inspect(op.get_bind()).get_columns(table)}


def upgrade() -> None:
    # Made only if missing: a database from before the migrations may hold it already.
    if not _has("action", "request_key"):
        op.add_column("action", sa.Column("request_key", sa.Text))


def downgrade() -> None:
    op.drop_column("action", "request_key")  # SQLite 3.35 and later drop a column in place
