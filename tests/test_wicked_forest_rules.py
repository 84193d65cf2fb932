"""Rules of The Wicked Forest: sharing, order, Witches, piles, secrets, scoring."""

from __future__ import annotations

import copy
import itertools
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games import wicked_forest as wf
from companion.games.base import Rejected, check_action

from .helpers import name_step

NAMES = ["Ana", "Ben", "Cara", "Dan", "Eve"]


# ----------------------------------------------------------------- helpers


def new_game(players: int = 3, leader: int = 0, inventory: bool = False) -> dict:
    return wf.setup(NAMES[:players], {"first_leader": leader, "inventory": inventory})


def act(state: dict, action: str, seat: int = 0, **params) -> dict:
    """Parse like the table layer does, then apply; the step is named as the phone does."""
    params = name_step(wf, state, action, params)
    _, parsed = check_action(wf.ACTIONS, action, params, len(state["players"]))
    return wf.apply(state, action, parsed, seat)


def refused(state: dict, action: str, seat: int = 0, **params) -> str:
    """Expect a refusal that leaves the state exactly as it was; return the reason."""
    before = copy.deepcopy(state)
    with pytest.raises(Rejected) as info:
        act(state, action, seat, **params)
    assert state == before
    return info.value.reason


def reveal(state: dict, flowers: int = 0, witch: bool = False) -> dict:
    return act(state, "reveal", state["leader"], flowers=flowers, witch=witch)


def pick(state: dict, choices: dict[int, str]) -> dict:
    """Let each listed seat pick for the current card."""
    for seat, choice in choices.items():
        state = act(state, "choose", seat, choice=choice, decision=state["decision"])
    return state


def everyone(state: dict, choice: str) -> dict:
    return pick(state, {seat: choice for seat in state["in_forest"]})


def play_round(state: dict, cards: int) -> dict:
    """Reveal `cards` plain cards; everyone stays until the last, then everyone returns."""
    for number in range(1, cards + 1):
        state = reveal(state, flowers=1)
        if state["phase"] == "choose":
            state = everyone(state, "return" if number == cards else "stay")
    assert state["phase"] in ("end", "tally")
    return state


def next_round(state: dict) -> dict:
    """Start the next round and let its leader end the Preparation Phase at once."""
    state = act(state, "next_round")
    return act(state, "start_exploration", state["leader"])


def end_round_quickly(state: dict) -> dict:
    state = reveal(state, flowers=0)
    return everyone(state, "return")


def gained_this_round(state: dict) -> list[int]:
    return [board["flowers_by_round"][-1] for board in state["boards"]]


# ----------------------------------------------------------------- options and setup


def test_prepare_options_settles_a_random_leader_with_the_given_rng():
    options = wf.prepare_options({}, NAMES[:4], random.Random(7))
    assert options == {"first_leader": random.Random(7).randrange(4), "inventory": False}


def test_prepare_options_accepts_a_seat_number_and_inventory_mode():
    options = wf.prepare_options({"first_leader": "2", "inventory": "on"}, NAMES[:3], random.Random(0))
    assert options == {"first_leader": 2, "inventory": True}


@pytest.mark.parametrize("raw", [{"first_leader": "3"}, {"first_leader": "Ana"}, {"first_leader": "-1"}])
def test_prepare_options_refuses_a_leader_that_is_not_a_seat(raw):
    with pytest.raises(Rejected, match="First leader"):
        wf.prepare_options(raw, NAMES[:3], random.Random(0))


@pytest.mark.parametrize("count", [1, 6])
def test_prepare_options_refuses_a_player_count_outside_two_to_five(count):
    players = [f"P{i}" for i in range(count)]
    with pytest.raises(Rejected, match="2 to 5 players"):
        wf.prepare_options({}, players, random.Random(0))


def test_setup_lays_nine_cards_and_leaves_twenty_one_in_the_draw_pile():
    state = new_game(4, leader=2)
    view = wf.view(state, None)
    assert (view["draw"], view["discard"], view["forest_face_down"], view["run_outs"]) == (21, 0, 9, 0)
    assert (view["round"], view["leader"], view["phase"], view["final_round"]) == (1, 2, "reveal", False)
    assert view["in_forest"] == [0, 1, 2, 3]
    assert json.loads(json.dumps(state)) == state


def test_setup_notes_name_the_tiles_that_go_back_in_the_box():
    assert ("Put tiles 4 and 5 of each of the 9 Ability Crystal Tile stacks back in the box (18 tiles)."
            in wf.setup_notes(3))
    assert "Put tiles 3, 4 and 5 of each of the 9 Ability Crystal Tile stacks back in the box (27 tiles)." \
        in wf.setup_notes(2)
    assert "Put tile 5 of each of the 9 Ability Crystal Tile stacks back in the box (9 tiles)." \
        in wf.setup_notes(4)
    five = wf.setup_notes(5)
    assert not any("back in the box (" in line for line in five)
    assert any("none go back" in line for line in five)
    assert "Lay 9 cards face down as the forest; 21 stay in the draw pile." in five


# ----------------------------------------------------------------- sharing Flowers


def test_rulebook_example_seven_flowers_shared_by_two_gives_three_each():
    assert wf.share_flowers(7, 2) == (3, 1)
    state = new_game(3)
    # red, red, white, blue, green, blue-and-red: 7 Flowers on 6 cards
    for number, flowers in enumerate((1, 1, 1, 1, 1, 2), start=1):
        state = reveal(state, flowers)
        if number < 6:
            state = everyone(state, "stay")
    state = pick(state, {0: "return", 1: "stay", 2: "return"})
    assert [(entry["seat"], entry["reveal"], entry["flowers"]) for entry in state["returns"]] == [
        (0, 6, 3), (2, 6, 3)]
    assert gained_this_round(state) == [3, 0, 3]
    assert "7 Flowers shared by 2: Ana and Cara gain 3 Flowers each (1 discarded)." in state["events"]
    assert state["phase"] == "reveal" and state["in_forest"] == [1]


def test_a_single_returner_gains_every_flower_on_display():
    assert wf.share_flowers(9, 1) == (9, 0)
    state = new_game(3)
    state = everyone(reveal(state, 2), "stay")
    state = pick(reveal(state, 3), {0: "stay", 1: "return", 2: "stay"})
    assert gained_this_round(state) == [0, 5, 0]
    assert "Ben gains 5 Flowers." in state["events"]


def test_fewer_flowers_than_returners_still_gives_one_each():
    assert wf.share_flowers(1, 3) == (1, 0)
    state = everyone(reveal(new_game(3), 1), "return")
    assert gained_this_round(state) == [1, 1, 1]


def test_no_flowers_and_one_returner_gains_nothing():
    assert wf.share_flowers(0, 1) == (0, 0)
    state = pick(reveal(new_game(2), 0), {0: "return", 1: "stay"})
    assert gained_this_round(state) == [0, 0]
    assert state["returns"] == [{"seat": 0, "reveal": 1, "flowers": 0, "forest_tile": False}]


def test_no_flowers_and_several_returners_gain_nothing_as_there_is_nothing_to_take():
    assert wf.share_flowers(0, 3) == (0, 0)
    state = everyone(reveal(new_game(3), 0), "return")
    assert gained_this_round(state) == [0, 0, 0]


# ----------------------------------------------------------------- Crystallization order


def test_crystallization_order_puts_the_leader_first_when_returning():
    assert wf.crystallization_order([0, 2, 3], leader=2, seat_count=4) == [2, 3, 0]


def test_crystallization_order_goes_clockwise_from_the_leaders_left():
    assert wf.crystallization_order([0, 2, 4], leader=3, seat_count=5) == [4, 0, 2]


def test_crystallization_order_is_announced_after_a_shared_return():
    state = reveal(new_game(5, leader=3), 4)
    state = pick(state, {0: "return", 1: "stay", 2: "return", 3: "stay", 4: "return"})
    assert state["crystallization_order"] == [4, 0, 2]
    assert [entry["seat"] for entry in state["returns"]] == [4, 0, 2]
    assert "Crystallization order: Eve, Ana, Cara." in state["events"]


# ----------------------------------------------------------------- Crystallization logging


def test_rulebook_crystallization_example_in_inventory_mode():
    state = new_game(2, inventory=True)
    # From earlier rounds: a red Cultivation tile and the Expansion that makes room for 10.
    state = act(state, "crystallize", 0, player=0, item="cultivation", color="red", magic=0)
    state = act(state, "crystallize", 0, player=0, item="expansion", magic=0)
    state = act(state, "set_inventory", 0, player=0, bag=10, storehouse=0)  # 8 red, 1 blue, 1 green
    state = act(state, "crystallize", 0, player=0, item="card", color="red", magic=3, spent=3)
    state = act(state, "crystallize", 0, player=0, item="card", color="red", magic=4, spent=4)
    state = act(state, "crystallize", 0, player=0, item="exchange", color="blue", magic=0, spent=1)
    state = act(state, "crystallize", 0, player=0, item="exchange", color="green", magic=0, spent=1)
    board = wf.view(state, 0)["boards"][0]
    assert (board["bag"], board["magic"], board["exchange"], board["cultivation"]) == (
        1, 7, ["green", "blue"], ["red"])
    reason = refused(state, "crystallize", 0, player=0, item="cultivation", color="red", magic=0, spent=1)
    assert "already holds a red Cultivation tile" in reason


def test_a_bag_of_ten_needs_the_expansion():
    state = new_game(2, inventory=True)
    assert "at most 6" in refused(state, "set_inventory", 0, player=0, bag=10, storehouse=0)


def test_one_tile_per_stack_and_one_expansion():
    state = act(new_game(2), "crystallize", 1, player=0, item="exchange", color="blue", magic=1)
    refused(state, "crystallize", 1, player=0, item="exchange", color="blue", magic=1)
    state = act(state, "crystallize", 1, player=0, item="exchange", color="red", magic=1)
    state = act(state, "crystallize", 1, player=1, item="exchange", color="blue", magic=1)
    state = act(state, "crystallize", 0, player=0, item="expansion", magic=2)
    assert "only one per player" in refused(state, "crystallize", 0, player=0, item="expansion", magic=2)
    assert [board["magic"] for board in state["boards"]] == [4, 1]


def test_a_colored_tile_needs_a_color():
    assert "has a color" in refused(new_game(2), "crystallize", 0, player=0, item="cultivation", magic=0)


def test_the_player_says_how_many_flowers_come_from_the_storehouse():
    """Rulebook: "Flowers of Defilement in the Storehouse can be used for Crystallization in the
    same way as those in the Bag." -- so the player picks, and the Bag is not emptied first."""
    state = act(new_game(2, inventory=True), "set_inventory", 0, player=1, bag=2, storehouse=3)
    # Paid wholly from the Storehouse, though the Bag has Flowers: the Bag keeps them.
    paid = act(state, "crystallize", 0, player=1, item="card", magic=3, spent=2, from_storehouse=2)
    assert (paid["boards"][1]["bag"], paid["boards"][1]["storehouse"]) == (2, 1)
    mixed = act(state, "crystallize", 0, player=1, item="card", magic=5, spent=4, from_storehouse=3)
    assert (mixed["boards"][1]["bag"], mixed["boards"][1]["storehouse"]) == (1, 0)
    # Unsaid, everything comes from the Bag.
    bag_only = act(state, "crystallize", 0, player=1, item="card", magic=1, spent=1)
    assert (bag_only["boards"][1]["bag"], bag_only["boards"][1]["storehouse"]) == (1, 3)


def test_a_payment_beyond_the_bag_or_the_storehouse_is_refused_and_changes_nothing():
    state = act(new_game(2, inventory=True), "set_inventory", 0, player=1, bag=2, storehouse=3)
    assert refused(state, "crystallize", 0, player=1, item="card", magic=5, spent=4) == (
        "Ben has 2 in the Bag and 3 in the Storehouse: 4 from the Bag and 0 from the Storehouse "
        "do not fit.")
    assert "do not fit" in refused(state, "crystallize", 0, player=1, item="card", magic=5, spent=4,
                                   from_storehouse=4)
    assert "cannot come from the Storehouse" in refused(state, "crystallize", 0, player=1, item="card",
                                                        magic=1, spent=1, from_storehouse=2)


# ----------------------------------------------------------------- inventory mode


def test_returned_flowers_beyond_the_bag_go_back_to_the_supply():
    state = reveal(new_game(2, inventory=True), 4)
    state = everyone(state, "stay")
    state = pick(reveal(state, 4), {0: "return", 1: "stay"})
    assert state["boards"][0]["bag"] == 6
    assert state["boards"][0]["flowers_by_round"][-1] == 8
    assert "Ana's Bag holds only 6: 2 Flowers go back to the Supply." in state["events"]


def test_preparation_gives_a_flower_per_cultivation_tile_from_round_two_within_the_bag():
    state = new_game(2, inventory=True)
    for color in ("red", "green", "blue"):
        state = act(state, "crystallize", 0, player=0, item="cultivation", color=color, magic=0)
    state = act(state, "set_inventory", 0, player=0, bag=4, storehouse=0)
    assert state["boards"][0]["bag"] == 4  # round 1 has no Preparation Phase
    state = act(end_round_quickly(state), "next_round")
    assert state["boards"][0]["bag"] == 6
    assert "Preparation: Ana gains 2 Flowers from Cultivation tiles (1 more would not fit in the Bag)." \
        in state["events"]


def in_preparation(state: dict) -> dict:
    """End round 1 quickly and start round 2, which opens with its Preparation Phase."""
    return act(end_round_quickly(state), "next_round")


def test_storing_pays_one_flower_and_stores_one():
    """Rulebook: "they may pay one Flower of Defilement from their Bag to the Supply, and then
    move one Flower of Defilement of the same color from their Bag to their Storehouse."
    """
    state = act(in_preparation(new_game(2, inventory=True)), "set_inventory", 0, player=1, bag=5,
                storehouse=4)
    state = act(state, "store", 0, player=1)
    assert (state["boards"][1]["bag"], state["boards"][1]["storehouse"]) == (3, 5)
    state = act(state, "store", 1, player=1)
    assert (state["boards"][1]["bag"], state["boards"][1]["storehouse"]) == (1, 6)
    assert refused(state, "store", 0, player=1) == (
        "Ben needs 2 Flowers in the Bag to store one: 1 to pay, 1 to store.")
    assert "Inventory mode is off" in refused(in_preparation(new_game(2)), "store", 0, player=1)


def test_round_one_has_no_preparation_so_no_storing():
    """Rulebook: "This phase does not occur in the first round of the game."
    """
    state = act(new_game(2, inventory=True), "set_inventory", 0, player=1, bag=3, storehouse=0)
    assert state["phase"] == "reveal"
    assert refused(state, "store", 0, player=1) == (
        "Storing happens in the Preparation Phase, which round 1 does not have: it comes at the "
        "start of round 2.")


def test_storing_in_the_middle_of_exploration_is_refused():
    """Rulebook: the Preparation Phase comes first ("Each round consists of three phases, played
    in order: the Exploration Preparation Phase, the Exploration Phase and the End Phase"), and
    storing is part of it."""
    state = act(in_preparation(new_game(2, inventory=True)), "set_inventory", 0, player=1, bag=3,
                storehouse=0)
    state = act(state, "start_exploration", 1)
    assert "round 2's Exploration has started" in refused(state, "store", 0, player=1)
    assert "round 2's Exploration has started" in refused(reveal(state, 1), "store", 0, player=1)
    state = everyone(reveal(state, 1), "return")
    assert state["phase"] == "end"
    assert "round 2's Exploration has started" in refused(state, "store", 0, player=1)


def test_preparation_comes_after_the_cultivation_gains_and_before_the_first_card():
    """Rulebook: "Each player who owns a Cultivation Crystal Tile gains one Flower ... After that,
    as many times as the player likes, they may pay one Flower ... This is called storing."
    """
    state = act(new_game(2, inventory=True), "crystallize", 0, player=0, item="cultivation",
                color="red", magic=0)
    state = act(state, "set_inventory", 0, player=0, bag=1, storehouse=0)
    state = in_preparation(state)
    assert (state["round"], state["phase"], state["boards"][0]["bag"]) == (2, "prepare", 2)
    # The Flower gained from Cultivation can be stored at once.
    state = act(state, "store", 0, player=0)
    assert (state["boards"][0]["bag"], state["boards"][0]["storehouse"]) == (0, 1)
    assert "Preparation Phase" in refused(state, "reveal", 1, card=1, flowers=1)
    assert "Exploration has not started" in refused(state, "choose", 0, choice="stay", decision=1)


def test_exploration_starts_once_everyone_is_done_preparing():
    state = in_preparation(new_game(3, inventory=True))
    state = act(state, "done_preparing", 0, player=0)
    assert state["phase"] == "prepare" and "Waiting for Ben and Cara" in state["events"][-1]
    assert "already done" in refused(state, "done_preparing", 1, player=0)
    # A phone passed around (or one player for another) marks a player done too.
    state = act(state, "done_preparing", 0, player=2)
    view = wf.view(state, None)
    assert (view["prepared"], view["preparing"]) == ([0, 2], [1])
    state = act(state, "done_preparing", 1, player=1)
    assert state["phase"] == "reveal" and wf.view(state, None)["prepared"] == []
    assert state["events"][-1] == "Exploration: Ben reveals the first card."


def test_the_leader_may_start_exploration_before_everyone_is_done():
    """Rulebook: "The leader player chooses one Exploration Card lying face down in the forest and
    turns it face up": the leader opens the Exploration Phase, so the leader moves the table on."""
    state = in_preparation(new_game(3))
    assert state["leader"] == 1
    assert "Ben, the leader, starts Exploration" in refused(state, "start_exploration", 0)
    state = act(state, "start_exploration", 1)
    assert state["phase"] == "reveal"
    # A second tap for the same round is refused and changes nothing.
    assert "Exploration has started" in refused(state, "start_exploration", 1, round=2)
    assert "has not come yet" in refused(state, "start_exploration", 1, round=3)


# ----------------------------------------------------------------- Witches and Forest Magic Tiles


def test_second_witch_eliminates_everyone_still_inside_and_they_gain_nothing():
    state = reveal(new_game(3), 2, witch=True)
    state = pick(state, {0: "return", 1: "stay", 2: "stay"})
    state = reveal(state, 3, witch=True)
    assert state["eliminated"] == [1, 2]
    assert state["in_forest"] == [] and state["phase"] == "end"
    assert gained_this_round(state) == [2, 0, 0]
    assert [board["forest_tiles"] for board in state["boards"]] == [0, 0, 0]
    assert "Second Witch! Ben and Cara are eliminated and gain nothing this round." in state["events"]


def test_event_lines_agree_with_one_name_or_several():
    # One player caught by the second Witch: the verbs agree with one name.
    state = reveal(new_game(2), 2, witch=True)
    state = pick(state, {0: "return", 1: "stay"})
    state = reveal(state, 3, witch=True)
    assert "Second Witch! Ben is eliminated and gains nothing this round." in state["events"]
    # One Flower shared by two: "1 Flower each", never "1 each" or "1 Flowers".
    state = pick(reveal(new_game(3), 1), {0: "return", 1: "return", 2: "stay"})
    assert "1 Flower shared by 2: Ana and Ben gain 1 Flower each (at least 1 each)." in state["events"]
    # Inventory mode: a single Flower beyond the Bag "goes" back.
    state = act(new_game(2, inventory=True), "set_inventory", 0, player=0, bag=5, storehouse=0)
    state = pick(reveal(state, 2), {0: "return", 1: "stay"})
    assert "Ana's Bag holds only 6: 1 Flower goes back to the Supply." in state["events"]


def test_a_single_witch_changes_nothing():
    state = reveal(new_game(2), 1, witch=True)
    assert state["phase"] == "choose" and state["eliminated"] == []


def test_ninth_card_returns_everyone_left_with_a_forest_magic_tile():
    state = pick(reveal(new_game(3), 1), {0: "return", 1: "stay", 2: "stay"})
    for _ in range(2, 9):
        state = everyone(reveal(state, 1), "stay")
    state = reveal(state, 2, witch=True)
    assert state["phase"] == "end" and state["in_forest"] == []
    assert gained_this_round(state) == [1, 5, 5]  # 10 Flowers shared by 2
    assert [board["forest_tiles"] for board in state["boards"]] == [0, 1, 1]
    assert [(entry["seat"], entry["reveal"]) for entry in state["returns"]] == [(0, 1), (1, 9), (2, 9)]
    assert refused(state, "reveal", 0, card=9, flowers=1) == (
        "That was for card 9, which is already revealed; round 1's exploration is over: "
        "start the next round.")


def test_the_last_one_out_gets_a_forest_magic_tile():
    state = pick(reveal(new_game(3), 1), {0: "return", 1: "stay", 2: "stay"})
    state = pick(reveal(state, 1), {1: "stay", 2: "return"})
    state = pick(reveal(state, 1), {1: "return"})
    assert [board["forest_tiles"] for board in state["boards"]] == [0, 1, 0]
    assert state["phase"] == "end"


def test_two_returning_together_when_the_forest_empties_both_get_a_tile():
    state = pick(reveal(new_game(3), 1), {0: "return", 1: "stay", 2: "stay"})
    state = everyone(reveal(state, 2), "return")
    assert [board["forest_tiles"] for board in state["boards"]] == [0, 1, 1]
    assert "Ben and Cara each gain a Forest Magic Tile (3 Magic)." in state["events"]


# ----------------------------------------------------------------- piles, run-outs, final round


def test_run_outs_make_the_round_after_the_second_one_final():
    state = new_game(2)
    expected = [  # cards revealed, then (draw, discard, run_outs, final_round) after the End Phase
        (9, (12, 9, 0, False)),
        (9, (3, 18, 0, False)),
        (5, (21, 0, 1, False)),  # ran out on the 3rd of 5 refills
        (9, (12, 9, 1, False)),
        (9, (3, 18, 1, False)),
        (4, (21, 0, 2, True)),
    ]
    for cards, piles in expected:
        assert not state["final_round"]
        state = act(play_round(state, cards), "next_round")
        assert (state["draw"], state["discard"], state["run_outs"], state["final_round"]) == piles
        events = state["events"]
        state = act(state, "start_exploration", state["leader"])
    assert state["round"] == 7 and "Final round!" in events
    assert wf.view(state, None)["final_round"] is True
    state = play_round(state, 3)
    assert state["phase"] == "tally"
    assert refused(state, "next_round") == ("The final round's Exploration is over: finish "
                                            "Crystallization, then confirm the final tally.")
    state = act(act(state, "set_magic", 0, player=0, magic=1), "confirm_tally")
    assert state["phase"] == "over"
    assert refused(state, "next_round") == "The game is over: undo the last move to change the tally."


def test_a_draw_pile_emptied_exactly_counts_as_a_run_out():
    state = new_game(2)
    for cards in (9, 9):
        state = next_round(play_round(state, cards))
    state = act(play_round(state, 3), "next_round")
    assert (state["draw"], state["discard"], state["run_outs"]) == (21, 0, 1)
    assert "Draw pile ran out (1st time): discard shuffled into a new draw pile." in state["events"]


def test_the_leader_passes_to_the_left_each_round():
    state = new_game(3, leader=2)
    state = act(end_round_quickly(state), "next_round")
    assert state["leader"] == 0 and state["round"] == 2
    assert state["in_forest"] == [0, 1, 2] and state["returns"] == [] and state["cards"] == []


def test_setting_run_outs_to_two_during_a_round_makes_it_the_final_round():
    state = act(reveal(new_game(2), 1), "set_run_outs", 0, count=2)
    assert state["final_round"]
    state = everyone(state, "return")
    assert state["phase"] == "tally"


def test_setting_run_outs_to_two_between_rounds_makes_the_next_round_final():
    state = act(end_round_quickly(new_game(2)), "set_run_outs", 0, count=2)
    assert not state["final_round"]
    state = act(state, "next_round")
    assert state["final_round"]
    state = act(state, "set_run_outs", 0, count=1)
    assert not state["final_round"]


def test_setting_the_draw_pile_keeps_the_piles_at_twenty_one():
    state = act(new_game(2), "set_draw_pile", 0, count=5)
    assert (state["draw"], state["discard"]) == (5, 16)


def test_finish_ends_the_game_only_between_rounds():
    state = new_game(2)
    refused(state, "finish")
    state = act(end_round_quickly(state), "finish")
    assert state["phase"] == "over"
    assert refused(state, "reveal", 0, card=1, flowers=1) == (
        "The game is over: undo the last move to change the tally.")


def test_a_game_ended_early_is_recorded_as_such_and_names_no_winner():
    """Rulebook: "The player who holds the highest total of Magic at the end of the game wins",
    and "When the Exploration Phase of the final round ends, the game ends": a game stopped
    before its final round has no winner by the rules, so none is named; who led is kept."""
    state = act(end_round_quickly(new_game(3)), "set_magic", 0, player=1, magic=9)
    state = act(next_round(state), "set_magic", 0, player=2, magic=4)
    state = act(end_round_quickly(state), "finish")
    summary = ("Ended early after round 2: no winner is named, as the rulebook names one only "
               "after the final round. Ben led with 15 Magic.")  # 9 + 2 Forest Magic Tiles
    assert state["ended_early"] and state["events"] == [summary]
    result = wf.outcome(state)
    assert result["ended_early"] is True and result["summary"] == summary
    assert [(p["place"], p["winner"]) for p in result["players"]] == [(3, False), (1, False), (2, False)]
    view = wf.view(state, None)
    assert (view["ended_early"], view["winners"], view["decided_by"]) == (True, [], summary)
    assert wf.describe("finish", {}, 0, NAMES[:3]) == "Ana ended the game early"


def test_a_game_played_to_the_end_is_not_marked_ended_early():
    state = act(final_tally(2), "set_magic", 0, player=1, magic=2)
    state = act(state, "confirm_tally")
    assert wf.outcome(state)["ended_early"] is False and not wf.view(state, None)["ended_early"]


# ----------------------------------------------------------------- choosing


def test_a_choice_for_an_earlier_card_is_refused():
    state = everyone(reveal(new_game(2), 1), "stay")
    state = reveal(state, 1)
    assert refused(state, "choose", 0, choice="return", decision=1) == "That choice was for an earlier card."


def test_a_choice_for_a_card_not_yet_revealed_is_refused():
    state = reveal(new_game(2), 1)
    assert "not been revealed" in refused(state, "choose", 0, choice="stay", decision=2)


def test_a_seat_out_of_the_forest_cannot_choose():
    state = pick(reveal(new_game(3), 1), {0: "return", 1: "stay", 2: "stay"})
    state = reveal(state, 1)
    assert "already returned" in refused(state, "choose", 0, choice="stay", decision=2)


def test_an_eliminated_seat_cannot_choose_until_next_round():
    state = everyone(reveal(new_game(2), 1, witch=True), "stay")
    state = reveal(state, 1, witch=True)
    assert state["phase"] == "end"
    refused(state, "choose", 1, choice="return", decision=2)


def test_choosing_before_a_card_is_revealed_is_refused():
    state = new_game(2)
    assert "Wait for the next card" in refused(state, "choose", 0, choice="stay", decision=0)
    assert "Wait for the next card" in refused(state, "choose", 0, choice="stay", decision=1)
    state = everyone(reveal(state, 1), "stay")
    assert refused(state, "choose", 0, choice="stay", decision=1) == "That choice was for an earlier card."


def test_other_actions_out_of_turn_are_refused_and_change_nothing():
    state = reveal(new_game(2), 1)
    refused(state, "reveal", 0, flowers=1)
    refused(state, "next_round")
    refused(state, "choose", 0, choice="maybe", decision=1)
    refused(state, "reveal", 0, flowers=5)
    with pytest.raises(Rejected):
        wf.apply(state, "choose", {"choice": "stay", "decision": 1}, 7)


def test_a_pick_can_be_changed_until_the_last_player_picks():
    state = reveal(new_game(2), 3)
    state = pick(state, {0: "return"})
    assert wf.secret_open(state, 0) and not wf.secret_open(state, 1)
    state = pick(state, {0: "stay"})
    assert wf.view(state, 0)["my_choice"] == "stay"
    state = pick(state, {1: "stay"})
    assert not wf.secret_open(state, 0)
    assert state["history"] == [{"reveal": 1, "flowers_on_display": 3, "choices": ["stay", "stay"]}]
    assert state["returns"] == []


def test_correcting_the_last_card_changes_what_is_shared():
    state = act(reveal(new_game(2), 1), "correct_card", 1, flowers=4, witch=False)
    state = pick(state, {0: "return", 1: "stay"})
    assert gained_this_round(state) == [4, 0]
    assert "can be corrected" in refused(state, "correct_card", 0, flowers=1, witch=False)


def test_a_correction_to_a_second_witch_eliminates_and_discards_picks_unseen():
    state = everyone(reveal(new_game(3), 1, witch=True), "stay")
    state = pick(reveal(state, 2), {0: "return", 1: "stay"})
    state = act(state, "correct_card", 2, flowers=2, witch=True)
    assert state["eliminated"] == [0, 1, 2] and state["phase"] == "end"
    assert not any(wf.secret_open(state, seat) for seat in range(3))
    assert len(state["history"]) == 1
    for viewer in (None, 0, 1, 2):
        assert '"return"' not in json.dumps(wf.view(state, viewer))


# ----------------------------------------------------------------- secrets


@pytest.mark.parametrize("viewer", [None, 0, 1, 2, 3])
def test_pending_picks_of_other_seats_never_show_in_a_view(viewer):
    base = reveal(new_game(4), 2)
    pickers = (0, 1, 2)  # seat 3 has not picked, so nothing resolves
    views: dict[str | None, set[str]] = {}
    for choices in itertools.product(("stay", "return"), repeat=len(pickers)):
        state = pick(base, dict(zip(pickers, choices)))
        own = dict(zip(pickers, choices)).get(viewer)
        seen = wf.view(state, viewer)
        assert seen["my_choice"] == own
        assert seen["chosen"] == [0, 1, 2] and seen["waiting"] == [3]
        views.setdefault(own, set()).add(json.dumps(seen, sort_keys=True))
    for own, serialised in views.items():
        assert len(serialised) == 1, f"others' picks leak into the view of seat {viewer}"
    if viewer in pickers:
        stay, back = (json.loads(next(iter(views[c]))) for c in ("stay", "return"))
        assert {key for key in stay if stay[key] != back[key]} == {"my_choice"}


def test_the_preparation_and_tally_steps_hold_no_pick_for_anyone_to_read():
    """The last card's picks are cleared when Exploration ends: in the Preparation Phase and the
    final tally no seat has a secret, and every seat reads the same view."""
    state = pick(reveal(new_game(3), 1), {0: "stay", 1: "return"})
    state = pick(state, {2: "return"})
    state = pick(reveal(state, 1), {0: "return"})
    for stage in (act(state, "next_round"), act(act(state, "set_run_outs", 0, count=2), "next_round")):
        if stage["final_round"]:
            stage = everyone(reveal(act(stage, "start_exploration", 1), 1), "return")
            assert stage["phase"] == "tally"
        else:
            assert stage["phase"] == "prepare"
        assert stage["picks"] == [None, None, None]
        assert not any(wf.secret_open(stage, seat) for seat in range(3))
        seen = {json.dumps(dict(wf.view(stage, viewer), seat=None), sort_keys=True)
                for viewer in (None, 0, 1, 2)}
        assert len(seen) == 1


def test_the_log_line_of_a_pick_never_says_which():
    for choice in ("stay", "return"):
        line = wf.describe("choose", {"choice": choice, "decision": 3}, 0, NAMES[:3])
        assert line == "Ana has chosen"


def test_log_lines_say_what_happened():
    players = NAMES[:2]
    assert wf.describe("reveal", {"flowers": 3, "witch": True}, 0, players) == (
        "Ana revealed a card: 3 Flowers, Witch")
    assert wf.describe("reveal", {"flowers": 1, "witch": False}, 1, players) == "Ben revealed a card: 1 Flower"
    line = wf.describe("crystallize", {"player": 1, "item": "exchange", "color": "blue", "magic": 1, "spent": 2},
                       0, NAMES[:2])
    assert line == "Ana logged for Ben: a blue Exchange tile, 1 Magic, 2 Flowers spent"
    for action, spec in wf.ACTIONS.items():
        assert wf.describe(action, {}, 0, NAMES[:2])


# ----------------------------------------------------------------- scoring


def final_tally(players: int, leader: int = 0) -> dict:
    """Make round 1 the final round and end its Exploration: the tally is next."""
    state = act(reveal(new_game(players, leader), 0), "set_run_outs", 0, count=2)
    state = everyone(state, "return")
    assert state["phase"] == "tally"
    return state


def scored(magic: list[int], flowers: list[int], tiles: list[int] | None = None) -> dict:
    """Play the final round at once, set the final tally through corrections, confirm it."""
    state = final_tally(len(magic))
    for seat in range(len(magic)):
        state = act(state, "set_magic", 0, player=seat, magic=magic[seat])
        state = act(state, "set_final_flowers", 0, player=seat, count=flowers[seat])
        state = act(state, "set_forest_magic", 0, player=seat, count=(tiles or [0] * len(magic))[seat])
    return wf.view(act(state, "confirm_tally"), None)


def test_most_magic_wins_counting_forest_magic_tiles_as_three():
    view = scored([20, 17, 19], [0, 9, 0], tiles=[0, 2, 1])
    assert view["winners"] == [1]
    assert view["decided_by"] == "Ben wins with 23 Magic."
    assert [(row["seat"], row["score"], row["place"]) for row in view["standings"]] == [
        (1, 23, 1), (2, 22, 2), (0, 20, 3)]


def test_a_tie_on_magic_goes_to_more_flowers_left():
    view = scored([23, 23], [4, 2])
    assert view["winners"] == [0]
    assert view["decided_by"] == "Ana and Ben both have 23 Magic; Ana wins with more Flowers left (4 to 2)."


def test_a_tie_on_magic_and_flowers_is_a_shared_victory():
    view = scored([23, 23, 9], [3, 3, 8])
    assert view["winners"] == [0, 1]
    assert view["decided_by"] == "Ana and Ben share the victory: 23 Magic and 3 Flowers each."
    assert [row["place"] for row in view["standings"]] == [1, 1, 3]


def test_a_three_way_tie_partly_broken_by_flowers():
    view = scored([23, 23, 23], [3, 1, 3])
    assert view["winners"] == [0, 2]
    assert view["decided_by"] == ("Ana, Ben and Cara all have 23 Magic; Ana and Cara share the victory "
                                  "with 3 Flowers left each (Ben has 1).")


def test_places_below_the_lead_go_by_magic_alone_and_ties_share():
    """Rulebook: "If the leading players are tied, the tied player with more Flowers of Defilement
    on their personal board wins." Flowers break a tie for the lead, nothing below it."""
    view = scored([30, 20, 20, 10], [0, 1, 9, 5])
    assert [(row["name"], row["place"]) for row in view["standings"]] == [
        ("Ana", 1), ("Ben", 2), ("Cara", 2), ("Dan", 4)]
    # A tie for the lead broken by Flowers still gives the one behind the next place.
    view = scored([20, 20, 15, 15], [4, 2, 0, 7])
    assert [(row["name"], row["place"]) for row in view["standings"]] == [
        ("Ana", 1), ("Ben", 2), ("Cara", 3), ("Dan", 3)]


def test_the_result_waits_for_the_final_crystallization_and_the_confirmed_tally():
    """Rulebook: "When the Exploration Phase of the final round ends, the game ends", after which
    "each player adds up the Magic": the returners of the final round still crystallize, and
    only then is the tally read."""
    state = final_tally(2)
    assert wf.outcome(state) is None
    view = wf.view(state, None)
    assert (view["phase"], view["game_over"], view["winners"], view["decided_by"]) == (
        "tally", False, [], None)
    assert not any("wins" in line or "share the victory" in line for line in state["events"])
    # The last returner's Crystallization counts, then the players confirm.
    state = act(state, "crystallize", 1, player=1, item="card", magic=4)
    state = act(state, "confirm_tally", 1)
    assert state["phase"] == "over" and state["events"] == ["Final tally confirmed.",
                                                             "Ben wins with 7 Magic."]
    assert wf.outcome(state)["summary"] == "Ben wins with 7 Magic."
    assert wf.describe("confirm_tally", {}, 1, NAMES[:2]) == "Ben confirmed the final tally"


def test_a_tie_for_the_lead_asks_for_the_flowers_left_before_the_result():
    """Rulebook: "If the leading players are tied, the tied player with more Flowers of Defilement
    on their personal board wins." Flowers nobody entered are not 0: they are asked for."""
    state = act(final_tally(3), "set_magic", 0, player=0, magic=1)
    state = act(state, "set_magic", 0, player=2, magic=1)
    assert wf.view(state, None)["flowers_missing"] == [0, 2] and wf.view(state, None)["lead_tied"]
    assert refused(state, "confirm_tally") == (
        "Ana and Cara are tied for the lead on 4 Magic: enter the Flowers left for Ana and Cara "
        "first, they break the tie.")
    state = act(state, "set_final_flowers", 0, player=0, count=2)
    assert "for Cara first" in refused(state, "confirm_tally")
    state = act(state, "set_final_flowers", 0, player=2, count=3)
    assert wf.view(state, None)["flowers_missing"] == []
    state = act(state, "confirm_tally")
    assert state["events"][-1] == "Ana and Cara both have 4 Magic; Cara wins with more Flowers left (3 to 2)."


def test_without_a_tie_for_the_lead_no_flowers_are_asked():
    state = act(final_tally(3), "set_magic", 0, player=1, magic=1)
    view = wf.view(state, None)
    assert (view["flowers_missing"], view["lead_tied"]) == ([], False)
    assert act(state, "confirm_tally")["phase"] == "over"


def test_in_the_tally_only_the_tally_moves():
    state = final_tally(2)
    for action, params in (("reveal", {"card": 2, "flowers": 1}), ("next_round", {}), ("finish", {}),
                           ("set_run_outs", {"count": 1}), ("set_draw_pile", {"count": 3})):
        assert "confirm the final tally" in refused(state, action, 0, **params)
    assert "comes after the final round" in refused(new_game(2), "confirm_tally")


def test_forest_magic_tiles_can_be_corrected_beyond_eight():
    """Rulebook: "The Supply is considered unlimited. If a component runs out, use a substitute."
    -- so a player may hold a 9th Forest Magic Tile, and the correction allows it."""
    state = act(new_game(2), "set_forest_magic", 0, player=1, count=9)
    assert wf.view(state, None)["boards"][1]["forest_tiles"] == 9
    state = act(state, "set_forest_magic", 0, player=1, count=wf.MAX_FOREST_TILES)
    assert state["boards"][1]["forest_tiles"] == wf.MAX_FOREST_TILES
    assert "above the highest" in refused(state, "set_forest_magic", 0, player=1,
                                          count=wf.MAX_FOREST_TILES + 1)


def test_a_run_out_correction_is_kept():
    """Rulebook: "The round after the Exploration Card draw pile runs out for the second time
    becomes the final round": the count the players set is the count the app goes on from."""
    state = act(new_game(2), "set_run_outs", 0, count=1)
    assert state["run_outs"] == 1 and wf.view(state, None)["run_outs"] == 1
    assert not state["final_round"]
    # The next run-out is then the second: it makes the round after it final.
    for cards in (9, 9):
        state = next_round(play_round(state, cards))
    state = act(play_round(state, 5), "next_round")
    assert (state["run_outs"], state["final_round"]) == (2, True)


def test_the_view_carries_the_setup_notes_and_the_next_leader():
    view = wf.view(new_game(3, leader=2), None)
    assert view["setup_notes"] == wf.setup_notes(3)
    assert "Put tiles 4 and 5 of each of the 9 Ability Crystal Tile stacks back in the box (18 tiles)." \
        in view["setup_notes"]
    assert view["next_leader"] == 0


def test_flowers_left_default_to_the_tracked_bag_and_storehouse():
    state = act(new_game(2, inventory=True), "set_inventory", 0, player=1, bag=2, storehouse=1)
    state = act(state, "set_magic", 0, player=0, magic=5)
    state = act(state, "set_magic", 0, player=1, magic=5)
    assert wf.standings(state)["winners"] == [1]
    assert [row["flowers"] for row in wf.standings(state)["standings"]] == [3, 0]


# ----------------------------------------------------------------- property tests


def raw_params(rng: random.Random, spec, seat_count: int) -> dict:
    """Mostly well-formed parameters, now and then missing or nonsense ones."""
    raw = {}
    for param in spec.params:
        roll = rng.random()
        if roll < 0.03:
            continue
        if roll < 0.06:
            raw[param.name] = rng.choice(["x", "-1", 99, True, ""])
        elif param.kind == "int":
            raw[param.name] = rng.randint(param.min, param.max)
        elif param.kind == "seat":
            raw[param.name] = rng.randrange(seat_count)
        elif param.kind == "bool":
            raw[param.name] = rng.random() < 0.5
        else:
            raw[param.name] = rng.choice(param.choices)
    return raw


def next_move(rng: random.Random, state: dict, sensible: float) -> tuple[str, dict, int]:
    """A move that suits the phase, or now and then any action at all."""
    seat_count = len(state["players"])
    phase = state["phase"]
    if rng.random() < sensible:
        if phase == "reveal":
            return "reveal", {"card": len(state["cards"]) + 1, "flowers": rng.randint(0, 4),
                              "witch": rng.random() < 0.3}, state["leader"]
        if phase == "choose":
            waiting = [s for s in state["in_forest"] if state["picks"][s] is None]
            seat = rng.choice(waiting or state["in_forest"])
            choice = "return" if rng.random() < 0.3 else "stay"
            return "choose", {"choice": choice, "decision": state["decision"]}, seat
        if phase == "end":
            return "next_round", {"round": state["round"] + 1}, rng.randrange(seat_count)
        if phase == "prepare":
            if rng.random() < 0.5:
                return "start_exploration", {"round": state["round"]}, state["leader"]
            return "done_preparing", {"player": rng.randrange(seat_count)}, rng.randrange(seat_count)
        if phase == "tally":
            return "confirm_tally", {}, rng.randrange(seat_count)
    action = rng.choice(sorted(wf.ACTIONS))
    return action, raw_params(rng, wf.ACTIONS[action], seat_count), rng.randrange(seat_count)


def flip_other_picks(state: dict, viewer) -> dict:
    """The same state with every other seat's pending pick turned the other way."""
    swap = {"stay": "return", "return": "stay", None: None}
    return dict(state, picks=[pick if seat == viewer else swap[pick]
                              for seat, pick in enumerate(state["picks"])])


def check_invariants(state: dict) -> None:
    view = wf.view(state, None)
    # A phone's view made from the public one is the view made for it alone, its pick and all.
    for seat in [None, *range(len(state["players"])), len(state["players"]), -1, True]:
        assert wf.view_for(view, state, seat) == wf.view(state, seat)
    assert view == wf.view(state, None)  # the public view is left as it was
    assert state["draw"] + state["discard"] == 21
    assert state["draw"] >= 0 and state["discard"] >= 0
    assert view["forest_face_down"] + len(view["cards"]) == 9
    assert view["witches"] <= 2
    returned = {entry["seat"] for entry in state["returns"]}
    in_forest, eliminated = set(state["in_forest"]), set(state["eliminated"])
    assert not (returned & in_forest or returned & eliminated or in_forest & eliminated)
    for seat in eliminated:
        assert state["boards"][seat]["flowers_by_round"][-1] == 0
    if state["final_round"]:
        assert state["phase"] != "end"
    assert json.loads(json.dumps(state)) == state  # plain JSON types only, string keys
    for seat in range(len(state["players"])):
        pending = state["phase"] == "choose" and state["picks"][seat] is not None
        assert wf.secret_open(state, seat) == pending


def play_random_game(seat_count, inventory, leader, seed, sensible, steps=500):
    rng = random.Random(seed)
    state = new_game(seat_count, leader % seat_count, inventory)
    run_outs_corrected = False
    steps_after_the_end = 20
    for _ in range(steps):
        action, raw, seat = next_move(rng, state, sensible)
        before = json.dumps(state, sort_keys=True)  # a faster deep snapshot than deepcopy
        try:
            _, params = check_action(wf.ACTIONS, action, raw, seat_count)
            after = wf.apply(state, action, params, seat)
        except Rejected:
            assert json.dumps(state, sort_keys=True) == before, f"refused {action} changed the state"
            continue
        assert json.dumps(state, sort_keys=True) == before, f"{action} changed its input"
        before = state
        check_invariants(after)
        if action == "set_run_outs":
            run_outs_corrected = True
        if not run_outs_corrected:
            if action == "next_round":
                made_second = before["run_outs"] < 2 <= after["run_outs"]
                assert after["final_round"] == made_second
            else:
                assert after["final_round"] == before["final_round"]
        if after["phase"] == "over" and before["phase"] != "over":
            assert action == "finish" or (before["phase"] == "tally" and action == "confirm_tally")
            assert after["ended_early"] == (action == "finish")
        if after["phase"] == "tally" and before["phase"] != "tally":
            assert before["final_round"] and action in ("reveal", "choose", "correct_card")
        if before["final_round"] and before["phase"] in ("reveal", "choose") and after["phase"] not in (
                "reveal", "choose"):
            assert after["phase"] == "tally"
        # The result is announced only once the game is over.
        assert (wf.outcome(after) is None) == (after["phase"] != "over")
        if action in ("store", "done_preparing", "start_exploration"):
            assert before["phase"] == "prepare"
        if after["phase"] == "choose":
            viewer = rng.choice([None, *range(seat_count)])
            assert json.dumps(wf.view(after, viewer)) == json.dumps(
                wf.view(flip_other_picks(after, viewer), viewer))
        state = after
        if state["phase"] == "over":
            steps_after_the_end -= 1
            if steps_after_the_end == 0:
                break
    return state


@settings(max_examples=100, deadline=None)
@given(seat_count=st.integers(2, 5), inventory=st.booleans(), leader=st.integers(0, 4),
       seed=st.integers(0, 2**32 - 1), sensible=st.floats(0.6, 0.95))
def test_random_games_keep_every_invariant(seat_count, inventory, leader, seed, sensible):
    play_random_game(seat_count, inventory, leader, seed, sensible)


def test_random_games_do_reach_the_final_round_and_the_end():
    endings = [play_random_game(3, False, 0, seed, 0.95, steps=400)["phase"] for seed in range(10)]
    assert endings.count("over") >= 5


# ----------------------------------------------------------------- one tap, one step


def test_a_second_reveal_of_the_same_card_is_refused_and_changes_nothing():
    state = new_game(2)
    assert wf.view(state, None)["steps"]["reveal"] == 1
    state = act(state, "reveal", 0, card=1, flowers=3)
    assert refused(state, "reveal", 0, card=1, flowers=3) == (
        "That was for card 1, which is already revealed; it is now round 1, card 1 waiting for "
        "Stay or Return.")
    state = everyone(state, "stay")
    assert refused(state, "reveal", 0, card=1, flowers=3) == (
        "That was for card 1, which is already revealed; it is now round 1, card 2 to reveal.")
    assert refused(state, "reveal", 0, card=3, flowers=3) == (
        "That is for card 3, which has not come yet; it is now round 1, card 2 to reveal.")
    assert "must choose Stay or Return" in refused(reveal(new_game(2), 1), "reveal", 0, card=2,
                                                    flowers=1)
    state = act(state, "reveal", 0, card=2, flowers=1)
    assert [card["flowers"] for card in state["cards"]] == [3, 1]


def test_a_second_next_round_is_refused_and_changes_nothing():
    state = end_round_quickly(new_game(2))
    assert state["phase"] == "end" and wf.view(state, None)["steps"]["next_round"] == 2
    state = act(state, "next_round", round=2)
    assert state["round"] == 2 and state["leader"] == 1
    assert refused(state, "next_round", round=2) == (
        "That was for starting round 2, which is already done; it is now round 2's Preparation "
        "Phase.")
    assert "has not come yet" in refused(state, "next_round", round=4)
    assert "still going on" in refused(state, "next_round", round=3)


def test_the_view_names_the_card_to_reveal_only_while_one_is_due():
    state = new_game(2)
    assert wf.view(state, None)["steps"] == {"reveal": 1, "next_round": 2, "start_exploration": None}
    state = reveal(state, 2)
    assert wf.view(state, None)["steps"] == {"reveal": None, "next_round": 2, "start_exploration": None}
    state = everyone(state, "stay")
    assert wf.view(state, None)["steps"] == {"reveal": 2, "next_round": 2, "start_exploration": None}
    state = act(everyone(reveal(state, 0), "return"), "next_round")
    assert wf.view(state, None)["steps"] == {"reveal": None, "next_round": 3, "start_exploration": 2}


# ----------------------------------------------------------------- a run-out after a correction


def test_a_reshuffle_after_the_pile_was_corrected_to_zero_is_a_run_out_and_brings_the_final_round():
    """Rulebook: "If the draw pile runs out, shuffle the discard pile well to make a new
    Exploration Card draw pile ... the round after the second time the draw pile runs out is
    the final round." Ruling: "A reshuffle of the discard pile while refilling counts as a
    run-out however the draw pile reached 0 (played out, or corrected to 0): the final round
    follows the second reshuffle." """
    state = act(end_round_quickly(new_game(2)), "set_run_outs", 0, count=1)
    state = act(state, "set_draw_pile", 0, count=0)
    state = act(state, "next_round")
    assert state["run_outs"] == 2 and state["final_round"] is True
    assert state["final_round_number"] == 2
    assert "Draw pile ran out (2nd time): discard shuffled into a new draw pile." in state["events"]
    assert state["events"][-2:] == ["Final round!", state["events"][-1]]


def test_a_pile_corrected_to_zero_runs_out_once_per_reshuffle():
    state = act(end_round_quickly(new_game(2)), "set_draw_pile", 0, count=0)
    state = act(state, "next_round")
    assert state["run_outs"] == 1 and state["final_round"] is False
    assert state["final_round_number"] is None


# ----------------------------------------------------------------- pass the phone


def test_a_phone_serving_several_seats_acts_as_the_leader_or_the_player_an_entry_is_for():
    """The log credits the seat acting: the leader turns the forest's cards over ("Ana
    revealed a card" while Dan leads is wrong), a player's own entry is theirs."""
    state = new_game(4, leader=3)
    assert wf.acting_seat(state, "reveal", {"flowers": 1}) == 3
    assert wf.acting_seat(state, "start_exploration", {}) == 3
    assert wf.acting_seat(state, "next_round", {"round": 2}) == 3
    assert wf.acting_seat(state, "crystallize", {"player": 2, "magic": 1}) == 2
    assert wf.acting_seat(state, "store", {"player": "1"}) == 1
    assert wf.acting_seat(state, "choose", {"player": 2}) is None  # a pick names its own seat
    assert wf.acting_seat(state, "set_draw_pile", {"count": 3}) is None
    assert wf.acting_seat(state, "set_magic", {"player": True}) is None
    assert wf.acting_seat(state, "set_magic", "junk") is None
    assert wf.describe("reveal", {"flowers": 1, "witch": False}, 3, NAMES[:4]).startswith(
        "Dan revealed a card")
