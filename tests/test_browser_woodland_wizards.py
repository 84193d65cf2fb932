"""Woodland Wizards: a whole four-round game with four phones."""

import re

import pytest

from .browser import browser, live_server, phones, shot, tap  # noqa: F401  (fixtures)
from .test_browser_table import join

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect

PLAYERS = ["Ana", "Ben", "Cara", "Dan"]


def enter_own_total(page, sum_text, total):
    row = page.locator(".total-row.me")
    row.locator(".sum-input").fill(sum_text)
    expect(row.locator(".total-input")).to_have_value(str(total))
    row.get_by_role("button", name=re.compile("Save|Change")).click()
    expect(page.locator(".notice.error")).to_have_count(0)
    expect(page.locator(".total-row.me .total-input")).to_have_value(str(total))


def log_creature(page, who, value, phoenix=False):
    form = page.locator("form.creature", has=page.get_by_role("heading", name=f"{who}'s Contest Creature"))
    form.get_by_label(f"{who}'s creature value").fill(str(value))
    if phoenix:
        form.get_by_label("It is the Golden Phoenix").check()
    form.get_by_role("button", name=re.compile("Add to")).click()
    expect(page.get_by_role("heading", name=f"{who}'s Contest Creature")).to_have_count(0)


def play_round(pages, totals, scorers, next_label):
    ana = pages[0]
    tap(ana, "Go to Boost")
    expect(ana.locator("h2", has_text="Boost round 1 of 3")).to_be_visible()
    tap(ana, "Ana boosts")
    expect(ana.locator(".boost-row", has_text="Ana")).to_contain_text("played this round")
    tap(ana, "Ben passes")
    expect(pages[1].locator(".boost-row", has_text="Ben")).to_contain_text("passed")
    tap(ana, "Go to Scoring")
    for page, (text, total) in zip(pages, totals):
        expect(page.locator(".total-row.me")).to_be_visible()
        enter_own_total(page, text, total)
    # Cara ranks the round once her phone shows every total in.
    expect(pages[2].get_by_text("Every total is in")).to_be_visible()
    tap(pages[2], "Rank the round")
    for page in pages:
        expect(page.locator("h2", has_text="result")).to_be_visible()
    for who, value, phoenix in scorers:
        log_creature(pages[1], who, value, phoenix)
    # Dan moves on once his phone shows every creature scored.
    expect(pages[3].get_by_role("heading", name=re.compile("Contest Creature"))).to_have_count(0)
    tap(pages[3], next_label)


def test_four_phones_play_four_rounds(live_server, phones):
    pages = phones(4)
    host = pages[0]
    host.goto(live_server + "/")
    host.get_by_role("link", name=re.compile("Woodland Wizards")).click()
    for i, name in enumerate(PLAYERS):
        host.get_by_label(f"Player {i + 1}", exact=True).fill(name)
    host.get_by_label("First starting player").select_option("0")
    host.get_by_role("button", name="Create the table").click()
    code = host.locator(".code-big").first.inner_text().strip()
    host.get_by_role("button", name="I am Ana").click()
    expect(host.locator(".seat-chip.mine")).to_contain_text("Ana")
    for page, name in zip(pages[1:], PLAYERS[1:]):
        join(page, live_server, code, name)

    # Round 1, Ana starts: Ben and Cara tie on 12; Ben sits closer to Ana, so Ben wins.
    play_round(pages, [("7+3", 10), ("8+5-1", 12), ("12", 12), ("5", 5)],
               [("Ben", 5, False), ("Cara", 4, True)], "Clean up and start round 2")
    for page in pages:
        expect(page.locator(".wf-head")).to_contain_text("2/4")
        expect(page.locator(".wf-head")).to_contain_text("Cara")  # left of the winner Ben
    shot(pages[2], "20-ww-round-2")

    # Round 2, Cara starts: Dan 9 wins; Ana and Ben tie on 8, Ana is closer to Cara.
    play_round(pages, [("8", 8), ("8", 8), ("3", 3), ("9", 9)],
               [("Dan", 5, False), ("Ana", 4, False)], "Clean up and start round 3")
    expect(pages[0].locator(".wf-head")).to_contain_text("Ana")
    # Round 3, Ana starts.
    play_round(pages, [("11", 11), ("2", 2), ("3", 3), ("4", 4)],
               [("Ana", 5, False), ("Dan", 4, False)], "Clean up and start round 4")
    expect(pages[1].locator(".wf-head")).to_contain_text("Ben")
    # Round 4, Ben starts; no clean-up after it.
    expect(pages[1].locator(".checklist")).to_contain_text("not in round 4")
    play_round(pages, [("1", 1), ("20", 20), ("15", 15), ("2", 2)],
               [("Ben", 4, False), ("Cara", 5, False)], "Final scores")

    # Everyone has 9 points: the tie-breaks decide, each step said in words.
    for page in pages:
        expect(page.locator(".results h2")).to_have_text("🏆 Cara wins")
    names = [t.split(". ", 1)[1].split(" ")[0] for t in pages[0].locator(".results .standings b").all_inner_texts()]
    assert names == ["Cara", "Ben", "Dan", "Ana"]
    reasons = pages[0].locator(".results").inner_text()
    assert "Golden Phoenix" in reasons
    shot(pages[0], "21-ww-final")
