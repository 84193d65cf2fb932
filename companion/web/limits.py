"""Rate limits: guessing table codes costs time (Flask-Limiter, in memory by default)."""

from __future__ import annotations

from flask import current_app
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address

# No X-RateLimit headers: phones never read them, and every view fetch would carry them.
limiter = Limiter(get_remote_address, storage_uri="memory://", headers_enabled=False)


def _code_guess_limit() -> str:
    return current_app.config["CODE_GUESS_LIMIT"]


# Only answers of "no such table" count, so a phone at a real table is never slowed down.
code_lookup = limiter.shared_limit(_code_guess_limit, scope="code-guess",
                                   deduct_when=lambda response: response.status_code == 404)


def init_app(app) -> None:
    app.config.setdefault("RATELIMIT_STORAGE_URI", "memory://")
    limiter.init_app(app)
