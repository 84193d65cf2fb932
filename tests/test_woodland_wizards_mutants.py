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
    state = act(state, "add_card", player=1, value=2)
    assert refused(state, "remove_card", player=1, index=1) == (
        "Ben has 1 scored card: choose a number from 0 to 0.")


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


# ----------------------------------------------------------------- timer cues


def test_the_timer_restarts_for_each_wandering_turn_each_boost_round_and_each_phase():
    """Rulebook: "Beginning with the starting player and following in turn order, each player
    draws a card from the deck and then plays a card." and "Several rounds follow" (Boost)."""
    state = new_game(3, first=1)
    assert ww.timer_cue(state) == ("1:wandering:0", "Round 1 · Wandering: Ben's turn")
    state = act(state, "end_wandering_turn", player=1)
    assert ww.timer_cue(state) == ("1:wandering:1", "Round 1 · Wandering: Cara's turn")
    state = act(state, "next_phase")
    assert ww.timer_cue(state) == ("1:contest", "Round 1 · Contest")
    state = act(state, "next_phase")
    assert ww.timer_cue(state) == ("1:boost:1", "Round 1 · Boost round 1")
    for seat in range(3):
        state = act(state, "boost", player=seat)
    state = act(state, "next_boost_round")
    assert ww.timer_cue(state) == ("1:boost:2", "Round 1 · Boost round 2")
    assert ww.timer_cue(act(state, "set_phase", phase="scoring")) is None
    state = act(log_creatures(settle_with(new_game(3), [1, 2, 3])), "next_round")
    state = act(state, "set_phase", phase="contest")
    assert ww.timer_cue(state) == ("2:contest", "Round 2 · Contest")


# ----------------------------------------------------------------- boosts


def test_the_next_boost_round_names_only_the_players_still_in():
    """Rulebook: players "play one card face down as a boost or pass, in which case they cannot
    play any further boosts in the following Boost rounds." """
    state = act(new_game(3), "set_phase", phase="boost")
    state = act(act(act(state, "boost", player=0), "pass_boost", player=1), "boost", player=2)
    state = act(state, "next_boost_round")
    assert state["boost_round"] == 2
    assert state["events"] == ["Boost round 2: Ana and Cara may boost or pass."]


def test_each_boost_round_takes_one_boost_or_pass_per_player_still_in():
    """Rulebook: "In each Boost round, players play one card face down as a boost or pass, in
    which case they cannot play any further boosts in the following Boost rounds. Once everyone
    has played a Boost or passed, turn all cards face up at the same time." """
    assert refused(new_game(2), "boost", player=0, boost_round=1) == (
        "Boosts are played only in the Boost phase.")
    state = act(new_game(2), "set_phase", phase="boost")
    assert state["events"] == ["Boost phase, Boost round 1: boost or pass."]
    state = act(state, "boost", player=0)
    assert state["events"] == ["Waiting for Ben to boost or pass."]
    assert refused(state, "boost", player=0) == "Ana has already played a boost in Boost round 1."
    assert refused(state, "pass_boost", player=0) == (
        "Ana has already played a boost in Boost round 1; pass in the next Boost round.")
    state = act(state, "pass_boost", player=1)
    assert state["events"] == ["Everyone has boosted or passed: turn the boosts face up."]
    assert refused(state, "boost", player=1) == "Ben has passed: no more boosts for Ben this round."
    assert refused(state, "pass_boost", player=1) == "Ben has already passed."
    state = act(act(state, "next_boost_round"), "pass_boost", player=0)
    assert state["phase"] == "scoring"
    assert state["events"] == ["Everyone has passed: the Boost phase ends.",
                               "Scoring phase: enter each player's round total."]


# ----------------------------------------------------------------- scored cards and the Phoenix


def test_adding_a_plain_card_leaves_the_phoenix_where_it_is_and_says_nothing_of_it():
    """Rulebook: ties are broken first by "the Golden Phoenix"; a card that is not it moves
    nothing."""
    state = act(finished(new_game(2)), "add_card", player=1, value=3, phoenix=True)
    state = act(state, "add_card", player=0, value=2)
    assert state["events"] == []
    assert ww.phoenix_holder(state) == 1
    assert state["boards"][0]["cards"][-1] == {"value": 2, "name": "", "phoenix": False}


# ----------------------------------------------------------------- the log line of every action


@pytest.mark.parametrize("action, params, seat, line", [
    ("set_phase", {"phase": "boost"}, 0, "Ana moved to the Boost phase"),
    ("next_phase", {}, 1, "Ben moved on to the next phase"),
    ("end_wandering_turn", {"player": 0}, 0, "Ana drew and played a card"),
    ("end_wandering_turn", {"player": 2}, 0, "Ana logged Cara's turn: drew and played a card"),
    ("set_wandering_turn", {"player": 1}, 0, "Ana corrected the turn: Ben draws and plays now"),
    ("boost", {"player": 0}, 0, "Ana logged a boost"),
    ("boost", {"player": 1}, 0, "Ana logged a boost for Ben"),
    ("pass_boost", {"player": 0}, 0, "Ana passed"),
    ("pass_boost", {"player": 2}, 0, "Ana logged a pass for Cara"),
    ("next_boost_round", {}, 2, "Cara started the next Boost round"),
    ("enter_total", {"player": 0, "total": 7}, 0, "Ana entered their own round total: 7"),
    ("enter_total", {"player": 1, "total": 7}, 0, "Ana entered Ben's round total: 7"),
    ("set_total", {"player": 1, "total": 8}, 0, "Ana corrected Ben's round total to 8"),
    ("settle_round", {}, 1, "Ben ranked the round"),
    ("score_creature", {"player": 1, "value": 6, "name": "Owl", "phoenix": False}, 1,
     "Ben scored Owl (6)"),
    ("score_creature", {"player": 1, "value": 6, "name": "", "phoenix": True}, 0,
     "Ana scored the Golden Phoenix (6) for Ben"),
    ("next_round", {"round": 2}, 0, "Ana cleaned up and started the next round"),
    ("finish", {}, 0, "Ana ended the game"),
    ("add_card", {"player": 0, "value": 3, "name": "", "phoenix": False}, 0,
     "Ana added a card worth 3 to their own scored cards"),
    ("edit_card", {"player": 2, "index": 1, "value": 4, "name": "Fox", "phoenix": False}, 0,
     "Ana changed Cara's scored card 2 to Fox (4)"),
    ("remove_card", {"player": 0, "index": 0}, 0, "Ana removed their own scored card 1"),
    ("set_adjustment", {"player": 0, "amount": -3}, 0,
     "Ana set their own end-of-game adjustment to -3"),
    ("set_adjustment", {"player": 1, "amount": 4}, 0, "Ana set Ben's end-of-game adjustment to +4"),
    ("unknown", {}, 0, "Ana: unknown"),
])
def test_every_action_has_its_own_log_line(action, params, seat, line):
    assert ww.describe(action, params, seat, NAMES[:3]) == line


# ----------------------------------------------------------------- a round: ranking, scorers, clean-up


def test_a_round_ranks_by_total_then_turn_order_and_the_top_places_score():
    """Rulebook: "In case of equal scores, the player sitting closest to the starting player in
    turn order is the winner. [...] In a game with four or five players, the player with the
    second-highest point total also scores their Contest Creature." """
    state = act(new_game(4, first=1), "set_phase", phase="scoring")
    assert state["events"] == ["Scoring phase: enter each player's round total."]
    missing = []
    for seat, total in enumerate([6, 9, 6, 2]):
        state = act(state, "enter_total", player=seat, total=total)
        missing.append(state["events"])
    assert missing == [["Still missing: Ben, Cara and Dan."], ["Still missing: Cara and Dan."],
                       ["Still missing: Dan."], ["Every total is in: rank the round."]]
    state = act(state, "settle_round")
    assert state["round_result"] == [{"seat": 1, "total": 9, "place": 1, "scorer": True},
                                     {"seat": 2, "total": 6, "place": 2, "scorer": True},
                                     {"seat": 0, "total": 6, "place": 3, "scorer": False},
                                     {"seat": 3, "total": 2, "place": 4, "scorer": False}]
    assert (state["scorers"], state["round_winner"], state["next_starting_player"]) == ([1, 2], 1, 2)
    assert state["settled"] is True and state["creatures_logged"] == []
    assert state["events"] == [
        "Round 1 ranking: Ben 9, Cara 6, Ana 6, Dan 2.",
        "Cara and Ana both have 6; Cara is closer to the starting player Ben, so Cara ranks higher.",
        "Ben wins the round; Cara also scores (2 scorers with 4 players). Each scorer adds their "
        "Contest Creature to their scored cards.",
        "Cara, to the left of Ben, will be the starting player of round 2."]


def test_a_lone_scorer_and_the_seven_player_scorer_option_are_told_apart():
    """Rulebook: "The winner adds their Contest Creature to their scored cards." With 7-12
    players the number of scorers is the table's own choice."""
    state = settle_with(new_game(2), [3, 3])
    assert state["events"][2:] == [
        "Ana wins the round and adds their Contest Creature to their scored cards.",
        "Ben, to the left of Ana, will be the starting player of round 2."]
    state = settle_with(new_game(7, scorers_7_plus=3), [1, 2, 3, 4, 5, 6, 7])
    assert state["scorers"] == [6, 5, 4]
    assert state["events"][1] == ("Gus wins the round; Finn and Eve also score (3 scorers with "
                                  "7 players). Each scorer adds their Contest Creature to their "
                                  "scored cards.")


def test_scorers_add_their_creatures_once_each_and_the_log_says_who_is_left():
    """Rulebook: "The winner adds their Contest Creature to their scored cards." """
    state = settle_with(new_game(4, first=1), [6, 9, 6, 2])
    assert refused(state, "score_creature", player=0, value=1) == "Ana is not a scorer this round."
    assert refused(state, "next_round") == "Ben and Cara must first score their Contest Creatures."
    state = act(state, "score_creature", player=1, value=7, name="Owl")
    assert state["events"] == ["Ben scores Owl (7).", "Still to score a creature: Cara."]
    assert refused(state, "score_creature", player=1, value=1) == (
        "Ben has already scored a Contest Creature this round.")
    assert refused(state, "next_round") == "Cara must first score their Contest Creature."
    state = act(state, "score_creature", player=2, value=3)
    assert state["events"] == ["Cara scores a card worth 3.",
                               "Every creature is scored: clean up and start the next round."]
    assert state["creatures_logged"] == [1, 2]
    assert [board["cards"] for board in state["boards"]] == [
        [], [{"value": 7, "name": "Owl", "phoenix": False}],
        [{"value": 3, "name": "", "phoenix": False}], []]


def test_clean_up_starts_the_next_round_afresh_left_of_the_round_winner():
    """Rulebook: "The player sitting to the left of the winner of the current round becomes the
    starting player for the next round. Then the next round starts." """
    state = new_game(4, first=1)
    state = act(act(state, "end_wandering_turn", player=1), "set_phase", phase="boost")
    for seat in range(4):
        state = act(state, "boost", player=seat)
    state = act(act(state, "next_boost_round"), "pass_boost", player=3)
    state = log_creatures(settle_with(state, [6, 9, 6, 2]), value=4)
    state = act(state, "next_round")
    assert state["events"] == [
        "Clean-up: discard the cards in play except scored cards; each player may discard cards "
        "from hand; shuffle the discard pile into the deck, flip one card to start the discard "
        "pile, and draw back to 5 cards.",
        "Round 2: Cara is the starting player (to the left of Ben, who won the round)."]
    scored = {"value": 4, "name": "", "phoenix": False}
    assert {key: value for key, value in state.items() if key != "events"} == {
        "rules_version": 1, "players": NAMES[:4], "scorers_7_plus": 3, "round": 2,
        "phase": "wandering", "starting_player": 2, "wandering_turn": 0, "boost_round": 1,
        "passed": [False] * 4, "boosts": [0] * 4, "totals": [None] * 4, "settled": False,
        "round_result": [], "scorers": [], "round_winner": None, "next_starting_player": None,
        "creatures_logged": [],
        "boards": [{"cards": [], "adjustment": 0}, {"cards": [scored], "adjustment": 0},
                   {"cards": [scored], "adjustment": 0}, {"cards": [], "adjustment": 0}],
        "round_scores": [[0, 4, 4, 0]]}


def test_the_last_round_has_no_clean_up_and_no_next_starting_player():
    """Rulebook: "Clean-up phase (not applicable in the last game round)" and "The game ends
    after the Scoring Phase of the fourth round." """
    state = new_game(2)
    for _ in range(2):
        state = act(play_round(state, [5, 1]), "next_round")
    state = act(play_round(state, [5, 1]), "next_round")
    assert state["round"] == 4 and state["events"][-1] == "Last round: no Clean-up after it."
    state = settle_with(state, [1, 5])
    assert state["next_starting_player"] is None
    assert state["events"][-1] == ("This is the last round: once the creatures are scored, "
                                   "apply end-of-game effects and end the game.")
    state = act(state, "score_creature", player=1, value=2)
    assert state["events"][-1] == ("Every creature is scored: apply end-of-game effects, then "
                                   "end the game.")
    assert ww.step_values(state)["next_round"] is None


# ----------------------------------------------------------------- final ranking and its reasons


def board(seat: int, values: list[int], adjustment: int = 0, name=None) -> dict:
    """A final-ranking entry; name=False leaves the name out as an old record may."""
    entry = {"seat": seat, "cards": [{"value": v, "name": "", "phoenix": False} for v in values],
             "adjustment": adjustment}
    if name is not False:
        entry["name"] = name or NAMES[seat]
    return entry


def test_every_tied_player_gets_the_tie_break_that_put_them_below_the_one_above():
    """Rulebook: "Ties for highest score are broken in the favor of the player that has [...]
    2. the most scored cards, 3. the highest card value on a scored card, 4. the most cards with
    the highest card value" """
    ranking = ww.final_ranking([board(0, [5, 5]), board(1, [10]), board(2, [4, 6]),
                                board(3, [3, 3, 4]), board(4, [1], adjustment=2)], 2)
    assert ranking == [
        {"seat": 3, "name": "Dan", "score": 10, "place": 1,
         "reason": "10 points, tied with Cara, Ana and Ben; the tie-breaks put Dan first."},
        {"seat": 2, "name": "Cara", "score": 10, "place": 2,
         "reason": "Dan beats Cara: both 10, 3 scored cards to 2."},
        {"seat": 0, "name": "Ana", "score": 10, "place": 3,
         "reason": "Cara beats Ana: both 10 with 2 scored cards, highest card 6 to 5."},
        {"seat": 1, "name": "Ben", "score": 10, "place": 4,
         "reason": "Ana beats Ben: both 10, 2 scored cards to 1."},
        {"seat": 4, "name": "Eve", "score": 3, "place": 5, "reason": "3 points."}]


def test_the_most_cards_of_the_highest_value_and_then_turn_order_break_the_rest():
    """Rulebook: "4. the most cards with the highest card value, 5. or as a last resort: In
    game order, starting with the starting player." """
    ranking = ww.final_ranking([board(0, [5, 5, 2]), board(1, [5, 4, 3]), board(2, [5, 1, 6])], 0)
    assert [row["reason"] for row in ranking] == [
        "12 points, tied with Ana and Ben; the tie-breaks put Cara first.",
        "Cara beats Ana: both 12 with 3 scored cards, highest card 6 to 5.",
        "Ana beats Ben: both 12 with 3 scored cards and highest card 5, two cards of 5 to one."]
    ranking = ww.final_ranking([board(0, [5, 5]), board(1, [6, 4]), board(2, [5, 5])], 1)
    assert [row["seat"] for row in ranking] == [1, 2, 0]
    assert ranking[2]["reason"] == (
        "Cara beats Ana: both 10 with 2 scored cards, highest card 5 (two of them); Cara sits "
        "earlier in turn order from the starting player Ben.")
    ranking = ww.final_ranking([board(0, [5]), board(1, [5])], 1)
    assert ranking[1]["reason"] == (
        "Ben beats Ana: both 5 with 1 scored card, highest card 5 (one of them); Ben is the "
        "starting player, first in turn order.")


def test_players_without_cards_or_names_rank_by_score_then_turn_order():
    """Rulebook: "5. or as a last resort: In game order, starting with the starting player." """
    ranking = ww.final_ranking([board(0, []), board(1, [], name=False), board(2, [2], -2)], 1)
    assert ranking == [
        {"seat": 2, "name": "Cara", "score": 0, "place": 1,
         "reason": "0 points, tied with Seat 1 and Ana; the tie-breaks put Cara first."},
        {"seat": 1, "name": "Seat 1", "score": 0, "place": 2,
         "reason": "Cara beats Seat 1: both 0, 1 scored card to 0."},
        {"seat": 0, "name": "Ana", "score": 0, "place": 3,
         "reason": "Seat 1 beats Ana: both 0, no scored cards each; Seat 1 is the starting "
                   "player, first in turn order."}]
    # A stored board may lack its cards, or hold no adjustment at all.
    assert ww.final_ranking([{"seat": 0}, {"seat": 1, "cards": [{"value": 3}],
                                           "adjustment": None}], 1) == [
        {"seat": 1, "name": "Seat 1", "score": 3, "place": 1, "reason": "3 points."},
        {"seat": 0, "name": "Seat 0", "score": 0, "place": 2, "reason": "0 points."}]
