"""A phone is never stranded and no tap goes missing: the next move comes into view when it
becomes this phone's, clear of the countdown bar, with focus on nothing the player did not
touch; a tap shows it is on its way; a tap the network lost is sent again as the same request
or reported; a phone offline says so and catches up; stream restarts log nothing."""

import json
import os
import re
import threading

import pytest
from werkzeug.serving import make_server

from companion import create_app

from .browser import BOTTOM_BAR, FIRST_SCREEN, SHOTS, Watch, browser, phones  # noqa: F401  (fixtures)
from .helpers import with_step

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect

STREAM_SECONDS = 2.5  # how long the server keeps a stream open before ending it


@pytest.fixture(scope="module")
def live_server(tmp_path_factory):
    """A server ending every stream after a few seconds, as it does every few minutes."""
    path = tmp_path_factory.mktemp("phone") / "live.sqlite"
    app = create_app({"DATABASE": str(path), "SECRET_KEY": "browser-test", "LAN_ADDRESS": "127.0.0.1",
                      "STREAM_POLL_SECONDS": 0.5, "STREAM_MAX_SECONDS": STREAM_SECONDS})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


def shot(page, name):
    """The screen as the player sees it (not the whole page): where it is scrolled matters."""
    os.makedirs(SHOTS, exist_ok=True)
    page.wait_for_function("""() => new Promise(done => {  // not in the middle of a smooth scroll
      const y = scrollY; requestAnimationFrame(() => requestAnimationFrame(() => done(scrollY === y))); })""")
    page.screenshot(path=os.path.join(SHOTS, f"{name}.png"), caret="initial")


def api(page, base, method, path, body=None):
    resp = page.request.fetch(base + path, method=method, data=body, headers={"Origin": base})
    assert resp.ok, resp.text()
    return resp.json()


def act(page, base, code, action, params):
    """A move made at the table by another phone (through the API, with this one's cookies)."""
    table = api(page, base, "GET", f"/api/tables/{code}")
    return api(page, base, "POST", f"/api/tables/{code}/actions",
               {"action": action, "params": with_step(table, action, params), "version": table["version"]})


def table_of(pages, base, game, players, options, seats=None):
    """A table with each page seated (seat i by default) and on the table page."""
    code = api(pages[0], base, "POST", "/api/tables", {"game": game, "players": players, "options": options})["code"]
    for i, page in enumerate(pages):
        api(page, base, "POST", f"/api/tables/{code}/seats/{i if seats is None else seats[i]}")
    return code


def open_table(pages, base, code):
    for page in pages:
        page.goto(f"{base}/t/{code}")
        expect(page.locator("#view [data-primary]")).to_be_visible()
        page.wait_for_function("() => !!window.htmx")  # the page's script runs: taps go by htmx


# Where the main card's controls are, against the part of the first screen nothing covers.
STEP_PLACE = """() => {
  const card = document.querySelector('#view [data-primary]');
  const list = [...card.querySelectorAll('button, input:not([type=hidden]), select, a.btn')]
    .filter(el => !el.disabled && el.getClientRects().length);
  if (!list.length) return null;
  const status = document.querySelector('#view .status-line');
  const sticky = status && getComputedStyle(status).position === 'sticky';
  const first = list[0].getBoundingClientRect(), last = list[list.length - 1].getBoundingClientRect();
  return {top: first.top, bottom: last.bottom, barBottom: sticky ? status.getBoundingClientRect().bottom : 0,
          label: (list[0].getAttribute('aria-label') || list[0].textContent).trim()};
}"""
IN_VIEW = f"""() => {{
  const place = ({STEP_PLACE})();
  return place === null || (place.top >= Math.max(0, place.barBottom) - 1
                            && place.bottom <= {FIRST_SCREEN - BOTTOM_BAR} + 1);
}}"""
FOCUS = """() => {
  const el = document.activeElement;
  return el && el.matches('button, input, select, textarea, a, summary') ?
    (el.getAttribute('aria-label') || el.textContent).trim() : null;
}"""


def assert_step_in_view(page, what, touched=None):
    """This phone's next step lies in the first screen, under the countdown bar and above the
    bottom bar (waited for: the page scrolls smoothly), and no control has focus but the one
    the player touched last, if it is still there (`touched`, its label)."""
    try:
        page.wait_for_function(IN_VIEW, timeout=4000, polling="raf")
    except Exception:
        place = page.evaluate(STEP_PLACE)
        raise AssertionError(f"{what}: the next step is out of view: {place}, scrolled {page.evaluate('scrollY')} px")
    # Focus is let go when the swapped view settles (htmx's settle comes a moment after the
    # swap the test waited for): waited for, as long as a step's scroll.
    focus_ok = f"""() => {{
      const focus = ({FOCUS})();  // a control's words run together with its small print's
      return focus === null || ({json.dumps(touched)} !== null && focus.startsWith({json.dumps(touched)}));
    }}"""
    try:
        page.wait_for_function(focus_ok, timeout=4000, polling="raf")
    except Exception:
        raise AssertionError(f"{what}: focus on {page.evaluate(FOCUS)!r}, which nobody touched")


def scroll_away(page):
    """The player scrolls down the page (to a panel, the log) and stops."""
    page.evaluate("() => window.scrollTo(0, document.documentElement.scrollHeight)")
    page.wait_for_function("() => scrollY >= Math.min(200, document.documentElement.scrollHeight - innerHeight) - 1")


def version_of(page):
    return page.locator("#view .view").get_attribute("data-version")


def test_the_next_move_comes_into_view_under_the_countdown(live_server, phones):
    """The Wicked Forest at three phones with a decision countdown: phones scrolled down to the
    Crystallization panel get Stay or Return in view when the card is revealed, below the
    countdown bar; the last chooser's phone shows the next reveal, focus on nothing."""
    ana, ben, cara = everyone = phones(3)
    code = table_of(everyone, live_server, "wicked-forest", ["Ana", "Ben", "Cara"], {"first_leader": "0"})
    act(ana, live_server, code, "timer_set", {"mode": "turn", "seconds": 120})
    open_table(everyone, live_server, code)
    watches = [Watch(page) for page in everyone]
    for page in (ben, cara):
        page.locator("#wf-crystal summary").click()
        scroll_away(page)
    # Cara is choosing what she crystallized: her screen is not pulled away from it.
    field = cara.locator("#wf-crystal-item")
    field.focus()
    typing_at = field.bounding_box()["y"]

    ana.get_by_role("button", name="3 Flowers, no Witch").click()
    for page, name in zip(everyone, ("Ana", "Ben", "Cara")):
        expect(page.locator("[data-primary] h2")).to_have_text(f"{name}: Stay or Return?")
        expect(page.locator(".countdown")).to_be_visible()
    for page, name in ((ana, "Ana"), (ben, "Ben")):
        assert_step_in_view(page, f"{name} after the reveal", None if page is ana else "Log Crystallization")
    your_move = cara.get_by_role("button", name="Your move")
    expect(your_move).to_contain_text("Cara: Stay or Return?")
    assert abs(field.bounding_box()["y"] - typing_at) <= 2  # the field stays where it was
    expect(field).to_be_focused()
    shot(cara, "phone-01b-your-move-while-typing")
    your_move.click()
    assert_step_in_view(cara, "Cara after tapping Your move")
    expect(your_move).to_have_count(0)
    shot(ben, "phone-01-decision-in-view-under-countdown")

    ana.get_by_role("button", name=re.compile("Stay")).click()
    cara.get_by_role("button", name=re.compile("Return")).click()
    shown = version_of(ben)
    ben.get_by_role("button", name=re.compile("Return")).click()
    expect(ben.locator(".view")).not_to_have_attribute("data-version", shown)
    # The returners are asked what they crystallized; the leader, still in, reveals next.
    for page, name, step in zip(everyone, ("Ana", "Ben", "Cara"), ("Reveal card 2: tap what it shows",
                                "Ben, what did you crystallize?", "Cara, what did you crystallize?")):
        expect(page.locator("[data-primary] h2")).to_have_text(step)
        assert_step_in_view(page, f"{name} after the choices are revealed")
    shot(ben, "phone-02-last-chooser-sees-his-next-step")
    for watch in watches:
        watch.assert_clean()


def explorers_at_the_boss(pages, base):
    """Explorers for Ana (Xylia) and Ben (Klethor), the Boss out: Xylia's turn, threat 1."""
    code = table_of(pages, base, "explorers-of-the-woodlands", ["Ana", "Ben"],
                    {"first_player": "0", "hero_1": "xylia", "hero_2": "klethor"})
    act(pages[0], base, code, "place_tile", {"kind": "growth", "hero": "xylia"})
    act(pages[0], base, code, "place_tile", {"kind": "growth", "hero": "klethor"})
    act(pages[0], base, code, "reveal_boss", {"boss": "fungor", "track": 9})
    open_table(pages, base, code)
    return code


def threat_ups(page, base, code):
    log = api(page, base, "GET", f"/api/tables/{code}/actions")["actions"]
    return [line["action"] for line in log].count("threat_up")


def test_a_tap_offline_is_sent_once_when_the_network_is_back(live_server, phones):
    ana, ben = phones(2)
    code = explorers_at_the_boss([ana, ben], live_server)
    sent = []
    ana.on("request", lambda r: r.method == "POST" and "/act" in r.url and sent.append(r.post_data))
    threat_up = ana.get_by_role("button", name="Threat plus one")
    cube = ana.locator(".track li.cube")

    # A slow network: the tap shows at once that it is on its way.
    cdp = ana.context.new_cdp_session(ana)
    cdp.send("Network.emulateNetworkConditions",
             {"offline": False, "latency": 1500, "downloadThroughput": -1, "uploadThroughput": -1})
    threat_up.click()
    expect(threat_up).to_have_attribute("aria-busy", "true", timeout=1000)
    shot(ana, "phone-03-tap-on-its-way")
    expect(cube).to_have_text("2")
    expect(ana.locator("[aria-busy]")).to_have_count(0)
    cdp.send("Network.emulateNetworkConditions",
             {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})

    # Offline: the phone says so; Ben's move made meanwhile arrives when it is back.
    watch = Watch(ana)
    net = ana.locator("#net")
    ana.context.set_offline(True)
    expect(net).to_contain_text("Offline")
    act(ben, live_server, code, "threat_up", {})
    expect(ben.locator(".track li.cube")).to_have_text("3")
    shot(ana, "phone-04-offline")
    with ana.expect_request(lambda r: "/events" in r.url):  # the stream is back, as it rested
        ana.context.set_offline(False)
    expect(cube).to_have_text("3")
    expect(net).to_be_hidden()

    # A tap made offline is sent when the network is back, once; the page logs no error.
    ana.context.set_offline(True)
    expect(net).to_contain_text("Offline")
    threat_up.click()
    expect(net).to_contain_text("“Threat +1” will be sent when the network is back")
    shot(ana, "phone-05-tap-waits-for-the-network")
    assert threat_ups(ana, live_server, code) == 2
    ana.context.set_offline(False)
    for page in (ana, ben):
        expect(page.locator(".track li.cube")).to_have_text("4")
    expect(net).to_be_hidden()
    assert threat_ups(ana, live_server, code) == 3
    assert watch.errors == [], (watch.errors, watch.failed)

    # The answer lost on its way back (the server got the tap): sent again, the very same
    # request, and the server knows it by its request id: the threat goes up once.
    lost = []

    def lose_the_answer(route):
        route.fetch()
        lost.append(route.request.post_data)
        route.abort("internetdisconnected")

    ana.route("**/act", lose_the_answer, times=1)
    threat_up.click()
    for page in (ana, ben):
        expect(page.locator(".track li.cube")).to_have_text("5")
    expect(net).to_be_hidden()
    assert lost and sent[-1] == lost[0] and sent.count(lost[0]) == 2, (lost, sent[-3:])
    assert threat_ups(ana, live_server, code) == 4
    assert api(ana, live_server, "GET", f"/api/tables/{code}")["view"]["boss"]["threat"] == 5


def test_stream_restarts_are_no_error(live_server, phones):
    """The server ends each stream after a while; the phones reconnect with nothing logged
    and no failed request, and the next move still arrives."""
    ana, ben = phones(2)
    code = explorers_at_the_boss([ana, ben], live_server)
    watches = [Watch(page) for page in (ana, ben)]
    for page in (ana, ben):  # a restart on each phone (the other tests go through more)
        with page.expect_request(lambda r: "/events" in r.url, timeout=STREAM_SECONDS * 4000):
            pass
    act(ben, live_server, code, "threat_up", {})
    for page in (ana, ben):
        expect(page.locator(".track li.cube")).to_have_text("2")
    for watch in watches:
        watch.assert_clean()
    expect(ana.locator("#net:not([hidden])")).to_have_count(0)  # nothing said to be lost


# What the main card asks of this phone: its heading and the controls it offers.
STEP = """() => {
  const card = document.querySelector('#view [data-primary]');
  if (!card) return null;
  const list = [...card.querySelectorAll('button, input:not([type=hidden]), select, a.btn')]
    .filter(el => !el.disabled && el.getClientRects().length);
  if (!list.length) return null;
  const heading = card.querySelector('h1, h2, h3');
  return (heading ? heading.textContent.trim() : '') + '|' +
    list.map(el => (el.getAttribute('aria-label') || el.textContent).trim()).join('|');
}"""
NEXT_MOVE = """() => {
  const card = document.querySelector('#view [data-primary]');
  const list = [...card.querySelectorAll('form button, form input[type=submit]')]
    .filter(el => !el.disabled && el.getClientRects().length);
  const pick = list.find(el => el.classList.contains('primary')) || list[0];
  if (!pick) return null;
  pick.setAttribute('data-walk', '');
  return (pick.getAttribute('aria-label') || pick.textContent).trim();
}"""


@pytest.mark.parametrize("game, players, options", [
    ("explorers-of-the-woodlands", ["Ana", "Ben"], {"first_player": "0", "hero_1": "xylia", "hero_2": "klethor"}),
    ("woodland-wizards", ["Ana", "Ben"], {"first_player": "0"}),
    ("mysterious-forest", ["Ana", "Ben"], {"first_player": "0"}),
])
def test_every_game_brings_each_phone_its_new_step(live_server, phones, game, players, options):
    """A game walked by its main cards' own buttons, each tapped by the phone offered it: after
    every move, every phone whose main card asks something new of it has it in view, however
    far down it had scrolled, and focus on nothing it did not touch."""
    pages = phones(len(players))
    code = table_of(pages, live_server, game, players, options)
    open_table(pages, live_server, code)
    watches = [Watch(page) for page in pages]
    walked = []
    for _ in range(6):
        tapper = next((page for page in pages if page.evaluate(NEXT_MOVE)), None)
        if tapper is None:
            break
        label = tapper.evaluate(NEXT_MOVE)
        before = {id(page): page.evaluate(STEP) for page in pages}
        shown = {id(page): version_of(page) for page in pages}
        for page in pages:
            if page is not tapper:  # gone to the panels, every one open, and down to the last
                page.evaluate("""() => document.querySelectorAll('#view details.panel:not([open]) > summary')
                                     .forEach(summary => summary.click())""")
                scroll_away(page)
        walked.append(label)
        tapper.locator("[data-walk]").first.click()
        for page in pages:
            expect(page.locator("#view .view")).not_to_have_attribute("data-version", shown[id(page)])
        for i, page in enumerate(pages):
            step = page.evaluate(STEP)
            if step is not None and step != before[id(page)]:
                touched = walked[-1] if page is tapper else None
                assert_step_in_view(page, f"{game}, {players[i]} after “{walked[-1]}”", touched)
    assert len(walked) >= 3, walked
    shot(pages[-1], f"phone-06-{game}-after-{len(walked)}-moves")
    for watch in watches:
        watch.assert_clean()


def test_a_tap_that_cannot_be_sent_says_so(live_server, phones):
    """A network that says it is up but loses every request: the tap is tried again a few
    times (the clock run on, not waited for), then the phone says it was not sent."""
    (ana,) = phones(1)
    code = table_of([ana], live_server, "explorers-of-the-woodlands", ["Ana", "Ben"],
                    {"first_player": "0", "hero_1": "xylia", "hero_2": "klethor"})
    ana.clock.install()
    open_table([ana], live_server, code)
    tries = []

    def lose(route):
        tries.append(route.request.post_data)
        route.abort("connectionreset")

    ana.route("**/act", lose)
    ana.get_by_role("button", name=re.compile("placed a tile")).first.click()
    expect(ana.locator("#net")).to_contain_text("not sent yet: trying again")
    for _ in range(3):  # each retry is sent once the clock has come to it
        with ana.expect_request(lambda r: r.url.endswith("/act")):
            ana.clock.fast_forward(8000)
    expect(ana.locator("#toast")).to_contain_text("Not sent: tap again")
    expect(ana.locator("#net")).to_be_hidden()
    assert len(tries) == 4 and len(set(tries)) == 1, tries  # the same request each time
    shot(ana, "phone-07-not-sent")
    assert api(ana, live_server, "GET", f"/api/tables/{code}")["version"] == 0
