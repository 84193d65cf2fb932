"""Alembic's entry: the migrations always run on a connection companion.migrate opened and
locked (one process at a time), never from a URL of their own."""

import sqlalchemy as sa
from alembic import context

from companion.schema import SQLITE_NULLABLE_KEYS, metadata

connection = context.config.attributes.get("connection")
if connection is None or context.is_offline_mode():
    raise SystemExit("Run the migrations through the app: flask db upgrade (companion/migrate.py).")



sqlite = connection.dialect.name == "sqlite"
if sqlite:
    metadata, compared = sa.MetaData(), metadata
    for each in compared.sorted_tables:
        each.to_metadata(metadata)
    for table, column in SQLITE_NULLABLE_KEYS:
        metadata.tables[table].c[column].nullable = True


def include_object(obj, name, type_, reflected, compare_to):
    # campaign_name is (game, name COLLATE NOCASE) on SQLite, (game, lower(name)) on
    # PostgreSQL: a collation or an expression the comparison cannot see (migration 0001).
    if type_ == "index" and name == "campaign_name":
        return False
    # SQLite's reflection reads no ON DELETE from a key declared inline (REFERENCES ... ON
    # DELETE CASCADE on the column), as every database made before the migrations has it.
    if sqlite and type_ == "foreign_key_constraint" and obj.table.name == "played_seat":
        return False
    return True


context.configure(connection=connection, target_metadata=metadata, compare_type=True,
                  include_object=include_object,
                  # SQLite runs them in one transaction too (BEGIN IMMEDIATE, migrate.py).
                  transactional_ddl=True)
with context.begin_transaction():
    context.run_migrations()
