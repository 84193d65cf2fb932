"""Explorers of the Woodlands, Campaign Mode: chapter goals and defeats, carry-over, The Forest
Awakens, and the campaign record surviving a server restart."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion import campaigns, create_app, store, tables
from companion.dialects import run_text
from companion.games import explorers_campaign as camp
from companion.games import explorers_of_the_woodlands as ex
from companion.games.base import Rejected

from .helpers import name_step

NAMES = ["Ana", "Ben", "Cara", "Dan"]
HEROES = list(ex.HEROES)


def campaign(players=2):
    names = NAMES[:players]
    heroes = HEROES[:players + (1 if players == 1 else 0)]
    return camp.new_campaign("Test", names, heroes, 0, "regular")


def chapter_table(chapter, players=2, carry=None, enraged=(), all_campsites=False, seed=1):
    c = campaign(players)
    c["chapter"] = chapter
    c["all_campsites"] = all_campsites
    c["enraged"] = list(enraged)
    if carry:
        for hero, values in carry.items():
            c["carry"][hero].update(values)
    raw = camp.table_options(c, 7, random.Random(seed))
    names = NAMES[:players]
    return ex.setup(names, ex.prepare_options(raw, names, random.Random(seed)))


def act(state, action, seat=0, **params):
    return ex.apply(state, action, name_step(ex, state, action, params), seat)


def play_round(state):
    """End every Hero's turn and the round (and place tiles where the chapter has growth)."""
    while state["phase"] == ex.PHASE_GROWTH:
        state = act(state, "place_tile", kind="growth")
    while ex._active(state) is not None:
        state = act(state, "end_turn")
    return act(state, "end_round")


# ----------------------------------------------------------------- chapter 1


def test_chapter_1_two_potions_then_the_campfire_ambush_wins():
    state = chapter_table(1, players=3)
    assert state["chapter"] == 1 and state["boss"]["revealed"] is False
    for counter in camp.MUSHROOM_COLOURS:
        state = act(state, "quest", counter=counter, value=2)
    state = act(state, "quest", counter="vials", value=2)
    with pytest.raises(Rejected, match="costs 2 orbs; Xylia has 0"):
        act(state, "concoct", hero="xylia")
    state = act(state, "set_orbs", hero="xylia", orbs=4)
    state = act(state, "concoct", hero="xylia")
    assert state["quest"]["potions"] == 1 and state["heroes"][0]["orbs"] == 2
    assert [state["quest"][c] for c in camp.MUSHROOM_COLOURS] == [1, 1, 1]
    state = act(state, "concoct", hero="xylia")
    # 1 Monster marker plus 1 per Hero: 4 with three Heroes.
    assert state["quest"]["campfire_monsters"] == 4
    assert any("Monsters are watching you" in e for e in state["events"])
    assert state["phase"] != ex.PHASE_OVER
    state = act(state, "quest", counter="campfire_monsters", value=1)
    state = act(state, "quest", counter="campfire_monsters", value=0)
    assert state["result"]["outcome"] == "won"
    # The history counts the team's rate per chapter.
    assert ex.outcome(state)["level"] == "Chapter 1 · Mushrooms for the Elder"
    assert ex.outcome(state)["won"] is True


def test_chapter_1_refuses_a_potion_without_three_colours_or_with_monsters_on_the_campfire():
    state = chapter_table(1)
    state = act(state, "set_orbs", hero="xylia", orbs=5)
    state = act(state, "quest", counter="mushroom_a", value=2)
    state = act(state, "quest", counter="vials", value=1)
    with pytest.raises(Rejected, match="3 different colours"):
        act(state, "concoct", hero="xylia")
    # Six Mushroom markers in all.
    state = act(state, "quest", counter="mushroom_b", value=3)
    with pytest.raises(Rejected, match="6 Mushroom markers"):
        act(state, "quest", counter="mushroom_c", value=2)
    with pytest.raises(Rejected, match="2 Empty Vial"):
        act(state, "quest", counter="vials", value=3)


def test_chapter_1_all_heroes_knocked_down_is_defeat():
    state = chapter_table(1)
    state = act(state, "set_hp", hero="xylia", hp=0)
    state = act(state, "set_hp", hero="klethor", hp=0)
    assert state["result"]["outcome"] == "lost"


# ----------------------------------------------------------------- chapter 2


@pytest.mark.parametrize("players,heroes,needed", [(1, 2, 15), (2, 2, 15), (3, 3, 16), (4, 4, 18)])
def test_chapter_2_orbs_needed_by_player_count(players, heroes, needed):
    state = chapter_table(2, players=players)
    assert len(state["heroes"]) == heroes
    assert state["quest"]["orbs_needed"] == needed
    left = needed - 3
    for hero in state["heroes"]:
        state = act(state, "set_orbs", hero=hero["id"], orbs=min(10, left))
        left -= min(10, left)
    total = sum(h["orbs"] for h in state["heroes"])
    assert total == needed - 3
    with pytest.raises(Rejected, match=f"have {needed - 1} orbs with the Orb markers; the Energy "
                                       f"Well needs {needed}"):
        act(state, "energy_well", marker_orbs=2)
    due, pays = needed - 5, {}
    for hero in state["heroes"]:
        pays[f"pay_{hero['id']}"] = min(due, hero["orbs"])
        due -= pays[f"pay_{hero['id']}"]
    won = act(state, "energy_well", marker_orbs=5, **pays)
    assert won["result"]["outcome"] == "won"
    # The Orb markers pay the rest; the Heroes keep what is left over.
    assert sum(h["orbs"] for h in won["heroes"]) == 2


def test_chapter_2_four_orb_markers_lost_is_defeat():
    state = chapter_table(2)
    state = act(state, "quest", counter="markers_carried", value=2)
    state = act(state, "quest", counter="markers_lost", value=2)
    with pytest.raises(Rejected, match="4 Orb markers in all"):
        act(state, "quest", counter="markers_lost", value=3)
    state = act(state, "quest", counter="markers_carried", value=0)
    state = act(state, "quest", counter="markers_lost", value=3)
    assert state["phase"] != ex.PHASE_OVER
    state = act(state, "quest", counter="markers_lost", value=4)
    assert state["result"] == {**state["result"], "outcome": "lost"}
    assert "All 4 Orb markers are lost." in state["result"]["reason"]


def test_chapter_2_has_no_boss_and_an_empty_stack_reveals_nothing():
    state = chapter_table(2)
    with pytest.raises(Rejected, match="no Boss in chapter 2"):
        act(state, "reveal_boss", boss="sylva", track=9)
    state = act(state, "set_stack", stack=0)
    assert state["boss"]["revealed"] is False


# ----------------------------------------------------------------- chapter 3


@pytest.mark.parametrize("players,needed", [(2, 10), (3, 12), (4, 15)])
def test_chapter_3_boss_and_monsters_by_player_count_spirits_not_counted(players, needed):
    state = chapter_table(3, players=players)
    assert state["phase"] == ex.PHASE_ADVENTURE  # no Forest Growth in this chapter
    state = act(state, "tally", kind="spirit", count=20)
    state = act(state, "tally", kind="snake", count=needed - 1)
    state = act(state, "reveal_boss", boss="grimnor", track=12)
    state = act(state, "defeat_boss")
    assert state["phase"] != ex.PHASE_OVER  # one Monster short: Spirits do not count
    assert state["quest"]["boss_defeated"] is True
    state = act(state, "tally", kind="plant", count=1)
    assert state["result"]["outcome"] == "won"


def test_chapter_3_monsters_without_a_boss_do_not_win():
    state = chapter_table(3)
    state = act(state, "tally", kind="mushroom", count=30)
    assert state["phase"] != ex.PHASE_OVER


def test_chapter_3_spawn_table_said_at_the_end_of_every_round_and_the_well_overrun():
    state = chapter_table(3)
    seen = []
    for _ in range(9):
        state = play_round(state)
        seen.append(next(e for e in state["events"] if e.startswith("End of round")))
        assert state["phase"] == ex.PHASE_ADVENTURE
    assert seen[0] == "End of round 1: The Monsters advance 1 tile toward the Energy Well."
    assert seen[2] == "End of round 3: Put 2 Monsters on each tile containing a Rune."
    assert "Boss card" in seen[4]
    assert seen[7] == seen[8].replace("round 9", "round 8") and "Rune" in seen[8]
    lost = act(state, "well_overrun")
    assert lost["result"]["outcome"] == "lost"


# ----------------------------------------------------------------- chapter 4


def test_chapter_4_deals_the_loot_into_four_piles_and_three_empty_campsites_win():
    carry = {"xylia": {"loot": ["Boots", "Mace"]}, "klethor": {"loot": ["Shield"]}}
    state = chapter_table(4, carry=carry)
    piles = state["quest"]["piles"]
    assert len(piles) == 4 and all(piles)
    assert sorted(c for p in piles for c in p) == sorted(["Boots", "Mace", "Shield",
                                                          camp.EXTRA_LOOT])
    assert all(h["loot"] == [] for h in state["heroes"])
    state = act(state, "quest", counter="campsites_found", value=3)
    with pytest.raises(Rejected, match="Only 3 campsites are revealed"):
        act(state, "quest", counter="campsites_empty", value=4)
    with pytest.raises(Rejected, match="3 are needed"):
        act(state, "claim_victory")
    state = act(state, "quest", counter="campsites_empty", value=1)
    state = act(state, "take_pile", hero="xylia", pile=0)
    assert state["heroes"][0]["loot"] == piles[0]
    state = act(state, "quest", counter="campsites_empty", value=3)
    assert state["quest"]["goal_reached"] and state["phase"] != ex.PHASE_OVER
    state = act(state, "claim_victory")
    assert state["result"]["outcome"] == "won"
    assert "last Loot pile is discarded" in state["result"]["reason"]


def test_chapter_4_burnt_camp_keeps_one_card_and_all_heroes_down_is_defeat():
    carry = {"xylia": {"loot": ["A", "B", "C"]}, "klethor": {"loot": ["D", "E", "F"]}}
    state = chapter_table(4, carry=carry)
    big = next(i for i, p in enumerate(state["quest"]["piles"]) if len(p) > 1)
    state = act(state, "burn_pile", pile=big)
    assert len(state["quest"]["piles"][big]) == 1
    state = act(state, "set_hp", hero="xylia", hp=0)
    state = act(state, "set_hp", hero="klethor", hp=0)
    assert state["result"]["outcome"] == "lost"


# ----------------------------------------------------------------- chapter 5


@pytest.mark.parametrize("corrupted,band", [(1, "1-3"), (3, "1-3"), (4, "4-8"), (8, "4-8"),
                                            (9, "9"), (10, "10+")])
def test_chapter_5_corruption_bands(corrupted, band):
    assert camp.corruption_band(corrupted)["band"] == band


def test_chapter_5_ten_corrupted_tiles_empty_the_reserve_and_lose():
    state = chapter_table(5)
    assert state["quest"]["corrupted"] == 1
    state = act(state, "quest", counter="corrupted", value=9)
    assert "Corruption reserve: 1 left. 9 corrupted tiles, band 9" in " ".join(state["events"])
    state = act(state, "quest", counter="corrupted", value=10)
    assert state["result"]["outcome"] == "lost"
    assert "reserve is empty" in state["result"]["reason"]


def test_chapter_5_four_totems_and_no_boss_left_win():
    state = chapter_table(5, all_campsites=True)
    assert state["quest"]["corruption_level"] == 2
    for n in range(1, 4):
        state = act(state, "quest", counter="totems", value=n)
    state = act(state, "reveal_boss", boss="fungor", track=10)
    assert state["quest"]["bosses_left"] == 1
    state = act(state, "quest", counter="totems", value=4)
    assert state["phase"] != ex.PHASE_OVER  # a revealed Boss is still in the forest
    state = act(state, "quest", counter="bosses_left", value=2)
    state = act(state, "defeat_boss")
    assert state["phase"] != ex.PHASE_OVER and state["boss"]["revealed"] is False
    state = act(state, "reveal_boss", boss="sylva", track=10)
    state = act(state, "defeat_boss")
    assert state["result"]["outcome"] == "won"


def test_chapter_5_boss_threat_track_still_loses():
    state = chapter_table(5)
    state = act(state, "reveal_boss", boss="aethera", track=3)
    state = act(state, "threat_up")
    state = act(state, "threat_up")
    assert state["result"]["outcome"] == "lost"


def test_chapter_actions_are_refused_on_a_classic_table():
    options = ex.prepare_options({"first_player": "0"}, NAMES[:2], random.Random(1))
    state = ex.setup(NAMES[:2], options)
    with pytest.raises(Rejected, match="classic game"):
        act(state, "quest", counter="totems", value=1)
    state1 = chapter_table(1)
    with pytest.raises(Rejected, match="not counted in chapter 1"):
        act(state1, "quest", counter="totems", value=1)


def test_a_forged_campaign_start_is_refused():
    raw = {"first_player": "0", "campaign_start": {"campaign": 1, "chapter": 9, "carry": {}}}
    with pytest.raises(Rejected):
        ex.prepare_options(raw, NAMES[:2], random.Random(1))
    raw = camp.table_options(campaign(2), 3, random.Random(1))
    raw["campaign_start"]["carry"]["xylia"]["orbs"] = 11
    with pytest.raises(Rejected, match="orbs must be from 0 to 10"):
        ex.prepare_options(raw, NAMES[:2], random.Random(1))


# ----------------------------------------------------------------- The Forest Awakens


class Picker(random.Random):
    """A generator whose choice is recorded, to see what the draw was among."""

    def __init__(self, pick_last=False):
        super().__init__(0)
        self.seen = None
        self.pick_last = pick_last

    def choice(self, seq):
        self.seen = list(seq)
        return seq[-1] if self.pick_last else seq[0]


def test_the_most_defeated_type_becomes_enraged_without_a_draw():
    rng = Picker()
    draw = camp.forest_awakens({"snake": 3, "plant": 2, "spirit": 9}, [], rng)
    assert draw["type"] == "snake" and draw["how"] == "most" and rng.seen is None


def test_a_tie_draws_among_the_tied_types_not_yet_enraged():
    rng = Picker(pick_last=True)
    draw = camp.forest_awakens({"snake": 3, "plant": 3, "skeleton": 3, "mushroom": 1},
                               ["plant"], rng)
    assert rng.seen == ["skeleton", "snake"]
    assert draw == {**draw, "type": "snake", "how": "tie"}


def test_an_already_enraged_most_defeated_type_draws_among_all_others_spirits_included():
    rng = Picker(pick_last=True)
    draw = camp.forest_awakens({"snake": 5, "plant": 1}, ["snake", "mushroom"], rng)
    assert rng.seen == ["plant", "spirit", "skeleton"]
    assert draw["how"] == "already" and draw["type"] == "skeleton"


def test_a_tie_of_enraged_types_draws_among_all_others():
    rng = Picker()
    draw = camp.forest_awakens({"snake": 2, "plant": 2}, ["snake", "plant"], rng)
    assert draw["how"] == "already" and rng.seen == ["mushroom", "spirit", "skeleton"]


def test_no_monster_defeated_draws_among_all_types_not_enraged():
    rng = Picker()
    draw = camp.forest_awakens({"spirit": 4}, ["plant"], rng)
    assert draw["how"] == "none_defeated"
    assert rng.seen == ["mushroom", "spirit", "skeleton", "snake"]


def test_nothing_left_to_enrage():
    draw = camp.forest_awakens({"snake": 1}, list(ex.MONSTERS), Picker())
    assert draw["type"] is None


@settings(max_examples=200, deadline=None)
@given(counts=st.fixed_dictionaries({k: st.integers(0, 6) for k in ex.MONSTERS}),
       enraged=st.lists(st.sampled_from(ex.MONSTERS), unique=True, max_size=4),
       seed=st.integers(0, 10_000))
def test_spirits_are_never_chosen_by_count_and_the_type_is_never_enraged_already(counts, enraged,
                                                                                  seed):
    draw = camp.forest_awakens(counts, enraged, random.Random(seed))
    assert draw["type"] not in enraged
    if draw["type"] == "spirit":
        assert draw["how"] in ("already", "none_defeated")
    if draw["how"] == "most":
        others = [v for k, v in counts.items() if k not in ("spirit", draw["type"])]
        assert counts[draw["type"]] > max(others)
    # The same generator state draws the same type: reproducible from what is stored.
    assert camp.forest_awakens(counts, enraged, random.Random(seed)) == draw


# ----------------------------------------------------------------- carry-over


def finish(state, outcome="won"):
    state = dict(state)
    state["phase"] = ex.PHASE_OVER
    state["result"] = {"outcome": outcome, "reason": "Done.", "rounds": 1, "threat": None}
    return state


def test_carry_over_resets_hp_and_orbs_keeps_powers_and_loot():
    c = campaign(2)
    c, _ = camp.chapter_started(c, "AAAA")
    table = chapter_table(1)
    table["heroes"][0].update(hp=2, orbs=7, powers=1, loot=["Boots"], poison=True)
    table["monsters"]["plant"] = 2
    c, lines = camp.record_result(c, "AAAA", finish(table), Picker())
    assert c["chapter"] == 2 and c["results"]["1"] == "won"
    assert c["carry"]["xylia"] == {"hp": 5, "orbs": 0, "powers": 1, "loot": ["Boots"]}
    assert c["enraged"] == ["plant"]
    assert any("Plants were defeated most (2)" in line for line in lines)
    # A repeated request, or a reload, records nothing again and draws nothing again.
    again, more = camp.record_result(c, "AAAA", finish(table), Picker(pick_last=True))
    assert again == c and more == []


def test_after_chapter_2_orbs_are_kept_and_one_hp_recovered():
    heroes = [{"id": "xylia", "hp": 0, "orbs": 6, "powers": 2, "loot": []},
              {"id": "klethor", "hp": 5, "orbs": 1, "powers": 0, "loot": ["Mace"]}]
    carry = camp.carry_after(2, heroes)
    assert carry["xylia"] == {"hp": 1, "orbs": 6, "powers": 2, "loot": []}
    assert carry["klethor"]["hp"] == 5 and carry["klethor"]["orbs"] == 1
    c = campaign(2)
    c["chapter"] = 3
    c["carry"] = carry
    state = ex.setup(NAMES[:2], ex.prepare_options(camp.table_options(c, 1, random.Random(1)),
                                                   NAMES[:2], random.Random(1)))
    assert [(h["hp"], h["orbs"]) for h in state["heroes"]] == [(1, 6), (5, 1)]


def test_a_lost_chapter_restarts_from_its_start_with_one_loot_card_discarded_each():
    c = campaign(2)
    c["carry"]["xylia"]["loot"] = ["Boots", "Mace"]
    c, _ = camp.chapter_started(c, "BBBB")
    table = chapter_table(1)
    table["heroes"][0].update(orbs=9, powers=2, loot=["Boots", "Mace", "Bow"])
    c, lines = camp.record_result(c, "BBBB", finish(table, "lost"), Picker())
    assert c["awaiting_discards"] and c["chapter"] == 1 and c["enraged"] == []
    with pytest.raises(Rejected, match="starts again|Loot card first"):
        camp.table_options(c, 1, random.Random(1))
    with pytest.raises(Rejected, match="Choose which Loot card Xylia discards"):
        camp.restart(c, {})
    c, lines = camp.restart(c, {"xylia": 1})
    # The starting state, not the end of the lost table: no Bow, no Powers, Mace discarded.
    assert c["carry"]["xylia"] == {"hp": 5, "orbs": 0, "powers": 0, "loot": ["Boots"]}
    assert "Xylia discards Mace." in lines[0] and "Klethor has no Loot card" in lines[0]
    c, _ = camp.chapter_started(c, "CCCC")
    assert c["attempts"]["1"] == 2


def test_all_four_campsites_start_chapter_5_at_corruption_level_2():
    c = campaign(2)
    c["chapter"] = 4
    c, _ = camp.chapter_started(c, "DDDD")
    table = chapter_table(4)
    table["quest"]["campsites_found"] = table["quest"]["campsites_empty"] = 4
    c, _ = camp.record_result(c, "DDDD", finish(table), Picker())
    assert c["all_campsites"] and c["chapter"] == 5
    assert camp.table_options(c, 1, random.Random(1))["campaign_start"]["corruption_level"] == 2


# ----------------------------------------------------------------- storage


def test_a_campaign_survives_a_server_restart(tmp_path):
    path = str(tmp_path / "camp.sqlite")
    app = create_app({"TESTING": True, "DATABASE": path, "SECRET_KEY": "k"})
    client = app.test_client()
    resp = client.post("/campaigns", data={"name": "Winter", "player0": "Ana", "player1": "Ben",
                                           "hero_1": "shavi", "hero_2": "bethras",
                                           "first_player": "1", "thorns": "easy"})
    assert resp.status_code == 303
    page = resp.headers["Location"]
    resp = client.post(page + "/start")
    code = resp.headers["Location"].split("/")[2].split("?")[0]
    conn = store.connect(path)
    # The chapter is played to a win on the table.
    table = tables.load(conn, code)
    for counter in camp.MUSHROOM_COLOURS:
        table.snapshot["quest"][counter] = 2
    finished = finish(table.snapshot)
    finished["monsters"]["snake"] = 4
    run_text(conn, "UPDATE game_table SET snapshot = :snapshot WHERE code = :code",
             {"snapshot": __import__("json").dumps(finished), "code": code})
    conn.close()

    again = create_app({"TESTING": True, "DATABASE": path, "SECRET_KEY": "k"}).test_client()
    listing = again.get("/campaigns").get_data(as_text=True)
    assert "Winter" in listing
    # The players confirm the chapter's end on this instance: it is recorded then.
    assert again.post(page + "/confirm", data={"table": code}).status_code == 303
    text = again.get(page).get_data(as_text=True)
    assert "Chapter 2" in text and "Snakes were defeated most (4)" in text
    # Reloaded on yet another instance: the same draw, recorded once.
    third = create_app({"TESTING": True, "DATABASE": path, "SECRET_KEY": "k"}).test_client()
    text = third.get(page).get_data(as_text=True)
    assert text.count("Snakes were defeated most (4)") == 2  # the Awakens card and the history
    conn = store.connect(path)
    row = campaigns.load(conn, int(page.rsplit("/", 1)[1]))
    assert row.state["enraged"] == ["snake"] and row.state["attempts"]["1"] == 1
    conn.close()


def test_campaign_pages_refuse_bad_input_clearly(client):
    resp = client.post("/campaigns", data={"name": "", "player0": "Ana", "player1": "Ben",
                                           "hero_1": "xylia", "hero_2": "shavi"})
    assert resp.status_code == 400 and "Give the campaign a name" in resp.get_data(as_text=True)
    resp = client.post("/campaigns", data={"name": "X", "player0": "Ana", "player1": "Ben",
                                           "hero_1": "xylia", "hero_2": "xylia"})
    assert resp.status_code == 400 and "at most once" in resp.get_data(as_text=True)
    ok = client.post("/campaigns", data={"name": "X", "player0": "Ana", "player1": "Ben",
                                         "hero_1": "xylia", "hero_2": "shavi"})
    assert ok.status_code == 303
    dup = client.post("/campaigns", data={"name": "x", "player0": "Ana", "player1": "Ben",
                                          "hero_1": "xylia", "hero_2": "shavi"})
    assert dup.status_code == 400 and "already exists" in dup.get_data(as_text=True)
    assert client.get("/campaigns/999").status_code == 404
    page = ok.headers["Location"]
    resp = client.post(page + "/restart", data={"discard_xylia": "zz"})
    assert resp.status_code == 400
    resp = client.post(page + "/restart", data={})
    assert resp.status_code == 400 and "No chapter is waiting" in resp.get_data(as_text=True)
    # Two taps on Start: one table.
    first = client.post(page + "/start").headers["Location"].split("?")[0]
    second = client.post(page + "/start").headers["Location"].split("?")[0]
    assert first == second
