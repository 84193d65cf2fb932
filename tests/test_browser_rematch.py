"""One next game for the whole table, on three phones at 390x844: two phones tap Rematch at
the same moment and land at one table in their own seats; the third is offered its seat
there as it happens and takes it with one tap."""

import re

import pytest

from .browser import (Watch, assert_fits_phone, assert_in_first_screen, browser, live_server,  # noqa: F401
                      phones, shot)
from .helpers import with_step

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect

PLAYERS = ["Ana", "Ben", "Cleo"]


def api(page, base, path, data=None):
    """A request made with the phone's own cookies (its seats), as its page would."""
    resp = page.request.post(f"{base}{path}", data=data, headers={"Origin": base})
    assert resp.ok, resp.text()
    return resp.json()


def act(page, base, code, seat, action, params=None):
    table = page.request.get(f"{base}/api/tables/{code}").json()
    return api(page, base, f"/api/tables/{code}/actions",
               {"action": action, "params": with_step(table, action, params or {}),
                "version": table["version"], "seat": seat})


def finished_wicked_forest(base, pages):
    """A Wicked Forest table of three, each phone in its seat, ended after its first round:
    one card, everyone returns, the game ended between rounds."""
    code = api(pages[0], base, "/api/tables", {"game": "wicked-forest", "players": PLAYERS,
                                               "options": {"first_leader": "0"}})["code"]
    for seat, page in enumerate(pages):
        api(page, base, f"/api/tables/{code}/seats/{seat}")
    act(pages[0], base, code, 0, "reveal", {"flowers": 1, "witch": False})
    for seat, page in enumerate(pages):
        act(page, base, code, seat, "choose", {"decision": 1, "choice": "return"})
    act(pages[0], base, code, 0, "finish")
    return code


def test_two_rematch_taps_one_table_and_the_third_phone_takes_its_seat(live_server, phones):
    ana, ben, cleo = phones(3)
    code = finished_wicked_forest(live_server, [ana, ben, cleo])
    watches = {}
    for page in (ana, ben, cleo):
        page.goto(f"{live_server}/t/{code}")
        watches[page] = Watch(page)
        expect(page.get_by_role("button", name=re.compile("^Rematch"))).to_be_visible()
    shot(cleo, "rematch-01-game-over")

    # Ana and Cleo tap Rematch at the same moment: one table, each in their own seat. Both
    # posts are held until both are on their way, then let go together, so neither screen
    # changes between the two taps (a view pushed in between would rightly replace the second
    # phone's Rematch with its "Join the rematch").
    held = []
    for page in (ana, cleo):
        expect(page.locator("#view.tap-guard")).to_have_count(0)  # a settled view takes taps
        page.route(re.compile(r"/rematch$"), lambda route: held.append(route))
    buttons = [page.get_by_role("button", name=re.compile("^Rematch")).element_handle() for page in (ana, cleo)]
    for button in buttons:
        button.evaluate("button => button.click()")
    for _ in range(200):  # the route handlers run while Playwright waits
        if len(held) == 2:
            break
        ana.wait_for_timeout(25)
    assert len(held) == 2, held
    for route in held:
        route.continue_()
    for page, name in ((ana, "Ana"), (cleo, "Cleo")):
        expect(page).to_have_url(re.compile(r"/t/(?!" + code + r")[A-Z0-9]+$"))
        expect(page.locator(".seat-chip.mine")).to_have_text(f"{name} (this phone)")
    new_code = ana.url.rsplit("/", 1)[1]
    assert cleo.url.endswith(f"/t/{new_code}")

    # Ben never tapped: his phone, still on the finished game, offers his seat at once.
    join_button = ben.get_by_role("button", name=re.compile("Join the rematch as Ben"))
    expect(join_button).to_be_visible()
    expect(ben.get_by_role("button", name=re.compile("^Rematch"))).to_have_count(0)
    assert_in_first_screen(ben, join_button)
    assert_fits_phone(ben)
    shot(ben, "rematch-02-join-as-ben")
    ben.locator("[data-theme-toggle]").click()
    expect(ben.locator("html")).to_have_attribute("data-theme", "light")
    shot(ben, "rematch-02-join-as-ben-light")
    join_button.click()
    expect(ben).to_have_url(f"{live_server}/t/{new_code}")
    expect(ben.locator(".seat-chip.mine")).to_have_text("Ben (this phone)")
    # The new game starts on every phone, nobody left without a phone.
    for page in (ana, ben, cleo):
        expect(page.locator(".seat-chip.taken")).to_have_count(2)
        expect(page.locator("#view .view")).to_have_attribute("data-phase", "reveal")
    shot(ben, "rematch-03-ben-at-the-rematch")

    # Reloaded later, the finished game is still there, with the way to the rematch.
    ben.goto(f"{live_server}/t/{code}")
    expect(ben.get_by_role("link", name=re.compile("Go to the rematch"))).to_have_attribute(
        "href", f"/t/{new_code}")
    shot(ben, "rematch-04-old-table-reloaded")
    for watch in watches.values():
        # Leaving a table page ends its live stream: the browser reports it aborted.
        watch.failed = [f for f in watch.failed if not ("/events?" in f and "ERR_ABORTED" in f)]
        watch.assert_clean()
