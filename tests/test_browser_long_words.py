"""Longer languages at 390 px: no word is broken across two lines where its box could hold it
whole, and nothing is wider than the phone. German's compounds ("Nachziehstapel",
"Tischbildschirm") and French's longer words met boxes that shrank below one word ("Spie /
ler", "Paus / e") while the line beside them had room to wrap between words. A word longer
than its whole box may still break: at the soft hyphens its catalog gives it ("Nachzieh-
stapel"), or where the phone's browser knows the language. Each game's table, every panel
open, then the More sheet alone; and the pages around the tables."""

from __future__ import annotations

import pytest

from companion.web import i18n

from .board_checks import AVOIDABLE_BREAKS, WHOLE
from .browser import PHONE, PHONE_WIDTH, browser, live_server  # noqa: F401  (fixtures)
from .test_screen_web import OPTIONS

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect

PLAYERS = ["Ana", "Bartholomew", "Cara", "Dan"]
# A table for each game in each language, all from one address.
SERVER_SETTINGS = {"TABLE_CREATION_LIMIT": "1000 per hour"}


def check(page, where):
    broken = page.evaluate(AVOIDABLE_BREAKS, WHOLE)
    assert broken == [], f"{where}: words broken that their box could hold whole: {broken}"
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE_WIDTH, f"{where}: the page is {width} px wide"


@pytest.mark.parametrize("language", ["de", "fr", "es", "en"])
def test_no_word_is_broken_where_its_box_could_hold_it(browser, live_server, language):
    context = browser.new_context(**PHONE)
    try:
        context.add_cookies([{"name": i18n.COOKIE, "value": language, "url": live_server}])
        page = context.new_page()
        for game, options in OPTIONS.items():
            made = page.request.post(f"{live_server}/api/tables", headers={"Origin": live_server},
                                     data={"game": game, "players": PLAYERS, "options": options})
            assert made.status == 201, made.text()
            code = made.json()["code"]
            assert page.request.post(f"{live_server}/api/tables/{code}/seats/0",
                                     headers={"Origin": live_server}).status == 201
            page.goto(f"{live_server}/t/{code}")
            expect(page.locator("#view .view")).to_have_attribute("data-version", "0")
            page.evaluate("() => document.querySelectorAll('#view details:not(.more)').forEach(d => { d.open = true; })")
            check(page, f"{language}, {game}, every panel open")
            page.evaluate("""() => { document.querySelectorAll('#view details').forEach(d => { d.open = false; });
                                     document.querySelector('#more').open = true; }""")
            check(page, f"{language}, {game}, the More sheet open")
    finally:
        context.close()


@pytest.mark.parametrize("language", ["de", "fr", "es"])
def test_the_pages_around_the_tables_break_no_word_their_boxes_could_hold(browser, live_server, language):
    context = browser.new_context(**PHONE)
    try:
        context.add_cookies([{"name": i18n.COOKIE, "value": language, "url": live_server}])
        page = context.new_page()
        made = page.request.post(f"{live_server}/api/tables", headers={"Origin": live_server},
                                 data={"game": "wicked-forest", "players": PLAYERS, "options": OPTIONS["wicked-forest"]})
        code = made.json()["code"]
        pages = ["/", "/join", f"/join/{code}", f"/t/{code}/share", "/history", "/history/stats",
                 "/history/transfer", "/campaigns", *(f"/new/{game}" for game in OPTIONS)]
        for path in pages:
            page.goto(live_server + path)
            expect(page.locator("main")).to_be_visible()
            page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
            check(page, f"{language}, {path}")
    finally:
        context.close()
