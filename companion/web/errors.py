"""Every refusal is a clear message; no request ends in a bare error page or a 500."""

from __future__ import annotations

import json

from urllib.parse import urlsplit

from flask import Response, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, SecurityError

from .. import store, tables
from ..games.words import t
from . import i18n

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")

SUBRESOURCE_TYPES = ("text/css", "text/javascript", "application/javascript",
                     "application/manifest+json")

FRIENDLY = {
    400: t("That request was not understood."),
    403: t("That is not allowed from this phone."),
    404: t("There is nothing here. Check the address or the table code."),
    405: t("That page cannot be used that way."),
    413: t("That request is too large."),
    503: t("The game's database cannot be reached just now; nothing was changed. "
           "Try again in a moment."),
    429: t("Too many wrong table codes from this phone. Wait a minute, then try again."),
}


def _wants_json() -> bool:
    return request.path.startswith("/api/")


def _message(status: int, message: str):
    """The message in the request's language: JSON (said by the app's JSON provider), a
    notice for htmx, or the error page."""
    if _wants_json():
        return jsonify({"error": message}), status
    if request.headers.get("HX-Request"):
        # htmx swaps no 4xx answer, so the phone would show nothing: answer 200, keep the
        # screen as it is, and let the page show the message as a notice in view. A database
        # lost keeps its 503: htmx still reads the notice from HX-Trigger.
        said = i18n.say(message)
        response = Response(said, status=503 if status == 503 else 200, mimetype="text/plain")
        response.headers["HX-Reswap"] = "none"
        response.headers["HX-Trigger"] = json.dumps({"forest-notice": {"message": said}})
        return response
    # The language menu leads back here without the query string, which may be what was refused.
    return render_template("error.html", message=message, status=status, language_next=request.path), status


DEFAULT_PORTS = {"http": 80, "https": 443}

UNKNOWN_HOST = t("This server does not answer to that address. Open Forest Table by the address "
                 "shown on the host's screen (or add the name to FOREST_TABLE_TRUSTED_HOSTS).")


def _origin(url: str | None):
    """(scheme, host, port) of a URL, the port filled in; None when it is not a web address."""
    parts = urlsplit(url or "")
    try:
        port = parts.port or DEFAULT_PORTS.get(parts.scheme)
    except ValueError:
        return None
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    return parts.scheme, parts.hostname.lower(), port


def _exact_origin(value: str):
    """An Origin header's (scheme, host, port), or None: an origin is scheme://host[:port]
    and nothing else, so one with a path, a query, a fragment or a user name is refused
    (a browser never sends those; something that does is not a page of this site)."""
    parts = urlsplit(value)
    if parts.path or parts.query or parts.fragment or "@" in parts.netloc or "#" in value or "?" in value:
        return None
    return _origin(value)


def cross_site_refusal() -> str | None:
    """Why a write does not come from a page of this very site, or None when it does.

    Browsers send Origin with every POST; without it, a Referer of this site will do.
    The scheme counts too (behind an HTTPS proxy, ProxyFix makes the request https)."""
    here = _origin(request.host_url)
    origin = request.headers.get("Origin")
    if origin is not None:
        return None if _exact_origin(origin) == here else t("Requests from other sites are refused.")
    if _origin(request.referrer) == here:
        return None
    return t("Requests from other sites are refused: this one did not say which page sent it "
             "(no Origin or Referer header).")


def init_app(app) -> None:
    @app.before_request
    def refuse_cross_site_posts():
        if request.method in ("POST", "PUT", "PATCH", "DELETE"):
            refusal = cross_site_refusal()
            if refusal:
                return _message(403, refusal)
        return None

    @app.errorhandler(SecurityError)
    def untrusted_host(_exc):
        # No page template: building its links needs the very Host that was refused.
        if _wants_json():
            return jsonify({"error": UNKNOWN_HOST}), 400
        return Response(i18n.say(UNKNOWN_HOST), status=400, mimetype="text/plain")

    @app.after_request
    def security_headers(response):
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        # JSON and fragments show what this phone's cookie may see: never kept by a cache.
        if request.path.startswith("/api/") or request.headers.get("HX-Request"):
            response.headers.setdefault("Cache-Control", "no-store")
        # Styles and scripts are never documents: the page policy would be bytes for nothing.
        if response.mimetype in SUBRESOURCE_TYPES:
            return response
        response.headers.setdefault("Content-Security-Policy", CSP)
        response.headers.setdefault("Referrer-Policy", "same-origin")
        response.headers.setdefault("X-Frame-Options", "DENY")
        return response

    @app.errorhandler(tables.TableError)
    def table_error(exc):
        if _wants_json():
            return jsonify(exc.for_api()), exc.status
        return _message(exc.status, exc.message)

    @app.errorhandler(store.Unavailable)
    def database_unavailable(exc):
        app.logger.warning("Database unavailable: %s", exc)
        response = _message(503, FRIENDLY[503])
        response = app.make_response(response)
        response.headers["Retry-After"] = "2"
        return response

    @app.errorhandler(HTTPException)
    def http_error(exc):
        if getattr(exc, "limit", None) is not None and exc.limit.error_message:
            return _message(429, exc.description)  # each rate limit says what it limits
        return _message(exc.code or 400, FRIENDLY.get(exc.code, exc.description or t("Error.")))

    @app.errorhandler(Exception)
    def unexpected(exc):
        app.logger.exception("Unexpected error")
        return _message(500, t("Something went wrong on the server; nothing was changed."))
