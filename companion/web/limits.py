"""Rate limits (Flask-Limiter): guessing table codes, making tables and importing history
cost time. The counters live in the app's database, so every worker process, and every
machine sharing the database, counts the same misses.
"""

from __future__ import annotations

import functools
import os
import threading
import time
from urllib.parse import unquote, urlsplit

from flask import current_app, request
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from limits import parse
from limits.storage import Storage
from werkzeug.exceptions import NotFound

from .. import store, tables
from ..games.words import t
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

    def take_turn(self, key: str, pace: float, longest: float, now: float) -> float | None:
        return self._run(lambda conn: store.limit_turn(conn, key, pace, longest, now))


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


TOO_MANY_CODES = t("Too many wrong table codes from this address. Wait a minute, then try again.")
CODES_QUEUED = t("Too many table codes from this address just now: each waits its turn. "
                 "Wait a few seconds, then try again.")


class TooManyCodes(tables.TableError):
    status = 429


def code_lookup(view):
    """Wrong table codes from one address are counted (CODE_GUESS_LIMIT); past the limit the
    address is not shut out but paced: each of its code look-ups waits for its own turn,
    CODE_GUESS_PACE_SECONDS after the one before, then a real table opens as usual and a
    wrong code is answered 429. Typos at a club sharing one address cost the next phone a
    few seconds, not a minute of refusals; a guesser gets one look-up per turn. Existing and
    missing codes wait alike (the turn is taken before the table is looked up), and when
    the queue is longer than CODE_GUESS_MAX_WAIT_SECONDS every look-up is refused alike.
    The counter and the turns live in the shared store, so every server paces together."""

    @functools.wraps(view)
    def guarded(*args, **kwargs):
        if not limiter.enabled or _holds_this_table():  # RATELIMIT_ENABLED off: nothing counted
            return view(*args, **kwargs)
        item = parse(current_app.config["CODE_GUESS_LIMIT"])
        who = ("code-guess", get_remote_address())
        over = not limiter.limiter.test(item, *who)
        if over:
            wait = _take_turn(who[1])
            if wait is None:
                raise TooManyCodes(CODES_QUEUED)
            if wait > 0:
                time.sleep(wait)  # a green thread's wait under gevent
        try:
            response = current_app.make_response(view(*args, **kwargs))
        except (tables.NotFound, NotFound):
            _missed(item, who, over)
            raise
        if response.status_code == 404:
            _missed(item, who, over)
        return response

    return guarded


def _missed(item, who, over: bool) -> None:
    limiter.limiter.hit(item, *who)
    if over:
        raise TooManyCodes(TOO_MANY_CODES)


_turns: dict[str, float] = {}  # the pace of a store other than the database (memory://)
_turns_lock = threading.Lock()


def _take_turn(address: str) -> float | None:
    """Seconds until this request's turn at a paced address (0: now), or None when the
    queue is longer than the longest wait."""
    config = current_app.config
    pace, longest = float(config["CODE_GUESS_PACE_SECONDS"]), float(config["CODE_GUESS_MAX_WAIT_SECONDS"])
    storage = limiter.storage
    now = time.time()
    if isinstance(storage, DatabaseStorage):
        return storage.take_turn(f"code-pace/{address}", pace, longest, now)
    with _turns_lock:
        turn = max(_turns.get(address, 0.0), now)
        if turn - now > longest:
            return None
        _turns[address] = turn + pace
        return turn - now

# Only tables actually made count (an answer of 201 or a redirect), not forms sent back.
table_creation = limiter.shared_limit(
    _config("TABLE_CREATION_LIMIT"), scope="table-creation", methods=["POST"],
    deduct_when=lambda response: response.status_code in (201, 302, 303),
    error_message=t("Too many new tables from this address. Wait a while, then try again."))

history_import = limiter.shared_limit(
    _config("HISTORY_IMPORT_LIMIT"), scope="history-import", methods=["POST"],
    error_message=t("Too many history imports from this address. Wait a while, then try again."))

# The routes that take a code in the query rather than in the path.
CODE_QUERY_ENDPOINTS = ("pages.join_by_code",)
TABLE_CREATING_ENDPOINTS = ("api.create", "pages.new_table", "history.rematch",
                            "history.table_rematch", "campaigns.campaign_start",
                            "campaigns_api.start_chapter")
IMPORT_ENDPOINTS = ("history.import_history", "history_api.api_import")


def init_app(app) -> None:
    app.config.setdefault("RATELIMIT_STORAGE_URI", storage_uri(database_of(app)))
    # On by default for every app: Flask-Limiter's own default is whatever the last app
    # before it in this process said, so one app with limits off switched them off for
    # every app made after it.
    app.config.setdefault("RATELIMIT_ENABLED", True)
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
