"""A new view is morphed part by part (static/app.js, "view-parts"): what a move did not
change stays the very same elements on the phone, not processed by htmx again, and what it
changed is written in place."""

import pytest

from .browser import Watch, browser, live_server, phones  # noqa: F401  (fixtures)

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect


def api(page, base, method, path, body=None):
    resp = page.request.fetch(base + path, method=method, data=body, headers={"Origin": base})
    assert resp.ok, resp.text()
    return resp.json()


def act(page, base, code, action, params):
    table = api(page, base, "GET", f"/api/tables/{code}")
    return api(page, base, "POST", f"/api/tables/{code}/actions",
               {"action": action, "params": params, "version": table["version"]})


# Each part at the view's top and the Orbs number in Klethor's panel, marked on the element
# itself: a mark survives only on an element that was not replaced.
MARK = """() => {
  const parts = Array.from(document.querySelector('#view .view').children);
  parts.forEach((el, i) => { el.forestMark = i; });
  document.querySelector('#ex-hero-klethor .orb-row .step-value').forestMark = 'orbs';
  // What htmx processes again after the swap (each gets htmx:load).
  window.forestLoaded = [];
  document.addEventListener('htmx:load', (event) => window.forestLoaded.push(event.target));
  return parts.length;
}"""
MARKED = """() => ({
  parts: Array.from(document.querySelector('#view .view').children).map((el) => el.forestMark === undefined ? null : el.forestMark),
  orbs: document.querySelector('#ex-hero-klethor .orb-row .step-value').forestMark || null,
  klethorOpen: document.getElementById('ex-hero-klethor').open,
  // Xylia's panel did not change: htmx processed nothing that holds it.
  xyliaProcessed: window.forestLoaded.some((el) => el.contains(document.getElementById('ex-hero-xylia'))),
  processed: window.forestLoaded.length,
})"""


def test_a_move_leaves_what_it_did_not_change_in_place_and_writes_what_it_did(live_server, phones):
    ana, ben = both = phones(2)
    table = api(ana, live_server, "POST", "/api/tables", {
        "game": "explorers-of-the-woodlands", "players": ["Ana", "Ben"],
        "options": {"first_player": "0", "hero_1": "xylia", "hero_2": "klethor"}})
    code = table["code"]
    api(ana, live_server, "POST", f"/api/tables/{code}/seats/0")
    api(ben, live_server, "POST", f"/api/tables/{code}/seats/1")
    for page in both:
        page.goto(f"{live_server}/t/{code}")
        expect(page.locator("#view .view")).to_have_attribute("data-version", "0")
    watch = Watch(ana)
    # One update first: the page as loaded and the views after it are the same text then.
    act(ben, live_server, code, "place_tile", {"kind": "growth", "hero": "xylia"})
    expect(ana.locator("#view .view")).to_have_attribute("data-version", "1")
    ana.locator("#ex-hero-klethor > summary").click()
    count = ana.evaluate(MARK)
    orbs = ana.locator("#ex-hero-klethor .orb-row")
    before = orbs.inner_text()

    act(ben, live_server, code, "set_orbs", {"hero": "klethor", "orbs": 3})

    expect(ana.locator("#view .view")).to_have_attribute("data-version", "2")
    expect(orbs).to_contain_text("3")
    assert orbs.inner_text() != before
    marked = ana.evaluate(MARKED)
    # Every part on screen is the element it was, in its order (a part may go: the events
    # card of the move before), none came back new; the panel stays open, and the number that
    # changed is the same element with new words.
    parts = marked["parts"]
    assert None not in parts and parts == sorted(parts) and len(parts) >= count - 1, marked
    assert marked["klethorOpen"] is True
    assert marked["orbs"] == "orbs", marked
    assert marked["processed"] > 0 and not marked["xyliaProcessed"], marked
    watch.assert_clean()
