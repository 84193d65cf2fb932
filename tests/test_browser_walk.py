"""Each game played to its end by taps on three or four phones at 390x844, every phase of it:
after every live update the phone whose step it is has it in its first screen, focus is on no
control the player did not touch, no request failed and nothing was logged as an error; each
phase's screen passes axe-core in both themes (tests/walk.py)."""

import re

import pytest

from .browser import browser, live_server, phones, shot  # noqa: F401  (fixtures)
from .test_browser_table import create_wicked_forest, join
from .walk import Walk, axe

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect


def card(page):
    return page.locator("[data-primary]")


def after_game_pages(walk, page, code):
    """The finished game's history entry, the stats and the More sheet's clock: axe-clean."""
    page.goto(f"{walk.base}/history/table/{code}")
    expect(page.locator("main")).to_be_visible()
    axe(page, f"{walk.prefix}: the game in the history")
    page.goto(f"{walk.base}/history/stats")
    axe(page, f"{walk.prefix}: the stats")


def test_the_wicked_forest_walked_to_its_final_tally(live_server, phones):
    ana, ben, cara = everyone = phones(3)
    code = create_wicked_forest(ana, live_server, ["Ana", "Ben", "Cara"], leader="0")
    ana.get_by_role("button", name="I am Ana").click()
    join(ben, live_server, code, "Ben")
    join(cara, live_server, code, "Cara")
    walk = Walk(live_server, everyone, ["Ana", "Ben", "Cara"], "walk-wf")
    walk.arrived()

    # Round 1: a card, the secret choices, a returner's Crystallization on her main card.
    walk.tap(ana, "3 Flowers, no Witch")
    walk.tap(ana, re.compile("Stay"))
    walk.tap(ben, re.compile("Stay"))
    walk.tap(cara, re.compile("Return"))
    expect(card(cara).locator("h2")).to_have_text("Cara, what did you crystallize?")
    shot(cara, "walk-wf-01-crystallization-on-the-main-card")
    cara.get_by_role("spinbutton", name="Magic on it").fill("3")
    walk.tap(cara, "Magic Crystal Card")
    walk.tap(cara, "Cara is done crystallizing")
    walk.tap(ben, "Witch and 0 Flowers")
    walk.tap(ana, re.compile("Return"))
    walk.tap(ben, re.compile("Stay"))
    walk.tap(ana, "Ana is done crystallizing")
    walk.tap(ben, "Witch and 1 Flower")  # the second Witch: Ben is out, the round's End Phase
    expect(card(ana).locator("h2")).to_have_text("Exploration is over: Crystallization")

    # The draw pile has run out twice (corrected in its panel): round 2 is the final round.
    ana.locator("#wf-piles > summary").click()
    for _ in range(2):
        walk.tap(ana, "Run-outs plus one")
    walk.tap(cara, "Start round 2")
    for page in everyone:
        expect(page.locator(".wf-final")).to_contain_text("Final round")
    walk.tap(ana, "Ana: done preparing")
    walk.tap(cara, "Cara: done preparing")
    walk.tap(ben, "Start Exploration now")
    walk.tap(ana, "2 Flowers, no Witch")
    for page in everyone:
        walk.tap(page, re.compile("Return"))

    # The final tally: the returners crystallize, then the players confirm it.
    expect(card(ben).locator("h2")).to_contain_text("what did you crystallize?")
    for page, name in ((ana, "Ana"), (ben, "Ben"), (cara, "Cara")):
        walk.tap(page, f"{name} is done crystallizing")
    expect(card(ben).locator("h2")).to_have_text("Final tally: check, then confirm")
    walk.tap(ben, "Confirm the final tally")
    for page in everyone:
        expect(card(page).locator("h2")).to_contain_text("Cara wins")
        walk.in_first_screen(page, card(page).get_by_role("button", name=re.compile("^Rematch")))
    shot(ana, "walk-wf-02-finished-with-rematch")
    walk.finish()

    # Rematch: Ana's tap makes the table; Ben's phone offers his seat there in its first screen.
    ana.get_by_role("button", name=re.compile("^Rematch")).click()
    expect(ana).to_have_url(re.compile(r"/t/(?!" + code + r")[A-Z0-9]+$"))
    expect(ben.get_by_role("button", name=re.compile("Join the rematch as Ben"))).to_be_visible()
    walk.check(ben)
    after_game_pages(walk, cara, code)
