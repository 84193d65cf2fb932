"""Alembic's entry: the migrations always run on a connection companion.migrate opened and
locked (one process at a time), never from a URL of their own."""

from alembic import context

from companion.schema import metadata

connection = context.config.attributes.get("connection")
if connection is None or context.is_offline_mode():
    raise SystemExit("Run the migrations through the app: flask db upgrade (companion/migrate.py).")



def include_object(obj, name, type_, reflected, compare_to):
    # campaign_name is (game, name COLLATE NOCASE) on SQLite, (game, lower(name)) on
    # PostgreSQL: a collation or an expression the comparison cannot see (migration 0001).
    return not (type_ == "index" and name == "campaign_name")


context.configure(connection=connection, target_metadata=metadata, compare_type=True,
                  include_object=include_object,
                  # SQLite runs them in one transaction too (BEGIN IMMEDIATE, migrate.py).
                  transactional_ddl=True)
with context.begin_transaction():
    context.run_migrations()
