"""Forest Table: a phone companion for four forest board games."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from flask import Flask
from htmx_flask import Htmx

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def _secret_key(instance_path: str) -> str:
    """Read the signing key from the instance folder, creating it at first start."""
    path = Path(instance_path) / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_hex(32))
        path.chmod(0o600)
    return path.read_text().strip()


def create_app(test_config: dict | None = None) -> Flask:
    app = Flask(__name__, instance_relative_config=True,
                template_folder="../templates", static_folder="../static")
    os.makedirs(app.instance_path, exist_ok=True)
    app.config.from_mapping(
        DATABASE=os.path.join(app.instance_path, "forest-table.sqlite"),
        PUBLIC_URL=None,  # e.g. "https://games.example.org" behind a proxy
        VENDOR_DIR=str(PROJECT_ROOT / "node_modules"),
        MAX_CONTENT_LENGTH=64 * 1024,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_NAME="forest_table",
        PERMANENT_SESSION_LIFETIME=60 * 60 * 24 * 60,
        # Each process looks for changes written by the other processes this often.
        STREAM_POLL_SECONDS=0.025,
        # A comment this often on every open stream, so a socket whose phone is gone fails.
        STREAM_KEEPALIVE_SECONDS=10.0,
        # Streams end after about this long; the phone reconnects and fetches the whole view.
        STREAM_MAX_SECONDS=300.0,
        CODE_GUESS_LIMIT="30 per minute",
        ABANDON_AFTER_HOURS=24,  # a table with no move for this long is archived as unfinished
    )
    app.config.from_pyfile("config.py", silent=True)
    app.config.from_prefixed_env("FOREST_TABLE")
    if test_config:
        app.config.update(test_config)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _secret_key(app.instance_path)

    Htmx(app)

    from . import db, live
    from .web import api, assets, campaigns, compression, errors, history, limits, pages, phone
    from .web import incoming

    app.session_interface = phone.SessionInterface()
    db.init_app(app)
    live.init_app(app)
    errors.init_app(app)
    incoming.init_app(app)
    limits.init_app(app)
    compression.init_app(app)
    assets.init_app(app)
    app.register_blueprint(pages.bp)
    app.register_blueprint(api.bp)
    history.init_app(app)
    app.register_blueprint(campaigns.bp)
    return app
