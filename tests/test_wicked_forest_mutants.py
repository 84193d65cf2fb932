"""The Wicked Forest's rules, pinned down where a small slip in the code would go unnoticed.

Each test checks one rule or one computed field exactly: the whole refusal, the whole log of
a step, every field of a view, so that a changed number, comparison or message shows.
"""

from __future__ import annotations

import random

import pytest

from companion.games import wicked_forest as wf
from companion.games.base import Rejected

from .test_wicked_forest_rules import (NAMES, act, end_round_quickly, everyone, final_tally,
                                       in_preparation, new_game, next_round, pick, play_round,
                                       refused, reveal)


# ----------------------------------------------------------------- options and setup


def test_a_table_outside_two_to_five_players_is_refused_by_name():
    for count in (1, 6):
        players = NAMES[:count] + ["Fay"] * (count > 5)
        for make in (lambda: wf.prepare_options({}, players, random.Random(0)),
                     lambda: wf.setup(players, {"first_leader": 0})):
            with pytest.raises(Rejected) as info:
                make()
            assert info.value.reason == f"The Wicked Forest is for 2 to 5 players; {count} given."


def test_a_first_leader_that_is_not_a_seat_is_refused_with_the_seats_to_choose_from():
    with pytest.raises(Rejected) as info:
        wf.prepare_options({"first_leader": "3"}, NAMES[:3], random.Random(0))
    assert info.value.reason == ("First leader: there is no seat 3; choose random or a seat number "
                                 "from 0 to 2.")
    for leader in (3, -1, True, "0", None):
        with pytest.raises(Rejected) as info:
            wf.setup(NAMES[:3], {"first_leader": leader})
        assert info.value.reason == "The first leader must be one of the seats."


def test_setup_starts_round_one_with_every_seat_in_the_forest():
    """Rulebook: "Lay out 9 Exploration Cards face down ... the rest form the draw pile"."""
    state = wf.setup(NAMES[:4], {"first_leader": 3, "inventory": True})
    assert state == {
        "rules_version": wf.RULES_VERSION, "players": NAMES[:4], "inventory": True, "round": 1,
        "leader": 3, "phase": "reveal", "final_round": False, "final_round_number": None,
        "cards": [], "decision": 0, "in_forest": [0, 1, 2, 3], "eliminated": [], "returns": [],
        "picks": [None] * 4, "history": [], "crystallization_order": [], "crystallizing": [], "draw": 21, "discard": 0,
        "run_outs": 0,
        "boards": [{"magic": 0, "forest_tiles": 0, "items": [], "flowers_by_round": [0], "bag": 0,
                    "storehouse": 0, "bag_capacity": 6, "final_flowers": None}] * 4,
        "prepared": [], "ended_early": False, "round_scores": [],
        "events": ["Round 1: Dan leads. Everyone is in the forest."]}
    assert wf.setup(NAMES[:2], {"first_leader": 0})["inventory"] is False


def test_apply_never_adds_or_drops_a_key_of_the_state():
    """The state is the saved record of a table: every step keeps its shape."""
    state = new_game(3, inventory=True)
    keys, board_keys = set(state), set(state["boards"][0])
    steps = []
    state = act(state, "crystallize", 0, player=0, item="cultivation", color="red", magic=1)
    steps.append(state)
    state = act(state, "crystallize", 0, player=1, item="expansion", magic=2)
    steps.append(state)
    state = act(reveal(state, 2, witch=True), "correct_card", 0, flowers=1, witch=False)
    steps.append(state)
    state = pick(state, {0: "return", 1: "stay", 2: "stay"})
    steps.append(state)
    state = everyone(reveal(state, 1, witch=True), "stay")
    state = reveal(state, 0, witch=True)
    steps.append(state)
    state = act(state, "set_run_outs", 0, count=2)
    steps.append(state)
    state = act(state, "next_round")
    steps.append(state)
    state = act(act(state, "set_inventory", 0, player=0, bag=3, storehouse=1), "store", 0, player=0)
    steps.append(state)
    state = act(act(state, "done_preparing", 0, player=0), "start_exploration", 1)
    steps.append(state)
    state = everyone(reveal(state, 1), "stay")
    state = act(state, "set_draw_pile", 0, count=4)
    steps.append(state)
    state = pick(reveal(state, 0, witch=True), {0: "return", 1: "stay", 2: "stay"})
    state = reveal(state, 0, witch=True)
    steps.append(state)
    state = act(act(state, "set_final_flowers", 0, player=1, count=1), "confirm_tally")
    steps.append(state)
    assert state["phase"] == "over"
    for step in steps:
        assert set(step) == keys
        assert all(set(board) == board_keys for board in step["boards"])
        assert step["picks"] == [None] * 3 or step["phase"] == "choose"


def test_timer_cue_names_the_card_waiting_for_stay_or_return():
    state = new_game(2)
    assert wf.timer_cue(state) is None
    state = reveal(everyone(reveal(state, 1), "stay"), 2)
    assert wf.timer_cue(state) == ("1:2", "Stay or Return? Round 1, card 2")
    assert wf.timer_cue(everyone(state, "return")) is None


# ----------------------------------------------------------------- Preparation Phase


def test_done_preparing_outside_the_preparation_phase_says_when_it_comes():
    """Rulebook: "This phase does not occur in the first round of the game."""
    assert refused(new_game(2), "done_preparing", 0, player=0) == (
        "Preparing happens in the Preparation Phase, which round 1 does not have: it comes at "
        "the start of round 2.")
    state = next_round(end_round_quickly(new_game(2)))
    assert refused(state, "done_preparing", 0, player=0) == (
        "Preparing happens in the Preparation Phase, before the first card of a round: round 2's "
        "Exploration has started.")


def test_the_last_player_done_preparing_starts_exploration():
    state = in_preparation(new_game(2))
    state = act(state, "done_preparing", 0, player=1)
    assert state["events"] == ["Ben is done preparing. Waiting for Ana."]
    assert refused(state, "done_preparing", 0, player=1) == "Ben is already done preparing."
    state = act(state, "done_preparing", 1, player=0)
    assert state["events"] == ["Everyone is done preparing.", "Exploration: Ben reveals the first card."]
    assert (state["phase"], state["prepared"]) == ("reveal", [])


# ----------------------------------------------------------------- corrections and the end


def test_a_corrected_card_is_logged_with_what_it_now_shows():
    state = act(reveal(new_game(2), 1), "correct_card", 1, flowers=3, witch=True)
    assert state["events"] == ["Card 1 corrected: 3 Flowers, Witch."]
    assert state["cards"] == [{"flowers": 3, "witch": True}] and state["phase"] == "choose"
    assert refused(everyone(state, "return"), "correct_card", 0, flowers=1, witch=False) == (
        "Only a card still waiting for choices can be corrected.")


def test_ending_early_is_refused_while_exploration_goes_on():
    for state in (new_game(2), reveal(new_game(2), 1), in_preparation(new_game(2))):
        assert refused(state, "finish") == (
            "The game can be ended only between rounds, once Exploration is over.")


def test_inventory_actions_are_refused_when_flowers_stay_on_the_real_board():
    state = in_preparation(new_game(2))
    for action, params in (("store", {"player": 0}), ("set_inventory", {"player": 0, "bag": 1,
                                                                       "storehouse": 0})):
        assert refused(state, action, 0, **params) == (
            "Inventory mode is off at this table: keep Flowers on the real board.")


# ----------------------------------------------------------------- secrets


def test_only_a_real_seat_has_a_secret_pick():
    state = pick(reveal(new_game(3), 1), {1: "stay", 2: "return"})
    assert [wf.secret_open(state, seat) for seat in range(3)] == [False, True, True]
    # Not seats: a bool is not seat 1, -1 is not the last seat, 3 is past the end.
    for not_a_seat in (True, False, -1, 3, "1", None):
        assert wf.secret_open(state, not_a_seat) is False


# ----------------------------------------------------------------- log lines


@pytest.mark.parametrize("action, params, seat, line", [
    ("reveal", {"flowers": 0, "witch": False}, 1, "Ben revealed a card: 0 Flowers"),
    ("correct_card", {"flowers": 1, "witch": True}, 0, "Ana corrected the last card: 1 Flower, Witch"),
    ("correct_card", {"flowers": 2, "witch": False}, 0,
     "Ana corrected the last card: 2 Flowers, no Witch"),
    ("crystallize", {"player": 0, "item": "expansion", "color": "red", "magic": 2, "spent": 1,
                     "from_storehouse": 1}, 0,
     "Ana crystallized an Expansion tile: 2 Magic, 1 Flower spent (1 from the Storehouse)"),
    ("crystallize", {"player": 0, "item": "card", "color": "none", "magic": 5, "spent": 4,
                     "from_storehouse": 0}, 0,
     "Ana crystallized a Magic Crystal Card: 5 Magic, 4 Flowers spent"),
    ("crystallize", {"player": 2, "item": "cultivation", "color": "yellow", "magic": 0, "spent": 2,
                     "from_storehouse": 2}, 1,
     "Ben logged for Cara: a yellow Cultivation tile, 0 Magic, 2 Flowers spent "
     "(2 from the Storehouse)"),
    ("crystallize", {"player": 0, "item": "orb", "magic": 1, "spent": 0}, 0,
     "Ana crystallized an item: 1 Magic, 0 Flowers spent"),
    ("store", {"player": 1}, 1, "Ben stored a Flower"),
    ("store", {"player": 1}, 0, "Ana stored a Flower for Ben"),
    ("set_inventory", {"player": 0, "bag": 4, "storehouse": 2}, 0,
     "Ana set their own Bag to 4 and Storehouse to 2"),
    ("set_inventory", {"player": 1, "bag": 3, "storehouse": 1}, 0,
     "Ana set Ben's Bag to 3 and Storehouse to 1"),
    ("next_round", {"round": 2}, 0, "Ana started the next round"),
    ("set_draw_pile", {"count": 1}, 0, "Ana set the draw pile to 1 card"),
    ("set_draw_pile", {"count": 12}, 0, "Ana set the draw pile to 12 cards"),
    ("set_run_outs", {"count": 2}, 1, "Ben set the draw pile run-outs to 2"),
    ("set_forest_magic", {"player": 1, "count": 3}, 0, "Ana set Ben's Forest Magic Tiles to 3"),
    ("set_magic", {"player": 0, "magic": 17}, 0, "Ana set their own Magic to 17"),
    ("set_final_flowers", {"player": 2, "count": 4}, 1, "Ben set Cara's Flowers left to 4"),
    ("done_crystallizing", {"player": 1}, 1, "Ben is done crystallizing"),
    ("done_crystallizing", {"player": 2}, 0, "Ana: Cara is done crystallizing"),
    ("done_preparing", {"player": 0}, 0, "Ana is done preparing"),
    ("done_preparing", {"player": 2}, 0, "Ana: Cara is done preparing"),
    ("start_exploration", {"round": 2}, 1, "Ben started Exploration"),
    ("finish", {}, 2, "Cara ended the game early"),
    ("confirm_tally", {}, 0, "Ana confirmed the final tally"),
    ("choose", "not a dict", 0, "Ana has chosen"),
    ("set_magic", "not a dict", 0, "Ana set Someone's Magic to 0"),
    ("dance", {}, 1, "Ben: dance"),
])
def test_log_lines_say_exactly_what_was_done(action, params, seat, line):
    assert wf.describe(action, params, seat, NAMES[:3]) == line


def test_a_log_line_for_an_action_without_its_own_wording_uses_its_label(monkeypatch):
    # Every action today has its own wording; one added later falls back to its label.
    monkeypatch.setitem(wf.ACTIONS, "wave", wf.ActionSpec("wave", (), label="Wave to the table"))
    assert wf.describe("wave", {}, 0, NAMES[:2]) == "Ana: Wave to the table"


# ----------------------------------------------------------------- what each step tells the table


def test_each_returner_is_asked_to_crystallize_in_order_until_done():
    """Rulebook: "A player who chose Return, after gaining Flowers of Defilement, performs
    Crystallization ... in clockwise order starting from the player closest to the leader
    player." Each returner stays asked until they say they are done; eliminated players are
    never asked."""
    state = pick(reveal(new_game(4, leader=2), 3), {0: "return", 1: "stay", 2: "stay", 3: "return"})
    assert state["crystallizing"] == [3, 0]
    # Logging a card keeps the player asked: they may take more than one.
    state = act(state, "crystallize", 3, player=3, item="card", magic=4, spent=2)
    assert state["crystallizing"] == [3, 0]
    state = act(state, "done_crystallizing", 1, player=3)
    assert state["crystallizing"] == [0] and state["events"] == []
    assert refused(state, "done_crystallizing", 0, player=3) == "Dan has no Crystallization waiting."
    # A later returner joins the end of the queue; the second Witch asks nobody.
    state = pick(reveal(state, 1), {1: "return", 2: "stay"})
    assert state["crystallizing"] == [0, 1]
    state = reveal(pick(reveal(state, 0, witch=True), {2: "stay"}), 0, witch=True)
    assert state["eliminated"] == [2] and state["crystallizing"] == [0, 1]
    # A new round asks nobody from the last.
    state = next_round(state)
    assert state["crystallizing"] == []


def test_the_final_tally_waits_for_no_one_but_lets_returners_say_they_are_done():
    state = final_tally(3)
    assert state["crystallizing"] == [0, 1, 2]
    state = act(state, "done_crystallizing", 2, player=1)
    assert state["crystallizing"] == [0, 2]
    assert wf.view(state, None)["crystallizing"] == [0, 2]


def test_a_state_saved_before_returners_were_asked_reads_as_nobody_asked():
    state = pick(reveal(new_game(2), 1), {0: "stay", 1: "stay"})
    del state["crystallizing"]
    assert wf.view(state, 0)["crystallizing"] == []
    assert refused(state, "done_crystallizing", 0, player=0) == "Ana has no Crystallization waiting."
    state = pick(reveal(state, 2), {0: "return", 1: "stay"})
    assert state["crystallizing"] == [0]


def test_a_lone_returner_then_the_last_card_tell_the_table_what_happens():
    """Rulebook: "All players who remained in the forest without meeting the Witch twice, when
    all Exploration Cards in the forest had been revealed" gain a Forest Magic Tile."""
    state = pick(reveal(new_game(2), 1), {0: "return", 1: "stay"})
    assert state["events"] == ["Reveal 1: Ana returns, Ben stays.", "Ana gains 1 Flower.",
                               "Ana reveals the next card."]
    for _ in range(2, 9):
        state = everyone(reveal(state, 0), "stay")
    state = reveal(state, 1)
    assert state["events"] == [
        "All 9 forest cards are revealed: Ben returns safely.", "Ben gains 2 Flowers.",
        "Ben gains a Forest Magic Tile (3 Magic).",
        "Exploration is over for this round. Finish Crystallization, then start the next round."]
    assert state["returns"] == [{"seat": 0, "reveal": 1, "flowers": 1, "forest_tile": False},
                                {"seat": 1, "reveal": 9, "flowers": 2, "forest_tile": True}]


def test_each_card_and_each_pick_tell_who_is_still_to_choose():
    state = reveal(new_game(3, leader=2), 2)
    assert state["events"] == ["Card 1: Ana, Ben and Cara, choose Stay or Return."]
    state = pick(state, {1: "stay"})
    assert state["events"] == ["Ben has chosen. Waiting for Ana and Cara."]
    state = pick(state, {0: "return", 2: "stay"})
    assert state["events"] == ["Reveal 1: Ana returns, Ben and Cara stay.", "Ana gains 2 Flowers.",
                               "Cara reveals the next card."]
    state = pick(reveal(state, 0), {1: "return", 2: "return"})
    assert state["events"] == [
        "Reveal 2: Ben and Cara return.", "2 Flowers shared by 2: Ben and Cara gain 1 Flower each.",
        "Crystallization order: Cara, Ben.", "Ben and Cara each gain a Forest Magic Tile (3 Magic).",
        "Exploration is over for this round. Finish Crystallization, then start the next round."]
    assert [entry["forest_tile"] for entry in state["returns"]] == [False, True, True]


def test_a_draw_pile_set_to_empty_is_refilled_from_the_discard_as_a_run_out():
    """Rulebook: "If the draw pile runs out, shuffle the discard pile well to make a new
    Exploration Card draw pile". Ruling: "A reshuffle of the discard pile while refilling
    counts as a run-out however the draw pile reached 0 (played out, or corrected to 0)"."""
    state = act(act(end_round_quickly(new_game(2)), "set_draw_pile", 0, count=0), "next_round")
    assert (state["draw"], state["discard"], state["run_outs"]) == (21, 0, 1)
    assert state["events"] == [
        "Draw pile ran out (1st time): discard shuffled into a new draw pile.",
        "Round 2: Ben leads. Everyone is back in the forest.",
        "Preparation: store Flowers if you wish (pay 1 from the Bag, move 1 to the Storehouse), "
        "then tap Done."]


def test_a_new_round_clears_the_last_rounds_exploration():
    state = pick(reveal(new_game(3), 2, witch=True), {0: "return", 1: "stay", 2: "stay"})
    state = reveal(state, 1, witch=True)
    assert (state["eliminated"], state["crystallization_order"]) == ([1, 2], [0])
    state = act(state, "next_round")
    assert {key: state[key] for key in ("cards", "decision", "in_forest", "eliminated", "returns",
                                        "picks", "history", "crystallization_order", "prepared")} == {
        "cards": [], "decision": 0, "in_forest": [0, 1, 2], "eliminated": [], "returns": [],
        "picks": [None] * 3, "history": [], "crystallization_order": [], "prepared": []}
    assert [board["flowers_by_round"] for board in state["boards"]] == [[2, 0], [0, 0], [0, 0]]
    assert state["round_scores"] == [[0, 0, 0]]


def test_preparation_without_inventory_reminds_each_player_of_their_cultivation_flowers():
    """Rulebook: "Each player who owns a Cultivation Crystal Tile gains one Flower of Defilement
    of the color shown on each such tile." -- on the real board when the app keeps no Bag."""
    state = act(new_game(3), "crystallize", 0, player=0, item="cultivation", color="red", magic=0)
    for color in ("red", "blue"):
        state = act(state, "crystallize", 0, player=2, item="cultivation", color=color, magic=0)
    state = act(end_round_quickly(state), "next_round")
    assert state["events"] == [
        "Round 2: Ben leads. Everyone is back in the forest.",
        "Preparation: Ana gains 1 Flower per Cultivation tile (1), as far as the Bag has room.",
        "Preparation: Cara gains 1 Flower per Cultivation tile (2), as far as the Bag has room.",
        "Preparation: store Flowers if you wish (pay 1 from the Bag, move 1 to the Storehouse), "
        "then tap Done."]
    assert [board["bag"] for board in state["boards"]] == [0, 0, 0]


def test_preparation_in_inventory_mode_fills_each_bag_in_turn():
    """Rulebook: "A player cannot gain Flowers of Defilement that cannot be placed in their Bag."
    """
    state = new_game(3, inventory=True)
    for seat in (0, 2):
        state = act(state, "crystallize", 0, player=seat, item="cultivation", color="red", magic=0)
        state = act(state, "crystallize", 0, player=seat, item="cultivation", color="blue", magic=0)
    state = act(state, "set_inventory", 0, player=0, bag=6, storehouse=0)
    state = act(state, "set_inventory", 0, player=2, bag=4, storehouse=0)
    state = act(end_round_quickly(state), "next_round")
    assert [board["bag"] for board in state["boards"]] == [6, 0, 6]
    assert state["events"][1:3] == [
        "Preparation: Ana gains 0 Flowers from Cultivation tiles (2 more would not fit in the Bag).",
        "Preparation: Cara gains 2 Flowers from Cultivation tiles."]


def test_an_expansion_in_inventory_mode_says_the_bag_now_holds_ten():
    """Rulebook: "the number of Flowers of Defilement that can be placed increases to 10"."""
    state = act(new_game(2, inventory=True), "crystallize", 0, player=1, item="expansion",
                color="green", magic=0)
    assert state["events"] == ["Ben's Bag now holds up to 10 Flowers."]
    assert state["boards"][1]["items"] == [{"item": "expansion", "color": "none", "magic": 0,
                                            "spent": 0, "round": 1}]
    assert state["boards"][1]["bag_capacity"] == 10


def test_setting_the_run_outs_says_which_round_is_the_final_one():
    """Rulebook: "The next round after the Exploration Card draw pile runs out for the second
    time becomes the final round.\""""
    state = act(reveal(new_game(2), 1), "set_run_outs", 0, count=2)
    assert (state["events"], state["final_round_number"]) == (["Final round!"], 1)
    state = act(end_round_quickly(new_game(2)), "set_run_outs", 0, count=2)
    assert (state["events"], state["final_round_number"]) == (["The next round is the final round."], 2)
    state = act(state, "set_run_outs", 0, count=1)
    assert (state["events"], state["final_round_number"], state["final_round"]) == ([], None, False)
    state = act(act(state, "set_run_outs", 0, count=2), "next_round")
    assert state["events"][:2] == ["Round 2: Ben leads. Everyone is back in the forest.", "Final round!"]


# ----------------------------------------------------------------- the result


def two_round_game() -> dict:
    """Round 1: Ben returns early, the Witch catches Ana and Cara; round 2 is made the final
    one and everyone returns together on its first card. Cara has 4 Magic from round 1."""
    state = act(new_game(3), "set_magic", 0, player=2, magic=4)
    state = pick(reveal(state, 2, witch=True), {0: "stay", 1: "return", 2: "stay"})
    state = act(reveal(state, 1, witch=True), "next_round")
    state = act(act(state, "start_exploration", 1), "set_run_outs", 0, count=2)
    return everyone(reveal(state, 3), "return")


def test_the_outcome_gives_every_field_of_the_result():
    """Rulebook: "each player adds up the Magic ... and adds 3 Magic for each Forest Magic Tile
    acquired. The player with the most Magic wins.\""""
    state = act(two_round_game(), "confirm_tally")
    assert wf.outcome(state) == {
        "cooperative": False, "won": None, "level": None,
        "players": [{"seat": 0, "name": "Ana", "score": 3, "place": 2, "winner": False},
                    {"seat": 1, "name": "Ben", "score": 3, "place": 2, "winner": False},
                    {"seat": 2, "name": "Cara", "score": 7, "place": 1, "winner": True}],
        "rounds": 2, "score_by_round": [[0, 0, 4], [3, 3, 7]],
        "summary": "Cara wins with 7 Magic.", "ended_early": False}


def test_the_outcome_of_a_state_saved_before_round_scores_were_kept_has_the_final_tally_only():
    state = act(two_round_game(), "confirm_tally")
    del state["round_scores"]
    assert wf.outcome(state)["score_by_round"] == [[3, 3, 7]]


def test_a_game_ended_early_with_a_shared_lead_names_each_leader():
    state = act(end_round_quickly(new_game(2)), "finish")  # both returned together: a tile each
    assert state["events"] == [
        "Ended early after round 1: no winner is named, as the rulebook names one only after the "
        "final round. Ana and Ben led with 3 Magic each."]


# ----------------------------------------------------------------- the view


def board_view(seat, name, status, **fields) -> dict:
    """One board of a view: an empty board in inventory mode unless `fields` say otherwise."""
    board = {"seat": seat, "name": name, "magic": 0, "forest_tiles": 0, "score": 0, "items": [],
             "cultivation": [], "exchange": [], "expansion": False, "flowers_by_round": [0],
             "flowers_this_round": 0, "bag": 0, "storehouse": 0, "bag_capacity": 6,
             "final_flowers": None, "flowers_left": 0, "status": status}
    board.update(fields)
    return board


def test_the_view_while_players_choose_shows_every_computed_field():
    state = new_game(3, leader=1, inventory=True)
    state = act(state, "crystallize", 0, player=0, item="cultivation", color="red", magic=1)
    state = act(state, "crystallize", 0, player=2, item="expansion", color="blue", magic=2)
    state = act(state, "set_forest_magic", 0, player=1, count=1)
    state = pick(reveal(state, 2, witch=True), {0: "return", 1: "stay", 2: "stay"})
    state = act(reveal(state, 3), "set_final_flowers", 0, player=1, count=4)
    state = pick(state, {2: "stay"})
    view = wf.view(state, 2)
    assert view == {
        "game": "wicked-forest", "seat": 2, "players": ["Ana", "Ben", "Cara"], "inventory": True,
        "round": 1, "leader": 1, "phase": "choose", "final_round": False, "game_over": False,
        "ended_early": False, "setup_notes": wf.setup_notes(3), "next_leader": 2, "prepared": [],
        "preparing": [], "lead_tied": False, "flowers_missing": [],
        "cards": [{"flowers": 2, "witch": True}, {"flowers": 3, "witch": False}],
        "flowers_on_display": 5, "witches": 1, "forest_face_down": 7, "in_forest": [1, 2],
        "waiting": [1], "chosen": [2], "decision": 2, "my_choice": "stay",
        "returns": [{"seat": 0, "reveal": 1, "flowers": 2, "forest_tile": False, "name": "Ana"}],
        "eliminated": [],
        "history": [{"reveal": 1, "flowers_on_display": 2, "choices": ["return", "stay", "stay"]}],
        "crystallization_order": [0], "crystallizing": [0], "draw": 21, "discard": 0, "run_outs": 0,
        "boards": [
            board_view(0, "Ana", "returned", magic=1, score=1, cultivation=["red"],
                       items=[{"item": "cultivation", "color": "red", "magic": 1, "spent": 0,
                               "round": 1}],
                       flowers_by_round=[2], flowers_this_round=2, bag=2, flowers_left=2),
            board_view(1, "Ben", "in_forest", forest_tiles=1, score=3, final_flowers=4,
                       flowers_left=4),
            board_view(2, "Cara", "in_forest", magic=2, score=2, expansion=True, bag_capacity=10,
                       items=[{"item": "expansion", "color": "none", "magic": 2, "spent": 0,
                               "round": 1}]),
        ],
        "steps": {"reveal": None, "next_round": 2, "start_exploration": None},
        "events": ["Cara has chosen. Waiting for Ben."],
        "standings": [
            {"seat": 1, "name": "Ben", "magic": 0, "forest_tiles": 1, "score": 3, "flowers": 4,
             "place": 1},
            {"seat": 2, "name": "Cara", "magic": 2, "forest_tiles": 0, "score": 2, "flowers": 0,
             "place": 2},
            {"seat": 0, "name": "Ana", "magic": 1, "forest_tiles": 0, "score": 1, "flowers": 2,
             "place": 3}],
        "winners": [], "decided_by": None}
    # Someone who is not a seat sees no pick and is no seat.
    for outsider in (None, 3, -1, True):
        seen = wf.view(state, outsider)
        assert (seen["seat"], seen["my_choice"]) == (None, None)


def test_the_view_between_rounds_shows_no_pick_and_no_tracked_bag():
    state = pick(reveal(new_game(3), 2, witch=True), {0: "return", 1: "stay", 2: "stay"})
    state = act(state, "crystallize", 0, player=0, item="exchange", color="green", magic=0)
    state = reveal(state, 1, witch=True)
    view = wf.view(state, 1)
    assert {key: view[key] for key in ("phase", "waiting", "chosen", "decision", "my_choice",
                                       "preparing", "prepared", "flowers_missing")} == {
        "phase": "end", "waiting": [], "chosen": [], "decision": None, "my_choice": None,
        "preparing": [], "prepared": [], "flowers_missing": []}
    assert [(board["status"], board["bag"], board["storehouse"], board["bag_capacity"],
             board["exchange"], board["flowers_left"]) for board in view["boards"]] == [
        ("returned", None, None, None, ["green"], 0), ("eliminated", None, None, None, [], 0),
        ("eliminated", None, None, None, [], 0)]


def test_the_view_in_the_preparation_phase_says_who_is_still_preparing():
    state = act(in_preparation(new_game(3)), "done_preparing", 2, player=2)
    view = wf.view(state, 0)
    assert (view["phase"], view["prepared"], view["preparing"]) == ("prepare", [2], [0, 1])
    # Everyone is back in the forest, but nobody is asked to choose yet.
    assert (view["in_forest"], view["waiting"], view["chosen"]) == ([0, 1, 2], [], [])
    assert view["steps"] == {"reveal": None, "next_round": 3, "start_exploration": 2}


# ----------------------------------------------------------------- refusals say why


def test_exploration_steps_after_the_round_is_over_are_refused_with_the_reason():
    state = end_round_quickly(new_game(2))
    assert refused(state, "reveal", 0, card=2, flowers=1) == (
        "Exploration is over for this round: start the next round first.")
    assert refused(state, "choose", 0, choice="stay", decision=1) == (
        "Exploration is over for this round: there is nothing to choose.")
    assert refused(reveal(new_game(2), 1), "next_round") == (
        "Exploration is still going on: finish this round's exploration first.")
    assert refused(new_game(2), "confirm_tally") == (
        "The final tally comes after the final round's Exploration.")
    with pytest.raises(Rejected) as info:
        wf.apply(state, "finish", {}, 2)
    assert info.value.reason == "That seat is not at this table."


def test_choosing_or_revealing_out_of_step_is_refused_with_the_reason():
    assert refused(in_preparation(new_game(2)), "choose", 0, choice="stay", decision=1) == (
        "Exploration has not started yet: wait for the first card.")
    assert refused(new_game(2), "choose", 0, choice="stay", decision=1) == (
        "Wait for the next card to be revealed before choosing.")
    assert refused(reveal(new_game(2), 1), "reveal", 0, card=2, flowers=1) == (
        "Everyone in the forest must choose Stay or Return before the next card.")


def test_a_returned_player_choosing_again_is_told_so():
    state = pick(reveal(new_game(3), 1), {0: "return", 1: "stay", 2: "stay"})
    assert refused(reveal(state, 0), "choose", 0, choice="stay", decision=2) == (
        "You have already returned from the forest this round.")


def test_a_payment_from_the_storehouse_beyond_the_price_is_refused_with_the_numbers():
    """Rulebook: "Flowers of Defilement in the Storehouse can be used for Crystallization in the
    same way as those in the Bag." -- but never more than the price paid."""
    state = act(new_game(2, inventory=True), "set_inventory", 0, player=0, bag=2, storehouse=5)
    assert refused(state, "crystallize", 0, player=0, item="card", magic=1, spent=1,
                   from_storehouse=2) == "Only 1 Flower is paid: 2 cannot come from the Storehouse."
    assert refused(state, "crystallize", 0, player=0, item="card", magic=1, spent=3,
                   from_storehouse=4) == "Only 3 Flowers are paid: 4 cannot come from the Storehouse."
    state = act(new_game(2), "crystallize", 0, player=1, item="cultivation", color="red", magic=0)
    assert refused(state, "crystallize", 0, player=1, item="cultivation", color="red", magic=0) == (
        "Ben already holds a red Cultivation tile: only one from each stack.")


def test_starting_exploration_names_the_round_and_who_may_start_it():
    """Rulebook: "The leader player chooses one Exploration Card lying face down in the forest and
    turns it face up"."""
    state = in_preparation(new_game(2))
    assert refused(state, "start_exploration", 1, round=3) == (
        "That is for round 3's Preparation, which has not come yet; it is now round 2's "
        "Preparation Phase.")
    assert refused(state, "start_exploration", 0, round=2) == (
        "Ben, the leader, starts Exploration; the others tap Done.")
    state = act(end_round_quickly(act(state, "start_exploration", 1)), "next_round")
    assert refused(state, "start_exploration", 0, round=2) == (
        "That was for round 2's Preparation, which is already over; it is now round 3's "
        "Preparation Phase.")
    assert refused(act(state, "start_exploration", 0, round=3), "start_exploration", 0, round=3) == (
        "Starting Exploration happens in the Preparation Phase, before the first card of a round: "
        "round 3's Exploration has started.")


def test_sharing_needs_at_least_one_returner():
    with pytest.raises(ValueError, match="^at least one returner is needed$"):
        wf.share_flowers(3, 0)


def test_apply_checks_the_seat_and_the_parameters_itself():
    state = new_game(2)
    for not_a_seat in (2, -1, True, "0"):
        with pytest.raises(Rejected) as info:
            wf.apply(state, "set_magic", {"player": 0, "magic": 1}, not_a_seat)
        assert info.value.reason == "That seat is not at this table."
    with pytest.raises(Rejected, match="above the highest allowed, 1"):
        wf.apply(state, "set_magic", {"player": 2, "magic": 1}, 0)
    # No parameters at all is an action without any.
    assert wf.apply(end_round_quickly(state), "finish", None, 0)["phase"] == "over"


# ----------------------------------------------------------------- more of what the table is told


def test_several_left_at_the_last_card_return_together():
    """Rulebook: "All players who remained in the forest ... when all Exploration Cards in the
    forest had been revealed" gain a Forest Magic Tile."""
    state = new_game(2)
    for _ in range(1, 9):
        state = everyone(reveal(state, 0), "stay")
    state = reveal(state, 3)
    assert state["events"][:4] == [
        "All 9 forest cards are revealed: Ana and Ben return safely.",
        "3 Flowers shared by 2: Ana and Ben gain 1 Flower each (1 discarded).",
        "Crystallization order: Ana, Ben.",
        "Ana and Ben each gain a Forest Magic Tile (3 Magic)."]


def test_the_final_rounds_exploration_ends_in_the_tally():
    """Rulebook: "When the Exploration Phase of the final round ends, the game ends"."""
    assert two_round_game()["events"][-1] == (
        "The final round's Exploration is over: the game ends once the returners have crystallized "
        "and the players confirm the tally.")


def test_a_return_into_a_full_bag_sends_every_flower_back_and_one_that_fits_says_nothing():
    """Rulebook: "If a player gains Flowers that cannot be placed in the Bag, the player ...
    returns them to the Supply until the Bag holds no more than its capacity.\""""
    state = act(new_game(2, inventory=True), "set_inventory", 0, player=0, bag=6, storehouse=0)
    full = pick(reveal(state, 2), {0: "return", 1: "stay"})
    assert full["boards"][0]["bag"] == 6
    assert full["events"][2] == "Ana's Bag holds only 6: 2 Flowers go back to the Supply."
    state = act(state, "set_inventory", 0, player=0, bag=4, storehouse=0)
    fits = pick(reveal(state, 2), {0: "return", 1: "stay"})
    assert fits["boards"][0]["bag"] == 6
    assert fits["events"] == ["Reveal 1: Ana returns, Ben stays.", "Ana gains 2 Flowers.",
                              "Ana reveals the next card."]


def test_several_returning_with_one_staying_are_named_together():
    state = pick(reveal(new_game(4), 4), {0: "return", 1: "return", 2: "stay", 3: "stay"})
    assert state["events"][:2] == ["Reveal 1: Ana and Ben return, Cara and Dan stay.",
                                   "4 Flowers shared by 2: Ana and Ben gain 2 Flowers each."]


def test_a_state_saved_before_round_scores_were_kept_starts_keeping_them():
    state = end_round_quickly(new_game(2))
    del state["round_scores"]
    assert act(state, "next_round")["round_scores"] == [[3, 3]]


# ----------------------------------------------------------------- wording


def test_ordinals_and_setup_notes_read_right():
    assert [wf._ordinal(n) for n in (1, 2, 3, 4, 10, 11, 12, 13, 20, 21, 22, 23, 101, 111, 112, 211)] == [
        "1st", "2nd", "3rd", "4th", "10th", "11th", "12th", "13th", "20th", "21st", "22nd", "23rd",
        "101st", "111th", "112th", "211th"]
    assert wf.setup_notes(4) == [
        "Shuffle the 30 Exploration Cards face down as the draw pile.",
        "Lay 9 cards face down as the forest; 21 stay in the draw pile.",
        "Put the Flower tokens and the Forest Magic Tiles nearby as the Supply.",
        "Put tile 5 of each of the 9 Ability Crystal Tile stacks back in the box (9 tiles).",
        "Stack each kind of Ability Crystal Tile face up by color, tile 1 on top.",
        "Sort the Magic Crystal Cards by color, each stack with the smallest Magic on top.",
        "Each player takes a Villager pawn, the Player board of its color and a Summary Card.",
        "Give the Leader marker to the first leader."]
    assert wf.setup_notes(5)[3] == ("With 5 players every Ability Crystal Tile is used: none go back "
                                    "in the box.")
    with pytest.raises(Rejected, match="^The Wicked Forest is for 2 to 5 players; 6 given.$"):
        wf.tiles_to_box(6)
