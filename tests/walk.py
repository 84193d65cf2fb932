"""A game walked by taps on several phones, checked after every live update: the phone whose
step it is has its next-step control in the first screen of a 390x844 phone, focus is on no
control the player did not touch, nothing failed or was logged as an error; and at every
phase first reached, axe-core finds nothing serious or moderate on the screen, dark and light."""

from __future__ import annotations

import os
import re

import pytest

from .board_checks import AVOIDABLE_BREAKS, WHOLE, cut_texts
from .browser import BOTTOM_BAR, FIRST_SCREEN, PHONE_WIDTH, Watch, caught_up, page_size, shot
from .pseudo import bare_english, say

expect = pytest.importorskip("playwright.sync_api").expect

AXE = os.path.join(os.path.dirname(__file__), "..", "node_modules", "axe-core", "axe.min.js")
FINDINGS = """() => axe.run(document, {resultTypes: ['violations']}).then(r => r.violations
  .filter(v => ['moderate', 'serious', 'critical'].includes(v.impact))
  .map(v => v.id + ' (' + v.impact + '): ' + v.nodes.map(n => n.html.slice(0, 160)).join(' | ')))"""

# The main card's next step: its primary control if it has one, else its first control; and
# its first control (a reveal pad's first button, a field to type in). Null when the card
# asks nothing of this phone (it says whose turn it is).
STEP_BOXES = """() => {
  const card = document.querySelector('#view [data-primary]');
  if (!card) return null;
  const list = [...card.querySelectorAll('button, input:not([type=hidden]), select, a.btn')]
    .filter(el => !el.disabled && el.getClientRects().length && !el.closest('details:not([open]) > :not(summary)'));
  if (!list.length) return null;
  const main = list.find(el => el.classList.contains('primary')) || list[0];
  const box = el => { const r = el.getBoundingClientRect();
    return {top: r.top, bottom: r.bottom, left: r.left, right: r.right,
            label: (el.getAttribute('aria-label') || el.textContent).trim().replace(/\\s+/g, ' ').slice(0, 60)}; };
  return [box(list[0]), box(main)];
}"""
LABEL = "el => (el.getAttribute('aria-label') || el.textContent).trim().replace(/\\s+/g, ' ')"
FOCUS = f"""() => {{
  const el = document.activeElement;
  return el && el.matches('button, input, select, textarea, a, summary') ? ({LABEL})(el) : null;
}}"""
# Half-width main-card buttons (side by side in a row) whose words (the note under them
# aside) take more than three lines at 390 px: a label broken up where a glance expects a
# word or two.
TALL_LABELS = """() => {
  const card = document.querySelector('#view [data-primary]');
  if (!card) return [];
  const half = card.getBoundingClientRect().width * 0.6;
  return [...card.querySelectorAll('.btn')].filter(b => b.getClientRects().length && b.getBoundingClientRect().width < half).map(b => {
    const boxes = [], walker = document.createTreeWalker(b, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.parentElement.closest('small')) continue;  // the note under the words may run on
      const range = document.createRange();
      range.selectNodeContents(n);
      for (const r of range.getClientRects()) if (r.width > 1) boxes.push(r);
    }
    // A line is a run of boxes that overlap in height (an emoji's box is taller than text's).
    let lines = 0, bottom = -Infinity;
    for (const r of boxes.sort((a, b) => a.top - b.top)) {
      if (r.top >= bottom - r.height / 2) { lines += 1; bottom = r.bottom; } else bottom = Math.max(bottom, r.bottom);
    }
    return [b.textContent.trim().replace(/\\s+/g, ' '), lines];
  }).filter(([, lines]) => lines > 3).map(([text, lines]) => `${text}: ${lines} lines`);
}"""
# What the main card asks of this phone: its heading and its controls' names.
STEP = """() => {
  const card = document.querySelector('#view [data-primary]');
  if (!card) return null;
  const heading = card.querySelector('h1, h2, h3');
  return (heading ? heading.textContent.trim() : '') + '|' + [...card.querySelectorAll('button, input:not([type=hidden]), select, a.btn')]
    .filter(el => !el.disabled && el.getClientRects().length).map(el => el.getAttribute('aria-label') || el.textContent.trim()).join('|');
}"""
IN_VIEW = f"""() => {{
  const boxes = ({STEP_BOXES})();
  return boxes === null || boxes.every(b => b.top >= 0 && b.bottom <= {FIRST_SCREEN - BOTTOM_BAR} + 1
                                            && b.left >= 0 && b.right <= {PHONE_WIDTH} + 1);
}}"""

# The live stream closing as a page is left, or by the server's time limit: no failure a
# player sees (the page reconnects, or is gone).
# All a check reads from a phone, in one round trip.
STATE = f"""() => ({{step: ({STEP})(), scrollY: scrollY, inView: ({IN_VIEW})(), tall: ({TALL_LABELS})(),
  focus: ({FOCUS})(), asks: ({STEP_BOXES})() !== null,
  phase: (document.querySelector('#view .view') || {{dataset: {{}}}}).dataset.phase || null}})"""

# Controls and figures whose words run out of their own box (a long word of a longer
# language, wider than the button it is on), though nothing clips them.
SPILLED = """() => [...document.querySelectorAll('button, .btn, summary, .stat, label')].filter(e => {
  // what a closed panel holds is not on the screen (it is checked when a walk opens it)
  if (!e.getClientRects().length || e.closest('details:not([open]) > :not(summary)')) return false;
  const box = e.getBoundingClientRect();
  if (box.width === 0) return false;
  const walker = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (!n.textContent.trim()) continue;
    // a part that clips its words on purpose (Undo's last move, with an ellipsis) is left alone
    let clipped = false;
    for (let a = n.parentElement; a && a !== e.parentElement; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.overflowX === 'hidden' || s.overflowX === 'clip' || s.textOverflow === 'ellipsis') { clipped = true; break; }
    }
    if (clipped) continue;
    const range = document.createRange();
    range.selectNodeContents(n);
    for (const r of range.getClientRects())
      if (r.width > 0 && (r.right > box.right + 1 || r.left < box.left - 1)) return true;
  }
  return false;
}).map(e => `${e.tagName.toLowerCase()}.${e.className}: ${e.textContent.trim().replace(/\\s+/g, ' ').slice(0, 60)}`)"""

# Explorers of the Woodlands' Heroes: names, the same in every language.
HEROES = ("Xylia", "Klethor", "Sha'Vi", "Bethras")

STREAM_CLOSED = re.compile(r"^GET \S+/(events|view)\S* net::ERR_ABORTED$")


class Walk:
    """Phones at one table, each tap checked on every phone once the table's change is on it."""

    def __init__(self, base, pages, names, shots_prefix, allowed=()):
        self.base, self.pages, self.names, self.prefix = base, list(pages), list(names), shots_prefix
        self.allowed = list(allowed)  # more names that are no words (a campaign's name)
        self.watches = {id(p): Watch(p) for p in self.pages}
        self.code = None
        self.phases = set()     # (phase, asks something) already put through axe-core
        self.walked = []        # the taps, in order, for a failure to tell where it was
        self.axe_runs = 0
        self.touched = {}       # the control each phone's player touched last (its label)
        self.steps = {}         # what each phone's main card asked when last checked

    def name_of(self, page):
        return self.names[self.pages.index(page)]

    # -- taps ---------------------------------------------------------------------------
    def tap(self, page, name, exact=False, within=None):
        """`page` taps the button named `name` (in `within`, a locator, if given), as a player
        does; then every phone is waited for until it shows the table's new version, and checked."""
        where = within if within is not None else page
        button = where.get_by_role("button", name=say(name, exact=exact))
        label = name if isinstance(name, str) else name.pattern
        self.walked.append(f"{self.name_of(page)}: {label}")
        shown = page.locator("#view .view").get_attribute("data-version")
        self.touched[id(page)] = button.first.evaluate(LABEL)
        press(page, button.first)
        expect(page.locator("#view .view")).not_to_have_attribute("data-version", shown)
        refused = page.locator("#view .notice.error[role=alert]")
        assert not refused.count(), f"{self.where(page)}: refused: {refused.first.inner_text()}"
        self.arrived()

    def arrived(self):
        """Every phone shows the table's latest version; then each is checked."""
        self.code = self.code or self.pages[0].url.split("/t/")[1].split("?")[0].split("/")[0]
        caught_up(self.pages, self.base, self.code)
        for page in self.pages:
            self.check(page)

    # -- checks -------------------------------------------------------------------------
    def where(self, page):
        return f"{self.prefix}, {self.name_of(page)}'s phone after {self.walked[-1] if self.walked else 'the start'}"

    def check(self, page):
        """A step new to this phone is in its first screen (however far down the player had
        gone); so is one it still asks, unless the player has scrolled away (to a panel)."""
        state = page.evaluate(STATE)
        new = state["step"] != self.steps.get(id(page))
        self.steps[id(page)] = state["step"]
        if (new or state["scrollY"] == 0) and not state["inView"]:
            try:  # it may be on its way, the page scrolling smoothly
                page.wait_for_function(IN_VIEW, timeout=4000, polling="raf")
            except Exception:
                shot(page, f"{self.prefix}-FAILED-out-of-view")
                raise AssertionError(f"{self.where(page)}: the next step is out of the first screen: "
                                     f"{page.evaluate(STEP_BOXES)}, scrolled {page.evaluate('scrollY')} px")
        if state["tall"]:
            shot(page, f"{self.prefix}-FAILED-tall-label")
        assert state["tall"] == [], f"{self.where(page)}: {state['tall']}"
        focus = state["focus"]
        assert focus is None or focus == self.touched.get(id(page)), \
            f"{self.where(page)}: focus on {focus!r}, which nobody touched"
        self.assert_clean(page)
        self.assert_translated(page)
        key = (state["phase"], state["asks"])
        if key not in self.phases:
            self.phases.add(key)
            self.axe(page, f"{self.where(page)} (phase {key[0]})")

    def in_first_screen(self, page, control):
        """`control` lies wholly in this phone's first screen as it is now, clear of the bottom bar."""
        expect(control).to_be_visible()
        box = control.bounding_box()
        assert (box["y"] >= 0 and box["y"] + box["height"] <= FIRST_SCREEN - BOTTOM_BAR
                and box["x"] >= 0 and box["x"] + box["width"] <= PHONE_WIDTH), \
            f"{self.where(page)}: {control} is at {box}, out of the first screen"

    def assert_translated(self, page):
        """Every text a player reads came through the catalogs (the page is in the
        pseudo-locale), and none is wider than the phone, cut off by its box, or broken inside
        a word its box could hold whole."""
        english = bare_english(page.content(), allowed=[*self.names, self.code or "", *HEROES, *self.allowed])
        if english:
            shot(page, f"{self.prefix}-FAILED-english")
        assert english == [], f"{self.where(page)}: English that skipped the catalogs: {english[:6]}"
        width, _ = page_size(page)
        cut = (cut_texts(page) + page.evaluate(SPILLED)
               + [f"broken: {word}" for word in page.evaluate(AVOIDABLE_BREAKS, WHOLE)])
        if width > PHONE_WIDTH or cut:
            shot(page, f"{self.prefix}-FAILED-overflow")
        assert width <= PHONE_WIDTH and cut == [], f"{self.where(page)}: {width} px wide, cut: {cut}"

    def assert_clean(self, page):
        watch = self.watches[id(page)]
        failed = [f for f in watch.failed if not STREAM_CLOSED.match(f)]
        assert watch.errors == [] and failed == [], f"{self.where(page)}: {watch.errors} {failed}"

    def axe(self, page, name):
        """axe-core on this screen with every panel open, dark and light; the page is left as
        the player had it (panels, theme)."""
        axe(page, name)
        self.axe_runs += 1

    def finish(self):
        for page in self.pages:
            self.assert_clean(page)


def press(page, control):
    """A finger on the control: scrolled to first if it is off the screen, as a player
    scrolls; then tapped where it is (no click that scrolls the page on its own)."""
    expect(control).to_be_enabled()
    # A tap on a view that changed under the finger within half a second is dropped (app.js).
    expect(page.locator("#view.tap-guard")).to_have_count(0)
    control.scroll_into_view_if_needed()
    box = control.bounding_box()
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def axe(page, name):
    if not os.path.exists(AXE):
        pytest.fail("axe-core is missing: run npm ci (it is a dev dependency in package.json).")
    if not page.evaluate("() => !!window.axe"):
        with open(AXE) as f:
            page.evaluate(f.read())  # through DevTools: the page's script-src policy stays as it is
    # A view's entrance (a card popping in from transparent) is read as it ends, not halfway.
    page.evaluate("""() => document.getAnimations()
        .filter(a => a.effect && a.effect.getComputedTiming().endTime !== Infinity).forEach(a => a.finish())""")
    page.evaluate("""() => { window.walkWasOpen = new Set(document.querySelectorAll('details[open]'));
        document.querySelectorAll('details:not([open])').forEach(d => { d.open = true; }); }""")
    theme = page.evaluate("() => document.documentElement.getAttribute('data-theme')")
    try:
        for each in ("dark", "light"):
            page.evaluate(f"document.documentElement.setAttribute('data-theme', '{each}')")
            found = page.evaluate(FINDINGS)
            assert found == [], f"axe-core on {name}, {each} theme: {found}"
    finally:
        page.evaluate("""theme => {
            if (theme === null) document.documentElement.removeAttribute('data-theme');
            else document.documentElement.setAttribute('data-theme', theme);
            document.querySelectorAll('details[open]').forEach(d => { if (!window.walkWasOpen.has(d)) d.open = false; });
        }""", theme)
