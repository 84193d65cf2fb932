"""The history on two phones: a finished game, its replay and chart, stats, a merge, import, rematch."""

import json
import re

import pytest

import os

from .browser import SHOTS, browser, live_server, phones, shot  # noqa: F401  (fixtures)
from .helpers import with_step
from .history_fixture import stats_export

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect

ROUNDS = [([10, 5, 7], 4), ([3, 9, 2], 6), ([7, 2, 12], 5), ([1, 8, 6], 2)]


def shot_of(locator, name):
    """A picture of one part of the page, at the phone's size."""
    os.makedirs(SHOTS, exist_ok=True)
    locator.screenshot(path=os.path.join(SHOTS, f"{name}.png"))


def api_act(page, base, code, action, params=None, seat=0):
    table = page.request.get(f"{base}/api/tables/{code}").json()
    resp = page.request.post(f"{base}/api/tables/{code}/actions",
                             data={"action": action, "params": with_step(table, action, params),
                                   "version": table["version"], "seat": seat},
                             headers={"Origin": base})
    assert resp.ok, resp.json()
    return resp.json()


def play_woodland_wizards(page, base):
    """Four rounds with this phone holding every seat (pass-the-phone)."""
    resp = page.request.post(f"{base}/api/tables", data={
        "game": "woodland-wizards", "players": ["Ana", "Ben", "Cara"], "options": {"first_player": "0"}},
        headers={"Origin": base})
    code = resp.json()["code"]
    for seat in range(3):
        assert page.request.post(f"{base}/api/tables/{code}/seats/{seat}", headers={"Origin": base}).ok
    for number, (totals, value) in enumerate(ROUNDS):
        api_act(page, base, code, "set_phase", {"phase": "scoring"})
        for seat, total in enumerate(totals):
            api_act(page, base, code, "enter_total", {"player": seat, "total": total})
        scorer = api_act(page, base, code, "settle_round")["view"]["scorers"][0]
        api_act(page, base, code, "score_creature", {"player": scorer, "value": value, "name": "", "phoenix": False})
        api_act(page, base, code, "next_round" if number < 3 else "finish")
    return code


def test_history_stats_merge_import_and_rematch(live_server, phones):
    ana, ben = phones(2)
    code = play_woodland_wizards(ana, live_server)

    # The result screen leads to the history entry.
    ana.goto(f"{live_server}/t/{code}")
    ana.get_by_role("link", name=re.compile("In the history")).click()
    expect(ana.locator("h1")).to_have_text("Woodland Wizards")
    # Round winners score their creature: Ana 4, Ben 6 + 2, Cara 5.
    expect(ana.locator(".final-scores li").first).to_contain_text("Ben")
    expect(ana.locator("svg.chart")).to_be_visible()
    expect(ana.locator("svg.chart .series")).to_have_count(3)
    expect(ana.locator(".replay summary")).to_have_count(4)
    ana.locator(".replay summary", has_text="Round 1").click()
    expect(ana.locator(".replay details").first).to_contain_text("Round 1 ranking")
    shot(ana, "history-game-dark")
    shot_of(ana.locator(".card", has=ana.locator("svg.chart")), "history-chart-rounds-dark")

    # Import an export from another server through the file picker.
    ana.goto(live_server + "/")
    ana.get_by_role("link", name=re.compile("^History")).click()
    ana.get_by_role("link", name="Export").click()
    ana.get_by_label("History file").set_input_files(
        {"name": "history.json", "mimeType": "application/json",
         "buffer": json.dumps(stats_export()).encode()})
    ana.get_by_role("button", name="Import").click()
    expect(ana.locator(".notice.info")).to_contain_text("Imported 7 games")
    expect(ana.locator(".history-item")).to_have_count(8)
    expect(ana.locator(".history-item.unfinished")).to_have_count(1)
    shot(ana, "history-list-dark")

    # Filter by player: anna in any case.
    ana.get_by_label("Player").select_option("Anna")
    ana.get_by_role("button", name="Show").click()
    expect(ana.locator(".history-item")).to_have_count(6)

    # Stats, then merge "Ana" into "Anna": Anna's count goes up, and it can be undone.
    ana.get_by_role("link", name="Players").click()
    anna_card = ana.locator(".person", has=ana.get_by_role("heading", name="Anna", exact=True))
    expect(anna_card.locator(".stat").first).to_contain_text("5")
    expect(ana.locator("svg.chart")).to_be_visible()
    ana.get_by_label("This name").select_option("Ana")
    ana.get_by_label("is the same person as").select_option("Anna")
    ana.get_by_role("button", name="Merge").click()
    expect(ana.locator(".notice.info")).to_contain_text("“Ana” now counts as Anna")
    expect(anna_card.locator(".stat").first).to_contain_text("7")
    expect(ana.locator(".merge-row")).to_contain_text("counts as Anna")
    shot(ana, "history-stats-dark")
    shot_of(ana.locator(".card", has=ana.locator("svg.chart")), "history-chart-wins-dark")
    ana.locator("[data-theme-toggle]").click()
    expect(ana.locator("html")).to_have_attribute("data-theme", "light")
    shot(ana, "history-stats-light")
    shot_of(ana.locator(".card", has=ana.locator("svg.chart")), "history-chart-wins-light")
    ana.get_by_role("button", name="Undo merge of Ana").click()
    expect(anna_card.locator(".stat").first).to_contain_text("5")

    # Another phone opens the game and taps Rematch: it becomes the new table's host. The
    # table is still open, so this is its rematch: every seat is kept for the phone that
    # played them all (passed around), which takes them all with one tap.
    ben.goto(live_server + "/history")
    ben.locator(".history-item", has_text="Woodland Wizards").first.click()
    ben.locator("[data-theme-toggle]").click()
    shot(ben, "history-game-light")
    shot_of(ben.locator(".card", has=ben.locator("svg.chart")), "history-chart-rounds-light")
    ben.get_by_role("button", name=re.compile("Rematch")).click()
    expect(ben.locator(".code-big").first).to_be_visible()
    new_code = ben.locator(".code-big").first.inner_text().strip()
    assert new_code != code
    for name in ("Ana", "Ben", "Cara"):
        expect(ben.get_by_role("button", name=re.compile(f"^{name} kept for"))).to_be_disabled()
    ana.goto(f"{live_server}/t/{code}")
    ana.get_by_role("button", name=re.compile("Join the rematch as Ana, Ben and Cara")).click()
    expect(ana).to_have_url(f"{live_server}/t/{new_code}")
    expect(ana.locator(".seat-chip.mine")).to_have_count(3)
    expect(ana.locator(".ww-stats")).to_contain_text("1/4")
