"""The Mysterious Forest on phones: a whole game on one phone, and on two phones at once,
each screen checked at 390x844."""

import re

import pytest

from .board_checks import assert_clean_board, check_screen, open_panel
from .browser import Watch, browser, live_server, phones, shot  # noqa: F401  (fixtures)
from .test_browser_table import join

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect


# The longest name the app takes (24 characters) must read in full on every screen.
MAX = "Maximiliana von Rosewood"
HEIGHTS = "heights-mf.json"


def shoot(page, name):
    check_screen(page, name, HEIGHTS)


def create(page, base, players, level="Standard", guess=False, countdown=None):
    page.goto(base + "/")
    page.get_by_role("link", name=re.compile("^The Mysterious Forest")).click()
    for i, name in enumerate(players):
        page.get_by_label(f"Player {i + 1}", exact=True).fill(name)
    page.locator("label.mf-level", has_text=level).click()
    page.get_by_label("First player").select_option("0")
    if guess:
        page.get_by_label(re.compile("Final Battle guess")).check()
    if countdown:
        page.locator("fieldset.chips label", has_text=f"{countdown} s").click()
    page.get_by_role("button", name="Create the table").click()
    return page.locator(".code-big").first.inner_text().strip()


def set_backpack(page, spaces):
    """Step the Backpack size in the setup panel, one space a tap, as a player does; each tap
    waits for the new size before the next."""
    open_panel(page, "mf-change")
    stepper = page.get_by_role("group", name="Backpack spaces")
    size = int(stepper.locator(".step-value").inner_text())
    while size != spaces:
        stepper.get_by_role("button", name="One space fewer" if spaces < size else "One space more").click()
        size += -1 if spaces < size else 1
        expect(stepper.locator(".step-value")).to_have_text(str(size))


def tap(page, name):
    page.get_by_role("button", name=re.compile(name)).first.click()


def test_a_whole_game_on_one_phone(live_server, phones):
    (phone,) = phones(1)
    watch = Watch(phone)
    phone.emulate_media(reduced_motion="reduce")  # the screenshots catch no half-drawn animation
    # The Backpack board's usual 24 spaces (the default): two rows of twelve that fit the phone.
    create(phone, live_server, ["Ana", MAX, "Cara"], countdown=10)
    phone.get_by_role("button", name=re.compile("This phone plays every free seat")).click()
    expect(phone.locator(".mf-title")).to_have_text("🌲 Get the forest ready")
    # The next step to tick waits in the step of the moment; the whole list is a tap away.
    phone.get_by_role("button", name=re.compile("Step 1:")).click()
    expect(phone.locator("[data-primary]").get_by_role("button", name=re.compile("Step 2:"))).to_be_visible()
    shoot(phone, "mf-01-setup")
    open_panel(phone, "mf-setup-list")
    expect(phone.get_by_role("button", name=re.compile("Step 1:"))).to_have_attribute("aria-pressed", "true")
    shoot(phone, "mf-02-setup-checklist")
    # A wrong level is corrected before anyone looks at the Path.
    open_panel(phone, "mf-change")
    phone.get_by_role("button", name="Heroes of the Forest").click()
    expect(phone.locator(".mf-stats")).to_contain_text("Heroes of the Forest")
    expect(phone.locator("[data-primary]").get_by_role("button", name=re.compile("Step 2:"))).to_contain_text("5 Forest cards")
    expect(phone.locator("#mf-change")).to_have_attribute("open", "")  # still open after the refresh
    shoot(phone, "mf-03-change-setup")
    phone.get_by_role("button", name="Standard", exact=True).click()
    expect(phone.locator(".mf-stats")).to_contain_text("Standard")
    tap(phone, "Start looking at the Path")

    # Phase 1: Ana, Max, Cara, Ana, ... each look at one card, the countdown on each.
    for card, who in zip(range(1, 9), ["Ana", MAX, "Cara"] * 3):
        expect(phone.locator(".mf-big")).to_contain_text(f"Card {card} of 8")
        expect(phone.locator(".mf-turn")).to_have_text(f"{who}, your turn!")
        expect(phone.locator(".countdown .cd-label")).to_have_text(f"Memorize card {card} of 8")
        if card == 2:
            shoot(phone, "mf-04-scouting")
        tap(phone, "Done looking")

    # Phase 2: the countdown rests; Ana rolls first.
    expect(phone.locator(".mf-turn")).to_have_text("🎲 Ana, roll the 4 dice!")
    expect(phone.locator(".countdown")).to_have_count(0)
    expect(phone.locator(".mf-bag")).to_have_attribute("aria-label", "Backpack: 4 of 24 spaces filled")
    shoot(phone, "mf-05-packing")
    tap(phone, "2 Loki")
    expect(phone.locator(".mf-turn")).to_have_text(f"🎲 {MAX}, roll the 4 dice!")
    tap(phone, "1 Loki \\+ 1 Equipment")
    for roll in range(3, 11):
        expect(phone.locator(".mf-bag")).to_have_attribute("aria-label", f"Backpack: {2 + 2 * roll} of 24 spaces filled")
        if roll == 8:
            shoot(phone, "mf-06-packing-nearly-full")
        tap(phone, "2 Equipment")

    # Phase 3: walk the Path.
    expect(phone.locator(".mf-big")).to_contain_text("Jonas is on card 1 of 8")
    tap(phone, "Use a Loki token: Power 2")  # the longer explanation, with its special case
    expect(phone.locator(".mf-loki-now")).to_contain_text("Only Loki tokens in your Backpack?")
    expect(phone.locator(".mf-stats")).to_contain_text("1 used")
    shoot(phone, "mf-07-expedition")
    for card in range(1, 5):
        expect(phone.locator(".mf-big")).to_contain_text(f"card {card} of 8")
        tap(phone, "All covered")
    expect(phone.locator(".mf-big")).to_contain_text("The Wanderer!")
    shoot(phone, "mf-08-wanderer")
    tap(phone, "Give two identical Equipment")
    tokens = phone.locator(".mf-stats .stat").nth(1)
    expect(tokens).to_contain_text("💎 2")
    tap(phone, "Use a Wanderer token")
    expect(tokens).to_contain_text("💎 1")
    for card in (6, 7):
        expect(phone.locator(".mf-big")).to_contain_text(f"card {card} of 8")
        tap(phone, "All covered")
    expect(phone.locator(".mf-big")).to_contain_text("The Queen of the Draconia!")
    shoot(phone, "mf-09-final-battle")
    tap(phone, "We beat the Queen")
    expect(phone.locator(".mf-end h2")).to_have_text("You did it!")
    expect(phone.locator(".mf-end")).to_contain_text("Budding Explorers")
    shoot(phone, "mf-10-won")
    assert_clean_board(watch)

    # Play again keeps the players and the extras on a new table, this phone (passed
    # around) in every seat it held.
    phone.get_by_role("button", name=re.compile("Play again")).click()
    expect(phone.locator(".seat-chip.mine")).to_have_count(3)
    expect(phone.locator(".mf-stats")).to_contain_text("Standard")
    expect(phone.locator(".mf-stats")).to_contain_text("🎒 24")
    expect(phone.locator(".countdown")).to_have_count(0)  # no countdown until someone looks

    # The start screen keeps the record and suggests the next level.
    phone.goto(live_server + "/")
    expect(phone.locator(".game-record summary")).to_contain_text("1 won of 1")
    phone.locator(".game-record summary").click()
    expect(phone.locator(".game-record")).to_contain_text("try Budding Explorers next")
    shot(phone, "mf-15-home-record")
    phone.get_by_role("link", name=re.compile("^The Mysterious Forest")).click()
    expect(phone.locator("label.mf-level", has_text="Budding Explorers").locator("input")).to_be_checked()
    shot(phone, "mf-16-new-table-record")


def test_two_phones_play_the_guess_variant_and_lose_gently(live_server, phones):
    ana, ben = phones(2)
    watches = [Watch(ana), Watch(ben)]
    ben.emulate_media(reduced_motion="reduce")
    code = create(ana, live_server, ["Ana", "Ben"], level="Lead Adventurers", guess=True)
    ana.get_by_role("button", name="I am Ana").click()
    set_backpack(ana, 12)  # a small Backpack, so the packing ends after four rolls
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
            shoot(ben, "mf-11-other-phone-scouting")
        tap(page, "Done looking")
    expect(ben.locator(".mf-turn")).to_have_text("🎲 Ana rolls the 4 dice")
    tap(ana, "2 Equipment")
    expect(ben.locator(".mf-turn")).to_have_text("🎲 Ben, roll the 4 dice!")
    tap(ben, "2 Loki")
    expect(ana.locator(".mf-turn")).to_have_text("🎲 Ana, roll the 4 dice!")
    # A mistaken roll is fixed on the other phone.
    open_panel(ben, "mf-fix")
    shoot(ben, "mf-12-fix-a-roll")
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
    shoot(ben, "mf-13-final-guess")
    tap(ben, "Our guess is laid")
    expect(ana.get_by_role("button", name=re.compile("Not quite"))).to_be_visible()
    tap(ana, "Not quite")
    for page in (ana, ben):
        expect(page.locator(".mf-end h2")).to_have_text("Not this time")
    shoot(ben, "mf-14-lost")
    # Undo on one phone takes both back to the reveal.
    ben.get_by_role("button", name=re.compile("Undo")).click()
    expect(ana.get_by_role("button", name=re.compile("Exactly right"))).to_be_visible()
    for watch in watches:
        assert_clean_board(watch)


def test_an_open_panel_stays_open_when_another_phone_acts(live_server, phones):
    ana, ben = phones(2)
    watches = [Watch(ana), Watch(ben)]
    code = create(ana, live_server, ["Ana", "Ben"])
    ana.get_by_role("button", name="I am Ana").click()
    join(ben, live_server, code, "Ben")
    open_panel(ben, "mf-change")
    ana.get_by_role("button", name=re.compile("Step 1:")).click()
    expect(ben.locator(".mf-sub")).to_contain_text("1 of 6 steps done")
    expect(ben.locator("#mf-change")).to_have_attribute("open", "")
    for watch in watches:
        assert_clean_board(watch)
