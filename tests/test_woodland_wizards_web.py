"""Woodland Wizards through the web layer: each phase's screen for one seat, a phone passed
around and a watcher; the ending says who won and why before any round's result."""

import re
from pathlib import Path

from .helpers import act, hidden, shown_version
from .test_mysterious_forest_web import ok


def new_table(client, players=("Ana", "Ben", "Cara", "Dan")):
    resp = client.post("/api/tables", json={"game": "woodland-wizards", "players": list(players),
                                            "options": {"first_player": "0"}})
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()["code"]


def primary(page):
    """The step-of-the-moment section, the one element carrying data-primary."""
    assert page.count("data-primary") == 1
    return re.search(r"<section[^>]*data-primary.*?</section>", page, re.S).group(0)


def test_a_phone_passed_around_gets_the_next_seat_due_in_each_step(client, make_client):
    code = new_table(client)
    client.post(f"/join/{code}", data={"seat": "all"})
    watcher = make_client()

    def look():
        assert "data-primary" in watcher.get(f"/t/{code}").get_data(as_text=True)
        return primary(client.get(f"/t/{code}").get_data(as_text=True))

    assert "Ana's turn: draw a card, then play a card." in look()
    assert 'aria-label="Ana drew and played: ' in look()
    ok(client, code, "end_wandering_turn", {"player": 0})
    assert 'aria-label="Ben drew and played: ' in look()
    ok(client, code, "set_phase", {"phase": "boost"})
    assert 'aria-label="Ana boosts: ' in look()
    ok(client, code, "boost", {"player": 0})
    now = look()
    assert 'aria-label="Ben boosts: ' in now and "Waiting for Ben, Cara and Dan to boost or pass." in now
    ok(client, code, "set_phase", {"phase": "scoring"})
    assert 'aria-label="Ana\'s round total"' in look()
    for seat, total in enumerate((4, 9, 9, 2)):
        ok(client, code, "enter_total", {"player": seat, "total": total})
    assert "Every total is in." in look() and "Rank the round" in look()
    ok(client, code, "settle_round")
    now = look()
    assert "Ben wins round 1" in now and "Ben and Cara: add your Contest Creatures" in now
    assert "Ben's Contest Creature" in now and "Cara's Contest Creature" not in now
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert "Ben and Cara both have 9; Ben is closer to the starting player Ana" in page
    ok(client, code, "score_creature", {"player": 1, "value": 5, "name": "", "phoenix": False})
    assert "Cara's Contest Creature" in look()


def test_the_ending_puts_the_winner_and_the_reason_before_the_last_round(client):
    code = new_table(client, players=("Ana", "Ben"))
    client.post(f"/join/{code}", data={"seat": "0"})
    for number in range(1, 5):
        ok(client, code, "set_phase", {"phase": "scoring"})
        ok(client, code, "enter_total", {"player": 0, "total": 1})
        ok(client, code, "enter_total", {"player": 1, "total": 8})
        ok(client, code, "settle_round")
        ok(client, code, "score_creature", {"player": 1, "value": 3, "name": "", "phoenix": False})
        ok(client, code, "next_round" if number < 4 else "finish", {"round": number + 1} if number < 4 else None)
    ok(client, code, "add_card", {"player": 0, "value": 12, "name": "", "phoenix": True})
    page = client.get(f"/t/{code}").get_data(as_text=True)
    now = primary(page)
    assert "🏆 Ana wins" in now and "Ana beats Ben: both 12, Ana holds the Golden Phoenix." in now
    # Round 4's result, which Ben won, is only a labelled panel after the verdict.
    assert "Round 4 result" not in now and "Ben wins round" not in page
    assert page.index("🏆 Ana wins") < page.index("Round 4 result (that round only)")


def view_of(client, code):
    return client.get(f"/api/tables/{code}").get_json()["view"]


def test_the_wandering_turns_through_the_json_api(client):
    """Rulebook: "Beginning with the starting player and following in turn order, each player
    draws a card from the deck and then plays a card." """
    code = new_table(client, players=("Ana", "Ben", "Cara"))
    client.post(f"/api/tables/{code}/seats/0")
    view = view_of(client, code)
    assert (view["wandering_order"], view["wandering_seat"]) == ([0, 1, 2], 0)
    assert view["steps"]["end_wandering_turn"] == 0
    answer = ok(client, code, "end_wandering_turn", {"player": 0})
    assert answer["events"] == ["Ben's turn: draw a card, then play a card."]
    assert answer["view"]["wandering_seat"] == 1 and answer["view"]["wandering_turn"] == 1
    # A second tap for Ana's turn, from a phone that has seen the new version: refused, and
    # Ben's turn is still his.
    resp = act(client, code, "end_wandering_turn", {"player": 0})
    assert resp.status_code == 400
    assert resp.get_json()["error"] == ("That was for Ana's turn, which is already over; it is "
                                        "now round 1, the Wandering phase, Ben's turn to draw "
                                        "and play.")
    assert resp.get_json()["view"]["wandering_seat"] == 1
    # A correction, and undo takes it back.
    answer = ok(client, code, "set_wandering_turn", {"player": 2})
    assert answer["view"]["wandering_seat"] == 2
    version = answer["version"]
    undone = client.post(f"/api/tables/{code}/undo", json={"version": version}).get_json()
    assert undone["view"]["wandering_seat"] == 1
    ok(client, code, "end_wandering_turn", {"player": 1})
    answer = ok(client, code, "end_wandering_turn", {"player": 2})
    assert answer["view"]["phase"] == "contest" and answer["view"]["wandering_seat"] is None
    log = client.get(f"/api/tables/{code}/actions").get_json()["actions"]
    assert log[-1]["text"] == "Ana logged Cara's turn: drew and played a card"


def test_each_phone_sees_its_own_wandering_turn_first(client, make_client):
    code = new_table(client, players=("Ana", "Ben", "Cara"))
    client.post(f"/join/{code}", data={"seat": "0"})
    ben = make_client()
    ben.post(f"/join/{code}", data={"seat": "1"})
    ana_now = primary(client.get(f"/t/{code}").get_data(as_text=True))
    assert "Your turn, Ana: draw a card, then play a card." in ana_now
    assert hidden(ana_now, "player") == "0" and "end_wandering_turn" in ana_now
    ben_page = ben.get(f"/t/{code}").get_data(as_text=True)
    ben_now = primary(ben_page)
    assert "Ana's turn" in ben_now and "You draw and play after Ana." in ben_now
    assert "end_wandering_turn" not in ben_now
    # Ben may still tap for Ana from the panel of everyone's turns, or correct whose turn it is.
    panel = re.search(r'<details class="panel[^"]*" id="ww-wander-all".*?</details>', ben_page, re.S).group(0)
    assert 'aria-label="Ana drew and played: ' in panel
    assert 'aria-label="Correct: it is Cara&#39;s turn"' in panel  # (its apostrophe escaped)
    ok(client, code, "end_wandering_turn", {"player": 0})
    assert "You have drawn and played." in primary(client.get(f"/t/{code}").get_data(as_text=True))
    assert "Your turn, Ben" in primary(ben.get(f"/t/{code}").get_data(as_text=True))


def test_boosts_start_afresh_in_round_two_through_the_json_api(client):
    """Rulebook: "In each Boost round, players play one card face down as a boost or pass, in
    which case they cannot play any further boosts in the following Boost rounds." Each round
    has its own Boost phase."""
    code = new_table(client, players=("Ana", "Ben"))
    client.post(f"/api/tables/{code}/seats/0")
    ok(client, code, "set_phase", {"phase": "boost"})
    ok(client, code, "boost", {"player": 0})
    ok(client, code, "pass_boost", {"player": 1})
    ok(client, code, "next_boost_round")
    ok(client, code, "boost", {"player": 0})
    ok(client, code, "next_boost_round")
    assert ok(client, code, "pass_boost", {"player": 0})["view"]["phase"] == "scoring"
    for seat, total in ((0, 9), (1, 2)):
        ok(client, code, "enter_total", {"player": seat, "total": total})
    ok(client, code, "settle_round")
    ok(client, code, "score_creature", {"player": 0, "value": 4})
    ok(client, code, "next_round")
    view = ok(client, code, "set_phase", {"phase": "boost"})["view"]
    assert view["boosts"] == [0, 0] and view["passed"] == [False, False]
    assert view["waiting_for_boosts"] == [0, 1]
    assert ok(client, code, "boost", {"player": 0})["view"]["boosts"] == [1, 0]
    assert ok(client, code, "boost", {"player": 1})["view"]["boosts"] == [1, 1]


def test_the_phoenix_is_marked_on_an_added_or_corrected_card_through_the_json_api(client):
    """Rulebook: "Ties for highest score are broken in the favor of the player that has 1. the
    Golden Phoenix"; there is one Golden Phoenix in the game."""
    code = new_table(client, players=("Ana", "Ben"))
    client.post(f"/api/tables/{code}/seats/0")
    ok(client, code, "add_card", {"player": 0, "value": 6, "phoenix": True})
    ok(client, code, "add_card", {"player": 1, "value": 6})
    view = view_of(client, code)
    assert view["phoenix_holder"] == 0 and [r["seat"] for r in view["ranking"]] == [0, 1]
    resp = act(client, code, "edit_card", {"player": 1, "index": 0, "value": 6, "phoenix": True})
    assert resp.status_code == 400 and "Ana already holds the Golden Phoenix" in resp.get_json()["error"]
    assert resp.get_json()["view"]["phoenix_holder"] == 0
    # A card effect moves the Phoenix to Ben: unmark Ana's card, then mark Ben's.
    answer = ok(client, code, "edit_card", {"player": 0, "index": 0, "value": 6, "phoenix": False})
    assert answer["events"] == ["Nobody holds the Golden Phoenix now."]
    answer = ok(client, code, "edit_card", {"player": 1, "index": 0, "value": 6, "phoenix": True})
    assert answer["view"]["phoenix_holder"] == 1
    assert [r["seat"] for r in answer["view"]["ranking"]] == [1, 0]
    assert answer["view"]["ranking"][1]["reason"] == "Ben beats Ana: both 6, Ben holds the Golden Phoenix."


def test_the_correction_panel_marks_and_unmarks_the_phoenix(client):
    code = new_table(client, players=("Ana", "Ben"))
    client.post(f"/join/{code}", data={"seat": "0"})
    page = client.get(f"/t/{code}").get_data(as_text=True)
    add_forms = re.findall(r'<form[^>]*>\s*<input type="hidden" name="action" value="add_card">.*?</form>', page, re.S)
    assert len(add_forms) == 2 and all('name="phoenix"' in form for form in add_forms)
    ok(client, code, "add_card", {"player": 1, "value": 7, "name": "Owl", "phoenix": True})
    page = client.get(f"/t/{code}").get_data(as_text=True)
    edit = re.search(r"<form[^>]*aria-label=\"Ben's scored card 1\">.*?</form>", page, re.S).group(0)
    assert 'value="edit_card"' in edit and 'value="7"' in edit and 'value="Owl"' in edit
    assert re.search(r'name="phoenix" value="1" checked', edit)
    # Ben holds it: Ana's add form says how to move it instead of offering a second one.
    ana_add = re.search(r'<details class="ww-fix-player" id="ww-fix-0">.*?</details>', page, re.S).group(0)
    assert 'name="phoenix"' not in ana_add
    assert "Ben holds the Golden Phoenix; to move it, unmark it in Ben's scored cards first." in ana_add
    # The form posts without the box ticked: the Phoenix is unmarked.
    resp = client.post(f"/t/{code}/act", data={"action": "edit_card", "version": shown_version(page),
                                                  "seat": "0", "player": "1", "index": "0",
                                                  "value": "7", "name": "Owl"})
    assert resp.status_code in (200, 303)
    assert view_of(client, code)["phoenix_holder"] is None


def test_the_page_shows_the_facts_of_the_json_view(client):
    code = new_table(client, players=("Ana", "Ben", "Cara", "Dan", "Eve", "Finn", "Gus"))
    client.post(f"/join/{code}", data={"seat": "0"})
    view = view_of(client, code)
    page = client.get(f"/t/{code}").get_data(as_text=True)
    for note in view["setup_notes"]:
        assert f"<li>{note}</li>" in page
    assert view["wandering_rule"].replace("'", "&#39;") in page
    ok(client, code, "set_phase", {"phase": "boost"})
    ok(client, code, "boost", {"player": 3})
    view = view_of(client, code)
    assert view["boosted_this_round"] == [3] and view["phase_label"] == "Boost"
    page = client.get(f"/t/{code}").get_data(as_text=True)
    rows = re.findall(r'<li class="boost-row[^"]*">.*?</li>', page, re.S)
    played = [row for row in rows if "played this round" in row]
    assert len(played) == 1 and "<b>Dan</b>" in played[0]
    assert "Round · Boost" in page


def test_every_tie_break_is_on_the_final_card_the_json_result_and_the_history_row(client):
    code = new_table(client, players=("Ana", "Ben", "Cara"))
    client.post(f"/join/{code}", data={"seat": "1"})
    for number in range(1, 5):
        ok(client, code, "set_phase", {"phase": "scoring"}, seat=1)
        for player, total in enumerate((8, 1, 0)):
            ok(client, code, "enter_total", {"player": player, "total": total}, seat=1)
        ok(client, code, "settle_round", seat=1)
        ok(client, code, "score_creature", {"player": 0, "value": 3, "name": "", "phoenix": False}, seat=1)
        ok(client, code, "next_round" if number < 4 else "finish", {"round": number + 1} if number < 4 else None, seat=1)
    ok(client, code, "add_card", {"player": 1, "value": 2, "name": "", "phoenix": True}, seat=1)
    view = ok(client, code, "add_card", {"player": 2, "value": 2, "name": "", "phoenix": False}, seat=1)["view"]
    tie = "Ben beats Cara: both 2, Ben holds the Golden Phoenix."
    assert view["result"]["sentence"] == f"Ana wins with 12 points. 10 points ahead of Ben (2). {tie}"
    now = primary(client.get(f"/t/{code}").get_data(as_text=True))
    assert "10 points ahead of Ben (2)." in now and tie in now
    # This phone is Ben's: its box is marked, but the winner's outline is Ana's alone.
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert re.search(r'<li class="stat winner"><b>12</b><span>1\. Ana</span>', page)
    assert re.search(r'<li class="stat me"><b>2</b><span>2\. Ben</span>', page)
    css = (Path(__file__).resolve().parent.parent / "static" / "woodland-wizards.css").read_text()
    me_rule = re.search(r"\.ww-points \.stat\.me \{([^}]*)\}", css).group(1)
    assert "var(--accent)" not in me_rule
    (played,) = client.get("/api/history").get_json()["games"]
    assert played["summary"] == view["result"]["sentence"]
    assert tie in client.get("/history").get_data(as_text=True)
