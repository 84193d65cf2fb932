"""Databases as earlier releases left them, for the upgrade tests."""

from __future__ import annotations

from companion import migrate, store


def from_before_migrations(target: str, revision: str) -> None:
    """Make the database at `target` as a release from before the migrations left it, with
    the schema of `revision` (the columns its release had) and no alembic_version table."""
    conn = store.connect(target)
    try:
        migrate.upgrade(conn, revision)
        conn.execute("DROP TABLE alembic_version")
    finally:
        conn.close()
