"""Rules of The Mysterious Forest: levels, scouting, packing, the expedition, the record."""

from __future__ import annotations

import copy
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games import mysterious_forest as mf
from companion.games.base import Rejected, check_action

from .helpers import name_step

NAMES = ["Ana", "Ben", "Cara", "Dan", "Eve", "Finn"]

# The rulebook's difficulty levels: Forest cards before and after the Wanderer, Loki tokens
# put in the Backpack at setup.
RULEBOOK_LEVELS = {
    "standard": (4, 2, 4),
    "budding": (4, 2, 2),
    "courageous": (4, 2, 0),
    "lead": (5, 3, 4),
    "foliage": (5, 3, 2),
    "heroes": (5, 3, 0),
}


# ----------------------------------------------------------------- building blocks


def new_game(players: int = 3, first: int = 0, level: str = "standard", guess: bool = False,
             backpack: int = 24) -> dict:
    return mf.setup(NAMES[:players], {"first_player": first, "level": level,
                                      "guess_variant": guess, "backpack_size": backpack})


def act(state: dict, action: str, seat: int = 0, **params) -> dict:
    """Parse like the table layer does, then apply; the step is named as the phone does."""
    params = name_step(mf, state, action, params)
    _, parsed = check_action(mf.ACTIONS, action, params, len(state["players"]))
    return mf.apply(state, action, parsed, seat)


def refused(state: dict, action: str, seat: int = 0, **params) -> str:
    """Expect a refusal that leaves the state exactly as it was; return the reason."""
    before = copy.deepcopy(state)
    with pytest.raises(Rejected) as info:
        act(state, action, seat, **params)
    assert state == before
    return info.value.reason


def scouted(state: dict) -> dict:
    """Start scouting and look at every Path card."""
    state = act(state, "start_scouting")
    for card in range(1, mf.scout_count(state["level"]) + 1):
        state = act(state, "done_looking", card=card)
    return state


def packed(state: dict, took: str = "equipment") -> dict:
    state = scouted(state)
    while state["phase"] == mf.PHASE_PACKING:
        state = act(state, "pack", took=took)
    return state


def walk_to(state: dict, kind: str) -> dict:
    """Cross Forest cards (walking past the Wanderer) until Jonas stands on a card of `kind`."""
    while mf.path_kinds(state["level"])[state["jonas"]] != kind:
        here = mf.path_kinds(state["level"])[state["jonas"]]
        if here == mf.WANDERER:
            state = act(state, "wanderer", take=False)
        else:
            state = act(state, "cross", card=state["jonas"])
    return state


# ----------------------------------------------------------------- levels and setup


@pytest.mark.parametrize("level", list(RULEBOOK_LEVELS))
def test_every_level_lays_the_rulebooks_path_and_loki(level):
    before, after, loki = RULEBOOK_LEVELS[level]
    kinds = mf.path_kinds(level)
    assert kinds == ["start"] + ["forest"] * before + ["wanderer"] + ["forest"] * after + ["final"]
    assert mf.scout_count(level) == before + after + 2  # every card after the Starting card
    state = new_game(level=level)
    view = mf.view(state, None)
    assert view["cards"] == before + after + 2
    assert view["setup_loki"] == loki and view["backpack_filled"] == loki
    assert view["loki_in_stack"] == mf.LOKI_TOKENS - loki
    assert f"{before} Forest cards, 1 Wanderer card, {after} Forest cards" in view["path_text"]
    steps = " ".join(step["text"] for step in view["setup_steps"])
    assert (f"Put {loki} Loki tokens" in steps) if loki else ("No Loki tokens" in steps)


def test_standard_has_8_cards_to_look_at_and_lead_adventurers_10():
    assert mf.scout_count("standard") == 8
    assert mf.scout_count("heroes") == 10


def test_levels_are_in_the_rulebooks_order():
    assert [mf.level_label(level) for level in mf.LEVEL_ORDER] == [
        "Standard", "Budding Explorers", "Courageous Travelers", "Lead Adventurers",
        "Foliage Conquerors", "Heroes of the Forest"]


def test_random_first_player_is_settled_when_the_table_is_made():
    rng = random.Random(7)
    options = mf.prepare_options({"first_player": "random"}, NAMES[:4], rng)
    assert options["first_player"] == random.Random(7).randrange(4)
    assert options == {"first_player": options["first_player"], "level": "standard",
                       "guess_variant": False, "backpack_size": mf.DEFAULT_BACKPACK_SIZE}
    chosen = mf.prepare_options({"first_player": "2", "level": "heroes", "guess_variant": "on",
                                 "backpack_size": "20"}, NAMES[:3], rng)
    assert chosen == {"first_player": 2, "level": "heroes", "guess_variant": True, "backpack_size": 20}


@pytest.mark.parametrize("raw, words", [
    ({"first_player": "9"}, "no seat 9"),
    ({"first_player": "left"}, "choose random"),
    ({"level": "easy"}, "choose one of"),
    ({"backpack_size": "4"}, "beyond its 4 Loki tokens"),
    ({"backpack_size": "0"}, "below the lowest"),
    ({"backpack_size": "42"}, "above the highest"),
])
def test_bad_options_are_refused_with_a_reason(raw, words):
    with pytest.raises(Rejected) as info:
        mf.prepare_options(raw, NAMES[:3], random.Random(1))
    assert words in info.value.reason


def test_one_to_six_players():
    assert mf.setup(NAMES[:1], {"first_player": 0})["players"] == ["Ana"]
    with pytest.raises(Rejected):
        mf.prepare_options({}, NAMES + ["Gus"], random.Random(1))
    with pytest.raises(Rejected):
        mf.prepare_options({}, [], random.Random(1))


def test_the_setup_checklist_is_ticked_and_unticked_then_scouting_starts():
    state = new_game()
    assert len(state["ticked"]) == 6
    state = act(state, "tick", step=1, done=True)
    state = act(state, "tick", step=0, done=True)
    assert state["ticked"][:2] == [True, True] and not mf.view(state, None)["setup_done"]
    state = act(state, "tick", step=1, done=False)
    assert state["ticked"][:2] == [True, False]
    assert "6 steps" in refused(state, "tick", step=6)
    state = act(state, "start_scouting")
    assert state["phase"] == mf.PHASE_SCOUTING
    assert "during setup" in refused(state, "tick", step=2)
    assert "during setup" in refused(state, "start_scouting")


def test_the_setup_can_be_corrected_until_scouting_starts():
    state = act(act(new_game(level="standard"), "tick", step=1), "tick", step=2)
    state = act(state, "change_setup", level="heroes")
    assert state["level"] == "heroes" and state["setup_loki"] == 0
    assert state["ticked"][1:3] == [False, True]  # the Path is laid again, Jonas stays put
    assert "Heroes of the Forest" in state["events"][0] and "5 Forest cards" in state["events"][0]
    state = act(state, "change_setup", first_player=2, guess_variant=True, backpack_size=30)
    assert (state["first_player"], state["guess_variant"], state["backpack_size"]) == (2, True, 30)
    assert "Cara goes first." in state["events"]
    # Ruling: any whole number above the level's Loki tokens; a roll fills the spaces left.
    assert act(state, "change_setup", backpack_size=31)["backpack_size"] == 31
    assert "already the setup" in refused(state, "change_setup", level="heroes")
    state = act(state, "start_scouting")
    assert mf.view(state, None)["scout_seat"] == 2 and mf.view(state, None)["cards"] == 10
    assert "during setup" in refused(state, "change_setup", level="standard")


# ----------------------------------------------------------------- Phase 1: scouting


def test_scouting_goes_clockwise_from_the_first_player_and_wraps():
    state = act(new_game(players=3, first=2), "start_scouting")
    order = []
    for card in range(1, 9):
        view = mf.view(state, None)
        assert view["current_card"] == card
        order.append(view["scout_seat"])
        state = act(state, "done_looking", card=card)
    # Cara (seat 2) first, then Ana, Ben, Cara, ... around the table.
    assert order == [2, 0, 1, 2, 0, 1, 2, 0]


def test_one_player_scouts_every_card():
    state = act(new_game(players=1), "start_scouting")
    assert mf.view(state, None)["scout_seat"] == 0
    state = act(state, "done_looking", card=1)
    assert mf.view(state, None)["scout_seat"] == 0


def test_no_card_is_scouted_twice_and_none_is_skipped():
    state = act(new_game(), "start_scouting")
    state = act(state, "done_looking", card=1)
    state = act(state, "done_looking", card=2)
    reason = refused(state, "done_looking", card=2)
    assert "already been looked at" in reason and "only be looked at once" in reason
    assert "already" in refused(state, "done_looking", card=1)
    assert refused(state, "done_looking", card=5) == (
        "That is for card 5, which has not come yet; it is now card 3, Cara to look.")
    assert "Phase 1" in refused(new_game(), "done_looking", card=1)


def test_scouting_ends_when_the_final_battle_card_is_turned_back():
    state = act(new_game(players=2, first=1), "start_scouting")
    for card in range(1, 8):
        state = act(state, "done_looking", card=card)
    assert state["phase"] == mf.PHASE_SCOUTING
    assert mf.view(state, None)["current_kind"] == "final"
    state = act(state, "done_looking", card=8)
    assert state["phase"] == mf.PHASE_PACKING
    assert "Final Battle card is turned back face-down" in " ".join(state["events"])
    assert "Phase 1" in refused(state, "done_looking", card=9)
    # Packing starts again with the first player.
    assert mf.view(state, None)["roll_seat"] == 1


def test_the_path_picture_marks_the_card_being_looked_at():
    state = act(act(new_game(), "start_scouting"), "done_looking", card=1)
    path = mf.view(state, None)["path"]
    assert [card["current"] for card in path].index(True) == 2
    assert [card["scouted"] for card in path][:3] == [False, True, False]
    assert path[0]["jonas"] and path[-1]["kind"] == "final"


def test_the_memorize_countdown_follows_the_cards():
    state = new_game()
    assert mf.timer_cue(state) is None
    state = act(state, "start_scouting")
    assert mf.timer_cue(state) == ("scout:1", "Memorize card 1 of 8")
    state = act(state, "done_looking", card=1)
    assert mf.timer_cue(state) == ("scout:2", "Memorize card 2 of 8")
    for card in range(2, 9):
        state = act(state, "done_looking", card=card)
    assert mf.timer_cue(state) is None
    assert mf.timer_cue(scouted(new_game(level="lead"))) is None
    assert mf.timer_cue(act(new_game(level="lead"), "start_scouting"))[1] == "Memorize card 1 of 10"


# ----------------------------------------------------------------- Phase 2: packing


def test_packing_turns_go_clockwise_and_fill_two_spaces_a_roll():
    state = scouted(new_game(players=3, first=1, backpack=12))
    assert mf.view(state, None)["backpack_filled"] == 4  # the 4 setup Loki tokens
    rollers = []
    while state["phase"] == mf.PHASE_PACKING:
        view = mf.view(state, None)
        rollers.append(view["roll_seat"])
        assert view["backpack_filled"] + view["backpack_left"] == 12
        state = act(state, "pack", took="equipment")
    assert rollers == [1, 2, 0, 1]  # (12 - 4) / 2 rolls, from Ben around the table
    assert state["phase"] == mf.PHASE_EXPEDITION and state["jonas"] == 1
    events = " ".join(state["events"])
    assert "The Backpack is full" in events and "turn over card 1" in events


def test_loki_reminders_and_counts():
    state = scouted(new_game(level="courageous", backpack=20))  # no Loki at setup
    state = act(state, "pack", took="loki_equipment")
    assert "one Loki rolled: a Loki token and one Equipment" in state["events"][0]
    state = act(state, "pack", took="two_loki")
    assert "two Lokis rolled: two Loki tokens" in state["events"][0]
    view = mf.view(state, None)
    assert view["loki_packed"] == 3 and view["loki_in_stack"] == mf.LOKI_TOKENS - 3
    assert view["backpack_filled"] == 4


def test_a_loki_die_is_never_rolled_again_when_the_loki_stack_runs_short():
    """Rulebook: "Special case: A die face shows an Equipment that isn't in the Reserve. In this
    case, and this case only, reroll the die and then choose your Equipment as explained
    before." and "If you roll two Lokis with the 4 dice, you must take two face-down Loki
    tokens and put them in your Backpack." A Loki face is not rerolled: it takes the tokens
    the stack still has, and a face that finds none brings nothing."""
    state = scouted(new_game(level="standard", backpack=40))  # 4 in the Backpack, 7 in the stack
    for _ in range(3):
        state = act(state, "pack", took="two_loki")
    assert mf.view(state, None)["loki_in_stack"] == 1
    state = act(state, "pack", took="two_loki")
    assert state["events"][:3] == [
        "Ana rolled and took 2 Loki (two Lokis rolled: two Loki tokens).",
        "Only 1 Loki token was left in the stack, so that Loki brings nothing (a Loki die is never "
        "rolled again).",
        "Backpack: 11 of 40 spaces filled."]
    view = mf.view(state, None)
    assert (view["loki_in_stack"], view["loki_packed"], view["backpack_filled"]) == (0, 11, 11)
    assert view["rolls"][-1]["loki"] == 1 and view["rolls"][-1]["equipment"] == 0
    # One Loki with the stack empty: the Equipment of the players' choice still comes.
    state = act(state, "pack", took="loki_equipment")
    assert "No Loki token was left in the stack, so that Loki brings nothing" in state["events"][1]
    assert mf.backpack_filled(state) == 12 and mf.loki_packed(state) == 11
    # Two Lokis with the stack empty bring nothing; the next player rolls.
    state = act(state, "pack", took="two_loki")
    assert "so those Lokis bring nothing" in state["events"][1]
    assert mf.backpack_filled(state) == 12 and state["events"][3] == "Next to roll: Ana."
    while state["phase"] == mf.PHASE_PACKING:
        state = act(state, "pack", took="equipment")
    assert len(state["rolls"]) == 6 + 14
    assert mf.backpack_slots(state).count("loki") == 11 and "empty" not in mf.backpack_slots(state)


def test_a_roll_bringing_more_than_the_spaces_left_fills_what_is_left():
    """Rulebook: "The Preparation Phase ends when all of the spaces of your Backpack are
    filled." and Loki "takes precedence over Equipment"."""
    state = scouted(new_game(level="standard", backpack=12))  # 8 spaces free, 7 Loki in the stack
    for _ in range(4):
        state = act(state, "pack", took="two_loki")
    assert mf.backpack_filled(state) == 11  # the fourth roll found one Loki token
    state = act(state, "pack", took="equipment")
    assert "The Backpack had room for 1 only." == state["events"][1]
    assert state["phase"] == mf.PHASE_EXPEDITION and mf.backpack_filled(state) == 12


def test_changing_a_roll_keeps_the_backpack_filled_once():
    """Rulebook: "The Preparation Phase ends when all of the spaces of your Backpack are
    filled." A corrected roll cannot leave a roll after the Backpack was full, nor empty a
    Backpack the expedition already carries."""
    state = scouted(new_game(level="standard", backpack=12))
    for _ in range(4):
        state = act(state, "pack", took="two_loki")
    assert mf.backpack_filled(state) == 11
    # The fourth roll was 2 Equipment after all: that fills the Backpack, and off we go.
    changed = act(state, "change_roll", roll=4, took="equipment")
    assert changed["phase"] == mf.PHASE_EXPEDITION and changed["jonas"] == 1
    assert "The Backpack is full: packing is over." in changed["events"]
    state = act(state, "pack", took="equipment")
    assert state["phase"] == mf.PHASE_EXPEDITION
    assert refused(state, "change_roll", roll=4, took="equipment") == (
        "With that change the Backpack is full before roll 5: undo back to roll 5 instead.")
    assert "would not be full" in refused(state, "change_roll", roll=5, took="two_loki")


def test_a_roll_can_be_changed_and_the_loki_counts_follow():
    state = scouted(new_game(players=2, backpack=12))
    state = act(state, "pack", took="equipment")
    state = act(state, "pack", took="two_loki", seat=1)
    state = act(state, "change_roll", roll=1, took="loki_equipment")
    assert state["rolls"] == ["loki_equipment", "two_loki"]
    assert "Roll 1 (Ana) changed to 1 Loki + 1 Equipment" in state["events"][0]
    assert mf.loki_packed(state) == 7
    assert "choose 1 to 2" in refused(state, "change_roll", roll=3, took="equipment")
    assert "no rolls" in refused(new_game(), "change_roll", roll=1, took="equipment")


def test_changing_a_roll_cannot_take_away_a_loki_already_used():
    state = scouted(new_game(level="courageous", backpack=10))
    state = act(state, "pack", took="two_loki")
    for _ in range(4):
        state = act(state, "pack", took="equipment")
    state = act(state, "use_loki")
    state = act(state, "use_loki")
    assert "take back a used Loki token" in refused(state, "change_roll", roll=1, took="loki_equipment")
    state = act(state, "return_loki")
    state = act(state, "change_roll", roll=1, took="loki_equipment")
    assert mf.loki_in_backpack(state) == 0


# ----------------------------------------------------------------- Phase 3: the expedition


def test_jonas_walks_the_path_card_by_card():
    state = packed(new_game(backpack=10))
    assert state["jonas"] == 1
    state = act(state, "cross", card=1)
    assert state["jonas"] == 2
    assert "already behind Jonas" in refused(state, "cross", card=1)
    assert "card 4, which has not come yet" in refused(state, "cross", card=4)
    state = walk_to(state, "wanderer")
    assert state["jonas"] == 5
    assert "Wanderer" in refused(state, "cross", card=5)
    assert "take the crystal weapon or walk on" in refused(state, "fail", card=5)


def test_the_wanderer_exchange_gives_two_tokens_each_used_once():
    state = walk_to(packed(new_game(backpack=10)), "wanderer")
    assert "Choose it" in refused(state, "wanderer", take=True)
    state = act(state, "wanderer", take=True, exchange="three_different")
    assert state["weapon"] == "taken" and state["wanderer_tokens"] == 2 and state["jonas"] == 6
    assert "three different Equipment" in state["events"][0]
    state = act(state, "use_token")
    assert state["tokens_used_on"] == [6]
    state = act(state, "cross", card=6)
    state = act(state, "use_token")
    assert state["wanderer_tokens"] == 0 and state["tokens_used_on"] == [6, 7]
    assert "only be used once" in refused(state, "use_token")
    state = act(state, "return_token")
    assert state["wanderer_tokens"] == 1
    state = act(state, "return_token")
    assert "No Wanderer token has been used" in refused(state, "return_token")


def test_walking_past_the_wanderer_gives_no_tokens():
    state = walk_to(packed(new_game(backpack=10)), "wanderer")
    assert "gives nothing" in refused(state, "wanderer", take=False, exchange="any_four")
    state = act(state, "wanderer", take=False)
    assert state["weapon"] == "declined" and state["wanderer_tokens"] == 0
    assert "not taken" in refused(state, "use_token")


def test_the_equipment_and_loki_exchange_takes_a_loki_from_the_backpack():
    state = walk_to(packed(new_game(level="budding", backpack=10)), "wanderer")  # 2 Loki
    state = act(act(state, "use_loki"), "use_loki")
    assert mf.loki_in_backpack(state) == 0
    assert "none is left in the Backpack" in refused(state, "wanderer", take=True, exchange="equipment_loki")
    state = act(state, "return_loki")
    state = act(state, "wanderer", take=True, exchange="equipment_loki")
    assert mf.loki_in_backpack(state) == 0 and state["loki_used"] == 1


def test_loki_tokens_used_are_counted_and_bounded_by_the_backpack():
    state = packed(new_game(level="budding", backpack=10))
    state = act(state, "use_loki")
    state = act(state, "use_loki")
    assert state["loki_used"] == 2 and mf.loki_in_backpack(state) == 0
    assert "No Loki token is left" in refused(state, "use_loki")
    state = act(state, "return_loki")
    assert state["loki_used"] == 1
    assert "Phase 3" in refused(new_game(), "use_loki")


def test_a_loki_token_used_says_what_its_power_does():
    """Rulebook: "Loki tokens can have 1 of 2 powers: - Power 1: Choose one of the Equipment
    shown on the Loki token and put it in your Backpack. - Power 2: Exchange an Equipment in
    your Backpack with one in the Reserve. Once you use a Loki token, put it back in the
    Reserve. Special case: There are only Loki tokens in your Backpack. In this case, and this
    case only, if you turn over Power 2, exchange this Loki token with an Equipment of your
    choice in the Reserve." """
    state = packed(new_game(level="standard", backpack=10))  # 4 Loki in the Backpack
    state = act(state, "use_loki", power=1)
    assert state["events"] == [
        "Loki token used on card 1, Power 1.", "Power 1: choose one of the Equipment shown on the "
        "Loki token and put it in your Backpack.", "Then put the Loki token back in the Reserve.",
        "3 Loki tokens left in the Backpack."]
    state = act(state, "use_loki", power=2)
    assert state["events"] == [
        "Loki token used on card 1, Power 2.", "Power 2: exchange an Equipment in your Backpack with "
        "one in the Reserve.", "Only Loki tokens in your Backpack? Then exchange this Loki token with "
        "an Equipment of your choice in the Reserve.", "Then put the Loki token back in the "
        "Reserve.", "2 Loki tokens left in the Backpack."]
    view = mf.view(state, None)
    assert view["loki_now"] == {
        "card": 1, "power": 2, "said": "Power 2, an Equipment of the Backpack exchanged with one "
        "in the Reserve (with only Loki tokens in the Backpack, this Loki token for an Equipment)",
        "lines": [mf.LOKI_POWERS[2], mf.LOKI_ONLY_LOKI, mf.LOKI_BACK]}
    assert [use["power"] for use in view["loki_uses"]] == [1, 2]
    # A token used without saying its power: both powers and the special case are explained.
    state = act(state, "use_loki")
    assert state["events"][:3] == ["Loki token used on card 1.", "Turn it over: it shows one of 2 powers.",
                                   mf.LOKI_POWERS[1]]
    assert ("Only Loki tokens in your Backpack? Then, with Power 2, exchange this Loki token with "
            "an Equipment of your choice in the Reserve.") in state["events"]
    assert "Loki's power: 3 is above the highest allowed, 2." == refused(state, "use_loki", power=3)
    # Taking a token back forgets its power; walking on leaves the explanation behind.
    state = act(state, "return_loki")
    assert mf.view(state, None)["loki_now"]["power"] == 2
    state = act(state, "cross", card=1)
    assert mf.view(state, None)["loki_now"] is None
    assert len(mf.view(state, None)["loki_uses"]) == 2


def test_the_log_line_of_a_loki_token_says_what_it_did():
    """Rulebook: "Loki tokens can have 1 of 2 powers" (Power 1, an Equipment shown on the token
    into the Backpack; Power 2, an Equipment of the Backpack exchanged with the Reserve) and,
    with "only Loki tokens in your Backpack", Power 2 exchanges "this Loki token with an
    Equipment of your choice in the Reserve"."""
    players = NAMES[:2]
    assert mf.describe("use_loki", {"power": 1}, 0, players) == (
        "Ana used a Loki token: Power 1, one of the Equipment shown on it into the Backpack")
    assert mf.describe("use_loki", {"power": "2"}, 1, players) == (
        "Ben used a Loki token: Power 2, an Equipment of the Backpack exchanged with one in the "
        "Reserve (with only Loki tokens in the Backpack, this Loki token for an Equipment)")
    both = mf.describe("use_loki", {}, 0, players)
    assert "Power 1, one of the Equipment" in both and "or Power 2" in both
    assert "this Loki token for an Equipment" in both


def test_a_table_saved_before_loki_powers_were_kept_still_plays():
    state = act(packed(new_game(level="standard", backpack=10)), "use_loki")
    del state["loki_powers"]
    assert mf.view(state, None)["loki_uses"][0]["power"] is None
    state = act(state, "return_loki")
    assert state["loki_powers"] == [] and state["loki_used"] == 0


def test_winning_at_the_final_battle():
    state = walk_to(packed(new_game(backpack=10)), "final")
    assert state["jonas"] == 8
    state = act(state, "beat_queen")
    assert state["phase"] == mf.PHASE_OVER and state["result"] == "won"
    assert "You won at Standard" in state["events"][0]
    assert "game is over" in refused(state, "use_loki")
    assert mf.timer_cue(state) is None


def test_losing_on_a_forest_card_or_at_the_final_battle():
    state = act(packed(new_game(backpack=10)), "cross", card=1)
    lost = act(state, "fail", card=2)
    assert lost["phase"] == mf.PHASE_OVER and lost["result"] == "lost" and lost["ended_at_card"] == 2
    assert "could not cover card 2" in lost["events"][0]
    at_final = walk_to(state, "final")
    lost = act(at_final, "fail", card=8)
    assert lost["result"] == "lost" and "Queen wins" in lost["events"][0]
    assert "Queen waits" in refused(state, "beat_queen")
    # The history records a team loss at this level; a game still going has no result.
    record = mf.outcome(lost)
    assert record["cooperative"] and record["won"] is False and record["level"] == "Standard"
    assert not any(p["winner"] for p in record["players"]) and "card 8" in record["summary"]
    assert mf.outcome(state) is None


def test_the_guess_variant_lays_the_guess_then_reveals_right_or_wrong():
    state = walk_to(packed(new_game(guess=True, backpack=10)), "final")
    assert "Lay your guess" in refused(state, "beat_queen")
    assert "Lay your guess" in refused(state, "fail", card=8)
    state = act(state, "lay_guess")
    assert state["guess_laid"] and "match exactly" in state["events"][0]
    assert "already laid" in refused(state, "lay_guess")
    right = act(state, "beat_queen")
    assert right["result"] == "won" and "guess matched" in right["events"][0]
    wrong = act(state, "fail", card=8)
    assert wrong["result"] == "lost" and "guess did not match" in wrong["events"][0]


def test_the_guess_is_laid_only_at_the_final_battle_and_only_in_the_variant():
    state = packed(new_game(guess=True, backpack=10))
    assert "Final Battle card, card 8" in refused(state, "lay_guess")
    plain = walk_to(packed(new_game(backpack=10)), "final")
    assert "not played" in refused(plain, "lay_guess")


def test_apply_never_mutates_and_refusals_change_nothing():
    state = packed(new_game(backpack=10))
    frozen = json.dumps(state, sort_keys=True)
    act(state, "cross", card=1)
    act(state, "use_loki")
    assert json.dumps(state, sort_keys=True) == frozen
    assert "does not exist" in refused(state, "explode")
    assert "not at this table" in refused(state, "use_loki", seat=5)


# ----------------------------------------------------------------- the record across games


def finished(level: str, result: str) -> dict:
    state = walk_to(packed(new_game(level=level, backpack=12)), "final")
    return act(state, "beat_queen") if result == "won" else act(state, "fail", card=state["jonas"])


def test_the_record_counts_per_level_and_suggests_the_next_level_after_a_win():
    empty = mf.record([])
    assert empty["games"] == 0 and empty["suggestion"] == "standard"
    games = [finished("standard", "lost"), finished("standard", "won"), finished("budding", "lost"),
             finished("budding", "won")]
    record = mf.record(games)
    rows = {row["level"]: row for row in record["levels"]}
    assert (rows["standard"]["won"], rows["standard"]["lost"]) == (1, 1)
    assert (rows["budding"]["won"], rows["budding"]["lost"]) == (1, 1)
    assert rows["heroes"]["played"] == 0
    assert record["games"] == 4 and record["won"] == 2
    assert record["suggestion"] == "courageous"
    assert "try Courageous Travelers next" in record["reason"]


def test_after_a_loss_the_same_level_and_after_the_hardest_the_hardest():
    assert mf.record([finished("lead", "won"), finished("foliage", "lost")])["suggestion"] == "foliage"
    top = mf.record([finished("heroes", "won")])
    assert top["suggestion"] == "heroes" and "hardest" in top["reason"]


def test_the_record_skips_games_not_finished_or_unknown():
    unfinished = packed(new_game(backpack=10))
    odd = dict(finished("standard", "won"), level="legendary")
    assert mf.record([unfinished, odd, "junk", None])["games"] == 0


# ----------------------------------------------------------------- invariants


# Actions that fit each phase, drawn most of the time so that sequences reach the end.
FITTING = {
    mf.PHASE_SETUP: ["tick", "change_setup", "start_scouting"],
    mf.PHASE_SCOUTING: ["done_looking"],
    mf.PHASE_PACKING: ["pack", "pack", "pack", "change_roll"],
    mf.PHASE_EXPEDITION: ["cross", "cross", "cross", "wanderer", "wanderer", "use_loki", "return_loki",
                          "use_token", "return_token", "lay_guess", "beat_queen", "fail"],
    mf.PHASE_OVER: ["beat_queen"],
}


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 6), st.integers(0, 5), st.sampled_from(mf.LEVEL_ORDER), st.booleans(),
       st.sampled_from([10, 12, 24, 40]), st.integers(0, 90), st.randoms(use_true_random=False))
def test_random_action_sequences_keep_the_invariants(players, first, level, guess, backpack, steps, rng):
    # Hypothesis leans to the ends of every range; the odds of each step come from its seeded
    # generator, so that most sequences get through the three phases.
    state = new_game(players=players, first=first % players, level=level, guess=guess, backpack=backpack)
    looked_at = []
    for _ in range(steps):
        fitting = FITTING[state["phase"]]
        action = rng.choice(fitting) if rng.random() < 0.85 else rng.choice(sorted(mf.ACTIONS))
        current = mf.current_card(state)
        card = current if current is not None and rng.random() < 0.85 else rng.randrange(0, 12)
        flag = rng.random() < 0.5
        params = {"card": card, "step": rng.randrange(7), "done": flag, "took": rng.choice(sorted(mf.TAKES)),
                  "roll": rng.randrange(1, 8), "take": flag,
                  "exchange": rng.choice(sorted(mf.EXCHANGES)) if flag else None,
                  "level": rng.choice(mf.LEVEL_ORDER + (None,)), "first_player": rng.randrange(players),
                  "guess_variant": flag, "backpack_size": rng.choice([None, 10, 12, 13, 24])}
        seat = rng.randrange(players)
        before = copy.deepcopy(state)
        try:
            state = act(state, action, seat, **params)
        except Rejected:
            assert state == before
            continue
        if action == "done_looking":
            looked_at.append(card)
        final, backpack = len(mf.path_kinds(state["level"])) - 1, state["backpack_size"]
        view = mf.view(state, None)
        assert 0 <= state["jonas"] <= final
        assert 0 <= state["wanderer_tokens"] <= mf.WANDERER_TOKENS
        assert state["wanderer_tokens"] + len(state["tokens_used_on"]) == (
            mf.WANDERER_TOKENS if state["weapon"] == "taken" else 0)
        assert looked_at == list(range(1, len(looked_at) + 1)), "a card looked at twice or skipped"
        assert state["scouted"] == len(looked_at) <= final
        assert view["backpack_filled"] <= backpack
        assert 0 <= view["loki_in_backpack"] and 0 <= view["loki_in_stack"]
        assert view["loki_packed"] <= mf.LOKI_TOKENS
        if state["phase"] == mf.PHASE_PACKING:
            assert view["backpack_filled"] < backpack
        if state["phase"] in (mf.PHASE_EXPEDITION, mf.PHASE_OVER):
            assert view["backpack_filled"] == backpack and state["scouted"] == final
        if state["phase"] == mf.PHASE_OVER:
            assert state["result"] in ("won", "lost")
            assert state["result"] == "lost" or state["jonas"] == final
        json.dumps(view)  # the view stays JSON


def test_view_and_describe_cover_every_action():
    players = NAMES[:2]
    for name, spec in mf.ACTIONS.items():
        params = {p.name: (p.min or 0) if p.kind == "int" else (p.choices[0] if p.choices else True)
                  for p in spec.params}
        line = mf.describe(name, params, 1, players)
        assert line.startswith("Ben") and len(line) > 8
    assert mf.describe("use_loki", {}, None, players).startswith("Someone")
    assert mf.describe("nonsense", "junk", 0, players) == "Ana: nonsense"


# ----------------------------------------------------------------- one tap, one step


def test_a_second_done_looking_for_the_same_card_is_refused_and_changes_nothing():
    state = act(new_game(3), "start_scouting")
    assert mf.view(state, None)["steps"]["done_looking"] == 1
    state = act(state, "done_looking", card=1)
    assert refused(state, "done_looking", card=1) == (
        "That was for card 1, which has already been looked at: a Path card can only be looked "
        "at once; it is now card 2, Ben to look.")
    assert state["scouted"] == 1
    state = act(state, "done_looking", card=2)
    assert state["scouted"] == 2


def test_a_second_roll_for_the_same_child_is_refused_and_changes_nothing():
    state = scouted(new_game(3))
    assert mf.view(state, None)["steps"]["pack"] == 1
    state = act(state, "pack", took="equipment", roll=1)
    assert refused(state, "pack", took="equipment", roll=1) == (
        "That was for roll 1 (Ana), which is already in the Backpack; it is now roll 2, Ben to roll.")
    assert refused(state, "pack", took="equipment", roll=3) == (
        "That is for roll 3 (Cara), which has not come yet; it is now roll 2, Ben to roll.")
    assert state["rolls"] == ["equipment"]
    state = act(state, "pack", took="two_loki", roll=2)
    assert state["rolls"] == ["equipment", "two_loki"]


def test_a_roll_after_the_backpack_is_full_is_refused_and_changes_nothing():
    state = packed(new_game(3, backpack=10))
    assert state["phase"] == "expedition"
    last = len(state["rolls"])
    assert refused(state, "pack", took="equipment", roll=last) == (
        f"That was for roll {last} ({state['players'][(last - 1) % 3]}), which is already in the "
        "Backpack; the Backpack is full and the expedition has started.")
    assert "packing the Backpack" in refused(new_game(3), "pack", took="equipment", roll=1)


def test_the_wanderer_is_met_on_its_own_card_only():
    state = walk_to(packed(new_game()), "wanderer")
    card = state["jonas"]
    assert mf.view(state, None)["steps"]["wanderer"] == card
    assert "has not come yet" in refused(state, "wanderer", card=card + 1, take=False)
    state = act(state, "wanderer", card=card, take=False)
    assert state["jonas"] == card + 1
    assert "already behind Jonas" in refused(state, "wanderer", card=card, take=False)


def test_the_view_names_the_step_of_each_phase_and_none_of_the_others():
    nothing = {"done_looking": None, "pack": None, "cross": None, "wanderer": None, "fail": None}
    state = new_game(3)
    assert mf.view(state, None)["steps"] == nothing
    state = act(state, "start_scouting")
    assert mf.view(state, None)["steps"] == {**nothing, "done_looking": 1}
    state = scouted(new_game(3))
    assert mf.view(state, None)["steps"] == {**nothing, "pack": 1}
    state = packed(new_game(3))
    assert mf.view(state, None)["steps"] == {**nothing, "cross": 1, "wanderer": 1, "fail": 1}


# ----------------------------------------------------------------- the view holds the screen's facts


def test_the_view_holds_every_fact_the_screen_shows():
    """Rulebook: "Special case: A die face shows an Equipment that isn't in the Reserve. In this
    case, and this case only, reroll the die", and the levels of "To Go Even Further"."""
    view = mf.view(new_game(level="standard", backpack=5), None)  # 4 Loki: 5 is the least
    assert [level["label"] for level in view["levels"]] == [
        "Standard", "Budding Explorers", "Courageous Travelers", "Lead Adventurers",
        "Foliage Conquerors", "Heroes of the Forest"]
    assert view["levels"][3] == {"key": "lead", "label": "Lead Adventurers", "loki": 4,
                                 "path_text": "Start, 5 Forest cards, 1 Wanderer card, 3 Forest "
                                              "cards, 1 Final Battle card"}
    assert (view["backpack_smaller"], view["backpack_larger"]) == (None, 6)
    top = mf.view(new_game(backpack=40), None)
    assert (top["backpack_smaller"], top["backpack_larger"]) == (39, None)
    assert [take["note"] for take in view["takes"]] == [
        "No Loki: choose 2 of the 4", "One Loki rolled: a Loki token and 1 Equipment",
        "Two Lokis rolled: two Loki tokens"]
    state = scouted(new_game(level="standard", backpack=40))
    assert mf.view(state, None)["packing_tips"] == [mf.REROLL_RULE]
    for _ in range(3):
        state = act(state, "pack", took="two_loki")
    assert mf.view(state, None)["packing_tips"][1] == (
        "🦊 Only 1 Loki token is left in the stack: a second Loki brings nothing.")
    state = walk_to(packed(new_game(level="courageous", backpack=10)), "wanderer")  # no Loki
    possible = {e["key"]: e["possible"] for e in mf.view(state, None)["exchanges"]}
    assert possible == {"two_same": True, "equipment_loki": False, "three_different": True,
                        "any_four": True}


@pytest.mark.parametrize("level, least", [("standard", 5), ("budding", 3), ("heroes", 1)])
def test_the_backpack_takes_any_whole_number_above_the_levels_loki_tokens(level, least):
    """Ruling: "the players may set any whole number above the Loki tokens of their level
    (default the app's); a roll fills only the spaces left, so an odd number works." """
    assert new_game(level=level, backpack=least)["backpack_size"] == least
    with pytest.raises(Rejected, match="choose a whole number from"):
        new_game(level=level, backpack=least - 1)
    if least > 1:
        assert f"needs room beyond its {least - 1} Loki tokens" in refused(
            new_game(level=level), "change_setup", backpack_size=least - 1)
    assert mf.view(new_game(level=level, backpack=least), None)["backpack_smaller"] is None
    assert mf.view(new_game(level=level, backpack=least + 1), None)["backpack_smaller"] == least


def test_an_odd_backpack_is_filled_by_a_last_roll_that_fills_the_one_space_left():
    """"The Preparation Phase ends when all of the spaces of your Backpack are filled." A
    Backpack of 9 at Standard: 4 Loki tokens, then 2 + 2 + 1."""
    state = scouted(new_game(level="standard", backpack=9))
    state = act(state, "pack", took="equipment")
    state = act(state, "pack", took="loki_equipment")
    assert state["phase"] == mf.PHASE_PACKING and mf.view(state, None)["backpack_left"] == 1
    state = act(state, "pack", took="equipment")
    assert "The Backpack had room for 1 only." == state["events"][1]
    assert state["phase"] == mf.PHASE_EXPEDITION and mf.backpack_filled(state) == 9
    assert mf.roll_fills(state)[-1] == {"loki": 0, "equipment": 1, "no_token": 0, "no_room": 1}
