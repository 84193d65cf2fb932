"""Longer languages at 390 px: no word is broken across two lines where its box could hold it
whole, and nothing is wider than the phone. German's compounds ("Nachziehstapel",
"Tischbildschirm") and French's longer words met boxes that shrank below one word ("Spie /
ler", "Paus / e") while the line beside them had room to wrap between words. A word longer
than its whole box may still break: at the soft hyphens its catalog gives it ("Nachzieh-
stapel"), or where the phone's browser knows the language. Each game's table, every panel
open, then the More sheet alone; and the pages around the tables."""

from __future__ import annotations

import pytest

from companion.web import i18n

from .browser import PHONE, PHONE_WIDTH, browser, live_server  # noqa: F401  (fixtures)
from .test_screen_web import OPTIONS

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect

PLAYERS = ["Ana", "Bartholomew", "Cara", "Dan"]
# A table for each game in each language, all from one address.
SERVER_SETTINGS = {"TABLE_CREATION_LIMIT": "1000 per hour"}

# Each word (a run of letters between blanks, hyphens and dots) whose boxes lie on more than
# one line although it is no wider than the content box of the block it is laid out in, or
# that lies in an element of `whole` (one a row squeezed below its longest word: a panel's
# heading beside its line, the clock's Pause beside the time, a phase of the Mysterious Forest).
AVOIDABLE_BREAKS = """(whole) => {
  const found = [];
  const ruler = document.createElement('span');
  ruler.style.cssText = 'position:absolute;visibility:hidden;white-space:nowrap;left:0;top:0';
  document.body.append(ruler);
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    // (a closed panel's content keeps boxes of its own, laid out but never shown)
    if (!el || el === ruler || !el.checkVisibility()) continue;
    if (node.textContent.includes('://')) continue;  // an address breaks where it must, as no word does
    const words = /[^\\s\\-\\u2010-\\u2014\\/·.,:;()]{2,}/g;
    for (let m; (m = words.exec(node.textContent));) {
      if (m[0].includes('\\u00ad')) continue;  // a catalog's soft hyphen says where it may break
      const range = document.createRange();
      range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
      const lines = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
      if (lines.size < 2) continue;
      let block = el;
      while (getComputedStyle(block).display === 'inline' && block.parentElement) block = block.parentElement;
      const style = getComputedStyle(block);
      const room = block.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      ruler.style.font = getComputedStyle(el).font;
      ruler.style.letterSpacing = getComputedStyle(el).letterSpacing;
      ruler.textContent = m[0];
      const width = ruler.getBoundingClientRect().width;
      if (width <= room || el.closest(whole)) found.push(`${m[0]} (${Math.round(width)} px, its box ${Math.round(room)} px) in ` +
                                    `<${el.tagName.toLowerCase()} class="${el.className}">`);
    }
  }
  ruler.remove();
  return found;
}"""


WHOLE = "details.panel > summary h2, .clock-row .btn, .mf-phases li"


def check(page, where):
    broken = page.evaluate(AVOIDABLE_BREAKS, WHOLE)
    assert broken == [], f"{where}: words broken that their box could hold whole: {broken}"
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE_WIDTH, f"{where}: the page is {width} px wide"


@pytest.mark.parametrize("language", ["de", "fr", "es", "en"])
def test_no_word_is_broken_where_its_box_could_hold_it(browser, live_server, language):
    context = browser.new_context(**PHONE)
    try:
        context.add_cookies([{"name": i18n.COOKIE, "value": language, "url": live_server}])
        page = context.new_page()
        for game, options in OPTIONS.items():
            made = page.request.post(f"{live_server}/api/tables", headers={"Origin": live_server},
                                     data={"game": game, "players": PLAYERS, "options": options})
            assert made.status == 201, made.text()
            code = made.json()["code"]
            assert page.request.post(f"{live_server}/api/tables/{code}/seats/0",
                                     headers={"Origin": live_server}).status == 201
            page.goto(f"{live_server}/t/{code}")
            expect(page.locator("#view .view")).to_have_attribute("data-version", "0")
            page.evaluate("() => document.querySelectorAll('#view details:not(.more)').forEach(d => { d.open = true; })")
            check(page, f"{language}, {game}, every panel open")
            page.evaluate("""() => { document.querySelectorAll('#view details').forEach(d => { d.open = false; });
                                     document.querySelector('#more').open = true; }""")
            check(page, f"{language}, {game}, the More sheet open")
    finally:
        context.close()


@pytest.mark.parametrize("language", ["de", "fr", "es"])
def test_the_pages_around_the_tables_break_no_word_their_boxes_could_hold(browser, live_server, language):
    context = browser.new_context(**PHONE)
    try:
        context.add_cookies([{"name": i18n.COOKIE, "value": language, "url": live_server}])
        page = context.new_page()
        made = page.request.post(f"{live_server}/api/tables", headers={"Origin": live_server},
                                 data={"game": "wicked-forest", "players": PLAYERS, "options": OPTIONS["wicked-forest"]})
        code = made.json()["code"]
        pages = ["/", "/join", f"/join/{code}", f"/t/{code}/share", "/history", "/history/stats",
                 "/history/transfer", "/campaigns", *(f"/new/{game}" for game in OPTIONS)]
        for path in pages:
            page.goto(live_server + path)
            expect(page.locator("main")).to_be_visible()
            page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
            check(page, f"{language}, {path}")
    finally:
        context.close()
