"""Explorers of the Woodlands chapters: the rules as the rulebook words them, each checked on
the rules module and again through the JSON API (POST /api/tables/<code>/actions), on a table
playing one chapter as a single non-campaign game."""

import random

import pytest

from companion.games import explorers_campaign as camp
from companion.games import explorers_of_the_woodlands as ex
from companion.games.base import Rejected

from .helpers import act as api_act
from .helpers import take
from .test_explorers_campaign_rules import act, chapter_table, play_round
from .test_explorers_web import assert_board_contract, campaign_at_chapter, start_chapter

GAME = "explorers-of-the-woodlands"


def standalone(chapter, players=("Ana", "Ben"), **options):
    names = list(players)
    raw = {"first_player": "0", "chapter": str(chapter), **options}
    return ex.setup(names, ex.prepare_options(raw, names, random.Random(3)))


def api_table(client, chapter, players=("Ana", "Ben"), **options):
    """A chapter played alone, created through the API, every seat held by this client."""
    resp = client.post("/api/tables", json={"game": GAME, "players": list(players),
                                            "options": {"first_player": "0",
                                                        "chapter": str(chapter), **options}})
    assert resp.status_code == 201, resp.get_json()
    code = resp.get_json()["code"]
    for seat in range(len(players)):
        take(client, code, seat)
    return code


def ok(client, code, action, params=None):
    resp = api_act(client, code, action, params, seat=0)
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()["view"]


def refused(client, code, action, params=None):
    before = client.get(f"/api/tables/{code}").get_json()
    resp = api_act(client, code, action, params, seat=0)
    assert resp.status_code == 400, resp.get_json()
    assert client.get(f"/api/tables/{code}").get_json()["version"] == before["version"]
    return resp.get_json()["error"]


def undo(client, code):
    version = client.get(f"/api/tables/{code}").get_json()["version"]
    resp = client.post(f"/api/tables/{code}/undo", json={"version": version})
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()["view"]


# ----------------------------------------------------------------- 1. chapter 5 corruption


def test_chapter_5_markers_on_empty_spaces_empty_the_reserve_but_only_tiles_set_the_band():
    """"Wherever there is a Corruption marker, place new markers on all adjacent tiles connected
    by a path that do not have a marker yet AND on empty adjacent spaces where an open path
    exists." The band goes by "the total number of corrupted Forest tiles"; "The game is also
    lost if the corruption can no longer spread (i.e. the Corruption marker reserve is
    empty)." """
    state = chapter_table(5)
    state = act(state, "quest", counter="corrupted", value=7)
    state = act(state, "quest", counter="corrupted_spaces", value=2)
    view = ex.view(state, 0)["chapter"]
    assert view["band"]["band"] == "4-8" and view["reserve"] == 1
    assert state["phase"] != ex.PHASE_OVER
    # A tile placed on a corrupted space takes its marker: the reserve does not move.
    covered = act(state, "cover_space")
    assert (covered["quest"]["corrupted"], covered["quest"]["corrupted_spaces"]) == (8, 1)
    assert covered["phase"] != ex.PHASE_OVER
    lost = act(covered, "quest", counter="corrupted_spaces", value=2)
    assert lost["result"]["outcome"] == "lost" and "reserve is empty" in lost["result"]["reason"]
    with pytest.raises(Rejected, match="10 Corruption markers, on tiles and empty spaces"):
        act(state, "quest", counter="corrupted_spaces", value=4)


def test_api_chapter_5_tiles_and_spaces_are_corrected_and_undone_apart(client):
    code = api_table(client, 5)
    ok(client, code, "quest", {"counter": "corrupted", "value": 7})
    view = ok(client, code, "quest", {"counter": "corrupted_spaces", "value": 2})
    chapter = view["chapter"]
    assert (chapter["corrupted_tiles"], chapter["corrupted_spaces"], chapter["reserve"]) == (7, 2, 1)
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert "Corruption reserve: <b>1</b> of 10 left (2 on empty spaces)" in page
    assert 'value="cover_space"' in page
    assert chapter["band"]["band"] == "4-8" and not view["game_over"]
    view = undo(client, code)
    assert (view["chapter"]["corrupted_tiles"], view["chapter"]["corrupted_spaces"]) == (7, 0)
    ok(client, code, "quest", {"counter": "corrupted_spaces", "value": 2})
    view = ok(client, code, "quest", {"counter": "corrupted", "value": 8})
    assert view["game_over"] and view["result"]["winners"] == []
    assert "Corruption reserve is empty" in view["result"]["sentence"]
    view = undo(client, code)
    assert not view["game_over"] and view["chapter"]["reserve"] == 1
    ok(client, code, "cover_space")
    assert "a whole number" in refused(client, code, "quest",
                                       {"counter": "corrupted_spaces", "value": "two"})
    assert "on tiles and empty spaces together: at most 2 here" in refused(
        client, code, "quest", {"counter": "corrupted_spaces", "value": 3})


# ----------------------------------------------------------------- 2. the Boss revealed once


def reveal_by_stack_and_defeat(state):
    state = act(state, "set_stack", stack=0)
    assert state["boss"]["revealed"] and state["boss"]["threat"] == 1
    state = act(state, "reveal_boss", boss="sylva", track=12)
    return act(state, "defeat_boss")


def test_chapter_5_a_defeated_boss_is_not_revealed_again_by_the_empty_stack():
    """"If a tile must be added, the stack is empty and the Boss is not yet revealed: reveal the
    Boss now." (the app's ruling): the Boss tile's Boss, once revealed, is never revealed again."""
    state = reveal_by_stack_and_defeat(chapter_table(5))
    assert state["quest"]["bosses_defeated"] == 1 and state["boss"]["revealed"] is False
    state = play_round(state)  # round 2's Phase 1 finds the stack empty
    assert state["round"] == 2 and state["phase"] == ex.PHASE_ADVENTURE
    assert state["boss"]["revealed"] is False and state["boss"]["threat"] == 0
    assert "The Forest stack is empty: no more tiles to place." in state["events"]


def test_api_chapter_5_a_defeated_boss_is_not_revealed_again(client):
    code = api_table(client, 5)
    ok(client, code, "set_stack", {"stack": 0})
    ok(client, code, "reveal_boss", {"boss": "sylva", "track": 12})
    view = ok(client, code, "defeat_boss")
    while view["active"]:
        view = ok(client, code, "end_turn")
    view = ok(client, code, "end_round")
    assert view["round"] == 2 and view["boss"]["revealed"] is False and view["boss"]["threat"] == 0
    assert "Boss tile's Boss has been revealed" in view["boss_hidden_text"]


# ----------------------------------------------------------------- 3. chapter 1's ambush


def test_chapter_1_the_second_potion_by_a_correction_brings_the_ambush():
    """"Monsters are watching you! As soon as the second potion has been concocted, draw 1
    Monster marker plus 1 additional Monster marker for each Hero in the game. Put these
    markers on the Campfire tile." """
    state = chapter_table(1, players=3)
    state = act(state, "quest", counter="potions", value=2)
    assert state["quest"]["ambushed"] and state["quest"]["campfire_monsters"] == 4
    state = act(state, "quest", counter="potions", value=1)
    state = act(state, "quest", counter="potions", value=2)
    assert state["quest"]["campfire_monsters"] == 4  # one ambush, not two
    state = act(state, "quest", counter="campfire_monsters", value=0)
    assert state["result"]["outcome"] == "won"


def test_api_chapter_1_correcting_the_potions_to_two_shows_the_campfire_and_can_win(client):
    code = api_table(client, 1, players=("Ana", "Ben", "Cara"))
    view = ok(client, code, "quest", {"counter": "potions", "value": 2})
    assert view["chapter"]["ambushed"] is True
    assert view["chapter"]["counters"]["campfire_monsters"]["value"] == 4
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert "Monsters on the Campfire" in page
    view = ok(client, code, "quest", {"counter": "campfire_monsters", "value": 0})
    assert view["result"]["winners"] == [0, 1, 2]


# ----------------------------------------------------------------- 4. chapter 4's victory stands


def test_chapter_4_a_victory_achieved_stands_through_a_correction_and_a_knock_down():
    """"Once you've achieved victory, you can now either play on to try to empty the 4th
    Campsite or end the chapter immediately." """
    state = standalone(4)
    state = act(state, "quest", counter="campsites_found", value=3)
    state = act(state, "quest", counter="campsites_empty", value=3)
    state = act(state, "quest", counter="campsites_empty", value=2)
    assert state["quest"]["goal_reached"] is True
    state = act(state, "set_hp", hero="xylia", hp=0)
    state = act(state, "set_hp", hero="klethor", hp=0)
    assert state["result"]["outcome"] == "won"
    assert "last Loot pile is discarded" in state["result"]["reason"]
    claimed = act(act(standalone(4), "quest", counter="campsites_found", value=3),
                  "quest", counter="campsites_empty", value=3)
    claimed = act(act(claimed, "quest", counter="campsites_empty", value=2), "claim_victory")
    assert claimed["result"]["outcome"] == "won"


def test_api_chapter_4_victory_stands(client):
    code = api_table(client, 4)
    ok(client, code, "quest", {"counter": "campsites_found", "value": 3})
    ok(client, code, "quest", {"counter": "campsites_empty", "value": 3})
    view = ok(client, code, "quest", {"counter": "campsites_empty", "value": 2})
    assert view["chapter"]["goal_reached"] is True
    ok(client, code, "set_hp", {"hero": "xylia", "hp": 0})
    view = ok(client, code, "set_hp", {"hero": "klethor", "hp": 0})
    assert view["result"]["winners"] == [0, 1]


# ----------------------------------------------------------------- 5. chapter 4's Loot piles


def test_chapter_4_a_pile_is_equipped_whole_past_three_slots_a_card_replaces_one():
    """"After eliminating all the Monsters on a tile containing a campsite, including those
    spawned by the campsite marker, the active player takes one of the piles of Loot cards
    prepared during setup, recovers the cards and equips them." "If a player ever draws a
    fourth Loot card, that card replaces one of their current cards, which is discarded." """
    carry = {"xylia": {"loot": ["A", "B", "C"]}, "klethor": {"loot": ["D", "E"]}}
    state = chapter_table(4, carry=carry)
    with pytest.raises(Rejected, match="only when a campsite's tile is emptied"):
        act(state, "take_pile", hero="xylia", pile=0)
    state = act(state, "quest", counter="campsites_found", value=1)
    state = act(state, "quest", counter="campsites_empty", value=1)
    assert state["quest"]["piles_due"] == 1
    with pytest.raises(Rejected, match="for the active Hero"):
        act(state, "take_pile", hero="klethor", pile=0)
    state = act(state, "add_loot", hero="xylia", name="Bow")
    state = act(state, "add_loot", hero="xylia", name="Mace")
    pile = state["quest"]["piles"][0]
    cards = ["Bow", "Mace"] + pile
    over = len(cards) - 3
    with pytest.raises(Rejected, match=f"choose {over} to discard among 1 Bow, 2 Mace"):
        act(state, "take_pile", hero="xylia", pile=0)
    with pytest.raises(Rejected, match="by their numbers"):
        act(state, "take_pile", hero="xylia", pile=0, discard="9")
    discard = ",".join(str(n) for n in range(1, over + 1))
    state = act(state, "take_pile", hero="xylia", pile=0, discard=discard)
    assert state["heroes"][0]["loot"] == cards[over:]
    assert state["quest"]["piles"][0] == [] and state["quest"]["piles_due"] == 0
    # One emptied campsite, one pile.
    with pytest.raises(Rejected, match="only when a campsite's tile is emptied"):
        act(state, "take_pile", hero="xylia", pile=1)


def test_api_chapter_4_piles_only_for_an_emptied_campsite(client):
    code = api_table(client, 4, players=("Ana", "Ben", "Cara"))
    view = client.get(f"/api/tables/{code}").get_json()["view"]
    assert [p["cards"] for p in view["chapter"]["piles"]] == [2, 1, 1, 1]  # 2 + 3 players
    assert "only when a campsite" in refused(client, code, "take_pile", {"hero": "xylia", "pile": 0})
    ok(client, code, "quest", {"counter": "campsites_found", "value": 1})
    view = ok(client, code, "quest", {"counter": "campsites_empty", "value": 1})
    assert view["chapter"]["piles_due"] == 1
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert "Xylia takes pile 1" in page and 'name="discard"' in page
    assert_board_contract(page)
    assert "by their numbers" in refused(client, code, "take_pile",
                                         {"hero": "xylia", "pile": 0, "discard": "x"})
    view = ok(client, code, "take_pile", {"hero": "xylia", "pile": 0})
    assert view["heroes"][0]["loot"] == ["Loot card from pile 1"] * 2
    assert view["chapter"]["piles_due"] == 0
    assert "only when a campsite" in refused(client, code, "take_pile", {"hero": "xylia", "pile": 1})


# ----------------------------------------------------------------- 6. the Energy Well


def test_chapter_2_the_players_say_who_pays_at_the_energy_well():
    """"Once you reach the Energy well with at least the number of orbs required, all players
    immediately discard the needed orbs and win! Orbs remaining after this may be kept." """
    state = chapter_table(2)  # 15 orbs needed
    state = act(state, "set_orbs", hero="xylia", orbs=10)
    state = act(state, "set_orbs", hero="klethor", orbs=8)
    with pytest.raises(Rejected, match="Say who pays: the Orb markers hold 0 orbs, so the "
                                       "Heroes pay 15"):
        act(state, "energy_well")
    with pytest.raises(Rejected, match="Klethor has 8 orbs and cannot pay 9"):
        act(state, "energy_well", pay_xylia=6, pay_klethor=9)
    with pytest.raises(Rejected, match="would pay 18 orbs; the Energy Well takes 15"):
        act(state, "energy_well", pay_xylia=10, pay_klethor=8)
    with pytest.raises(Rejected, match="Sha'Vi is not in this game"):
        act(state, "energy_well", pay_xylia=10, pay_shavi=5)
    # Klethor pays the most, so Xylia carries her orbs on into chapter 3.
    won = act(state, "energy_well", marker_orbs=2, pay_xylia=5, pay_klethor=8)
    assert [h["orbs"] for h in won["heroes"]] == [5, 0]
    assert won["result"]["outcome"] == "won"


def test_api_energy_well_payments(client):
    code = api_table(client, 2)
    ok(client, code, "set_orbs", {"hero": "xylia", "orbs": 10})
    ok(client, code, "set_orbs", {"hero": "klethor", "orbs": 10})
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert 'name="pay_xylia"' in page and 'name="pay_klethor"' in page
    assert refused(client, code, "energy_well", {"pay_xylia": 10}).startswith("Say who pays")
    assert "a whole number" in refused(client, code, "energy_well", {"pay_xylia": "lots"})
    view = ok(client, code, "energy_well", {"pay_xylia": 10, "pay_klethor": 5})
    assert [h["orbs"] for h in view["heroes"]] == [0, 5] and view["result"]["winners"] == [0, 1]


# ----------------------------------------------------------------- 7. the Boss panel's words


def test_the_boss_panel_says_how_this_chapters_boss_comes_out_and_what_revealed_it():
    """Chapter 3: "Round 5: Put 1 Boss card on the Boss tile if there isn't one there already
    and reveal it." Chapter 5: "When corruption spreads to a tile with a Boss, the Boss is
    immediately revealed and the Boss's threat track is activated." Chapters 3 and 4: "Players
    do not add Forest tiles during this chapter." """
    three = chapter_table(3)
    assert "stack" not in ex.view(three, 0)["boss_hidden_text"]
    assert "end of round 5" in ex.view(three, 0)["boss_hidden_text"]
    assert "stack" not in ex.view(chapter_table(4), 0)["boss_hidden_text"]
    for _ in range(5):
        three = play_round(three)
    assert three["boss"]["revealed"] and three["boss"]["threat"] == 1
    assert three["boss"]["revealed_by"] == "the end of round 5 (the spawn table)"
    assert not any("A Hero enters the Boss tile" in e for e in three["events"])
    five = act(chapter_table(5), "reveal_boss", boss="venomia", track=9, cause="corruption")
    assert five["boss"]["revealed_by"] == "the corruption spread to its tile"
    assert five["quest"]["boss_tile_revealed"] is True
    assert five["events"][0].startswith("The corruption spreads to the Boss's tile")
    with pytest.raises(Rejected, match="Only in chapter 5"):
        act(chapter_table(3), "reveal_boss", boss="venomia", track=9, cause="corruption")
    classic = ex.setup(["Ana", "Ben"], ex.prepare_options({"first_player": "0"}, ["Ana", "Ben"],
                                                          random.Random(1)))
    assert "last three tiles of the stack" in ex.view(classic, 0)["boss_hidden_text"]


def test_api_boss_revealed_by_corruption_is_said_on_the_view_and_the_page(client):
    code = api_table(client, 5)
    view = ok(client, code, "reveal_boss", {"boss": "grimnor", "track": 10, "cause": "corruption"})
    assert view["boss"]["revealed_by"] == "the corruption spread to its tile"
    assert "Revealed: the corruption spread to its tile." in client.get(f"/t/{code}").get_data(as_text=True)
    assert "choose one of tile, corruption" in refused(
        client, code, "reveal_boss", {"boss": "grimnor", "track": 10, "cause": "wind"})
    code = api_table(client, 3)
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert "last three tiles of the stack" not in page and "end of round 5" in page


# ----------------------------------------------------------------- 8. a chapter played alone


@pytest.mark.parametrize("chapter", camp.CHAPTERS)
def test_every_chapter_can_be_played_alone_starting_as_in_classic_mode(chapter):
    """"In addition to classic mode, you can play each of the five chapters below as
    stand-alone games or in campaign mode." Chapter 4: "Single Non-campaign Game: Draw 2 Loot
    cards and 1 additional Loot card per player. Shuffle them together and put them face down
    in 4 equal piles next to the playing area." """
    state = standalone(chapter, players=("Ana", "Ben", "Cara"))
    assert state["chapter"] == chapter and state["campaign"] is None
    assert all(h["hp"] == 5 and h["orbs"] == 0 and h["powers"] == 0 and h["loot"] == []
               for h in state["heroes"])  # chapter 3 too: full HP, nothing carried
    checklist = ex.view(state, 0)["setup_checklist"]
    assert "single non-campaign game" in checklist[1]
    assert not any(line.startswith("From the campaign") for line in checklist)
    if chapter == 4:
        # The rulebook's example: 3 players draw 5 cards, three 1-card piles and one 2-card.
        assert sorted(len(p) for p in state["quest"]["piles"]) == [1, 1, 1, 2]
    if chapter == 5:
        assert state["quest"]["corruption_level"] == 1


def test_a_chapter_alone_keeps_the_enraged_monsters_card_and_refuses_an_unknown_chapter():
    assert standalone(2, enraged_monsters="1")["enraged_types"] == list(ex.MONSTERS)
    with pytest.raises(Rejected, match="choose one of classic, 1, 2, 3, 4, 5"):
        standalone(6)
    assert "chapter" not in ex.setup(["Ana"], ex.prepare_options(
        {"first_player": "0"}, ["Ana"], random.Random(1)))


def test_api_and_form_create_a_chapter_played_alone(client):
    resp = client.post("/api/tables", json={"game": GAME, "players": ["Ana", "Ben"],
                                            "options": {"chapter": "9"}})
    assert resp.status_code == 400 and "choose one of classic" in resp.get_json()["error"]
    code = api_table(client, 3)
    view = client.get(f"/api/tables/{code}").get_json()["view"]
    assert view["chapter"]["number"] == 3 and view["chapter"]["campaign"] is None
    assert [h["hp"] for h in view["heroes"]] == [5, 5]
    page = client.get(f"/new/{GAME}").get_data(as_text=True)
    assert 'name="chapter"' in page and "Chapter 4 alone · Footsteps in the Night" in page
    resp = client.post(f"/new/{GAME}", data={"player0": "Ana", "player1": "Ben", "hero_1": "xylia",
                                             "hero_2": "klethor", "first_player": "0",
                                             "thorns": "regular", "chapter": "5"})
    assert resp.status_code == 302
    code = resp.headers["Location"].split("/join/")[1].split("?")[0]
    assert client.get(f"/api/tables/{code}").get_json()["view"]["chapter"]["number"] == 5


# ----------------------------------------------------------------- 10. corruption level 2


def test_chapter_5_corruption_level_2_is_said_at_the_end_of_the_first_adventure_phase():
    """"If you decided to take the time to search all 4 campsites during the previous chapter,
    this chapter starts at a Corruption level of 2 instead of 1 at the end of the first
    Adventure phase." """
    state = play_round(chapter_table(5, all_campsites=True))
    assert any("Corruption level of 2 instead of 1" in e for e in state["events"])
    state = play_round(state)
    assert not any("Corruption level of 2" in e for e in state["events"])
    plain = play_round(chapter_table(5))
    assert not any("Corruption level of 2" in e for e in plain["events"])


# ----------------------------------------------------------------- 9. chapter 2's Orb Thieves


def test_chapter_2_orb_thieves_lose_the_marker_on_the_start_tile_and_teleport_from_the_vortex():
    """"At the end of each round, the Monsters carrying lost Orb markers move 2 tiles closer to
    the Start tile. If a Monster with an Orb marker happens to move onto the Vortex tile, it
    stops there and then teleports to the Start tile at the end of the next round. If a Monster
    with an Orb marker begins its move on the Start tile, that Orb marker is lost and
    discarded!" """
    state = chapter_table(2)
    with pytest.raises(Rejected, match="No Monster carries an Orb marker"):
        act(state, "thief_on_start")
    state = act(state, "quest", counter="markers_carried", value=2)
    with pytest.raises(Rejected, match="Only Monsters carrying an Orb marker stop on the Vortex"):
        act(state, "quest", counter="vortex_monsters", value=3)
    state = play_round(state)
    assert any("begins its move on the Start tile loses the marker" in e for e in state["events"])
    state = act(state, "quest", counter="vortex_monsters", value=1)
    state = play_round(state)  # the end of the next round: the teleport
    assert "The Monster with an Orb marker stopped on the Vortex teleports to the Start tile now." \
        in state["events"]
    assert state["quest"]["vortex_monsters"] == 0 and state["quest"]["teleported"] == 1
    state = play_round(state)
    assert "The Monster teleported to the Start tile last round begins its move there." \
        in state["events"]
    state = act(state, "thief_on_start")
    assert (state["quest"]["markers_carried"], state["quest"]["markers_lost"]) == (1, 1)
    state = act(state, "quest", counter="markers_lost", value=2)
    state = act(state, "quest", counter="markers_carried", value=0)
    state = act(state, "quest", counter="markers_carried", value=1)
    state = act(state, "quest", counter="markers_lost", value=3)
    lost = act(state, "thief_on_start")
    assert lost["result"]["outcome"] == "lost" and "All 4 Orb markers" in lost["result"]["reason"]


def test_api_chapter_2_orb_thief_on_the_start_tile(client):
    code = api_table(client, 2)
    assert refused(client, code, "thief_on_start") == "No Monster carries an Orb marker."
    ok(client, code, "quest", {"counter": "markers_carried", "value": 1})
    view = ok(client, code, "quest", {"counter": "vortex_monsters", "value": 1})
    assert view["chapter"]["vortex_monsters"] == 1
    assert 'value="thief_on_start"' in client.get(f"/t/{code}").get_data(as_text=True)
    view = ok(client, code, "thief_on_start")
    chapter = view["chapter"]
    assert chapter["counters"]["markers_lost"]["value"] == 1 and chapter["vortex_monsters"] == 0


# ----------------------------------------------------------------- 11. the Boss's chests


def test_a_boss_defeated_in_campaign_mode_gives_its_chests_and_only_there():
    """"Ignore any chest icons shown on the Boss tile and Boss cards unless you are playing
    Campaign mode. The Boss protects these treasures and they are only available to Heroes who
    defeat the Boss and will be taking them into the next game." """
    state = act(chapter_table(4), "reveal_boss", boss="grimnor", track=12)
    state = act(state, "defeat_boss", chests=2)
    assert state["quest"]["boss_chests"] == 2
    assert any("Draw 2 Loot cards for the Heroes who defeated it" in e for e in state["events"])
    assert ex.view(state, 0)["chapter"]["boss_chests"] == 2
    alone = act(standalone(4), "reveal_boss", boss="grimnor", track=12)
    with pytest.raises(Rejected, match="unless you are playing Campaign mode"):
        act(alone, "defeat_boss", chests=1)
    assert act(alone, "defeat_boss")["boss"]["defeated"] is True


def campaign_table(app, client, chapter):
    code = start_chapter(client, campaign_at_chapter(app, client, chapter))
    take(client, code, 0)
    take(client, code, 1)
    return code


def test_api_boss_chests_in_a_campaign_chapter_and_refused_alone(app, client):
    code = campaign_table(app, client, 3)
    ok(client, code, "reveal_boss", {"boss": "aethera", "track": 12})
    assert 'name="chests"' in client.get(f"/t/{code}").get_data(as_text=True)
    assert "a whole number" in refused(client, code, "defeat_boss", {"chests": "many"})
    view = ok(client, code, "defeat_boss", {"chests": 1})
    assert view["chapter"]["boss_chests"] == 1
    assert any("Draw a Loot card for the Heroes who defeated it" in e for e in view["events"])
    alone = api_table(client, 3)
    ok(client, alone, "reveal_boss", {"boss": "aethera", "track": 12})
    assert 'name="chests"' not in client.get(f"/t/{alone}").get_data(as_text=True)
    assert "unless you are playing Campaign mode" in refused(client, alone, "defeat_boss",
                                                             {"chests": 1})


# ----------------------------------------------------------------- 13. Quest markers in a slot


def test_quest_markers_take_one_equipment_slot_however_many():
    """"If a Hero performs a Search action, turn over a Quest marker on their tile, take it, and
    put it face up on one of their 3 equipment slots. If necessary, discard a Loot card to free
    up a slot and take the marker. There is no limit on the number or type of Quest markers
    that a Hero can put in this equipment slot." """
    state = chapter_table(1)
    for card in ("Boots", "Mace", "Bow"):
        state = act(state, "add_loot", hero="xylia", name=card)
    with pytest.raises(Rejected, match="discard one to free up a slot for the Quest markers"):
        act(state, "quest_slot", hero="xylia", on=True)
    state = act(state, "remove_loot", hero="xylia", index=2)
    state = act(state, "quest_slot", hero="xylia", on=True)
    assert ex.view(state, 0)["heroes"][0]["loot_slots"] == 2
    with pytest.raises(Rejected, match="Quest markers take one of the 3, 2 hold Loot cards"):
        act(state, "add_loot", hero="xylia", name="Helmet")
    with pytest.raises(Rejected, match="Quest markers take one of the 3"):
        act(act(state, "add_loot", hero="klethor", name="Helmet"), "give_loot", hero="klethor",
            index=0, to="xylia")
    with pytest.raises(Rejected, match="already has a slot of Quest markers"):
        act(state, "quest_slot", hero="xylia", on=True)
    state = act(state, "quest_slot", hero="xylia", on=False)
    assert act(state, "add_loot", hero="xylia", name="Helmet")["heroes"][0]["loot"][-1] == "Helmet"
    classic = ex.setup(["Ana", "Ben"], ex.prepare_options({"first_player": "0"}, ["Ana", "Ben"],
                                                          random.Random(1)))
    with pytest.raises(Rejected, match="belongs to a campaign chapter"):
        act(classic, "quest_slot", hero="xylia", on=True)


def test_api_quest_marker_slot(client):
    code = api_table(client, 1)
    view = ok(client, code, "quest_slot", {"hero": "klethor", "on": True})
    assert view["heroes"][1]["quest_slot"] is True and view["heroes"][1]["loot_slots"] == 2
    assert "Quest markers in one slot" in client.get(f"/t/{code}").get_data(as_text=True)
    ok(client, code, "add_loot", {"hero": "klethor", "name": "Boots"})
    ok(client, code, "add_loot", {"hero": "klethor", "name": "Mace"})
    assert "Quest markers take one of the 3" in refused(client, code, "add_loot",
                                                        {"hero": "klethor", "name": "Bow"})
    assert "yes or no" in refused(client, code, "quest_slot", {"hero": "klethor", "on": "maybe"})


# ----------------------------------------------------------------- 12. several Bosses at once


def test_chapter_5_several_bosses_each_have_their_own_threat_track():
    """"Victory: This chapter ends in a victory as soon as the following two conditions are met
    simultaneously: the 4 Power dice are placed on their respective totems, and no bosses remain
    in the forest. There may be more than one in this level, and they must all be defeated."
    "After each player's turn while the Boss is still alive, move the cube on the Boss's threat
    track one space to the right." """
    state = chapter_table(5)
    state = act(state, "reveal_boss", boss="fungor", track=20)
    state = act(state, "reveal_boss", boss="sylva", track=4, cause="corruption")
    assert state["quest"]["bosses_left"] == 2
    more = ex.view(state, 0)["more_bosses"]
    assert [(b["which"], b["name"], b["threat"]) for b in more] == [(1, ex.BOSS_LABELS["sylva"], 1)]
    while state["phase"] == ex.PHASE_GROWTH:
        state = act(state, "place_tile", kind="growth")
    state = act(state, "end_turn")  # both tracks rise
    assert state["boss"]["threat"] == 2 and state["quest"]["more_bosses"][0]["threat"] == 2
    state = act(state, "threat_up", which=1)  # a Combat skill of the second Boss only
    assert state["boss"]["threat"] == 2 and state["quest"]["more_bosses"][0]["threat"] == 3
    with pytest.raises(Rejected, match="no Boss number 3"):
        act(state, "threat_up", which=2)
    lost = act(state, "set_threat", threat=4, which=1)
    assert lost["result"]["outcome"] == "lost" and "Sylva" in lost["result"]["reason"]
    for n in range(1, 5):
        state = act(state, "quest", counter="totems", value=n)
    state = act(state, "defeat_boss")  # the first: the second takes the Boss panel
    assert state["boss"]["name"] == ex.BOSS_LABELS["sylva"] and state["boss"]["threat"] == 3
    assert state["quest"]["more_bosses"] == [] and state["phase"] != ex.PHASE_OVER
    won = act(state, "defeat_boss")
    assert won["result"]["outcome"] == "won"
    # Out of chapter 5 a second Boss is refused as before.
    three = act(chapter_table(3), "reveal_boss", boss="fungor", track=20)
    with pytest.raises(Rejected, match="already revealed"):
        act(three, "reveal_boss", boss="sylva", track=9)


def test_api_chapter_5_a_second_boss_defeated_by_number(client):
    code = api_table(client, 5)
    ok(client, code, "reveal_boss", {"boss": "fungor", "track": 20})
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert "Reveal another Boss" in page
    view = ok(client, code, "reveal_boss", {"boss": "grimnor", "track": 15, "cause": "corruption"})
    assert view["more_bosses"][0]["which"] == 1 and view["chapter"]["counters"]["bosses_left"]["value"] == 2
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert "Threat plus one for Grimnor, Guardian of Bones" in page
    assert_board_contract(page)
    assert "no Boss number 3" in refused(client, code, "defeat_boss", {"which": 2})
    view = ok(client, code, "defeat_boss", {"which": 1})
    assert view["more_bosses"] == [] and view["boss"]["name"] == ex.BOSS_LABELS["fungor"]
    assert view["chapter"]["counters"]["bosses_left"]["value"] == 1


@pytest.mark.parametrize("chapter", [2, 4, 5])
def test_a_chapter_table_saved_before_the_new_counters_still_shows_and_plays(chapter):
    state = chapter_table(chapter)
    for key in camp.ADDED_KEYS[chapter]:
        del state["quest"][key]
    view = ex.view(state, 0)
    assert view["chapter"]["number"] == chapter
    assert "quest" in act(state, "set_orbs", hero="xylia", orbs=3)


# ----------------------------------------------------------------- campaign Loot never lost


def test_chapter_4_ending_the_chapter_keeps_the_pile_due():
    """"After eliminating all the Monsters on a tile containing a campsite ... the active player
    takes one of the piles of Loot cards prepared during setup, recovers the cards and equips
    them." Ruling: "a Loot pile due (ch.4) ... can be taken between the last move and the
    confirmed end of the chapter, and the carry-over counts them. Ending ch.4 early discards
    only the piles the rulebook discards (the last one when the 4th campsite was not
    emptied)." """
    state = chapter_table(4, carry={"xylia": {"loot": ["Bow"]}, "klethor": {"loot": ["Mace"]}})
    state = act(state, "quest", counter="campsites_found", value=3)
    state = act(state, "quest", counter="campsites_empty", value=3)
    assert state["quest"]["piles_due"] == 3
    state = act(state, "take_pile", hero="xylia", pile=0)
    state = act(state, "take_pile", hero="xylia", pile=1)
    state = act(state, "claim_victory")
    assert state["result"]["outcome"] == "won"
    # One pile is still due: only the 4th, which no emptied campsite paid for, is discarded.
    assert camp.loot_due(state) == {"piles": 1, "chests": 0}
    assert camp.loot_waiting(state) == ("Before confirming the end: the active player takes one "
                                        "Loot pile, so the next chapter has them.")
    assert state["events"][-1] == camp.loot_waiting(state)
    assert "the last Loot pile is discarded" in state["result"]["reason"]
    view = ex.view(state, 0)["chapter"]
    assert view["loot_after_end"] is True and view["loot_waiting"] == camp.loot_waiting(state)
    with pytest.raises(Rejected, match="The game is over"):
        act(state, "burn_pile", pile=2)
    # No turn once the chapter has ended: the players name who takes it.
    pile = state["quest"]["piles"][2]
    state = act(state, "take_pile", hero="klethor", pile=2)
    assert state["heroes"][1]["loot"] == pile  # chapter 4 starts with the Loot in the piles
    assert camp.loot_due(state) == {"piles": 0, "chests": 0} and camp.loot_waiting(state) is None
    assert ex.view(state, 0)["chapter"]["loot_after_end"] is False
    with pytest.raises(Rejected, match="The game is over"):
        act(state, "take_pile", hero="klethor", pile=3)
    # The carry-over counts the pile taken after the end.
    campaign = {**chapter_campaign(4), "table": "K7QM"}
    recorded, _ = camp.record_result(campaign, "K7QM", state, random.Random(1))
    assert recorded["carry"]["klethor"]["loot"] == state["heroes"][1]["loot"][:3]


def chapter_campaign(chapter):
    c = camp.new_campaign("Test", ["Ana", "Ben"], ["xylia", "klethor"], 0, "regular")
    c["chapter"] = chapter
    return c


def test_chapter_4_all_four_campsites_emptied_keeps_the_4th_pile():
    """"Your equipment is recovered!" with all four campsites emptied: the 4th pile is due,
    never discarded, and is taken after the end."""
    state = chapter_table(4)
    state = act(state, "quest", counter="campsites_found", value=4)
    state = act(state, "quest", counter="campsites_empty", value=4)
    for pile in range(3):
        state = act(state, "take_pile", hero="xylia", pile=pile)
    state = act(state, "claim_victory")
    assert "discarded" not in state["result"]["reason"]
    assert camp.loot_due(state)["piles"] == 1
    state = act(state, "take_pile", hero="klethor", pile=3)
    assert state["quest"]["piles"][3] == [] and camp.loot_due(state)["piles"] == 0


def test_chapter_3_the_bosss_chest_loot_is_drawn_after_the_boss_ends_the_chapter():
    """"The Boss protects these treasures and they are only available to Heroes who defeat
    the Boss and will be taking them into the next game." Ruling: "a Boss's chest cards (ch.3)
    can be taken between the last move and the confirmed end of the chapter"."""
    state = chapter_table(3)
    state = act(state, "tally", kind="plant", count=10)
    state = act(state, "reveal_boss", boss="aethera", track=12)
    state = act(state, "defeat_boss", chests=2)
    assert state["result"]["outcome"] == "won"
    assert camp.loot_due(state) == {"piles": 0, "chests": 2}
    assert "draw 2 Loot cards from the Boss's chests" in state["events"][-1]
    with pytest.raises(Rejected, match="The game is over"):
        act(state, "set_orbs", hero="xylia", orbs=3)
    state = act(state, "add_loot", hero="xylia", name="Crown")
    assert state["events"] == ["Chest card drawn. 1 more to draw."]
    state = act(state, "add_loot", hero="klethor", name="Ring")
    assert state["events"] == ["Chest card drawn."]
    assert camp.loot_due(state)["chests"] == 0 and camp.loot_waiting(state) is None
    with pytest.raises(Rejected, match="The game is over"):
        act(state, "add_loot", hero="xylia", name="Extra")
    recorded, _ = camp.record_result({**chapter_campaign(3), "table": "K7QM"}, "K7QM", state,
                                     random.Random(1))
    assert recorded["carry"]["xylia"]["loot"] == ["Crown"]
    assert recorded["carry"]["klethor"]["loot"] == ["Ring"]


def test_a_lost_chapter_leaves_no_loot_open_and_nothing_waiting():
    state = act(chapter_table(3), "reveal_boss", boss="aethera", track=12)
    state = act(state, "defeat_boss", chests=1)
    state = act(state, "well_overrun")
    assert state["result"]["outcome"] == "lost" and camp.loot_waiting(state) is None
    assert camp.loot_open(state, "add_loot") is False
    with pytest.raises(Rejected, match="The game is over"):
        act(state, "add_loot", hero="xylia", name="Crown")


def test_api_campaign_loot_is_taken_after_the_end_and_blocks_the_confirmation(app, client):
    campaign_id = campaign_at_chapter(app, client, 3)
    code = start_chapter(client, campaign_id)
    take(client, code, 0)
    take(client, code, 1)
    ok(client, code, "tally", {"kind": "plant", "count": 10})
    ok(client, code, "reveal_boss", {"boss": "aethera", "track": 12})
    view = ok(client, code, "defeat_boss", {"chests": 1})
    assert view["result"]["winners"] == [0, 1]
    assert view["chapter"]["chests_due"] == 1 and view["chapter"]["loot_after_end"] is True
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert "Before confirming the end" in page and 'name="name"' in page
    campaign = {"id": campaign_id}
    resp = client.post(f"/api/campaigns/{campaign['id']}/confirm", json={"table": code})
    assert resp.status_code == 400 and "Before confirming the end" in resp.get_json()["error"]
    assert "The game is over" in refused(client, code, "set_orbs", {"hero": "xylia", "orbs": 2})
    view = ok(client, code, "add_loot", {"hero": "xylia", "name": "Crown"})
    assert view["chapter"]["chests_due"] == 0 and view["chapter"]["loot_waiting"] is None
    resp = client.post(f"/api/campaigns/{campaign['id']}/confirm", json={"table": code})
    assert resp.status_code == 200, resp.get_json()
    carried = client.get(f"/api/campaigns/{campaign['id']}").get_json()
    assert [h["loot"] for h in carried["heroes"] if h["id"] == "xylia"] == [["Crown"]]


def test_api_chapter_4_pile_due_taken_after_claiming_victory(client):
    code = api_table(client, 4)
    ok(client, code, "quest", {"counter": "campsites_found", "value": 3})
    ok(client, code, "quest", {"counter": "campsites_empty", "value": 3})
    view = ok(client, code, "claim_victory")
    assert view["chapter"]["piles_due"] == 3 and view["chapter"]["loot_after_end"] is True
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert "Take pile 1" in page and 'aria-label="Hero who takes pile 1"' in page
    view = ok(client, code, "take_pile", {"hero": "klethor", "pile": 0})
    assert view["heroes"][1]["loot"] == ["Loot card from pile 1"]
    assert view["chapter"]["piles_due"] == 2


# ----------------------------------------------------------------- chapter 1's ambush taken back


def test_chapter_1_a_correction_under_two_potions_takes_the_ambush_back():
    """"As soon as the second potion has been concocted, draw 1 Monster marker plus 1 additional
    Monster marker for each Hero". Ruling: "A correction below a chapter's trigger (ch.1:
    potions back under 2) takes back what the trigger placed (the ambush), so the trigger can
    fire again when the real event happens; undo stays the exact way back." """
    state = chapter_table(1, players=3)
    state = act(state, "quest", counter="potions", value=2)
    assert state["quest"]["campfire_monsters"] == 4 and state["quest"]["ambush_placed"] == 4
    state = act(state, "quest", counter="campfire_monsters", value=3)  # one defeated already
    state = act(state, "quest", counter="potions", value=1)
    assert (state["quest"]["ambushed"], state["quest"]["campfire_monsters"],
            state["quest"]["ambush_placed"]) == (False, 0, 0)
    assert state["events"][-1] == ("Under 2 potions again: the Campfire ambush is taken back (0 "
                                   "Monsters left on the Campfire); the second potion brings it.")
    # The real second potion brings the ambush again, and its defeat wins.
    for counter in camp.MUSHROOM_COLOURS:
        state = act(state, "quest", counter=counter, value=1)
    state = act(state, "quest", counter="vials", value=1)
    state = act(act(state, "set_orbs", hero="xylia", orbs=2), "concoct", hero="xylia")
    assert state["quest"]["ambushed"] and state["quest"]["campfire_monsters"] == 4
    state = act(state, "quest", counter="campfire_monsters", value=0)
    assert state["result"]["outcome"] == "won"


def test_chapter_1_taking_the_ambush_back_keeps_monsters_that_were_there_before():
    state = chapter_table(1, players=2)
    state = act(state, "quest", counter="campfire_monsters", value=2)
    state = act(state, "quest", counter="potions", value=2)
    assert state["quest"]["campfire_monsters"] == 3  # the ambush sets the Campfire to 1 + 2
    state = act(state, "quest", counter="campfire_monsters", value=5)
    state = act(state, "quest", counter="potions", value=0)
    assert state["quest"]["campfire_monsters"] == 2
    assert "(2 Monsters left on the Campfire)" in state["events"][-1]
    state = act(state, "quest", counter="potions", value=1)
    assert state["quest"]["ambushed"] is False and state["quest"]["campfire_monsters"] == 2
    state = act(state, "quest", counter="potions", value=2)
    state = act(state, "quest", counter="campfire_monsters", value=4)
    state = act(state, "quest", counter="potions", value=0)
    assert "(1 Monster left on the Campfire)" in state["events"][-1]


def test_a_chapter_1_table_saved_before_the_take_back_knows_its_ambush():
    state = chapter_table(1, players=3)
    state = act(state, "quest", counter="potions", value=2)
    del state["quest"]["ambush_placed"]
    assert camp.needs_upgrade(state)
    state = act(state, "quest", counter="potions", value=1)
    assert state["quest"]["campfire_monsters"] == 0


def test_api_chapter_1_correction_under_two_potions_then_the_real_potion(client):
    code = api_table(client, 1, players=("Ana", "Ben", "Cara"))
    ok(client, code, "quest", {"counter": "potions", "value": 2})
    view = ok(client, code, "quest", {"counter": "potions", "value": 1})
    assert view["chapter"]["ambushed"] is False
    assert view["chapter"]["counters"]["campfire_monsters"]["value"] == 0
    view = ok(client, code, "quest", {"counter": "potions", "value": 2})
    assert view["chapter"]["counters"]["campfire_monsters"]["value"] == 4
    view = ok(client, code, "quest", {"counter": "campfire_monsters", "value": 0})
    assert view["result"]["winners"] == [0, 1, 2]


# ----------------------------------------------------------------- the Lair tiles


@pytest.mark.parametrize("chapter, most", [(1, 18), (2, 20)])
def test_chapters_1_and_2_count_the_stack_without_the_lair_tiles(chapter, most):
    """"Do not use the Lair, Peddler, Boss, Inn and Energy Well tiles in this chapter." (ch.1)
    "Do not use the Lair, Boss and Inn tiles in this chapter." (ch.2) Ruling: "the setup
    checklist asks the players to count their stack after removing them, and the app counts
    from that number (the rulebook does not say how many Lair tiles there are)." """
    state = standalone(chapter)
    assert state["stack_total"] == state["stack"] == most == camp.chapter_stack(chapter)
    count = [step[step.index("Count"):] for step in ex.setup_checklist(state)
             if "Count your Forest stack" in step]
    assert count == [f"Count your Forest stack without the tiles left in the box (at most {most}, "
                     "fewer with more than one Lair tile) and set it on a phone before the first "
                     "tile is drawn: the app counts from your number."]
    with pytest.raises(Rejected, match=f"holds at most {most} tiles"):
        act(state, "set_stack", stack=most + 1)
    state = act(state, "set_stack", stack=most - 3)
    assert (state["stack_total"], state["stack"], ex.tiles_placed(state)) == (most - 3, most - 3, 0)
    assert state["events"] == [f"Forest stack counted: {most - 3} tiles."]
    state = act(state, "set_stack", stack=most - 2)  # counted again, before any tile is drawn
    assert state["stack_total"] == most - 2
    state = act(state, "place_tile", kind="growth")
    assert state["stack"] == most - 3
    # Once a tile is drawn a correction is a correction again, bounded by the count.
    with pytest.raises(Rejected, match=f"started with {most - 2} tiles"):
        act(state, "set_stack", stack=most - 1)
    state = act(state, "set_stack", stack=most - 5)
    assert state["stack_total"] == most - 2 and state["placed"]["corrected"] == 2


def test_classic_and_later_chapters_correct_the_stack_as_before():
    classic = ex.setup(["Ana", "Ben"], ex.prepare_options({"first_player": "0"}, ["Ana", "Ben"],
                                                          random.Random(1)))
    state = act(classic, "set_stack", stack=20)
    assert state["stack_total"] == 22 and state["placed"]["corrected"] == 2
    assert not camp.counts_own_stack(standalone(5), 0)
    assert camp.counts_own_stack(standalone(1), 0) and not camp.counts_own_stack(standalone(1), 1)


def test_api_chapter_2_stack_counted_by_the_players(client):
    code = api_table(client, 2)
    view = client.get(f"/api/tables/{code}").get_json()["view"]
    assert view["stack_total"] == 20
    assert "holds at most 20 tiles" in refused(client, code, "set_stack", {"stack": 21})
    view = ok(client, code, "set_stack", {"stack": 19})
    assert view["stack_total"] == 19 and view["stack"] == 19


# ----------------------------------------------------------------- ch.3 round 5, ch.5 victory


def test_chapter_3_round_5_brings_a_second_boss_after_the_first_was_beaten():
    """"Round 5: Put 1 Boss card on the Boss tile if there isn't one there already, and reveal
    it." Ruling: "when no undefeated Boss is on the Boss tile (none came yet, or the first was
    beaten), the app reminds the players to put a Boss card there and reveal it, and its
    threat starts on the first space; a second Boss is played like the first." """
    state = chapter_table(3)
    state = act(state, "reveal_boss", boss="aethera", track=12)
    state = act(state, "defeat_boss")
    assert state["phase"] != ex.PHASE_OVER and state["boss"]["defeated"]
    for _ in range(5):
        state = play_round(state)
    assert state["boss"]["revealed"] and not state["boss"]["defeated"]
    assert state["boss"]["threat"] >= 1 and state["boss"]["key"] is None
    assert state["quest"]["boss_defeated"] is True  # the goal's 1 Boss stays met
    state = act(state, "reveal_boss", boss="grimnor", track=12)
    assert state["boss"]["name"].startswith("Grimnor")
    state = act(state, "defeat_boss")
    assert state["phase"] != ex.PHASE_OVER  # the Monsters are still to be defeated
    state = act(state, "tally", kind="plant", count=10)
    assert state["result"]["outcome"] == "won"


def test_chapter_3_round_5_leaves_a_living_boss_alone():
    state = act(chapter_table(3), "reveal_boss", boss="aethera", track=20)
    for _ in range(5):
        state = play_round(state)
    assert state["boss"]["name"].startswith("Aethera")
    assert not any("End of round 5: put 1 Boss card" in e for e in state["events"])


def test_chapter_5_is_won_with_the_totems_and_no_boss_revealed():
    """"Victory: ... all 4 Power dice are on their totems and no bosses remain in the forest."
    Ruling: "a Boss tile still in the Forest Stack is not in the forest." """
    state = chapter_table(5)
    for n in range(1, 5):
        state = act(state, "quest", counter="totems", value=n)
    assert state["result"]["outcome"] == "won" and state["quest"]["bosses_defeated"] == 0
    # A Boss in the forest, counted by the players, keeps the chapter going.
    state = act(chapter_table(5), "quest", counter="bosses_left", value=1)
    for n in range(1, 5):
        state = act(state, "quest", counter="totems", value=n)
    assert state["phase"] != ex.PHASE_OVER
    state = act(state, "quest", counter="bosses_left", value=0)
    assert state["result"]["outcome"] == "won"


def test_api_chapter_5_won_without_a_boss_revealed(client):
    code = api_table(client, 5)
    for n in range(1, 4):
        ok(client, code, "quest", {"counter": "totems", "value": n})
    view = ok(client, code, "quest", {"counter": "totems", "value": 4})
    assert view["result"]["winners"] == [0, 1]


def test_api_chapter_3_second_boss_at_round_5(client):
    code = api_table(client, 3)
    ok(client, code, "reveal_boss", {"boss": "aethera", "track": 12})
    ok(client, code, "defeat_boss")
    for round_number in range(1, 6):
        for hero in ("xylia", "klethor"):
            ok(client, code, "end_turn", {"hero": hero})
        view = ok(client, code, "end_round", {"round": round_number})
    assert view["boss"]["revealed"] and not view["boss"]["defeated"]
    assert any("End of round 5: put 1 Boss card" in e for e in view["events"])
