"""Every page around a table in the phone's language: home, new table, join, share, log, error
pages, the table's clock, bar and More sheet, Undo's words, refusals, the JSON errors, the
manifest and the words app.js writes. Played in the pseudo-locale (`?lang=en_XA`), where any
English left outside the catalogs shows (tests/pseudo.py).

The table is one of a small game of this module's own (its board is the generic one), so
what is checked is this area's words only; the game's own few words are allowed by name."""

import copy
import json
import re
from html import unescape

import pytest

from companion.games import get_game, register
from companion.games.base import ActionSpec, Param, Rejected
from companion.games.words import t

from .helpers import hx_post, shown_version, toast
from .pseudo import bare_english

XA = "en_XA"
PLAYERS = ["Ana", "Ben", "Cara"]


class PagesGame:
    """A counter, a secret pick and an end: enough for every state of the table's pages."""

    ID = "i18n-pages"
    NAME = "Pages Game"
    MIN_PLAYERS = 2
    MAX_PLAYERS = 4
    RULES_VERSION = 1
    OPTIONS = (Param("start", "int", label="Start", min=0, max=10, default=0),)
    ACTIONS = {
        "add": ActionSpec("add", (Param("amount", "int", label="Amount", min=1, max=5),), label="Add"),
        "pick": ActionSpec("pick", (Param("color", "choice", label="Color", choices=("1", "2")),),
                           secret=True, label="Pick"),
        "finish": ActionSpec("finish", (), label="Finish"),
    }
    TIMER_STEP = "turn"

    @staticmethod
    def prepare_options(raw, players, rng):
        return {"start": PagesGame.OPTIONS[0].parse(raw.get("start"))}

    @staticmethod
    def setup(players, options):
        return {"players": list(players), "count": options["start"], "picks": [None] * len(players),
                "phase": "play", "events": []}

    @staticmethod
    def setup_notes(n):
        return []

    @staticmethod
    def apply(state, action, params, seat):
        new = copy.deepcopy(state)
        new["events"] = []
        if new["phase"] == "over":
            raise Rejected("Over")
        if action == "add":
            new["count"] += params["amount"]
        elif action == "pick":
            new["picks"][seat] = params["color"]
            if all(p is not None for p in new["picks"]):
                new["picks"] = [None] * len(new["picks"])
        elif action == "finish":
            new["phase"] = "over"
        return new

    @staticmethod
    def view(state, seat):
        return {"phase": state["phase"], "count": state["count"]}

    @staticmethod
    def secret_open(state, seat):
        return seat is not None and state["picks"][seat] is not None

    @staticmethod
    def step_values(state):
        return {}

    @staticmethod
    def timer_cue(state):
        return None if state["phase"] == "over" else ("play", t("Countdown"))

    @staticmethod
    def describe(action, params, seat, players):
        return f"{players[seat]} {action}"

    @staticmethod
    def outcome(state):
        if state["phase"] != "over":
            return None
        players = [{"seat": i, "name": name, "score": state["count"], "place": 1, "winner": True}
                   for i, name in enumerate(state["players"])]
        return {"cooperative": False, "won": None, "level": None, "players": players, "rounds": 1,
                "score_by_round": None}


GAME = register(PagesGame)
# The game's own words (English in this test game), its name, and the generic board's view keys.
GAME_WORDS = ["Pages", "Game", "The", "Wicked", "Forest", "Woodland", "Wizards", "Explorers", "of",
              "the", "Woodlands", "Mysterious", "Tiny", "Test", "Start", "Amount", "Add", "Pick", "Color", "Finish", "add", "pick",
              "finish", "phase", "play", "over", "count"]


def allowed(code=""):
    return PLAYERS + [code, "Forest", "Table", "ABCD", "http", "join", "localhost"] + GAME_WORDS


def page(client, url, **kwargs):
    resp = client.get(url + ("&" if "?" in url else "?") + f"lang={XA}", **kwargs)
    return resp, resp.get_data(as_text=True)


def assert_said(html, code=""):
    found = bare_english(html, allowed(code))
    assert not found, found


def assert_toast_said(resp, code=""):
    message = toast(resp)
    assert message, resp.get_data(as_text=True)[:300]
    assert_said(f"<p>{message}</p>", code)


def new_table(client, players=PLAYERS[:2]):
    resp = client.post(f"/api/tables?lang={XA}", json={"game": GAME.ID, "players": list(players),
                                                       "options": {}})
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()["code"]


def post_act(client, code, action, **params):
    """A tap from the table's page in the pseudo-locale (the version the view shows)."""
    _resp, html = page(client, f"/t/{code}/view", headers={"HX-Request": "true"})
    clock = re.search(r'name="clock" value="(\d+)"', html)
    data = {"action": action, "version": shown_version(html), "rid": "", **params}
    if action.startswith("timer_") and "clock" not in params:
        data["clock"] = clock.group(1) if clock else "0"
    return hx_post(client, f"/t/{code}/act?lang={XA}", data)


def table_checked(client, code):
    """The whole table page and its view fragment, both in the pseudo-locale."""
    resp, html = page(client, f"/t/{code}")
    assert resp.status_code == 200
    assert_said(html, code)
    _resp, fragment = page(client, f"/t/{code}/view", headers={"HX-Request": "true"})
    assert_said(fragment, code)
    return html


def test_the_pages_before_a_table(client):
    resp, html = page(client, "/")
    assert resp.status_code == 200
    assert_said(html)
    assert 'class="language-menu"' in html  # on the home page, in its top bar
    resp, html = page(client, "/join?code=")
    assert resp.status_code == 400
    assert_said(html)
    resp, html = page(client, "/join?code=QQQQ")
    assert resp.status_code == 404
    assert_said(html, "QQQQ")

    resp, html = page(client, f"/new/{GAME.ID}")
    assert_said(html)
    resp = client.post(f"/new/{GAME.ID}?lang={XA}", data={"player0": "Ana", "player1": "ana"})
    assert resp.status_code == 400
    assert_said(resp.get_data(as_text=True))
    resp = client.post(f"/new/{GAME.ID}?lang={XA}", data={"player0": "Ana"})
    assert resp.status_code == 400  # one player: the game is for 2 to 4
    assert_said(resp.get_data(as_text=True))
    for game_id in ("wicked-forest", "woodland-wizards", "mysterious-forest", "explorers-of-the-woodlands"):
        html = page(client, f"/new/{game_id}")[1]
        # The countdown setting and the form's own words (a game's options are its own area).
        form = html[html.index("<form"):]
        countdown = re.search(r'<fieldset class="chips">.*?</fieldset>', form, re.S)
        if countdown:
            # A game's own label for it (The Mysterious Forest's) is that game's words.
            own = getattr(get_game(game_id), "TIMER_SETUP_LABEL", None)
            checked = countdown.group(0)
            if own:
                checked = re.sub(r"<legend>.*?</legend>", "", checked, flags=re.S)
            assert_said(checked)
        assert_said(re.search(r'<div class="create-bar">.*?</div>', form, re.S).group(0))
        assert_said(re.search(r'<fieldset>\s*<legend>.*?</fieldset>', form, re.S).group(0))


def test_joining_sharing_and_seats(client, make_client):
    resp = client.post(f"/new/{GAME.ID}?lang={XA}", data={"player0": "Ana", "player1": "Ben", "player2": "Cara"})
    assert resp.status_code in (302, 303)
    code = re.search(r"/join/(\w+)", resp.headers["Location"]).group(1)
    resp, html = page(client, f"/join/{code}?created=1")
    assert_said(html, code)
    client.post(f"/join/{code}", data={"seat": "0"})
    html = page(client, f"/join/{code}")[1]  # this phone's seat, the others free
    assert_said(html, code)
    other = make_client()
    html = page(other, f"/join/{code}")[1]  # a seat taken by another phone
    assert_said(html, code)
    resp = other.post(f"/join/{code}?lang={XA}", data={"seat": "0"})  # taken: refused
    assert resp.status_code == 400
    assert_said(resp.get_data(as_text=True), code)
    other.post(f"/join/{code}", data={"seat": "1"})
    html = page(client, f"/t/{code}/share")[1]  # the host: free-seat buttons
    assert_said(html, code)
    assert "Free seat" not in html
    html = page(other, f"/t/{code}/share")[1]
    assert_said(html, code)
    resp = other.post(f"/t/{code}/free?lang={XA}", data={"seat": "0"})  # not the host
    assert resp.status_code == 403
    assert_said(resp.get_data(as_text=True), code)
    watcher = make_client()
    assert "watching" in table_checked(watcher, code)


def test_a_table_through_its_clock_undo_refusals_and_end(client, make_client):
    code = new_table(client)
    client.post(f"/join/{code}", data={"seat": "0"})
    second = make_client()
    second.post(f"/join/{code}", data={"seat": "1"})
    html = table_checked(client, code)  # nothing played: the clock waits for the first move
    assert 'class="language-menu"' in html.split('id="more"')[1]  # one tap from ☰ More
    words = json.loads(unescape(re.search(r'id="phone-words">(.*?)</script>', html, re.S).group(1)))
    for key, text in words.items():
        assert_said(f"<p>{text}</p>")
    assert {"offline", "offline_tap", "not_reached", "too_old", "your_move"} <= words.keys()

    resp = hx_post(client, f"/t/{code}/undo?lang={XA}", {"version": "1", "rid": ""})
    assert_toast_said(resp, code)  # nothing to undo yet
    resp = post_act(client, code, "timer_start")  # no countdown set
    assert_toast_said(resp, code)

    for mode, seconds in (("free", "60"), ("turn", "90")):
        assert post_act(client, code, "timer_set", mode=mode, seconds=seconds).status_code == 200
        table_checked(client, code)
    assert post_act(client, code, "timer_set", mode="free", seconds="75").status_code == 200
    assert post_act(client, code, "timer_start").status_code == 200
    table_checked(client, code)  # counting down, Reset beside it
    assert post_act(client, code, "timer_pause").status_code == 200
    table_checked(client, code)  # paused
    resp = post_act(client, code, "timer_pause")  # already paused
    assert_toast_said(resp, code)
    assert post_act(client, code, "timer_resume").status_code == 200
    assert post_act(client, code, "timer_set", mode="off", seconds="60").status_code == 200
    html = table_checked(client, code)  # the running time, Undo naming the clock's line
    assert "↶" in html

    resp = post_act(client, code, "add", amount="9")  # the rules' refusal of a value
    assert_toast_said(resp, code)
    resp = hx_post(client, f"/t/{code}/act?lang={XA}", {"action": "add", "amount": "1", "version": "1", "rid": ""})
    resp_html = resp.get_data(as_text=True)
    assert_said(resp_html, code)  # stale: the table as it is now, and why
    assert_toast_said(resp, code)
    resp = client.post(f"/t/{code}/act?lang={XA}", data={"action": "add", "amount": "1"})
    assert resp.status_code == 303  # posted without the page's script: not ready
    table_checked(client, code)

    assert post_act(client, code, "pick", color="1").status_code == 200
    table_checked(client, code)  # Undo: Ana's choice stays secret
    resp = hx_post(client, f"/t/{code}/undo?lang={XA}", {"version": shown_version(page(client, f"/t/{code}/view", headers={"HX-Request": "true"})[1]), "rid": ""})
    assert_toast_said(resp, code)
    assert post_act(second, code, "pick", color="2").status_code == 200  # the reveal
    version = shown_version(page(client, f"/t/{code}/view", headers={"HX-Request": "true"})[1])
    resp = hx_post(client, f"/t/{code}/undo?lang={XA}", {"version": version, "rid": ""})
    assert_toast_said(resp, code)  # undone: the reveal, every choice again
    table_checked(client, code)

    resp = client.post(f"/t/{code}/free?lang={XA}", data={"seat": "0"})  # Ana's pick withdrawn
    assert resp.status_code == 303
    client.post(f"/join/{code}", data={"seat": "0"})
    resp, html = page(client, f"/t/{code}/log")
    assert_said(html.replace("Ana pick", "").replace("Ana add", "").replace("Ben pick", ""), code)

    # The JSON log and a JSON refusal, their words in the asked language.
    actions = client.get(f"/api/tables/{code}/actions?lang={XA}").get_json()["actions"]
    for line in actions:
        if line["action"].startswith(("timer_", "_")):
            assert_said(f"<p>{line['text']}</p>", code)
    resp = client.post(f"/api/tables/{code}/actions?lang={XA}",
                       json={"action": "add", "params": {"amount": 0}, "version": 999})
    assert resp.status_code == 400
    assert_said(f"<p>{resp.get_json()['error']}</p>", code)
    resp = client.post(f"/api/tables/{code}/undo?lang={XA}", json={"version": 1})
    assert resp.status_code == 409
    assert_said(f"<p>{resp.get_json()['error']}</p>", code)

    assert post_act(client, code, "finish").status_code == 200
    html = table_checked(client, code)  # over: the rematch and the history
    assert "after-game" in html
    resp = client.post(f"/t/{code}/rematch")
    assert resp.status_code in (302, 303)
    html = table_checked(second, code)  # the group moved on: Join the rematch as Ben
    assert "next-table" in html


def test_errors_and_refusals_in_the_phones_language(client, app):
    for url, status in (("/t/QQQQ", 404), ("/nowhere", 404), ("/t/QQQQ/log", 404)):
        resp, html = page(client, url)
        assert resp.status_code == status
        assert_said(html, "QQQQ")
        assert 'class="language-menu"' in html  # reachable from the error page too
    resp = client.get(f"/api/tables/QQQQ?lang={XA}")
    assert resp.status_code == 404
    assert_said(f"<p>{resp.get_json()['error']}</p>")
    resp = client.post(f"/api/tables?lang={XA}", data="[1]", content_type="application/json")
    assert resp.status_code == 400
    assert_said(f"<p>{resp.get_json()['error']}</p>")
    resp = client.post(f"/api/tables?lang={XA}", json={"game": GAME.ID, "players": ["Ana"], "options": {}})
    assert resp.status_code == 400
    assert_said(f"<p>{resp.get_json()['error']}</p>")
    resp = client.post(f"/api/tables?lang={XA}", json={"game": GAME.ID, "players": ["Ana", "Ben"],
                                                       "options": {"start": "x"}})
    assert resp.status_code == 400
    assert_said(f"<p>{resp.get_json()['error']}</p>")
    resp = client.get(f"/t/QQQQ?lang={XA}&x=%01")  # a control character in the query
    assert resp.status_code == 400
    assert_said(resp.get_data(as_text=True))
    resp = client.post(f"/api/tables?lang={XA}", json={"game": GAME.ID, "players": ["A\u202eB"]})
    assert resp.status_code == 400
    assert_said(f"<p>{resp.get_json()['error']}</p>")
    resp = client.post(f"/api/tables?lang={XA}", data=b'{"a": NaN}', content_type="application/json")
    assert resp.status_code == 400
    assert_said(f"<p>{resp.get_json()['error']}</p>")
    stranger = app.test_client()
    stranger.environ_base.pop("HTTP_ORIGIN", None)
    resp = stranger.post(f"/api/tables?lang={XA}", json={})
    assert resp.status_code == 403
    assert_said(f"<p>{resp.get_json()['error']}</p>")
    resp = client.get(f"/t/QQQQ/view?lang={XA}", headers={"HX-Request": "true"})
    assert_toast_said(resp)


def test_the_manifest_is_said_in_the_pages_language(client):
    html = page(client, "/")[1]
    link = unescape(re.search(r'<link rel="manifest" href="([^"]+)"', html).group(1))
    assert link == f"/manifest.webmanifest?lang={XA}"
    pseudo = client.get(link).get_json(force=True)
    assert pseudo["name"].startswith("[") and pseudo["description"].startswith("[")
    english = client.get("/manifest.webmanifest?lang=en").get_json(force=True)
    static = client.get("/static/manifest.webmanifest").get_json(force=True)
    # The icons as the static file has them, at the address the page gives the icon (one load).
    icon = unescape(re.search(r'<link rel="icon" href="([^"]+)"', html).group(1))
    assert icon.startswith("/static/icon.svg?v=")
    assert english["name"] == "Forest Table" and english["icons"] == [dict(i, src=icon) for i in static["icons"]]
    assert english["start_url"] == static["start_url"] and english["lang"] == "en"
    resp = client.get("/manifest.webmanifest", headers={"Accept-Language": "de"})
    assert resp.mimetype == "application/manifest+json" and resp.get_json(force=True)["lang"] == "de"
    assert client.get(link, headers={"If-None-Match": resp.headers["ETag"]}).status_code in (200, 304)


@pytest.mark.parametrize("lang", ["de", "fr", "es"])
def test_the_language_menu_keeps_a_phone_at_its_table(client, lang):
    code = new_table(client)
    resp = client.post("/language", data={"lang": lang, "next": f"/t/{code}"})
    assert resp.status_code == 303 and resp.headers["Location"].endswith(f"/t/{code}")
    html = client.get(f"/t/{code}/view", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert f'name="next" value="/t/{code}"' in html  # back to the page, not to its fragment
