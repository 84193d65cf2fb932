"""Static assets as a phone gets them: the app's own scripts and stylesheets minified,
every compressed body the identity body once inflated, and a fingerprint that follows
the content."""

import gzip
import os
import re
from pathlib import Path

import brotli
import pytest

from companion.web.assets import VENDOR_FILES, asset_url

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "static"
OWN = sorted(p.name for p in STATIC.iterdir() if p.suffix in (".js", ".css"))


def served(client, url, coding="identity"):
    resp = client.get(url, headers={"Accept-Encoding": coding})
    assert resp.status_code == 200, url
    return resp


def test_every_own_script_and_stylesheet_is_served(client):
    assert "app.js" in OWN and "app.css" in OWN  # the listing found the files


@pytest.mark.parametrize("name", OWN)
def test_own_scripts_and_stylesheets_are_served_minified(client, name):
    source = (STATIC / name).read_bytes()
    body = served(client, f"/static/{name}").get_data()
    assert len(body) < 0.9 * len(source), name
    assert b"/*" not in body and b"\n\n" not in body, name  # no comments, no blank lines
    # What is left is the source without its comments and spacing: every word is kept.
    words = re.compile(rb"[A-Za-z_$][\w$]*|\d+" if name.endswith(".js") else rb"[A-Za-z_-][\w-]*|\d+")
    bare = re.sub(rb"/\*.*?\*/", b"", source, flags=re.S)
    if name.endswith(".js"):
        bare = re.sub(rb"(?m)(^|\s)//.*$", b"", bare)
    assert words.findall(body) == words.findall(bare), name


def test_key_identifiers_survive_minifying(client):
    script = served(client, "/static/app.js").get_data()
    for word in (b"forest-theme", b"htmx:sseOpen", b"resync", b"tap-guard", b"data-theme-toggle"):
        assert word in script, word
    style = served(client, "/static/app.css").get_data()
    for word in (b"--accent", b".bottom-bar", b".view[data-me=\"3\"] .player[data-seat=\"3\"]",
                 b"calc(.35rem + env(safe-area-inset-bottom))", b"@media (prefers-reduced-motion:"):
        assert word in style, word


def test_vendor_files_are_served_as_published(app, client):
    for name, (package, relative) in VENDOR_FILES.items():
        published = (Path(app.config["VENDOR_DIR"]) / package / relative).read_bytes()
        assert served(client, f"/vendor/{name}").get_data() == published, name


def test_every_compressed_body_is_the_identity_body(app, client):
    urls = [f"/static/{p.name}" for p in sorted(STATIC.iterdir()) if p.is_file()]
    urls += [f"/vendor/{name}" for name in VENDOR_FILES]
    packed = 0
    for url in urls:
        plain = served(client, url).get_data()
        resp = served(client, url, "gzip")
        if resp.headers.get("Content-Encoding") == "gzip":
            packed += 1
            assert gzip.decompress(resp.get_data()) == plain, url
            assert len(resp.get_data()) < len(plain), url
        resp = served(client, url, "gzip, deflate, br")
        if resp.headers.get("Content-Encoding") == "br":
            assert brotli.decompress(resp.get_data()) == plain, url
    assert packed >= len(OWN) + len(VENDOR_FILES)


def test_the_fingerprint_follows_the_content(app, client, tmp_path):
    app.static_folder = str(tmp_path)
    style = tmp_path / "look.css"
    style.write_text(".a { color: red; }\n")
    with app.test_request_context():
        first = asset_url("static", "look.css")
    assert served(client, first).get_data() == b".a{color:red}"
    style.write_text(".a { color: blue; }\n")
    os.utime(style, (1_000_000, 1_000_000))  # a new modification time, however fast the test runs
    with app.test_request_context():
        second = asset_url("static", "look.css")
    assert second != first
    assert served(client, second).get_data() == b".a{color:blue}"
    assert "immutable" in served(client, second).headers["Cache-Control"]
    assert served(client, first).headers["Cache-Control"] == "no-cache"  # the old URL is not kept for a year
