"""The Wicked Forest through the web layer: a whole short game, and the private screen."""

import re

from .helpers import act, hidden, hx_post, kept_in_place, take, toast


def new_table(client, players=("Ana", "Ben")):
    resp = client.post("/api/tables", json={"game": "wicked-forest", "players": list(players),
                                            "options": {"first_leader": "0"}})
    assert resp.status_code == 201
    return resp.get_json()["code"]


def test_a_short_game_reaches_scoring_on_the_page(client):
    code = new_table(client)
    client.post(f"/join/{code}", data={"seat": "all"})
    assert act(client, code, "set_run_outs", {"count": 2}, seat=0).status_code == 200
    act(client, code, "reveal", {"flowers": 4, "witch": False}, seat=0)
    decision = client.get(f"/api/tables/{code}?seat=0").get_json()["view"]["decision"]
    act(client, code, "choose", {"choice": "return", "decision": decision}, seat=0)
    act(client, code, "choose", {"choice": "return", "decision": decision}, seat=1)
    act(client, code, "crystallize", {"player": 0, "magic": 5, "item": "card"}, seat=0)
    view = client.get(f"/api/tables/{code}").get_json()["view"]
    assert view["phase"] == "over" or view["final_round"]
    if view["phase"] != "over":
        act(client, code, "finish", {}, seat=0)
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert "🏆" in page and "Ana wins with 8 Magic" in page


def test_private_screen_needs_the_seat(client, make_client):
    code = new_table(client)
    take(client, code, 0)
    act(client, code, "reveal", {"flowers": 1, "witch": False}, seat=0)
    decision = client.get(f"/api/tables/{code}").get_json()["view"]["decision"]
    ben = make_client()
    take(ben, code, 1)
    act(ben, code, "choose", {"choice": "stay", "decision": decision}, seat=1)
    # Ana's phone asks for Ben's private screen: it does not hold Ben's seat, so it gets its own view.
    html = client.get(f"/t/{code}/view?as=1", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert "Ana: Stay or Return?" in html and "Ben: Stay or Return?" not in html
    assert 'aria-pressed="true"' not in html


def test_stale_reveal_form_says_why_and_shows_the_table_as_it_is(client):
    code = new_table(client)
    take(client, code, 0)
    act(client, code, "reveal", {"flowers": 2, "witch": False}, seat=0)
    resp = hx_post(client, f"/t/{code}/act", {"action": "reveal", "card": "1", "flowers": "3", "witch": "0",
                                              "version": "0", "seat": "0"})
    assert resp.status_code == 200
    body = resp.get_data(as_text=True)
    # The same card tapped again on a form already answered: said plainly, nothing revealed.
    assert toast(resp) == ("That was for card 1, which is already revealed; it is now round 1, card 1 "
                           "waiting for Stay or Return.") and "Forest: 1 of 9 revealed" in body


def board(client, code):
    return client.get(f"/t/{code}/view", headers={"HX-Request": "true"}).get_data(as_text=True)


def crystal_fields(html):
    return re.search(r'<fieldset id="wf-crystal-fields"[^>]*>', html).group(0)


def test_one_flower_reads_in_the_singular_everywhere_on_the_board(client):
    code = new_table(client, ("Ana", "Ben", "Cara"))
    take(client, code, 0)
    html = board(client, code)
    assert 'aria-label="1 Flower, no Witch"' in html and 'aria-label="Witch and 1 Flower"' in html
    act(client, code, "reveal", {"flowers": 1, "witch": False}, seat=0)
    html = board(client, code)
    assert "1 Flower shown" in html and 'aria-label="Card 1: 1 Flower"' in html
    assert re.search(r"\b1 Flowers\b", html) is None
    decision = client.get(f"/api/tables/{code}").get_json()["view"]["decision"]
    for seat in (1, 2):
        other = client.application.test_client()
        take(other, code, seat)
        act(other, code, "choose", {"choice": "return", "decision": decision}, seat=seat)
    act(client, code, "choose", {"choice": "stay", "decision": decision}, seat=0)
    html = board(client, code)
    assert "Ben and Cara gain 1 Flower each" in html
    assert re.search(r"\b1 Flowers\b", html) is None


def test_crystallization_fields_outlive_refreshes_until_this_phone_logs_them(client):
    code = new_table(client)
    take(client, code, 0)
    html = board(client, code)
    # Stable ids and names: a refresh brought by another phone's move keeps what is picked.
    assert "hx-preserve" in crystal_fields(html)
    for field in ("player", "item", "color", "magic", "spent"):
        assert f'id="wf-crystal-{field}" name="{field}"' in html
    fields = {"action": "crystallize", "seat": "0", "player": "0", "color": "none", "spent": "0"}
    refused = hx_post(client, f"/t/{code}/act", dict(fields, item="cultivation", magic="4", rid="r-1",
                                                     version=hidden(html, "version")))
    # Refused (a Cultivation tile has a colour): the screen is left as it is, what was picked stays.
    assert kept_in_place(refused) and "has a color" in toast(refused)
    answer = hx_post(client, f"/t/{code}/act", dict(fields, item="card", magic="4", rid="r-2",
                                                    version=hidden(html, "version")))
    answer = answer.get_data(as_text=True)
    # Logged: this phone's answer brings empty fields for the next entry.
    assert "Ana 4" in answer and "hx-preserve" not in crystal_fields(answer)
    assert "hx-preserve" in crystal_fields(board(client, code))
