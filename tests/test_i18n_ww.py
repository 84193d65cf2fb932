"""Woodland Wizards in the pseudo-locale: every word a player reads on its pages, in its
refusals, its JSON and its log comes through the catalogs.

The table is played through every phase of a round, across rounds (ties of two and of three,
the starting player among them or not), to the end and its tie-breaks; at each step the
parts rendered by the game's own templates are read with `?lang=en_XA` and must hold no bare
English. Run `bash scripts/catalogs.sh extract` first: the pseudo-locale is made from the .pot.
"""

import re

from companion.games import woodland_wizards as ww
from companion.games.words import render
from companion.web.i18n import CatalogLanguage

from .helpers import act, shown_version
from .pseudo import bare_english, board_part, without_pseudo
from .test_mysterious_forest_web import ok
from .test_woodland_wizards_web import new_table

PLAYERS = ["Ana", "Ben", "Cara", "Dan"]
XA = "?lang=en_XA"
_WORD = re.compile(r"[A-Za-z]{2,}")
# Said by the shared stepper (companion/web/forms.py, not this game's): "minus one", "plus one".
_STEPPER = re.compile(r" (minus|plus) one$")


def game_part(html: str) -> str:
    return board_part(html, "woodland-wizards.css")


def leftovers(html: str, code: str) -> list[str]:
    found = bare_english(html, allowed=PLAYERS + [code, "Owl"])
    return [text for text in found if not _STEPPER.search(text)]


def bare_words(text, code="") -> list[str]:
    allowed = {w.lower() for name in PLAYERS + [code, "Owl"] for w in _WORD.findall(name)}
    return [w for w in _WORD.findall(without_pseudo(str(text))) if w.lower() not in allowed]


def check_page(client, code, where):
    html = client.get(f"/t/{code}{XA}").get_data(as_text=True)
    assert leftovers(game_part(html), code) == [], where
    return html


def check_json(client, code, where):
    view = client.get(f"/api/tables/{code}{XA}").get_json()["view"]
    texts = list(view["events"]) + list(view["round_ties"]) + list(view["setup_notes"])
    texts += [view["phase_label"], view["phase_hint"], view["wandering_rule"], view["scorer_positions"]]
    texts += [p["label"] for p in view["phases"]] + [row["reason"] for row in view["ranking"]]
    if view.get("verdict"):
        texts += [view["verdict"]["headline"], view["verdict"]["why"], *view["verdict"]["ties"]]
    for text in texts:
        assert bare_words(text, code) == [], (where, text)
    return view


def check(client, code, where):
    check_json(client, code, where)
    return check_page(client, code, where)


def refused_notice(client, code, page, data):
    """Post a form the rules refuse, as a phone does (the page's language kept in its
    cookie, as the language menu does), and read the notice on the page it is sent back to."""
    client.set_cookie("forest_lang", "en_XA")
    resp = client.post(f"/t/{code}/act{XA}", data={"version": shown_version(page), "seat": "0", **data},
                       follow_redirects=True)
    html = resp.get_data(as_text=True)
    notice = re.search(r'<p class="notice[^"]*" role="alert">(.*?)</p>', html, re.S)
    assert notice, data
    assert bare_words(notice.group(1), code) == [], notice.group(1)
    assert leftovers(game_part(html), code) == []
    client.delete_cookie("forest_lang")
    return notice.group(1)


def play_round_scoring(client, code, totals, creatures):
    ok(client, code, "set_phase", {"phase": "scoring"})
    for seat, total in enumerate(totals):
        ok(client, code, "enter_total", {"player": seat, "total": total})
    ok(client, code, "settle_round")
    for seat, card in creatures:
        ok(client, code, "score_creature", {"player": seat, **card})


def test_every_phase_and_the_end_read_in_the_pseudo_locale(client, make_client):
    code = new_table(client, players=PLAYERS)
    client.post(f"/join/{code}", data={"seat": "all"})
    ben = make_client()
    ben.post(f"/join/{code}", data={"seat": "1"})

    # Round 1, Wandering: the setup checklist, the turns, a refusal, a correction.
    page = check(client, code, "wandering, first turn")
    assert leftovers(game_part(ben.get(f"/t/{code}{XA}").get_data(as_text=True)), code) == []
    refused_notice(client, code, page, {"action": "pass_boost", "player": "0", "boost_round": "1"})
    ok(client, code, "end_wandering_turn", {"player": 0})
    check(client, code, "wandering, second turn")
    assert leftovers(game_part(ben.get(f"/t/{code}{XA}").get_data(as_text=True)), code) == []
    ok(client, code, "set_wandering_turn", {"player": 3})
    page = check(client, code, "wandering, corrected")
    refused_notice(client, code, page, {"action": "set_wandering_turn", "player": "3"})
    ok(client, code, "end_wandering_turn", {"player": 3})
    check(client, code, "contest")
    ok(client, code, "set_phase", {"phase": "wandering"})
    check(client, code, "wandering, everyone has played")
    ok(client, code, "next_phase", {"phase": "wandering"})
    ok(client, code, "next_phase", {"phase": "contest"})

    # Boost: a boost, passes, a second Boost round, refusals.
    page = check(client, code, "boost round 1")
    ok(client, code, "boost", {"player": 0})
    page = check(client, code, "boost round 1, one boost")
    refused_notice(client, code, page, {"action": "boost", "player": "0", "boost_round": "1"})
    refused_notice(client, code, page, {"action": "next_boost_round", "boost_round": "1"})
    for seat in (1, 2, 3):
        ok(client, code, "pass_boost", {"player": seat})
    page = check(client, code, "boost round 1, all in")
    refused_notice(client, code, page, {"action": "pass_boost", "player": "1", "boost_round": "1"})
    ok(client, code, "next_boost_round", {"boost_round": 1})
    check(client, code, "boost round 2")
    ok(client, code, "pass_boost", {"player": 0})

    # Scoring: totals with a tie of three (the starting player among them), ranked.
    page = check(client, code, "scoring, no totals")
    refused_notice(client, code, page, {"action": "settle_round"})
    for seat, total in enumerate((9, 9, 9, 2)):
        ok(client, code, "enter_total", {"player": seat, "total": total})
        page = check(client, code, f"scoring, total {seat}")
    refused_notice(client, code, page, {"action": "enter_total", "player": "0", "total": "3"})
    ok(client, code, "set_total", {"player": 0, "total": 9})
    ok(client, code, "settle_round")
    page = check(client, code, "ranked, creatures to score")
    refused_notice(client, code, page, {"action": "score_creature", "player": "3", "value": "1"})
    refused_notice(client, code, page, {"action": "next_round", "round": "2"})
    ok(client, code, "score_creature", {"player": 0, "value": 4, "name": "Owl", "phoenix": False})
    check(client, code, "ranked, one creature scored")
    ok(client, code, "score_creature", {"player": 1, "value": 6, "name": "", "phoenix": True})
    page = check(client, code, "ranked, every creature scored")
    refused_notice(client, code, page, {"action": "add_card", "player": "2", "value": "3", "phoenix": "1"})
    refused_notice(client, code, page, {"action": "remove_card", "player": "2", "index": "0"})
    ok(client, code, "next_phase", {"phase": "scoring"})
    page = check(client, code, "clean-up")
    ok(client, code, "next_phase", {"phase": "cleanup"})
    check(client, code, "round 2 wandering")

    # Rounds 2 and 3: ties of two, the starting player first or not.
    start = client.get(f"/api/tables/{code}").get_json()["view"]["starting_player"]
    following = (start + 1) % 4
    totals = [1, 1, 1, 1]
    totals[start] = totals[following] = 8
    play_round_scoring(client, code, totals, [(start, {"value": 0, "name": ""}),
                                               (following, {"value": 0, "name": ""})])
    check(client, code, "round 2 ranked")
    ok(client, code, "next_round", {"round": 3})
    start = client.get(f"/api/tables/{code}").get_json()["view"]["starting_player"]
    totals = [1, 1, 1, 1]
    totals[(start + 1) % 4] = totals[(start + 2) % 4] = 8
    play_round_scoring(client, code, totals, [((start + 1) % 4, {"value": 0, "name": ""}),
                                               ((start + 2) % 4, {"value": 0, "name": ""})])
    check(client, code, "round 3 ranked")
    ok(client, code, "next_round", {"round": 4})
    play_round_scoring(client, code, (5, 3, 2, 1), [(0, {"value": 0, "name": ""}),
                                                     (1, {"value": 0, "name": ""})])
    page = check(client, code, "round 4 ranked")
    refused_notice(client, code, page, {"action": "set_phase", "phase": "cleanup"})
    ok(client, code, "finish")

    # The end, corrected into ties decided by several tie-breaks.
    check(client, code, "over")
    ok(client, code, "set_adjustment", {"player": 2, "amount": 10})
    ok(client, code, "add_card", {"player": 3, "value": 9, "name": "", "phoenix": False})
    ok(client, code, "edit_card", {"player": 1, "index": 0, "value": 7, "name": "Owl", "phoenix": True})
    page = check(client, code, "over, with ties")
    assert "ww-final" in page
    refused_notice(client, code, page, {"action": "next_phase", "phase": "scoring"})

    # The whole log, page and JSON.
    log_page = client.get(f"/t/{code}/log{XA}").get_data(as_text=True)
    log = re.search(r'<ol class="log".*?</ol>', log_page, re.S).group(0)
    assert leftovers(log, code) == []
    lines = client.get(f"/api/tables/{code}/actions{XA}").get_json()["actions"]
    assert len(lines) > 40
    for line in lines:
        assert bare_words(line["text"], code) == [], line["text"]


def test_the_options_read_in_the_pseudo_locale(client):
    html = client.get(f"/new/{ww.ID}{XA}").get_data(as_text=True)
    if "scorers_7_plus" not in html:  # the new-table page is reached another way
        html = client.get(f"/new?game={ww.ID}&lang=en_XA").get_data(as_text=True)
    parts = [p for p in re.findall(r'<fieldset>.*?</fieldset>', html, re.S) if "scorers_7_plus" in p]
    assert parts, "the options of Woodland Wizards"
    part = re.search(r".*", parts[0], re.S)
    # The seat menu's own choices ("At random", "Player 1") are the shared macro's.
    found = [text for text in leftovers(part.group(0), "") if not re.fullmatch(r"(At random|Player \d+)", text)]
    assert found == []


def entry(seat, name, values, phoenix=None, adjustment=0):
    return {"seat": seat, "name": name, "adjustment": adjustment,
            "cards": [{"value": v, "name": "", "phoenix": i == phoenix} for i, v in enumerate(values)]}


def test_every_tie_break_explanation_is_one_translated_sentence():
    """Each step of the final tie-breaks, and each way a round's tie is settled, said in the
    pseudo-locale: whole messages, nothing English between them."""
    pseudo = CatalogLanguage("en_XA")
    cases = [
        [entry(0, "Ana", [5, 5], phoenix=0), entry(1, "Ben", [5, 5])],           # the Phoenix
        [entry(0, "Ana", [5, 5]), entry(1, "Ben", [10])],                        # most cards
        [entry(0, "Ana", [6, 4]), entry(1, "Ben", [5, 5])],                      # highest card
        [entry(0, "Ana", [9, 9, 0]), entry(1, "Ben", [9, 8, 1])],                # most of it
        [entry(0, "Ana", [5, 5]), entry(1, "Ben", [5, 5])],                      # the starter
        [entry(0, "Ana", [5, 5]), entry(1, "Ben", [5, 5]), entry(2, "Cara", [5, 5])],
        [entry(0, "Ana", []), entry(1, "Ben", [])],                              # no cards
        [entry(0, "Ana", [1]), entry(1, "Ben", [1])],                            # one card each
    ]
    for start in (0, 1):
        for players in cases:
            ranking = ww.final_ranking(players, start)
            verdict = ww.verdict(ranking)
            for text in [row["reason"] for row in ranking] + [verdict["headline"], verdict["why"], *verdict["ties"]]:
                said = render(text, pseudo)
                assert said != str(text) and bare_words(said) == [], said
    rows = ww.round_ranking([8, 8, 8, 1], 1, 2)
    named = [dict(row, name=PLAYERS[row["seat"]]) for row in rows]
    for start in (0, 1, 2):
        for text in ww._round_tie_sentences(named, start, PLAYERS):
            assert bare_words(render(text, pseudo)) == [], text
    for start in (0, 1):
        rows = [dict(row, name=PLAYERS[row["seat"]]) for row in ww.round_ranking([8, 8, 1, 1], start, 2)]
        for text in ww._round_tie_sentences(rows, start, PLAYERS):
            assert bare_words(render(text, pseudo)) == [], text


def test_timer_labels_and_setup_notes_read_in_the_pseudo_locale():
    pseudo = CatalogLanguage("en_XA")
    state = ww.setup(PLAYERS, {"first_player": 0, "scorers_7_plus": 3})
    for phase in ("wandering", "contest", "boost"):
        if phase != "wandering":
            state = dict(state, phase=phase)
        _, label = ww.timer_cue(state)
        assert bare_words(render(label, pseudo)) == [], label
    state = dict(state, phase="contest")
    assert bare_words(render(ww.timer_cue(state)[1], pseudo)) == []
    for count in (2, 3, 4, 6, 7, 12):
        for note in ww.setup_notes(count):
            assert bare_words(render(note, pseudo)) == [], note
