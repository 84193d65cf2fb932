"""Static assets as a phone gets them: the app's own scripts and stylesheets minified,
every compressed body the identity body once inflated, and a fingerprint that follows
the content."""

import gzip
import os
import re
from pathlib import Path

import subprocess

import brotli
import pytest
import rjsmin

from companion.web.assets import BUNDLES, VENDOR_FILES, asset_url

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
    if name.endswith(".js"):
        return  # terser renames local names: the scripts are checked below and run in the browser tests
    # What is left is the stylesheet without its comments and spacing: every word is kept.
    words = re.compile(rb"[A-Za-z_-][\w-]*|\d+")
    bare = re.sub(rb"/\*.*?\*/", b"", source, flags=re.S)
    assert words.findall(body) == words.findall(bare), name


@pytest.mark.parametrize("name", [name for name in OWN if name.endswith(".js")])
def test_own_scripts_are_shortened_by_terser_and_still_parse(client, name, tmp_path):
    """Smaller than comment-and-space stripping alone (the local names are shortened), every
    string the page matches on kept, and the result a script Node.js parses."""
    source = (STATIC / name).read_bytes()
    body = served(client, f"/static/{name}").get_data()
    assert len(body) < 0.9 * len(rjsmin.jsmin(source)), name
    for literal in set(re.findall(rb'"(data-[\w-]+|htmx:[\w]+|forest-[\w-]+)"', source)):
        assert literal in body, (name, literal)
    copy = tmp_path / name
    copy.write_bytes(body)
    subprocess.run(["node", "--check", str(copy)], check=True, capture_output=True)


def test_key_identifiers_survive_minifying(client):
    script = served(client, "/static/app.js").get_data()
    for word in (b"forest-theme", b"htmx:sseOpen", b"resync", b"tap-guard", b"data-theme-toggle"):
        assert word in script, word
    style = served(client, "/static/app.css").get_data()
    for word in (b"--accent", b".bottom-bar",
                 b"calc(.35rem + env(safe-area-inset-bottom))", b"@media (prefers-reduced-motion:"):
        assert word in style, word
    # The players' boards of The Wicked Forest and Woodland Wizards: attribute selectors kept whole.
    for sheet in ("wicked-forest.css", "woodland-wizards.css"):
        assert b".view[data-me=\"3\"] .player[data-seat=\"3\"]" in served(client, f"/static/{sheet}").get_data()


def test_vendor_files_are_served_as_published(app, client):
    for name, (package, relative) in VENDOR_FILES.items():
        published = (Path(app.config["VENDOR_DIR"]) / package / relative).read_bytes()
        assert served(client, f"/vendor/{name}").get_data() == published, name


def test_every_compressed_body_is_the_identity_body(app, client):
    urls = [f"/static/{p.name}" for p in sorted(STATIC.iterdir()) if p.is_file()]
    urls += [f"/vendor/{name}" for name in VENDOR_FILES] + [f"/bundle/{name}" for name in BUNDLES]
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
    assert packed >= len(OWN) + len(VENDOR_FILES) + len(BUNDLES)


def test_a_page_loads_one_script_htmx_its_extensions_and_app_js_in_order(app, client):
    page = served(client, "/").get_data(as_text=True)
    scripts = re.findall(r'<script src="([^"]+)"', page)
    assert len(scripts) == 1 and scripts[0].startswith("/bundle/forest.js?v=")
    parts = [served(client, f"/vendor/{name}" if kind == "vendor" else f"/static/{name}").get_data()
             for kind, name in BUNDLES["forest.js"]]
    assert [name for _kind, name in BUNDLES["forest.js"]] == [
        "htmx.min.js", "sse.min.js", "idiomorph-ext.min.js", "app.js"]
    bundle = served(client, scripts[0])
    assert bundle.get_data() == b";\n".join(parts)
    assert bundle.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert client.get("/bundle/other.js").status_code == 404


def test_small_files_are_compressed_when_that_makes_them_smaller(app, client, tmp_path):
    for url in ("/static/icon.svg", "/static/manifest.webmanifest"):  # fetched with every first load
        plain = served(client, url).get_data()
        packed = served(client, url, "gzip")
        assert packed.headers["Content-Encoding"] == "gzip", url
        assert len(packed.get_data()) < len(plain) and gzip.decompress(packed.get_data()) == plain
    app.static_folder = str(tmp_path)
    (tmp_path / "tiny.css").write_text("p{margin:0}")
    for coding in ("gzip", "gzip, deflate, br"):
        resp = served(client, "/static/tiny.css", coding)  # compressed, it would only grow
        assert "Content-Encoding" not in resp.headers and resp.get_data() == b"p{margin:0}"


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


def test_a_served_app_makes_each_asset_url_once_per_script_root(app, monkeypatch):
    """Served (not testing), files do not change under a running process: a view renders its
    stylesheet's URL without looking at the file again; a proxy's prefix gets its own URL."""
    from companion.web import assets
    app.testing = False
    with app.test_request_context():
        first = asset_url("static", "app.css")
        made = []
        monkeypatch.setattr(assets, "_asset_url", lambda kind, name: (made.append(name) or "/elsewhere", True))
        assert asset_url("static", "app.css") == first and made == []
    with app.test_request_context(environ_overrides={"SCRIPT_NAME": "/club"}):
        assert asset_url("static", "app.css") == "/elsewhere" and made == ["app.css"]
    app.testing = True
    with app.test_request_context():
        assert asset_url("static", "app.css") == "/elsewhere" and made == ["app.css", "app.css"]


def test_a_served_app_looks_again_for_an_asset_that_was_missing(app, tmp_path):
    app.testing = False
    app.static_folder = str(tmp_path)
    with app.test_request_context():
        assert asset_url("static", "late.css").endswith("v=missing")
        (tmp_path / "late.css").write_text("p{margin:0}")
        found = asset_url("static", "late.css")
        assert not found.endswith("v=missing") and asset_url("static", "late.css") == found


# -- which pages load which stylesheets ------------------------------------------------------------
# app.css is every page's; pages.css only the pages around a table (a table page goes without,
# as its first load is the heaviest); history.css the history pages'. A class styled in one of
# these must be styled in a stylesheet each page that uses it loads.

SHARED_SHEETS = ("app.css", "pages.css", "history.css")
GAMES = [("wicked-forest", 5, {"first_leader": "0"}),
         ("woodland-wizards", 5, {"first_player": "0"}),
         ("explorers-of-the-woodlands", 4,
          {"first_player": "0", "heroes": ["xylia", "klethor", "shavi", "bethras"], "thorns": "regular"}),
         ("mysterious-forest", 5, {"first_player": "0"})]
GAME_SHEETS = {"wicked-forest": "wicked-forest.css", "woodland-wizards": "woodland-wizards.css",
               "explorers-of-the-woodlands": "explorers.css", "mysterious-forest": "mysterious-forest.css"}


def styled_classes(css: str) -> set:
    """The class names a stylesheet's selectors name."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    css = re.sub(r"\{[^{}]*\}", "", css)  # the declarations, leaving selectors and at-rules
    return set(re.findall(r"\.([A-Za-z_-][\w-]*)", css))


SHEET_CLASSES = {p.name: styled_classes(p.read_text()) for p in STATIC.glob("*.css")}


def test_styled_classes_reads_selectors_only():
    assert styled_classes("/* .no */ .a, p.b:has(.c) > .d { margin: .5rem; }\n"
                          "@media (x) { .e { width: 1.5px } }") == {"a", "b", "c", "d", "e"}
    assert {"bottom-bar", "view", "qr"} <= SHEET_CLASSES["app.css"] | SHEET_CLASSES["pages.css"]


def page_styles(client, url, headers=None):
    """(stylesheet names the page links, classes it uses); every link must answer 200."""
    resp = client.get(url, headers=headers or {})
    assert resp.status_code == 200, url
    html = resp.get_data(as_text=True)
    hrefs = re.findall(r'<link\b[^>]*\brel="stylesheet"[^>]*\bhref="([^"]+)"', html)
    for href in hrefs:
        sheet = client.get(href.replace("&amp;", "&"))
        assert sheet.status_code == 200 and sheet.mimetype == "text/css", href
    names = [re.match(r"/static/([^?]+)", href).group(1) for href in hrefs]
    used = {word for value in re.findall(r'\bclass="([^"]*)"', html) for word in value.split()}
    return names, used


def assert_styles_loaded(url, names, used):
    loaded = set().union(*(SHEET_CLASSES[name] for name in names))
    shared = set().union(*(SHEET_CLASSES[name] for name in SHARED_SHEETS))
    unstyled = {cls: [s for s in SHARED_SHEETS if cls in SHEET_CLASSES[s]] for cls in (used & shared) - loaded}
    assert not unstyled, f"{url} uses classes styled in a stylesheet it does not load: {unstyled}"


def make_table(client, game, players, options):
    resp = client.post("/api/tables", json={"game": game, "players": ["Ana", "Ben", "Cara", "Dan", "Eve"][:players],
                                            "options": options})
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()["code"]


@pytest.mark.parametrize("game,players,options", GAMES, ids=[g[0] for g in GAMES])
def test_a_table_page_loads_its_stylesheets_and_not_the_other_pages(client, game, players, options):
    code = make_table(client, game, players, options)
    assert client.post(f"/api/tables/{code}/seats/0").status_code == 201
    names, used = page_styles(client, f"/t/{code}")
    assert names == ["app.css", GAME_SHEETS[game]]
    assert {"view", "bottom-bar"} <= used
    assert_styles_loaded(f"/t/{code}", names, used)
    # A refresh swaps in the view alone: its classes are styled by what the page loaded.
    _, fragment = page_styles(client, f"/t/{code}/view", {"HX-Request": "true"})
    assert_styles_loaded(f"/t/{code}/view", names, fragment)


def test_the_pages_around_a_table_load_pages_css(client):
    from .history_fixture import stats_export

    urls = ["/", "/history", "/history/stats", "/history/transfer", "/campaigns"]
    for game, players, options in GAMES:
        code = make_table(client, game, players, options)
        urls += [f"/new/{game}", f"/join/{code}", f"/t/{code}/share", f"/t/{code}/log"]
    made = client.post("/api/campaigns", json={"name": "Winter", "players": ["Ana", "Ben"],
                                               "heroes": ["xylia", "klethor"], "first_player": 0,
                                               "thorns": "regular"})
    assert made.status_code == 201, made.get_json()
    urls.append(f"/campaigns/{made.get_json()['id']}")
    assert client.post("/api/history/import", json=stats_export()).status_code == 200
    games = client.get("/api/history").get_json()["games"]
    urls += [f"/history/{g['id']}" for g in games]
    seen = set()
    for url in urls:
        names, used = page_styles(client, url)
        assert names[:2] == ["app.css", "pages.css"], url
        assert_styles_loaded(url, names, used)
        seen |= used
    # What pages.css styles is used on these pages: the split-off rules are not dead.
    assert {"code-input", "join-form", "code-big", "qr", "seats", "seatno", "segmented", "mf-levels",
            "won", "lost"} <= seen


TABLE_TEMPLATES = [p for d in ["table", *GAME_SHEETS] for p in sorted((ROOT / "templates" / d).glob("*.html"))
                   if p.name not in ("_options.html", "_record.html")]  # those two are the new-table page's


def selectors(css: str) -> list:
    """Each selector of a stylesheet, at-rules left out."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    css = re.sub(r"\{[^{}]*\}", ";", css)
    css = re.sub(r"@[^{;]*\{", ";", css)  # @media (...) {
    return [part.strip() for chunk in css.split(";") for part in chunk.replace("}", "").split(",") if part.strip()]


def test_selectors_splits_rules():
    assert selectors(".a, p.b > .c { x: 1 }\n@media (y) { .d small { z: 2 } }") == [".a", "p.b > .c", ".d small"]


def test_no_rule_a_table_page_needs_is_only_in_the_other_pages_stylesheets():
    """Whatever state a table is in: no selector of pages.css or history.css could match a
    table page, judged by every class its templates, forms.py and app.js name."""
    sources = [p.read_text() for p in TABLE_TEMPLATES + [ROOT / "templates" / "base.html",
                                                         ROOT / "companion" / "web" / "forms.py"]]
    assert len(TABLE_TEMPLATES) > 20
    named = set()
    for text in sources:
        for value in re.findall(r'\b(?:class|cls)="([^"]*)"', text):
            named |= set(re.findall(r"[A-Za-z_-][\w-]*", re.sub(r"\{[{%#].*?[}%#]\}", " ", value)))
    script = (STATIC / "app.js").read_text()
    named |= set(re.findall(r'classList\.\w+\("([\w-]+)"', script))
    named |= {w for value in re.findall(r'className = "([^"]*)"', script) for w in value.split()}
    named |= {"error", "info"}  # the kinds of notice pages.py and app.js put in class="notice {{ kind }}"
    assert {"bottom-bar", "btn", "small", "toast", "tap-guard", "notice"} <= named
    could_match = []
    for sheet in ("pages.css", "history.css"):
        for selector in selectors((STATIC / sheet).read_text()):
            classes = set(re.findall(r"\.([A-Za-z_-][\w-]*)", selector))
            if classes and classes <= named:  # (history.css's own colours are set on :root)
                could_match.append((sheet, selector))
    assert not could_match
