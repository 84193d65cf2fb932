"""Playwright fixtures: a live server in a thread and phone-sized browser contexts."""

from __future__ import annotations

import os
import re
import threading

import pytest
from werkzeug.serving import make_server

from companion import create_app

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True,
         "has_touch": True}
SHOTS = os.path.join(os.path.dirname(__file__), "..", "test-results")


@pytest.fixture(scope="module")
def live_server(tmp_path_factory, request):
    path = tmp_path_factory.mktemp("live") / "live.sqlite"
    app = create_app({"DATABASE": str(path), "SECRET_KEY": "browser-test", "LAN_ADDRESS": "127.0.0.1",
                      "STREAM_POLL_SECONDS": 0.5, "STREAM_MAX_SECONDS": 60.0,
                      **getattr(request.module, "SERVER_SETTINGS", {})})  # a module's own, if any
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    # A slow or busy test machine must not fail a check that would pass a moment later.
    sync_api.expect.set_options(timeout=10_000)
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"Chromium not found at {CHROMIUM}; scripts/test.sh installs Debian's package.")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def phones(browser):
    """phones(n): n phones, each its own browser context (own cookies), phone-sized."""
    made = []

    def make(n):
        for _ in range(n):
            context = browser.new_context(**PHONE)
            context.set_default_timeout(10_000)
            made.append(context)
        return [c.new_page() for c in made[-n:]]

    yield make
    for context in made:
        context.close()


def shot(page, name):
    os.makedirs(SHOTS, exist_ok=True)
    # caret="initial": hiding the caret leaves style="" on every input, which htmx then copies
    # onto the next swap's inputs with the same id, against the page's style-src policy.
    page.screenshot(path=os.path.join(SHOTS, f"{name}.png"), full_page=True, caret="initial")


def tap(page, name, exact=False):
    """Tap a button and wait for the answer, as a player waits to see the screen change.
    At a table, the phone first shows the table's latest version: a player taps what the
    screen shows once the others' moves are on it (a tap on a screen a move has changed
    since is refused as stale, and the version that then changes is the other move's)."""
    from playwright.sync_api import expect

    shown = up_to_date(page)
    page.get_by_role("button", name=name, exact=exact).click()
    expect(page.locator("#view .view")).not_to_have_attribute("data-version", shown)
    expect(page.locator(".notice.error")).to_have_count(0)


def caught_up(pages, base, code):
    """Every phone shows the table's latest version: a player acts on what their screen
    shows, and a tap made on a screen an earlier move has changed is refused as stale."""
    from playwright.sync_api import expect

    version = str(pages[0].request.get(f"{base}/api/tables/{code}").json()["version"])
    for page in pages:
        expect(page.locator("#view .view")).to_have_attribute("data-version", version)


def up_to_date(page):
    """The version of the table this phone shows, once it is the table's latest (a page
    that is no table's: its version, if any, as it is)."""
    at_table = re.match(r"(https?://[^/]+)/t/([A-Za-z0-9]+)(?:[/?#]|$)", page.url)
    if at_table and page.locator("#view .view").count():
        caught_up([page], *at_table.groups())
    return page.locator("#view .view").get_attribute("data-version")


class Watch:
    """What a page did: its posted actions, console errors and failed requests."""

    # What a document loads by itself (not the app's own requests): the browser drops such a
    # load when the player leaves the page, which is no failure a player could see.
    DOCUMENT_LOADS = {"image", "stylesheet", "script", "font", "manifest", "media", "other"}

    def __init__(self, page):
        self.posts, self.errors = [], []
        self._failed = None        # set by a test that filtered the failures itself
        self._documents = 0        # main-frame navigations so far
        self._issued_in = {}       # request -> the navigation count when it was sent
        self._dropped = []         # (request, failure) of requests the browser gave up on
        page.on("request", self._sent)
        page.on("framenavigated", lambda frame: frame == page.main_frame and self._navigated())
        page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("requestfailed", lambda r: self._dropped.append((r, r.failure)))

    def _sent(self, request):
        self._issued_in[request] = self._documents
        if request.method == "POST":
            self.posts.append(request.url)

    def _navigated(self):
        self._documents += 1

    @property
    def failed(self):
        """Failed requests, less a page's own loads cut off because the page was left (judged
        when read, once every navigation has been seen, whatever order the events came in)."""
        if self._failed is not None:
            return self._failed
        return [f"{r.method} {r.url} {failure}" for r, failure in self._dropped
                if not (failure == "net::ERR_ABORTED" and r.resource_type in self.DOCUMENT_LOADS
                        and self._issued_in.get(r, self._documents) < self._documents)]

    @failed.setter
    def failed(self, kept):
        self._failed = list(kept)

    def assert_clean(self):
        assert self.errors == [], self.errors
        assert self.failed == [], self.failed


PHONE_WIDTH = PHONE["viewport"]["width"]
FIRST_SCREEN = PHONE["viewport"]["height"]


def page_size(page):
    """The page's full width and height in CSS pixels, as a screenshot would show them."""
    return page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]")


def assert_fits_phone(page):
    """Nothing wider than the phone: a mobile browser would zoom the whole page out to fit it."""
    width, _ = page_size(page)
    assert width <= PHONE_WIDTH, f"page is {width} px wide on a {PHONE_WIDTH} px phone"


def assert_in_first_screen(page, locator):
    """The box of `locator` lies wholly inside the first screen, with the page at its top."""
    page.evaluate("() => window.scrollTo(0, 0)")
    box = locator.first.bounding_box()
    assert box is not None, f"{locator} is not on the screen"
    assert box["y"] >= 0 and box["y"] + box["height"] <= FIRST_SCREEN, (
        f"{locator} spans {box['y']:.0f}-{box['y'] + box['height']:.0f} px; the first screen ends at "
        f"{FIRST_SCREEN} px")


def keep_figure(file_name, key, value):
    """Add one figure to a JSON file in test-results, for people to compare across runs."""
    import fcntl
    import json

    os.makedirs(SHOTS, exist_ok=True)
    # Tests run in parallel processes: the file is read and rewritten under a lock.
    with open(os.path.join(SHOTS, file_name), "a+") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        f.seek(0)
        text = f.read()
        figures = json.loads(text) if text else {}
        figures[key] = value
        f.seek(0)
        f.truncate()
        json.dump(figures, f, indent=1, sort_keys=True)


BOTTOM_BAR = 72  # the frame's sticky bar (and its margin) covers the last 72 px of the first screen


def assert_primary_clear(page, name):
    """Exactly one primary element, wholly in the first screen and clear of the bottom bar."""
    from playwright.sync_api import expect

    primary = page.locator("[data-primary]")
    expect(primary).to_have_count(1)
    assert_in_first_screen(page, primary)
    box = primary.bounding_box()
    assert box["y"] + box["height"] <= FIRST_SCREEN - BOTTOM_BAR, (
        f"{name}: the primary action ends at {box['y'] + box['height']:.0f} px, under the bottom bar")


def record_screen(page, name, heights_file):
    """A full-page screenshot plus the page's height, kept in test-results for people to look at."""
    shot(page, name)
    keep_figure(heights_file, name, page_size(page)[1])
