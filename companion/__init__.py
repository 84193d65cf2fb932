"""Forest Table: a phone companion for four forest board games."""

from __future__ import annotations

import os
import secrets
import socket
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

from flask import Flask
from htmx_flask import Htmx
from werkzeug.middleware.proxy_fix import ProxyFix

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def _secret_key(instance_path: str) -> str:
    """Read the signing key from the instance folder, creating it at first start.

    The production server's worker processes start side by side, and each would make a
    key of its own: a seat cookie signed by one would then be refused by another. The key
    is written whole under another name and linked into place, so the first one wins.
    """
    path = Path(instance_path) / "secret_key"
    if not path.exists():
        os.makedirs(instance_path, exist_ok=True)
        fd, written = tempfile.mkstemp(dir=instance_path, prefix=".secret_key-")  # mode 0600
        try:
            os.write(fd, secrets.token_hex(32).encode())
            os.close(fd)
            try:
                os.link(written, path)
            except FileExistsError:
                pass  # another process was first: its key is the one
        finally:
            os.unlink(written)
    return path.read_text().strip()


def _trusted_hosts(config, lan_address: str | None) -> list[str]:
    """The names this server answers to: a request for any other Host is refused, so a
    web page on another name resolving here (DNS rebinding) cannot drive it."""
    extra = config.get("TRUSTED_HOSTS") or []
    if isinstance(extra, str):
        extra = extra.replace(",", " ").split()
    hosts = ["localhost", "127.0.0.1", "[::1]", *extra]
    name = socket.gethostname()
    if name:
        hosts += [name.lower(), f"{name.lower()}.local"]
    if lan_address:
        hosts.append(lan_address)
    if config.get("PUBLIC_URL"):
        public = urlsplit(config["PUBLIC_URL"]).hostname
        if public:
            hosts.append(public)
    return list(dict.fromkeys(hosts))


def _trusted_proxies(config) -> int:
    raw = config.get("TRUSTED_PROXIES") or 0
    if isinstance(raw, bool) or not str(raw).isdigit():
        raise ValueError("FOREST_TABLE_TRUSTED_PROXIES must be a whole number of proxies (0 for none).")
    return int(raw)


def create_app(test_config: dict | None = None) -> Flask:
    app = Flask(__name__, instance_relative_config=True,
                template_folder="../templates", static_folder="../static")
    app.config.from_mapping(
        DATABASE=os.path.join(app.instance_path, "forest-table.sqlite"),
        # postgresql://user:password@host:port/name: every app server shares that database.
        DATABASE_URL=None,
        PUBLIC_URL=None,  # e.g. "https://games.example.org" behind a proxy
        VENDOR_DIR=str(PROJECT_ROOT / "node_modules"),
        MAX_CONTENT_LENGTH=64 * 1024,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_NAME="forest_table",
        PERMANENT_SESSION_LIFETIME=60 * 60 * 24 * 60,
        # Each process looks for changes written by the other processes this often.
        STREAM_POLL_SECONDS=0.025,
        # A comment this often on every open stream, so a socket whose phone is gone fails
        # (the kernel gives up after two unanswered) and a proxy never finds it idle (nginx's
        # proxy_read_timeout is 60 s by default). Each costs a wake-up and a write, a loopback
        # send costing about what rendering a view does: 2,500 open streams at a quiet club
        # took 8-10 % of a core with 10 s, 7 % with 15 s, and 30 s halves what is left.
        STREAM_KEEPALIVE_SECONDS=30.0,
        # A stream pushes a view at most this often: a table changing faster (a server at
        # saturation) sends its phones one view for several moves.
        STREAM_PUSH_GAP_SECONDS=0.5,
        # Streams end after about this long; the phone reconnects and fetches the whole view.
        STREAM_MAX_SECONDS=300.0,
        CODE_GUESS_LIMIT="30 per minute",  # wrong table codes per address
        # Past that limit each code look-up from the address waits its turn, this long after
        # the one before (a guesser's pace), and is refused when the wait would be longer.
        CODE_GUESS_PACE_SECONDS=2.0,
        CODE_GUESS_MAX_WAIT_SECONDS=10.0,
        TABLE_CREATION_LIMIT="20 per hour",  # new tables per address
        HISTORY_IMPORT_LIMIT="10 per hour",  # history imports per address
        IMPORT_MAX_GAMES=1000,  # games in one history import
        IMPORTED_GAMES_MAX=10000,  # imported games the history keeps in all
        ABANDON_AFTER_HOURS=24,  # a table with no move for this long is archived as unfinished
        EMPTY_TABLE_HOURS=6,  # a table nobody but its host joined and nobody played is deleted
        # How many reverse proxies in front of the app add X-Forwarded-For/-Proto; with 0,
        # those headers are ignored and the socket's address is the client's.
        TRUSTED_PROXIES=0,
        TRUSTED_HOSTS=None,  # more host names to answer to, besides localhost, LAN and PUBLIC_URL
    )
    app.config.from_pyfile("config.py", silent=True)
    app.config.from_prefixed_env("FOREST_TABLE")
    if test_config:
        app.config.update(test_config)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _secret_key(app.instance_path)
    from .web.phone import lan_address

    app.config["TRUSTED_HOSTS"] = _trusted_hosts(
        app.config, app.config.get("LAN_ADDRESS") or lan_address())
    proxies = _trusted_proxies(app.config)
    if proxies:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies)

    Htmx(app)

    from . import db, hubs
    from .web import api, assets, campaigns, compression, errors, history, limits, pages, phone
    from .web import campaigns_api, following, i18n, incoming, screen, templating

    app.jinja_environment = templating.ViewEnvironment  # before anything builds app.jinja_env
    app.session_interface = phone.SessionInterface()
    i18n.init_app(app)
    db.init_app(app)
    hubs.init_app(app)
    errors.init_app(app)
    incoming.init_app(app)
    limits.init_app(app)
    compression.init_app(app)
    assets.init_app(app)
    app.register_blueprint(pages.bp)
    app.register_blueprint(api.bp)
    history.init_app(app)
    app.register_blueprint(campaigns.bp)
    app.register_blueprint(campaigns_api.bp)
    app.register_blueprint(following.bp)
    app.register_blueprint(screen.bp)
    app.jinja_env.globals["url_for"] = templating.url_for  # relative URLs built once each
    limits.limit_routes(app)
    return app
