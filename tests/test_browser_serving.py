"""Two phones served by two app instances on one database, as by two worker processes:
a move on one reaches the other, streams that end or drop come back, and a phone that
missed a move while its stream was down shows it as soon as it reconnects."""

import re
import threading

import pytest
from werkzeug.serving import make_server

from companion import create_app

from .browser import browser, phones, shot  # noqa: F401  (fixtures)
from .test_browser_table import create_wicked_forest, join

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect


@pytest.fixture
def two_workers(tmp_path):
    """Two servers, each with its own app (its own live-update hub), one database."""
    path = tmp_path / "club.sqlite"
    servers, urls = [], []
    for _ in range(2):
        app = create_app({"DATABASE": str(path), "SECRET_KEY": "browser-test", "LAN_ADDRESS": "127.0.0.1",
                          "STREAM_POLL_SECONDS": 0.05, "STREAM_KEEPALIVE_SECONDS": 0.5,
                          # Streams end every second or two, so reconnects happen during the test.
                          "STREAM_MAX_SECONDS": 1.5})
        server = make_server("127.0.0.1", 0, app, threaded=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        urls.append(f"http://127.0.0.1:{server.server_port}")
    yield urls
    for server in servers:
        server.shutdown()


def is_stream(request):
    return "/events" in request.url


def test_moves_cross_workers_and_survive_reconnects(two_workers, phones):
    first, second = two_workers
    ana, ben = phones(2)
    code = create_wicked_forest(ana, first, ["Ana", "Ben", "Cara"])
    ana.get_by_role("button", name="I am Ana").click()
    join(ben, second, code, "Ben")
    forest = ben.locator(".forest h2")

    # Ana's move is written through the first server; Ben's stream is held by the second.
    ana.get_by_role("button", name="3 Flowers, no Witch").click()
    expect(forest).to_have_text("Forest: 1 of 9 revealed", timeout=5000)

    # Ben's stream ends by itself and reconnects, twice; moves still arrive afterwards.
    for _ in range(2):
        ben.wait_for_event("request", predicate=is_stream, timeout=8000)
    ana.get_by_role("button", name=re.compile("Undo")).click()
    expect(forest).to_have_text("Forest: 0 of 9 revealed", timeout=5000)

    # Ben's network drops the stream: it cannot reconnect while Ana reveals a card.
    ben.route(re.compile(r".*/events.*"), lambda route: route.abort())
    ben.wait_for_event("requestfailed", predicate=is_stream, timeout=8000)
    ana.get_by_role("button", name="2 Flowers, no Witch").click()
    expect(ana.locator(".forest h2")).to_have_text("Forest: 1 of 9 revealed")

    # The network comes back: Ben's phone reconnects and shows what it missed.
    ben.unroute(re.compile(r".*/events.*"))
    expect(forest).to_have_text("Forest: 1 of 9 revealed", timeout=15000)
    expect(ben.get_by_label("Card 1: 2 Flowers")).to_be_visible()
    shot(ben, "serving-01-ben-caught-up-after-reconnect")
