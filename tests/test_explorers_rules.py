"""Rules of Explorers of the Woodlands: Heroes, turns, the Forest stack, the Boss's threat."""

from __future__ import annotations

import copy
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games import explorers_of_the_woodlands as ex
from companion.games.base import Rejected, check_action

from .helpers import name_step

NAMES = ["Ana", "Ben", "Cara", "Dan"]


# ----------------------------------------------------------------- building blocks


def new_game(players: int = 3, first: int = 0, heroes=None, **choices) -> dict:
    raw = {"first_player": str(first)}
    for i, hero in enumerate(heroes or []):
        raw["solo_hero" if players == 1 and i == 1 else f"hero_{i + 1}"] = hero
    raw.update(choices)
    options = ex.prepare_options(raw, NAMES[:players], random.Random(0))
    return ex.setup(NAMES[:players], options)


def act(state: dict, action: str, seat: int = 0, **params) -> dict:
    """Parse like the table layer does, then apply; the step is named as the phone does."""
    params = name_step(ex, state, action, params)
    _, parsed = check_action(ex.ACTIONS, action, params, len(state["players"]))
    return ex.apply(state, action, parsed, seat)


def refused(state: dict, action: str, seat: int = 0, **params) -> str:
    """Expect a refusal that leaves the state exactly as it was; return the reason."""
    before = copy.deepcopy(state)
    with pytest.raises(Rejected) as info:
        act(state, action, seat, **params)
    assert state == before
    return info.value.reason


def hero(state: dict, hero_id: str) -> dict:
    return next(h for h in state["heroes"] if h["id"] == hero_id)


def place_all(state: dict) -> dict:
    """Phase 1: every Hero's player places a tile."""
    while state["phase"] == "growth" and state["growth_done"] < len(state["heroes"]):
        state = act(state, "place_tile", kind="growth")
    return state


def to_adventure(state: dict) -> dict:
    state = place_all(state)
    if state["phase"] == "growth":
        state = act(state, "start_adventure")
    return state


def reveal(state: dict, boss: str = "aethera", track: int = 12) -> dict:
    return act(state, "reveal_boss", boss=boss, track=track)


def play_round(state: dict) -> dict:
    state = to_adventure(state)
    for _ in range(len(state["heroes"]) - state["turn"]):
        state = act(state, "end_turn")
    return act(state, "end_round")


# ----------------------------------------------------------------- setup


def test_heroes_belong_to_seats_in_turn_order_from_the_first_player():
    state = new_game(4, first=2, heroes=["bethras", "xylia", "klethor", "shavi"])
    assert [(h["id"], h["seat"]) for h in state["heroes"]] == [
        ("klethor", 2), ("shavi", 3), ("bethras", 0), ("xylia", 1)]
    assert all(h["hp"] == 5 and h["orbs"] == 0 and h["powers"] == 0 for h in state["heroes"])
    view = ex.view(state, 0)
    assert [h["owner"] for h in view["heroes"]] == ["Cara", "Dan", "Ana", "Ben"]
    assert [h["mine"] for h in view["heroes"]] == [False, False, True, False]
    assert view["placer_owner"] == "Cara"


def test_each_hero_at_most_once_and_unchosen_heroes_filled_in():
    with pytest.raises(Rejected, match="Klethor is chosen twice"):
        ex.prepare_options({"hero_1": "klethor", "hero_2": "Klethor"}, NAMES[:2], random.Random(0))
    with pytest.raises(Rejected, match="choose Xylia"):
        ex.prepare_options({"hero_1": "gandalf"}, NAMES[:2], random.Random(0))
    options = ex.prepare_options({"hero_2": "Sha'Vi"}, NAMES[:3], random.Random(0))
    assert options["heroes"] == ["xylia", "shavi", "klethor"]
    with pytest.raises(Rejected, match="no seat 3"):
        ex.prepare_options({"first_player": "3"}, NAMES[:3], random.Random(0))
    random_first = ex.prepare_options({"first_player": "random"}, NAMES[:4], random.Random(5))
    assert 0 <= random_first["first_player"] < 4


def test_solo_player_runs_two_heroes_as_a_two_player_game():
    state = new_game(1, heroes=["shavi", "bethras"])
    assert [(h["id"], h["seat"]) for h in state["heroes"]] == [("shavi", 0), ("bethras", 0)]
    with pytest.raises(Rejected, match="chosen twice"):
        ex.prepare_options({"hero_1": "xylia", "solo_hero": "xylia"}, ["Solo"], random.Random(0))
    # Two tiles in Phase 1, two turns, and the threat rises 3 times a round as with two players.
    state = act(state, "place_tile", kind="growth")
    assert state["phase"] == "growth"
    state = act(state, "place_tile", kind="growth")
    assert state["phase"] == "adventure" and state["stack"] == 20
    state = reveal(state, track=20)
    state = act(state, "end_turn")
    assert ex.view(state, 0)["active"] == "bethras"
    state = act(state, "end_turn")
    state = act(state, "end_round")
    assert state["boss"]["threat"] == 1 + 3
    # Every Hero card says whose it is.
    assert {h["owner"] for h in ex.view(state, 0)["heroes"]} == {"Ana"}


def test_setup_checklist_follows_the_choices():
    plain = ex.setup_checklist(new_game(2, heroes=["xylia", "klethor"]))
    text = " ".join(plain)
    assert "22 tiles" in text and "Regular Thorns" in text and "Inn cards" not in text
    assert "Ana: Xylia (green); Ben: Klethor (purple)" in text
    full = " ".join(ex.setup_checklist(new_game(2, thorns="difficult", inn="1", lairs="1",
                                                enraged_monsters="1", enraged_bosses="1")))
    assert "23 tiles" in full and "Difficult Thorns" in full and "Inn cards" in full
    assert "Lair A" in full and "Enraged Monsters card" in full and "Enraged Bosses card" in full
    assert new_game(2, inn="1")["stack"] == 23
    assert new_game(2, enraged_monsters="1")["enraged_types"] == list(ex.MONSTERS)


# ----------------------------------------------------------------- threat track


def test_three_player_round_adds_four_to_the_threat():
    # The rulebook's example: once per player's turn, then once at the end of the round.
    state = to_adventure(new_game(3))
    state = reveal(state, track=20)
    assert state["boss"]["threat"] == 1
    state = act(state, "end_turn")
    state = act(state, "end_turn")
    state = act(state, "end_turn")
    state = act(state, "end_round")
    assert state["boss"]["threat"] == 5
    state = play_round(state)
    assert state["boss"]["threat"] == 9
    assert any("end of round 2" in line for line in state["events"])


def test_each_automatic_threat_step_says_why():
    state = reveal(to_adventure(new_game(2)), track=20)
    state = act(state, "end_turn")
    assert "Threat +1: end of Ana's turn (now 2 of 20)." in state["events"]
    state = act(state, "threat_up")
    assert state["events"] == ["Threat +1: a Boss Combat skill (now 3 of 20)."]


def test_no_threat_before_the_boss_is_revealed_or_after_it_is_defeated():
    state = play_round(new_game(3))
    assert state["boss"]["threat"] == 0
    assert "not revealed" in refused(state, "threat_up")
    assert "not revealed" in refused(state, "defeat_boss")


def test_threat_reaching_the_last_space_loses_the_game():
    state = reveal(to_adventure(new_game(2)), track=4)
    state = act(state, "end_turn")  # 2
    state = act(state, "end_turn")  # 3
    state = act(state, "end_round")  # 4: the last space
    assert state["phase"] == "over"
    assert state["result"]["outcome"] == "lost" and state["result"]["threat"] == 4
    assert "last space" in state["result"]["reason"]
    assert state["round"] == 1 and state["result"]["rounds"] == 1
    assert "over" in refused(state, "end_turn", hero="xylia")
    # The tally stays correctable on the result screen.
    assert act(state, "tally", kind="snake", count=2)["monsters"]["snake"] == 2


def test_combat_skill_can_push_the_threat_to_the_end():
    state = reveal(to_adventure(new_game(2)), track=3)
    state = act(state, "threat_up")
    assert state["phase"] == "adventure"
    state = act(state, "threat_up")
    assert state["phase"] == "over" and state["result"]["outcome"] == "lost"


def test_enraged_boss_reminders_at_threat_5_and_8_for_fungor():
    state = reveal(to_adventure(new_game(2, enraged_bosses="1")), boss="fungor", track=12)
    assert "Enraged Fungor permanently has 4 health points." in state["events"]
    assert len(ex.view(state, 0)["boss_reminders"]) == 3
    for _ in range(3):
        state = act(state, "threat_up")
    assert state["boss"]["threat"] == 4
    state = act(state, "threat_up")
    assert any(line.startswith("Threat 5: Enraged Fungor does 1 damage") for line in state["events"])
    # The phones keep showing what is still to come on the track.
    assert [line[:9] for line in ex.view(state, 0)["boss_reminders"]] == ["Enraged F", "Threat 8:"]
    for _ in range(2):
        state = act(state, "threat_up")
        assert not any("Enraged" in line for line in state["events"])
    state = act(state, "threat_up")
    assert any(line.startswith("Threat 8: Enraged Fungor") for line in state["events"])
    # Without the card, no reminders.
    calm = reveal(to_adventure(new_game(2)), boss="fungor", track=12)
    for _ in range(7):
        calm = act(calm, "threat_up")
        assert not any("Enraged" in line for line in calm["events"])


def test_enraged_aethera_reminds_at_5_only():
    state = reveal(to_adventure(new_game(2, enraged_bosses="1")), boss="aethera", track=12)
    seen = []
    for _ in range(8):
        state = act(state, "threat_up")
        seen += [line for line in state["events"] if "Enraged" in line]
    assert seen == ["Threat 5: Enraged Aethera adds a Monster to the Boss's tile."]


def test_boss_is_named_once_and_can_be_another_boss():
    state = reveal(to_adventure(new_game(2)), boss="other", track=9)
    assert state["boss"]["name"] == "Another Boss"
    assert "already revealed" in refused(state, "reveal_boss", boss="sylva", track=9)
    named = act(to_adventure(new_game(2)), "reveal_boss", boss="other", name="The Moss King", track=9)
    assert named["boss"]["name"] == "The Moss King"
    assert "below the lowest" in refused(to_adventure(new_game(2)), "reveal_boss", boss="sylva",
                                         track=1)


def test_threat_correction_stays_on_the_track():
    state = reveal(to_adventure(new_game(2)), track=10)
    assert "10 spaces" in refused(state, "set_threat", threat=11)
    assert act(state, "set_threat", threat=6)["boss"]["threat"] == 6
    assert act(state, "set_threat", threat=10)["phase"] == "over"


# ----------------------------------------------------------------- forest stack


def test_stack_counts_growth_high_risk_and_xylia_tiles():
    state = new_game(2, heroes=["xylia", "klethor"])
    assert state["stack"] == 22
    state = act(state, "place_tile", kind="growth")
    assert "Next tile: Ben." in state["events"]
    state = act(state, "place_tile", kind="growth")
    assert state["phase"] == "adventure" and state["stack"] == 20
    state = act(state, "place_tile", kind="high_risk")
    assert state["stack"] == 19 and hero(state, "xylia")["orbs"] == 1
    assert "High-Risk Movement by Xylia: +1 orb" in state["events"][0]
    # Xylia's extra tile needs her first Power, and comes after the last player's tile.
    state = act(state, "set_orbs", hero="xylia", orbs=3)
    state = act(state, "unlock_power", hero="xylia")
    state = act(state, "end_turn")
    state = act(state, "end_turn")
    state = act(state, "end_round")
    assert "Xylia places her extra tile" in refused(state, "place_tile", kind="xylia")
    state = place_all(state)
    assert state["phase"] == "growth" and ex.view(state, 0)["xylia_extra_open"]
    state = act(state, "place_tile", kind="xylia")
    assert state["phase"] == "adventure" and state["stack"] == 16
    assert state["placed"] == {"growth": 4, "high_risk": 1, "xylia": 1, "corrected": 0}


def test_xylia_may_skip_her_extra_tile():
    state = new_game(2, heroes=["xylia", "klethor"])
    state = act(state, "set_powers", hero="xylia", powers=1)
    state = place_all(state)
    assert state["phase"] == "growth"
    state = act(state, "start_adventure")
    assert state["phase"] == "adventure" and "Xylia places no extra tile this round." in state["events"]


def test_growth_tile_refused_out_of_phase_1():
    state = to_adventure(new_game(2))
    assert refused(state, "place_tile", kind="growth", hero="klethor") == (
        "That was for Ben's tile, which is already placed; it is now Xylia's turn (Ana).")
    assert "Name the Hero" in refused(state, "place_tile", kind="growth")
    assert "Adventure turn" in refused(new_game(2), "place_tile", kind="high_risk")


def test_empty_stack_reveals_the_boss_when_a_tile_must_be_added():
    state = new_game(3)
    state = act(state, "set_stack", stack=1)
    state = act(state, "place_tile", kind="growth")  # Ana takes the last tile
    # Ben must add a tile, the stack is empty, the Boss is hidden: the app reveals it.
    assert state["boss"]["revealed"] and state["boss"]["threat"] == 1
    assert state["boss"]["name"] is None
    assert any("stack is empty and a tile must be added" in line for line in state["events"])
    assert state["phase"] == "adventure"
    # The players name it and give its track once.
    state = reveal(state, boss="venomia", track=15)
    assert state["boss"]["name"] == "Venomia, Sentinel of Snakes" and state["boss"]["threat"] == 1
    assert "empty" in refused(state, "place_tile", kind="high_risk")


def test_empty_stack_at_a_new_round_reveals_the_boss_then_skips_phase_1():
    state = to_adventure(new_game(2))
    state = act(state, "set_stack", stack=0)
    state = act(state, "end_turn")
    state = act(state, "end_turn")
    state = act(state, "end_round")
    assert state["boss"]["revealed"] and state["phase"] == "adventure" and state["round"] == 2
    # With the Boss already out, the next Phase 1 has nothing to place.
    state = act(state, "end_turn")
    state = act(state, "end_turn")
    state = act(state, "end_round")
    assert state["phase"] == "adventure" and "no more tiles to place" in " ".join(state["events"])


def test_threat_counted_before_naming_and_naming_a_used_up_track_loses():
    state = new_game(2)
    state = act(state, "set_stack", stack=1)
    state = act(state, "place_tile", kind="growth")  # the Boss comes out unnamed, on space 1
    state = act(state, "end_turn")
    state = act(state, "end_turn")
    state = act(state, "end_round")
    assert state["boss"]["threat"] == 4 and state["boss"]["name"] is None
    assert state["phase"] == "adventure"
    lost = reveal(state, track=3)
    assert lost["phase"] == "over" and lost["boss"]["threat"] == 3


def test_emptying_the_stack_by_hand_while_a_tile_is_due_reveals_the_boss():
    state = act(new_game(2), "place_tile", kind="growth")
    state = act(state, "set_stack", stack=0)
    assert state["boss"]["revealed"] and state["phase"] == "adventure"


def test_stack_correction_keeps_the_counts_adding_up():
    state = act(new_game(2), "set_stack", stack=10)
    assert state["stack"] + ex.tiles_placed(state) == 22
    assert "started with 22" in refused(state, "set_stack", stack=23)


# ----------------------------------------------------------------- heroes


def test_hp_and_orbs_caps_refused_with_the_rulebooks_words():
    state = new_game(2)
    assert refused(state, "set_hp", hero="xylia", hp=6) == "A Hero's HP can never exceed 5."
    assert "below 0" in refused(state, "set_hp", hero="xylia", hp=-1)
    assert refused(state, "set_orbs", hero="xylia", orbs=11) == "A Hero can never have more than 10 orbs."
    assert "below 0" in refused(state, "set_orbs", hero="xylia", orbs=-1)
    assert "not in this game" in refused(state, "set_hp", hero="bethras", hp=3)
    # High-Risk Movement and Concentration never push orbs past 10.
    state = to_adventure(state)
    state = act(state, "set_orbs", hero="xylia", orbs=10)
    state = act(state, "place_tile", kind="high_risk")
    assert hero(state, "xylia")["orbs"] == 10 and "no orb" in state["events"][0]
    state = act(state, "concentrate", hero="xylia", on="1")
    state = act(state, "end_turn")
    assert hero(state, "xylia")["orbs"] == 10
    assert any("already has 10 orbs" in line for line in state["events"])


def test_markers_at_most_one_each():
    state = act(new_game(2), "set_marker", hero="klethor", marker="poison", on="1")
    assert "at most one" in refused(state, "set_marker", hero="klethor", marker="poison", on="1")
    assert "no Thorns marker" in refused(state, "set_marker", hero="klethor", marker="thorns", on="0")
    state = act(state, "set_marker", hero="klethor", marker="thorns", on="1")
    assert hero(state, "klethor")["poison"] and hero(state, "klethor")["thorns"]


def test_knock_down_discards_markers_at_once():
    state = act(new_game(2), "set_marker", hero="klethor", marker="poison", on="1")
    state = act(state, "set_marker", hero="klethor", marker="thorns", on="1")
    state = act(state, "set_hp", hero="klethor", hp=0)
    klethor = hero(state, "klethor")
    assert klethor["hp"] == 0 and not klethor["poison"] and not klethor["thorns"]
    assert "Klethor is knocked down and discards the Poison and Thorns markers." in state["events"][0]
    assert "knocked down" in refused(state, "set_marker", hero="klethor", marker="poison", on="1")
    assert ex.view(state, 0)["heroes"][1]["down"]


def test_poison_costs_1_hp_at_the_start_of_the_turn():
    state = new_game(2)
    state = act(state, "set_marker", hero="klethor", marker="poison", on="1")
    state = to_adventure(state)
    assert hero(state, "klethor")["hp"] == 5  # not Klethor's turn yet
    state = act(state, "end_turn")
    assert hero(state, "klethor")["hp"] == 4
    assert "Poison: Klethor loses 1 HP at the start of his turn (5 → 4 HP)." in state["events"]
    assert hero(state, "klethor")["poison"]  # the marker stays until removed


def test_poison_knocking_down_the_active_hero_ends_their_turn_and_drops_the_marker():
    state = new_game(2)
    state = act(state, "set_hp", hero="xylia", hp=1)
    state = act(state, "set_marker", hero="xylia", marker="poison", on="1")
    state = place_all(state)
    assert hero(state, "xylia")["hp"] == 0 and not hero(state, "xylia")["poison"]
    assert any("Her turn is over: tap End turn." in line for line in state["events"])
    assert state["phase"] == "adventure"


def test_all_heroes_knocked_down_loses():
    state = to_adventure(new_game(2))
    state = act(state, "set_hp", hero="xylia", hp=0)
    assert state["phase"] == "adventure"
    state = act(state, "set_hp", hero="klethor", hp=0)
    assert state["phase"] == "over" and state["result"]["outcome"] == "lost"
    assert "Every Hero is knocked down" in state["result"]["reason"]
    assert state["result"]["threat"] is None


def test_poison_knocking_down_the_last_hero_standing_loses():
    state = new_game(2)
    state = act(state, "set_hp", hero="xylia", hp=0)
    state = act(state, "set_hp", hero="klethor", hp=1)
    state = act(state, "set_marker", hero="klethor", marker="poison", on="1")
    state = to_adventure(state)
    state = act(state, "end_turn")
    assert state["phase"] == "over" and state["result"]["outcome"] == "lost"


def test_power_costs_3_then_5_and_8_for_both_in_one_turn():
    state = to_adventure(new_game(2))
    state = act(state, "set_orbs", hero="xylia", orbs=2)
    assert refused(state, "unlock_power", hero="xylia") == \
        "Xylia has 2 orbs; the first Power costs 3."
    state = act(state, "set_orbs", hero="xylia", orbs=7)
    state = act(state, "unlock_power", hero="xylia")
    assert hero(state, "xylia")["powers"] == 1 and hero(state, "xylia")["orbs"] == 4
    assert refused(state, "unlock_power", hero="xylia") == \
        "Xylia has 4 orbs; the second Power costs 5."
    state = act(state, "set_orbs", hero="xylia", orbs=5)
    state = act(state, "unlock_power", hero="xylia")
    assert hero(state, "xylia")["powers"] == 2 and hero(state, "xylia")["orbs"] == 0
    assert "both" in refused(state, "unlock_power", hero="xylia")

    both = to_adventure(new_game(2))
    both = act(both, "set_orbs", hero="xylia", orbs=7)
    assert refused(both, "unlock_power", hero="xylia", both="1") == \
        "Xylia has 7 orbs; both Powers costs 8."
    both = act(both, "set_orbs", hero="xylia", orbs=9)
    both = act(both, "unlock_power", hero="xylia", both="1")
    assert hero(both, "xylia")["powers"] == 2 and hero(both, "xylia")["orbs"] == 1
    assert ex.power_cost(0, False) == 3 and ex.power_cost(1, False) == 5 and ex.power_cost(0, True) == 8


def test_powers_are_unlocked_by_the_active_hero_and_corrected_by_hand():
    state = act(to_adventure(new_game(2)), "set_orbs", hero="klethor", orbs=5)
    assert "Xylia's turn" in refused(state, "unlock_power", hero="klethor")
    state = act(state, "set_powers", hero="klethor", powers=2)
    assert hero(state, "klethor")["powers"] == 2 and hero(state, "klethor")["orbs"] == 5


def test_concentration_orb_arrives_at_the_end_of_the_turn():
    state = to_adventure(new_game(2))
    state = act(state, "concentrate", hero="xylia", on="1")
    assert hero(state, "xylia")["orbs"] == 0 and hero(state, "xylia")["concentration"]
    assert "active Hero" in refused(state, "concentrate", hero="klethor", on="1")
    state = act(state, "end_turn")
    assert hero(state, "xylia")["orbs"] == 1 and not hero(state, "xylia")["concentration"]
    assert "Concentration: Xylia gains 1 orb (now 1)." in state["events"]


def test_first_aid_costs_one_orb_per_hero_and_stands_up_at_1_hp():
    # The rulebook's example: Xylia down in a 3-player game, Bethras spends 3 orbs.
    state = new_game(3, heroes=["bethras", "xylia", "klethor"])
    state = act(state, "set_hp", hero="xylia", hp=0)
    state = to_adventure(state)
    state = act(state, "set_orbs", hero="bethras", orbs=2)
    assert refused(state, "first_aid", hero="xylia") == \
        "First Aid costs 3 orbs (one per Hero in play); Bethras has 2."
    state = act(state, "set_orbs", hero="bethras", orbs=4)
    state = act(state, "first_aid", hero="xylia")
    assert hero(state, "xylia")["hp"] == 1 and hero(state, "bethras")["orbs"] == 1
    assert "not knocked down" in refused(state, "first_aid", hero="klethor")
    # Solo: two Heroes in play, two orbs.
    solo = to_adventure(new_game(1, heroes=["shavi", "klethor"]))
    solo = act(solo, "set_hp", hero="klethor", hp=0)
    solo = act(solo, "set_orbs", hero="shavi", orbs=2)
    assert hero(act(solo, "first_aid", hero="klethor"), "shavi")["orbs"] == 0


def test_loot_three_slots_by_name():
    state = new_game(2)
    for card in ("Boots", "Mace", "Healing Potion"):
        state = act(state, "add_loot", hero="xylia", name=card)
    assert "slots are full" in refused(state, "add_loot", hero="xylia", name="Heavy Armor")
    state = act(state, "give_loot", hero="xylia", index=1, to="klethor")
    assert hero(state, "xylia")["loot"] == ["Boots", "Healing Potion"]
    assert hero(state, "klethor")["loot"] == ["Mace"]
    state = act(state, "remove_loot", hero="xylia", index=0)
    assert hero(state, "xylia")["loot"] == ["Healing Potion"]
    assert "1 Loot card" in refused(state, "remove_loot", hero="xylia", index=2)
    assert "needed" in refused(state, "add_loot", hero="xylia", name="  ")


def test_monsters_tallied_by_type():
    state = act(new_game(2), "tally", kind="mushroom", count=2)
    state = act(state, "tally", kind="spirit", count=1)
    view = ex.view(state, None)
    assert view["monsters_total"] == 3
    assert {m["kind"]: m["count"] for m in view["monsters"]}["mushroom"] == 2


# ----------------------------------------------------------------- turns and the end


def test_turns_go_in_seat_order_from_the_first_player_every_round():
    state = to_adventure(new_game(3, first=1))
    order = []
    for _ in range(3):
        order.append(ex.view(state, None)["active_owner"])
        state = act(state, "end_turn")
    assert order == ["Ben", "Cara", "Ana"]
    assert ex.view(state, None)["round_done"]
    assert "tap End round" in refused(state, "end_turn", hero="xylia")
    state = act(state, "end_round")
    assert state["round"] == 2 and ex.view(state, None)["placer_owner"] == "Ben"


def test_end_round_waits_for_every_turn():
    state = to_adventure(new_game(3))
    assert "Xylia, Klethor and Sha'Vi" in refused(state, "end_round")
    assert "Phase 1" in refused(new_game(3), "end_turn", hero="xylia")


def test_knocked_down_hero_keeps_their_turn_and_the_threat_still_rises():
    state = reveal(to_adventure(new_game(2)), track=20)
    state = act(state, "set_hp", hero="klethor", hp=0)
    state = act(state, "end_turn")
    assert ex.view(state, None)["active"] == "klethor"
    assert any("knocked down. On the Campfire" in line for line in state["events"])
    state = act(state, "end_turn")
    assert state["boss"]["threat"] == 3


def test_defeating_the_boss_wins_and_the_result_says_rounds_threat_and_monsters():
    state = play_round(new_game(2))
    state = to_adventure(state)
    state = reveal(state, boss="grimnor", track=14)
    state = act(state, "tally", kind="skeleton", count=3)
    state = act(state, "tally", kind="plant", count=1)
    state = act(state, "end_turn")
    state = act(state, "defeat_boss")
    assert state["phase"] == "over"
    result = ex.view(state, 1)["result"]
    assert result["outcome"] == "won" and result["rounds"] == 2 and result["threat"] == 2
    assert result["monsters"] == 4
    assert "Grimnor" in result["reason"]
    # The history records a team win at the chosen Thorns card, for every player.
    record = ex.outcome(state)
    assert record["cooperative"] and record["won"] and record["rounds"] == 2
    assert record["level"] == "Regular Thorns" and all(p["winner"] for p in record["players"])
    assert ex.outcome(reveal(to_adventure(play_round(new_game(2))))) is None


def test_describe_every_action_in_words():
    for name, spec in ex.ACTIONS.items():
        line = ex.describe(name, {"hero": "xylia", "to": "klethor", "kind": "high_risk",
                                  "marker": "poison", "on": True, "boss": "sylva", "track": 9},
                           0, NAMES[:2])
        assert line.startswith("Ana ") and name not in line
    assert ex.describe("set_hp", {"hero": ["x"]}, 9, NAMES[:2]) == "Someone set a Hero's HP to None"


# ----------------------------------------------------------------- properties

_HERO_IDS = st.sampled_from(ex.HEROES)
_GROWTH = st.tuples(st.just("place_tile"), st.just({"kind": "growth"}))
_END_TURN = st.tuples(st.just("end_turn"), st.just({}))
# The clock's steps are drawn often, so that sequences live through several rounds.
_STEPS = st.one_of(
    _GROWTH, _GROWTH, _GROWTH, _END_TURN, _END_TURN, _END_TURN, _END_TURN,
    st.tuples(st.just("end_round"), st.just({})),
    st.tuples(st.just("place_tile"), st.fixed_dictionaries({"kind": st.sampled_from(ex.TILE_KINDS)})),
    st.tuples(st.just("start_adventure"), st.just({})),
    st.tuples(st.just("end_turn"), st.just({})),
    st.tuples(st.just("end_round"), st.just({})),
    st.tuples(st.just("set_hp"), st.fixed_dictionaries({"hero": _HERO_IDS, "hp": st.integers(-3, 8)})),
    st.tuples(st.just("set_orbs"), st.fixed_dictionaries({"hero": _HERO_IDS,
                                                          "orbs": st.integers(-3, 13)})),
    st.tuples(st.just("set_marker"), st.fixed_dictionaries(
        {"hero": _HERO_IDS, "marker": st.sampled_from(ex.MARKERS), "on": st.booleans()})),
    st.tuples(st.just("concentrate"), st.fixed_dictionaries({"hero": _HERO_IDS, "on": st.booleans()})),
    st.tuples(st.just("unlock_power"), st.fixed_dictionaries({"hero": _HERO_IDS, "both": st.booleans()})),
    st.tuples(st.just("first_aid"), st.fixed_dictionaries({"hero": _HERO_IDS})),
    st.tuples(st.just("reveal_boss"), st.fixed_dictionaries(
        {"boss": st.sampled_from(ex.BOSSES), "track": st.integers(2, 16)})),
    st.tuples(st.just("threat_up"), st.just({})),
    st.tuples(st.just("set_stack"), st.fixed_dictionaries({"stack": st.integers(0, 23)})),
    st.tuples(st.just("add_loot"), st.fixed_dictionaries({"hero": _HERO_IDS, "name": st.just("Boots")})),
    st.tuples(st.just("tally"), st.fixed_dictionaries({"kind": st.sampled_from(ex.MONSTERS),
                                                       "count": st.integers(0, 5)})),
)


@settings(max_examples=150, deadline=None)
@given(players=st.integers(1, 4), inn=st.booleans(), steps=st.lists(_STEPS, min_size=20, max_size=80))
def test_ranges_markers_and_tile_counts_hold_whatever_the_actions(players, inn, steps):
    state = new_game(players, inn="1" if inn else "")
    for name, params in steps:
        try:
            state = act(state, name, **params)
        except Rejected:
            continue
        for h in state["heroes"]:
            assert 0 <= h["hp"] <= ex.MAX_HP
            assert 0 <= h["orbs"] <= ex.MAX_ORBS
            assert 0 <= h["powers"] <= 2 and len(h["loot"]) <= ex.LOOT_SLOTS
            if h["hp"] == 0:
                assert not h["poison"] and not h["thorns"], "a knocked-down Hero holds a marker"
        assert 0 <= state["stack"] <= state["stack_total"]
        assert state["stack"] + ex.tiles_placed(state) == state["stack_total"]
        boss = state["boss"]
        if boss["track"]:
            assert boss["threat"] <= boss["track"]
            if boss["threat"] == boss["track"]:
                assert state["result"]["outcome"] == "lost"
        if all(h["hp"] == 0 for h in state["heroes"]):
            assert state["phase"] == "over"
        if state["phase"] != "over":
            assert 0 <= state["turn"] <= len(state["heroes"])
        # The view of every state renders from plain data.
        ex.view(state, 0)


# ----------------------------------------------------------------- one tap, one step


def test_a_second_end_turn_for_the_same_hero_is_refused_and_changes_nothing():
    state = to_adventure(new_game(3))
    assert ex.view(state, None)["steps"]["end_turn"] == "xylia"
    state = act(state, "end_turn", hero="xylia")
    assert state["boss"]["threat"] == 0 and ex._active(state)["id"] == "klethor"
    assert refused(state, "end_turn", hero="xylia") == (
        "That was for Xylia's turn, which is already over; it is now Klethor's turn (Ben).")
    assert refused(state, "end_turn", hero="shavi") == (
        "That is for Sha'Vi's turn, which has not come yet; it is now Klethor's turn (Ben).")
    assert "Bethras is not in this game" in refused(state, "end_turn", hero="bethras")
    state = act(state, "end_turn", hero="klethor")
    state = act(state, "end_turn", hero="shavi")
    assert refused(state, "end_turn", hero="shavi") == (
        "That was for Sha'Vi's turn, which is already over; every Hero has played round 1: "
        "tap End round.")


def test_end_turn_counts_the_threat_once_per_named_turn():
    state = to_adventure(new_game(2))
    state = act(state, "reveal_boss", boss="fungor", track=9)
    state = act(state, "end_turn", hero="xylia")
    assert state["boss"]["threat"] == 2
    refused(state, "end_turn", hero="xylia")
    assert state["boss"]["threat"] == 2 and ex._active(state)["id"] == "klethor"


def test_a_second_end_round_or_start_adventure_is_refused_and_changes_nothing():
    state = play_round(to_adventure(new_game(2)))
    assert state["round"] == 2 and ex.view(state, None)["steps"]["end_round"] == 2
    assert refused(state, "end_round", round=1) == (
        "That was for the end of round 1, which is already over; it is now round 2, Ana to "
        "place a tile.")
    assert "has not come yet" in refused(state, "end_round", round=3)
    assert refused(state, "start_adventure", round=1) == (
        "That was for the Forest Growth of round 1, which is already over; it is now round 2, "
        "Ana to place a tile.")


def test_a_second_growth_tile_for_the_same_player_is_refused_and_changes_nothing():
    state = new_game(2)
    assert ex.view(state, None)["steps"]["place_tile"] == "xylia"
    state = act(state, "place_tile", kind="growth", hero="xylia")
    assert state["stack"] == 21
    assert refused(state, "place_tile", kind="growth", hero="xylia") == (
        "That was for Ana's tile, which is already placed; it is now round 1, Ben to place a tile.")
    assert refused(state, "place_tile", kind="growth", hero=None) == (
        "Name the Hero whose Forest Growth tile this is.")
    state = act(state, "place_tile", kind="growth", hero="klethor")
    assert state["stack"] == 20 and state["phase"] == "adventure"


def test_a_solo_players_tiles_are_named_by_hero():
    state = new_game(1, heroes=["xylia", "klethor"])
    state = act(state, "place_tile", kind="growth", hero="xylia")
    assert refused(state, "place_tile", kind="growth", hero="xylia") == (
        "That was for Xylia's tile, which is already placed; it is now round 1, Klethor (Ana) "
        "to place a tile.")
    assert "has not come yet" in refused(new_game(1, heroes=["xylia", "klethor"]), "place_tile",
                                         kind="growth", hero="klethor")


def test_a_late_tile_while_xylia_may_place_her_extra_one_says_so():
    state = act(new_game(2), "set_powers", hero="xylia", powers=1)
    state = place_all(state)
    assert ex.view(state, None)["xylia_extra_open"]
    assert refused(state, "place_tile", kind="growth", hero="klethor") == (
        "That was for Ben's tile, which is already placed; it is now round 1: Xylia may place "
        "her extra tile or start the Adventure.")
