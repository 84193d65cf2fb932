"""The campaign JSON API, and the recording of a chapter when its end is confirmed.

Rulebook, Campaign Mode: "The Forest Awakens: After each successful chapter, count the number
of Monsters of each type that you defeated in that chapter. The type of Monster that you
defeated most often becomes Enraged for the rest of the campaign."
Rulings: "After a won chapter, once the players confirm its end and final tallies, apply
"The Forest Awakens" (not after chapter 5, which ends the campaign) [...] Show the draw on
every phone and log it."
"""

import threading

import pytest

from .campaign_play import (TWO_HEROES, count_rows, create_campaign, end_table, lose_chapter_2, ok,
                            set_campaign, start_chapter, win_chapter_1)
from .helpers import act

AWAKENS_SNAKES = "The Forest Awakens: Snakes were defeated most (3) and become Enraged."


def confirm(client, campaign_id, code=None):
    return client.post(f"/api/campaigns/{campaign_id}/confirm",
                       json={} if code is None else {"table": code})


def table_log(client, code):
    return [line["text"] for line in client.get(f"/api/tables/{code}/actions").get_json()["actions"]]


def test_a_campaign_is_created_and_read_as_json(client):
    made = create_campaign(client)
    assert made["name"] == "Winter" and made["players"] == ["Ana", "Ben"]
    assert [(h["id"], h["owner"], h["hp"], h["orbs"], h["powers"], h["loot"]) for h in made["heroes"]] == [
        ("xylia", "Ana", 5, 0, 0, []), ("klethor", "Ben", 5, 0, 0, [])]
    assert made["next"] == "start_chapter" and made["table"] is None
    assert made["chapter"] == {"number": 1, "title": "Mushrooms for the Elder",
                               "goal": made["chapters"][0]["goal"]}
    assert [c["result"] for c in made["chapters"]] == [None] * 5
    assert made["forest_awakens"] == [] and made["enraged"] == []
    assert made["log"] == ["Campaign Winter begins: Xylia (Ana), Klethor (Ben)."]
    assert ok(client.get(f"/api/campaigns/{made['id']}")) == made
    listed = ok(client.get("/api/campaigns"))
    assert listed == [{"id": made["id"], "name": "Winter", "players": ["Ana", "Ben"],
                       "chapter": 1, "finished": False}]


@pytest.mark.parametrize("body, message", [
    ([1, 2], "Send a JSON object"),
    ({"name": ["Winter"]}, "name must be text"),
    ({"name": ""}, "Give the campaign a name"),
    ({"players": "Ana"}, "Players must be a list"),
    ({"players": ["Ana", "ana"]}, "same name"),
    ({"heroes": ["xylia"]}, "Choose a Hero for each player"),
    ({"heroes": ["xylia", {"id": "klethor"}]}, "Choose a Hero for each player"),
    ({"heroes": ["xylia", "xylia"]}, "at most once"),
    ({"first_player": True}, "first_player must be a seat number"),
    ({"first_player": "0"}, "first_player must be a seat number"),
    ({"first_player": 7}, "The first player must be one of the players"),
    ({"thorns": ["easy"]}, "thorns must be text"),
    ({"thorns": "nightmare"}, "Easy, Regular or Difficult"),
])
def test_creating_a_campaign_refuses_bad_input_and_creates_nothing(client, body, message):
    if isinstance(body, dict):
        body = {"name": "Winter", "players": ["Ana", "Ben"], "heroes": ["xylia", "klethor"], **body}
    resp = client.post("/api/campaigns", json=body)
    assert resp.status_code == 400 and message in resp.get_json()["error"]
    assert ok(client.get("/api/campaigns")) == []


def test_a_name_taken_and_an_unknown_campaign_are_refused_in_json(client):
    made = create_campaign(client)
    resp = client.post("/api/campaigns", json={"name": "WINTER", "players": ["Cy", "Di"],
                                               "heroes": ["shavi", "bethras"]})
    assert resp.status_code == 400 and "already exists" in resp.get_json()["error"]
    for method, url in [("GET", "/api/campaigns/999"), ("POST", "/api/campaigns/999/chapters"),
                        ("POST", "/api/campaigns/999/confirm"), ("GET", "/api/campaigns/abc"),
                        ("POST", "/api/campaigns/0/restart")]:
        resp = client.open(url, method=method, json={})
        assert resp.status_code == 404 and "error" in resp.get_json(), url
    assert [c["id"] for c in ok(client.get("/api/campaigns"))] == [made["id"]]


def test_starting_the_next_chapter_creates_its_table_once(client, make_client):
    made = create_campaign(client)
    resp = client.post(f"/api/campaigns/{made['id']}/chapters")
    assert resp.status_code == 201
    started = resp.get_json()
    code = started["code"]
    assert started["created"] and started["join_url"].endswith(f"/join/{code}")
    assert started["campaign"]["next"] == "play_chapter"
    assert started["campaign"]["table"] == {"code": code, "chapter": 1, "over": False,
                                            "result": None, "join_url": started["join_url"]}
    assert started["campaign"]["chapters"][0]["attempts"] == 1
    table = ok(client.get(f"/api/tables/{code}"))
    assert table["view"]["chapter"]["number"] == 1 and table["players"] == ["Ana", "Ben"]
    # This client made the table: it is its host and may free a seat.
    other = make_client()
    assert other.post(f"/api/tables/{code}/seats/1").status_code == 201
    assert client.delete(f"/api/tables/{code}/seats/1").status_code == 200
    # A second tap, from any phone, gives the same table back and makes none.
    again = other.post(f"/api/campaigns/{made['id']}/chapters")
    assert again.status_code == 200
    assert again.get_json()["code"] == code and not again.get_json()["created"]
    assert again.get_json()["campaign"]["chapters"][0]["attempts"] == 1


def test_reading_records_nothing_and_a_double_confirm_records_once(app, client):
    """The Monster tallied in the final fight, after the table ended, counts in the draw."""
    made = create_campaign(client)
    cid = made["id"]
    code = start_chapter(client, cid)
    win_chapter_1(client, code, plants=2)
    # The final fight's Snakes are tallied on the result screen, after the table ended.
    ok(act(client, code, "tally", {"kind": "snake", "count": 3}))
    for _ in range(5):
        read = ok(client.get(f"/api/campaigns/{cid}"))
        assert client.get(f"/campaigns/{cid}").status_code == 200
        assert client.get(f"/t/{code}").status_code == 200
        ok(client.get(f"/api/tables/{code}"))
    assert read["next"] == "confirm_end" and read["chapter"]["number"] == 1
    assert read["table"]["over"] and read["table"]["result"]["winners"] == [0, 1]
    assert read["forest_awakens"] == [] and read["enraged"] == []
    assert read["chapters"][0]["result"] is None
    assert count_rows(app, "SELECT COUNT(*) FROM campaign_event") == 2  # begins, chapter 1 starts

    first = confirm(client, cid, code)
    second = confirm(client, cid, code)
    assert first.status_code == second.status_code == 200
    done = first.get_json()
    assert done["repeated"] is False and second.get_json()["repeated"] is True
    assert done["recorded"]["outcome"] == "won" and done["recorded"]["table"] == code
    draw = done["recorded"]["forest_awakens"]
    assert (draw["type"], draw["how"], draw["text"]) == ("snake", "most", AWAKENS_SNAKES)
    assert draw["counts"] == {"mushroom": 0, "plant": 2, "skeleton": 0, "snake": 3}
    assert second.get_json()["recorded"] == done["recorded"]
    now = ok(client.get(f"/api/campaigns/{cid}"))
    assert now["next"] == "start_chapter" and now["chapter"]["number"] == 2
    assert now["chapters"][0]["result"] == "won" and now["table"] is None
    assert [e["kind"] for e in now["enraged"]] == ["snake"]
    assert [(d["chapter"], d["table"], d["text"]) for d in now["forest_awakens"]] == [(1, code, AWAKENS_SNAKES)]
    # In the campaign's history once, and in the table's log once, as a full sentence.
    assert now["log"].count(AWAKENS_SNAKES) == 1
    assert table_log(client, code).count(AWAKENS_SNAKES) == 1
    assert "Chapter 1's victory is recorded in the campaign Winter." in table_log(client, code)
    # Every phone at the table shows it on the result screen.
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert "Recorded in the campaign Winter." in page and AWAKENS_SNAKES in page


def test_confirming_is_refused_until_the_chapter_has_ended(app, client):
    made = create_campaign(client)
    cid = made["id"]
    resp = confirm(client, cid)
    assert resp.status_code == 400 and "start the next chapter first" in resp.get_json()["error"]
    code = start_chapter(client, cid)
    resp = confirm(client, cid, code)
    assert resp.status_code == 400
    assert resp.get_json()["error"].startswith("Chapter 1 has not ended yet at table " + code)
    for body, message in [({"table": "ZZZZ"}, "Table ZZZZ is not this campaign's current chapter"),
                          ({"table": 42}, "table must be text"),
                          ({"table": "!!"}, "Name the chapter's table by its code."),
                          ("[]", "Send a JSON object")]:
        resp = client.post(f"/api/campaigns/{cid}/confirm", json=body)
        assert resp.status_code == 400 and message in resp.get_json()["error"], body
    read = ok(client.get(f"/api/campaigns/{cid}"))
    assert read["next"] == "play_chapter" and read["chapters"][0]["result"] is None
    assert count_rows(app, "SELECT COUNT(*) FROM campaign_event") == 2


def test_a_lost_chapter_is_confirmed_then_restarted_after_the_discards(app, client):
    """Rulebook: "If a chapter ends in defeat, you must reset your progress. Gather the starting
    equipment as it was when you started the chapter and discard one Loot card from each Hero."
    A lost chapter Enrages nothing."""
    cid = create_campaign(client)["id"]
    code = start_chapter(client, cid)
    ok(act(client, code, "add_loot", {"hero": "xylia", "name": "Boots"}))
    ok(act(client, code, "add_loot", {"hero": "xylia", "name": "Mace"}))
    win_chapter_1(client, code)
    ok(confirm(client, cid, code))
    code2 = start_chapter(client, cid)
    lose_chapter_2(client, code2)
    lost = ok(confirm(client, cid, code2))
    assert lost["recorded"] == {"table": code2, "chapter": 2, "outcome": "lost", "forest_awakens": None}
    assert lost["next"] == "discard" and len(lost["enraged"]) == 1
    assert "Chapter 2's defeat is recorded in the campaign Winter" in table_log(client, code2)[-1]
    before = ok(client.get(f"/api/campaigns/{cid}"))
    for body, message in [({"discards": {"xylia": True}}, "by its number in the list"),
                          ({"discards": {"xylia": "0"}}, "by its number in the list"),
                          ({"discards": {"shavi": 0}}, "Not a Hero of this campaign: shavi."),
                          ({"discards": ["xylia"]}, "discards must be a JSON object"),
                          ({"discards": {"xylia": 5}}, "Choose which Loot card Xylia discards"),
                          ({"discards": {}}, "Choose which Loot card Xylia discards")]:
        resp = client.post(f"/api/campaigns/{cid}/restart", json=body)
        assert resp.status_code == 400 and message in resp.get_json()["error"], body
    assert ok(client.get(f"/api/campaigns/{cid}")) == before
    again = ok(client.post(f"/api/campaigns/{cid}/restart", json={"discards": {"xylia": 1}}))
    assert again["next"] == "start_chapter" and again["chapter"]["number"] == 2
    assert again["heroes"][0]["loot"] == ["Boots"]
    assert again["log"][-1] == ("Chapter 2 restarts from its starting state. Xylia discards Mace. "
                                "Klethor has no Loot card to discard.")
    resp = client.post(f"/api/campaigns/{cid}/restart", json={"discards": {}})
    assert resp.status_code == 400 and "No chapter is waiting" in resp.get_json()["error"]


def test_chapter_5_ends_the_campaign_with_no_forest_awakens(app, client):
    """Rulings: apply "The Forest Awakens" after a won chapter "(not after chapter 5, which
    ends the campaign)"."""
    cid = create_campaign(client)["id"]
    set_campaign(app, cid, chapter=5, enraged=["plant"],
                 results={"1": "won", "2": "won", "3": "won", "4": "won", "5": None})
    code = start_chapter(client, cid)
    ok(act(client, code, "tally", {"kind": "snake", "count": 4}))
    end_table(app, code)
    done = ok(confirm(client, cid, code))
    assert done["finished"] and done["next"] == "none" and done["chapter"] is None
    assert done["recorded"]["forest_awakens"] is None
    assert [e["kind"] for e in done["enraged"]] == ["plant"] and done["forest_awakens"] == []
    assert done["log"][-2:] == ["Chapter 5 won: Done.",
                                "The campaign is won: the forest is saved. Congratulations!"]
    assert all(line.strip() for line in done["log"])
    assert not any("Forest Awakens" in line for line in table_log(client, code))
    resp = client.post(f"/api/campaigns/{cid}/chapters")
    assert resp.status_code == 400 and "The campaign is over" in resp.get_json()["error"]


def test_a_forged_campaign_start_is_refused_and_creates_nothing(app, client):
    """Only the campaign layer starts a chapter's table: a client cannot make one up."""
    forged = {"campaign": 1, "chapter": 5, "enraged": [],
              "carry": {"xylia": {"hp": 5, "orbs": 10, "powers": 2, "loot": ["Sword"] * 3},
                        "klethor": {"hp": 5, "orbs": 10, "powers": 2, "loot": []}}}
    resp = client.post("/api/tables", json={"game": "explorers-of-the-woodlands",
                                            "players": ["Ana", "Ben"],
                                            "options": {"campaign_start": forged}})
    assert resp.status_code == 400
    assert resp.get_json()["error"] == (
        "A campaign chapter's table is started from its campaign (the campaign page or "
        "POST /api/campaigns/<id>/chapters), not by a table option.")
    for value in (None, "x", []):
        resp = client.post("/api/tables", json={"game": "explorers-of-the-woodlands",
                                                "players": ["Ana", "Ben"],
                                                "options": {"campaign_start": value}})
        assert resp.status_code == 400 and "started from its campaign" in resp.get_json()["error"]
    assert count_rows(app, "SELECT COUNT(*) FROM game_table") == 0
    # The new-table form hands over only the game's own options: the field makes a classic game.
    resp = client.post("/new/explorers-of-the-woodlands",
                       data={"player0": "Ana", "player1": "Ben", "campaign_start": '{"chapter": 5}'})
    assert resp.status_code == 302
    code = resp.headers["Location"].split("/")[2].split("?")[0]
    assert ok(client.get(f"/api/tables/{code}"))["view"]["chapter"] is None


def test_the_pages_offer_the_confirmation_and_record_it_once(app, client):
    cid = create_campaign(client)["id"]
    code = start_chapter(client, cid)
    page = client.get(f"/campaigns/{cid}").get_data(as_text=True)
    assert "Go to the chapter" in page and "Confirm the end" not in page
    resp = client.post(f"/campaigns/{cid}/confirm", data={"table": code})
    assert resp.status_code == 400 and "has not ended yet" in resp.get_data(as_text=True)
    win_chapter_1(client, code)
    ok(act(client, code, "tally", {"kind": "snake", "count": 3}))
    table_page = client.get(f"/t/{code}").get_data(as_text=True)
    assert "Confirm the end of the chapter" in table_page and "Recorded in" not in table_page
    page = client.get(f"/campaigns/{cid}").get_data(as_text=True)
    assert "Confirm the end of chapter 1" in page and f'name="table" value="{code}"' in page
    for _ in range(2):  # a double tap
        resp = client.post(f"/campaigns/{cid}/confirm", data={"table": code})
        assert resp.status_code == 303 and resp.headers["Location"] == f"/campaigns/{cid}"
    page = client.get(f"/campaigns/{cid}").get_data(as_text=True)
    assert "Start chapter 2" in page and page.count(AWAKENS_SNAKES) == 2  # the latest draw, the history
    assert table_log(client, code).count(AWAKENS_SNAKES) == 1
    assert count_rows(app, "SELECT COUNT(*) FROM campaign_event") == 5


@pytest.mark.parametrize("method, url", [
    ("GET", "/api/campaigns/{}"), ("POST", "/api/campaigns/{}/chapters"),
    ("POST", "/api/campaigns/{}/confirm"), ("POST", "/api/campaigns/{}/restart"),
])
def test_campaign_ids_beyond_64_bits_are_refused_in_json(client, method, url):
    for number in (2**63, 10**400):
        resp = client.open(url.format(number), method=method, json={})
        assert resp.status_code == 400 and "too large" in resp.get_json()["error"]


def test_hostile_bodies_are_refused_and_change_nothing(app, client):
    cid = create_campaign(client)["id"]
    before = ok(client.get(f"/api/campaigns/{cid}"))
    for url, body in [("/api/campaigns", b"not json"), ("/api/campaigns", b'"Winter"'),
                      (f"/api/campaigns/{cid}/confirm", b"[1]"),
                      (f"/api/campaigns/{cid}/restart", b'{"discards": 1}')]:
        resp = client.post(url, data=body, content_type="application/json")
        assert resp.status_code == 400 and resp.get_json()["error"], (url, body)
    for body in [{"name": "W" * 41}, {"players": ["Ana"] * 100}, {"players": [f"P{i}" for i in range(9)]},
                 {"heroes": ["xylia"] * 500}, {"players": ["Ana", 7]}]:
        resp = client.post("/api/campaigns", json={**TWO_HEROES, "name": "Other", **body})
        assert resp.status_code == 400 and resp.get_json()["error"], body
    assert ok(client.get(f"/api/campaigns/{cid}")) == before
    assert len(ok(client.get("/api/campaigns"))) == 1


def test_two_phones_confirming_at_once_record_the_chapter_once(app, client, make_client):
    cid = create_campaign(client)["id"]
    code = start_chapter(client, cid)
    win_chapter_1(client, code)
    phones = [make_client(), make_client()]
    both = threading.Barrier(len(phones))
    answers = []

    def tap(phone):
        both.wait(10)
        resp = confirm(phone, cid, code)
        answers.append((resp.status_code, resp.get_json()))

    threads = [threading.Thread(target=tap, args=(phone,), daemon=True) for phone in phones]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted((status, body["repeated"]) for status, body in answers) == [(200, False), (200, True)]
    assert answers[0][1]["recorded"] == answers[1][1]["recorded"]
    log = ok(client.get(f"/api/campaigns/{cid}"))["log"]
    assert sum(line.startswith("The Forest Awakens") for line in log) == 1
    assert sum(line.startswith("The Forest Awakens") for line in table_log(client, code)) == 1


def test_a_recorded_chapter_table_takes_no_move_and_no_undo(client):
    """The campaign keeps the ending it recorded: the table cannot go on to tell another."""
    cid = create_campaign(client)["id"]
    code = start_chapter(client, cid)
    win_chapter_1(client, code, plants=2)
    ok(act(client, code, "tally", {"kind": "snake", "count": 3}))
    before = ok(client.get(f"/api/tables/{code}"))
    assert before["view"]["result"]["winners"] == [0, 1]
    assert confirm(client, cid, code).status_code == 200
    closed = ok(client.get(f"/api/tables/{code}"))
    reason = ("Chapter 1's end is recorded in the campaign, so this table can no longer change: "
              "the campaign goes on from its page.")
    refused = act(client, code, "tally", {"kind": "snake", "count": 4})
    assert refused.status_code == 400 and refused.get_json()["error"] == reason
    undone = client.post(f"/api/tables/{code}/undo", json={"version": closed["version"]})
    assert undone.status_code == 400 and undone.get_json()["error"] == reason
    after = ok(client.get(f"/api/tables/{code}"))
    assert (after["version"], after["view"]) == (closed["version"], closed["view"])
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert "Recorded in the campaign" in page
    assert ok(client.get(f"/api/campaigns/{cid}"))["chapters"][0]["result"] == "won"


def test_a_finished_chapter_table_says_its_ending_once_and_offers_no_rematch(client):
    """A chapter goes on from its campaign: the table links back there, and a rematch (a new
    table outside the campaign) is not offered."""
    cid = create_campaign(client)["id"]
    code = start_chapter(client, cid)
    win_chapter_1(client, code, plants=2)
    page = client.get(f"/t/{code}").get_data(as_text=True)
    reason = ok(client.get(f"/api/tables/{code}"))["view"]["result"]["sentence"].removeprefix("Victory! ")
    assert page.count(reason) == 1
    assert "Rematch" not in page and "Back to the campaign" in page
