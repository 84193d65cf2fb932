"""The table screen in a real browser: phones play a round of each game while a screen
(1920x1080 and 1024x768) follows it. After every move the screen shows the table's new
version; no text on it is smaller than 4 % of its height and nothing is wider than it; what
it says aloud (the browser's speechSynthesis, stubbed here to record each line) is the
right sentence, in the page's language, at the version it belongs to, and never tells a
pick before the reveal. How long the screen took to show each move is kept as a figure
(test-results/screen-latency.json), not asserted."""

from __future__ import annotations

import os
import re
import threading
import time

import pytest

from .browser import CHROMIUM_ARGS, PHONE, SHOTS, Watch, keep_figure, shot  # noqa: F401
from .browser import browser, live_server  # noqa: F401  (fixtures)
from .helpers import with_step

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect

SIZES = [(1920, 1080), (1024, 768)]
NAMES = ["Ana", "Ben", "Cara"]

# Records every line the page would say: its text, its language, when, and the version of
# the view on the screen at that moment.
SPEECH_STUB = """(() => {
  const said = [];
  window.__said = said;
  window.SpeechSynthesisUtterance = function (text) { this.text = text; this.lang = ""; };
  const synth = {
    speak(line) {
      const view = document.querySelector("#screen-view .screen-view, #view .view");
      said.push({text: line.text, lang: line.lang, at: Date.now(),
                 version: view ? parseInt(view.getAttribute("data-version"), 10) : null});
    },
    cancel() {}, pause() {}, resume() {}, getVoices() { return []; },
    speaking: false, pending: false, paused: false,
  };
  Object.defineProperty(window, "speechSynthesis", {configurable: true, get: () => synth});
  // Each short sound's tones, counted as they start.
  window.__tones = [];
  const Context = window.AudioContext;
  if (Context) {
    const make = Context.prototype.createOscillator;
    Context.prototype.createOscillator = function () { window.__tones.push(Date.now()); return make.call(this); };
  }
})();"""

# Every visible text's size against the legibility rule, and anything wider than the screen.
LEGIBLE = """() => {
  const least = 0.04 * window.innerHeight, small = [], wide = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode, el = node.parentElement;
    if (!node.textContent.trim() || el.closest("script, style")) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    if (!range.getClientRects().length) continue;  // not shown
    const size = parseFloat(getComputedStyle(el).fontSize);
    if (size < least - 0.01) small.push(node.textContent.trim().slice(0, 40) + " " + size + "px");
  }
  for (const el of document.querySelectorAll("body *")) {
    const box = el.getBoundingClientRect();
    if (box.width && box.right > window.innerWidth + 0.5) wide.push((el.className || el.tagName) + " " + box.right);
  }
  return {small, wide, scroll: document.documentElement.scrollWidth, width: window.innerWidth};
}"""


@pytest.fixture
def contexts(browser):  # noqa: F811
    made = []

    def make(**options):
        context = browser.new_context(**options)
        context.set_default_timeout(10_000)
        context.add_init_script(SPEECH_STUB)
        made.append(context)
        return context.new_page()

    yield make
    for context in made:
        context.close()


class Table:
    """A table three phones play (each holds its own seat) while a screen follows it."""

    def __init__(self, contexts, base, game, options, size, screen_path="/t/{code}/screen"):
        self.base, self.game, self.size = base, game, size
        self.phones = [contexts(**PHONE) for _ in NAMES]
        resp = self.phones[0].request.post(f"{base}/api/tables", headers={"Origin": base},
                                           data={"game": game, "players": NAMES, "options": options})
        assert resp.ok, resp.text()
        self.code = resp.json()["code"]
        for seat, phone in enumerate(self.phones):
            assert phone.request.post(f"{base}/api/tables/{self.code}/seats/{seat}", headers={"Origin": base}).ok
            phone.goto(f"{base}/t/{self.code}")
        width, height = size
        self.screen = contexts(viewport={"width": width, "height": height})
        self.watch = Watch(self.screen)
        self.screen.goto(base + screen_path.format(code=self.code))
        expect(self.view()).to_have_attribute("data-code", self.code)
        self.version = int(self.view().get_attribute("data-version"))
        self.heard = {line["key"] for line in self.lines()}  # said by nobody: there before
        self.expected = []  # (text, version) the screen must have said, in order
        self.latencies = []
        self.legible()

    def view(self):
        return self.screen.locator("#screen-view .screen-view")

    def lines(self):
        return self.screen.request.get(f"{self.base}/t/{self.code}/screen/say").json()["lines"]

    def act(self, action, params=None, seat=0):
        """A phone sends a move; the screen shows its version, and says its new lines."""
        phone = self.phones[seat]
        table = phone.request.get(f"{self.base}/api/tables/{self.code}").json()
        started = time.monotonic()
        resp = phone.request.post(f"{self.base}/api/tables/{self.code}/actions", headers={"Origin": self.base},
                                  data={"action": action, "params": with_step(table, action, params or {}),
                                        "version": table["version"], "seat": seat})
        assert resp.ok, resp.text()
        self.version = resp.json()["version"]
        expect(self.view()).to_have_attribute("data-version", str(self.version))
        self.latencies.append(time.monotonic() - started)
        for line in self.lines():
            if line["key"] not in self.heard:
                self.heard.add(line["key"])
                self.expected.append((line["text"], self.version))
        self.legible()
        return resp.json()

    def legible(self):
        found = self.screen.evaluate(LEGIBLE)
        assert found["small"] == [], f"{self.size}: text under 4 % of the height: {found['small']}"
        assert found["wide"] == [] and found["scroll"] <= found["width"], f"{self.size}: wider than the screen: {found}"

    def said(self):
        return self.screen.evaluate("() => window.__said")

    def check_speech(self):
        """Every line said once, at the version it came with, in the page's language."""
        said = self.said()
        expect(self.screen.locator("html")).to_have_attribute("lang", "en")
        assert all(line["lang"] == "en" for line in said), said
        assert [(line["text"], line["version"]) for line in said] == self.expected
        self.watch.assert_clean()
        keep_figure("screen-latency.json", f"{self.game} {self.size[0]}x{self.size[1]}",
                    {"moves": len(self.latencies), "slowest_s": round(max(self.latencies), 3),
                     "median_s": round(sorted(self.latencies)[len(self.latencies) // 2], 3)})

    def shoot(self, name):
        """A screenshot for people to look at, the short animations played to their end."""
        os.makedirs(SHOTS, exist_ok=True)
        suffix = "" if self.size == (1920, 1080) else f"-{self.size[0]}x{self.size[1]}"
        self.screen.screenshot(path=os.path.join(SHOTS, f"{name}{suffix}.png"), animations="disabled")


def texts(table):
    return [line["text"] for line in table.said()]


def play_wicked_forest(contexts, base, size, ana):
    table = Table(contexts, base, "wicked-forest", {"first_leader": "0"}, size)
    # The browser lets the page sound once it was tapped: the screen says so until then.
    expect(table.screen.locator(".sc-hint")).to_be_visible()
    table.screen.mouse.click(10, 10)
    expect(table.screen.locator(".sc-hint")).to_be_hidden()
    table.act("reveal", {"flowers": 2, "witch": False})
    expect(table.screen.locator(".sc-card.up")).to_have_count(1)
    assert texts(table)[-1] == "Card 1: 2 Flowers. Stay or return?"
    table.act("choose", {"choice": ana, "decision": 1}, seat=0)
    table.act("choose", {"choice": "stay", "decision": 1}, seat=1)
    expect(table.screen.locator(".sc-player.chosen")).to_have_count(2)
    before_reveal = texts(table)
    table.act("choose", {"choice": "return", "decision": 1}, seat=2)
    # The reveal: every pick at once, big, for everyone.
    expect(table.screen.locator(".sc-reveal.now .sc-pick")).to_have_count(3)
    assert table.screen.evaluate("() => window.__tones.length") == 3  # the reveal's chime, once
    table.shoot("screen-wicked-forest")
    return table, before_reveal


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_wicked_forest_on_the_screen(live_server, contexts, size):
    table, before = play_wicked_forest(contexts, live_server, size, "stay")
    stays = "Ana and Ben stay."
    assert texts(table)[len(before):] == [f"Everyone has chosen! Cara returns. {stays}", "Ana, turn card 2 face up."]
    # A phone whose voice is switched on (in More) says the next step too.
    ben = table.phones[1]
    ben.locator("[data-voice-toggle]").first.dispatch_event("click")
    expect(ben.locator("[data-voice-toggle]").first).to_have_text("🗣 Steps read aloud: on")
    expect(ben.locator("[data-voice-toggle][data-voice-ready]")).not_to_have_count(0)
    table.act("reveal", {"flowers": 3, "witch": True})
    ben.wait_for_function("() => window.__said.some(l => l.text === 'Card 2: 3 Flowers and a Witch. Stay or return?')")
    expect(table.screen.locator(".sc-card.witch")).to_have_count(1)
    expect(table.screen.locator(".sc-line").first).to_contain_text("Witches: 1")
    table.act("choose", {"choice": "return", "decision": 2}, seat=0)
    table.act("choose", {"choice": "return", "decision": 2}, seat=1)
    table.act("next_round")
    expect(table.screen.locator(".sc-headline")).to_contain_text("Round 2")
    table.check_speech()
    ben.wait_for_function("() => window.__said.some(l => l.text === 'Round 2. Ben leads.')")
    phone_said = ben.evaluate("() => window.__said")
    # The phone says the screen's lines from the moment its voice was on, each once and in
    # order (a moment that passed before the phone showed it may go unsaid there).
    screen_lines = texts(table)
    heard = [line["text"] for line in phone_said]
    assert heard[0] == "Card 2: 3 Flowers and a Witch. Stay or return?" and heard[-1] == "Round 2. Ben leads."
    start = screen_lines.index(heard[0])
    rest = iter(screen_lines[start:])
    assert all(text in rest for text in heard), (heard, screen_lines)
    assert all(line["lang"] == "en" for line in phone_said)


def test_no_line_said_before_the_reveal_tells_the_picks(live_server, contexts):
    """Two runs whose picks are flipped say the same lines until the reveal."""
    runs = [play_wicked_forest(contexts, live_server, (1024, 768), ana) for ana in ("stay", "return")]
    assert runs[0][1] == runs[1][1]
    assert not any(re.search(r"\b(stays?|returns)\b", text) for text in runs[0][1])
    assert texts(runs[0][0])[len(runs[0][1])] == "Everyone has chosen! Cara returns. Ana and Ben stay."
    assert texts(runs[1][0])[len(runs[1][1])] == "Everyone has chosen! Ana and Cara return. Ben stays."


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_woodland_wizards_on_the_screen(live_server, contexts, size):
    table = Table(contexts, live_server, "woodland-wizards", {"first_player": "0"}, size)
    for seat in range(3):
        table.act("end_wandering_turn", {"player": seat}, seat=seat)
    table.act("next_phase")
    expect(table.screen.locator(".sc-now")).to_contain_text("Boost round 1 of 3")
    for seat in range(3):
        view = table.act("pass_boost", {"player": seat}, seat=seat)["view"]
        if view["phase"] != "boost":
            break
    if table.screen.locator(".sc-phases .current").inner_text() == "Boost":
        table.act("next_phase")
    for seat, total in enumerate([20, 25, 20]):
        table.act("enter_total", {"player": seat, "total": total}, seat=seat)
    table.act("settle_round")
    tie = "Ana and Cara both have 20; Ana is the starting player, so Ana ranks higher."
    expect(table.screen.locator(".sc-why")).to_contain_text(tie)
    assert texts(table)[-1] == f"Ben wins round 1. {tie}"
    table.shoot("screen-woodland-wizards")
    table.check_speech()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_explorers_on_the_screen(live_server, contexts, size):
    options = {"first_player": "0", "hero_1": "xylia", "hero_2": "klethor", "hero_3": "bethras",
               "enraged_bosses": True}
    table = Table(contexts, live_server, "explorers-of-the-woodlands", options, size)
    for seat in range(3):
        table.act("place_tile", {}, seat=seat)
    # The third tile placed, the Adventure phase begins by itself.
    assert texts(table)[-1] == "Ana, your turn with Xylia."
    table.act("end_turn")
    table.act("reveal_boss", {"boss": "venomia", "track": 7}, seat=1)
    table.act("threat_up", {}, seat=1)
    table.act("threat_up", {}, seat=1)
    expect(table.screen.locator(".sc-track li")).to_have_count(7)
    expect(table.screen.locator(".sc-track li.cube")).to_have_text(re.compile(r"^\s*3"))
    expect(table.screen.locator(".sc-track li.enraged")).not_to_have_count(0)
    table.act("set_hp", {"hero": "klethor", "hp": 2}, seat=1)
    expect(table.screen.locator(".sc-hero").nth(1)).to_contain_text("❤ 2")
    table.shoot("screen-explorers-of-the-woodlands")
    table.check_speech()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_mysterious_forest_on_the_screen(live_server, contexts, size):
    options = {"first_player": "0", "guess_variant": True, "backpack_size": 12}
    table = Table(contexts, live_server, "mysterious-forest", options, size, screen_path="/screen")
    table.act("start_scouting")
    assert texts(table)[-1] == "Ana, your turn: turn card 1 over and look together."
    def view():
        return table.screen.request.get(f"{live_server}/api/tables/{table.code}").json()["view"]

    while view()["phase"] == "scouting":
        table.act("done_looking", {}, seat=view()["scout_seat"])
    # The speaker beside the instruction reads it aloud on a child's phone.
    roller = view()["roll_seat"]
    child = table.phones[roller]
    expect(child.locator(".mf-turn")).to_contain_text("roll the 4 dice")
    child.locator(".mf-turn [data-speak]").click()
    child.wait_for_function("() => window.__said.length > 0")
    assert child.evaluate("() => window.__said.map(l => [l.text, l.lang])") == [[f"🎲 {NAMES[roller]}, roll the 4 dice!", "en"]]
    while view()["phase"] == "packing":
        table.act("pack", {"took": "equipment"})
    expect(table.screen.locator(".sc-path li.here .sc-jonas")).to_have_count(1)
    table.act("cross")
    expect(table.screen.locator(".sc-path li.crossed")).not_to_have_count(0)
    assert texts(table)[-1].startswith("Jonas is on card ")
    table.shoot("screen-mysterious-forest")
    table.check_speech()
    # The evening's screen (/screen) moves on by itself to the next table started.
    resp = table.phones[0].request.post(f"{live_server}/api/tables", headers={"Origin": live_server},
                                        data={"game": "woodland-wizards", "players": NAMES, "options": {}})
    expect(table.view()).to_have_attribute("data-code", resp.json()["code"])
    expect(table.screen.locator("[data-code-text]")).to_have_text(resp.json()["code"])
    expect(table.screen.locator(".sc-game")).to_have_text("Woodland Wizards")
    table.legible()


def test_the_countdown_runs_out_on_the_screen_with_a_sound_and_a_line(live_server, contexts):
    table = Table(contexts, live_server, "woodland-wizards", {"first_player": "0"}, (1024, 768))
    table.screen.mouse.click(10, 10)
    table.act("timer_set", {"mode": "free", "seconds": 5})
    table.act("timer_start")
    expect(table.screen.locator(".sc-countdown .cd-time")).to_have_text(re.compile(r"^0:0[1-5]$"))
    table.screen.wait_for_function("() => window.__said.some(l => l.text === 'Time is up!')")
    expect(table.screen.locator(".sc-countdown.time-up .cd-up")).to_be_visible()
    assert table.screen.evaluate("() => window.__tones.length") == 2  # two beeps, once
    assert [line["text"] for line in table.said()].count("Time is up!") == 1
    table.legible()


def serve(app, port=0):
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", port, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def test_the_screen_comes_back_by_itself_after_a_server_restart(tmp_path, contexts):
    """The server stops and starts again (the same database): the screen, left alone,
    shows the moves made after the restart."""
    from companion import create_app

    config = {"DATABASE": str(tmp_path / "restart.sqlite"), "SECRET_KEY": "browser-test",
              "LAN_ADDRESS": "127.0.0.1", "STREAM_POLL_SECONDS": 0.2, "STREAM_MAX_SECONDS": 2.0}
    first = serve(create_app(config))
    port = first.server_port
    base = f"http://127.0.0.1:{port}"
    table = Table(contexts, base, "wicked-forest", {"first_leader": "0"}, (1920, 1080))
    table.act("reveal", {"flowers": 1, "witch": False})
    first.shutdown()
    first.server_close()
    expect(table.screen.locator(".sc-offline")).to_be_visible()  # its stream ended, and cannot come back yet
    second = serve(create_app(config), port)
    try:
        expect(table.screen.locator(".sc-offline")).to_be_hidden(timeout=20_000)
        table.act("choose", {"choice": "stay", "decision": 1}, seat=0)
        expect(table.screen.locator(".sc-player.chosen")).to_have_count(1)
    finally:
        second.shutdown()
        second.server_close()
