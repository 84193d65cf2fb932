"""The live-update hub of the app: one interface (live.Hub), two backends. On SQLite the
in-process hub polls the database for writes of other processes; on PostgreSQL
pg_live.ListeningHub is woken by LISTEN/NOTIFY from every app server. Chosen here, above
both, so neither module imports the other's user."""

from __future__ import annotations

from . import live, store


def init_app(app) -> None:
    from .db import database_of
    database = database_of(app)
    hub = live.Hub
    if store.is_postgres_url(database):
        from .pg_live import ListeningHub as hub  # LISTEN/NOTIFY across app servers
    app.extensions["forest_hub"] = hub(database, poll=app.config["STREAM_POLL_SECONDS"])


def live_hub() -> live.Hub:
    """The app's hub, for a request."""
    from flask import current_app
    return current_app.extensions["forest_hub"]
