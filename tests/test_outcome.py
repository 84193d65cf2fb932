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
