"""Checks every board screen passes on a phone: the step of the moment on the first screen,
nothing wider than the phone, no text cut short."""

from __future__ import annotations

import re

from .browser import assert_fits_phone, assert_primary_clear, record_screen


def open_panel(page, panel_id):
    """Open a board's panel by tapping its summary, as a player does; one the player opened
    before and that came back open (the frame keeps it so) is left open, not tapped shut."""
    from playwright.sync_api import expect

    panel = page.locator(f"#{panel_id}")
    if panel.get_attribute("open") is None:
        page.locator(f"#{panel_id} > summary").click()
    expect(page.locator(f"#{panel_id}")).to_have_attribute("open", "")


def cut_texts(page):
    """Board texts clipped by their box (an ellipsis or hidden overflow), as 'class: text'."""
    return page.evaluate("""() => {
      const board = document.querySelectorAll('[data-primary], [data-primary] *, .stat-row, .stat-row *, details.panel *');
      return [...board].filter(e => {
        if (!e.getClientRects().length) return false;
        const s = getComputedStyle(e);
        const clips = s.overflowX === 'hidden' || s.overflowX === 'clip' || s.textOverflow === 'ellipsis';
        return clips && e.scrollWidth > e.clientWidth + 1;
      }).map(e => `${e.className}: ${e.textContent.trim().slice(0, 60)}`);
    }""")


def short_targets(page):
    """Visible buttons, summaries and inputs of the board under 44 px high."""
    return page.evaluate("""() => {
      const targets = document.querySelectorAll(
        '[data-primary] :is(button, summary, input, select, a), details.panel :is(button, summary, input, select, a)');
      return [...targets].filter(e => {
        const r = e.getBoundingClientRect();
        return r.height > 0 && e.type !== 'hidden' && e.type !== 'checkbox' && r.height < 44;
      }).map(e => `${e.tagName} ${e.textContent.trim().slice(0, 40)} ${Math.round(e.getBoundingClientRect().height)} px`);
    }""")


def check_screen(page, name=None, heights_file=None):
    """The step of the moment on the first screen above the bottom bar, the page as wide as the
    phone, every name and target whole; with a name, a screenshot and the height recorded first,
    so a failing screen can be looked at."""
    page.evaluate("() => window.scrollTo(0, 0)")  # a full-page shot taken scrolled smears the sticky top bar
    if name:
        record_screen(page, name, heights_file)
    assert_primary_clear(page, name or "this screen")
    assert_fits_phone(page)
    # This module is no test file, so pytest does not spell out a failing assert: say what failed.
    cut = cut_texts(page)
    assert cut == [], f"text cut short: {cut}"
    short = short_targets(page)
    assert short == [], f"targets under 44 px: {short}"


# The live stream closing (the test server ends streams after a minute, a page left closes its
# own): htmx-ext-sse logs the stream's error event, and the browser counts the stream aborted.
LIVE_REFRESH_NOISE = re.compile(r"^\[object Event\]$")
ABORTED_REFRESH = re.compile(r"^GET \S+/events\S* net::ERR_ABORTED$")


def assert_clean_board(watch):
    """No console error, page error or failed request, except the live stream closing."""
    watch.errors = [e for e in watch.errors if not LIVE_REFRESH_NOISE.match(e)]
    watch.failed = [f for f in watch.failed if not ABORTED_REFRESH.match(f)]
    watch.assert_clean()


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
