"""Each game's result for the history: final places, winners and the score after each round."""

from __future__ import annotations

from companion.games import wicked_forest as wf
from companion.games import woodland_wizards as ww
from companion.games.base import check_action

from .helpers import name_step


def act(module, state, action, seat=0, **params):
    params = name_step(module, state, action, params)
    _, parsed = check_action(module.ACTIONS, action, params, len(state["players"]))
    return module.apply(state, action, parsed, seat)


def ww_round(state, totals, creature_value):
    state = act(ww, state, "set_phase", phase="scoring")
    for seat, total in enumerate(totals):
        state = act(ww, state, "enter_total", player=seat, total=total)
    state = act(ww, state, "settle_round")
    (scorer,) = state["scorers"]  # one scorer with two players
    return act(ww, state, "score_creature", player=scorer, value=creature_value, name="", phoenix=False)


def test_woodland_wizards_outcome_by_round():
    state = ww.setup(["Ana", "Ben"], {"first_player": 0, "scorers_7_plus": 3})
    # Round winners score their creature: Ana 4, Ben 6, Ana 5, Ben 2.
    state = ww_round(state, [10, 5], 4)
    assert ww.outcome(state) is None
    state = act(ww, state, "next_round")
    state = ww_round(state, [3, 9], 6)
    state = act(ww, state, "next_round")
    state = ww_round(state, [7, 2], 5)
    state = act(ww, state, "next_round")
    state = ww_round(state, [1, 8], 2)
    state = act(ww, state, "finish")
    result = ww.outcome(state)
    assert result["score_by_round"] == [[4, 0], [4, 6], [9, 6], [9, 8]]
    assert result["rounds"] == 4
    assert result["cooperative"] is False and result["won"] is None
    assert [(p["name"], p["score"], p["place"], p["winner"]) for p in result["players"]] == [
        ("Ana", 9, 1, True), ("Ben", 8, 2, False)]
    # An end-of-game adjustment after the end moves the final tally, not the earlier rounds.
    state = act(ww, state, "set_adjustment", player=1, amount=3)
    result = ww.outcome(state)
    assert result["score_by_round"][-1] == [9, 11]
    assert result["score_by_round"][:3] == [[4, 0], [4, 6], [9, 6]]
    assert [p["winner"] for p in result["players"]] == [False, True]


def test_wicked_forest_outcome_by_round():
    state = wf.setup(["Ana", "Ben"], {"first_leader": 0, "inventory": False})
    # Round 1: both return on card 1 together: each gains a Forest Magic Tile (3 Magic).
    state = act(wf, state, "reveal", 0, flowers=2, witch=False)
    state = act(wf, state, "choose", 0, choice="return", decision=1)
    state = act(wf, state, "choose", 1, choice="return", decision=1)
    state = act(wf, state, "crystallize", 0, player=0, magic=5, item="card", color="none", spent=0)
    assert wf.outcome(state) is None
    state = act(wf, state, "next_round")
    state = act(wf, state, "start_exploration", 1)
    # Round 2 (made the final one), Ben leads: Ben returns first, Ana is the last one out.
    state = act(wf, state, "set_run_outs", 0, count=2)
    state = act(wf, state, "reveal", 1, flowers=1, witch=False)
    state = act(wf, state, "choose", 0, choice="stay", decision=1)
    state = act(wf, state, "choose", 1, choice="return", decision=1)
    state = act(wf, state, "reveal", 1, flowers=1, witch=False)
    state = act(wf, state, "choose", 0, choice="return", decision=2)
    state = act(wf, state, "crystallize", 0, player=1, magic=4, item="card", color="none", spent=0)
    assert wf.outcome(state) is None  # until the players confirm the final tally
    state = act(wf, state, "confirm_tally")
    result = wf.outcome(state)
    # Ana 5 + 2 tiles x 3 = 11; Ben 4 + 1 tile x 3 = 7.
    assert result["score_by_round"] == [[8, 3], [11, 7]]
    assert result["rounds"] == 2
    assert [(p["score"], p["place"], p["winner"]) for p in result["players"]] == [(11, 1, True), (7, 2, False)]
    assert "Ana wins with 11 Magic" in result["summary"]


def test_wicked_forest_shared_victory_marks_both_winners():
    state = wf.setup(["Ana", "Ben"], {"first_leader": 0, "inventory": False})
    state = act(wf, state, "set_run_outs", 0, count=2)
    state = act(wf, state, "reveal", 0, flowers=2, witch=False)
    state = act(wf, state, "choose", 0, choice="return", decision=1)
    state = act(wf, state, "choose", 1, choice="return", decision=1)
    for seat in (0, 1):
        state = act(wf, state, "set_final_flowers", 0, player=seat, count=1)
    state = act(wf, state, "confirm_tally")
    result = wf.outcome(state)
    assert [(p["score"], p["place"], p["winner"]) for p in result["players"]] == [(3, 1, True), (3, 1, True)]


# ----------------------------------------------------------------- the one result shape


STATE = {"phase": "over"}


class _Game:
    """A game module as game_result reads one: an outcome and a view."""

    def __init__(self, ending, view=None):
        self._ending, self._view = ending, view or {}

    def outcome(self, state):
        return self._ending if state == STATE else None

    def view(self, state, seat):
        return dict(self._view)


def _row(seat, name, score, place, winner):
    return {"seat": seat, "name": name, "score": score, "place": place, "winner": winner}


def test_game_result_is_none_while_the_game_goes_on_and_for_a_game_without_an_outcome():
    from companion.games import game_result
    assert game_result(_Game(None), STATE) is None
    assert game_result(object(), {}) is None


def test_game_result_orders_places_best_first_and_keeps_scores_in_seat_order():
    from companion.games import game_result
    ending = {"cooperative": False, "won": None, "summary": "Cara wins.",
              "players": [_row(2, "Cara", 9, 1, True), _row(0, "Ana", 3, 2, False),
                          _row(1, "Ben", 3, 2, False), _row(3, "Dan", None, None, False)]}
    assert game_result(_Game(ending), STATE) == {
        "places": [{"place": 1, "seat": 2, "name": "Cara", "score": 9},
                   {"place": 2, "seat": 0, "name": "Ana", "score": 3},
                   {"place": 2, "seat": 1, "name": "Ben", "score": 3},
                   {"place": None, "seat": 3, "name": "Dan", "score": None}],
        "scores": [3, 3, 9, None], "winners": [2], "sentence": "Cara wins.",
        "cooperative": False, "ended_early": False}


def test_game_result_of_a_team_shares_place_1_when_won_and_has_no_place_when_lost():
    from companion.games import game_result
    players = [_row(1, "Ben", None, 7, True), _row(0, "Ana", None, 7, True)]
    won = game_result(_Game({"cooperative": True, "won": True, "players": players}), STATE)
    assert [(p["seat"], p["place"]) for p in won["places"]] == [(0, 1), (1, 1)]
    assert won["winners"] == [0, 1] and won["sentence"] == "" and won["cooperative"] is True
    lost_players = [dict(p, winner=False) for p in players]
    lost = game_result(_Game({"cooperative": True, "won": False, "players": lost_players,
                              "summary": None}), STATE)
    assert [(p["seat"], p["place"]) for p in lost["places"]] == [(0, None), (1, None)]
    assert lost["winners"] == [] and lost["sentence"] == ""


def test_game_result_says_a_game_ended_early():
    from companion.games import game_result
    ending = {"cooperative": False, "won": None, "ended_early": True, "summary": "Stopped.",
              "players": [_row(0, "Ana", 1, 1, False)]}
    assert game_result(_Game(ending), STATE)["ended_early"] is True


def test_json_view_replaces_the_games_own_ending_words_with_the_one_result():
    from companion.games import OWN_RESULT_KEYS, json_view
    own = {key: "own" for key in OWN_RESULT_KEYS}
    view = json_view(_Game(None, {"round": 3, **own}), {}, 0)
    assert view == {"round": 3, "result": None}
