"""Explorers of the Woodlands through the web layer: the setup form, the page, bad input."""

import re

import pytest

from companion import store
from companion.db import get_db

from .helpers import act, hidden, hx_post, kept_in_place, take, toast, shown_version

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
                                           "version": shown_version(page), "seat": "0"})
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert "Poison: Xylia loses 1 HP at the start of her turn (5 → 4 HP)." in page
    assert "End Xylia&#39;s turn" in page
    version = shown_version(page)
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
    assert resp.status_code == 400 and resp.get_json()["error"] == "hero: a value is needed."
    # The page: answered with 200 and the sentence in the view, as htmx swaps only 2xx.
    resp = hx_post(client, f"/t/{code}/act", {"action": "end_turn", "hero": "xylia",
                                              "version": str(before["version"]), "seat": "0"})
    assert kept_in_place(resp) and toast(resp) == said.replace("&#39;", "'")
    after = client.get(f"/api/tables/{code}").get_json()
    assert after["version"] == before["version"] and after["view"]["boss"] == before["view"]["boss"]


def board_of(html):
    """The board: what the table page shows between its clock and its footer."""
    return html.split('<nav class="bottom-bar"')[0]


def first_part(html):
    """What the board shows before its numbers: this phone's move, or whose turn it is."""
    return board_of(html).split('class="stat-row')[0]


def assert_board_contract(html):
    """This phone's move first, then the numbers, everything else in panels with their own ids."""
    board = board_of(html)
    assert board.count("data-primary") == 1
    assert board.index("data-primary") < board.index('class="stat-row') < board.index('<details class="panel')
    # Nothing but the numbers and a chapter's numbers between the move and the panels.
    ids = re.findall(r'<details class="panel[^"]*" id="([^"]+)"', board)
    assert ids and len(ids) == len(set(ids)) == board.count('<details class="panel')


def campaign_at_chapter(app, client, chapter):
    """A new two-player campaign moved on to `chapter`; its id."""
    made = client.post("/campaigns", data={"name": f"Chapter {chapter}", "player0": "Ana",
                                           "player1": "Ben", "hero_1": "xylia", "hero_2": "shavi"})
    campaign_id = int(made.headers["Location"].rsplit("/", 1)[1])
    with app.app_context():
        conn = get_db()
        row = store.get_campaign(conn, campaign_id)
        store.save_campaign(conn, campaign_id, {**row.state, "chapter": chapter})
    return campaign_id


def start_chapter(client, campaign_id):
    """The campaign's chapter table, started from the campaign page; its code."""
    return client.post(f"/campaigns/{campaign_id}/start").headers["Location"].split("/")[-1].split("?")[0]


@pytest.mark.parametrize("chapter", [1, 2, 3, 4, 5])
def test_every_campaign_chapter_board_puts_the_move_first_and_the_rest_in_panels(app, client, chapter):
    campaign_id = campaign_at_chapter(app, client, chapter)
    assert_board_contract(client.get(f"/campaigns/{campaign_id}").get_data(as_text=True))
    code = start_chapter(client, campaign_id)
    take(client, code, 0)
    html = client.get(f"/t/{code}").get_data(as_text=True)
    assert_board_contract(html)
    assert f"Chapter {chapter} · <b class=\"quest-title\">" in html
    assert ('id="ex-boss"' in html) == (chapter > 2)  # chapters 1 and 2 have no Boss


def test_the_classic_board_puts_the_move_first_at_every_step_and_only_the_seat_holder_taps_it(client, make_client):
    code = new_table(client)
    take(client, code, 0)
    ben = make_client()
    take(ben, code, 1)
    ana_page = client.get(f"/t/{code}").get_data(as_text=True)
    assert_board_contract(ana_page)
    assert "Ana placed a tile" in board_of(ana_page)
    # Ben's phone says whose tile it is; Ana's button is one tap away there, for a quiet phone.
    ben_page = ben.get(f"/t/{code}").get_data(as_text=True)
    assert "Ana placed a tile" not in first_part(ben_page)
    assert "Ana placed a tile" in ben_page.split('id="ex-act-for"')[1]
    act(client, code, "place_tile", {"kind": "growth"}, seat=0)
    act(ben, code, "place_tile", {"kind": "growth"}, seat=1)
    # Xylia's turn: Ana's phone has the buttons; Ben's has them one tap away, in a panel.
    ana_page = client.get(f"/t/{code}").get_data(as_text=True)
    ben_page = ben.get(f"/t/{code}").get_data(as_text=True)
    for html in (ana_page, ben_page):
        assert_board_contract(html)
    assert "End Xylia&#39;s turn" in first_part(ana_page) and 'id="ex-act-for"' not in ana_page
    assert "End Xylia&#39;s turn" not in first_part(ben_page) and 'id="ex-act-for"' in ben_page
    # A Boss revealed by the empty stack is named first, before anything else.
    act(client, code, "set_stack", {"stack": 0}, seat=0)
    act(client, code, "end_turn", {}, seat=0)
    act(ben, code, "end_turn", {}, seat=1)
    act(client, code, "end_round", {}, seat=0)
    ana_page = client.get(f"/t/{code}").get_data(as_text=True)
    assert_board_contract(ana_page)
    assert "The Boss is revealed!" in first_part(ana_page) and 'id="ex-boss-choice"' in first_part(ana_page)


def test_xylias_extra_tile_is_asked_first_on_her_players_phone(client, make_client):
    code = new_table(client)
    take(client, code, 0)
    ben = make_client()
    take(ben, code, 1)
    act(client, code, "set_powers", {"hero": "xylia", "powers": 1}, seat=0)
    act(client, code, "place_tile", {"kind": "growth"}, seat=0)
    act(ben, code, "place_tile", {"kind": "growth"}, seat=1)
    ana_page, ben_page = (c.get(f"/t/{code}").get_data(as_text=True) for c in (client, ben))
    for html in (ana_page, ben_page):
        assert_board_contract(html)
    first = first_part(ana_page)
    assert "your choice:" in first and "No extra tile: start the Adventure" in first
    assert "No extra tile: start the Adventure" not in first_part(ben_page)


def test_the_campaign_page_says_the_latest_awakening_first_and_keeps_the_earlier_in_a_panel(app, client):
    ok = client.post("/campaigns", data={"name": "Two draws", "player0": "Ana", "player1": "Ben",
                                         "hero_1": "xylia", "hero_2": "shavi"})
    campaign_id = int(ok.headers["Location"].rsplit("/", 1)[1])
    draw = {"counts": {"snake": 2}, "how": "most", "among": []}
    with app.app_context():
        conn = get_db()
        row = store.get_campaign(conn, campaign_id)
        recorded = {"1": {"chapter": 1, "draw": {**draw, "type": "snake"}},
                    "2": {"chapter": 2, "draw": {**draw, "type": "plant", "counts": {"plant": 3}}}}
        store.save_campaign(conn, campaign_id, {**row.state, "chapter": 3, "recorded": recorded})
    html = client.get(f"/campaigns/{campaign_id}").get_data(as_text=True)
    assert_board_contract(html)
    latest = html.split('class="camp-latest camp-awakens-last">')[1].split("</p>")[0]
    assert "Plants were defeated most (3)" in latest
    earlier = html.split('id="camp-awakens"')[1].split("</details>")[0]
    assert "After chapter 1:</b> The Forest Awakens: Snakes" in earlier and "Plants" not in earlier
