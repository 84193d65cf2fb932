"""The Wicked Forest through the web layer: a whole short game, the private screen, and each
rule driven through the JSON API (POST /api/tables/<code>/actions)."""

import json
import re
from html import unescape

from .helpers import act, hidden, hx_post, kept_in_place, take, toast, version_of, shown_version


def new_table(client, players=("Ana", "Ben"), inventory=False):
    resp = client.post("/api/tables", json={"game": "wicked-forest", "players": list(players),
                                            "options": {"first_leader": "0", "inventory": inventory}})
    assert resp.status_code == 201
    return resp.get_json()["code"]


def sit_everyone(client, code):
    client.post(f"/join/{code}", data={"seat": "all"})


def view_of(client, code):
    return client.get(f"/api/tables/{code}").get_json()["view"]


def ok(resp):
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()["view"]


def refusal(resp):
    """A JSON refusal: 400 with the reason, the table as it was."""
    assert resp.status_code == 400, resp.get_json()
    return resp.get_json()["error"]


def everyone_returns(client, code, flowers=0):
    act(client, code, "reveal", {"flowers": flowers, "witch": False}, seat=view_of(client, code)["leader"])
    view = view_of(client, code)
    for seat in view["in_forest"]:
        ok(act(client, code, "choose", {"choice": "return", "decision": view["decision"]}, seat=seat))


def to_final_tally(client, code):
    """Round 1 made the final round; everyone returns on card 1: the tally is next."""
    ok(act(client, code, "set_run_outs", {"count": 2}, seat=0))
    everyone_returns(client, code, flowers=4)
    assert view_of(client, code)["phase"] == "tally"


def all_done_crystallizing(client, code):
    for seat in view_of(client, code)["crystallizing"]:
        ok(act(client, code, "done_crystallizing", {"player": seat}, seat=0))


def now_card(html):
    """The first section.card.now[data-primary]: what this phone must do now."""
    return re.search(r'<section class="card now[^"]*"[^>]*data-primary.*?</section>', html, re.S).group(0)


def history_summaries(client):
    games = client.get("/api/history").get_json()["games"]
    return [client.get(f"/api/history/{g['id']}").get_json()["outcome"]["summary"] for g in games]


def test_a_short_game_reaches_scoring_on_the_page(client):
    code = new_table(client)
    sit_everyone(client, code)
    to_final_tally(client, code)
    act(client, code, "crystallize", {"player": 0, "magic": 5, "item": "card"}, seat=0)
    # Each returner is asked on the main card until they say they are done.
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert "Ana, what did you crystallize?" in now_card(page)
    all_done_crystallizing(client, code)
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert "Confirm the final tally" in now_card(page) and "🏆" not in page
    ok(act(client, code, "confirm_tally", {}, seat=1))
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert "🏆" in now_card(page) and "Ana wins with 8 Magic" in page
    # A number found wrong afterwards: the game is over, so undo the confirmation and fix it.
    assert "undo the last move" in refusal(act(client, code, "set_magic", {"player": 1, "magic": 9}, seat=0))
    resp = client.post(f"/api/tables/{code}/undo", json={"version": version_of(client, code)})
    assert resp.status_code == 200 and resp.get_json()["view"]["phase"] == "tally"


def test_api_storing_happens_only_in_the_preparation_phase_of_rounds_two_on(client):
    """Rulebook: "This phase does not occur in the first round of the game." and storing comes
    "After that" -- after the Cultivation gains of the Preparation Phase."""
    code = new_table(client, inventory=True)
    sit_everyone(client, code)
    ok(act(client, code, "set_inventory", {"player": 0, "bag": 4, "storehouse": 0}, seat=0))
    assert "round 1 does not have" in refusal(act(client, code, "store", {"player": 0}, seat=0))
    everyone_returns(client, code)
    assert "round 1 does not have" in refusal(act(client, code, "store", {"player": 0}, seat=0))
    view = ok(act(client, code, "next_round", {}, seat=0))
    assert (view["round"], view["phase"], view["preparing"]) == (2, "prepare", [0, 1])
    assert "done preparing" in now_card(board(client, code))
    view = ok(act(client, code, "store", {"player": 0}, seat=0))
    assert (view["boards"][0]["bag"], view["boards"][0]["storehouse"]) == (2, 1)
    view = ok(act(client, code, "done_preparing", {"player": 0}, seat=0))
    assert (view["prepared"], view["preparing"], view["phase"]) == ([0], [1], "prepare")
    view = ok(act(client, code, "done_preparing", {"player": 1}, seat=1))
    assert view["phase"] == "reveal"
    assert "Exploration has started" in refusal(act(client, code, "store", {"player": 0}, seat=0))


def test_api_only_the_leader_starts_exploration_early(client):
    code = new_table(client)
    sit_everyone(client, code)
    everyone_returns(client, code)
    ok(act(client, code, "next_round", {}, seat=0))
    assert "Ben, the leader" in refusal(act(client, code, "start_exploration", {}, seat=0))
    view = ok(act(client, code, "start_exploration", {}, seat=1))
    assert view["phase"] == "reveal" and view["steps"]["start_exploration"] is None


def test_api_forest_magic_tiles_are_unlimited(client):
    """Rulebook: "The Supply is considered unlimited."
    """
    code = new_table(client)
    sit_everyone(client, code)
    view = ok(act(client, code, "set_forest_magic", {"player": 1, "count": 9}, seat=0))
    assert view["boards"][1]["forest_tiles"] == 9 and view_of(client, code)["boards"][1]["forest_tiles"] == 9
    assert 'aria-label="Ben Forest Magic Tiles plus one"' in board(client, code)
    assert re.search(r'value="10" (?!disabled)[^>]*aria-label="Ben Forest Magic Tiles plus one"', board(client, code))


def test_api_result_waits_for_the_confirmed_tally_and_asks_flowers_only_on_a_tie(client):
    """Rulebook: "If the leading players are tied, the tied player with more Flowers of Defilement
    on their personal board wins." Nobody's Flowers count as 0 for lack of being entered."""
    code = new_table(client, ("Ana", "Ben", "Cara"))
    sit_everyone(client, code)
    to_final_tally(client, code)
    all_done_crystallizing(client, code)
    view = view_of(client, code)
    assert (view["game_over"], view["result"], view["flowers_missing"]) == (False, None, [0, 1, 2])
    assert history_summaries(client) == []
    # Flowers are asked for on the page only while the lead is tied.
    assert 'id="wf-flowers-0"' in now_card(board(client, code))
    error = refusal(act(client, code, "confirm_tally", {}, seat=0))
    assert error == ("Ana, Ben and Cara are tied for the lead on 3 Magic: enter the Flowers left for "
                     "Ana, Ben and Cara first, they break the tie.")
    ok(act(client, code, "crystallize", {"player": 1, "magic": 2, "item": "card"}, seat=1))
    view = ok(act(client, code, "crystallize", {"player": 2, "magic": 2, "item": "card"}, seat=2))
    assert view["flowers_missing"] == [1, 2]
    assert 'id="wf-flowers-0"' not in board(client, code)
    ok(act(client, code, "set_final_flowers", {"player": 1, "count": 2}, seat=0))
    ok(act(client, code, "set_final_flowers", {"player": 2, "count": 2}, seat=0))
    view = ok(act(client, code, "confirm_tally", {}, seat=0))
    summary = "Ben and Cara share the victory: 5 Magic and 2 Flowers each."
    assert (view["game_over"], view["result"]["sentence"], view["result"]["winners"]) == (True, summary, [1, 2])
    assert history_summaries(client) == [summary]


def test_api_places_below_the_lead_go_by_magic_and_ties_share(client):
    code = new_table(client, ("Ana", "Ben", "Cara", "Dan"))
    sit_everyone(client, code)
    to_final_tally(client, code)
    for seat, magic in enumerate((9, 1, 1, 0)):
        ok(act(client, code, "set_magic", {"player": seat, "magic": magic}, seat=0))
    view = ok(act(client, code, "set_final_flowers", {"player": 1, "count": 7}, seat=0))
    assert view["flowers_missing"] == []
    view = ok(act(client, code, "confirm_tally", {}, seat=0))
    assert [(row["name"], row["place"]) for row in view["result"]["places"]] == [
        ("Ana", 1), ("Ben", 2), ("Cara", 2), ("Dan", 4)]


def test_api_the_player_chooses_to_pay_from_the_storehouse(client):
    """Rulebook: "Flowers of Defilement in the Storehouse can be used for Crystallization in the
    same way as those in the Bag."
    """
    code = new_table(client, inventory=True)
    sit_everyone(client, code)
    ok(act(client, code, "set_inventory", {"player": 0, "bag": 2, "storehouse": 3}, seat=0))
    view = ok(act(client, code, "crystallize", {"player": 0, "magic": 3, "item": "card", "spent": 2,
                                                 "from_storehouse": 2}, seat=0))
    assert (view["boards"][0]["bag"], view["boards"][0]["storehouse"]) == (2, 1)
    assert "do not fit" in refusal(act(client, code, "crystallize", {
        "player": 0, "magic": 3, "item": "card", "spent": 2, "from_storehouse": 2}, seat=0))
    assert 'name="from_storehouse"' in board(client, code)


def test_api_end_the_game_now_is_recorded_as_ended_early(client):
    code = new_table(client)
    sit_everyone(client, code)
    everyone_returns(client, code)
    ok(act(client, code, "set_magic", {"player": 1, "magic": 4}, seat=0))
    view = ok(act(client, code, "finish", {}, seat=0))
    summary = ("Ended early after round 1: no winner is named, as the rulebook names one only after "
               "the final round. Ben led with 7 Magic.")
    result = view["result"]
    assert (view["ended_early"], result["ended_early"], result["sentence"], result["winners"]) == (
        True, True, summary, [])
    assert history_summaries(client) == [summary]
    (played,) = client.get("/api/history").get_json()["games"]
    assert client.get(f"/api/history/{played['id']}").get_json()["outcome"]["ended_early"] is True
    history_page = unescape(client.get(f"/history/{played['id']}").get_data(as_text=True))
    assert summary in history_page and "🏆" not in history_page
    page = board(client, code)
    assert "⏹ " + summary in now_card(page) and "🏆" not in page
    log = client.get(f"/api/tables/{code}/actions").get_json()
    assert "Ana ended the game early" in json.dumps(log)


def test_api_view_carries_the_setup_notes_the_page_shows(client):
    code = new_table(client, ("Ana", "Ben", "Cara"))
    sit_everyone(client, code)
    view = view_of(client, code)
    html = board(client, code)
    shown = re.findall(r"<li>([^<]*)</li>", re.search(r'id="wf-setup".*?</details>', html, re.S).group(0))
    assert [unescape(line) for line in shown] == view["setup_notes"]
    assert any("tiles 4 and 5" in line for line in view["setup_notes"])
    assert view["next_leader"] == 1


def test_api_a_run_out_correction_is_saved(client):
    code = new_table(client)
    sit_everyone(client, code)
    ok(act(client, code, "set_run_outs", {"count": 1}, seat=0))
    # Read back afresh: the stored table holds the correction.
    assert view_of(client, code)["run_outs"] == 1
    assert '<b>1/2</b><span>Run-outs</span>' in board(client, code)
    ok(act(client, code, "set_run_outs", {"count": 2}, seat=0))
    assert (view_of(client, code)["run_outs"], view_of(client, code)["final_round"]) == (2, True)


def test_private_screen_needs_the_seat(client, make_client):
    code = new_table(client)
    take(client, code, 0)
    act(client, code, "reveal", {"flowers": 1, "witch": False}, seat=0)
    decision = client.get(f"/api/tables/{code}").get_json()["view"]["decision"]
    ben = make_client()
    take(ben, code, 1)
    act(ben, code, "choose", {"choice": "stay", "decision": decision}, seat=1)
    # Ana's phone asks for Ben's private screen: it does not hold Ben's seat, so it gets its own view.
    html = client.get(f"/t/{code}/view?as=1", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert "Ana: Stay or Return?" in html and "Ben: Stay or Return?" not in html
    assert 'aria-pressed="true"' not in html


def test_stale_reveal_form_says_why_and_shows_the_table_as_it_is(client):
    code = new_table(client)
    take(client, code, 0)
    act(client, code, "reveal", {"flowers": 2, "witch": False}, seat=0)
    resp = hx_post(client, f"/t/{code}/act", {"action": "reveal", "card": "1", "flowers": "3", "witch": "0",
                                              "version": "0", "seat": "0"})
    assert resp.status_code == 200
    body = resp.get_data(as_text=True)
    # The same card tapped again on a form already answered: said plainly, nothing revealed.
    assert toast(resp) == ("That was for card 1, which is already revealed; it is now round 1, card 1 "
                           "waiting for Stay or Return.") and "Forest: 1 of 9 revealed" in body


def board(client, code):
    return client.get(f"/t/{code}/view", headers={"HX-Request": "true"}).get_data(as_text=True)


def crystal_fields(html):
    return re.search(r'<fieldset id="wf-crystal-fields[^"]*"[^>]*>', html).group(0)


def test_one_flower_reads_in_the_singular_everywhere_on_the_board(client):
    code = new_table(client, ("Ana", "Ben", "Cara"))
    take(client, code, 0)
    html = board(client, code)
    assert 'aria-label="1 Flower, no Witch"' in html and 'aria-label="Witch and 1 Flower"' in html
    act(client, code, "reveal", {"flowers": 1, "witch": False}, seat=0)
    html = board(client, code)
    assert "1 Flower shown" in html and 'aria-label="Card 1: 1 Flower"' in html
    assert re.search(r"\b1 Flowers\b", html) is None
    decision = client.get(f"/api/tables/{code}").get_json()["view"]["decision"]
    for seat in (1, 2):
        other = client.application.test_client()
        take(other, code, seat)
        act(other, code, "choose", {"choice": "return", "decision": decision}, seat=seat)
    act(client, code, "choose", {"choice": "stay", "decision": decision}, seat=0)
    html = board(client, code)
    assert "Ben and Cara gain 1 Flower each" in html
    assert re.search(r"\b1 Flowers\b", html) is None


def test_crystallization_fields_outlive_refreshes_until_this_phone_logs_them(client):
    code = new_table(client)
    take(client, code, 0)
    html = board(client, code)
    # Stable ids and names: a refresh brought by another phone's move keeps what is picked.
    assert "hx-preserve" in crystal_fields(html)
    for field in ("player", "item", "color", "magic", "spent"):
        assert f'id="wf-crystal-{field}" name="{field}"' in html
    fields = {"action": "crystallize", "seat": "0", "player": "0", "color": "none", "spent": "0"}
    refused = hx_post(client, f"/t/{code}/act", dict(fields, item="cultivation", magic="4", rid="r-1",
                                                     version=shown_version(html)))
    # Refused (a Cultivation tile has a colour): the screen is left as it is, what was picked stays.
    assert kept_in_place(refused) and "has a color" in toast(refused)
    answer = hx_post(client, f"/t/{code}/act", dict(fields, item="card", magic="4", rid="r-2",
                                                    version=shown_version(html)))
    answer = answer.get_data(as_text=True)
    # Logged: this phone's answer brings empty fields for the next entry.
    assert "Ana 4" in answer and "hx-preserve" not in crystal_fields(answer)
    assert "hx-preserve" in crystal_fields(board(client, code))


def test_api_a_pile_corrected_to_zero_then_reshuffled_is_the_second_run_out(client):
    code = new_table(client)
    sit_everyone(client, code)
    everyone_returns(client, code)
    ok(act(client, code, "set_run_outs", {"count": 1}, seat=0))
    ok(act(client, code, "set_draw_pile", {"count": 0}, seat=0))
    view = ok(act(client, code, "next_round", {}, seat=0))
    assert (view["run_outs"], view["final_round"]) == (2, True)


def test_api_a_passed_around_phone_credits_the_leader_and_the_player(client):
    code = new_table(client, ("Ana", "Ben", "Cara", "Dan"))
    client.post(f"/join/{code}", data={"seat": "all"})
    leader = view_of(client, code)["leader"]
    ok(act(client, code, "reveal", {"flowers": 2, "witch": False}))  # no seat named
    log = client.get(f"/api/tables/{code}/actions").get_json()["actions"]
    name = ["Ana", "Ben", "Cara", "Dan"][leader]
    assert log[-1]["seat"] == leader and log[-1]["text"] == f"{name} revealed a card: 2 Flowers"
    for seat in range(4):
        ok(act(client, code, "choose", {"choice": "return", "decision": 1}, seat=seat))
    ok(act(client, code, "set_magic", {"player": 2, "magic": 3}))
    log = client.get(f"/api/tables/{code}/actions").get_json()["actions"]
    assert log[-1]["seat"] == 2
    ok(act(client, code, "set_draw_pile", {"count": 5}))  # nobody's in particular: the first seat
    assert client.get(f"/api/tables/{code}/actions").get_json()["actions"][-1]["seat"] == 0


def test_api_a_game_stopped_early_counts_in_no_stats_and_its_history_row_says_so(client):
    code = new_table(client)
    sit_everyone(client, code)
    everyone_returns(client, code)
    ok(act(client, code, "set_magic", {"player": 1, "magic": 4}, seat=0))
    ok(act(client, code, "finish", {}, seat=0))
    (played,) = client.get("/api/history").get_json()["games"]
    assert played["ended_early"] is True and played["winners"] == []
    assert played["summary"].startswith("Ended early after round 1: no winner is named")
    stats = client.get("/api/history/stats").get_json()
    assert stats["games"] == 0 and stats["people"] == []
    listing = unescape(client.get("/history").get_data(as_text=True))
    assert "Stopped early: nobody wins · Ana, Ben" in listing
    assert "Ended early after round 1: no winner is named" in listing
