"""The Mysterious Forest through the web layer: the memorize countdown, the record, refusals."""

import html
import re

from companion import store, tables, timers
from companion.games import mysterious_forest as mf

from .helpers import act, hx_post, take, toast, version_of


def new_table(client, players=("Ana", "Ben"), **options):
    options = {"first_player": "0", "backpack_size": 10, **options}
    resp = client.post("/api/tables", json={"game": "mysterious-forest", "players": list(players),
                                            "options": options})
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()["code"]


def ok(client, code, action, params=None, seat=0):
    resp = act(client, code, action, params, seat=seat)
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()


def play_to_the_end(client, code, result="won", level_cards=8):
    take(client, code, 0)
    ok(client, code, "start_scouting")
    for card in range(1, level_cards + 1):
        ok(client, code, "done_looking", {"card": card})
    while client.get(f"/api/tables/{code}").get_json()["view"]["phase"] == "packing":
        ok(client, code, "pack", {"took": "equipment"})
    while True:
        view = client.get(f"/api/tables/{code}").get_json()["view"]
        if view["current_kind"] == "forest":
            ok(client, code, "cross", {"card": view["jonas"]})
        elif view["current_kind"] == "wanderer":
            ok(client, code, "wanderer", {"take": False})
        else:
            break
    if result == "won":
        ok(client, code, "beat_queen")
    else:
        ok(client, code, "fail", {"card": view["jonas"]})


def stored(app, code):
    conn = store.connect(app.config["DATABASE"])
    try:
        table = store.get_table(conn, code)
        return table, store.live_actions(conn, table.id)
    finally:
        conn.close()


def test_the_memorize_countdown_follows_the_cards(app, client):
    code = new_table(client, timer_seconds=15)
    take(client, code, 0)
    table, _ = stored(app, code)
    clock = table.snapshot["_clock"]
    assert clock["mode"] == "turn" and clock["seconds"] == 15 and clock["cue"] is None

    ok(client, code, "start_scouting")
    table, log = stored(app, code)
    started = log[-1].created_at
    clock = table.snapshot["_clock"]
    assert clock["cue"] == "scout:1"
    shown = timers.view(clock, started + 4)["countdown"]
    assert shown["label"] == "Memorize card 1 of 8" and shown["running"]
    assert shown["remaining"] == 11
    assert timers.view(clock, started + 20)["countdown"]["time_up"]

    ok(client, code, "done_looking", {"card": 1})
    table, log = stored(app, code)
    looked = log[-1].created_at
    clock = table.snapshot["_clock"]
    shown = timers.view(clock, looked + 2)["countdown"]
    assert clock["cue"] == "scout:2" and shown["label"] == "Memorize card 2 of 8"
    assert shown["remaining"] == 13 and shown["run_id"] == f"{looked:.3f}"

    # The page shows the same countdown to every phone.
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert 'aria-label="Memorize card 2 of 8"' in page

    for card in range(2, 9):
        ok(client, code, "done_looking", {"card": card})
    table, _ = stored(app, code)
    assert table.snapshot["_clock"]["cue"] is None
    assert client.get(f"/api/tables/{code}").get_json()["clock"]["countdown"] is None
    # Folding the log again gives the same clock, from the times stored with the actions.
    table, log = stored(app, code)
    assert tables.fold(mf, table.players, table.options, log) == table.snapshot


def test_the_new_table_page_offers_short_memorize_countdowns(client):
    page = client.get("/new/mysterious-forest").get_data(as_text=True)
    assert "Memorize countdown for each card" in page
    offered = re.findall(r'name="timer_seconds" value="(\d+)"', page)
    assert offered == ["0", "10", "15", "20", "30"]
    for level in mf.LEVEL_ORDER:
        assert f'value="{level}"' in page


def test_a_table_made_from_the_form(client):
    resp = client.post("/new/mysterious-forest", data={
        "player0": "Ana", "player1": "Ben", "player2": "Cara", "first_player": "2", "level": "lead",
        "guess_variant": "1", "backpack_size": "20", "timer_seconds": "0"})
    assert resp.status_code == 302
    code = resp.headers["Location"].rstrip("/").split("/")[-1].split("?")[0]
    view = client.get(f"/api/tables/{code}").get_json()["view"]
    assert view["level"] == "lead" and view["cards"] == 10 and view["guess_variant"]
    assert view["first_player"] == 2 and view["backpack_size"] == 20 and view["backpack_filled"] == 4


def test_bad_setup_is_refused_with_the_reason(client):
    resp = client.post("/new/mysterious-forest", data={"player0": "Ana", "backpack_size": "4"})
    assert resp.status_code == 400 and "beyond its 4 Loki tokens" in resp.get_data(as_text=True)
    resp = client.post("/api/tables", json={"game": "mysterious-forest", "players": ["Ana"],
                                            "options": {"level": "<b>"}})
    assert resp.status_code == 400 and "choose one of" in resp.get_json()["error"]


def test_every_phase_renders_for_a_seated_phone_and_a_watcher(client, make_client):
    code = new_table(client, guess_variant=True)
    client.post(f"/join/{code}", data={"seat": "all"})
    watcher = make_client()
    seen = []

    def look():
        page = client.get(f"/t/{code}").get_data(as_text=True)
        assert watcher.get(f"/t/{code}").status_code == 200
        seen.append(page)
        return page

    assert "Get the forest ready" in look()
    ok(client, code, "tick", {"step": 0, "done": True})
    assert look().count('aria-pressed="true"') == 1
    ok(client, code, "start_scouting")
    page = look()
    assert "Ana</b>, your turn!" in page and "Card 1 of 8" in page and "Done looking" in page
    for card in range(1, 9):
        ok(client, code, "done_looking", {"card": card})
    page = look()
    assert "Ana</b>, roll the 4 dice!" in page and "4 of 10" in page and "2 Loki" in page
    ok(client, code, "pack", {"took": "two_loki"})
    assert "Ben</b>, roll the 4 dice!" in look()
    ok(client, code, "pack", {"took": "equipment"})
    ok(client, code, "pack", {"took": "loki_equipment"})
    page = look()
    assert "Jonas is on card 1 of 8" in page and "All covered" in page
    for card in range(1, 5):
        ok(client, code, "cross", {"card": card})
    page = look()
    assert "The Wanderer!" in page and "Give an Equipment and a Loki token" in page
    ok(client, code, "wanderer", {"take": True, "exchange": "equipment_loki"})
    ok(client, code, "use_token")
    page = look()
    assert "💎 1</b><span>Wanderer token left<" in page and "Put a used Wanderer token back" in page
    ok(client, code, "cross", {"card": 6})
    ok(client, code, "cross", {"card": 7})
    assert "Our guess is laid" in look()
    ok(client, code, "lay_guess")
    assert "Exactly right!" in look()
    ok(client, code, "beat_queen")
    page = look()
    assert "You did it!" in page and "Next time, try <b>Budding Explorers</b>" in page


def test_refusals_say_why_and_change_nothing(client, make_client):
    code = new_table(client)
    take(client, code, 0)
    ok(client, code, "start_scouting")
    ok(client, code, "done_looking", {"card": 1})
    before = client.get(f"/api/tables/{code}").get_json()
    resp = act(client, code, "done_looking", {"card": 1}, seat=0)
    assert resp.status_code == 400 and "only be looked at once" in resp.get_json()["error"]
    resp = act(client, code, "done_looking", {"card": "two"}, seat=0)
    assert resp.status_code == 400 and "whole number" in resp.get_json()["error"]
    resp = act(client, code, "done_looking", {"card": 2}, seat=1)  # a seat this phone does not hold
    assert resp.status_code == 403
    stranger = make_client()
    assert act(stranger, code, "done_looking", {"card": 2}).status_code == 403
    # A stale form from the page: the notice comes back inline, nothing changes.
    resp = hx_post(client, f"/t/{code}/act", {"action": "done_looking", "card": "2",
                                              "version": str(before["version"] - 1), "seat": "0"})
    assert resp.status_code == 200 and "Someone else changed the table first" in toast(resp)
    after = client.get(f"/api/tables/{code}").get_json()
    assert after["version"] == before["version"] and after["view"] == before["view"]


def test_finished_games_make_the_record_on_the_start_screens(app, client):
    assert "Your record" not in client.get("/").get_data(as_text=True)
    play_to_the_end(client, new_table(client), "lost")
    won_code = new_table(client)
    play_to_the_end(client, won_code, "won")
    unfinished = new_table(client)
    take(client, unfinished, 0)
    ok(client, unfinished, "start_scouting")
    client.post("/api/tables", json={"game": "woodland-wizards", "players": ["Ana", "Ben"],
                                     "options": {"first_player": "0"}})

    conn = store.connect(app.config["DATABASE"])
    finished = store.finished_snapshots(conn, "mysterious-forest")
    conn.close()
    assert [state["result"] for state in finished] == ["lost", "won"]

    home = client.get("/").get_data(as_text=True)
    assert "Your record: 1 won of 2" in home
    assert "You won Standard: try Budding Explorers next!" in home
    page = client.get("/new/mysterious-forest").get_data(as_text=True)
    assert re.search(r'value="budding" checked', page)
    assert re.search(r"<th scope=\"row\">Standard</th><td>1</td><td>1</td>", page)

    # Undoing the win reopens that game: the record follows the tables as they are.
    resp = client.post(f"/api/tables/{won_code}/undo", json={"version": version_of(client, won_code)})
    assert resp.status_code == 200
    assert "Your record: 0 won of 1" in client.get("/").get_data(as_text=True)


def test_play_again_posts_the_rematch_and_keeps_the_players_and_extras(app, client):
    code = new_table(client, players=("Ana", "Maximiliana von Rosewood"), level="lead",
                     guess_variant=False, backpack_size=14)
    play_to_the_end(client, code, result="lost", level_cards=10)
    page = client.get(f"/t/{code}").get_data(as_text=True)
    form = re.search(r'<form method="post" action="([^"]+)" class="inline">\s*<button class="btn big primary" '
                     r'type="submit">🔁 Play again', page)
    assert form and form.group(1) == f"/t/{code}/rematch"
    resp = client.post(form.group(1))
    assert resp.status_code == 303
    # The phone held every seat: it is seated at the new table at once.
    new_code = re.search(r"/t/([A-Z0-9]+)$", resp.headers["Location"]).group(1)
    assert new_code != code
    view = client.get(f"/api/tables/{new_code}").get_json()["view"]
    assert view["players"] == ["Ana", "Maximiliana von Rosewood"]
    assert (view["phase"], view["level"], view["guess_variant"], view["backpack_size"]) == ("setup", "lead", False, 14)


def test_the_end_screen_offers_one_way_to_play_again(client):
    code = new_table(client)
    play_to_the_end(client, code, result="won")
    page = client.get(f"/t/{code}").get_data(as_text=True)
    # The board's big "Play again" is the only button making the rematch: the frame adds no
    # "Rematch" doing the same, and still links the game in the history.
    assert page.count(f'action="/t/{code}/rematch"') == 1
    assert "🔁 Play again" in page
    assert ">Rematch<" not in page
    assert f'href="/history/table/{code}"' in page


def scout_all(client, code, cards=8):
    take(client, code, 0)
    ok(client, code, "start_scouting")
    for card in range(1, cards + 1):
        ok(client, code, "done_looking", {"card": card})


def test_a_loki_roll_with_the_stack_short_is_taken_through_the_json_api(client):
    """Rulebook: "Special case: A die face shows an Equipment that isn't in the Reserve. In this
    case, and this case only, reroll the die": a Loki face is not rerolled, it takes what the
    stack still has."""
    code = new_table(client, backpack_size=40)  # Standard: 4 Loki in the Backpack, 7 in the stack
    scout_all(client, code)
    for _ in range(3):
        ok(client, code, "pack", {"took": "two_loki"})
    answer = ok(client, code, "pack", {"took": "two_loki"})
    assert "Only 1 Loki token was left in the stack, so that Loki brings nothing" in answer["events"][1]
    view = answer["view"]
    assert (view["loki_in_stack"], view["loki_packed"], view["backpack_filled"]) == (0, 11, 11)
    assert view["rolls"][-1] == {"number": 4, "seat": 1, "name": "Ben", "took": "two_loki",
                                 "label": "2 Loki", "icons": "🦊🦊", "loki": 1, "equipment": 0,
                                 "notes": ["Only 1 Loki token was left in the stack, so that Loki "
                                           "brings nothing (a Loki die is never rolled again)."]}
    answer = ok(client, code, "pack", {"took": "two_loki"})
    assert answer["view"]["backpack_filled"] == 11 and answer["view"]["roll_seat"] == 1
    page = client.get(f"/t/{code}").get_data(as_text=True)
    # Every answer stays on offer, and the tip says what an empty stack means.
    assert "Two Lokis rolled: two Loki tokens" in page
    assert "No Loki token is left in the stack: a Loki brings nothing." in page
    assert "Roll that die again, never a Loki." in page


def test_a_loki_token_is_explained_through_the_json_api_and_on_the_screen(client):
    """Rulebook: "Power 2: Exchange an Equipment in your Backpack with one in the Reserve." and
    "Special case: There are only Loki tokens in your Backpack. In this case, and this case
    only, if you turn over Power 2, exchange this Loki token with an Equipment of your choice in
    the Reserve." """
    code = new_table(client)  # Standard, a Backpack of 10: 4 Loki tokens and 3 rolls
    scout_all(client, code)
    for _ in range(3):
        ok(client, code, "pack", {"took": "equipment"})
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert 'aria-label="Use a Loki token: Power 1: ' in page
    assert 'aria-label="Use a Loki token: Power 2: ' in page
    answer = ok(client, code, "use_loki", {"power": 2})
    assert answer["events"][:2] == ["Loki token used on card 1, Power 2.", mf.LOKI_POWERS[2]]
    assert answer["view"]["loki_now"]["lines"] == [mf.LOKI_POWERS[2], mf.LOKI_ONLY_LOKI, mf.LOKI_BACK]
    log = client.get(f"/api/tables/{code}/actions").get_json()["actions"]
    assert log[-1]["text"] == ("Ana used a Loki token: Power 2, an Equipment of the Backpack "
                               "exchanged with one in the Reserve (with only Loki tokens in the "
                               "Backpack, this Loki token for an Equipment)")
    resp = act(client, code, "use_loki", {"power": 5}, seat=0)
    assert resp.status_code == 400 and resp.get_json()["error"] == (
        "power: 5 is above the highest allowed, 2.")
    now = re.search(r"<section[^>]*data-primary.*?</section>", client.get(f"/t/{code}").get_data(as_text=True), re.S).group(0)
    assert "Loki, card 1:</b>" in now and mf.LOKI_POWERS[2] in now
    assert ("Only Loki tokens in your Backpack? Then exchange this Loki token with an Equipment "
            "of your choice in the Reserve.") in now


def test_the_page_shows_the_facts_of_the_json_view(client):
    code = new_table(client, backpack_size=40)
    client.post(f"/join/{code}", data={"seat": "0"})
    view = client.get(f"/api/tables/{code}").get_json()["view"]
    page = client.get(f"/t/{code}").get_data(as_text=True)
    for level in view["levels"][1:]:  # Standard is the chosen one, marked instead of a button
        assert f">{level['label']}</button>" in page
    assert view["backpack_smaller"] == 39 and view["backpack_larger"] is None
    assert 'value="39"' in page and re.search(r'value="40" disabled aria-label="One space more"', page)
    ok(client, code, "start_scouting")
    for card in range(1, 9):
        ok(client, code, "done_looking", {"card": card})
    for _ in range(4):
        ok(client, code, "pack", {"took": "two_loki"})
    view = client.get(f"/api/tables/{code}").get_json()["view"]
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert len(view["packing_tips"]) == 2
    for tip in view["packing_tips"]:
        # Each tip with its speaker button beside it, which reads it aloud for a child.
        assert f'<p class="mf-tip">{tip}</p>' in page
    # One speaker reads the question and its tips aloud, for a child.
    assert re.search(r'<h2 class="mf-ask"><button type="button" class="speak" data-speak[^>]* data-speak-text="What did you take\? '
                     + re.escape(html.escape(view["packing_tips"][0], quote=True)), page)
    for offer in view["takes"]:
        assert f"<small>{offer['note']}</small>" in page


def test_api_an_odd_backpack_is_accepted_and_filled_to_the_last_space(client):
    code = new_table(client, backpack_size=9)
    client.post(f"/join/{code}", data={"seat": "0"})
    view = client.get(f"/api/tables/{code}").get_json()["view"]
    assert view["backpack_size"] == 9 and (view["backpack_smaller"], view["backpack_larger"]) == (8, 10)
    view = ok(client, code, "change_setup", {"backpack_size": 7})["view"]
    assert view["backpack_size"] == 7
    resp = act(client, code, "change_setup", {"backpack_size": 4}, seat=0)
    assert resp.status_code == 400 and "beyond its 4 Loki tokens" in resp.get_json()["error"]
    form = client.get("/new/mysterious-forest").get_data(as_text=True)
    assert 'name="backpack_size"' not in form  # not asked up front: the setup panel has it
