"""Rules of Woodland Wizards: phases, boosts, round ranking, scorers, Phoenix, final ranking."""

from __future__ import annotations

import copy
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games import woodland_wizards as ww
from companion.games.base import Rejected, check_action

from .helpers import name_step

NAMES = ["Ana", "Ben", "Cara", "Dan", "Eve", "Finn", "Gus", "Hana", "Ivo", "Jo", "Kit", "Lu"]


# ----------------------------------------------------------------- building blocks


def new_game(players: int = 3, first: int = 0, scorers_7_plus: int = 3) -> dict:
    return ww.setup(NAMES[:players], {"first_player": first, "scorers_7_plus": scorers_7_plus})


def act(state: dict, action: str, seat: int = 0, **params) -> dict:
    """Parse like the table layer does, then apply; the step is named as the phone does."""
    params = name_step(ww, state, action, params)
    _, parsed = check_action(ww.ACTIONS, action, params, len(state["players"]))
    return ww.apply(state, action, parsed, seat)


def refused(state: dict, action: str, seat: int = 0, **params) -> str:
    """Expect a refusal that leaves the state exactly as it was; return the reason."""
    before = copy.deepcopy(state)
    with pytest.raises(Rejected) as info:
        act(state, action, seat, **params)
    assert state == before
    return info.value.reason


def to_scoring(state: dict) -> dict:
    return act(state, "set_phase", phase="scoring")


def settle_with(state: dict, totals: list[int]) -> dict:
    """Enter every total in the Scoring phase and rank the round."""
    if state["phase"] != "scoring":
        state = to_scoring(state)
    for seat, total in enumerate(totals):
        state = act(state, "enter_total", player=seat, total=total)
    return act(state, "settle_round")


def log_creatures(state: dict, value: int = 5) -> dict:
    for seat in list(state["scorers"]):
        state = act(state, "score_creature", player=seat, value=value)
    return state


def play_round(state: dict, totals: list[int], value: int = 5) -> dict:
    return log_creatures(settle_with(state, totals), value)


def entry(seat: int, values: list[int], phoenix_at: int | None = None, adjustment: int = 0) -> dict:
    cards = [{"value": v, "name": "", "phoenix": i == phoenix_at} for i, v in enumerate(values)]
    return {"seat": seat, "name": NAMES[seat], "cards": cards, "adjustment": adjustment}


def nameless(final_entry: dict) -> dict:
    """A final-ranking entry without its name, as an old record may hold it."""
    return {key: value for key, value in final_entry.items() if key != "name"}


# ----------------------------------------------------------------- options and setup


def test_prepare_options_settles_random_first_player_and_checks_values():
    options = ww.prepare_options({}, NAMES[:4], random.Random(3))
    assert 0 <= options["first_player"] < 4
    assert options["scorers_7_plus"] == 3
    assert ww.prepare_options({"first_player": "2", "scorers_7_plus": "5"}, NAMES[:9],
                              random.Random(0)) == {"first_player": 2, "scorers_7_plus": 5}
    assert "no seat 4" in refused_options({"first_player": "4"}, 4)
    assert "random or a seat" in refused_options({"first_player": "Ana"}, 4)
    assert "above" in refused_options({"scorers_7_plus": "7"}, 8)
    assert "2 to 12" in refused_options({}, 1)
    assert "2 to 12" in refused_options({}, 13)


def refused_options(raw: dict, players: int) -> str:
    with pytest.raises(Rejected) as info:
        ww.prepare_options(raw, [f"P{i}" for i in range(players)], random.Random(0))
    return info.value.reason


def test_setup_notes_mention_two_decks_and_one_phoenix_only_from_seven():
    six = " ".join(ww.setup_notes(6))
    eight = " ".join(ww.setup_notes(8))
    assert "5 cards" in six and "discard pile" in six and "two decks" not in six
    assert "two decks" in eight and "only one Golden Phoenix" in eight


def test_secret_open_is_always_false_and_state_is_json():
    state = new_game(4)
    assert ww.secret_open(state, 0) is False
    assert json.loads(json.dumps(state)) == state


# ----------------------------------------------------------------- phases and boosts


def test_next_phase_walks_the_checklist_and_stops_at_unsettled_scoring():
    state = new_game(3)
    for phase in ("contest", "boost", "scoring"):
        state = act(state, "next_phase")
        assert state["phase"] == phase
    assert "Settle" in refused(state, "next_phase")
    state = act(log_creatures(settle_with(state, [3, 2, 1])), "next_phase")
    assert state["phase"] == "cleanup"
    state = act(state, "next_phase")
    assert (state["round"], state["phase"]) == (2, "wandering")


def test_boost_refused_after_pass_and_outside_the_boost_phase():
    state = new_game(3)
    assert "Boost phase" in refused(state, "boost", player=0, boost_round=1)
    state = act(state, "set_phase", phase="boost")
    state = act(state, "pass_boost", player=1)
    assert "passed" in refused(state, "boost", player=1)
    assert "already passed" in refused(state, "pass_boost", player=1)
    state = act(state, "boost", player=0)
    assert "already played" in refused(state, "boost", player=0)
    assert "Cara" in refused(state, "next_boost_round")
    state = act(state, "boost", player=2)
    state = act(state, "next_boost_round")
    assert state["boost_round"] == 2
    # The pass lasts for the whole Boost phase of this round.
    assert "passed" in refused(state, "boost", player=1)
    state = act(state, "boost", player=0)
    assert state["boosts"] == [2, 0, 1]


def test_boost_phase_ends_after_three_rounds():
    state = act(new_game(2), "set_phase", phase="boost")
    for _ in range(2):
        state = act(act(state, "boost", player=0), "boost", player=1)
        state = act(state, "next_boost_round")
    state = act(act(state, "boost", player=0), "pass_boost", player=1)
    state = act(state, "next_boost_round")
    assert state["phase"] == "scoring"
    assert any("3 Boost rounds" in line for line in state["events"])


def test_boost_phase_ends_when_everyone_has_passed():
    state = act(new_game(3), "set_phase", phase="boost")
    state = act(state, "boost", player=0)
    state = act(act(state, "pass_boost", player=1), "pass_boost", player=2)
    state = act(state, "next_boost_round")
    state = act(state, "pass_boost", player=0)
    assert state["phase"] == "scoring"
    assert "Everyone has passed" in " ".join(state["events"])


def test_cleanup_is_not_available_in_round_four():
    state = new_game(2)
    for _ in range(3):
        state = act(play_round(state, [4, 1]), "next_round")
    assert state["round"] == 4
    assert "no Clean-up" in refused(state, "set_phase", phase="cleanup")
    phases = {p["name"]: p for p in ww.view(state, 0)["phases"]}
    assert phases["cleanup"]["applicable"] is False
    assert phases["wandering"]["current"] is True


# ----------------------------------------------------------------- round ranking


def test_scorer_counts_by_player_count():
    assert [ww.scorer_count(n) for n in (2, 3, 4, 5, 6)] == [1, 1, 2, 2, 3]
    assert ww.scorer_count(9, 3) == 3 and ww.scorer_count(12, 5) == 5


@pytest.mark.parametrize("players, starting, totals, order, scorers", [
    # 2 players: tie decided for the starting player's neighbour order, one scorer.
    (2, 1, [7, 7], [1, 0], 1),
    # 4 players: wrapping around from seat 3 to seats 0 and 1.
    (4, 3, [9, 9, 2, 9], [3, 0, 1, 2], 2),
    # 6 players, starting at seat 4: seat 5 comes before seat 1.
    (6, 4, [5, 8, 1, 3, 2, 8], [5, 1, 0, 3, 4, 2], 3),
    # 9 players, option 3: seat 8 before seat 0 before seat 6 from starting seat 7.
    (9, 7, [4, 0, 0, 0, 0, 0, 4, 0, 4], [8, 0, 6, 7, 1, 2, 3, 4, 5], 3),
])
def test_round_tie_rule_orders_equal_totals_from_the_starting_player(players, starting, totals,
                                                                     order, scorers):
    rows = ww.round_ranking(totals, starting, ww.scorer_count(players, 3))
    assert [row["seat"] for row in rows] == order
    assert [row["place"] for row in rows] == list(range(1, players + 1))
    assert [row["seat"] for row in rows if row["scorer"]] == order[:scorers]

    state = settle_with(new_game(players, first=starting), totals)
    assert state["scorers"] == order[:scorers]
    assert state["round_winner"] == order[0]
    assert ww.view(state, None)["scorer_positions"] == ("1 scorer" if scorers == 1
                                                        else f"{scorers} scorers")
    tie_words = ("closer to the starting player", "is the starting player")
    assert any(words in line for line in state["events"] for words in tie_words)


def test_round_tie_sentence_names_the_pair_and_the_starting_player():
    state = settle_with(new_game(4, first=0), [10, 14, 14, 3])
    assert ("Ben and Cara both have 14; Ben is closer to the starting player Ana, "
            "so Ben ranks higher.") in state["events"]


def test_option_changes_scorers_with_seven_or_more():
    state = settle_with(new_game(8, scorers_7_plus=5), [1, 2, 3, 4, 5, 6, 7, 8])
    assert state["scorers"] == [7, 6, 5, 4, 3]


@pytest.mark.parametrize("players, winner_total_at, expected_next", [
    (3, 0, 1), (3, 2, 0), (5, 4, 0), (4, 1, 2),
])
def test_starting_player_moves_left_of_the_round_winner(players, winner_total_at, expected_next):
    totals = [1] * players
    totals[winner_total_at] = 20
    state = play_round(new_game(players, first=1 % players), totals)
    assert state["starting_player"] == 1 % players  # applied only when the next round starts
    assert state["next_starting_player"] == expected_next
    state = act(state, "next_round")
    assert state["starting_player"] == expected_next
    assert state["round"] == 2 and state["phase"] == "wandering"
    assert state["totals"] == [None] * players and state["passed"] == [False] * players


def test_settle_refused_while_a_total_is_missing_and_totals_need_scoring():
    state = new_game(3)
    assert "Scoring" in refused(state, "enter_total", player=0, total=3)
    state = act(to_scoring(state), "enter_total", player=0, total=3)
    assert "Ben and Cara" in refused(state, "settle_round")
    assert "already entered" in refused(state, "enter_total", player=0, total=4)
    assert "enter it first" in refused(state, "set_total", player=1, total=4)
    state = act(state, "set_total", player=0, total=9)
    assert state["totals"][0] == 9


def test_set_total_after_settling_keeps_the_ranking():
    state = settle_with(new_game(3), [10, 5, 1])
    state = act(state, "set_total", player=2, total=50)
    assert state["round_winner"] == 0 and state["totals"][2] == 50
    assert state["round_result"][0]["total"] == 10


def test_score_creature_only_for_scorers_once_and_next_round_waits_for_them():
    state = settle_with(new_game(4), [10, 8, 6, 4])
    assert "not a scorer" in refused(state, "score_creature", player=2, value=3)
    assert "Ana and Ben" in refused(state, "next_round")
    state = act(state, "score_creature", player=0, value=6, name="Owl")
    assert "already scored" in refused(state, "score_creature", player=0, value=6)
    assert "Ben" in refused(state, "next_round")
    state = act(state, "score_creature", player=1, value=2)
    assert ww.view(state, 0)["pending_creatures"] == []
    assert act(state, "next_round")["round"] == 2


def test_finish_after_round_four_only():
    state = new_game(2)
    assert "after round 4" in refused(state, "finish")
    for _ in range(3):
        state = act(play_round(state, [1, 5]), "next_round")
    state = settle_with(state, [6, 5])
    assert "Ana" in refused(state, "finish")
    assert "already done" in refused(state, "next_round", round=4)
    state = log_creatures(state, 7)
    assert state["phase"] == "scoring"  # ending is an explicit step
    state = act(state, "finish")
    assert state["phase"] == "over"
    assert ww.view(state, 0)["game_over"] is True
    assert "game is over" in refused(state, "next_phase", phase="scoring")
    # Card effects may still exchange scored cards at the end.
    state = act(state, "set_adjustment", player=1, amount=-3)
    assert ww.view(state, 0)["boards"][1]["adjustment"] == -3


# ----------------------------------------------------------------- Golden Phoenix and cards


def test_only_one_golden_phoenix_across_all_card_actions():
    state = settle_with(new_game(8), [9, 8, 7, 1, 1, 1, 1, 1])
    state = act(state, "score_creature", player=0, value=8, phoenix=True)
    assert "Ana already holds" in refused(state, "score_creature", player=1, value=8,
                                          phoenix=True)
    assert "only one" in refused(state, "add_card", player=3, value=8, phoenix=True)
    state = act(state, "add_card", player=3, value=4)
    assert "only one" in refused(state, "edit_card", player=3, index=0, value=8, phoenix=True)
    # Re-editing the Phoenix itself is fine.
    state = act(state, "edit_card", player=0, index=0, value=9, phoenix=True)
    assert ww.view(state, 0)["phoenix_holder"] == 0
    state = act(state, "remove_card", player=0, index=0)
    state = act(state, "edit_card", player=3, index=0, value=8, phoenix=True)
    assert ww.view(state, 0)["phoenix_holder"] == 3
    assert "no scored cards" in refused(state, "remove_card", player=0, index=0)
    assert "0 to 0" in refused(state, "edit_card", player=3, index=1, value=1)


def test_apply_never_mutates_and_rejections_change_nothing():
    state = new_game(3)
    before = copy.deepcopy(state)
    after = act(state, "next_phase")
    assert state == before and after is not state
    assert "does not exist" in refused(state, "fly")
    assert refused(state, "enter_total", player=7, total=3)
    assert refused(state, "enter_total", player=0, total=1000)


# ----------------------------------------------------------------- final ranking


def places(rows):
    return [row["seat"] for row in rows]


def test_final_score_is_card_sum_plus_adjustment():
    rows = ww.final_ranking([entry(0, [3, 4], adjustment=-2), entry(1, [6])], 0)
    assert [(r["seat"], r["score"]) for r in rows] == [(1, 6), (0, 5)]
    assert rows[0]["reason"] == "6 points."


def test_tie_break_golden_phoenix():
    rows = ww.final_ranking([entry(0, [5, 5, 5]), entry(1, [9], phoenix_at=0, adjustment=6),
                             entry(2, [15])], 0)
    assert places(rows) == [1, 0, 2]
    assert rows[1]["reason"] == "Ben beats Ana: both 15, Ben holds the Golden Phoenix."


def test_tie_break_most_scored_cards():
    rows = ww.final_ranking([entry(0, [9, 9]), entry(1, [6, 6, 6])], 0)
    assert places(rows) == [1, 0]
    assert rows[1]["reason"] == "Ben beats Ana: both 18, 3 scored cards to 2."


def test_tie_break_highest_card():
    rows = ww.final_ranking([entry(0, [6, 6, 6]), entry(1, [9, 7, 2])], 0)
    assert places(rows) == [1, 0]
    assert "highest card 9 to 6." in rows[1]["reason"]


def test_tie_break_most_cards_of_the_highest_value():
    rows = ww.final_ranking([entry(0, [9, 8, 1, 0]), entry(1, [9, 9, 0, 0])], 0)
    assert places(rows) == [1, 0]
    assert "2 cards of 9 to 1." in rows[1]["reason"]


def test_tie_break_seat_order_when_steps_one_to_four_all_tie():
    data = [entry(seat, [9, 4, 4]) for seat in range(4)]
    rows = ww.final_ranking(data, 2)
    assert places(rows) == [2, 3, 0, 1]
    assert "Cara is the starting player" in rows[1]["reason"]
    assert rows[2]["reason"].endswith(
        "Dan sits earlier in turn order from the starting player Cara.")
    assert "tied with Dan, Ana and Ben" in rows[0]["reason"]


def test_tie_breaks_chain_inside_every_tied_group_not_only_first_place():
    data = [
        entry(0, [10, 10]),               # 20 points, 2 cards
        entry(1, [8, 2]),                 # 10 points: ties with seats 2, 3 and 4
        entry(2, [5, 5], phoenix_at=1),   # Phoenix wins the 10-point group
        entry(3, [4, 3, 3]),              # 3 cards
        entry(4, [6, 4]),                 # highest 6 loses to 8
    ]
    rows = ww.final_ranking(data, 0)
    assert places(rows) == [0, 2, 3, 1, 4]
    assert [row["place"] for row in rows] == [1, 2, 3, 4, 5]
    assert rows[2]["reason"] == "Cara beats Dan: both 10, Cara holds the Golden Phoenix."
    assert rows[3]["reason"] == "Dan beats Ben: both 10, 3 scored cards to 2."
    assert rows[4]["reason"] == "Ben beats Eve: both 10 with 2 scored cards, highest card 8 to 6."


def test_game_end_events_explain_ties():
    state = new_game(2)
    for _ in range(3):
        state = act(play_round(state, [5, 1]), "next_round")
    state = play_round(state, [5, 1], value=4)
    state = act(state, "add_card", player=1, value=19)
    state = act(state, "finish")
    assert "Ana beats Ben: both 19, 4 scored cards to 1." in state["events"]
    assert ww.view(state, 1)["final"][0]["seat"] == 0


card_lists = st.lists(st.integers(min_value=0, max_value=9), max_size=5)


@settings(max_examples=100, deadline=None)
@given(st.lists(card_lists, min_size=2, max_size=12), st.data())
def test_final_ranking_is_a_total_order_independent_of_input_order(hands, data):
    seat_count = len(hands)
    phoenix_seat = data.draw(st.sampled_from([None] + [s for s in range(seat_count) if hands[s]]))
    adjustments = data.draw(st.lists(st.integers(-3, 3), min_size=seat_count, max_size=seat_count))
    players = [entry(seat, hands[seat], 0 if seat == phoenix_seat else None, adjustments[seat])
               for seat in range(seat_count)]
    starting = data.draw(st.integers(0, seat_count - 1))
    rows = ww.final_ranking(players, starting)
    assert sorted(places(rows)) == list(range(seat_count))
    assert [row["place"] for row in rows] == list(range(1, seat_count + 1))
    assert all(a["score"] >= b["score"] for a, b in zip(rows, rows[1:]))
    for above, below in zip(rows, rows[1:]):
        if above["score"] == below["score"]:
            assert below["reason"].startswith(f"{above['name']} beats {below['name']}")
    shuffled = data.draw(st.permutations(players))
    assert ww.final_ranking(shuffled, starting) == rows


# ----------------------------------------------------------------- random play


def forward_step(state: dict) -> tuple[str, int | None]:
    """Pick the action that moves the game on, and the player it concerns."""
    missing = [seat for seat, total in enumerate(state["totals"]) if total is None]
    if not state["settled"]:
        if state["phase"] != "scoring":
            return "next_phase", None
        return ("enter_total", missing[0]) if missing else ("settle_round", None)
    pending = [seat for seat in state["scorers"] if seat not in state["creatures_logged"]]
    if pending:
        return "score_creature", pending[0]
    return "next_phase", None


action_steps = st.tuples(
    st.sampled_from(["forward"] * 12 + ["enter_total", "enter_total", "settle_round", "score_creature",
                     "score_creature", "next_round", "next_phase", "set_phase", "boost",
                     "pass_boost", "next_boost_round", "set_total", "finish", "add_card",
                     "edit_card", "remove_card", "set_adjustment", "end_wandering_turn",
                     "end_wandering_turn", "set_wandering_turn", "fly"]),
    st.integers(0, 11),   # player
    st.integers(0, 30),   # total or value
    st.booleans(),        # phoenix
    st.sampled_from(ww.PHASES),
    st.integers(0, 3),    # card index
)


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 12), st.integers(0, 11), st.integers(1, 6),
       st.lists(action_steps, min_size=60, max_size=120))
def test_random_action_sequences_keep_the_invariants(players, first, scorers_7_plus, steps):
    state = new_game(players, first % players, scorers_7_plus)
    expected_scorers = ww.scorer_count(players, scorers_7_plus)
    for name, player, number, phoenix, phase, index in steps:
        # Mostly seats at the table, sometimes one beyond it, which must be refused.
        player = player % (players + 1)
        if name == "forward":
            name, wanted = forward_step(state)
            player = player if wanted is None else wanted
        params = {"player": player, "total": number, "value": number, "phoenix": phoenix,
                  "phase": phase, "index": index, "amount": number - 15}
        before = copy.deepcopy(state)
        try:
            state = act(state, name, player % players, **params)
        except Rejected:
            assert state == before
        holders = [card for board in state["boards"] for card in board["cards"] if card["phoenix"]]
        assert len(holders) <= 1
        assert 1 <= state["round"] <= 4
        assert state["phase"] in ww.PHASES + ("over",)
        assert not (state["round"] == 4 and state["phase"] == "cleanup")
        if state["settled"]:
            assert len(state["scorers"]) == expected_scorers
            assert state["round_winner"] == state["scorers"][0]
        else:
            assert state["scorers"] == []
        assert len(state["passed"]) == len(state["boosts"]) == len(state["totals"]) == players
        assert all(0 <= count <= state["boost_round"] <= 3 for count in state["boosts"])
        assert 0 <= state["wandering_turn"] <= players
        shown = ww.view(state, player % players)
        assert set(shown["pending_creatures"]) <= set(shown["scorers"])
        assert json.loads(json.dumps(state)) == state


def test_view_and_describe_cover_the_table():
    state = settle_with(new_game(7), [1, 2, 3, 4, 5, 6, 7])
    shown = ww.view(state, None)
    for key in ("round", "phase", "phases", "starting_player", "boost_round", "passed", "boosts",
                "totals", "round_ranking", "scorers", "round_winner", "scorer_positions",
                "pending_creatures", "players", "boards", "phoenix_holder", "game_over", "final",
                "two_decks", "events"):
        assert key in shown
    assert shown["two_decks"] is True and shown["pending_creatures"] == [6, 5, 4]
    assert shown["round_ranking"][0] == {"seat": 6, "name": "Gus", "total": 7, "place": 1,
                                         "scorer": True}
    assert ww.describe("score_creature", {"player": 1, "value": 8, "name": "", "phoenix": True},
                       0, NAMES[:3]) == "Ana scored the Golden Phoenix (8) for Ben"
    assert ww.describe("pass_boost", {"player": 2}, 2, NAMES[:3]) == "Cara passed"
    for action in ww.ACTIONS:
        assert ww.describe(action, {}, 0, NAMES[:3])


# ----------------------------------------------------------------- one tap, one step


def test_a_second_next_phase_for_the_same_phase_is_refused_and_changes_nothing():
    state = new_game(3)
    assert ww.view(state, None)["steps"]["next_phase"] == "wandering"
    state = act(state, "next_phase", phase="wandering")
    assert state["phase"] == "contest"
    assert refused(state, "next_phase", phase="wandering") == (
        "That was for the Wandering phase, which is already over; it is now round 1, the "
        "Contest phase.")
    assert "has not come yet" in refused(state, "next_phase", phase="boost")
    state = act(state, "next_phase", phase="contest")
    assert state["phase"] == "boost"


def test_a_boost_or_pass_meant_for_an_earlier_boost_round_is_refused_and_changes_nothing():
    state = act(new_game(2), "set_phase", phase="boost")
    assert ww.view(state, None)["steps"]["boost"] == 1
    state = act(state, "boost", player=0, boost_round=1)
    state = act(state, "boost", player=1, boost_round=1)
    state = act(state, "next_boost_round", boost_round=1)
    assert state["boost_round"] == 2
    expected = ("That was for Boost round 1, which is already over; it is now round 1, the Boost "
                "phase, Boost round 2.")
    assert refused(state, "next_boost_round", boost_round=1) == expected
    assert refused(state, "boost", player=0, boost_round=1) == expected
    assert refused(state, "pass_boost", player=0, boost_round=1) == expected
    assert "has not come yet" in refused(state, "boost", player=0, boost_round=3)
    state = act(state, "pass_boost", player=0, boost_round=2)
    assert state["passed"] == [True, False] and state["boosts"] == [1, 1]


def test_a_second_next_round_is_refused_and_changes_nothing():
    state = play_round(new_game(2), [6, 5])
    assert ww.view(state, None)["steps"]["next_round"] == 2
    state = act(state, "next_round", round=2)
    assert state["round"] == 2 and state["phase"] == "wandering"
    assert refused(state, "next_round", round=2) == (
        "That was for starting round 2, which is already done; it is now round 2, the "
        "Wandering phase, Ben's turn to draw and play.")
    assert "has not come yet" in refused(state, "next_round", round=4)


def test_next_phase_from_clean_up_starts_the_next_round_once():
    state = act(play_round(new_game(2), [6, 5]), "next_phase", phase="scoring")
    assert state["phase"] == "cleanup"
    state = act(state, "next_phase", phase="cleanup")
    assert state["round"] == 2 and state["phase"] == "wandering"
    assert "the Clean-up phase" in refused(state, "next_phase", phase="cleanup")


def test_the_view_names_the_step_of_each_phase_and_none_of_the_others():
    state = new_game(2)
    assert ww.view(state, None)["steps"] == {
        "next_phase": "wandering", "end_wandering_turn": 0, "boost": None, "pass_boost": None,
        "next_boost_round": None, "next_round": 2}
    state = act(state, "set_phase", phase="boost")
    assert ww.view(state, None)["steps"] == {
        "next_phase": "boost", "end_wandering_turn": None, "boost": 1, "pass_boost": 1,
        "next_boost_round": 1, "next_round": 2}
    for _ in range(3):
        state = play_round(state, [6, 5])
        state = act(state, "next_round")
    assert state["round"] == 4 and ww.view(state, None)["steps"]["next_round"] is None
    state = act(play_round(state, [6, 5]), "finish")
    assert ww.view(state, None)["steps"]["next_phase"] is None


# ----------------------------------------------------------------- wording of the screen


@pytest.mark.parametrize("players, also", [
    (3, None),                      # one scorer: the winner alone
    (4, "Ben also scores"),         # two scorers: one other, singular verb
    (6, "Ben and Cara also score"),  # three scorers: two others, plural verb
])
def test_the_round_line_agrees_with_how_many_others_score(players, also):
    state = settle_with(new_game(players), list(range(20, 20 - players, -1)))
    line = next(e for e in state["events"] if e.startswith("Ana wins the round"))
    if also is None:
        assert line == "Ana wins the round and adds their Contest Creature to their scored cards."
    else:
        assert f"; {also} (" in line
        assert "also score " not in line.replace(also, "") and "Each scorer adds" in line


def test_setup_notes_agree_with_one_scorer_or_several():
    assert "With 3 players, 1 scorer per round adds their Contest Creature" in " ".join(ww.setup_notes(3))
    assert "With 4 players, 2 scorers per round add their Contest Creature" in " ".join(ww.setup_notes(4))


def test_a_single_scored_card_is_not_called_cards_in_a_tie_break():
    rows = ww.final_ranking([entry(0, [3, 3]), entry(1, [6])], 1)
    assert rows[1]["reason"] == "Ana beats Ben: both 6, 2 scored cards to 1."
    rows = ww.final_ranking([entry(0, [0]), entry(1, [])], 1)
    assert rows[1]["reason"] == "Ana beats Ben: both 0, 1 scored card to 0."


def finished(state: dict) -> dict:
    for _ in range(3):
        state = act(play_round(state, [5, 1]), "next_round")
    return act(play_round(state, [5, 1], value=4), "finish")


def test_the_verdict_gives_the_tie_break_that_decided_the_game():
    state = act(finished(new_game(2)), "add_card", player=1, value=19, phoenix=True)
    view = ww.view(state, 0)
    assert view["verdict"] == {
        "winner": "Ben", "score": 19, "headline": "Ben wins with 19 points.",
        "why": "Ben beats Ana: both 19, Ben holds the Golden Phoenix.", "ties": []}
    assert ww.outcome(state)["summary"] == ("Ben wins with 19 points. "
                                            "Ben beats Ana: both 19, Ben holds the Golden Phoenix.")


def test_the_verdict_without_a_tie_gives_the_lead_and_says_one_point():
    state = act(finished(new_game(2)), "set_adjustment", player=0, amount=-18)
    view = ww.view(state, 1)
    assert view["verdict"]["headline"] == "Ana wins with 1 point."
    assert view["verdict"]["why"] == "1 point ahead of Ben (0)."
    assert ww.view(finished(new_game(2)), 0)["verdict"]["why"] == "19 points ahead of Ben (0)."
    assert ww.view(new_game(2), 0)["verdict"] is None  # only once the game is over


def test_the_view_explains_the_round_ties_and_who_still_owes_a_total():
    state = to_scoring(new_game(4, first=0))
    state = act(state, "enter_total", player=2, total=9)
    assert ww.view(state, 0)["missing_totals"] == [0, 1, 3]
    for seat, total in ((0, 7), (1, 9), (3, 3)):
        state = act(state, "enter_total", player=seat, total=total)
    state = act(state, "settle_round")
    assert ww.view(state, 0)["round_ties"] == [
        "Ben and Cara both have 9; Ben is closer to the starting player Ana, so Ben ranks higher."]
    assert ww.view(new_game(4), 0)["round_ties"] == []


def test_each_phase_says_what_the_table_does():
    state = new_game(3, first=1)
    assert ww.view(state, 0)["phase_hint"] == "From Ben, in turn order: draw a card, then play a card."
    for phase in ("contest", "boost", "scoring", "cleanup"):
        state = act(state, "set_phase", phase=phase)
        assert ww.view(state, 0)["phase_hint"] and "Ben" not in ww.view(state, 0)["phase_hint"]


# ----------------------------------------------------------------- the Wandering phase's turns


def test_wandering_turns_go_from_the_starting_player_in_turn_order():
    """Rulebook: "Beginning with the starting player and following in turn order, each player
    draws a card from the deck and then plays a card." """
    state = new_game(4, first=2)
    view = ww.view(state, None)
    assert view["wandering_order"] == [2, 3, 0, 1]
    assert (view["wandering_seat"], view["wandering_turn"]) == (2, 0)
    assert view["steps"]["end_wandering_turn"] == 2
    for seat, following in ((2, "Dan"), (3, "Ana"), (0, "Ben")):
        state = act(state, "end_wandering_turn", seat=seat, player=seat)
        assert state["events"] == [f"{following}'s turn: draw a card, then play a card."]
        assert state["phase"] == "wandering"
    assert ww.view(state, 0)["wandering_seat"] == 1
    assert "Ben's turn" in ww.timer_cue(state)[1]
    state = act(state, "end_wandering_turn", seat=0, player=1)
    assert state["phase"] == "contest"
    assert state["events"][0] == "Everyone has drawn and played a card: the Wandering phase ends."
    assert ww.view(state, 0)["wandering_seat"] is None
    assert ww.view(state, 0)["steps"]["end_wandering_turn"] is None


def test_a_second_tap_ending_a_wandering_turn_is_refused_and_changes_nothing():
    """Rulebook: "Beginning with the starting player and following in turn order, each player
    draws a card from the deck and then plays a card": one tap ends one player's turn."""
    state = act(new_game(3), "end_wandering_turn", player=0)
    assert refused(state, "end_wandering_turn", player=0) == (
        "That was for Ana's turn, which is already over; it is now round 1, the Wandering phase, "
        "Ben's turn to draw and play.")
    assert "Cara's turn, which has not come yet" in refused(state, "end_wandering_turn", player=2)
    state = act(act(state, "end_wandering_turn", player=1), "end_wandering_turn", player=2)
    # The last turn moved the table on: a second tap for it cannot end the Contest phase.
    assert refused(state, "end_wandering_turn", player=2) == (
        "That was for Cara's turn, which is already over; it is now round 1, the Contest phase.")


def test_whose_wandering_turn_it_is_can_be_corrected_and_each_round_starts_afresh():
    """Rulebook: "The player sitting to the left of the winner of the current round becomes the
    starting player for the next round. Then the next round starts." and, in the Wandering
    phase, "Beginning with the starting player and following in turn order ..." """
    state = act(new_game(3), "set_wandering_turn", player=2)
    assert ww.view(state, None)["wandering_seat"] == 2 and state["wandering_turn"] == 2
    assert state["events"] == ["Corrected: it is Cara's turn to draw and play a card."]
    assert "already Cara's turn" in refused(state, "set_wandering_turn", player=2)
    state = act(state, "set_wandering_turn", player=0)
    state = act(state, "end_wandering_turn", player=0)
    state = act(state, "set_phase", phase="contest")
    assert "Wandering phase" in refused(state, "set_wandering_turn", player=0)
    state = act(play_round(state, [1, 9, 1]), "next_round")
    # Ben won, so Cara starts round 2 and draws and plays first.
    view = ww.view(state, None)
    assert view["wandering_order"] == [2, 0, 1] and view["wandering_seat"] == 2
    assert view["wandering_turn"] == 0


def test_next_phase_still_leaves_the_wandering_phase_before_every_turn_is_tapped():
    """The phones assist, the cards rule: a table that plays the Wandering phase without
    tapping each turn moves on with one tap."""
    state = act(new_game(3), "next_phase", phase="wandering")
    assert state["phase"] == "contest"
    assert "already over" in refused(state, "end_wandering_turn", player=0)


def test_a_table_saved_before_wandering_turns_were_tracked_still_plays():
    state = new_game(2)
    del state["wandering_turn"]
    assert ww.view(state, 0)["wandering_seat"] == 0
    assert act(state, "end_wandering_turn", player=0)["wandering_turn"] == 1


# ----------------------------------------------------------------- each round's Boost phase


def test_boosts_and_passes_start_afresh_in_the_next_rounds_boost_phase():
    """Rulebook: "Each round consists of 5 phases, the Wandering Phase, the Contest Phase, the
    Boost Phase, ..." and "In each Boost round, players play one card face down as a boost or
    pass, in which case they cannot play any further boosts in the following Boost rounds":
    a pass lasts for that round's Boost phase, and the boosts played are that round's."""
    state = act(new_game(3), "set_phase", phase="boost")
    state = act(act(act(state, "boost", player=0), "boost", player=1), "pass_boost", player=2)
    state = act(state, "next_boost_round")
    state = act(act(state, "boost", player=0), "pass_boost", player=1)
    assert state["boosts"] == [2, 1, 0] and state["passed"] == [False, True, True]
    state = act(play_round(state, [9, 1, 1]), "next_round")
    assert state["round"] == 2
    state = act(state, "set_phase", phase="boost")
    view = ww.view(state, 0)
    assert view["boosts"] == [0, 0, 0] and view["passed"] == [False, False, False]
    assert view["boost_round"] == 1 and view["waiting_for_boosts"] == [0, 1, 2]
    # Ana boosted twice in round 1 and Cara passed: both play again in round 2.
    state = act(state, "boost", player=0)
    state = act(state, "boost", player=2)
    assert state["boosts"] == [1, 0, 1]
    assert "Waiting for Ben to boost or pass." in state["events"]


# ----------------------------------------------------------------- the Golden Phoenix moved


def test_the_phoenix_is_marked_and_unmarked_on_added_and_corrected_cards_and_tie_break_1_follows():
    """Rulebook: "Ties for highest score are broken in the favor of the player that has 1. the
    Golden Phoenix," and, even with two decks, "Remove one Golden Phoenix card from those decks":
    one Phoenix, one holder at most."""
    state = finished(new_game(2))  # Ana 19 points, Ben 0
    state = act(state, "add_card", player=1, value=19, phoenix=True)
    assert state["events"] == ["Ben holds the Golden Phoenix now: it breaks a tie for the same "
                               "score first."]
    assert ww.view(state, 0)["verdict"]["winner"] == "Ben"
    reason = refused(state, "edit_card", player=0, index=0, value=5, phoenix=True)
    assert reason == ("Ben already holds the Golden Phoenix: there is only one in the game. To "
                      "move it, first unmark or remove it in Ben's scored cards.")
    assert "Ben already holds" in refused(state, "add_card", player=0, value=0, phoenix=True)
    # A card effect moves the Phoenix to Ana: unmark Ben's card, mark Ana's.
    state = act(state, "edit_card", player=1, index=0, value=19, phoenix=False)
    assert state["events"] == ["Nobody holds the Golden Phoenix now."]
    assert ww.view(state, 0)["phoenix_holder"] is None
    assert ww.view(state, 0)["verdict"]["why"] == "Ana beats Ben: both 19, 4 scored cards to 1."
    state = act(state, "edit_card", player=0, index=3, value=4, phoenix=True)
    view = ww.view(state, 1)
    assert view["phoenix_holder"] == 0 and view["boards"][0]["cards"][3]["phoenix"] is True
    assert view["verdict"]["why"] == "Ana beats Ben: both 19, Ana holds the Golden Phoenix."
    # Correcting a card without touching the mark elsewhere says nothing of the Phoenix.
    assert act(state, "edit_card", player=1, index=0, value=18)["events"] == []
    state = act(state, "remove_card", player=0, index=3)
    assert state["events"] == ["Nobody holds the Golden Phoenix now."]


# ----------------------------------------------------------------- the view holds the screen's facts


def test_the_view_holds_every_fact_the_screen_shows():
    """Rulebook, Wandering phase: "Only effects from Spells are executed immediately. Otherwise,
    a played card is discarded with no effect." """
    state = new_game(8)
    view = ww.view(state, 0)
    assert view["setup_notes"] == ww.setup_notes(8) and view["phase_label"] == "Wandering"
    assert view["wandering_rule"] == ("Only a Spell's effect happens now; any other card is "
                                      "discarded with no effect.")
    state = act(state, "set_phase", phase="boost")
    assert ww.view(state, 0)["boosted_this_round"] == []
    state = act(act(state, "boost", player=2), "pass_boost", player=5)
    view = ww.view(state, 0)
    assert view["boosted_this_round"] == [2] and view["phase_label"] == "Boost"
    assert ww.view(act(state, "set_phase", phase="scoring"), 0)["boosted_this_round"] == []
    assert ww.view(finished(new_game(2)), 0)["phase_label"] == "Game over"


def test_a_corrected_card_is_named_in_the_log_as_the_screen_numbers_it():
    """The correction panel numbers scored cards from 1; the log line names the same card."""
    params = {"player": 1, "index": 0, "value": 6, "name": "", "phoenix": False}
    assert ww.describe("edit_card", params, 0, NAMES[:3]).startswith("Ana changed Ben's scored card 1 to")
    assert ww.describe("remove_card", {"player": 1, "index": 2}, 1, NAMES[:3]) == (
        "Ben removed their own scored card 3")


# ----------------------------------------------------------------- exact results and log lines
# Each test below pins one result or state change exactly (the ranking, who scores, the step
# reached, the refusal, the log line), so that a slip in the rules module cannot pass unseen
# (mutmut, configured in setup.cfg, checks that).


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
    assert set(state) == set(new_game(2))  # the state keeps its keys, none added
    assert state["events"][-1] == ("This is the last round: once the creatures are scored, "
                                   "apply end-of-game effects and end the game.")
    state = act(state, "score_creature", player=1, value=2)
    assert state["events"][-1] == ("Every creature is scored: apply end-of-game effects, then "
                                   "end the game.")
    assert ww.step_values(state)["next_round"] is None


# ----------------------------------------------------------------- final ranking and its reasons


def test_every_tied_player_gets_the_tie_break_that_put_them_below_the_one_above():
    """Rulebook: "Ties for highest score are broken in the favor of the player that has [...]
    2. the most scored cards, 3. the highest card value on a scored card, 4. the most cards with
    the highest card value" """
    ranking = ww.final_ranking([entry(0, [5, 5]), entry(1, [10]), entry(2, [4, 6]),
                                entry(3, [3, 3, 4]), entry(4, [1], adjustment=2)], 2)
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
    ranking = ww.final_ranking([entry(0, [5, 5, 2]), entry(1, [5, 4, 3]), entry(2, [5, 1, 6])], 0)
    assert [row["reason"] for row in ranking] == [
        "12 points, tied with Ana and Ben; the tie-breaks put Cara first.",
        "Cara beats Ana: both 12 with 3 scored cards, highest card 6 to 5.",
        "Ana beats Ben: both 12 with 3 scored cards and highest card 5, 2 cards of 5 to 1."]
    ranking = ww.final_ranking([entry(0, [5, 5]), entry(1, [6, 4]), entry(2, [5, 5])], 1)
    assert [row["seat"] for row in ranking] == [1, 2, 0]
    assert ranking[2]["reason"] == (
        "Cara beats Ana: both 10 with 2 scored cards, highest card 5 (2 of them); Cara sits "
        "earlier in turn order from the starting player Ben.")
    ranking = ww.final_ranking([entry(0, [5]), entry(1, [5])], 1)
    assert ranking[1]["reason"] == (
        "Ben beats Ana: both 5 with 1 scored card, highest card 5 (1 of them); Ben is the "
        "starting player, first in turn order.")


def test_players_without_cards_or_names_rank_by_score_then_turn_order():
    """Rulebook: "5. or as a last resort: In game order, starting with the starting player." """
    ranking = ww.final_ranking([entry(0, []), nameless(entry(1, [])),
                                entry(2, [2], adjustment=-2)], 1)
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


def test_setup_starts_round_one_in_the_wandering_phase_with_every_field_empty():
    """Rulebook: "Each player draws 5 cards into their hand. The player who looks most like a
    hedgehog becomes the starting player for the first round." """
    state = ww.setup(NAMES[:3], {"first_player": 2})
    assert state == {
        "rules_version": 1, "players": NAMES[:3], "scorers_7_plus": 3, "round": 1,
        "phase": "wandering", "starting_player": 2, "wandering_turn": 0, "boost_round": 1,
        "passed": [False] * 3, "boosts": [0] * 3, "totals": [None] * 3, "settled": False,
        "round_result": [], "scorers": [], "round_winner": None, "next_starting_player": None,
        "creatures_logged": [], "boards": [{"cards": [], "adjustment": 0} for _ in range(3)],
        "round_scores": [],
        "events": ["Round 1: Cara is the starting player. Wandering phase: Cara draws a card, "
                   "then plays a card; then the next player in turn order."]}


@pytest.mark.parametrize("players, options, reason", [
    (2, {"first_player": 2}, "The first starting player must be one of the seats."),
    (2, {"first_player": -1}, "The first starting player must be one of the seats."),
    (2, {"first_player": True}, "The first starting player must be one of the seats."),
    (2, {"first_player": "0"}, "The first starting player must be one of the seats."),
    (8, {"first_player": 0, "scorers_7_plus": 7}, "Scorers per round with 7-12 players: choose 1 to 6."),
    (8, {"first_player": 0, "scorers_7_plus": 0}, "Scorers per round with 7-12 players: choose 1 to 6."),
    (8, {"first_player": 0, "scorers_7_plus": True},
     "Scorers per round with 7-12 players: choose 1 to 6."),
    (8, {"first_player": 0, "scorers_7_plus": "3"},
     "Scorers per round with 7-12 players: choose 1 to 6."),
    (1, {"first_player": 0}, "Woodland Wizards is for 2 to 12 players; 1 given."),
])
def test_setup_refuses_options_it_cannot_play_with(players, options, reason):
    with pytest.raises(Rejected) as info:
        ww.setup(NAMES[:players], options)
    assert info.value.reason == reason


def test_setup_takes_the_edge_values_of_its_options():
    assert ww.setup(NAMES[:8], {"first_player": 7, "scorers_7_plus": 6})["scorers_7_plus"] == 6
    assert ww.setup(NAMES[:8], {"first_player": 0, "scorers_7_plus": 1})["starting_player"] == 0


def test_an_action_from_a_seat_not_at_the_table_or_after_the_end_is_refused():
    state = new_game(3)
    for seat in (3, -1, True, None):
        with pytest.raises(Rejected) as info:
            ww.apply(state, "next_phase", {"phase": "wandering"}, seat)
        assert info.value.reason == "That seat is not at this table."
    assert refused(finished(new_game(2)), "settle_round") == "The game is over."


def test_each_step_action_names_the_step_under_way_and_none_outside_it():
    state = new_game(3)
    assert ww.step_values(state) == {"next_phase": "wandering", "end_wandering_turn": 0,
                                     "boost": None, "pass_boost": None, "next_boost_round": None,
                                     "next_round": 2}
    state = act(state, "set_phase", phase="boost")
    assert ww.step_values(state) == {"next_phase": "boost", "end_wandering_turn": None,
                                     "boost": 1, "pass_boost": 1, "next_boost_round": 1,
                                     "next_round": 2}
    assert ww.step_values(finished(new_game(2))) == dict.fromkeys(ww.step_values(state))


def test_a_step_gone_by_or_not_yet_come_is_refused_saying_where_the_table_is():
    state = act(new_game(3), "set_phase", phase="boost")
    assert refused(state, "next_phase", phase="contest") == (
        "That was for the Contest phase, which is already over; it is now round 1, the Boost "
        "phase, Boost round 1.")
    assert refused(state, "next_phase", phase="scoring") == (
        "That is for the Scoring phase, which has not come yet; it is now round 1, the Boost "
        "phase, Boost round 1.")
    assert refused(state, "boost", player=0, boost_round=2) == (
        "That is for Boost round 2, which has not come yet; it is now round 1, the Boost phase, "
        "Boost round 1.")
    state = new_game(3)
    assert refused(state, "end_wandering_turn", player=1) == (
        "That is for Ben's turn, which has not come yet; it is now round 1, the Wandering phase, "
        "Ana's turn to draw and play.")
    state = act(state, "end_wandering_turn", player=0)
    assert refused(state, "end_wandering_turn", player=0) == (
        "That was for Ana's turn, which is already over; it is now round 1, the Wandering "
        "phase, Ben's turn to draw and play.")
    assert refused(act(state, "set_phase", phase="contest"), "set_phase", phase="contest") == (
        "It is already the Contest phase.")


def test_the_last_round_refuses_a_clean_up_and_a_next_round():
    """Rulebook: "Clean-up phase (not applicable in the last game round)" """
    state = new_game(2)
    for _ in range(3):
        state = act(play_round(state, [5, 1]), "next_round")
    assert refused(state, "set_phase", phase="cleanup") == (
        "There is no Clean-up phase in the last round: finish the game instead.")
    assert refused(state, "next_round", round=4) == (
        "That was for starting round 4, which is already done; it is now round 4, the Wandering "
        "phase, Ben's turn to draw and play.")


def test_totals_and_the_ranking_belong_to_the_scoring_phase_and_happen_once():
    """Rulebook, Scoring phase: "Each player adds up the point value of the Contest Creature and
    each Boost card in front of them" """
    state = new_game(3)
    assert refused(state, "settle_round") == "The round is ranked in the Scoring phase."
    assert refused(state, "enter_total", player=0, total=1) == (
        "Round totals are entered in the Scoring phase.")
    assert refused(state, "score_creature", player=0, value=1) == (
        "Rank the round first: then the scorers add their Contest Creature.")
    assert refused(state, "next_round") == "Rank the round first."
    assert refused(state, "finish") == "The game ends after round 4; this is round 1."
    state = act(act(state, "set_phase", phase="scoring"), "enter_total", player=0, total=3)
    assert refused(state, "enter_total", player=0, total=1) == (
        "Ana's total is already entered; correct it instead.")
    assert refused(state, "settle_round") == "Missing totals: Ben and Cara."
    state = settle_with(new_game(2), [1, 2])
    assert refused(state, "settle_round") == "The round is already settled."
    assert refused(state, "enter_total", player=0, total=1) == "The round is already settled."


@pytest.mark.parametrize("phase, events", [
    ("contest", ["Contest phase: everyone plays a Contest Creature face down; reveal them "
                 "together."]),
    ("boost", ["Boost phase, Boost round 1: boost or pass."]),
    ("scoring", ["Scoring phase: enter each player's round total."]),
    ("cleanup", ["Clean-up phase: discard the cards in play except scored cards, then start the "
                 "next round."]),
])
def test_each_phase_entered_says_what_the_table_does(phase, events):
    assert act(new_game(3), "set_phase", phase=phase)["events"] == events


def test_going_back_to_the_wandering_phase_says_whose_turn_it_is():
    state = act(act(new_game(3, first=1), "set_phase", phase="contest"), "set_phase",
                phase="wandering")
    assert state["events"] == [
        "Wandering phase: from Ben in turn order, each player draws a card and plays a card.",
        "Now: Ben's turn to draw and play."]
    assert ww.wandering_seat(state) == 1


def test_the_view_of_a_settled_round_holds_every_computed_field():
    """Rulebook: "In a game with four or five players, the player with the second-highest point
    total also scores their Contest Creature." and "The winner of the game is the player with
    the highest point value total of their scored cards." """
    state = settle_with(new_game(4, first=1), [6, 9, 6, 2])
    state = act(state, "score_creature", player=1, value=7, name="Owl")
    state = act(state, "set_adjustment", player=0, amount=-2)
    view = ww.view(state, 2)
    owl = {"value": 7, "name": "Owl", "phoenix": False}
    final = [{"seat": 1, "name": "Ben", "score": 7, "place": 1, "reason": "7 points."},
             {"seat": 2, "name": "Cara", "score": 0, "place": 2,
              "reason": "0 points, tied with Dan; the tie-breaks put Cara first."},
             {"seat": 3, "name": "Dan", "score": 0, "place": 3,
              "reason": "Cara beats Dan: both 0, no scored cards each; Cara sits earlier in turn "
                        "order from the starting player Ben."},
             {"seat": 0, "name": "Ana", "score": -2, "place": 4, "reason": "-2 points."}]
    assert view == {
        "game": "woodland-wizards", "seat": 2, "players": NAMES[:4], "round": 1, "rounds": 4,
        "phase": "scoring", "phase_label": "Scoring",
        "phases": [{"name": name, "label": label, "current": name == "scoring", "applicable": True}
                   for name, label in (("wandering", "Wandering"), ("contest", "Contest"),
                                       ("boost", "Boost"), ("scoring", "Scoring"),
                                       ("cleanup", "Clean-up"))],
        "starting_player": 1, "next_starting_player": 2,
        "wandering_order": [1, 2, 3, 0], "wandering_turn": 0, "wandering_seat": None,
        "wandering_rule": ww.WANDERING_RULE,
        "boost_round": 1, "boost_rounds": 3, "passed": [False] * 4, "boosts": [0] * 4,
        "waiting_for_boosts": [], "boosted_this_round": [],
        "totals": [6, 9, 6, 2], "missing_totals": [],
        "phase_hint": "Enter each player's round total.",
        "settled": True,
        "round_ranking": [{"seat": 1, "total": 9, "place": 1, "scorer": True, "name": "Ben"},
                          {"seat": 2, "total": 6, "place": 2, "scorer": True, "name": "Cara"},
                          {"seat": 0, "total": 6, "place": 3, "scorer": False, "name": "Ana"},
                          {"seat": 3, "total": 2, "place": 4, "scorer": False, "name": "Dan"}],
        "round_ties": ["Cara and Ana both have 6; Cara is closer to the starting player Ben, so "
                       "Cara ranks higher."],
        "scorers": [1, 2], "scorer_count": 2, "scorer_positions": "2 scorers",
        "round_winner": 1, "pending_creatures": [2],
        "boards": [{"seat": 0, "name": "Ana", "cards": [], "card_count": 0, "card_sum": 0,
                    "adjustment": -2, "score": -2},
                   {"seat": 1, "name": "Ben", "cards": [owl], "card_count": 1, "card_sum": 7,
                    "adjustment": 0, "score": 7},
                   {"seat": 2, "name": "Cara", "cards": [], "card_count": 0, "card_sum": 0,
                    "adjustment": 0, "score": 0},
                   {"seat": 3, "name": "Dan", "cards": [], "card_count": 0, "card_sum": 0,
                    "adjustment": 0, "score": 0}],
        "phoenix_holder": None, "game_over": False, "final": final, "ranking": final,
        "verdict": None, "final_is_preview": True, "two_decks": False,
        "setup_notes": ww.setup_notes(4), "steps": ww.step_values(state),
        "events": state["events"]}
    for seat in (True, 4, -1, None):
        assert ww.view(state, seat)["seat"] is None


def test_the_view_of_a_boost_round_says_who_played_and_who_is_still_awaited():
    """Rulebook: "Once everyone has played a Boost or passed, turn all cards face up at the
    same time." """
    state = act(new_game(7, first=6), "set_phase", phase="boost")
    state = act(act(act(state, "boost", player=0), "pass_boost", player=1), "boost", player=3)
    view = ww.view(state, 0)
    assert (view["waiting_for_boosts"], view["boosted_this_round"]) == ([2, 4, 5, 6], [0, 3])
    assert view["two_decks"] is True and view["scorer_positions"] == "3 scorers"
    assert view["phase_hint"] == "Each player still in plays one boost face down, or passes."
    assert view["wandering_order"] == [6, 0, 1, 2, 3, 4, 5]
    state = act(state, "set_phase", phase="scoring")
    state = act(state, "enter_total", player=2, total=3)
    assert ww.view(state, 0)["missing_totals"] == [0, 1, 3, 4, 5, 6]


def test_the_view_of_round_four_and_of_the_end():
    """Rulebook: "Clean-up phase (not applicable in the last game round)" """
    state = new_game(2)
    for _ in range(3):
        state = act(play_round(state, [5, 1]), "next_round")
    assert [phase["applicable"] for phase in ww.view(state, 0)["phases"]] == [True] * 4 + [False]
    view = ww.view(finished(new_game(2)), 1)
    assert (view["game_over"], view["final_is_preview"]) == (True, False)
    assert view["verdict"] == {"winner": "Ana", "score": 19, "headline": "Ana wins with 19 points.",
                               "why": "19 points ahead of Ben (0).", "ties": []}
    assert [phase["current"] for phase in view["phases"]] == [False] * 5


def test_a_table_saved_before_round_scores_were_kept_still_starts_the_next_round():
    state = log_creatures(settle_with(new_game(2), [5, 1]), value=3)
    del state["round_scores"]
    state = act(state, "next_round")
    assert state["round_scores"] == [[3, 0]]


@pytest.mark.parametrize("phase, hint", [
    ("wandering", "From Ben, in turn order: draw a card, then play a card."),
    ("contest", "Everyone plays a Contest Creature face down; reveal them together."),
    ("boost", "Each player still in plays one boost face down, or passes."),
    ("scoring", "Enter each player's round total."),
    ("cleanup", "Discard the cards in play except scored cards, then start the next round."),
    ("over", "The game is over."),
])
def test_the_screen_hint_of_each_phase(phase, hint):
    """Rulebook, Contest phase: "All players play a card face down in front of them as their
    Contest Creature. The cards are turned face up at the same time." """
    state = dict(new_game(3, first=1), phase=phase)
    assert ww.view(state, 0)["phase_hint"] == hint
    assert ww.view(state, 0)["seat"] == 0


def test_six_players_always_have_three_scorers_whatever_the_seven_plus_option():
    """Rulebook: "In a game with 6 players, the player in third place also scores their Contest
    Creature." The scorers option is for 7-12 players only."""
    assert [ww.scorer_count(6, option) for option in (1, 3, 6)] == [3, 3, 3]
    assert ww.scorer_count(7, 5) == 5
    view = ww.view(new_game(8, scorers_7_plus=5), 0)
    assert (view["scorer_count"], view["scorer_positions"]) == (5, "5 scorers")


def test_a_round_cannot_be_ranked_without_every_total():
    with pytest.raises(ValueError, match="^every total is needed$"):
        ww.round_ranking([4, None, 2], 0, 1)


def test_ties_in_a_round_are_explained_from_the_starting_player():
    """Rulebook: "In case of equal scores, the player sitting closest to the starting player in
    turn order is the winner." """
    state = settle_with(new_game(2), [3, 3])
    assert state["events"][1] == ("Ana and Ben both have 3; Ana is the starting player, so Ana "
                                  "ranks higher.")
    state = settle_with(new_game(3), [4, 4, 4])
    assert state["events"][1] == ("Ana, Ben and Cara all have 4; the closer to the starting "
                                  "player Ana in turn order, the higher: Ana, Ben, Cara.")


def test_apply_checks_raw_params_itself_and_takes_none_for_no_params():
    state = act(new_game(3), "set_phase", phase="boost")
    with pytest.raises(Rejected):
        ww.apply(state, "boost", {"player": 3, "boost_round": 1}, 0)
    state = act(act(act(new_game(2), "set_phase", phase="scoring"), "enter_total", player=0,
                    total=1), "enter_total", player=1, total=2)
    assert ww.apply(state, "settle_round", None, 0)["round_winner"] == 1


def test_next_phase_from_an_unsettled_scoring_phase_says_what_to_do():
    state = act(new_game(2), "set_phase", phase="scoring")
    assert refused(state, "next_phase") == ("Settle the round first: enter every total, then "
                                            "rank the round.")


def test_the_view_counts_wandering_turns_and_an_old_table_starts_at_none_taken():
    state = act(new_game(3), "end_wandering_turn", player=0)
    assert (ww.view(state, 0)["wandering_turn"], ww.view(state, 0)["wandering_seat"]) == (1, 1)
    del state["wandering_turn"]
    assert (ww.view(state, 0)["wandering_turn"], ww.view(state, 0)["wandering_seat"]) == (0, 0)


@pytest.mark.parametrize("players, notes", [
    (3, ["Shuffle the deck.", "With 3 players, 1 scorer per round adds their Contest Creature to "
                              "their scored cards."]),
    (6, ["Shuffle the deck.", "With 6 players, 3 scorers per round add their Contest Creature to "
                              "their scored cards."]),
    (7, ["Take two decks, remove one Golden Phoenix and shuffle the rest together: there is still "
         "only one Golden Phoenix in the game.",
         "With 7 players the number of scorers per round is a setup option (3 unless changed)."]),
])
def test_setup_notes_for_one_deck_and_for_two(players, notes):
    """Rulebook, Set up: "Shuffle all the cards and place them as a face-down pile in the center
    of the table. [...] Turn over the top card and place it face-up next to the deck" and, for
    7-12 players, "you need two decks of Woodland Wizards. Remove one Golden Phoenix card" """
    deck, scorers = notes
    assert ww.setup_notes(players) == [
        deck, "Place the deck face down in the middle of the table.",
        "Turn over the top card next to it to start the discard pile.",
        "Deal 5 cards to each player.", scorers,
        "Play 4 rounds; play goes clockwise from the starting player."]
    with pytest.raises(Rejected, match="^Woodland Wizards is for 2 to 12 players; 13 given.$"):
        ww.setup_notes(13)


def test_a_tie_down_to_eleven_cards_of_the_highest_value_gives_the_count_in_digits():
    ranking = ww.final_ranking([entry(0, [5] * 11), entry(1, [5] * 11)], 0)
    assert ranking[1]["reason"] == (
        "Ana beats Ben: both 55 with 11 scored cards, highest card 5 (11 of them); Ana is the "
        "starting player, first in turn order.")


def test_the_log_line_of_a_malformed_logged_action_still_reads_well():
    assert ww.describe("boost", None, 0, NAMES[:3]) == "Ana logged a boost for Someone"
    assert ww.describe("set_phase", {"phase": "nope"}, 0, NAMES[:3]) == "Ana moved to another phase"


def test_every_tie_break_is_explained_in_the_verdict_and_the_summary_not_just_the_first():
    """Ruling: "Always show which step decided each place, for every tied group, not just
    first place." Ana and Ben tie on 10 (Ana holds the Golden Phoenix), Cara and Dan on 7
    (Cara has more scored cards), Eve alone on 2."""
    rows = ww.final_ranking([entry(0, [10], phoenix_at=0), entry(1, [6, 4]), entry(2, [3, 2, 2]),
                             entry(3, [7]), entry(4, [2])], 0)
    assert places(rows) == [0, 1, 2, 3, 4]
    result = ww.verdict(rows)
    assert result["why"] == "Ana beats Ben: both 10, Ana holds the Golden Phoenix."
    assert result["ties"] == ["Cara beats Dan: both 7, 3 scored cards to 1."]
    # A group of four tied is explained place by place, each step by the one that decided it.
    rows = ww.final_ranking([entry(0, [9]), entry(1, [5]), entry(2, [3, 2]), entry(3, [4, 1]),
                             entry(4, [5])], 2)
    assert places(rows) == [0, 3, 2, 4, 1]
    assert ww.verdict(rows)["why"] == "4 points ahead of Dan (5)."
    assert ww.verdict(rows)["ties"] == [
        "Dan beats Cara: both 5 with 2 scored cards, highest card 4 to 3.",
        "Cara beats Eve: both 5, 2 scored cards to 1.",
        "Eve beats Ben: both 5 with 1 scored card, highest card 5 (1 of them); Eve sits earlier "
        "in turn order from the starting player Cara."]


def test_the_result_sentence_holds_every_tie_break():
    state = new_game(3)
    for _ in range(3):
        state = act(play_round(state, [5, 1, 0]), "next_round")
    state = act(play_round(state, [5, 1, 0], value=4), "finish")
    # Ana 19 alone; Ben and Cara both 3, Ben with the Golden Phoenix.
    state = act(state, "add_card", player=1, value=3, phoenix=True)
    state = act(state, "add_card", player=2, value=3)
    summary = ww.outcome(state)["summary"]
    assert summary == ("Ana wins with 19 points. 16 points ahead of Ben (3). "
                       "Ben beats Cara: both 3, Ben holds the Golden Phoenix.")
    assert ww.view(state, 0)["verdict"]["ties"] == [
        "Ben beats Cara: both 3, Ben holds the Golden Phoenix."]
