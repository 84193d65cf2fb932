"""The JSON API: every game's ending in one shape, and refusals that name the JSON parameter."""

from __future__ import annotations

import pytest

from companion.games import GAMES, OWN_RESULT_KEYS, register

from . import tiny_coop
from .helpers import create_tiny, hx_post, take, toast
from .history_fixture import api_act, play_woodland_wizards

SHAPE = {"places", "scores", "winners", "sentence", "cooperative", "ended_early"}
PLAYERS = {
    "wicked-forest": ["Ana", "Ben", "Cara"],
    "woodland-wizards": ["Ana", "Ben"],
    "explorers-of-the-woodlands": ["Ana", "Ben"],
    "mysterious-forest": ["Ana", "Ben"],
}


@pytest.fixture
def coop():
    register(tiny_coop)
    yield tiny_coop
    GAMES.pop(tiny_coop.ID, None)


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_no_result_while_a_game_is_going_on_and_no_game_specific_result_keys(client, game):
    resp = client.post("/api/tables", json={"game": game, "players": PLAYERS[game]})
    assert resp.status_code == 201, resp.get_json()
    view = resp.get_json()["view"]
    assert view["result"] is None
    assert not (set(OWN_RESULT_KEYS) - {"result"}) & set(view)


def test_a_finished_game_reports_places_scores_winners_and_the_sentence(client):
    code = play_woodland_wizards(client)
    result = client.get(f"/api/tables/{code}").get_json()["view"]["result"]
    assert set(result) == SHAPE
    assert result["places"] == [{"place": 1, "seat": 0, "name": "Ana", "score": 9},
                                {"place": 2, "seat": 1, "name": "Ben", "score": 8}]
    assert result["scores"] == [9, 8]
    assert result["winners"] == [0]
    assert result["cooperative"] is False and result["ended_early"] is False
    history_id = client.get("/api/history").get_json()["games"][0]["id"]
    assert result["sentence"] == client.get(f"/api/history/{history_id}").get_json()["outcome"]["summary"]
    assert result["sentence"].startswith("Ana wins with 9 points.")


def test_the_result_follows_a_correction_after_the_end(client):
    code = play_woodland_wizards(client)
    result = api_act(client, code, "set_adjustment", {"player": 1, "amount": 3})["view"]["result"]
    assert result["scores"] == [9, 11]
    assert result["winners"] == [1]
    assert [row["name"] for row in result["places"]] == ["Ben", "Ana"]


@pytest.mark.parametrize("won, winners, place", [(True, [0, 1], 1), (False, [], None)])
def test_a_cooperative_ending_in_the_same_shape(client, coop, won, winners, place):
    code = client.post("/api/tables", json={"game": "tiny-coop", "players": ["Ana", "Ben"],
                                            "options": {"level": "Easy"}}).get_json()["code"]
    take(client, code, 0)
    assert api_act(client, code, "advance")["view"]["result"] is None
    result = api_act(client, code, "end", {"won": won})["view"]["result"]
    assert set(result) == SHAPE
    assert result["winners"] == winners
    assert result["cooperative"] is True
    assert [row["place"] for row in result["places"]] == [place, place]
    assert result["scores"] == [None, None]
    assert result["sentence"] == tiny_coop.outcome(
        {"players": ["Ana", "Ben"], "level": "Easy", "round": 2, "phase": "over", "won": won,
         "events": []})["summary"]


def test_a_refused_value_names_the_json_parameter_and_the_page_names_the_field(client):
    code = client.post("/api/tables", json={"game": "woodland-wizards", "players": ["Ana", "Ben"],
                                            "options": {"first_player": "0"}}).get_json()["code"]
    take(client, code, 0)
    take(client, code, 1)
    api_act(client, code, "set_phase", {"phase": "scoring"})
    version = client.get(f"/api/tables/{code}").get_json()["version"]
    resp = client.post(f"/api/tables/{code}/actions",
                       json={"action": "enter_total", "params": {"player": 0, "total": 1000},
                             "version": version, "seat": 0})
    assert resp.status_code == 400
    body = resp.get_json()
    assert body["error"] == "total: 1000 is above the highest allowed, 999."
    assert body["param"] == "total"
    resp = client.post(f"/api/tables/{code}/actions",
                       json={"action": "enter_total", "params": {"player": 0},
                             "version": version, "seat": 0})
    assert (resp.get_json()["error"], resp.get_json()["param"]) == ("total: a value is needed.", "total")
    # The page speaks to a player: the field's label, not the parameter's name.
    page = hx_post(client, f"/t/{code}/act", {"action": "enter_total", "player": "0", "total": "1000",
                                               "version": str(version), "seat": "0"})
    assert toast(page) == "Round total: 1000 is above the highest allowed, 999."
    assert client.get(f"/api/tables/{code}").get_json()["version"] == version


def test_a_refused_option_names_the_option(client):
    resp = client.post("/api/tables", json={"game": "mysterious-forest", "players": ["Ana", "Ben"],
                                            "options": {"level": "impossible"}})
    assert resp.status_code == 400
    body = resp.get_json()
    assert body["param"] == "level"
    assert body["error"].startswith("level: choose one of standard, budding")


def test_a_refusal_that_is_not_about_one_value_names_no_parameter(client):
    code = create_tiny(client)
    take(client, code, 0)
    resp = client.post(f"/api/tables/{code}/actions",
                       json={"action": "no-such-action", "params": {}, "version": 0, "seat": 0})
    assert resp.status_code == 400
    assert "param" not in resp.get_json()
    assert resp.get_json()["error"] == "That action does not exist in this game."
