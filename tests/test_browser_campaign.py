"""An Explorers campaign of four Heroes on two phones at 390x844: chapter 1 played to a win through its ambush,
its end confirmed, The Forest Awakens, the campaign page, chapter 2 lost and restarted after the discards. At
every screen the first screen holds what to do now and the numbers; the rest is in panels."""

import re

import pytest

from .browser import browser, live_server, phones  # noqa: F401  (fixtures)
from .test_browser_explorers import WATCHES, check_screen, open_panel, watch
from .test_browser_table import join

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect
HEIGHTS = "heights-campaign.json"
PLAYERS = ("Ana", "Bartholomew-Alexander", "Cara", "Dan")


def quest_row(page, label):
    return page.locator(".quest-row", has=page.locator(".monster-name", has_text=label))


def chapter_panel(page):
    return page.locator("#ex-chapter")


def left_table(page):
    """Leaving a table page ends its live stream, and a refresh of its view in flight (the
    table changed as the phone left, as when its confirmation writes the draw into the
    table's log): the browser reports those requests as aborted, and the stream's closing
    may be logged as an error event on its way out."""
    watched = WATCHES[page]
    watched.failed = [f for f in watched.failed
                      if not (re.search(r"/events\?|/view[? ]", f) and "ERR_ABORTED" in f)]
    watched.errors = [e for e in watched.errors if e != "[object Event]"]


def plus(page, label, to):
    """Tap a chapter counter's + (in the chapter's panel) once the phone shows the value the
    tap raises, as a player looks before tapping: another phone's move must be on screen
    first, or the tap answers that the table changed meanwhile. Then wait for the new value."""
    open_panel(page, chapter_panel(page))
    value = quest_row(page, label).locator(".step-value")
    expect(value).to_have_text(shows(to - 1))
    page.get_by_role("button", name=f"{label} plus one").click()
    expect(value).to_have_text(shows(to))


def shows(number):
    """A counter's text: the number, then its unit if it has one."""
    return re.compile(rf"^{number}(\D|$)")


def test_a_chapter_won_carries_over_and_a_chapter_lost_starts_again(live_server, phones):
    ana, ben = phones(2)
    ana.goto(live_server + "/")
    ana.get_by_role("link", name=re.compile("Explorers campaigns")).click()
    ana.get_by_label("Campaign name").fill("The Winter Woods of the Long Night")
    ana.get_by_label("Player 1", exact=True).fill("Ana")
    # Four Heroes, two of them played from the two phones' seats without a phone of their own.
    for i, (name, hero) in enumerate(zip(PLAYERS, ("xylia", "klethor", "shavi", "bethras")), start=1):
        ana.get_by_label(f"Player {i}", exact=True).fill(name)
        ana.get_by_label(f"Player {i}'s Hero").select_option(hero)
    ana.get_by_role("button", name="Begin the campaign").click()
    watch(ana, ben)
    expect(ana.locator("[data-primary] .turn-big")).to_have_text("Chapter 1")
    check_screen(ana, "campaign-01-page-new", HEIGHTS)
    ana.get_by_role("button", name=re.compile("Start chapter 1")).click()
    code = ana.locator(".code-big").first.inner_text().strip()
    ana.get_by_role("button", name="I am Ana").click()
    join(ben, live_server, code, "Bartholomew-Alexander")

    # The chapter's title and numbers are under the board's own; its setup is open at first.
    for page in (ana, ben):
        expect(page.locator(".quest-title")).to_have_text("Mushrooms for the Elder")
        expect(page.locator("#ex-setup")).to_contain_text("6 Mushroom and 2 Empty Vial")
    expect(ben.locator("#ex-boss")).to_have_count(0)  # no Boss in chapter 1
    check_screen(ben, "campaign-02-chapter-1", HEIGHTS)

    open_panel(ana, ana.locator("#ex-hero-xylia"))
    ana.get_by_label("Loot card for Xylia").fill("Healing Potion of the Old Oak")
    ana.locator("#ex-hero-xylia").get_by_role("button", name="Add").click()
    expect(ben.locator("#ex-hero-xylia .loot-card")).to_contain_text("Healing Potion")
    for colour in "ABC":
        plus(ana, f"Mushrooms, colour {colour}", 1)
        plus(ben, f"Mushrooms, colour {colour}", 2)
    # A tap that left before another phone's move reached this one (its view still shows
    # the older version, which the page sends) changes nothing: the phone says why and
    # shows the table as it is.
    open_panel(ana, chapter_panel(ana))
    ana.locator("#view .view").evaluate("view => { view.dataset.version = String(Number(view.dataset.version) - 1); }")
    ana.get_by_role("button", name="Mushrooms, colour A minus one").click()
    expect(ana.get_by_role("alert")).to_contain_text("Someone else changed the table first.")
    for page in (ana, ben):
        expect(quest_row(page, "Mushrooms, colour A").locator(".step-value")).to_have_text(shows(2))
    expect(chapter_panel(ana)).to_have_attribute("open", "")
    plus(ana, "Empty vials", 1)
    plus(ana, "Empty vials", 2)
    # Too few orbs for a potion: refused with the cost.
    open_panel(ana, chapter_panel(ana))
    ana.get_by_role("button", name="Xylia concocts a potion").click()
    expect(ana.get_by_role("alert")).to_contain_text("A potion costs 2 orbs; Xylia has 0.")
    for orbs in range(1, 5):
        open_panel(ana, ana.locator("#ex-hero-xylia"))
        ana.get_by_role("button", name="Xylia orbs plus one").click()
        expect(ana.locator(".ex-hero-stat.hero-xylia .ex-orbs")).to_have_text(f"{orbs}🔵")
    for potions in (1, 2):
        open_panel(ana, chapter_panel(ana))
        ana.get_by_role("button", name="Xylia concocts a potion").click()
        expect(ben.locator(".ex-chapter-strip .stat b").first).to_have_text(f"{potions}/2")
    # The ambush: 1 Monster plus 1 per Hero on the Campfire, said under the numbers.
    expect(ben.locator(".ex-chapter-strip")).to_contain_text("Ambush!")
    expect(ben.locator(".ex-chapter-strip .stat b").nth(2)).to_have_text("5")
    check_screen(ben, "campaign-03-ambush", HEIGHTS)
    open_panel(ben, ben.locator("#ex-monsters"))
    ben.get_by_role("button", name="Snake defeated plus one").click()
    expect(ana.locator("#ex-monsters summary b")).to_have_text("1")
    for left in (4, 3, 2, 1, 0):
        open_panel(ben, chapter_panel(ben))
        ben.get_by_role("button", name="Monsters on the Campfire minus one").click()
        if left:
            expect(ben.locator(".ex-chapter-strip .stat b").nth(2)).to_have_text(str(left))

    # Won: the result and the confirmation of the chapter's end are the first thing on both
    # phones. The chapter is recorded, and The Forest Awakens drawn, only once confirmed.
    for page in (ana, ben):
        expect(page.locator("[data-primary] .ex-result-title")).to_have_text("🏆 Victory!")
        expect(page.locator("[data-primary] .camp-result")).to_contain_text("then confirm")
    check_screen(ana, "campaign-04-chapter-1-won", HEIGHTS)

    ben.get_by_role("button", name="Confirm the end of the chapter").click()
    # The draw reaches the other phone at the table, in its result and in its log.
    expect(ana.locator("[data-primary] .camp-result")).to_contain_text(
        "Snakes were defeated most (1) and become Enraged.")
    expect(ben.locator("[data-primary] .turn-big")).to_have_text("Chapter 2")
    left_table(ben)
    expect(ben.locator(".camp-awakens-last")).to_contain_text("Snakes were defeated most (1)")
    expect(ben.locator(".camp-heroes .hero-xylia")).to_contain_text("🎒 1")
    open_panel(ben, ben.locator("#camp-loot"))
    expect(ben.locator("#camp-loot")).to_contain_text("Healing Potion")
    expect(ben.locator("#camp-enraged summary")).to_contain_text("1")
    check_screen(ben, "campaign-05-page-chapter-2", HEIGHTS)
    ben.reload()  # a reload draws nothing again
    expect(ben.locator(".camp-awakens-last")).to_contain_text("Snakes were defeated most (1)")
    expect(ben.locator("#camp-awakens")).to_have_count(0)

    # Ben starts chapter 2: he is taken to its table in the seat he held at chapter 1.
    ben.get_by_role("button", name=re.compile("Start chapter 2")).click()
    expect(ben.locator(".seat-chip.mine")).to_contain_text("Bartholomew-Alexander")
    code2 = re.search(r"/t/([A-Z0-9]+)$", ben.url).group(1)
    assert code2 != code
    # Ana, still at chapter 1's table, is offered her seat there as it happens; one tap.
    go_on = ana.locator("[data-primary]").get_by_role("button", name=re.compile("Go on to chapter 2 as Ana"))
    expect(go_on).to_be_visible()
    check_screen(ana, "campaign-05b-go-on-to-chapter-2", HEIGHTS)
    go_on.click()
    expect(ana).to_have_url(f"{live_server}/t/{code2}")
    expect(ana.locator(".seat-chip.mine")).to_contain_text("Ana")
    left_table(ana)
    for page in (ana, ben):
        expect(page.locator(".quest-title")).to_have_text("Tree of Life (part 1)")
        expect(page.locator("#ex-hero-xylia .loot-card")).to_contain_text("Healing Potion")
        expect(page.locator(".ex-hero-stat.hero-xylia .ex-orbs")).to_have_text("0🔵")
        expect(page.locator("#ex-monsters .monster-row", has_text="Snake")).to_contain_text("Enraged")
    expect(ana.locator(".ex-chapter-strip .stat b").nth(1)).to_have_text("18")
    check_screen(ana, "campaign-06-chapter-2", HEIGHTS)

    # Four Orb markers lost: the chapter is lost, and the campaign page asks for the discards.
    for lost in (1, 2, 3):
        plus(ana, "Orb markers lost", lost)
    open_panel(ana, chapter_panel(ana))
    ana.get_by_role("button", name="Orb markers lost plus one").click()
    expect(ben.locator("[data-primary] .ex-result-title")).to_have_text("💀 Defeat")
    check_screen(ben, "campaign-07-chapter-2-lost", HEIGHTS)
    ben.get_by_role("link", name="📜 Back to the campaign").click()
    left_table(ben)
    # The campaign page asks for the confirmation too.
    expect(ben.locator("[data-primary]")).to_contain_text("Chapter 2 ended at table")
    check_screen(ben, "campaign-07b-confirm-the-end", HEIGHTS)
    ben.get_by_role("button", name="Confirm the end of chapter 2").click()
    expect(ben.locator("[data-primary]")).to_contain_text("Chapter 2 was lost.")
    expect(ben.get_by_label("Xylia discards")).to_have_value("0")
    expect(ben.locator(".camp-discards .row")).to_have_count(4)
    check_screen(ben, "campaign-08-discards", HEIGHTS)
    ben.get_by_role("button", name="Discard and restart chapter 2").click()
    expect(ben.locator("[data-primary]")).to_contain_text("Start chapter 2")
    expect(ben.locator(".camp-heroes .hero-xylia")).to_contain_text("🎒 0")
    for page in (ana, ben):
        WATCHES.pop(page).assert_clean()
