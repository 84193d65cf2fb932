"""The paths on which an unrevealed Stay/Return pick once leaked, each walked as players would.

A pick that never reaches its reveal (a change of mind, a freed seat, a second Witch by
correction) is gone for good: not in the log, the history, the export, nor brought back by
undo. A phone passed around shows a pick only to the player who just made it.
"""

import json
import re

from companion import tables
from companion.dialects import run_text

from .helpers import act, hx_post, name_step, version_of
from .test_secrecy import normalise

PLAYERS = ["Ana", "Ben", "Cara", "Dan"]


def table_with_phones(client, make_client, shared=()):
    """A Wicked Forest table; one phone per seat, or one phone for the `shared` seats."""
    resp = client.post("/api/tables", json={"game": "wicked-forest", "players": PLAYERS,
                                            "options": {"first_leader": "0"}})
    code = resp.get_json()["code"]
    phones = {}
    passed = make_client() if shared else None
    for seat in range(len(PLAYERS)):
        phone = passed if seat in shared else make_client()
        assert phone.post(f"/api/tables/{code}/seats/{seat}").status_code == 201
        phones[seat] = phone
    return code, phones


def choose(phone, code, seat, choice, decision=1):
    resp = act(phone, code, "choose", {"choice": choice, "decision": decision}, seat=seat)
    assert resp.status_code == 200, resp.get_json()
    return resp


def reveal(phone, code, flowers, witch=False):
    resp = act(phone, code, "reveal", {"flowers": flowers, "witch": witch}, seat=0)
    assert resp.status_code == 200, resp.get_json()


def stored_params(app, code):
    """Every action row ever stored for the table, undone or not: (name, params)."""
    from companion import store
    conn = store.connect(app.config["DATABASE"])
    try:
        table_id = run_text(conn, "SELECT id FROM game_table WHERE code = :code", {"code": code}).fetchone()["id"]
        return [(r["name"], json.loads(r["params"]))
                for r in run_text(conn, "SELECT name, params FROM action WHERE table_id = :id ORDER BY seq",
                                  {"id": table_id})]
    finally:
        conn.close()


def test_a_freed_seat_starts_without_its_pick_and_the_table_is_told(app, client, make_client):
    code, phones = table_with_phones(client, make_client)
    reveal(phones[0], code, 3)
    choose(phones[1], code, 1, "return")
    # The host frees Ben's seat (his phone was lost); a new phone takes it.
    resp = client.delete(f"/api/tables/{code}/seats/1")
    assert resp.status_code == 200
    view = resp.get_json()["view"]
    assert view["waiting"] == [0, 1, 2, 3] and view["chosen"] == []
    line = "Ben's seat was freed: Ben's choice was withdrawn unseen; Ben chooses again."
    assert view["events"] == [line]
    newcomer = make_client()
    resp = newcomer.post(f"/api/tables/{code}/seats/1")
    assert resp.get_json()["view"]["my_choice"] is None
    page = newcomer.get(f"/t/{code}").get_data(as_text=True)
    assert "Ben: Stay or Return?" in page and "Your choice is in" not in page
    assert "choice-made" not in page
    # Nothing of the pick is stored, and undo cannot bring it back.
    assert ("_withdrawn", {}) in stored_params(app, code)
    assert all(params.get("choice") is None for _, params in stored_params(app, code))
    resp = newcomer.post(f"/api/tables/{code}/undo", json={"version": version_of(newcomer, code)})
    assert resp.status_code == 200
    assert resp.get_json()["events"] == ["Undone: Ana revealed a card: 3 Flowers"]
    log = [line["text"] for line in client.get(f"/api/tables/{code}/actions").get_json()["actions"]]
    assert log == [line]


def test_a_second_witch_by_correction_drops_the_picks_from_history_export_and_undo(app, client, make_client):
    code, phones = table_with_phones(client, make_client)
    reveal(phones[0], code, 2, witch=True)
    for seat in range(4):
        choose(phones[seat], code, seat, "stay")
    reveal(phones[0], code, 1)
    choose(phones[0], code, 0, "return", decision=2)
    choose(phones[1], code, 1, "stay", decision=2)
    # Dan, who has not chosen, corrects the card to a second Witch: the decision is over.
    resp = act(phones[3], code, "correct_card", {"flowers": 1, "witch": True}, seat=3)
    assert resp.status_code == 200
    assert resp.get_json()["events"][-1] == ("The choices of Ana and Ben were never revealed "
                                             "and are discarded unseen.")
    act(phones[3], code, "finish", {}, seat=3)
    # The only Return was Ana's, never revealed.
    for url in ("/history/export.json", "/api/history/1"):
        assert '"choice": "return"' not in json.dumps(client.get(url).get_json()), url
    for url in ("/history/export.csv", "/history/1"):
        assert "🏠 Return" not in client.get(url).get_data(as_text=True), url
    exported = client.get("/history/export.json").get_json()["games"][0]["log"]
    picks = [line["params"] for line in exported if line["action"] == "choose"]
    assert picks == [{"choice": "stay", "decision": 1}] * 4  # the revealed ones only
    # Two undos (the end, the correction) put the table back before the Witch: nobody has chosen.
    for _ in range(2):
        resp = phones[0].post(f"/api/tables/{code}/undo", json={"version": version_of(client, code)})
        assert resp.status_code == 200
    view = phones[0].get(f"/api/tables/{code}").get_json()["view"]
    assert view["phase"] == "choose" and view["chosen"] == [] and view["my_choice"] is None
    assert "return" not in json.dumps([p for _, p in stored_params(app, code)])


def test_a_change_of_mind_keeps_only_the_pick_that_was_revealed(app, client, make_client):
    code, phones = table_with_phones(client, make_client)
    reveal(phones[0], code, 4)
    choose(phones[0], code, 0, "return")
    choose(phones[0], code, 0, "stay")  # Ana changes her mind
    for seat in (1, 2, 3):
        choose(phones[seat], code, seat, "stay")
    rows = stored_params(app, code)
    assert rows[1] == ("_withdrawn", {})
    assert [p["choice"] for name, p in rows if name == "choose"] == ["stay"] * 4
    log = [line["text"] for line in client.get(f"/api/tables/{code}/actions").get_json()["actions"]]
    assert log.count("Ana has chosen") == 1


def test_a_passed_phone_shows_a_pick_once_and_then_hides_it(app, client, make_client):
    code, phones = table_with_phones(client, make_client, shared=(2, 3))
    passed = phones[2]
    reveal(phones[0], code, 3)
    view_url = f"/t/{code}/view"
    # Dora... here Cara: the phone is handed to her, she picks on her private screen.
    private = passed.get(f"{view_url}?as=2", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert "Cara: Stay or Return?" in private and 'name="as" value="2"' in private
    resp = hx_post(passed, f"/t/{code}/act", {"action": "choose", "seat": "2", "as": "2", "decision": "1",
                                              "choice": "return", "version": str(version_of(passed, code)),
                                              "rid": "pick-cara"})
    answer = resp.get_data(as_text=True)
    assert "You chose Return" in answer and "Done: hide my choice" in answer
    # Whoever holds the phone next sees the list; "Cara has chosen" opens no old choice.
    listing = passed.get(view_url, headers={"HX-Request": "true"}).get_data(as_text=True)
    assert "Cara has chosen ✓" in listing and "the choice stays hidden" in listing
    assert "You chose" not in listing
    reopened = passed.get(f"{view_url}?as=2", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert "Cara has chosen. Choose again?" in reopened
    assert "You chose" not in reopened and "Return." not in reopened
    # The same private screen whatever Cara chose.
    hx_post(passed, f"/t/{code}/act", {"action": "choose", "seat": "2", "as": "2", "decision": "1",
                                       "choice": "stay", "version": str(version_of(passed, code)),
                                       "rid": "pick-cara-2"})
    again = passed.get(f"{view_url}?as=2", headers={"HX-Request": "true"}).get_data(as_text=True)
    strip = re.compile(r'(data-version|name="version" value)="[^"]*"')
    assert strip.sub("", normalise(again)) == strip.sub("", normalise(reopened))


def test_only_a_pick_shows_the_passed_phone_its_choice(app, client, make_client):
    """`as` on another action must not open a seat's private screen with its pick."""
    code, phones = table_with_phones(client, make_client, shared=(2, 3))
    passed = phones[2]
    reveal(phones[0], code, 3)
    choose(passed, code, 2, "return")
    resp = hx_post(passed, f"/t/{code}/act", {"action": "set_magic", "seat": "2", "as": "2", "player": "2",
                                              "magic": "1", "version": str(version_of(passed, code)),
                                              "rid": "magic"})
    assert resp.status_code == 200 and "You chose" not in resp.get_data(as_text=True)


def test_a_chosen_seat_cannot_be_read_at_a_glance(app, client, make_client):
    """After a pick both buttons look alike; the choice is behind a tap, in small text."""
    code, phones = table_with_phones(client, make_client)
    reveal(phones[0], code, 3)
    before = phones[1].get(f"/t/{code}/view", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert "choice-made" not in before
    pages = {}
    for choice in ("stay", "return"):
        choose(phones[1], code, 1, choice)
        pages[choice] = phones[1].get(f"/t/{code}/view", headers={"HX-Request": "true"}).get_data(as_text=True)
    for page in pages.values():
        assert "choice-pad choice-made" in page and "picked" not in page and "aria-pressed" not in page
        assert '<details class="peek">' in page  # closed until tapped
    buttons = re.compile(r'<button class="btn big choice[^"]*"[^>]*>')
    assert buttons.findall(pages["stay"]) == buttons.findall(pages["return"])


def test_the_table_layer_names_what_ends_a_pick():
    """Only a secret pick opens the hands: any other action closing a pick drops it."""
    from companion.games import wicked_forest as wf

    def reveal_card(state, witch):
        return wf.apply(state, "reveal", name_step(wf, state, "reveal", {"flowers": 1, "witch": witch}), 0)
    state = wf.setup(["A", "B", "C"], {"first_leader": 0, "inventory": False})
    state = reveal_card(state, True)
    for seat in range(3):
        state = wf.apply(state, "choose", {"choice": "stay", "decision": 1}, seat)
    state = reveal_card(state, False)
    before = wf.apply(state, "choose", {"choice": "return", "decision": 2}, 1)
    after = wf.apply(before, "correct_card", {"flowers": 1, "witch": True}, 0)
    assert tables.dropped_picks(wf, wf.ACTIONS["correct_card"], before, after, 3) == [1]
    revealed = wf.apply(wf.apply(before, "choose", {"choice": "stay", "decision": 2}, 0),
                        "choose", {"choice": "stay", "decision": 2}, 2)
    assert tables.dropped_picks(wf, wf.ACTIONS["choose"], before, revealed, 3) == []


def test_a_correction_that_ends_nothing_keeps_every_pick(app, client, make_client):
    """Only a change that closes the decision drops picks: other moves leave them alone."""
    code, phones = table_with_phones(client, make_client)
    reveal(phones[0], code, 3)
    choose(phones[0], code, 0, "return")
    assert act(phones[3], code, "set_magic", {"player": 3, "magic": 2}, seat=3).status_code == 200
    assert act(phones[3], code, "correct_card", {"flowers": 2, "witch": False}, seat=3).status_code == 200
    assert phones[0].get(f"/api/tables/{code}").get_json()["view"]["my_choice"] == "return"
    assert [p for name, p in stored_params(app, code) if name == "choose"] == [
        {"choice": "return", "decision": 1}]
    for seat in (1, 2, 3):
        choose(phones[seat], code, seat, "stay")
    history = client.get(f"/api/tables/{code}").get_json()["view"]["history"]
    assert history[0]["choices"] == ["return", "stay", "stay", "stay"]


def test_only_the_host_frees_a_seat_and_only_a_seat_that_exists(client, make_client):
    code, phones = table_with_phones(client, make_client)
    resp = phones[1].delete(f"/api/tables/{code}/seats/1")
    assert resp.status_code == 403
    assert resp.get_json()["error"] == "Only the phone that created the table can free a seat."
    for seat in (4, 99):
        resp = client.delete(f"/api/tables/{code}/seats/{seat}")
        assert resp.status_code == 400
        assert resp.get_json()["error"] == "That seat does not exist at this table."
    # The first seat and the last are seats like any other.
    for seat in (0, 3):
        assert client.delete(f"/api/tables/{code}/seats/{seat}").status_code == 200
        assert client.get(f"/api/tables/{code}").get_json()["seats"][seat]["taken"] is False
    assert phones[0].get(f"/api/tables/{code}").get_json()["my_seats"] == []
