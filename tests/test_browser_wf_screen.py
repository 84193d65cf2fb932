"""The Wicked Forest at a glance: three phones at 390x844 play a whole game, and at every
phase the thing this phone must do now sits in the first screen, above the bottom bar."""

import re

import pytest

from .browser import Watch, assert_fits_phone, assert_primary_clear, keep_figure, record_screen, up_to_date
from .browser import browser, live_server, phones  # noqa: F401  (fixtures)
from .test_browser_table import create_wicked_forest, join
from .test_browser_timer import post_action

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect

HEIGHTS = "heights-wf.json"
LONG_NAME = "Bartholomew Featherstone"  # 24 characters, the longest name a table takes


def glance(page, watch, name):
    """The phone's screen as a player sees it: one primary element, wholly in the first
    screen and clear of the bottom bar, nothing wider than the phone, no errors."""
    assert_primary_clear(page, name)
    assert_fits_phone(page)
    watch.assert_clean()
    record_screen(page, name, HEIGHTS)
    keep_primary_box(name, page.locator("[data-primary]").bounding_box())


def keep_primary_box(name, box):
    """Where the primary element sits, kept beside the page heights for people to compare."""
    keep_figure("primary-wf.json", name, [round(box["y"]), round(box["y"] + box["height"])])


def tap(page, name):
    """Tap a button on the board, once this phone shows the others' moves, and wait until it
    shows the table's answer."""
    shown = up_to_date(page)
    page.locator("#view").get_by_role("button", name=name).first.click()
    expect(page.locator("#view .view")).not_to_have_attribute("data-version", shown)
    expect(page.locator(".notice.error")).to_have_count(0)


def version_of(page):
    return int(page.locator("#view .view").get_attribute("data-version"))


def wait_for_version(pages, version):
    for page in pages:
        expect(page.locator("#view .view")).to_have_attribute("data-version", str(version))


def leader_reads_in_full(page, name):
    """The Leader box shows the whole name; no number of the strip is cut or spills out of
    its box."""
    expect(page.locator(".wf-stats .wf-leader b")).to_have_text(name)
    spilled = page.locator(".wf-stats .stat").evaluate_all(
        """boxes => boxes.filter(box => {
             const outer = box.getBoundingClientRect();
             return [...box.children].some(part => {
               const inner = part.getBoundingClientRect();
               return part.scrollWidth > part.clientWidth || inner.left < outer.left - 0.5
                 || inner.right > outer.right + 0.5 || outer.right > 390;
             });
           }).map(box => box.innerText)""")
    assert spilled == [], f"cut or spilling out of their boxes: {spilled}"


def play_a_quick_round(pages, leader_page):
    """The leader reveals one card; everyone returns at once."""
    tap(leader_page, "2 Flowers, no Witch")
    for page in pages:
        expect(page.locator("[data-primary]").get_by_role("button", name=re.compile("Return"))).to_be_visible()
    for page in pages:
        tap(page, re.compile("Return"))
    for page in pages:
        expect(page.locator("#view .view")).to_have_attribute("data-phase", re.compile("end|tally"))
    # Each returner's phone asks what they crystallized; here nobody took anything.
    for page in pages:
        tap(page, re.compile("is done crystallizing"))


def start_exploration(leader_page):
    """The Preparation Phase of rounds 2 and later: the leader moves the table on."""
    tap(leader_page, "Start Exploration now")


def test_a_whole_game_keeps_each_phones_next_move_in_the_first_screen(live_server, phones):
    dora, bart, cara = phones(3)
    everyone = (dora, bart, cara)
    code = create_wicked_forest(dora, live_server, ["Dora", LONG_NAME, "Cara"], leader="0")
    dora.get_by_role("button", name="I am Dora").click()
    expect(dora.locator(".seat-chip.mine")).to_contain_text("Dora")
    join(bart, live_server, code, LONG_NAME)
    join(cara, live_server, code, "Cara")
    for page in everyone:
        page.goto(f"{live_server}/t/{code}")
    # Watched from here on: leaving a page above cut its event stream on purpose.
    watches = {page: Watch(page) for page in everyone}

    # Setup: the first card to reveal comes first; the checklist is one tap away.
    for page in everyone:
        expect(page.locator("[data-primary]")).to_contain_text("Reveal card 1")
        expect(page.locator("details.panel#wf-setup summary")).to_be_visible()
        leader_reads_in_full(page, "Dora")
    glance(dora, watches[dora], "wf-01-setup")

    # The leader reveals a card with one Flower: every phone asks Stay or Return, in the singular.
    tap(dora, "1 Flower, no Witch")
    for page in everyone:
        expect(page.locator("[data-primary]")).to_contain_text("1 Flower shown")
        expect(page.locator(".wf-stats .stat").nth(2)).to_have_text(re.compile(r"^\s*1\s*Flower shown\s*$"))
    glance(bart, watches[bart], "wf-02-choose")

    # Dora picks; the others see only that she has chosen, and who the table waits for.
    tap(dora, re.compile("Stay"))
    expect(dora.locator(".choice-pad.choice-made")).to_have_count(1)
    glance(dora, watches[dora], "wf-03-choice-in")
    for page in (bart, cara):
        expect(page.locator("[data-primary] .waiting")).to_contain_text("Waiting for " + LONG_NAME + ", Cara")
    glance(cara, watches[cara], "wf-04-waiting")

    # The reveal: Bart returns alone with the one Flower; Dora and Cara stay.
    tap(bart, re.compile("Return"))
    tap(cara, re.compile("Stay"))
    for page in everyone:
        expect(page.locator(".events")).to_contain_text(f"Reveal 1: {LONG_NAME} returns, Dora and Cara stay.")
        expect(page.locator(".events")).to_contain_text(f"{LONG_NAME} gains 1 Flower.")
    # The returner is asked what he crystallized; the others see whom the next card waits for.
    for page in (dora, cara):
        expect(page.locator("[data-primary]")).to_contain_text("Reveal card 2")
        expect(page.locator("[data-primary]")).to_contain_text(f"{LONG_NAME} crystallizes first")
    expect(bart.locator("[data-primary] h2")).to_have_text(f"{LONG_NAME}, what did you crystallize?")
    glance(cara, watches[cara], "wf-05-reveal-results")
    glance(bart, watches[bart], "wf-05b-reveal-results-returned")

    # Bart half fills the Crystallization form; Dora's reveal refreshes his phone; nothing is lost.
    bart.locator("#wf-crystal summary").click()
    bart.locator("#wf-crystal-item").select_option("cultivation")
    bart.locator("#wf-crystal-color").select_option("red")
    bart.locator("#wf-crystal-magic").select_option("3")
    bart.evaluate("() => document.activeElement && document.activeElement.blur()")
    before = version_of(bart)
    tap(dora, "Witch and 2 Flowers")
    wait_for_version((bart,), before + 1)
    expect(bart.locator("[data-primary] h2")).to_have_text(f"{LONG_NAME}, what did you crystallize?")
    expect(bart.locator("#wf-crystal-item")).to_have_value("cultivation")
    expect(bart.locator("#wf-crystal-color")).to_have_value("red")
    expect(bart.locator("#wf-crystal-magic")).to_have_value("3")
    expect(bart.locator("#wf-crystal-player")).to_have_value("1")
    # Its own log empties the form for the next entry. (Whether the panel stays open across a
    # refresh is the page's business, not the board's.)
    if bart.locator("#wf-crystal[open]").count() == 0:
        bart.locator("#wf-crystal summary").click()
    tap(bart, "Log it")
    expect(bart.locator("#wf-crystal-item")).to_have_value("card")
    expect(bart.locator("#wf-crystal-magic")).to_have_value("0")
    expect(bart.locator("#wf-players summary")).to_contain_text(f"{LONG_NAME} 3")
    tap(bart, f"{LONG_NAME} is done crystallizing")
    expect(bart.locator("[data-primary]")).to_contain_text("out of the forest")
    glance(bart, watches[bart], "wf-06-out-of-the-forest")

    # Card 2 (a Witch): Dora returns, Cara stays; card 3 is the second Witch and catches Cara alone.
    tap(dora, re.compile("Return"))
    tap(cara, re.compile("Stay"))
    tap(dora, "Dora is done crystallizing")  # the leader crystallizes before the next card
    tap(dora, "Witch and 0 Flowers")
    for page in everyone:
        expect(page.locator(".events")).to_contain_text("Second Witch! Cara is eliminated and gains nothing this round.")
        expect(page.locator("[data-primary]")).to_contain_text("Start round 2")
    glance(dora, watches[dora], "wf-07-end-phase")

    # Round 2: the leader with the longest name reads in full on every phone.
    tap(cara, "Start round 2")
    for page in everyone:
        expect(page.locator(".wf-stats .stat").first).to_contain_text("2")
        leader_reads_in_full(page, LONG_NAME)
    # Its Preparation Phase: each phone's Done is what it does now; the leader may move on.
    for page, name in ((dora, "Dora"), (bart, LONG_NAME), (cara, "Cara")):
        expect(page.locator("[data-primary]")).to_contain_text("Round 2: Preparation")
        expect(page.locator("[data-primary]").get_by_role("button", name=f"{name}: done preparing")).to_be_visible()
    glance(cara, watches[cara], "wf-08-round-2-long-leader")
    tap(dora, "Dora: done preparing")
    tap(cara, "Cara: done preparing")
    expect(bart.locator("[data-primary] .waiting")).to_contain_text("Waiting for " + LONG_NAME)
    glance(bart, watches[bart], "wf-08b-preparation-leader")
    start_exploration(bart)

    # A countdown that runs out, then a pause: the clock is advisory, the choice stays on
    # screen and works.
    post_action(dora, live_server, code, "timer_set", {"mode": "turn", "seconds": 5})
    tap(bart, "3 Flowers, no Witch")
    for page in everyone:
        expect(page.locator(".time-up-banner")).to_be_visible(timeout=10_000)
    glance(cara, watches[cara], "wf-09-time-up")
    post_action(dora, live_server, code, "timer_pause", {})
    expect(cara.locator(".paused-banner")).to_be_visible()
    glance(cara, watches[cara], "wf-10-paused")
    choice = cara.locator("[data-primary]").get_by_role("button", name=re.compile("Stay"))
    expect(choice).to_be_enabled()
    tap(cara, re.compile("Stay"))
    expect(cara.locator(".choice-pad.choice-made")).to_have_count(1)
    post_action(dora, live_server, code, "timer_resume", {})
    post_action(dora, live_server, code, "timer_set", {"mode": "off", "seconds": 60})
    for page in (dora, bart):
        tap(page, re.compile("Return"))
    for page in everyone:
        expect(page.locator("#view .view")).to_have_attribute("data-phase", "reveal")
    # The returners, the leader first, crystallize before the next card.
    tap(bart, f"{LONG_NAME} is done crystallizing")
    tap(dora, "Dora is done crystallizing")
    tap(bart, "0 Flowers, no Witch")
    tap(cara, re.compile("Return"))
    tap(cara, "Cara is done crystallizing")

    # The deck cycles: a draw pile of 1 runs out when the forest is refilled.
    post_action(dora, live_server, code, "set_draw_pile", {"count": 1})
    tap(dora, "Start round 3")
    for page in everyone:
        expect(page.locator(".events")).to_contain_text("Draw pile ran out (1st time)")
        expect(page.locator(".wf-stats")).to_contain_text("1/2")
    glance(dora, watches[dora], "wf-11-deck-cycled")

    # The second run-out makes round 4 the final round.
    start_exploration(cara)
    play_a_quick_round(everyone, cara)
    post_action(dora, live_server, code, "set_draw_pile", {"count": 1})
    tap(dora, "Start round 4")
    for page in everyone:
        expect(page.locator("[data-primary] .wf-final")).to_contain_text("Final round")
        expect(page.locator(".wf-stats")).to_contain_text("Final round")
    glance(bart, watches[bart], "wf-12-final-round")

    # The final round's Exploration: the tally comes before the result. Bart (3 Magic + 2 Forest
    # Magic Tiles) and Cara (3 tiles) lead with 9: the Flowers each has left are asked for.
    start_exploration(dora)
    play_a_quick_round(everyone, dora)
    for page in everyone:
        expect(page.locator("#view .view")).to_have_attribute("data-phase", "tally")
        expect(page.locator("[data-primary] h2")).to_contain_text("Final tally")
        expect(page.locator("[data-primary] h2")).not_to_contain_text("🏆")
    glance(dora, watches[dora], "wf-13-final-tally")
    for seat, left in ((1, "2"), (2, "4")):
        shown = cara.locator("#view .view").get_attribute("data-version")
        cara.locator(f"#wf-flowers-{seat}").fill(left)
        cara.locator("form", has=cara.locator(f"#wf-flowers-{seat}")).get_by_role("button", name="Set").click()
        expect(cara.locator("#view .view")).not_to_have_attribute("data-version", shown)
    tap(cara, "Confirm the final tally")
    for page in everyone:
        expect(page.locator("#view .view")).to_have_attribute("data-phase", "over")
        expect(page.locator("[data-primary] h2")).to_contain_text("🏆")
        expect(page.locator("[data-primary] h2")).to_contain_text("Cara wins with more Flowers left (4 to 2)")
    glance(dora, watches[dora], "wf-14-game-over")
    for page in everyone:
        watches[page].assert_clean()


def test_a_phone_passed_around_keeps_its_cover_and_private_screens_in_the_first_screen(live_server, phones):
    (table,) = phones(1)
    code = create_wicked_forest(table, live_server, ["Ana", LONG_NAME], leader="1")
    table.get_by_role("button", name=re.compile("every free seat")).click()
    expect(table.locator(".seat-chip.mine")).to_have_count(2)
    table.goto(f"{live_server}/t/{code}")
    watch = Watch(table)
    leader_reads_in_full(table, LONG_NAME)
    tap(table, "4 Flowers, no Witch")
    expect(table.locator("[data-primary]")).to_contain_text("Pass the phone")
    glance(table, watch, "wf-20-pass-the-phone")
    table.get_by_role("button", name=re.compile("Hand the phone to Ana")).click()
    expect(table.locator("[data-primary] h2")).to_have_text("Ana: Stay or Return?")
    glance(table, watch, "wf-21-private-choice")
    table.get_by_role("button", name=re.compile("Return")).click()
    expect(table.get_by_role("button", name=re.compile("Done: hide my choice"))).to_be_visible()
    glance(table, watch, "wf-22-private-choice-in")
    table.get_by_role("button", name=re.compile("Done: hide my choice")).click()
    expect(table.get_by_role("button", name=re.compile(f"Hand the phone to {LONG_NAME}"))).to_be_visible()
    expect(table.locator("[data-primary] .waiting")).to_contain_text(f"Waiting for {LONG_NAME}")
    glance(table, watch, "wf-23-waiting-for-one")
