"""The database connection of a request, on flask.g, and the init-db command."""

from __future__ import annotations

import click
from flask import current_app, g

from . import store


def get_db():
    if "db" not in g:
        g.db = store.connect(current_app.config["DATABASE"])
    return g.db


def close_db(_exc=None) -> None:
    conn = g.pop("db", None)
    if conn is not None:
        conn.close()


@click.command("init-db")
def init_db_command() -> None:
    """Create the tables if they do not exist yet."""
    store.init_schema(get_db())
    click.echo("Database ready.")


def init_app(app) -> None:
    app.teardown_appcontext(close_db)
    app.cli.add_command(init_db_command)
    conn = store.connect(app.config["DATABASE"])
    try:
        store.init_schema(conn)
    finally:
        conn.close()
