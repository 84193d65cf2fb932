"""Rate limits (Flask-Limiter): guessing table codes, making tables and importing history
cost time. The counters live in the app's database, so every worker process, and every
machine sharing the database, counts the same misses.
"""

from __future__ import annotations

import os
import threading
import time
from urllib.parse import unquote, urlsplit

from flask import current_app, request
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from limits.storage import Storage

from .. import store, tables
from ..db import database_of
from . import phone

STORAGE_SCHEME = "forest-table"
# forest-table+postgresql://user@host/name: the counters in a PostgreSQL database.
POSTGRES_SCHEME = STORAGE_SCHEME + "+postgresql"


class DatabaseStorage(Storage):
    """Fixed-window counters in the rate_limit table of the app's database.

    The URI names the database file, forest-table:///path/to/forest-table.sqlite, or the
    PostgreSQL database every app server shares, forest-table+postgresql://host/name.
    One connection per process, opened at first use (so never shared across a fork).
    """

    STORAGE_SCHEME = [STORAGE_SCHEME, POSTGRES_SCHEME]

    def __init__(self, uri: str | None = None, wrap_exceptions: bool = False, **options):
        if (uri or "").startswith(POSTGRES_SCHEME + "://"):
            self.path = uri[len(STORAGE_SCHEME) + 1:]  # the postgresql:// URL itself
        else:
            self.path = unquote(urlsplit(uri or "").path)
        self._conn = None
        self._pid = None
        self._lock = threading.Lock()
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)

    @property
    def base_exceptions(self):
        import sqlite3
        return (sqlite3.Error, store.Unavailable)

    def _run(self, work):
        with self._lock:
            if self._conn is None or self._pid != os.getpid():
                self._conn = store.connect(self.path)
                store.init_schema(self._conn)
                self._pid = os.getpid()
            return work(self._conn)

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        return self._run(lambda conn: store.limit_hit(conn, key, expiry, amount, time.time()))

    def get(self, key: str) -> int:
        return self._run(lambda conn: store.limit_count(conn, key, time.time()))

    def get_expiry(self, key: str) -> float:
        return self._run(lambda conn: store.limit_expiry(conn, key, time.time()))

    def check(self) -> bool:
        return self._run(lambda conn: conn.execute("SELECT 1").fetchone() is not None)

    def reset(self) -> int | None:
        return self._run(lambda conn: store.limit_clear(conn))

    def clear(self, key: str) -> None:
        self._run(lambda conn: store.limit_clear(conn, key))


def storage_uri(database: str) -> str:
    if store.is_postgres_url(database):
        return f"{STORAGE_SCHEME}+{database}"
    return f"{STORAGE_SCHEME}://{os.path.abspath(database)}"


# The address is the socket's, or the one the trusted proxies report (ProxyFix, see
# companion/__init__.py). No X-RateLimit headers: phones never read them.
limiter = Limiter(get_remote_address, headers_enabled=False)


def _holds_this_table() -> bool:
    """A phone that was given a seat at this table, or made it, is never slowed by others'
    typos. Its signed cookie says so (a token is only ever given by this table): the
    table is not read for it, which cost a query on every tap (4 % of a worker at
    saturation). A seat freed since changes nothing here: the phone knows the code."""
    code = tables.normalize_code((request.view_args or {}).get("code") or request.args.get("code"))
    return bool(code) and bool(phone.tokens(code) or phone.host_token(code))


def _config(name: str):
    return lambda: current_app.config[name]


# Only answers of "no such table" count, so a phone at a real table is never slowed down.
code_lookup = limiter.shared_limit(
    _config("CODE_GUESS_LIMIT"), scope="code-guess",
    deduct_when=lambda response: response.status_code == 404, exempt_when=_holds_this_table,
    error_message="Too many wrong table codes from this address. Wait a minute, then try again.")

# Only tables actually made count (an answer of 201 or a redirect), not forms sent back.
table_creation = limiter.shared_limit(
    _config("TABLE_CREATION_LIMIT"), scope="table-creation", methods=["POST"],
    deduct_when=lambda response: response.status_code in (201, 302, 303),
    error_message="Too many new tables from this address. Wait a while, then try again.")

history_import = limiter.shared_limit(
    _config("HISTORY_IMPORT_LIMIT"), scope="history-import", methods=["POST"],
    error_message="Too many history imports from this address. Wait a while, then try again.")

# The routes that take a code in the query rather than in the path.
CODE_QUERY_ENDPOINTS = ("pages.join_by_code",)
TABLE_CREATING_ENDPOINTS = ("api.create", "pages.new_table", "history.rematch",
                            "history.table_rematch", "campaigns.campaign_start",
                            "campaigns_api.start_chapter")
IMPORT_ENDPOINTS = ("history.import_history", "history_api.api_import")


def init_app(app) -> None:
    app.config.setdefault("RATELIMIT_STORAGE_URI", storage_uri(database_of(app)))
    limiter.init_app(app)


def limit_routes(app) -> None:
    """Put the limits on the routes, once every blueprint is registered.

    Every route with a `code` in its path is covered, including any added later."""
    covered: dict[str, list] = {}
    for rule in app.url_map.iter_rules():
        if "code" in rule.arguments or rule.endpoint in CODE_QUERY_ENDPOINTS:
            covered.setdefault(rule.endpoint, []).append(code_lookup)
    for endpoint in TABLE_CREATING_ENDPOINTS:
        covered.setdefault(endpoint, []).append(table_creation)
    for endpoint in IMPORT_ENDPOINTS:
        covered.setdefault(endpoint, []).append(history_import)
    for endpoint, limits in covered.items():
        view = app.view_functions[endpoint]
        for limit in limits:
            view = limit(view)
        app.view_functions[endpoint] = view
