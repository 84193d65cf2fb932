"""Explorers of the Woodlands through the web layer: the setup form, the page, bad input."""

import re

from .helpers import act, hidden, hx_post, kept_in_place, take, toast

GAME = "explorers-of-the-woodlands"


def new_table(client, players=("Ana", "Ben"), **options):
    resp = client.post("/api/tables", json={"game": GAME, "players": list(players),
                                            "options": {"first_player": "0", **options}})
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()["code"]


def form_data(**fields):
    data = {"player0": "Ana", "player1": "", "hero_1": "xylia", "hero_2": "klethor",
            "hero_3": "shavi", "hero_4": "bethras", "solo_hero": "klethor", "first_player": "0",
            "thorns": "regular"}
    data.update(fields)
    return data


def test_setup_form_solo_player_gets_two_heroes_and_the_checklist(client):
    page = client.get(f"/new/{GAME}").get_data(as_text=True)
    assert 'name="solo_hero"' in page and 'name="thorns"' in page and 'name="lairs"' in page
    resp = client.post(f"/new/{GAME}", data=form_data(hero_1="shavi", solo_hero="bethras",
                                                     thorns="easy", lairs="1"))
    assert resp.status_code == 302
    code = resp.headers["Location"].split("/join/")[1].split("?")[0]
    client.post(f"/join/{code}", data={"seat": "0"})
    html = client.get(f"/t/{code}").get_data(as_text=True)
    assert "Sha&#39;Vi" in html and "Bethras" in html
    assert html.count('<span class="hero-owner">Ana\'s Hero') == 2  # both Hero cards say whose they are
    assert "Easy Thorns card" in html and "Lair A" in html and "Setup checklist" in html
    assert re.search(r"Xylia|Klethor", html.split("Setup checklist")[1]) is None


def test_setup_form_refuses_a_hero_chosen_twice_and_keeps_the_choices(client):
    resp = client.post(f"/new/{GAME}", data=form_data(player1="Ben", hero_1="klethor",
                                                     hero_2="klethor", thorns="difficult"))
    assert resp.status_code == 400
    page = resp.get_data(as_text=True)
    assert "Klethor is chosen twice: each Hero plays at most once." in page
    assert re.search(r'value="difficult" checked', page)


def test_out_of_range_hp_is_refused_with_a_message_and_changes_nothing(client):
    code = new_table(client)
    take(client, code, 0)
    resp = hx_post(client, f"/t/{code}/act", {"action": "set_hp", "hero": "xylia", "hp": "6",
                                              "version": "0", "seat": "0"})
    assert kept_in_place(resp) and toast(resp) == "A Hero's HP can never exceed 5."
    assert client.get(f"/api/tables/{code}").get_json()["version"] == 0
    resp = act(client, code, "set_orbs", {"hero": "klethor", "orbs": 11})
    assert resp.status_code == 400
    assert resp.get_json()["error"] == "A Hero can never have more than 10 orbs."


def test_malformed_forged_and_stale_requests_never_break_the_table(client, make_client):
    code = new_table(client)
    take(client, code, 0)
    for params in ({"hero": "gandalf", "hp": 3}, {"hero": "xylia", "hp": "three"},
                   {"hero": ["xylia"], "hp": 3}, {"hp": 3}, "not a dict"):
        resp = act(client, code, "set_hp", params)
        assert resp.status_code == 400 and resp.get_json()["error"]
    resp = act(client, code, "reveal_boss", {"boss": "dragon", "track": 9})
    assert "choose one of" in resp.get_json()["error"]
    # A seat this phone does not hold.
    assert act(client, code, "place_tile", {"kind": "growth"}, seat=1).status_code == 403
    # A stale form: someone placed a tile first.
    ben = make_client()
    take(ben, code, 1)
    assert act(ben, code, "place_tile", {"kind": "growth"}).status_code == 200
    resp = hx_post(client, f"/t/{code}/act", {"action": "place_tile", "kind": "growth",
                                              "hero": "xylia", "version": "0", "seat": "0"})
    assert toast(resp) == ("That was for Ana's tile, which is already placed; it is now round 1, Ben to "
                           "place a tile.")
    assert client.get(f"/api/tables/{code}").get_json()["view"]["stack"] == 21


def test_page_buttons_drive_a_turn_and_undo_restores_poisoned_hp(client):
    code = new_table(client)
    client.post(f"/join/{code}", data={"seat": "all"})
    act(client, code, "set_marker", {"hero": "xylia", "marker": "poison", "on": True}, seat=0)
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert "🌲 Ana" in page and "Tile placed · 21 left" in page
    # Post the two tile buttons the way the page does.
    for _ in range(2):
        page = client.get(f"/t/{code}").get_data(as_text=True)
        hx_post(client, f"/t/{code}/act", {"action": "place_tile", "kind": "growth",
                                           "hero": hidden(page, "hero"),
                                           "version": hidden(page, "version"), "seat": "0"})
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert "Poison: Xylia loses 1 HP at the start of her turn (5 → 4 HP)." in page
    assert "End Xylia&#39;s turn" in page
    version = hidden(page, "version")
    resp = hx_post(client, f"/t/{code}/undo", {"version": version})
    assert toast(resp).startswith("Undone")
    view = client.get(f"/api/tables/{code}").get_json()["view"]
    assert view["heroes"][0]["hp"] == 5 and view["phase"] == "growth"


def test_a_second_end_turn_is_refused_by_the_api_and_inline_on_the_page(client):
    code = new_table(client)
    client.post(f"/join/{code}", data={"seat": "all"})
    act(client, code, "place_tile", {"kind": "growth", "hero": "xylia"}, seat=0)
    act(client, code, "place_tile", {"kind": "growth", "hero": "klethor"}, seat=0)
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert re.search(r'name="action" value="end_turn">.*?name="hero" value="xylia"', page, re.S)
    assert act(client, code, "end_turn", {"hero": "xylia"}, seat=0).status_code == 200
    said = "That was for Xylia&#39;s turn, which is already over; it is now Klethor&#39;s turn (Ben)."
    # The API: 400 with the sentence, the fresh view, and nothing changed.
    before = client.get(f"/api/tables/{code}").get_json()
    resp = act(client, code, "end_turn", {"hero": "xylia"}, seat=0)
    assert resp.status_code == 400
    body = resp.get_json()
    assert body["error"] == said.replace("&#39;", "'")
    assert body["version"] == before["version"] and body["view"]["active"] == "klethor"
    # The same tap sent with the version it was rendered with: still the plain sentence.
    stale = act(client, code, "end_turn", {"hero": "xylia"}, seat=0, version=before["version"] - 1)
    assert stale.status_code == 409 and stale.get_json()["error"] == said.replace("&#39;", "'")
    resp = client.post(f"/api/tables/{code}/actions", json={
        "action": "end_turn", "params": {}, "version": before["version"], "seat": 0})
    assert resp.status_code == 400 and resp.get_json()["error"] == "Whose turn ends: a value is needed."
    # The page: answered with 200 and the sentence in the view, as htmx swaps only 2xx.
    resp = hx_post(client, f"/t/{code}/act", {"action": "end_turn", "hero": "xylia",
                                              "version": str(before["version"]), "seat": "0"})
    assert kept_in_place(resp) and toast(resp) == said.replace("&#39;", "'")
    after = client.get(f"/api/tables/{code}").get_json()
    assert after["version"] == before["version"] and after["view"]["boss"] == before["view"]["boss"]
