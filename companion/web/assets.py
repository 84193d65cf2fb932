"""htmx and its SSE extension, served from the installed npm packages: no CDN."""

from __future__ import annotations

import hashlib
import os
from functools import lru_cache

from flask import Blueprint, abort, current_app, send_file, url_for

bp = Blueprint("assets", __name__)

VENDOR_FILES = {
    "htmx.min.js": ("htmx.org", "dist/htmx.min.js"),
    "sse.min.js": ("htmx-ext-sse", "dist/sse.min.js"),
}


def _vendor_path(name: str) -> str:
    package, relative = VENDOR_FILES[name]
    return os.path.join(current_app.config["VENDOR_DIR"], package, relative)


@lru_cache(maxsize=64)
def _fingerprint(path: str, mtime: float) -> str:
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()[:12]


def asset_url(kind: str, name: str) -> str:
    """A URL that changes whenever the file does, so it can be cached for a year."""
    if kind == "vendor":
        path = _vendor_path(name)
    else:
        path = os.path.join(current_app.static_folder, name)
    try:
        stamp = _fingerprint(path, os.path.getmtime(path))
    except OSError:
        stamp = "missing"
    if kind == "vendor":
        return url_for("assets.vendor", name=name, v=stamp)
    return url_for("static", filename=name, v=stamp)


@bp.get("/vendor/<name>")
def vendor(name):
    if name not in VENDOR_FILES:
        abort(404)
    path = _vendor_path(name)
    if not os.path.exists(path):
        abort(404)
    response = send_file(path, mimetype="text/javascript", max_age=365 * 24 * 3600)
    return response


@bp.app_context_processor
def inject_asset_url():
    return {"asset_url": asset_url}
