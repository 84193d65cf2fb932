"""Static files and htmx (from the installed npm packages: no CDN), compressed once.

Every asset is read, minified (the app's own scripts and stylesheets: the files in static/
stay readable source) and compressed (brotli, and gzip with zopfli) once per process and
served from memory. Its URL carries a fingerprint of its content, so a fingerprinted
request may be cached for a year; a phone loads htmx once, not at every table.
"""

from __future__ import annotations

import hashlib
import mimetypes
import logging
import os
import shutil
import subprocess
from dataclasses import dataclass
from functools import lru_cache

import brotli
import rcssmin
import rjsmin
import zopfli.gzip
from flask import Blueprint, Response, abort, current_app, request
from werkzeug.security import safe_join

from . import templating

bp = Blueprint("assets", __name__)

VENDOR_FILES = {
    "htmx.min.js": ("htmx.org", "dist/htmx.min.js"),
    "sse.min.js": ("htmx-ext-sse", "dist/sse.min.js"),
    # idiomorph with its htmx extension ("morph"): refreshes morph the view in place.
    "idiomorph-ext.min.js": ("idiomorph", "dist/idiomorph-ext.min.js"),
}
# One script for every page: htmx, its two extensions and app.js, in the order they ran as
# four. Compressed together they are some 1.2 KB lighter gzipped (24.5 KB instead of 25.7),
# and a phone opening its first table makes one request for them instead of four.
BUNDLES = {
    "forest.js": (("vendor", "htmx.min.js"), ("vendor", "sse.min.js"), ("vendor", "idiomorph-ext.min.js"),
                  ("static", "app.js")),
}
YEAR = 365 * 24 * 3600
COMPRESSIBLE = ("text/", "application/javascript", "application/json", "application/manifest+json",
                "image/svg+xml")
# The app's own scripts and stylesheets lose their comments and spacing when loaded: a
# phone's first table page is some 3.7 KB lighter gzipped (app.js alone 6.7 KB -> 4.2 KB).
# Files named *.min.* (htmx and its extensions) come minified already.
MINIFIERS = {".js": rjsmin.jsmin, ".css": rcssmin.cssmin}
# The scripts go through terser (npm, installed with htmx) when Node.js is there: it also
# shortens local names, and app.js is some 1.6 KB lighter brotli'd than with rjsmin alone,
# which keeps a phone's first table page under 36 KB. Without Node.js, rjsmin serves.
TERSER = ("terser", "bin/terser")
log = logging.getLogger(__name__)
TYPES = {".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml",
         ".webmanifest": "application/manifest+json"}


@dataclass(frozen=True)
class Asset:
    stamp: str
    mimetype: str
    bodies: dict  # content coding ("identity", "gzip", "br") -> bytes


def _vendor_path(name: str) -> str:
    package, relative = VENDOR_FILES[name]
    return os.path.join(current_app.config["VENDOR_DIR"], package, relative)


def _minified(path: str) -> bytes:
    with open(path, "rb") as handle:
        raw = handle.read()
    extension = os.path.splitext(path)[1]
    if extension in MINIFIERS and ".min." not in os.path.basename(path):
        raw = (extension == ".js" and _tersed(path)) or MINIFIERS[extension](raw)
    return raw


def _tersed(path: str) -> bytes | None:
    """The script compressed and its local names shortened by terser, or None without it."""
    node = shutil.which("node")
    terser = os.path.join(current_app.config["VENDOR_DIR"], *TERSER)
    if node is None or not os.path.exists(terser):
        log.warning("terser not found (node %s, %s): %s minified by rjsmin", node, terser, path)
        return None
    try:
        done = subprocess.run([node, terser, path, "--compress", "--mangle"], capture_output=True,
                              check=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as failure:
        log.warning("terser failed on %s (%s): minified by rjsmin", path, failure)
        return None
    return done.stdout.rstrip(b"\n")


def _mimetype(path: str) -> str:
    return TYPES.get(os.path.splitext(path)[1]) or mimetypes.guess_type(path)[0] or "application/octet-stream"


@lru_cache(maxsize=64)
def _load(path: str, mtime: float) -> Asset:
    return _compressed(_minified(path), _mimetype(path))


@lru_cache(maxsize=8)
def _load_bundle(files: tuple) -> Asset:
    """Scripts one after the other, as one body: each ends its last statement (";")."""
    return _compressed(b";\n".join(_minified(path) for path, _mtime in files), _mimetype(files[0][0]))


def _compressed(raw: bytes, mimetype: str) -> Asset:
    bodies = {"identity": raw}
    if mimetype.startswith(COMPRESSIBLE):
        bodies["br"] = brotli.compress(raw, quality=11)
        # Zopfli writes a gzip member some 2-3 % smaller than gzip -9 (htmx 16.9 KB -> 16.4 KB)
        # for a plain-http phone, which gets no brotli; all the assets take it some 0.35 s
        # once per process.
        bodies["gzip"] = zopfli.gzip.compress(raw)
        # Even the icon (234 bytes -> 179) and the manifest (238 -> 166) shrink; a body that
        # would not is sent as it is.
        bodies = {coding: body for coding, body in bodies.items() if len(body) < len(raw) or coding == "identity"}
    # The fingerprint is of the body served, so it changes whenever what a phone gets does.
    return Asset(hashlib.sha256(raw).hexdigest()[:12], mimetype, bodies)


def _asset(path: str) -> Asset | None:
    try:
        return _load(path, os.path.getmtime(path))
    except OSError:
        return None


def _bundle_files(name: str) -> list[str]:
    return [_vendor_path(part) if kind == "vendor" else os.path.join(current_app.static_folder, part)
            for kind, part in BUNDLES[name]]


def _bundle(name: str) -> Asset | None:
    try:
        return _load_bundle(tuple((path, os.path.getmtime(path)) for path in _bundle_files(name)))
    except OSError:
        return None


def load_all(app) -> int:
    """Read, minify and compress every asset now (some half a second with zopfli), so that
    no phone's first page waits for it; return how many."""
    with app.app_context():  # the scripts' minifier is found through the app's config
        paths = [_vendor_path(name) for name in VENDOR_FILES]
        bundles = sum(_bundle(name) is not None for name in BUNDLES)
        folder = app.static_folder
        paths += [os.path.join(folder, name) for name in sorted(os.listdir(folder))
                  if os.path.isfile(os.path.join(folder, name))]
        return bundles + sum(_asset(path) is not None for path in paths)


def asset_url(kind: str, name: str) -> str:
    """A URL that changes whenever the file does, so it can be cached for a year.

    Served (neither debugging nor testing), the files do not change under a running
    process: each URL is made once (a table view asks for its game's stylesheet at every
    render, and looking at the file's time each time was 1 % of a move)."""
    app = current_app._get_current_object()
    if app.debug or app.testing:
        return _asset_url(kind, name)[0]
    made = app.extensions.setdefault("forest_asset_urls", {})
    key = (kind, name, request.script_root if request else "")
    url = made.get(key)
    if url is None:
        url, found = _asset_url(kind, name)
        if found:  # a file missing for now (a deploy under way) is looked for again
            made[key] = url
    return url


def _asset_url(kind: str, name: str) -> tuple[str, bool]:
    """(the URL, whether the file was there to fingerprint)."""
    if kind == "bundle":
        asset, endpoint, names = _bundle(name), "assets.bundle", {"name": name}
    elif kind == "vendor":
        asset, endpoint, names = _asset(_vendor_path(name)), "assets.vendor", {"name": name}
    else:
        asset = _asset(os.path.join(current_app.static_folder, name))
        endpoint, names = "static", {"filename": name}
    return templating.url_for(endpoint, **names, v=asset.stamp if asset else "missing"), asset is not None


def _coding(asset: Asset) -> str:
    accepted = request.accept_encodings
    for coding in ("br", "gzip"):
        if coding in asset.bodies and accepted.quality(coding) > 0:
            return coding
    return "identity"


def send_asset(asset: Asset | None) -> Response:
    if asset is None:
        abort(404)
    coding = _coding(asset)
    response = Response(asset.bodies[coding], mimetype=asset.mimetype)
    if coding != "identity":
        response.headers["Content-Encoding"] = coding
    response.headers["Vary"] = "Accept-Encoding"
    response.set_etag(f"{asset.stamp}-{coding}")
    if request.args.get("v") == asset.stamp:
        response.headers["Cache-Control"] = f"public, max-age={YEAR}, immutable"
    else:
        response.headers["Cache-Control"] = "no-cache"  # an old or missing fingerprint: ask each time
    return response.make_conditional(request)


@bp.get("/vendor/<name>")
def vendor(name):
    if name not in VENDOR_FILES:
        abort(404)
    return send_asset(_asset(_vendor_path(name)))


@bp.get("/bundle/<name>")
def bundle(name):
    if name not in BUNDLES:
        abort(404)
    return send_asset(_bundle(name))


def static_file(filename):
    path = safe_join(current_app.static_folder, filename)
    if path is None or not os.path.isfile(path):
        abort(404)
    return send_asset(_asset(path))


@bp.app_context_processor
def inject_asset_url():
    return {"asset_url": asset_url}


def init_app(app) -> None:
    app.register_blueprint(bp)
    # Flask's own static route streams the file from disk at each request; this one
    # serves it compressed from memory.
    app.view_functions["static"] = static_file
