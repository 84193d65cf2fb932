"""The Mysterious Forest in the pseudo-locale: every word a player reads on its board, panels,
options, record and log comes through the catalogs (no bare English), in every phase, on a
seated phone and a watching one, and in the JSON API's Text fields."""

import re

import pytest

from .helpers import act, take, toast
from .pseudo import bare_english

PLAYERS = ["Ana", "Ben"]
XA = "?lang=en_XA"
# Words on this game's board that other parts of the app write (their own helpers translate
# them): the speaker button's label (companion/web/screen.py).
OUTSIDE = {"Read it aloud"}


def bare(html, allowed):
    return [text for text in bare_english(html, allowed=allowed) if text not in OUTSIDE]


@pytest.fixture(autouse=True)
def pseudo_catalog():
    """The pseudo-locale is made from messages.pot: it must hold this game's messages."""
    from companion.web import i18n

    with i18n.TEMPLATE.open(encoding="utf-8") as file:
        text = file.read()
    if "Get the forest ready" not in text or "That was for roll {roll} ({name})" not in text:
        pytest.skip("run `bash scripts/catalogs.sh extract` first")


def new_table(client, **options):
    options = {"first_player": "0", "backpack_size": 9, **options}
    resp = client.post("/api/tables", json={"game": "mysterious-forest", "players": PLAYERS,
                                            "options": options})
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()["code"]


def ok(client, code, action, params=None):
    resp = act(client, code, action, params, seat=0)
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()


def board(html):
    """This game's part of a table page: its board and shared panels (the page's own frame,
    bar and menus belong to the pages)."""
    start = html.index('<section class="card mf-step')
    ends = [i for i in (html.find('<section class="card after-game"', start),
                        html.find('<nav class="bottom-bar"', start)) if i > 0]
    return html[start:min(ends)] if ends else html[start:]


def assert_said(client, code, watcher=None):
    allowed = PLAYERS + [code]
    for phone in filter(None, (client, watcher)):
        html = phone.get(f"/t/{code}{XA}").get_data(as_text=True)
        part = board(html)
        assert "mf-stats" in part and "mf-phases" in part or "mf-end" in part
        assert bare(part, allowed) == [], phone
    table = client.get(f"/api/tables/{code}{XA}").get_json()
    view = table["view"]
    texts = list(view["events"]) + [s["text"] for s in view["setup_steps"]]
    texts += [c["label"] for c in view["path"]] + [lv["label"] for lv in view["levels"]]
    texts += [view["level_label"], view["path_text"]] + list(view["packing_tips"])
    texts += [x for r in view["rolls"] for x in [r["label"], *r["notes"]]]
    texts += [x for e in view["exchanges"] for x in (e["label"], e["short"], e["give"])]
    texts += [x for k in view["takes"] for x in (k["label"], k["note"])]
    if view["loki_now"]:
        texts += view["loki_now"]["lines"] + [view["loki_now"]["said"]]
    texts += [u["said"] for u in view["loki_uses"]]
    assert [text for text in texts if bare_english(f"<p>{text}</p>", allowed=allowed)] == []
    log = client.get(f"/api/tables/{code}/actions{XA}").get_json()["actions"]
    lines = [line["text"] if isinstance(line, dict) else line for line in log]
    assert [line for line in lines if bare_english(f"<p>{line}</p>", allowed=allowed)] == []


def assert_refusal_said(client, code, action, params=None):
    """A refusal, in the JSON API's answer and the page's notice, through the catalogs."""
    resp = client.post(f"/api/tables/{code}/actions{XA}",
                       json={"action": action, "params": params or {}, "seat": 0,
                             "version": client.get(f"/api/tables/{code}").get_json()["version"]})
    assert resp.status_code in (400, 409), resp.get_json()
    error = resp.get_json()["error"]
    assert error.startswith("[") and bare_english(f"<p>{error}</p>", allowed=PLAYERS + [code]) == []


def log_page(client, code):
    html = client.get(f"/t/{code}/log{XA}").get_data(as_text=True)
    items = re.findall(r"<li>(.*?)</li>", html.split('<ol class="log"', 1)[1].split("</ol>", 1)[0])
    return [item for item in items if bare_english(f"<p>{item}</p>", allowed=PLAYERS + [code])]


def test_every_phase_is_said_through_the_catalogs(app, client):
    code = new_table(client, guess_variant=True)
    watcher = app.test_client()
    take(client, code, 0)
    # Setup: the checklist, the change panel, every setup change.
    assert_said(client, code, watcher)
    ok(client, code, "tick", {"step": 0})
    ok(client, code, "change_setup", {"level": "lead"})
    ok(client, code, "change_setup", {"backpack_size": 10})
    ok(client, code, "change_setup", {"first_player": 1})
    ok(client, code, "change_setup", {"guess_variant": False})
    ok(client, code, "change_setup", {"guess_variant": True})
    ok(client, code, "change_setup", {"first_player": 0, "level": "standard", "backpack_size": 9})
    assert_said(client, code, watcher)
    assert_refusal_said(client, code, "tick", {"step": 9})
    assert_refusal_said(client, code, "done_looking", {"card": 1})
    assert_refusal_said(client, code, "change_setup", {"level": "standard"})
    # Phase 1: looking at the cards.
    ok(client, code, "start_scouting")
    assert_said(client, code, watcher)
    assert_refusal_said(client, code, "done_looking", {"card": 5})
    for card in range(1, 8):
        ok(client, code, "done_looking", {"card": card})
    assert_said(client, code, watcher)
    ok(client, code, "done_looking", {"card": 8})
    # Phase 2: packing, with a roll changed and a refusal.
    assert_said(client, code, watcher)
    ok(client, code, "pack", {"took": "two_loki"})
    assert_said(client, code, watcher)
    ok(client, code, "change_roll", {"roll": 1, "took": "loki_equipment"})
    assert_refusal_said(client, code, "change_roll", {"roll": 3, "took": "equipment"})
    assert_refusal_said(client, code, "pack", {"roll": 5, "took": "equipment"})
    ok(client, code, "pack", {"took": "equipment"})
    assert_said(client, code, watcher)
    ok(client, code, "pack", {"took": "equipment"})
    # Phase 3: the expedition, Loki tokens, the Wanderer and his tokens, the guess.
    view = client.get(f"/api/tables/{code}").get_json()["view"]
    assert view["phase"] == "expedition"
    assert_said(client, code, watcher)
    assert_refusal_said(client, code, "cross", {"card": 3})
    assert_refusal_said(client, code, "use_token")
    ok(client, code, "use_loki", {"power": 2})
    assert_said(client, code, watcher)
    ok(client, code, "use_loki")
    assert_said(client, code, watcher)
    ok(client, code, "return_loki")
    for card in range(1, 5):
        ok(client, code, "cross", {"card": card})
    assert_said(client, code, watcher)  # at the Wanderer
    assert_refusal_said(client, code, "wanderer", {"card": 5, "take": True})
    ok(client, code, "wanderer", {"card": 5, "take": True, "exchange": "three_different"})
    ok(client, code, "use_token")
    assert_said(client, code, watcher)
    ok(client, code, "return_token")
    for card in (6, 7):
        ok(client, code, "cross", {"card": card})
    assert_said(client, code, watcher)  # the Queen, the guess not laid
    assert_refusal_said(client, code, "beat_queen")
    ok(client, code, "lay_guess")
    assert_said(client, code, watcher)
    ok(client, code, "beat_queen")
    # The end: won, then lost on another table, and the record on the new-table page.
    assert_said(client, code, watcher)
    assert_refusal_said(client, code, "use_loki")
    assert log_page(client, code) == []

    lost = new_table(client)
    take(client, lost, 0)
    ok(client, lost, "start_scouting")
    for card in range(1, 9):
        ok(client, lost, "done_looking", {"card": card})
    while client.get(f"/api/tables/{lost}").get_json()["view"]["phase"] == "packing":
        ok(client, lost, "pack", {"took": "equipment"})
    ok(client, lost, "fail", {"card": 1})
    assert_said(client, lost, watcher)
    assert log_page(client, lost) == []

    page = client.get(f"/new/mysterious-forest{XA}").get_data(as_text=True)
    start = page.index('<section class="mf-record"')
    options = page[start:page.index("</fieldset>", page.index('name="guess_variant"', start))]
    assert "mf-levels" in options and "first_player" in options
    found = bare_english(options, allowed=PLAYERS)
    # The seat list's own words ("At random", "Player 1") are the shared macro's, not this game's.
    assert [text for text in found if "random" not in text and "Player" not in text] == []


def test_the_page_notice_of_a_refusal_is_said_through_the_catalogs(app, client):
    code = new_table(client)
    take(client, code, 0)
    version = client.get(f"/api/tables/{code}").get_json()["version"]
    resp = client.post(f"/t/{code}/act{XA}", data={"action": "tick", "step": "9", "seat": "0",
                                                   "version": str(version)},
                       headers={"HX-Request": "true"})
    notice = toast(resp)
    assert notice and bare_english(f"<p>{notice}</p>", allowed=PLAYERS + [code]) == []
