"""Woodland Wizards rules the broader tests left loose: each test pins one result or state
change exactly (the ranking, who scores, the step reached, the refusal, the log line), so a
slip in the rules module cannot pass unnoticed. Run with mutmut (setup.cfg [mutmut])."""

from __future__ import annotations

import random

import pytest

from companion.games import woodland_wizards as ww
from companion.games.base import Rejected

from .test_woodland_wizards_rules import (NAMES, act, finished, log_creatures, new_game,
                                          play_round, refused, settle_with)


def round_four_scoring(players: int = 2) -> dict:
    """A game in round 4's Scoring phase with the round settled and its creature scored."""
    state = new_game(players)
    for _ in range(3):
        state = act(play_round(state, [5] + [1] * (players - 1)), "next_round")
    return play_round(state, [5] + [1] * (players - 1), value=4)


# ----------------------------------------------------------------- options


def test_options_without_any_raw_values_take_the_defaults():
    """Rulebook, Set up: "The player who looks most like a hedgehog becomes the starting player
    for the first round." Without options the phones settle that seat at random."""
    options = ww.prepare_options(None, NAMES[:4], random.Random(3))
    assert options == {"first_player": random.Random(3).randrange(4), "scorers_7_plus": 3}


def test_option_refusals_name_the_game_and_the_option():
    with pytest.raises(Rejected) as info:
        ww.prepare_options({}, ["Ana"], random.Random(0))
    assert info.value.reason == "Woodland Wizards is for 2 to 12 players; 1 given."
    with pytest.raises(Rejected) as info:
        ww.prepare_options({"first_player": "Ana"}, NAMES[:3], random.Random(0))
    assert info.value.reason == ("First starting player: choose random or a seat number "
                                 "from 0 to 2.")


# ----------------------------------------------------------------- phases and turns


def test_next_phase_from_round_four_scoring_ends_the_game():
    """Rulebook: "The game ends after the Scoring Phase of the fourth round." """
    state = act(round_four_scoring(), "next_phase")
    assert state["phase"] == "over"
    assert state["events"] == ["The game is over.", "Ana wins with 19 points."]
    assert ww.outcome(state)["players"][0]["winner"] is True


def test_a_turn_correction_outside_the_wandering_phase_says_when_turns_happen():
    state = act(new_game(3), "set_phase", phase="contest")
    assert refused(state, "set_wandering_turn", player=1) == (
        "Turns to draw and play are taken in the Wandering phase.")


# ----------------------------------------------------------------- totals and scored cards


def test_a_total_corrected_before_entry_names_the_player():
    state = act(new_game(3), "set_phase", phase="scoring")
    assert refused(state, "set_total", player=1, total=4) == "Ben has no total yet: enter it first."


def test_correcting_a_settled_total_says_the_ranking_stays():
    """Rulebook: effects after a winner is determined "do not change the winner or their
    follow-ups of the current round, even if their point total is now lower"."""
    state = act(settle_with(new_game(3), [9, 5, 1]), "set_total", player=0, total=0)
    assert state["events"] == ["The round is already settled: its ranking and scorers stay as "
                               "they were (undo the ranking to redo it)."]
    assert state["round_winner"] == 0 and state["totals"] == [0, 5, 1]


def test_a_missing_scored_card_is_refused_with_the_count_and_the_range():
    state = finished(new_game(2))  # Ana holds four scored cards, Ben none
    assert refused(state, "edit_card", player=0, index=4, value=1) == (
        "Ana has 4 scored cards: choose a number from 0 to 3.")
    assert refused(state, "remove_card", player=1, index=0) == "Ben has no scored cards."


# ----------------------------------------------------------------- verdict and outcome


def test_the_verdict_gives_the_lead_as_the_difference_of_the_two_best_scores():
    """Rulebook: "The winner of the game is the player with the highest point value total of
    their scored cards." """
    ranking = ww.final_ranking([{"seat": 0, "name": "Ana", "cards": [{"value": 10}]},
                                {"seat": 1, "name": "Ben", "cards": [{"value": 7}]}], 0)
    assert ww.verdict(ranking)["why"] == "3 points ahead of Ben (7)."


def test_the_outcome_gives_every_key_of_the_one_result_shape():
    state = finished(new_game(2))
    assert ww.outcome(state) == {
        "cooperative": False, "won": None, "level": None,
        "players": [{"seat": 0, "name": "Ana", "score": 19, "place": 1, "winner": True},
                    {"seat": 1, "name": "Ben", "score": 0, "place": 2, "winner": False}],
        "rounds": 4,
        "score_by_round": [[5, 0], [10, 0], [15, 0], [19, 0]],
        "summary": "Ana wins with 19 points. 19 points ahead of Ben (0).",
    }


def test_the_outcome_of_a_table_saved_before_round_scores_were_kept_has_the_final_scores():
    state = finished(new_game(2))
    del state["round_scores"]
    assert ww.outcome(state)["score_by_round"] == [[19, 0]]
