"""What a phone downloads to open a table: the first table at most 36 KB as sent, a second
table on the same phone at most 8 KB.

Bytes are deterministic, so they are asserted here; how fast a phone shows them is measured
by hand (bench/phone.py). Sizes are bodies as sent (compressed), as a browser that accepts
brotli gets them (Chromium on HTTPS or on this machine's loopback); a phone on a plain-http
LAN gets gzip, some 10 % more (bench/README.md)."""

import gzip
import json
import re

import brotli
import pytest

from .test_assets import GAMES, make_table

# What Chromium sends on HTTPS and on localhost.
CHROMIUM = {"Accept-Encoding": "gzip, deflate, br, zstd"}
FIRST_TABLE = 36_000
SECOND_TABLE = 8_000
YEAR = 365 * 24 * 3600
LOADED = re.compile(r'<(link|script)\b([^>]*)>')


def loaded_assets(html: str) -> list[tuple[str, str]]:
    """(kind, URL) of what a page loads: stylesheets, scripts, icon and manifest."""
    found = []
    for tag, attributes in LOADED.findall(html):
        url = re.search(r'\b(?:href|src)="([^"]+)"', attributes)
        rel = re.search(r'\brel="([^"]+)"', attributes)
        if url and (tag == "script" or (rel and rel.group(1) in ("stylesheet", "icon", "manifest"))):
            found.append((tag if tag == "script" else rel.group(1), url.group(1).replace("&amp;", "&")))
    return found


def first_load(client, code, headers=CHROMIUM):
    """{URL: the response} for a table page and everything it loads, the manifest's icons too
    (a phone reads the manifest at every page)."""
    page = client.get(f"/t/{code}", headers=headers)
    assert page.status_code == 200
    loads = {f"/t/{code}": page}
    urls = [url for _kind, url in loaded_assets(plain(page))]
    while urls:
        url = urls.pop(0)
        if url in loads:
            continue
        loads[url] = client.get(url, headers=headers)
        assert loads[url].status_code == 200, url
        if url.split("?")[0].endswith(".webmanifest"):
            urls += [icon["src"] for icon in json.loads(plain(loads[url])).get("icons", [])]
    return loads


def plain(response) -> str:
    """The body as the phone reads it, inflated."""
    body = response.get_data()
    coding = response.headers.get("Content-Encoding")
    return (brotli.decompress(body) if coding == "br" else gzip.decompress(body) if coding == "gzip" else body).decode()


def sent(response) -> int:
    """Body bytes as sent (the compressed body when compressed)."""
    response.direct_passthrough = False
    return len(response.get_data())


def seated_table(client, game, players, options):
    code = make_table(client, game, players, options)
    assert client.post(f"/api/tables/{code}/seats/0").status_code == 201
    return code


@pytest.mark.parametrize("game,players,options", GAMES, ids=[g[0] for g in GAMES])
def test_the_first_table_on_a_phone_is_at_most_36_kb(client, game, players, options):
    loads = first_load(client, seated_table(client, game, players, options))
    sizes = {url: sent(resp) for url, resp in loads.items()}
    assert len(loads) >= 6, sizes  # the page, two stylesheets, the script, icon, manifest
    assert sum(sizes.values()) <= FIRST_TABLE, sizes
    # The script, most of it, goes as brotli to a phone that takes it.
    script = next(resp for url, resp in loads.items() if url.startswith("/bundle/"))
    assert script.headers["Content-Encoding"] == "br"


@pytest.mark.parametrize("game,players,options", GAMES, ids=[g[0] for g in GAMES])
def test_a_second_table_on_the_same_phone_is_at_most_8_kb(client, game, players, options):
    """Everything a first table loaded is either kept for a year (fingerprinted) or asked
    again with its tag, and then not sent: the second table costs its page."""
    first = first_load(client, seated_table(client, game, players, options))
    kept = {}
    for url, resp in first.items():
        if url.startswith("/t/"):
            continue
        if "immutable" in resp.headers.get("Cache-Control", ""):
            assert f"max-age={YEAR}" in resp.headers["Cache-Control"] and "?v=" in url, url
        else:
            kept[url] = resp.headers["ETag"]
    # The manifest is said in the page's language (pages.manifest), its language in its address.
    kept = {url.split("?")[0] if url.startswith("/manifest.webmanifest?lang=") else url: tag
            for url, tag in kept.items()}
    assert kept.keys() <= {"/manifest.webmanifest", "/static/icon.svg"}, kept

    code = seated_table(client, game, players, options)
    page = client.get(f"/t/{code}", headers=CHROMIUM)
    assert page.status_code == 200
    assets = loaded_assets(plain(page))
    # The second page loads nothing the first did not (the same fingerprints).
    assert {url for _kind, url in assets} <= set(first), assets
    asked_again = [client.get(url, headers={**CHROMIUM, "If-None-Match": tag}) for url, tag in kept.items()]
    assert all(resp.status_code == 304 for resp in asked_again)
    assert sent(page) + sum(sent(resp) for resp in asked_again) <= SECOND_TABLE
