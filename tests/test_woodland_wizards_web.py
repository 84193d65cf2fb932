"""Woodland Wizards through the web layer: each phase's screen for one seat, a phone passed
around and a watcher; the ending says who won and why before any round's result."""

import re

from .test_mysterious_forest_web import ok


def new_table(client, players=("Ana", "Ben", "Cara", "Dan")):
    resp = client.post("/api/tables", json={"game": "woodland-wizards", "players": list(players),
                                            "options": {"first_player": "0"}})
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()["code"]


def primary(page):
    """The step-of-the-moment section, the one element carrying data-primary."""
    assert page.count("data-primary") == 1
    return re.search(r"<section[^>]*data-primary.*?</section>", page, re.S).group(0)


def test_a_phone_passed_around_gets_the_next_seat_due_in_each_step(client, make_client):
    code = new_table(client)
    client.post(f"/join/{code}", data={"seat": "all"})
    watcher = make_client()

    def look():
        assert "data-primary" in watcher.get(f"/t/{code}").get_data(as_text=True)
        return primary(client.get(f"/t/{code}").get_data(as_text=True))

    assert "From Ana, in turn order: draw a card, then play a card." in look()
    ok(client, code, "set_phase", {"phase": "boost"})
    assert 'aria-label="Ana boosts"' in look()
    ok(client, code, "boost", {"player": 0})
    now = look()
    assert 'aria-label="Ben boosts"' in now and "Waiting for Ben, Cara and Dan to boost or pass." in now
    ok(client, code, "set_phase", {"phase": "scoring"})
    assert 'aria-label="Ana\'s round total"' in look()
    for seat, total in enumerate((4, 9, 9, 2)):
        ok(client, code, "enter_total", {"player": seat, "total": total})
    assert "Every total is in." in look() and "Rank the round" in look()
    ok(client, code, "settle_round")
    now = look()
    assert "Ben wins round 1" in now and "Ben and Cara: add your Contest Creatures" in now
    assert "Ben's Contest Creature" in now and "Cara's Contest Creature" not in now
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert "Ben and Cara both have 9; Ben is closer to the starting player Ana" in page
    ok(client, code, "score_creature", {"player": 1, "value": 5, "name": "", "phoenix": False})
    assert "Cara's Contest Creature" in look()


def test_the_ending_puts_the_winner_and_the_reason_before_the_last_round(client):
    code = new_table(client, players=("Ana", "Ben"))
    client.post(f"/join/{code}", data={"seat": "0"})
    for number in range(1, 5):
        ok(client, code, "set_phase", {"phase": "scoring"})
        ok(client, code, "enter_total", {"player": 0, "total": 1})
        ok(client, code, "enter_total", {"player": 1, "total": 8})
        ok(client, code, "settle_round")
        ok(client, code, "score_creature", {"player": 1, "value": 3, "name": "", "phoenix": False})
        ok(client, code, "next_round" if number < 4 else "finish", {"round": number + 1} if number < 4 else None)
    ok(client, code, "add_card", {"player": 0, "value": 12, "name": "", "phoenix": True})
    page = client.get(f"/t/{code}").get_data(as_text=True)
    now = primary(page)
    assert "🏆 Ana wins" in now and "Ana beats Ben: both 12, Ana holds the Golden Phoenix." in now
    # Round 4's result, which Ben won, is only a labelled panel after the verdict.
    assert "Round 4 result" not in now and "Ben wins round" not in page
    assert page.index("🏆 Ana wins") < page.index("Round 4 result (that round only)")
