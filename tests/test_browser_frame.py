"""The frame around every board, on phones at 390x844: the status line, the bottom bar with
Undo and More, refreshes that keep what a person was doing, toasts, live seats."""

import re

import pytest

from .browser import (FIRST_SCREEN, PHONE_WIDTH, Watch, assert_fits_phone, assert_in_first_screen,  # noqa: F401
                      browser, live_server, phones, record_screen)

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect

HEIGHTS = "heights-frame.json"
# Counts every request htmx gave up on (a refresh that cancels a tap's own request).
COUNT_ABORTS = """document.addEventListener("htmx:sendAbort", () => {
  window.forestAborts = (window.forestAborts || 0) + 1; });"""


class FrameWatch(Watch):
    def __init__(self, page):
        super().__init__(page)
        self.page = page
        page.add_init_script(COUNT_ABORTS)

    def assert_clean(self):
        super().assert_clean()
        assert self.page.evaluate("() => window.forestAborts || 0") == 0, "a request was cancelled"


def api(page, base, method, path, body=None):
    resp = page.request.fetch(base + path, method=method, data=body, headers={"Origin": base})
    assert resp.ok, resp.text()
    return resp.json()


def new_table(page, base, game, players, options=None):
    return api(page, base, "POST", "/api/tables", {"game": game, "players": players, "options": options or {}})["code"]


def sit(page, base, code, seat):
    api(page, base, "POST", f"/api/tables/{code}/seats/{seat}")


def act(page, base, code, action, params, seat=None):
    """An action through the API with this phone's cookies, as another phone's tap."""
    table = api(page, base, "GET", f"/api/tables/{code}")
    body = {"action": action, "params": params, "version": table["version"]}
    if seat is not None:
        body["seat"] = seat
    return api(page, base, "POST", f"/api/tables/{code}/actions", body)


def version(page):
    return page.locator("#view .view").get_attribute("data-version")


def wait_for_version_past(page, shown):
    expect(page.locator("#view .view")).not_to_have_attribute("data-version", shown)


def open_more(page):
    page.locator("#more > summary").click()
    expect(page.locator("#more .sheet")).to_be_visible()


def assert_in_view(page, locator):
    """Wholly inside the screen as it is scrolled now."""
    box = locator.bounding_box()
    assert box is not None, f"{locator} is not on the screen"
    assert 0 <= box["y"] and box["y"] + box["height"] <= FIRST_SCREEN, box
    assert 0 <= box["x"] and box["x"] + box["width"] <= PHONE_WIDTH, box


def tiny_table(page, base, players=("Ana", "Ben")):
    code = new_table(page, base, "tiny", list(players))
    return code


GAMES = {
    "wicked-forest": {"first_leader": "0"},
    "woodland-wizards": {"first_player": "0"},
    "explorers-of-the-woodlands": {"first_player": "0", "hero_1": "xylia", "hero_2": "klethor"},
    "mysterious-forest": {"first_player": "0"},
}


def one_phone(live_server, phones, game="tiny", seats=(0,)):
    """One watched phone holding `seats` at a new table of Ana and Ben; it shows nothing yet."""
    (ana,) = phones(1)
    watch = FrameWatch(ana)
    code = new_table(ana, live_server, game, ["Ana", "Ben"], GAMES.get(game))
    for seat in seats:
        sit(ana, live_server, code, seat)
    return ana, code, watch


def seated_pair(live_server, phones):
    """Ana and Ben at a tiny table, each in their seat; Ana's phone shows it, watched."""
    ana, ben = phones(2)
    watch = FrameWatch(ana)
    code = tiny_table(ana, live_server)
    sit(ana, live_server, code, 0)
    sit(ben, live_server, code, 1)
    ana.goto(f"{live_server}/t/{code}")
    return ana, ben, code, watch


def test_taps_on_two_phones_cancel_no_request_and_log_no_error(live_server, phones):
    ana, ben = phones(2)
    watches = [FrameWatch(ana), FrameWatch(ben)]
    code = new_table(ana, live_server, "wicked-forest", ["Ana", "Ben", "Cara"], {"first_leader": "0"})
    sit(ana, live_server, code, 0)
    sit(ben, live_server, code, 1)
    for page in (ana, ben):
        page.goto(f"{live_server}/t/{code}")
    for label in ("3 Flowers, no Witch",):
        shown = version(ana)
        ana.get_by_role("button", name=label).click()
        wait_for_version_past(ana, shown)
        wait_for_version_past(ben, shown)
    shown = version(ben)
    ben.get_by_role("button", name=re.compile("Undo")).click()
    wait_for_version_past(ben, shown)
    wait_for_version_past(ana, shown)
    shown = version(ana)
    ana.get_by_role("button", name="2 Flowers, no Witch").click()
    wait_for_version_past(ana, shown)
    wait_for_version_past(ben, shown)
    expect(ben.locator(".forest h2")).to_have_text("Forest: 1 of 9 revealed")
    for page in (ana, ben):
        assert_fits_phone(page)
    record_screen(ana, "frame-01-wicked-forest-after-taps", HEIGHTS)
    for watch in watches:
        watch.assert_clean()


def test_the_status_is_one_line_on_top_and_the_bar_sits_at_the_bottom(live_server, phones):
    (ana,) = phones(1)
    watch = FrameWatch(ana)
    code = new_table(ana, live_server, "wicked-forest", ["Ana", "Ben", "Cara"],
                     {"first_leader": "0", "timer_seconds": "30"})
    sit(ana, live_server, code, 0)
    ana.goto(f"{live_server}/t/{code}")
    status = ana.locator(".status-line")
    assert_in_first_screen(ana, status)
    box = status.bounding_box()
    assert box["height"] <= 64, f"the status line is {box['height']} px high: one line, not a card"
    bar = ana.locator(".bottom-bar")
    bar_box = bar.bounding_box()
    assert bar_box["y"] + bar_box["height"] == pytest.approx(FIRST_SCREEN, abs=1)
    assert bar_box["height"] <= 72
    for control in (ana.locator(".undo-btn"), ana.locator("#more > summary")):
        assert control.bounding_box()["height"] >= 44
    assert_fits_phone(ana)
    record_screen(ana, "frame-02-first-screen", HEIGHTS)
    watch.assert_clean()


def test_more_holds_seats_moves_countdown_and_log_as_controls(live_server, phones):
    ana, code, watch = one_phone(live_server, phones)
    act(ana, live_server, code, "add", {"amount": 2})
    ana.goto(f"{live_server}/t/{code}")
    open_more(ana)
    sheet = ana.locator("#more .sheet")
    expect(sheet.locator(".seat-chip.mine")).to_have_text("Ana (this phone)")
    expect(sheet.locator(".seat-chip").nth(1)).to_have_text("Ben (no phone)")
    for summary in ("Last moves", "Countdown: off"):
        control = sheet.locator("summary", has_text=summary)
        box = control.bounding_box()
        assert box["height"] >= 44 and box["width"] >= 300, (summary, box)
    sheet.locator("summary", has_text="Last moves").click()
    expect(sheet.locator(".log li").first).to_have_text("Ana added 2.")
    expect(sheet.get_by_role("link", name=re.compile("Whole log"))).to_be_visible()
    expect(sheet.get_by_role("link", name=re.compile("Share"))).to_be_visible()
    assert_fits_phone(ana)
    record_screen(ana, "frame-03-more-sheet", HEIGHTS)
    # A tap outside the sheet puts it away.
    ana.locator(".status-line").click()
    expect(sheet).to_be_hidden()
    watch.assert_clean()


def test_a_panel_open_on_one_phone_stays_open_when_another_acts(live_server, phones):
    ana, ben, code, watch = seated_pair(live_server, phones)
    open_more(ana)
    ana.locator("#more-moves > summary").click()
    expect(ana.locator("#more-moves .log li").first).to_have_text("Nothing yet.")
    shown = version(ana)
    act(ben, live_server, code, "add", {"amount": 4})
    wait_for_version_past(ana, shown)
    expect(ana.locator("#more-moves .log li").first).to_have_text("Ben added 4.")
    assert ana.locator("#more").evaluate("el => el.open")
    assert ana.locator("#more-moves").evaluate("el => el.open")
    watch.assert_clean()


def test_typed_text_survives_a_refresh_and_a_refused_form_keeps_it(live_server, phones):
    ana, ben, code, watch = seated_pair(live_server, phones)
    amount = ana.get_by_label("Amount")
    amount.fill("9")
    shown = version(ana)
    act(ben, live_server, code, "add", {"amount": 1})
    wait_for_version_past(ana, shown)
    expect(ana.locator('[data-key="count"]')).to_have_text("1")
    expect(amount).to_have_value("9")
    expect(amount).to_be_focused()
    # Sent: 9 is more than the counter takes at once. Refused, the form keeps the 9.
    ana.get_by_role("button", name="Add", exact=True).click()
    toast = ana.locator("#toast")
    expect(toast).to_be_visible()
    expect(toast).to_contain_text("5")
    assert_in_view(ana, toast)
    expect(amount).to_have_value("9")
    record_screen(ana, "frame-04-refused-form-keeps-input", HEIGHTS)
    # Corrected and sent: applied, and the form is empty again for the next entry.
    amount.fill("3")
    shown = version(ana)
    ana.get_by_role("button", name="Add", exact=True).click()
    wait_for_version_past(ana, shown)
    expect(ana.locator('[data-key="count"]')).to_have_text("4")
    expect(amount).to_have_value("")
    assert watch.failed == [] and watch.errors == []


def test_undo_says_what_it_undoes_and_answers_with_a_toast(live_server, phones):
    ana, code, watch = one_phone(live_server, phones)
    ana.goto(f"{live_server}/t/{code}")
    undo = ana.locator(".undo-btn")
    expect(undo).to_be_disabled()
    expect(undo).to_contain_text("Nothing to undo yet")
    act(ana, live_server, code, "add", {"amount": 3})
    expect(undo).to_have_attribute("aria-label", "Undo: Ana added 3.")
    expect(undo).to_be_enabled()
    shown = version(ana)
    undo.click()
    wait_for_version_past(ana, shown)
    toast = ana.locator("#toast")
    expect(toast).to_have_text("Undone: Ana added 3.")
    assert_in_view(ana, toast)
    assert toast.get_attribute("role") == "status"
    record_screen(ana, "frame-05-undo-toast", HEIGHTS)
    watch.assert_clean()


def test_undo_is_not_offered_for_a_secret_pick_and_a_reveal_undone_is_said_to_all(live_server, phones):
    ana, ben, code, watch = seated_pair(live_server, phones)
    watches = [watch, FrameWatch(ben)]
    ben.goto(f"{live_server}/t/{code}")
    shown = version(ana)
    act(ana, live_server, code, "pick", {"color": "red"})
    for page in (ana, ben):
        wait_for_version_past(page, shown)
        undo = page.locator(".undo-btn")
        expect(undo).to_be_disabled()
        expect(undo).to_contain_text("Ana's choice stays secret")
    shown = version(ben)
    act(ben, live_server, code, "pick", {"color": "blue"})
    wait_for_version_past(ben, shown)
    undo = ben.locator(".undo-btn")
    expect(undo).to_have_attribute("aria-label", "Undo: The reveal: everyone chooses again")
    shown = version(ben)
    undo.click()
    wait_for_version_past(ben, shown)
    for page in (ana, ben):
        expect(page.locator('[data-key="events"]')).to_contain_text("The reveal was undone: everyone chooses again.")
        expect(page.locator('[data-key="revealed"]')).to_have_text("[]")
        expect(page.locator('[data-key="my_pick"]')).to_have_text("None")  # every pick is gone, unseen
        expect(page.locator('[data-key="chosen"]')).to_have_text("[]")
    for watch in watches:
        watch.assert_clean()


def test_a_seat_taken_reaches_the_host_at_once(live_server, phones):
    ana, ben = phones(2)
    watch = FrameWatch(ana)
    code = tiny_table(ana, live_server)
    sit(ana, live_server, code, 0)
    ana.goto(f"{live_server}/t/{code}")
    open_more(ana)
    chip = ana.locator(".seat-chip").nth(1)
    expect(chip).to_have_text("Ben (no phone)")
    shown = version(ana)
    ben.goto(f"{live_server}/join/{code}")
    ben.get_by_role("button", name="I am Ben").click()
    expect(chip).to_have_text("Ben (phone)")
    assert version(ana) == shown  # the game did not move: a move prepared meanwhile stays valid
    assert ana.locator("#more").evaluate("el => el.open")
    watch.assert_clean()


def test_a_refused_boss_form_stays_open_with_its_entries_and_says_why(live_server, phones):
    ana, code, watch = one_phone(live_server, phones, "explorers-of-the-woodlands")
    ana.goto(f"{live_server}/t/{code}")
    form = ana.locator("form:has(select[name=boss])")
    panel = form.locator("xpath=ancestor::details[1]")
    panel.locator("summary").click()
    boss = form.locator("select[name=boss]")
    chosen = boss.locator("option").nth(1).get_attribute("value")
    boss.select_option(chosen)
    form.locator("input[name=track]").fill("99")
    shown = version(ana)
    form.get_by_role("button").click()
    toast = ana.locator("#toast")
    expect(toast).to_be_visible()
    assert_in_view(ana, toast)
    assert version(ana) == shown
    assert panel.evaluate("el => el.open")
    expect(boss).to_have_value(chosen)
    expect(form.locator("input[name=track]")).to_have_value("99")
    record_screen(ana, "frame-06-refused-boss-form", HEIGHTS)
    watch.assert_clean()


def test_a_stepper_panel_stays_open_after_each_tap(live_server, phones):
    ana, code, watch = one_phone(live_server, phones, "explorers-of-the-woodlands", seats=(0, 1))
    ana.goto(f"{live_server}/t/{code}")
    # The panel that holds the stepper is its nearest details: a board may nest a smaller
    # panel (a Hero's "Correct" section) inside a bigger one that also holds steppers.
    stepper = ana.locator("details .stepper").first
    panel = stepper.locator("xpath=ancestor::details[1]")
    panel.locator(":scope > summary").click()
    value = stepper.locator(".step-value")
    before = value.inner_text()
    down = stepper.locator("button").first
    up = stepper.locator("button").last
    button = up if up.is_enabled() else down
    for _ in range(2):
        shown = version(ana)
        button.click()
        wait_for_version_past(ana, shown)
        assert panel.evaluate("el => el.open"), "the panel closed after a tap"
    expect(value).not_to_have_text(before)
    watch.assert_clean()


BAR_TOP = FIRST_SCREEN - 72  # the bottom bar covers the screen below this


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_board_sits_in_the_frame_on_a_phone(live_server, phones, game):
    ana, code, watch = one_phone(live_server, phones, game)
    ana.goto(f"{live_server}/t/{code}")
    assert_in_first_screen(ana, ana.locator(".status-line"))
    assert_fits_phone(ana)
    bar = ana.locator(".bottom-bar").bounding_box()
    assert bar["y"] >= BAR_TOP - 1 and bar["y"] + bar["height"] == pytest.approx(FIRST_SCREEN, abs=1)
    primary = ana.locator("[data-primary]")
    if primary.count():  # the boards that follow the board contract
        assert primary.count() == 1
        assert_in_first_screen(ana, primary)
        box = primary.bounding_box()
        assert box["y"] + box["height"] <= BAR_TOP, "the primary action hides under the bottom bar"
    record_screen(ana, f"frame-10-{game}", HEIGHTS)
    watch.assert_clean()
