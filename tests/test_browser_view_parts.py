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


def seated_at(live_server, ana, ben, game, players, options):
    """A new table of `game`, Ana in seat 0 and Ben in seat 1, open on both phones."""
    table = api(ana, live_server, "POST", "/api/tables", {"game": game, "players": players, "options": options})
    code = table["code"]
    api(ana, live_server, "POST", f"/api/tables/{code}/seats/0")
    api(ben, live_server, "POST", f"/api/tables/{code}/seats/1")
    for page in (ana, ben):
        page.goto(f"{live_server}/t/{code}")
        expect(page.locator("#view .view")).to_have_attribute("data-version", "0")
    return code


def seated_at_explorers(live_server, ana, ben):
    """A new Explorers table, Ana on Xylia and Ben on Klethor, open on both phones."""
    return seated_at(live_server, ana, ben, "explorers-of-the-woodlands", ["Ana", "Ben"],
                     {"first_player": "0", "hero_1": "xylia", "hero_2": "klethor"})


# Each part at the view's top and the Orbs number in Klethor's panel, marked on the element
# itself: a mark survives only on an element that was not replaced.
MARK = """() => {
  const parts = Array.from(document.querySelector('#view .view').children);
  parts.forEach((el, i) => { el.forestMark = i; });
  document.querySelector('#ex-hero-klethor .orb-row .step-value').forestMark = 'orbs';
  // What htmx processes again after the swap (each gets htmx:load).
  window.forestLoaded = [];
  document.addEventListener('htmx:load', (event) => window.forestLoaded.push(event.target));
  // (htmx processes what changed as the swap settles, a moment after the words are on screen)
  window.forestSettled = 0;
  document.addEventListener('htmx:afterSettle', () => { window.forestSettled += 1; });
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
    ana, ben = phones(2)
    code = seated_at_explorers(live_server, ana, ben)
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
    ana.wait_for_function("() => window.forestSettled > 0")
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


# What the page parses: the length of each text htmx (or app.js) turns into elements.
COUNT_PARSES = """() => {
  window.forestParsed = [];
  const parse = Document.parseHTMLUnsafe;
  Document.parseHTMLUnsafe = function (html) { window.forestParsed.push(String(html).length); return parse.apply(this, arguments); };
  const inner = Object.getOwnPropertyDescriptor(Element.prototype, 'innerHTML');
  Object.defineProperty(HTMLTemplateElement.prototype, 'innerHTML', {
    configurable: true, get: inner.get,
    set(html) { window.forestParsed.push(String(html).length); inner.set.call(this, html); }});
}"""
# Each part on screen against the same part of this phone's view fetched afresh, written
# the same way (what app.js adds for focus, htmx's passing classes and the running clock,
# which the page counts on by itself, left out; attributes in one order).
AS_FRESH = """async () => {
  const url = document.getElementById('live').getAttribute('data-view-url');
  const text = await (await fetch(url, {headers: {'HX-Request': 'true'}})).text();
  const fresh = {content: new DOMParser().parseFromString(text, 'text/html')};  // (not counted)
  const written = (el) => {
    const copy = el.cloneNode(true);
    [copy, ...copy.querySelectorAll('*')].forEach((e) => {
      e.removeAttribute('tabindex');
      e.removeAttribute('data-elapsed');
      e.removeAttribute('data-remaining');
      if (e.matches('.elapsed-time, .cd-time')) e.textContent = '';
      e.classList.forEach((c) => c.startsWith('htmx-') && e.classList.remove(c));
      if (e.getAttribute('class') === '') e.removeAttribute('class');
      // (an attribute written in place comes last: the order of attributes means nothing)
      const sorted = Array.from(e.attributes).map((a) => [a.name, a.value]).sort();
      sorted.forEach(([name]) => e.removeAttribute(name));
      sorted.forEach(([name, value]) => e.setAttribute(name, value));
    });
    return copy.outerHTML;
  };
  const mine = Array.from(document.querySelector('#view .view').children).map(written);
  const theirs = Array.from(fresh.content.querySelector('.view').children).map(written);
  return {same: mine.length === theirs.length && mine.every((m, i) => m === theirs[i]),
          differ: mine.map((m, i) => { if (m === theirs[i]) return null; const t = theirs[i] || ''; let k = 0; while (m[k] === t[k]) k++; return [m.slice(Math.max(0, k - 60), k + 80), t.slice(Math.max(0, k - 60), k + 80)]; }).filter(Boolean),
          standIns: document.querySelectorAll('#view [data-forest-same]').length,
          length: text.length};
}"""


def test_a_pushed_view_is_parsed_only_where_it_changed_and_shows_what_a_fresh_one_shows(live_server, phones):
    ana, ben = both = phones(2)
    code = seated_at_explorers(live_server, ana, ben)
    watch = Watch(ana)
    ana.evaluate(COUNT_PARSES)
    # Moves of every kind: the main card, a Hero's panel (closed on this phone), the numbers.
    moves = [("place_tile", {"kind": "growth", "hero": "xylia"}), ("set_orbs", {"hero": "klethor", "orbs": 3}),
             ("place_tile", {"kind": "growth", "hero": "klethor"}), ("set_orbs", {"hero": "xylia", "orbs": 2})]
    shares = []
    for version, (action, params) in enumerate(moves, start=1):
        ana.evaluate("() => { window.forestParsed.length = 0; }")
        act(ben, live_server, code, action, params)
        expect(ana.locator("#view .view")).to_have_attribute("data-version", str(version))
        parsed = ana.evaluate("() => window.forestParsed.slice()")
        found = ana.evaluate(AS_FRESH)
        assert found["same"] and found["standIns"] == 0, (action, found)
        # Parsed once (htmx's wrapper aside), and after the first pushed view (parsed whole:
        # the page as loaded is not that text) only where it changed: a Hero's orbs are
        # their panel, the numbers and the bottom bar, not the other panels.
        assert len(parsed) == 1 and parsed[0] < found["length"] + 100, (action, parsed, found["length"])
        if version > 1 and action == "set_orbs":
            shares.append(parsed[0] / found["length"])
    expect(ana.locator("#ex-hero-klethor .orb-row")).to_contain_text("3")
    assert len(shares) == 2 and max(shares) < 0.75 and min(shares) < 0.5, shares

    # A part on screen that is not what its text says (here: gone) is not stood in for: the
    # view is parsed whole and comes out as a fresh one.
    ana.evaluate("() => document.getElementById('ex-forest').remove()")
    act(ben, live_server, code, "set_orbs", {"hero": "klethor", "orbs": 1})
    expect(ana.locator("#view .view")).to_have_attribute("data-version", str(len(moves) + 1))
    found = ana.evaluate(AS_FRESH)
    assert found["same"], found

    # The tapping phone's own answer too (whichever phone shows the next move).
    before = int(ana.locator("#view .view").get_attribute("data-version"))
    primary = "#view form button.primary.big:not([disabled])"
    tapper = ana if ana.locator(primary).count() else ben
    tapper.locator(primary).first.click()
    for page in both:
        expect(page.locator("#view .view")).to_have_attribute("data-version", str(before + 1))
        found = page.evaluate(AS_FRESH)
        assert found["same"], found
    watch.assert_clean()


def test_a_wicked_forest_view_is_parsed_only_where_it_changed(live_server, phones):
    """The Wicked Forest's board puts its parts (the main card, the numbers, the forest, the
    panels) at the view's top, each with an id, as the other games do: a move that changes
    the piles parses the piles and the numbers, not the players' boards and the corrections."""
    ana, ben = phones(2)
    code = seated_at(live_server, ana, ben, "wicked-forest", ["Ana", "Ben", "Cara"], {"first_leader": "0"})
    watch = Watch(ana)
    # Its stylesheet's scope is the view itself (the board's parts are the view's own).
    assert ana.evaluate("() => document.querySelector('#view .view').classList.contains('wf')")
    ana.evaluate(COUNT_PARSES)
    shares = []
    for version, count in enumerate((20, 21, 19, 18), start=1):
        ana.evaluate("() => { window.forestParsed.length = 0; }")
        act(ben, live_server, code, "set_draw_pile", {"count": count})
        expect(ana.locator("#view .view")).to_have_attribute("data-version", str(version))
        parsed = ana.evaluate("() => window.forestParsed.slice()")
        found = ana.evaluate(AS_FRESH)
        assert found["same"] and found["standIns"] == 0, (count, found)
        assert len(parsed) == 1, parsed
        if version > 1:  # (the first pushed view is parsed whole: the page as loaded is not its text)
            shares.append(parsed[0] / found["length"])
    expect(ana.locator("#wf-piles summary")).to_contain_text("18")
    # (37 % as built; 51 % with no ids on the main card, numbers, forest and events: they count)
    assert max(shares) < 0.45, shares
    watch.assert_clean()
