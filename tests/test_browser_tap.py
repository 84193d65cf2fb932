"""An impatient double tap acts once: the second tap lands on the button the refresh just put
under the finger, and the phone drops it."""

import pytest

from .browser import Watch, browser, live_server, phones, shot  # noqa: F401  (fixtures)

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect


def api(page, base, method, path, body=None):
    resp = page.request.fetch(base + path, method=method, data=body, headers={"Origin": base})
    assert resp.ok, resp.text()
    return resp.json()


def act(page, base, code, action, params):
    """An action through the API with this phone's cookies."""
    table = api(page, base, "GET", f"/api/tables/{code}")
    return api(page, base, "POST", f"/api/tables/{code}/actions",
               {"action": action, "params": params, "version": table["version"]})


def double_tap(page, button):
    """Tap, and tap the same spot again the moment the view has changed under the finger."""
    button.scroll_into_view_if_needed()
    box = button.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    shown = page.locator("#view .view").get_attribute("data-version")
    page.touchscreen.tap(x, y)
    # Polled every frame, so the second tap comes a frame or two after the swap.
    page.wait_for_function(
        "v => document.querySelector('#view .view').getAttribute('data-version') !== v",
        arg=shown, polling="raf")
    page.touchscreen.tap(x, y)
    # A round trip through the page: any request the second tap started is on record now.
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => done()))")


def test_double_tap_on_end_turn_ends_one_turn(live_server, phones):
    (ana,) = phones(1)
    table = api(ana, live_server, "POST", "/api/tables", {
        "game": "explorers-of-the-woodlands", "players": ["Ana", "Ben"],
        "options": {"first_player": "0", "hero_1": "xylia", "hero_2": "klethor"}})
    code = table["code"]
    api(ana, live_server, "POST", f"/api/tables/{code}/seats/0")
    act(ana, live_server, code, "place_tile", {"kind": "growth", "hero": "xylia"})
    act(ana, live_server, code, "place_tile", {"kind": "growth", "hero": "klethor"})
    act(ana, live_server, code, "reveal_boss", {"boss": "fungor", "track": 9})
    watch = Watch(ana)
    ana.goto(f"{live_server}/t/{code}")
    expect(ana.locator(".track li.cube")).to_have_text("1")
    end_xylia = ana.get_by_role("button", name="End turn")
    expect(end_xylia).to_have_text("End Xylia's turn")

    double_tap(ana, end_xylia)

    expect(ana.locator(".turn-big")).to_contain_text("Ben · Klethor")
    expect(ana.get_by_role("button", name="End turn")).to_have_text("End Klethor's turn")
    expect(ana.locator(".track li.cube")).to_have_text("2")  # +1 once, not +2
    shot(ana, "90-double-tap-end-turn")
    view = api(ana, live_server, "GET", f"/api/tables/{code}")["view"]
    assert view["active"] == "klethor" and view["boss"]["threat"] == 2
    log = api(ana, live_server, "GET", f"/api/tables/{code}/actions")["actions"]
    assert [line["action"] for line in log].count("end_turn") == 1
    assert len(watch.posts) == 1, watch.posts
    assert watch.errors == [] and watch.failed == [], (watch.errors, watch.failed)


def test_double_tap_on_done_looking_ticks_one_card(live_server, phones):
    (phone,) = phones(1)
    table = api(phone, live_server, "POST", "/api/tables", {
        "game": "mysterious-forest", "players": ["Ana", "Ben", "Cara"],
        "options": {"first_player": "0"}})
    code = table["code"]
    for seat in range(3):
        api(phone, live_server, "POST", f"/api/tables/{code}/seats/{seat}")
    act(phone, live_server, code, "start_scouting", {})
    watch = Watch(phone)
    phone.goto(f"{live_server}/t/{code}")
    expect(phone.locator(".mf-big")).to_contain_text("Card 1 of 8")

    double_tap(phone, phone.get_by_role("button", name="Done looking"))

    # Ben has card 2 still to look at: the second tap did not turn it back for him.
    expect(phone.locator(".mf-big")).to_contain_text("Card 2 of 8")
    expect(phone.locator(".mf-turn")).to_have_text("Ben, your turn!")
    shot(phone, "91-double-tap-done-looking")
    view = api(phone, live_server, "GET", f"/api/tables/{code}")["view"]
    assert view["scouted"] == 1 and view["current_card"] == 2
    assert len(watch.posts) == 1, watch.posts
    assert watch.errors == [] and watch.failed == [], (watch.errors, watch.failed)


def test_a_tap_refused_at_the_door_shows_why_and_keeps_the_screen(live_server, phones):
    """A refusal answered to htmx (no swap) appears as a notice in view; the board stays."""
    (ana,) = phones(1)
    table = api(ana, live_server, "POST", "/api/tables", {
        "game": "woodland-wizards", "players": ["Ana", "Ben"], "options": {"first_player": "0"}})
    code = table["code"]
    api(ana, live_server, "POST", f"/api/tables/{code}/seats/0")
    watch = Watch(ana)
    ana.goto(f"{live_server}/t/{code}")
    before = ana.locator("#view").inner_html()
    # A card name with a bidi override, as a pasted name might carry, sent the way a form is.
    ana.evaluate("""code => htmx.ajax("POST", "/t/" + code + "/act", {target: "#view", values: {
        action: "add_card", version: "0", seat: "0", player: "0", value: "3", name: "Oak\\u202eElf"}})""",
                 code)
    toast = ana.locator("#toast")
    expect(toast).to_be_visible()
    expect(toast).to_contain_text("U+202E")
    assert ana.locator("#view").inner_html() == before
    box = toast.bounding_box()
    assert box["y"] + box["height"] <= 844 and box["x"] >= 0 and box["x"] + box["width"] <= 390
    shot(ana, "92-refused-at-the-door")
    assert not watch.errors and not watch.failed
