"""The results the co-operative games hand the history, and the campaign record a chapter's end
writes, each word for word: pure, on the states the rules leave at an ending."""

import random

import pytest

from companion.games import explorers_campaign as camp
from companion.games import explorers_of_the_woodlands as ex
from companion.games import json_view
from companion.games import mysterious_forest as mf
from companion.games.base import Rejected

from .test_explorers_chapter_rules import standalone


def team(won):
    return [{"seat": 0, "name": "Ana", "score": None, "place": None, "winner": won},
            {"seat": 1, "name": "Ben", "score": None, "place": None, "winner": won}]


# ----------------------------------------------------------------- The Mysterious Forest


def mf_state(phase="over", result="won", level="budding", card=None):
    return {"phase": phase, "result": result, "level": level, "players": ["Ana", "Ben"],
            "ended_at_card": card}


def test_the_mysterious_forest_outcome_word_for_word():
    assert mf.outcome(mf_state()) == {
        "cooperative": True, "won": True, "level": "Budding Explorers", "players": team(True),
        "rounds": 1, "score_by_round": None,
        "summary": "Jonas beat the Queen of the Draconia at Budding Explorers."}
    assert mf.outcome(mf_state(result="lost", level="heroes", card=6)) == {
        "cooperative": True, "won": False, "level": "Heroes of the Forest", "players": team(False),
        "rounds": 1, "score_by_round": None,
        "summary": "The expedition stopped at card 6, Heroes of the Forest."}


def test_the_mysterious_forest_has_no_outcome_before_its_end():
    assert mf.outcome(mf_state(phase="expedition")) is None
    assert mf.outcome(mf_state(result=None)) is None


# ----------------------------------------------------------------- Explorers of the Woodlands


def ex_state(outcome="won", chapter=None, phase=ex.PHASE_OVER):
    return {"phase": phase, "chapter": chapter, "thorns_card": "difficult",
            "players": ["Ana", "Ben"],
            "result": {"outcome": outcome, "reason": "Because.", "rounds": 4, "threat": 3}}


def test_the_explorers_outcome_word_for_word():
    assert ex.outcome(ex_state()) == {
        "cooperative": True, "won": True, "level": "Difficult Thorns", "players": team(True),
        "rounds": 4, "score_by_round": None, "summary": "Victory! Because."}
    assert ex.outcome(ex_state("lost", chapter=3)) == {
        "cooperative": True, "won": False, "level": "Chapter 3 · Tree of Life (part 2)",
        "players": team(False), "rounds": 4, "score_by_round": None,
        "summary": "Defeat. Because."}


def test_the_explorers_outcome_waits_for_the_end():
    assert ex.outcome(ex_state(phase=ex.PHASE_ADVENTURE)) is None
    assert ex.outcome({**ex_state(), "result": None}) is None


def test_a_monster_on_the_well_loses_chapter_3_and_belongs_to_it():
    state = ex.apply(standalone(3), "well_overrun", {}, 0)
    assert state["result"]["outcome"] == "lost"
    assert state["result"]["reason"] == ("A Monster marker is on the Energy Well tile at the end "
                                         "of the round.")
    with pytest.raises(Rejected) as info:
        ex.apply(standalone(4), "well_overrun", {}, 0)
    assert info.value.reason == "A Monster on the Energy Well belongs to chapter 3 of the campaign."


def test_each_chapters_stack_at_its_start():
    assert [camp.chapter_stack(n) for n in camp.CHAPTERS] == [18, 20, 0, 0, 20]


# ----------------------------------------------------------------- the campaign record


def heroes():
    return [{"id": "xylia", "hp": 2, "orbs": 4, "powers": 1, "loot": ["Bow"]},
            {"id": "klethor", "hp": 0, "orbs": 1, "powers": 0, "loot": []}]


def table_state(chapter, outcome="won", phase=ex.PHASE_OVER):
    return {"phase": phase, "chapter": chapter, "heroes": heroes(),
            "monsters": {"mushroom": 0, "plant": 3, "spirit": 5, "skeleton": 0, "snake": 1},
            "quest": {"campsites_empty": 4},
            "result": {"outcome": outcome, "reason": "Done.", "rounds": 2, "threat": None}}


def campaign_at(chapter):
    c = camp.new_campaign("Test", ["Ana", "Ben"], ["xylia", "klethor"], 0, "regular")
    return {**c, "chapter": chapter, "table": "K7QM"}


def test_a_won_chapter_is_recorded_word_for_word():
    new, events = camp.record_result(campaign_at(2), "K7QM", table_state(2), random.Random(1))
    draw = {"counts": {"mushroom": 0, "plant": 3, "skeleton": 0, "snake": 1}, "type": "plant",
            "how": "most", "among": []}
    assert new["recorded"] == {"K7QM": {"chapter": 2, "outcome": "won", "draw": draw}}
    assert (new["table"], new["chapter"], new["finished"], new["enraged"]) == (None, 3, False,
                                                                              ["plant"])
    assert new["results"]["2"] == "won" and new["awaiting_discards"] is False
    assert new["carry"]["xylia"] == {"hp": 3, "orbs": 4, "powers": 1, "loot": ["Bow"]}
    assert events == ["Chapter 2 won: Done.",
                      "Carried into chapter 3: Powers, Loot and orbs; each Hero recovers only 1 "
                      "HP; status markers discarded.",
                      "The Forest Awakens: Plants were defeated most (3) and become Enraged."]


def test_the_fifth_chapter_won_ends_the_campaign():
    new, events = camp.record_result(campaign_at(5), "K7QM", table_state(5), random.Random(1))
    assert new["finished"] is True and new["chapter"] == 5 and new["enraged"] == []
    assert new["recorded"]["K7QM"] == {"chapter": 5, "outcome": "won", "draw": None}
    assert events == ["Chapter 5 won: Done.",
                      "The campaign is won: the forest is saved. Congratulations!"]


def test_a_lost_chapter_is_recorded_word_for_word():
    new, events = camp.record_result(campaign_at(3), "K7QM", table_state(3, "lost"),
                                     random.Random(1))
    assert new["results"] == {"1": None, "2": None, "3": "lost", "4": None, "5": None}
    assert new["awaiting_discards"] is True and new["table"] is None and new["chapter"] == 3
    assert new["recorded"] == {"K7QM": {"chapter": 3, "outcome": "lost", "draw": None}}
    assert events == ["Chapter 3 lost: Done. Each Hero discards one Loot card, then the chapter "
                      "starts again from its saved starting state."]


def test_a_chapter_4_won_with_every_campsite_raises_chapter_5s_corruption():
    new, _ = camp.record_result(campaign_at(4), "K7QM", table_state(4), random.Random(1))
    assert new["all_campsites"] is True and new["carry"]["klethor"]["hp"] == 5


@pytest.mark.parametrize("code, state", [
    ("OTHR", table_state(1)),  # not the campaign's current table
    ("K7QM", table_state(1, phase=ex.PHASE_ADVENTURE)),  # not over yet
    ("K7QM", {**table_state(1), "result": None}),  # over without a result
])
def test_a_table_that_is_not_the_current_chapters_end_records_nothing(code, state):
    campaign = campaign_at(1)
    assert camp.record_result(campaign, code, state, random.Random(1)) == (campaign, [])


def test_a_table_recorded_once_is_never_recorded_again():
    campaign = {**campaign_at(1), "recorded": {"K7QM": {"chapter": 1}}}
    assert camp.record_result(campaign, "K7QM", table_state(1), random.Random(1)) == (campaign, [])


# ----------------------------------------------------------------- the JSON view


class _Game:
    STATE = {"phase": "over"}

    def view(self, state, seat):
        return {"state_seen": state is self.STATE, "seat": seat, "winners": [0]}

    def outcome(self, state):
        if state is not self.STATE:
            return None
        return {"cooperative": True, "won": True, "players": team(True)[:1]}


def test_the_json_view_is_the_seats_view_with_the_one_result():
    view = json_view(_Game(), _Game.STATE, 1)
    assert view == {"state_seen": True, "seat": 1,
                    "result": {"places": [{"place": 1, "seat": 0, "name": "Ana", "score": None}],
                               "scores": [None], "winners": [0], "sentence": "",
                               "cooperative": True, "ended_early": False}}


# ----------------------------------------------------------------- every ending's words


def act(state, action, **params):
    from .test_explorers_campaign_rules import act as rules_act
    return rules_act(state, action, **params)


def test_chapter_2_orb_markers_said_then_the_fourth_lost_loses():
    state = act(standalone(2), "quest", counter="markers_carried", value=1)
    state = act(state, "quest", counter="markers_lost", value=1)
    assert state["events"][-1] == ("Orb markers: 2 held by the Heroes, 1 carried by Monsters, 1 "
                                   "lost (4 lost is defeat).")
    state = act(state, "quest", counter="markers_carried", value=0)
    state = act(state, "quest", counter="markers_lost", value=4)
    assert state["result"]["reason"] == "All 4 Orb markers are lost."
    assert state["events"][-1] == "Defeat. All 4 Orb markers are lost."


def test_chapter_1_the_ambush_and_the_victory_word_for_word():
    state = act(standalone(1), "quest", counter="potions", value=2)
    assert state["events"][-1] == ("Monsters are watching you! Draw 3 Monster markers (1 + 1 per "
                                   "Hero) and put them on the Campfire tile: defeat them all to "
                                   "win.")
    state = act(state, "quest", counter="campfire_monsters", value=0)
    assert state["result"]["reason"] == ("The 2 potions are concocted and the Campfire is clear of "
                                         "Monsters: the elder is saved!")
    assert state["events"][-1] == "Victory! " + state["result"]["reason"]


def test_chapter_3_and_5_victories_word_for_word():
    state = act(act(standalone(3), "reveal_boss", boss="aethera", track=12), "defeat_boss")
    state = act(state, "tally", kind="snake", count=10)
    assert state["result"]["reason"] == "1 Boss and 10 Monsters defeated: the Energy Well holds!"
    state = standalone(5)
    for n in range(1, 5):
        state = act(state, "quest", counter="totems", value=n)
    assert state["result"]["reason"] == ("The 4 totems are active and no Boss remains: the forest "
                                         "is purified!")


def test_chapter_4_ending_word_for_word():
    with pytest.raises(Rejected) as info:
        act(standalone(3), "claim_victory")
    assert info.value.reason == "Ending the chapter belongs to chapter 4 of the campaign."
    state = act(standalone(4), "quest", counter="campsites_found", value=4)
    state = act(state, "quest", counter="campsites_empty", value=4)
    state = act(state, "claim_victory")
    assert state["result"]["reason"] == "Your equipment is recovered!"
    state = act(standalone(4), "quest", counter="campsites_found", value=3)
    state = act(state, "quest", counter="campsites_empty", value=3)
    state = act(state, "quest", counter="campsites_empty", value=2)
    state = act(act(state, "set_hp", hero="xylia", hp=0), "set_hp", hero="klethor", hp=0)
    assert state["result"]["reason"] == (
        "Every Hero is knocked down at the same time. The victory achieved with 3 campsites empty "
        "at the same time stands. The 4th campsite was not emptied: the last Loot pile is "
        "discarded, your equipment is in the monsters' hands now.")
    assert state["events"][-2] == "Victory! " + state["result"]["reason"]


def victory(empty, piles, due):
    return camp.victory_text({"quest": {"campsites_empty": empty, "piles": piles,
                                        "piles_due": due}}, "Won.")


def test_only_the_pile_no_campsite_paid_for_is_discarded():
    lost = ("Won. The 4th campsite was not emptied: the last Loot pile is discarded, your "
            "equipment is in the monsters' hands now.")
    assert victory(3, [[], [], [], ["d"]], 0) == lost
    assert victory(3, [[], [], ["c"], ["d"]], 1) == lost
    assert victory(3, [[], [], [], ["d"]], 1) == "Won."  # the one left is due: taken, not lost
    assert victory(4, [[], [], [], ["d"]], 0) == "Won."
    assert victory(4, [[], ["b"], ["c"], []], 1) == "Won."


def test_the_loot_due_and_what_waits_word_for_word():
    assert camp.loot_due({"chapter": 4, "quest": {"piles": [["a"]]}}) == {"piles": 0, "chests": 0}
    assert camp.loot_due({"chapter": 4, "quest": {"piles": [["a"], [], ["b"]], "piles_due": 3}}) \
        == {"piles": 2, "chests": 0}
    won = {"result": {"outcome": "won"}, "chapter": 4,
           "quest": {"piles": [["a"], ["b"]], "piles_due": 2, "chests_due": 1}}
    assert camp.loot_waiting(won) == ("Before confirming the end: the active player takes 2 Loot "
                                      "piles and draw a Loot card from the Boss's chests for the "
                                      "Heroes who defeated it, so the next chapter has them.")


def test_party_size_is_two_to_four():
    assert [camp.party_size(n) for n in (1, 2, 3, 4, 5)] == [2, 2, 3, 4, 4]


def test_a_roll_with_one_space_left_takes_its_loki_and_no_equipment():
    state = {**mf.setup(["Ana"], {"first_player": 0, "level": "standard", "backpack_size": 5}),
             "rolls": ["loki_equipment"]}
    assert mf.roll_fills(state) == [{"loki": 1, "equipment": 0, "no_token": 0, "no_room": 1}]


def test_the_stack_count_and_its_correction_take_their_bounds_and_say_so():
    state = act(standalone(1), "set_stack", stack=18)  # the most it holds is allowed
    assert state["stack_total"] == 18
    classic = ex.setup(["Ana", "Ben"], ex.prepare_options({"first_player": "0"}, ["Ana", "Ben"],
                                                          random.Random(1)))
    state = act(act(classic, "place_tile", kind="growth"), "set_stack", stack=22)
    assert state["events"] == ["Forest stack set to 22 tiles."]


def test_a_new_enraged_type_takes_its_place_in_the_types_order():
    campaign = {**campaign_at(1), "enraged": ["snake"]}
    new, _ = camp.record_result(campaign, "K7QM", table_state(1), random.Random(1))
    assert new["enraged"] == ["plant", "snake"]


def test_the_boss_track_at_its_last_space_loses_word_for_word():
    state = act(act(standalone(4), "reveal_boss", boss="grimnor", track=12), "set_threat", threat=12)
    assert state["result"]["reason"] == "The Boss's threat reached the last space of its track (12)."
