"""The database connection of a request, on flask.g, and the init-db command."""

from __future__ import annotations

import os
import sqlite3

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
    app.cli.add_command(backup_command)
    # The default database lives in the instance folder, made at first start.
    folder = os.path.dirname(os.path.abspath(app.config["DATABASE"]))
    os.makedirs(folder, exist_ok=True)
    conn = store.connect(app.config["DATABASE"])
    try:
        store.init_schema(conn)
    finally:
        conn.close()


def backup(source_path: str, target_path: str) -> None:
    """Copy the database consistently while the app runs (SQLite's online backup)."""
    source = store.connect(source_path)
    target = sqlite3.connect(target_path)
    try:
        with target:
            source.backup(target)
    finally:
        target.close()
        source.close()


@click.command("backup")
@click.argument("target")
def backup_command(target: str) -> None:
    """Write a consistent copy of the database to TARGET while the app keeps running."""
    backup(current_app.config["DATABASE"], target)
    click.echo(f"Backed up to {target}.")
