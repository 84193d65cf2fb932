"""Explorers of the Woodlands on three phones at 390x844: at every phase the first screen holds
what this phone does now (or whose turn it is) and the numbers; the rest is in panels."""

import re

import pytest

from .browser import (Watch, assert_fits_phone, assert_primary_clear,  # noqa: F401
                      browser, live_server, phones, record_screen, tap as tap_button, up_to_date)
from .test_browser_table import join

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect

LONG_NAME = "Cara-Philippa Montgomery"
SMALL_TARGETS = """() => [...document.querySelectorAll(
    'main button, main summary, main a.btn, main select, main input:not([type=hidden])')]
  .filter(e => e.getClientRects().length && !e.closest('.bottom-bar'))
  .map(e => [Math.round(e.getBoundingClientRect().height), (e.textContent || e.getAttribute('aria-label') || '').trim()])
  .filter(([height]) => height < 44)"""
CUT_TEXT = """() => [...document.querySelectorAll('[data-primary] *, .ex-numbers *, .camp-heroes *, .ex-panel > summary *')]
  .filter(e => e.getClientRects().length && e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflow !== 'visible')
  .map(e => e.textContent.trim())"""


def hero_panel(page, label):
    return page.locator("details.hero-card", has=page.locator(".hero-name", has_text=label))


def open_panel(page, panel):
    """Open a closed panel by its summary, as a thumb would."""
    if "/t/" in page.url:
        up_to_date(page)  # no refresh on its way could replace the board between two taps
    if panel.get_attribute("open") is None:
        panel.locator(":scope > summary").first.click()
    expect(panel).to_have_attribute("open", "")


def tap(page, name):
    """Tap the button named `name`, whose spoken name may go on with its own words
    ("End turn: End Xylia's turn"), but no other button that merely contains `name`."""
    tap_button(page, re.compile("^" + re.escape(name) + "(: .*)?$"))


WATCHES = {}


def watch(*pages):
    """Watch each phone for console errors and failed requests from now on."""
    for page in pages:
        WATCHES[page] = Watch(page)


def check_screen(page, name, heights="heights-ex.json"):
    """The phone's first screen holds its primary action above the bottom bar; nothing is
    wider than the phone, no target is small, no name is cut; a full-page shot is kept."""
    assert_primary_clear(page, name)
    assert_fits_phone(page)
    assert page.evaluate(SMALL_TARGETS) == [], name
    assert page.evaluate(CUT_TEXT) == [], name
    record_screen(page, name, heights)
    if page in WATCHES:
        WATCHES[page].assert_clean()


def start_table(live_server, pages, names, heroes=("xylia", "klethor", "shavi", "bethras"),
                harder=False):
    """The first phone creates the table and takes the first seat; each other phone joins."""
    host = pages[0]
    host.goto(live_server + "/")
    host.get_by_role("link", name=re.compile("Explorers of the Woodlands")).click()
    for i, (name, hero) in enumerate(zip(names, heroes), start=1):
        host.get_by_label(f"Player {i}", exact=True).fill(name)
        host.get_by_label(f"Player {i}'s Hero").select_option(hero)
    if harder:
        host.locator(".seg", has_text="Difficult").click()
        host.get_by_label("Enraged Bosses card").check()
    host.get_by_role("button", name="Create the table").click()
    code = host.locator(".code-big").first.inner_text().strip()
    host.get_by_role("button", name=f"I am {names[0]}").click()
    expect(host.locator(".seat-chip.mine")).to_contain_text(names[0])
    for page, name in zip(pages[1:], names[1:]):
        join(page, live_server, code, name)
    return code


def test_three_phones_play_a_game_to_victory_one_glance_at_a_time(live_server, phones):
    ana, ben, cara = phones(3)
    start_table(live_server, (ana, ben, cara), ("Ana", "Ben", LONG_NAME), harder=True)
    watch(ana, ben, cara)

    # Setup: the checklist is open under the numbers; the first screen says who places a tile.
    expect(ben.locator("#ex-setup")).to_contain_text("Difficult Thorns card")
    expect(ben.locator("#ex-setup")).to_have_attribute("open", "")
    expect(ben.locator("[data-primary] .turn-big")).to_have_text("🌲 Ana")
    expect(ben.get_by_role("button", name="Ana placed a tile")).to_have_count(0)  # Ana's own phone taps it
    expect(ana.locator("[data-primary]")).to_contain_text("your turn")
    check_screen(ana, "ex-01-setup")
    tap(ana, "Ana placed a tile")
    tap(ben, "Ben placed a tile")
    expect(cara.locator("[data-primary] .turn-big")).to_have_text(f"🌲 {LONG_NAME}")
    check_screen(cara, "ex-02-growth")
    tap(cara, f"{LONG_NAME} placed a tile")

    # Phase 2: Ana's Xylia plays; her phone has her buttons, the others see whose turn it is.
    for page in (ana, ben, cara):
        expect(page.locator("[data-primary] .turn-big")).to_contain_text("Ana · Xylia")
        expect(page.locator(".ex-numbers .ex-game-stat").nth(1)).to_contain_text("19")
    expect(ben.get_by_role("button", name="End turn")).to_have_count(0)
    check_screen(ana, "ex-03-xylia-turn")
    check_screen(ben, "ex-04-watching-xylia")
    tap(ana, "🧭 High-Risk Movement · +1 orb, 1 tile")
    expect(ben.locator(".ex-hero-stat.hero-xylia .ex-orbs")).to_have_text("1🔵")
    tap(ana, "Xylia Concentration off")

    # HP, markers and Loot are in the Hero's panel, its summary shows them from afar.
    xylia = hero_panel(ana, "Xylia")
    open_panel(ana, xylia)
    xylia.get_by_role("button", name="Xylia HP 3").click()
    expect(ben.locator(".ex-hero-stat.hero-xylia .ex-hp")).to_have_text("3❤")
    expect(hero_panel(ben, "Xylia").locator(":scope > summary")).to_contain_text("3 ❤")
    open_panel(ana, xylia)
    tap(ana, "Xylia Poison off")
    expect(hero_panel(cara, "Xylia").locator(":scope > summary .poison")).to_have_count(1)
    open_panel(ana, xylia)
    xylia.get_by_role("button", name="Unlock Xylia's next Power").click()
    expect(ana.get_by_role("alert")).to_contain_text("Xylia has 1 orb; the first Power costs 3.")
    open_panel(ana, xylia)
    xylia.get_by_label("Loot card for Xylia").fill("Healing Potion of the Old Oak")
    xylia.get_by_role("button", name="Add").click()
    expect(hero_panel(ben, "Xylia").locator(".loot-card")).to_contain_text("Healing Potion of the Old Oak")

    # Xylia enters the Boss tile. A refused form keeps the chosen Boss and says why.
    boss = ana.locator("#ex-boss")
    open_panel(ana, boss)
    ana.get_by_label("Which Boss").select_option("fungor")
    ana.get_by_role("button", name="Reveal the Boss").click()
    expect(ana.get_by_role("alert")).to_contain_text("Threat track length")
    expect(ana.get_by_label("Which Boss")).to_have_value("fungor")
    open_panel(ana, boss)
    ana.get_by_label("Spaces on the threat track").fill("7")
    ana.get_by_role("button", name="Reveal the Boss").click()
    for page in (ana, ben, cara):
        expect(page.locator("#ex-boss summary")).to_contain_text("Fungor, Lord of Mushrooms")
        expect(page.locator(".track li.cube")).to_have_text("1")
        expect(page.locator(".ex-threat b")).to_have_text("1/7")
    expect(ben.locator("#ex-boss")).to_contain_text("Enraged Fungor permanently has 4 health points.")
    check_screen(ana, "ex-05-boss-revealed")

    # End of Xylia's turn: her Concentration orb arrives and the threat moves by itself.
    tap(ana, "End turn")
    for page in (ana, ben, cara):
        expect(page.locator("[data-primary] .turn-big")).to_contain_text("Ben · Klethor")
        expect(page.locator(".ex-threat b")).to_have_text("2/7")
    expect(ben.locator(".events")).to_contain_text("Threat +1: end of Ana's turn (now 2 of 7).")
    expect(ben.locator(".ex-hero-stat.hero-xylia .ex-orbs")).to_have_text("2🔵")
    check_screen(ben, "ex-06-klethor-turn")
    tap(ben, "Threat plus one: Combat skill")
    expect(cara.locator(".ex-threat b")).to_have_text("3/7")
    # A Monster defeated is counted in the Monsters panel.
    open_panel(ben, ben.locator("#ex-monsters"))
    tap(ben, "Mushroom defeated plus one")
    expect(cara.locator("#ex-monsters summary")).to_contain_text("1")
    tap(ben, "End turn")

    # Sha'Vi is knocked down on her own turn; on Ana's turn First Aid stands her up.
    expect(cara.locator("[data-primary] .turn-big")).to_contain_text(f"{LONG_NAME} · Sha'Vi")
    check_screen(cara, "ex-07-long-name-turn")
    shavi = hero_panel(cara, "Sha'Vi")
    open_panel(cara, shavi)
    shavi.get_by_role("button", name="Sha'Vi HP 0").click()
    expect(cara.locator("[data-primary]")).to_contain_text("knocked down")
    expect(ana.locator(".ex-hero-stat.hero-shavi .ex-hp")).to_have_text("💀")
    check_screen(cara, "ex-08-knocked-down")
    tap(cara, "End turn")
    expect(ana.locator("[data-primary] .turn-big")).to_have_text("Round 1 is played")
    check_screen(ana, "ex-09-round-played")
    tap(ana, "End round")
    for name in ("Ana placed a tile", "Ben placed a tile", f"{LONG_NAME} placed a tile"):
        page = {"A": ana, "B": ben, "C": cara}[name[0]]
        tap(page, name)
    # Poison costs Xylia 1 HP at her turn's start; First Aid is with her turn's buttons.
    expect(ana.locator(".events")).to_contain_text("Poison: Xylia loses 1 HP")
    first_aid = ana.get_by_role("button", name="First Aid for Sha'Vi")
    expect(first_aid).to_be_visible()
    check_screen(ana, "ex-10-poison-first-aid")
    first_aid.click()
    expect(ana.get_by_role("alert")).to_contain_text("orb")  # too few orbs: refused with the cost
    open_panel(ana, hero_panel(ana, "Xylia"))
    hero_panel(ana, "Xylia").get_by_role("button", name="Xylia orbs plus one").click()
    expect(ana.locator(".ex-hero-stat.hero-xylia .ex-orbs")).to_have_text("3🔵")
    tap(ana, "First Aid for Sha'Vi")
    expect(cara.locator(".ex-hero-stat.hero-shavi .ex-hp")).to_have_text("1❤")

    # Victory: the Boss is defeated from its panel; the result is the first thing on every phone.
    open_panel(ben, ben.locator("#ex-boss"))
    tap(ben, "The Boss is defeated")
    for page in (ana, ben, cara):
        expect(page.locator("[data-primary] .ex-result-title")).to_have_text("🏆 Victory!")
    check_screen(ana, "ex-11-victory")
    check_screen(cara, "ex-12-victory-cara")
    for page in (ana, ben, cara):
        WATCHES.pop(page).assert_clean()


def test_the_boss_revealed_by_an_empty_stack_is_named_first_then_the_track_runs_out(live_server, phones):
    ana, ben = phones(2)
    start_table(live_server, (ana, ben), ("Ana", "Ben"))
    watch(ana, ben)

    # Phase 1 with the stack corrected to nothing: the tile due reveals the Boss.
    for left in range(21, -1, -1):
        open_panel(ana, ana.locator("#ex-forest"))
        ana.get_by_role("button", name="Tiles in the stack minus one").click()
        expect(ana.locator("#ex-forest summary b")).to_have_text(str(left))
    for page in (ana, ben):
        expect(page.locator("[data-primary] .turn-big")).to_have_text("👑 The Boss is revealed!")
    check_screen(ben, "ex-20-boss-reveal-due")
    # A refusal keeps the Boss chosen on this phone, even through another phone's move.
    ben.get_by_label("Which Boss").select_option("grimnor")
    ben.get_by_role("button", name="Name the Boss").click()
    expect(ben.get_by_role("alert")).to_contain_text("Threat track length")
    open_panel(ana, ana.locator("#ex-monsters"))
    ana.get_by_role("button", name="Mushroom defeated plus one").click()
    expect(ben.locator("#ex-monsters summary b")).to_have_text("1")
    expect(ben.get_by_label("Which Boss")).to_have_value("grimnor")
    ben.get_by_label("Spaces on the threat track").fill("3")
    ben.get_by_role("button", name="Name the Boss").click()
    expect(ana.locator("#ex-boss summary")).to_contain_text("Grimnor")
    check_screen(ana, "ex-21-adventure-after-reveal")

    # The threat runs out: defeat, first on every phone.
    tap(ana, "End turn")
    tap(ben, "End turn")
    for page in (ana, ben):
        expect(page.locator("[data-primary] .ex-result-title")).to_have_text("💀 Defeat")
        expect(page.locator("[data-primary]")).to_contain_text("last space of its track (3)")
    check_screen(ben, "ex-22-defeat")
    for page in (ana, ben):
        WATCHES.pop(page).assert_clean()


def test_a_panel_open_on_one_phone_stays_open_while_another_phone_plays(live_server, phones):
    ana, ben = phones(2)
    start_table(live_server, (ana, ben), ("Ana", "Ben"))
    watched = Watch(ben)
    klethor = hero_panel(ben, "Klethor")
    open_panel(ben, klethor)
    klethor.locator("details.fix summary").click()
    expect(klethor.locator("details.fix")).to_have_attribute("open", "")

    tap(ana, "Ana placed a tile")
    expect(ben.locator("[data-primary] .turn-big")).to_have_text("🌲 Ben")
    expect(klethor).to_have_attribute("open", "")
    expect(klethor.locator("details.fix")).to_have_attribute("open", "")
    watched.assert_clean()
