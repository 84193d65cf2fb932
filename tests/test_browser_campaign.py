"""An Explorers campaign on two phones: chapter 1 played to a win, The Forest Awakens, and
chapter 2 started with what the Heroes carried over."""

import re

import pytest

from .browser import browser, live_server, phones, shot  # noqa: F401  (fixtures)
from .test_browser_table import join

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect


def hero_card(page, label):
    return page.locator("article.hero-card", has=page.locator(".hero-name", has_text=label))


def quest_row(page, label):
    return page.locator(".quest-row", has=page.locator(".monster-name", has_text=label))


def plus(page, label, to):
    """Tap a chapter counter's + and wait until the phone shows the new value."""
    page.get_by_role("button", name=f"{label} plus one").click()
    expect(quest_row(page, label).locator(".step-value")).to_contain_text(str(to))


def test_a_chapter_won_carries_over_into_the_next(live_server, phones):
    ana, ben = phones(2)
    ana.goto(live_server + "/")
    ana.get_by_role("link", name=re.compile("Explorers campaigns")).click()
    ana.get_by_label("Campaign name").fill("Winter Woods")
    ana.get_by_label("Player 1", exact=True).fill("Ana")
    ana.get_by_label("Player 2", exact=True).fill("Ben")
    ana.get_by_label("Player 1's Hero").select_option("xylia")
    ana.get_by_label("Player 2's Hero").select_option("klethor")
    shot(ana, "60-campaign-new")
    ana.get_by_role("button", name="Begin the campaign").click()
    expect(ana.locator(".turn-big")).to_have_text("Chapter 1")
    ana.get_by_role("button", name=re.compile("Start chapter 1")).click()
    code = ana.locator(".code-big").first.inner_text().strip()
    ana.get_by_role("button", name="I am Ana").click()
    join(ben, live_server, code, "Ben")

    # The chapter's own setup and counters are on every phone.
    for page in (ana, ben):
        expect(page.locator(".quest h2")).to_have_text("Mushrooms for the Elder")
        expect(page.locator(".ex-setup")).to_contain_text("6 Mushroom and 2 Empty Vial")
    expect(ben.locator(".ex-boss")).to_have_count(0)  # no Boss in chapter 1
    shot(ben, "61-campaign-chapter-1")

    hero_card(ana, "Xylia").get_by_label("Loot card for Xylia").fill("Healing Potion")
    hero_card(ana, "Xylia").get_by_role("button", name="Add").click()
    expect(hero_card(ben, "Xylia").locator(".loot-card")).to_contain_text("Healing Potion")
    for colour in "ABC":
        plus(ana, f"Mushrooms, colour {colour}", 1)
        plus(ben, f"Mushrooms, colour {colour}", 2)
    plus(ana, "Empty vials", 1)
    plus(ana, "Empty vials", 2)
    # Too few orbs for a potion: refused with the cost.
    ana.get_by_role("button", name="Xylia concocts a potion").click()
    expect(ana.locator(".notice.error")).to_have_text("A potion costs 2 orbs; Xylia has 0.")
    for orbs in range(1, 5):
        hero_card(ana, "Xylia").get_by_role("button", name="Xylia orbs plus one").click()
        expect(hero_card(ana, "Xylia").locator(".orb-row .step-value")).to_have_text(f"{orbs} 🔵")
    ana.get_by_role("button", name="Xylia concocts a potion").click()
    expect(ben.locator(".quest .ex-stats .stat b").first).to_have_text("1/2")
    ana.get_by_role("button", name="Xylia concocts a potion").click()
    # The ambush: 1 Monster plus 1 per Hero on the Campfire.
    expect(ben.locator(".quest")).to_contain_text("Ambush!")
    expect(quest_row(ben, "Monsters on the Campfire").locator(".step-value")).to_have_text("3")
    shot(ben, "62-campaign-ambush")
    ben.get_by_role("button", name="Snake defeated plus one").click()
    expect(ana.locator(".monster-row", has_text="Snake").locator(".step-value")).to_have_text("1")
    for left in (2, 1, 0):
        ben.get_by_role("button", name="Monsters on the Campfire minus one").click()
        if left:
            expect(quest_row(ben, "Monsters on the Campfire").locator(".step-value")).to_have_text(
                str(left))

    # Won: recorded in the campaign, The Forest Awakens shown on both phones.
    for page in (ana, ben):
        expect(page.locator(".ex-result-title")).to_have_text("🏆 Victory!")
        expect(page.locator(".camp-result")).to_contain_text(
            "Snakes were defeated most (1) and become Enraged.")
    shot(ana, "63-campaign-chapter-1-won")

    ben.get_by_role("link", name="📜 Back to the campaign").click()
    expect(ben.locator(".turn-big")).to_have_text("Chapter 2")
    expect(ben.locator(".camp-awakens")).to_contain_text("Snakes were defeated most (1)")
    expect(hero_card(ben, "Xylia")).to_contain_text("Healing Potion")
    expect(ben.get_by_label("Enraged Monsters")).to_contain_text("Snake")
    shot(ben, "64-campaign-page")
    ben.reload()  # a reload draws nothing again
    expect(ben.locator(".camp-awakens p")).to_have_count(1)

    ben.get_by_role("button", name=re.compile("Start chapter 2")).click()
    code2 = ben.locator(".code-big").first.inner_text().strip()
    assert code2 != code
    ben.get_by_role("button", name="I am Ben").click()
    join(ana, live_server, code2, "Ana")
    for page in (ana, ben):
        expect(page.locator(".quest h2")).to_have_text("Tree of Life (part 1)")
        expect(hero_card(page, "Xylia").locator(".loot-card")).to_contain_text("Healing Potion")
        expect(hero_card(page, "Xylia").locator(".orb-row .step-value")).to_have_text("0 🔵")
        expect(page.locator(".monster-row", has_text="Snake")).to_contain_text("Enraged")
    expect(ana.locator(".quest .ex-stats")).to_contain_text("15")
    plus(ana, "Orb markers lost", 1)
    expect(ben.locator(".quest")).to_contain_text("1 lost (4 lost is defeat)")
    shot(ana, "65-campaign-chapter-2")
