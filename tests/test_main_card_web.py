"""The small things on the pages, through Flask's test client: what the clock says before the
first move, a taken seat's hint, which total box to type in, plurals, a Boss named with no
track, and a button's spoken name holding the words it shows."""

import pytest
from markupsafe import Markup

from companion.games import words
from companion.web.forms import spoken_name

from .helpers import act, take
from .test_wicked_forest_web import new_table, ok


def test_before_the_first_move_the_clock_says_when_it_starts(client):
    code = new_table(client)
    take(client, code, 0)
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert "The clock starts with the first move" in page
    assert "Playing for" not in page and "—</b>" not in page
    ok(act(client, code, "reveal", {"card": 1, "flowers": 2, "witch": False}, seat=0))
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert "Playing for" in page and "The clock starts" not in page


def test_a_taken_seat_on_the_join_page_says_the_host_can_free_it(client, app):
    code = new_table(client)
    take(client, code, 0)
    other = app.test_client()
    page = other.get(f"/join/{code}").get_data(as_text=True)
    assert "Ana <small>taken · lost phone? the host can free it (More → Share)</small>" in page


def test_each_woodland_wizards_total_box_says_what_goes_in_it(client):
    resp = client.post("/api/tables", json={"game": "woodland-wizards", "players": ["Ana", "Ben"],
                                            "options": {}})
    code = resp.get_json()["code"]
    client.post(f"/join/{code}", data={"seat": "all"})
    table = client.get(f"/api/tables/{code}").get_json()
    while table["view"]["phase"] != "scoring":
        ok(act(client, code, "set_phase", {"phase": "scoring"}, seat=0))
        table = client.get(f"/api/tables/{code}").get_json()
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert '<small aria-hidden="true">Type the sum</small>' in page
    assert '<small aria-hidden="true">or the total</small>' in page


def test_a_boss_named_without_its_track_length_is_told_what_is_missing(client):
    resp = client.post("/api/tables", json={"game": "explorers-of-the-woodlands", "players": ["Ana", "Ben"],
                                            "options": {"heroes": ["xylia", "klethor"]}})
    code = resp.get_json()["code"]
    take(client, code, 0)
    before = client.get(f"/api/tables/{code}").get_json()
    resp = act(client, code, "reveal_boss", {"boss": "grimnor", "track": ""}, seat=0)
    assert resp.get_json()["error"] == ("Threat track length missing: type how many spaces the "
                                        "Boss's threat track has (printed on its card), 2 to 30.")
    after = client.get(f"/api/tables/{code}").get_json()
    assert after["version"] == before["version"] and not after["view"]["boss"]["revealed"]


@pytest.mark.parametrize("count, word, said", [(0, "win", "wins"), (1, "win", "win"), (2, "win", "wins"),
                                               (1, "crystal", "crystal"), (3, "Bush", "Bushes")])
def test_a_word_under_a_number_agrees_with_it(count, word, said):
    many = "Bushes" if word == "Bush" else None
    assert words.noun(count, word, many) == said
    assert words.plural(count, word, many) == f"{count} {said}"


@pytest.mark.parametrize("label, shown, name", [
    ("End turn", "End Xylia's turn", "End turn: End Xylia's turn"),
    ("Xylia HP 3", "3", "Xylia HP 3"),
    ("Reset the countdown", "↺", "Reset the countdown"),
    ("Ana boosts", "+ Boost", "Ana boosts: + Boost"),
    ("Defeated a Mushroom", Markup("🍄 <small>Mushroom</small>"), "Defeated a Mushroom"),
    ("Threat plus one: Combat skill", Markup("Threat +1 <small>Combat skill</small>"),
     "Threat plus one: Combat skill: Threat +1 Combat skill"),
    ("Boss", Markup("Grimnor&#39;s <small>tile</small>"), "Boss: Grimnor's tile"),
    (None, "Anything", None),
])
def test_a_buttons_spoken_name_holds_the_words_it_shows(label, shown, name):
    assert spoken_name(label, shown) == name
