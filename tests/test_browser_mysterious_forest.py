"""The Mysterious Forest on phones: a whole game on one phone, and on two phones at once."""

import re

import pytest

from .browser import browser, live_server, phones, shot  # noqa: F401  (fixtures)
from .test_browser_table import join

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect


def create(page, base, players, level="Standard", guess=False, backpack="10", countdown=None):
    page.goto(base + "/")
    page.get_by_role("link", name=re.compile("^The Mysterious Forest")).click()
    for i, name in enumerate(players):
        page.get_by_label(f"Player {i + 1}", exact=True).fill(name)
    page.locator("label.mf-level", has_text=level).click()
    page.get_by_label("First player").select_option("0")
    if guess:
        page.get_by_label(re.compile("Final Battle guess")).check()
    page.get_by_label("Spaces on your Backpack board").select_option(backpack)
    if countdown:
        page.locator("fieldset.chips label", has_text=f"{countdown} s").click()
    page.get_by_role("button", name="Create the table").click()
    return page.locator(".code-big").first.inner_text().strip()


def tap(page, name):
    page.get_by_role("button", name=re.compile(name)).first.click()


def test_a_whole_game_on_one_phone(live_server, phones):
    (phone,) = phones(1)
    phone.emulate_media(reduced_motion="reduce")  # the screenshots catch no half-drawn animation
    create(phone, live_server, ["Ana", "Ben", "Cara"], countdown=10)
    phone.get_by_role("button", name=re.compile("This phone plays every free seat")).click()
    expect(phone.locator(".mf-title")).to_have_text("🌲 Get the forest ready")
    phone.get_by_role("button", name=re.compile("Step 1:")).click()
    expect(phone.get_by_role("button", name=re.compile("Step 1:"))).to_have_attribute("aria-pressed", "true")
    shot(phone, "40-mf-setup-checklist")
    # A wrong level is corrected before anyone looks at the Path.
    phone.locator(".mf-change summary").click()
    phone.get_by_role("button", name="Heroes of the Forest").click()
    expect(phone.locator(".mf-level-line")).to_have_text("Heroes of the Forest")
    expect(phone.get_by_role("button", name=re.compile("Step 2:"))).to_contain_text("5 Forest cards")
    expect(phone.locator(".mf-change")).to_have_attribute("open", "")  # still open after the refresh
    shot(phone, "40b-mf-change-setup")
    phone.get_by_role("button", name="Standard", exact=True).click()
    expect(phone.locator(".mf-level-line")).to_have_text("Standard")
    tap(phone, "Start looking at the Path")

    # Phase 1: Ana, Ben, Cara, Ana, ... each look at one card, the countdown on each.
    for card, who in zip(range(1, 9), ["Ana", "Ben", "Cara"] * 3):
        expect(phone.locator(".mf-big")).to_contain_text(f"Card {card} of 8")
        expect(phone.locator(".mf-turn")).to_have_text(f"{who}, your turn!")
        expect(phone.locator(".countdown .cd-label")).to_have_text(f"Memorize card {card} of 8")
        if card == 3:
            shot(phone, "41-mf-scouting-card-3")
        tap(phone, "Done looking")

    # Phase 2: the countdown rests; Ana rolls first.
    expect(phone.locator(".mf-turn")).to_have_text("🎲 Ana, roll the 4 dice!")
    expect(phone.locator(".countdown")).to_have_count(0)
    expect(phone.locator(".mf-bag")).to_have_attribute("aria-label", "Backpack: 4 of 10 spaces filled")
    shot(phone, "42-mf-packing")
    tap(phone, "2 Loki")
    expect(phone.locator(".mf-turn")).to_have_text("🎲 Ben, roll the 4 dice!")
    tap(phone, "1 Loki \\+ 1 Equipment")
    expect(phone.locator(".mf-turn")).to_have_text("🎲 Cara, roll the 4 dice!")
    tap(phone, "2 Equipment")

    # Phase 3: walk the Path.
    expect(phone.locator(".mf-big")).to_contain_text("Jonas is on card 1 of 8")
    tap(phone, "Use a Loki token")
    expect(phone.locator(".mf-helpers")).to_contain_text("1 used")
    shot(phone, "43-mf-expedition")
    for card in range(1, 5):
        expect(phone.locator(".mf-big")).to_contain_text(f"card {card} of 8")
        tap(phone, "All covered")
    expect(phone.locator(".mf-big")).to_contain_text("The Wanderer!")
    shot(phone, "44-mf-wanderer")
    tap(phone, "Give two identical Equipment")
    tokens = phone.locator(".mf-helpers .stat").nth(1)
    expect(tokens).to_contain_text("💎 2")
    tap(phone, "Use a Wanderer token")
    expect(tokens).to_contain_text("💎 1")
    for card in (6, 7):
        expect(phone.locator(".mf-big")).to_contain_text(f"card {card} of 8")
        tap(phone, "All covered")
    expect(phone.locator(".mf-big")).to_contain_text("The Queen of the Draconia!")
    tap(phone, "We beat the Queen")
    expect(phone.locator(".mf-end h2")).to_have_text("You did it!")
    expect(phone.locator(".mf-end")).to_contain_text("Budding Explorers")
    shot(phone, "45-mf-won")

    # The start screen keeps the record and suggests the next level.
    phone.goto(live_server + "/")
    expect(phone.locator(".game-record summary")).to_contain_text("1 won of 1")
    phone.locator(".game-record summary").click()
    expect(phone.locator(".game-record")).to_contain_text("try Budding Explorers next")
    shot(phone, "46-mf-home-record")
    phone.get_by_role("link", name=re.compile("^The Mysterious Forest")).click()
    expect(phone.locator("label.mf-level", has_text="Budding Explorers").locator("input")).to_be_checked()
    shot(phone, "47-mf-new-table-record")


def test_two_phones_play_the_guess_variant_and_lose_gently(live_server, phones):
    ana, ben = phones(2)
    ben.emulate_media(reduced_motion="reduce")
    code = create(ana, live_server, ["Ana", "Ben"], level="Lead Adventurers", guess=True, backpack="12")
    ana.get_by_role("button", name="I am Ana").click()
    join(ben, live_server, code, "Ben")
    tap(ana, "Start looking at the Path")
    # Each phone sees whose turn it is; the two players alternate, whoever taps.
    for card in range(1, 11):
        who = "Ana" if card % 2 else "Ben"
        page = ana if who == "Ana" else ben
        expect(page.locator(".mf-big")).to_contain_text(f"Card {card} of 10")
        other = ben if page is ana else ana
        expect(page.locator(".mf-turn")).to_have_text(f"{who}, your turn!")
        expect(other.locator(".mf-turn")).to_have_text(f"{who}’s turn")
        if card == 2:
            shot(ben, "48-mf-ben-scouting")
        tap(page, "Done looking")
    expect(ben.locator(".mf-turn")).to_have_text("🎲 Ana rolls the 4 dice")
    tap(ana, "2 Equipment")
    expect(ben.locator(".mf-turn")).to_have_text("🎲 Ben, roll the 4 dice!")
    tap(ben, "2 Loki")
    expect(ana.locator(".mf-turn")).to_have_text("🎲 Ana, roll the 4 dice!")
    # A mistaken roll is fixed on the other phone.
    ben.locator(".mf-fix summary").click()
    ben.get_by_role("button", name="Roll 2: change to 1 Loki + 1 Equipment").click()
    expect(ana.locator(".mf-said")).to_contain_text("Roll 2 (Ben) changed to 1 Loki + 1 Equipment")
    tap(ana, "2 Equipment")
    expect(ben.locator(".mf-turn")).to_have_text("🎲 Ben, roll the 4 dice!")  # wait for the news
    tap(ben, "2 Equipment")
    expect(ana.locator(".mf-big")).to_contain_text("Jonas is on card 1 of 10")
    for card in range(1, 6):
        page = ana if card % 2 else ben
        expect(page.locator(".mf-big")).to_contain_text(f"card {card} of 10")
        tap(page, "All covered")
    expect(ben.locator(".mf-big")).to_contain_text("The Wanderer!")
    tap(ben, "No thanks, walk on")
    for card in range(7, 10):
        expect(ana.locator(".mf-big")).to_contain_text(f"card {card} of 10")
        tap(ana, "All covered")
    expect(ben.get_by_role("button", name=re.compile("Our guess is laid"))).to_be_visible()
    shot(ben, "49-mf-final-guess")
    tap(ben, "Our guess is laid")
    expect(ana.get_by_role("button", name=re.compile("Not quite"))).to_be_visible()
    tap(ana, "Not quite")
    for page in (ana, ben):
        expect(page.locator(".mf-end h2")).to_have_text("Not this time")
    shot(ben, "50-mf-lost")
    # Undo on one phone takes both back to the reveal.
    ben.get_by_role("button", name=re.compile("Undo")).click()
    expect(ana.get_by_role("button", name=re.compile("Exactly right"))).to_be_visible()
