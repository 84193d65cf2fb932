"""Explorers of the Woodlands: two phones play until the Boss's threat track runs out."""

import re

import pytest

from .browser import browser, live_server, phones, shot, tap as tap_button  # noqa: F401  (fixtures)
from .test_browser_table import join

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect


def hero_card(page, label):
    return page.locator("article.hero-card", has=page.locator(".hero-name", has_text=label))


def tap(page, name):
    tap_button(page, name, exact=True)


def test_two_phones_play_until_the_threat_track_is_lost(live_server, phones):
    ana, ben = phones(2)
    ana.goto(live_server + "/")
    ana.get_by_role("link", name=re.compile("Explorers of the Woodlands")).click()
    ana.get_by_label("Player 1", exact=True).fill("Ana")
    ana.get_by_label("Player 2", exact=True).fill("Ben")
    ana.get_by_label("Player 1's Hero").select_option("xylia")
    ana.get_by_label("Player 2's Hero").select_option("klethor")
    ana.locator(".seg", has_text="Difficult").click()
    ana.get_by_label("Enraged Bosses card").check()
    shot(ana, "30-ex-setup-form")
    ana.get_by_role("button", name="Create the table").click()
    code = ana.locator(".code-big").first.inner_text().strip()
    ana.get_by_role("button", name="I am Ana").click()
    expect(ana.locator(".seat-chip.mine")).to_contain_text("Ana")
    join(ben, live_server, code, "Ben")

    # Round 1, Phase 1: the setup checklist follows the choices; Ana then Ben place a tile.
    expect(ben.locator(".ex-setup")).to_contain_text("Difficult Thorns card")
    expect(ben.locator(".ex-setup")).to_contain_text("Enraged Bosses card")
    expect(ben.locator(".turn-big")).to_have_text("🌲 Ana")
    shot(ben, "31-ex-round-1-growth")
    tap(ana, "Ana placed a tile")
    expect(ben.locator(".turn-big")).to_have_text("🌲 Ben")
    tap(ben, "Ben placed a tile")

    # Phase 2: Ana's Xylia plays first, shown big on both phones.
    for page in (ana, ben):
        expect(page.locator(".turn-big")).to_contain_text("Ana · Xylia")
        expect(page.locator(".ex-stats").first).to_contain_text("20")
    xylia = hero_card(ana, "Xylia")
    tap(ana, "🧭 High-Risk Movement · +1 orb, 1 tile")
    expect(hero_card(ben, "Xylia").locator(".orb-row .step-value")).to_have_text("1 🔵")
    tap(ana, "Xylia Concentration off")
    xylia.get_by_role("button", name="Xylia HP 3").click()
    expect(hero_card(ben, "Xylia").locator(".hp-label b").first).to_have_text("3")
    tap(ana, "Xylia Poison off")
    expect(hero_card(ben, "Xylia").get_by_role("button", name="Xylia Poison on")).to_be_visible()
    # Out of range is refused with the rulebook's words: orbs cannot go below 0 for Klethor.
    klethor_minus = hero_card(ana, "Klethor").get_by_role("button", name="Klethor orbs minus one")
    expect(klethor_minus).to_be_disabled()
    # Unlocking a Power with too few orbs is refused with the cost.
    hero_card(ana, "Xylia").get_by_role("button", name="Unlock Xylia's next Power").click()
    expect(ana.locator(".notice.error")).to_have_text("Xylia has 1 orb; the first Power costs 3.")
    hero_card(ana, "Xylia").get_by_label("Loot card for Xylia").fill("Healing Potion")
    hero_card(ana, "Xylia").get_by_role("button", name="Add").click()
    expect(hero_card(ben, "Xylia").locator(".loot-card")).to_contain_text("Healing Potion")

    # Xylia enters the Boss tile: Fungor, a track of 7 spaces.
    ana.locator(".ex-boss summary").click()
    ana.get_by_label("Which Boss").select_option("fungor")
    ana.get_by_label("Spaces on the threat track").fill("7")
    ana.get_by_role("button", name="Reveal the Boss").click()
    for page in (ana, ben):
        expect(page.locator(".ex-boss h2")).to_have_text("👑 Fungor, Lord of Mushrooms")
        expect(page.locator(".track li.cube")).to_have_text("1")
    expect(ben.locator(".ex-boss")).to_contain_text("Enraged Fungor permanently has 4 health points.")
    shot(ana, "32-ex-boss-revealed")

    # End of Xylia's turn: her Concentration orb arrives and the threat moves by itself.
    tap(ana, "End turn")
    for page in (ana, ben):
        expect(page.locator(".turn-big")).to_contain_text("Ben · Klethor")
        expect(page.locator(".track li.cube")).to_have_text("2")
    expect(hero_card(ben, "Xylia").locator(".orb-row .step-value")).to_have_text("2 🔵")
    expect(ben.locator(".events")).to_contain_text("Threat +1: end of Ana's turn (now 2 of 7).")
    shot(ben, "33-ex-ben-turn")
    tap(ben, "Threat plus one: Combat skill")
    expect(ana.locator(".track li.cube")).to_have_text("3")
    tap(ben, "End turn")
    expect(ana.locator(".turn-big")).to_have_text("Round 1 is played")
    tap(ana, "End round")

    # Round 2: the round's end moved the threat; Poison costs Xylia 1 HP at her turn's start.
    expect(ben.locator(".track li.cube")).to_have_text("5")
    expect(ben.locator(".events")).to_contain_text("Threat 5: Enraged Fungor does 1 damage")
    tap(ana, "Ana placed a tile")
    tap(ben, "Ben placed a tile")
    expect(ana.locator(".events")).to_contain_text("Poison: Xylia loses 1 HP at the start of her turn (3 → 2 HP).")
    expect(hero_card(ben, "Xylia").locator(".hp-label b").first).to_have_text("2")
    shot(ana, "34-ex-poison")
    # Undo brings the HP back on both phones, and redoing the step applies Poison again.
    ana.get_by_role("button", name=re.compile("Undo")).click()
    expect(ben.locator(".turn-big")).to_have_text("🌲 Ben")
    tap(ben, "Ben placed a tile")
    expect(hero_card(ana, "Xylia").locator(".hp-label b").first).to_have_text("2")

    tap(ben, "Mushroom defeated plus one")
    tap(ben, "Mushroom defeated plus one")
    expect(ana.locator(".ex-monsters h2")).to_have_text("Monsters defeated: 2")
    tap(ana, "End turn")  # threat 6
    expect(ben.locator(".track li.cube")).to_have_text("6")
    tap(ben, "End turn")  # threat 7: the last space
    for page in (ana, ben):
        expect(page.locator(".ex-result-title")).to_have_text("💀 Defeat")
        expect(page.locator(".ex-result")).to_contain_text("last space of its track (7)")
        expect(page.locator(".ex-result .stat").nth(0)).to_contain_text("2")
        expect(page.locator(".ex-result .stat").nth(1)).to_contain_text("7/7")
        expect(page.locator(".ex-result .stat").nth(2)).to_contain_text("2")
        expect(page.locator(".ex-result")).to_contain_text("🍄 Mushroom 2")
    shot(ana, "35-ex-defeat-ana")
    shot(ben, "36-ex-defeat-ben")
