"""Woodland Wizards: a whole four-round game with four phones, each screen checked at 390x844."""

import re

import pytest

from .board_checks import assert_clean_board, check_screen, open_panel
from .browser import Watch, browser, live_server, phones, tap  # noqa: F401  (fixtures)
from .test_browser_table import join

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect

# The longest name the app takes (24 characters) must read in full on every screen.
MAX = "Maximiliana von Rosewood"
PLAYERS = ["Ana", MAX, "Cara", "Dan"]
HEIGHTS = "heights-ww.json"


def create_table(pages, base, players):
    host = pages[0]
    host.goto(base + "/")
    host.get_by_role("link", name=re.compile("Woodland Wizards")).click()
    for i, name in enumerate(players):
        host.get_by_label(f"Player {i + 1}", exact=True).fill(name)
    host.get_by_label("First starting player").select_option("0")
    host.get_by_role("button", name="Create the table").click()
    code = host.locator(".code-big").first.inner_text().strip()
    host.get_by_role("button", name=f"I am {players[0]}").click()
    expect(host.locator(".seat-chip.mine")).to_contain_text(players[0])
    for page, name in zip(pages[1:], players[1:]):
        join(page, base, code, name)


def now(page):
    return page.locator("[data-primary]")


def enter_own_total(page, sum_text, total):
    row = now(page).locator(".total-row.me")
    row.locator(".sum-input").fill(sum_text)
    expect(row.locator(".total-input")).to_have_value(str(total))
    row.get_by_role("button", name=re.compile("Save|Change")).click()
    expect(page.locator(".notice.error")).to_have_count(0)
    expect(now(page).locator(".total-row.me .total-input")).to_have_value(str(total))


def log_creature(page, who, value, phoenix=False):
    form = page.locator("form.creature", has=page.get_by_role("heading", name=f"{who}'s Contest Creature"))
    form.get_by_label(f"{who}'s creature value").fill(str(value))
    if phoenix:
        form.get_by_label("It is the Golden Phoenix").check()
    form.get_by_role("button", name=re.compile("Add to")).click()
    expect(page.locator(".notice.error")).to_have_count(0)
    expect(page.get_by_role("heading", name=f"{who}'s Contest Creature")).to_have_count(0)


def shoot(page, name):
    check_screen(page, name, HEIGHTS)


def wander(pages, starter, shots):
    """The Wandering phase: from the starting player, each phone taps its own turn, the others
    saying whose turn it is and when theirs comes."""
    for step in range(len(pages)):
        seat = (starter + step) % len(pages)
        page, who = pages[seat], PLAYERS[seat]
        expect(now(page).locator("h2")).to_have_text(f"Your turn, {who}: draw a card, then play a card.")
        following = pages[(seat + 1) % len(pages)]
        if step < len(pages) - 1:
            expect(now(following)).to_contain_text(f"You draw and play after {who}.")
        if step == 1 and "wandering" in shots:
            shoot(page, shots["wandering"])
        tap(page, re.compile(f"^{who} drew and played: "))


def play_round(pages, totals, scorers, next_label, starter=0, shots=None, tie=None):
    """One round: the Wandering turns on each phone, the Contest by its Next button, boosts and
    passes on several phones, totals typed on each phone, creatures scored by the scorers (or
    for them, from the panel)."""
    ana, maxi, cara, dan = pages
    shots = shots or {}
    wander(pages, starter, shots)
    expect(now(ana).locator(".ww-kicker")).to_contain_text("Contest phase")
    if "Next: Boost" in shots:
        shoot(ana, shots["Next: Boost"])
    tap(ana, "Next: Boost")
    expect(now(ana).locator("h2")).to_have_text("Boost round 1 of 3")
    if "boost" in shots:
        shoot(maxi, shots["boost"])
    tap(ana, "Ana boosts")
    expect(now(ana)).to_contain_text("played this round")
    expect(now(maxi)).to_contain_text(f"Waiting for {MAX}, Cara and Dan to boost or pass.")
    tap(maxi, f"{MAX} passes")
    # Ana passes for Cara from the panel of everyone's boosts; Dan passes on his own phone.
    open_panel(ana, "ww-boost-all")
    expect(ana.locator("#ww-boost-all .boost-row", has_text=MAX)).to_contain_text("passed")
    tap(ana, "Cara passes")
    expect(now(dan)).to_contain_text("Waiting for Dan to boost or pass")
    tap(dan, "Dan passes")
    tap(ana, "Next Boost round")
    expect(now(ana).locator("h2")).to_have_text("Boost round 2 of 3")
    tap(ana, "Ana passes")  # everyone has passed: the Scoring phase starts
    for page, (text, total) in zip(pages, totals):
        expect(now(page).locator(".total-row.me")).to_be_visible()
        if page is cara and "scoring" in shots:
            shoot(cara, shots["scoring"])
        enter_own_total(page, text, total)
    expect(now(cara).get_by_role("button", name="Rank the round")).to_be_visible()
    tap(cara, "Rank the round")
    for page in pages:
        expect(page.locator(".ww-round h2, #ww-last-round")).to_have_count(1)
    if tie:
        expect(ana.locator(".ww-round")).to_contain_text(tie)
    for who, value, phoenix, on in scorers:
        page = pages[on]
        if PLAYERS[on] != who:
            open_panel(page, "ww-creatures")
        elif "result" in shots:
            shoot(page, shots["result"])
        log_creature(page, who, value, phoenix)
        for other in pages:  # nobody types into a form about to be redrawn
            expect(other.get_by_role("heading", name=f"{who}'s Contest Creature")).to_have_count(0)
    # Dan moves on once his phone shows every creature scored.
    expect(dan.get_by_role("heading", name=re.compile("Contest Creature"))).to_have_count(0)
    if "next" in shots:
        shoot(dan, shots["next"])
    tap(dan, next_label)


def test_four_phones_play_four_rounds(live_server, phones):
    pages = phones(4)
    watches = [Watch(page) for page in pages]
    create_table(pages, live_server, PLAYERS)
    ana, maxi, cara, dan = pages
    expect(now(ana).locator("h2")).to_have_text("Your turn, Ana: draw a card, then play a card.")
    expect(now(maxi).locator("h2")).to_have_text("Ana's turn: draw a card, then play a card.")
    for page in pages:
        expect(page.locator(".ww-points")).to_contain_text(MAX)
        check_screen(page)

    # Round 1, Ana starts: Max and Cara tie on 12; Max sits closer to Ana, so Max wins.
    play_round(pages, [("7+3", 10), ("8+5-1", 12), ("12", 12), ("5", 5)],
               [(MAX, 5, False, 1), ("Cara", 4, True, 2)], "Clean up and start round 2",
               shots={"wandering": "ww-01-wandering", "Next: Boost": "ww-02-contest",
                      "boost": "ww-03-boost", "scoring": "ww-04-scoring",
                      "result": "ww-05-round-result", "next": "ww-06-creatures-scored"},
               tie=f"{MAX} and Cara both have 12; {MAX} is closer to the starting player Ana, "
                   f"so {MAX} ranks higher.")
    for page in pages:
        expect(page.locator(".ww-stats")).to_contain_text("2/4")
        expect(page.locator(".ww-stats")).to_contain_text("Cara")  # left of the winner

    # Round 2, Cara starts: Dan 9 wins; Ana and Max tie on 8, Ana is closer to Cara.
    # Dan scores Ana's creature for her, from the panel.
    play_round(pages, [("8", 8), ("8", 8), ("3", 3), ("9", 9)],
               [("Dan", 5, False, 3), ("Ana", 4, False, 3)], "Clean up and start round 3", starter=2)
    expect(ana.locator(".ww-stats")).to_contain_text("Ana")
    # Round 3, Ana starts.
    play_round(pages, [("11", 11), ("2", 2), ("3", 3), ("4", 4)],
               [("Ana", 5, False, 0), ("Dan", 4, False, 3)], "Clean up and start round 4")
    expect(maxi.locator(".ww-stats")).to_contain_text(MAX)
    # Round 4, Max starts; the last round's result leads to the final scores.
    play_round(pages, [("1", 1), ("20", 20), ("15", 15), ("2", 2)],
               [(MAX, 4, False, 1), ("Cara", 5, False, 2)], "Final scores", starter=1,
               shots={"next": "ww-07-last-round"})

    # Everyone has 9 points: the tie-breaks decide, and the screen says so first and big.
    for page in pages:
        expect(now(page).locator(".ww-verdict")).to_have_text("🏆 Cara wins")
        # Every tied place is explained on the card, not only the first.
        expect(now(page).locator(".ww-why")).to_have_text([
            f"Cara beats {MAX}: both 9, Cara holds the Golden Phoenix.",
            re.compile(f"^{MAX} beats Dan: both 9 with 2 scored cards"), re.compile("^Dan beats Ana: both 9")])
        # Round 4's own result is no longer a card of its own: it waits, labelled, in a panel.
        expect(page.locator(".ww-round")).to_have_count(0)
        expect(page.locator("#ww-last-round > summary")).to_have_text(re.compile("Round 4 result \\(that round only\\)"))
        check_screen(page)
    places = ana.locator(".ww-points .stat span").all_inner_texts()
    assert places == ["1. Cara", f"2. {MAX}", "3. Dan", "4. Ana"]
    open_panel(ana, "ww-final")
    expect(ana.locator("#ww-final")).to_contain_text("tie-breaks put Cara first")
    shoot(ana, "ww-08-final")
    for watch in watches:
        assert_clean_board(watch)


def two_phones_correcting_bens_cards(live_server, phones, correcting):
    """Ana and Ben at a new table, `correcting` (0 or 1) with Ben's scored cards open."""
    pages = phones(2)
    watches = [Watch(page) for page in pages]
    create_table(pages, live_server, ["Ana", "Ben"])
    open_panel(pages[correcting], "ww-fix")
    open_panel(pages[correcting], "ww-fix-1")
    return pages, watches


def test_an_open_correction_panel_stays_open_when_another_phone_acts(live_server, phones):
    (ana, ben), watches = two_phones_correcting_bens_cards(live_server, phones, correcting=1)
    ben.get_by_label("Value of the card to add for Ben").fill("7")
    tap(ana, re.compile("^Ana drew and played: "))
    expect(now(ben).locator("h2")).to_have_text("Your turn, Ben: draw a card, then play a card.")
    expect(ben.locator("#ww-fix")).to_have_attribute("open", "")
    expect(ben.locator("#ww-fix-1")).to_have_attribute("open", "")
    for watch in watches:
        assert_clean_board(watch)


def test_the_phoenix_is_marked_on_an_added_card_and_moved_by_correcting_cards(live_server, phones):
    (ana, ben), watches = two_phones_correcting_bens_cards(live_server, phones, correcting=0)
    add = ana.locator("#ww-fix-1 form.creature", has=ana.get_by_role("button", name="Add a scored card"))
    add.get_by_label("Value of the card to add for Ben").fill("8")
    add.get_by_label("It is the Golden Phoenix").check()
    tap(ana, "Add a scored card")
    expect(ben.locator("#ww-cards .phoenix")).to_have_count(1)
    # Ben holds it: Ana's own add form says how to move it, with no second box.
    open_panel(ana, "ww-fix-0")
    expect(ana.locator("#ww-fix-0 .ww-phoenix-held")).to_contain_text("Ben holds the Golden Phoenix")
    card = ana.get_by_role("form", name="Ben's scored card 1")
    expect(card.get_by_label("It is the Golden Phoenix")).to_be_checked()
    card.get_by_label("It is the Golden Phoenix").uncheck()
    tap(ana, "Save card 1")
    expect(ana.locator("#ww-said")).to_contain_text("Nobody holds the Golden Phoenix now.")
    expect(ana.locator("#ww-fix-0 .ww-phoenix-held")).to_have_count(0)
    check_screen(ana, "ww-09-correct-phoenix", HEIGHTS)
    for watch in watches:
        assert_clean_board(watch)
