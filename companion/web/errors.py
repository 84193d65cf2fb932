"""Every refusal is a clear message; no request ends in a bare error page or a 500."""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from .. import tables

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")

SUBRESOURCE_TYPES = ("text/css", "text/javascript", "application/javascript",
                     "application/manifest+json")

FRIENDLY = {
    400: "That request was not understood.",
    403: "That is not allowed from this phone.",
    404: "There is nothing here. Check the address or the table code.",
    405: "That page cannot be used that way.",
    413: "That request is too large.",
    429: "Too many wrong table codes from this phone. Wait a minute, then try again.",
}


def _wants_json() -> bool:
    return request.path.startswith("/api/")


def _message(status: int, message: str):
    if _wants_json():
        return jsonify({"error": message}), status
    return render_template("error.html", message=message, status=status), status


def init_app(app) -> None:
    @app.before_request
    def refuse_cross_site_posts():
        # Browsers send Origin on cross-site POSTs; a form posted from another site is refused.
        if request.method in ("POST", "PUT", "PATCH", "DELETE"):
            origin = request.headers.get("Origin")
            if origin and origin != "null" and urlsplit(origin).netloc != request.host:
                return _message(403, "Requests from other sites are refused.")
            if origin == "null":
                return _message(403, "Requests from other sites are refused.")
        return None

    @app.after_request
    def security_headers(response):
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        # Styles and scripts are never documents: the page policy would be bytes for nothing.
        if response.mimetype in SUBRESOURCE_TYPES:
            return response
        response.headers.setdefault("Content-Security-Policy", CSP)
        response.headers.setdefault("Referrer-Policy", "same-origin")
        response.headers.setdefault("X-Frame-Options", "DENY")
        return response

    @app.errorhandler(tables.TableError)
    def table_error(exc):
        return _message(exc.status, exc.message)

    @app.errorhandler(HTTPException)
    def http_error(exc):
        return _message(exc.code or 400, FRIENDLY.get(exc.code, exc.description or "Error."))

    @app.errorhandler(Exception)
    def unexpected(exc):
        app.logger.exception("Unexpected error")
        return _message(500, "Something went wrong on the server; nothing was changed.")
