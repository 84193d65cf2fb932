"""Explorers of the Woodlands in the pseudo-locale: every word a phone reads at every step
came through the catalogs (a bare English word is one that did not).

Run `bash scripts/catalogs.sh extract` first: the pseudo-locale is made from messages.pot.
"""

import json
import re

from companion.games import explorers_of_the_woodlands as ex
from companion.games.words import Text

from .helpers import act, take
from .pseudo import bare_english, without_pseudo

GAME = ex.ID
PLAYERS = ["Ana", "Ben"]
# Proper names, the same in every language: the Heroes (and a Boss typed by the players).
NAMES = ["Xylia", "Klethor", "Sha'Vi", "Bethras", "Gorzak"]


def new_table(client, players=PLAYERS, **options):
    resp = client.post("/api/tables", json={"game": GAME, "players": list(players),
                                            "options": {"first_player": "0", **options}})
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()["code"]


def allowed(code, players=PLAYERS):
    return list(players) + [code] + NAMES


def view_of(client, code):
    return client.get(f"/t/{code}/view?lang=en_XA").get_data(as_text=True)


def board(html):
    """The game's own part of a view: from the board's stylesheet to its setup panel's end."""
    start = html.find('id="explorers-css"')
    setup = html.find('id="ex-setup"')
    assert 0 <= start < setup, html[:400]
    return html[html.rfind("<", 0, start):html.find("</details>", setup) + len("</details>")]


# Said by the shared steppers (companion/web/forms.py, not this game's): left to their own test.
NOT_OURS = (" minus one", " plus one")


def ours(found):
    """The bare English a page shows, less the words of parts other than this game's."""
    kept = []
    for text in found:
        for words in NOT_OURS:
            text = text.replace(words, "")
        if re.search(r"[A-Za-z]{2,}", without_pseudo(text)):
            kept.append(text)
    return kept


def check(client, code, players=PLAYERS, step=""):
    """A seated phone's view has no bare English in the game's own part."""
    html = view_of(client, code)
    found = ours(bare_english(board(html), allowed=allowed(code, players)))
    assert not found, (step, found)


def do(client, code, action, params=None, seat=None):
    resp = act(client, code, action, params, seat=seat)
    assert resp.status_code == 200, resp.get_json()
    return resp


def refusal_in_pseudo(client, code, action, params, players=PLAYERS):
    """A refused action's message, read in the pseudo-locale, has no bare English (the JSON
    answer; the toast of a refused tap is the pages' own)."""
    table = client.get(f"/api/tables/{code}").get_json()
    body = {"action": action, "params": params, "version": table["version"], "seat": 0}
    resp = client.post(f"/api/tables/{code}/actions?lang=en_XA", json=body)
    assert resp.status_code == 400, resp.get_json()
    error = resp.get_json()["error"]
    assert not bare_english(f"<p>{error}</p>", allowed=allowed(code, players)), error
    return error


def json_words(client, code, players=PLAYERS):
    """The JSON view and log in the pseudo-locale: their words (events, labels, the log's
    lines) carry no bare English."""
    body = client.get(f"/api/tables/{code}?lang=en_XA").get_json()
    view = body["view"]
    texts = list(view["events"]) + [view["phase_label"], view["boss_hidden_text"],
                                     view["thorns_card"]]
    texts += [m["label"] for m in view["monsters"]] + [m["enraged_text"] for m in view["monsters"]]
    texts += [line for line in view["setup_checklist"]]
    texts += [text for h in view["heroes"] for text in h["power_texts"]]
    texts += view["boss_reminders"] + [b["label"] for b in view["boss_choices"]]
    if view["result"]:
        texts.append(view["result"]["sentence"])
    rows = client.get(f"/api/tables/{code}/actions?lang=en_XA").get_json()["actions"]
    assert rows
    texts += [row["text"] for row in rows]
    words = set()
    for name in allowed(code, players):
        words.update(part.lower() for part in name.replace("'", " ").split())
    for text in texts:
        left = without_pseudo(str(text))
        bare = [w for w in re.findall(r"[A-Za-z]{2,}", left) if w.lower() not in words]
        assert not bare, (text, bare)


def test_a_classic_game_reads_in_the_pseudo_locale_at_every_step(client):
    code = new_table(client, enraged_monsters=True, enraged_bosses=True, inn=True, lairs=True)
    take(client, code, 0)
    take(client, code, 1)
    check(client, code, step="setup, first tile")
    do(client, code, "place_tile", {"kind": "growth"})
    check(client, code, step="second tile")
    do(client, code, "place_tile", {"kind": "growth"})
    check(client, code, step="Xylia's turn")
    # Xylia's turn: a High-Risk Movement, Concentration, a Monster, a Loot card, markers.
    do(client, code, "place_tile", {"kind": "high_risk"})
    do(client, code, "concentrate", {"hero": "xylia", "on": True})
    do(client, code, "tally", {"kind": "plant", "count": 1})
    do(client, code, "add_loot", {"hero": "xylia", "name": "Gorzak"})
    do(client, code, "set_marker", {"hero": "klethor", "marker": "poison", "on": True})
    do(client, code, "set_orbs", {"hero": "xylia", "orbs": 9})
    do(client, code, "unlock_power", {"hero": "xylia", "both": False})
    check(client, code, step="a turn under way")
    refusal_in_pseudo(client, code, "set_hp", {"hero": "xylia", "hp": "6"})
    refusal_in_pseudo(client, code, "set_orbs", {"hero": "klethor", "orbs": "11"})
    refusal_in_pseudo(client, code, "remove_loot", {"hero": "klethor", "index": 2})
    refusal_in_pseudo(client, code, "remove_loot", {"hero": "xylia", "index": 2})
    refusal_in_pseudo(client, code, "unlock_power", {"hero": "klethor", "both": "1"})
    refusal_in_pseudo(client, code, "first_aid", {"hero": "klethor"})
    refusal_in_pseudo(client, code, "defeat_boss", {})
    do(client, code, "end_turn")
    check(client, code, step="Klethor poisoned")
    do(client, code, "set_hp", {"hero": "klethor", "hp": 0})
    check(client, code, step="Klethor knocked down")
    do(client, code, "end_turn")
    check(client, code, step="round over")
    refusal_in_pseudo(client, code, "start_adventure", {"round": "1"})
    do(client, code, "end_round")
    check(client, code, step="round 2, Xylia's extra tile due after the players")
    do(client, code, "set_hp", {"hero": "klethor", "hp": 3})
    do(client, code, "place_tile", {"kind": "growth"})
    do(client, code, "place_tile", {"kind": "growth"})
    check(client, code, step="Xylia's extra tile")
    do(client, code, "start_adventure")
    # The stack runs out: the Boss is revealed and named.
    do(client, code, "set_stack", {"stack": 2})
    check(client, code, step="the Boss among the last tiles")
    do(client, code, "set_stack", {"stack": 0})
    check(client, code, step="stack empty")
    refusal_in_pseudo(client, code, "reveal_boss", {"boss": "fungor", "track": ""})
    do(client, code, "reveal_boss", {"boss": "fungor", "track": 9})
    check(client, code, step="the Boss named")
    do(client, code, "threat_up")
    do(client, code, "set_threat", {"threat": 4})
    do(client, code, "threat_up")
    check(client, code, step="Enraged Boss threat 5")
    html = client.get(f"/t/{code}?lang=en_XA").get_data(as_text=True)
    assert not ours(bare_english(board(html), allowed=allowed(code)))
    json_words(client, code)
    do(client, code, "defeat_boss")
    check(client, code, step="victory")
    json_words(client, code)
    log = client.get(f"/t/{code}/log?lang=en_XA").get_data(as_text=True)
    lines = [text for text in bare_english(log, allowed=allowed(code))]
    mine = [line for line in lines if any(word in line for word in (
        "Tile", "tile", "Hero", "Boss", "orb", "Loot", "Monster", "Concentration", "Power",
        "Forest tile", "Forest stack", "threat", "marker", "HP", "turn", "round", "Adventure", "Plants"))]
    assert not mine, mine


def test_a_lost_solo_game_and_the_second_boss_reads_in_the_pseudo_locale(client):
    code = new_table(client, players=["Ana"], hero_1="shavi", solo_hero="bethras", thorns="easy")
    take(client, code, 0)
    check(client, code, ["Ana"], "solo setup")
    do(client, code, "place_tile", {"kind": "growth"})
    do(client, code, "place_tile", {"kind": "growth"})
    check(client, code, ["Ana"], "solo turn")
    do(client, code, "set_stack", {"stack": 0})
    do(client, code, "reveal_boss", {"boss": "other", "name": "Gorzak", "track": 3})
    check(client, code, ["Ana"], "another Boss named")
    do(client, code, "end_turn")
    check(client, code, ["Ana"], "threat 2 of 3")
    do(client, code, "end_turn")
    check(client, code, ["Ana"], "defeat")
    json_words(client, code, ["Ana"])


def test_the_setup_form_reads_in_the_pseudo_locale(client):
    page = client.get(f"/new/{GAME}?lang=en_XA").get_data(as_text=True)
    start = page.find('<p><a class="btn" href="/campaigns">')
    end = page.find("</fieldset>", page.find('name="lairs"'))
    assert 0 <= start < end
    # The game's own options; the seat menu of the first player is the pages' own macro.
    options = re.sub(r'<select name="first_player".*?</select>', "", page[start:end], flags=re.S)
    found = bare_english(options, allowed=NAMES)
    assert not found, found


def test_every_word_of_the_rules_is_a_text_with_its_english_unchanged():
    assert isinstance(ex.PHASE_LABELS[ex.PHASE_GROWTH], Text)
    assert ex.PHASE_LABELS[ex.PHASE_GROWTH] == "Phase 1 · Forest Growth"
    assert ex.monster_count("mushroom", 3) == "3 Mushrooms"
    assert ex.monster_count("snake", 1) == "1 Snake"
    state = ex.setup(["Ana", "Ben"], {"first_player": 0, "heroes": ["xylia", "klethor"],
                                      "thorns": "regular"})
    assert all(isinstance(line, Text) for line in ex.setup_checklist(state))
    assert ex.setup_checklist(state)[0].startswith("Heroes: Ana: Xylia (green); Ben: Klethor (purple).")
    assert isinstance(ex.describe("set_hp", {"hero": "xylia", "hp": 3}, 0, ["Ana", "Ben"]), Text)
    assert json.loads(json.dumps(ex.describe("end_turn", {}, 9, ["Ana"]))) == "Someone ended the turn"
