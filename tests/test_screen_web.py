"""The table screen through Flask's test client: what it shows of each game, what it says,
that it never tells a pick before the reveal, and the `/screen` address that follows the
newest table from game to game."""

import re

import pytest

from companion import create_app, store, tables
from companion.web import screen, voice

from .helpers import act, take
from .test_rematch import coop, finished_table  # noqa: F401  (a fixture)

OPTIONS = {"wicked-forest": {"first_leader": "0"}, "woodland-wizards": {"first_player": "0"},
           "explorers-of-the-woodlands": {"first_player": "0", "hero_1": "xylia", "hero_2": "klethor",
                                          "hero_3": "bethras", "enraged_bosses": True},
           "mysterious-forest": {"first_player": "0", "guess_variant": True, "backpack_size": 12}}


def create(client, game, players=("Ana", "Ben", "Cara")):
    resp = client.post("/api/tables", json={"game": game, "players": list(players), "options": OPTIONS[game]})
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()["code"]


def ok(client, code, action, params=None, seat=None):
    resp = act(client, code, action, params, seat=seat)
    assert resp.status_code == 200, resp.get_json()


def lines_of(client, code):
    resp = client.get(f"/t/{code}/screen/say")
    assert resp.status_code == 200
    return [line["text"] for line in resp.get_json()["lines"]]


@pytest.mark.parametrize("game", sorted(OPTIONS))
def test_the_screen_of_every_game_is_read_only_and_shows_how_to_join(client, game):
    code = create(client, game)
    page = client.get(f"/t/{code}/screen")
    assert page.status_code == 200 and page.headers["Cache-Control"] == "no-store"
    html = page.get_data(as_text=True)
    # No seat and no controls: nothing to tap, nothing to send.
    assert "<form" not in html and "<button" not in html and "<input" not in html
    assert f'src="/t/{code}/qr.svg"' in html and f">{code}</b>" in html
    assert f'data-view-template="/t/CODE/screen/view"' in html
    part = client.get(f"/t/{code}/screen/view").get_data(as_text=True)
    assert f'data-code="{code}"' in part and 'data-version="0"' in part
    assert part.strip() in html  # the page opens with the same live part it fetches later


def test_an_unknown_table_has_no_screen(client):
    for url in ("/t/ZZZZ/screen", "/t/ZZZZ/screen/view", "/t/ZZZZ/screen/say"):
        resp = client.get(url)
        assert resp.status_code == 404, url
        assert b"No table" in resp.data or resp.is_json


def test_the_wicked_forest_screen_shows_who_has_chosen_never_what_until_the_reveal(make_client):
    """Two tables played alike but for Ana's pick: the screen and its lines are the same
    at every step until the reveal, which then shows every pick at once."""
    host = make_client()
    twins = [create(host, "wicked-forest") for _ in range(2)]
    for code in twins:
        for seat in range(3):
            take(host, code, seat)
        ok(host, code, "reveal", {"flowers": 2, "witch": False}, seat=0)
    seen = []
    for code, ana in zip(twins, ("stay", "return")):
        ok(host, code, "choose", {"choice": ana, "decision": 1}, seat=0)
        ok(host, code, "choose", {"choice": "stay", "decision": 1}, seat=1)
        watcher = make_client()
        part = watcher.get(f"/t/{code}/screen/view").get_data(as_text=True)
        # The clock runs on wall time, whatever was picked: its figures are left out.
        part = re.sub(r'(data-elapsed="|elapsed-time">)[0-9.:]+', r"\1T", part.replace(code, "CODE"))
        seen.append((part, lines_of(watcher, code)))
    assert seen[0][1] == seen[1][1]
    assert [a for a, b in zip(*(s[0].splitlines() for s in seen)) if a != b] == []
    part, lines = seen[0]
    assert part.count("✅ chosen") == 2 and part.count("🤔") == 1
    assert "data-reveal" not in part and "stays" not in part and "returns" not in part
    assert lines == ["Round 1. Ana leads.", "Card 1: 2 Flowers. Stay or return?"]
    # Cara chooses last: the reveal shows every pick together, and says so.
    ok(host, twins[1], "choose", {"choice": "stay", "decision": 1}, seat=2)
    part = make_client().get(f"/t/{twins[1]}/screen/view").get_data(as_text=True)
    assert 'data-reveal="wf-1-reveal-1"' in part
    assert re.search(r"Ana</span> <b>🏠 returns</b>.*Ben</span> <b>🌲 stays</b>.*Cara</span> <b>🌲 stays</b>", part, re.S)
    assert lines_of(host, twins[1]) == ["Round 1. Ana leads.", "Everyone has chosen! Ana returns. Ben and Cara stay.",
                                        "Ana, turn card 2 face up."]


def test_woodland_wizards_screen_ranks_the_round_and_explains_its_tie(client):
    code = create(client, "woodland-wizards")
    for seat in range(3):
        take(client, code, seat)
    for seat in range(3):
        ok(client, code, "end_wandering_turn", {"player": seat}, seat=seat)
    ok(client, code, "next_phase")
    part = client.get(f"/t/{code}/screen/view").get_data(as_text=True)
    assert "Boost round <b>1</b> of 3" in part and "Starting player: <b>Ana</b>" in part
    ok(client, code, "next_phase")
    for seat, total in enumerate([20, 25, 20]):
        ok(client, code, "enter_total", {"player": seat, "total": total}, seat=seat)
    ok(client, code, "settle_round")
    part = client.get(f"/t/{code}/screen/view").get_data(as_text=True)
    assert re.search(r"1\. Ben</span> <b>25</b>.*2\. Ana</span> <b>20</b>.*3\. Cara</span> <b>20</b>", part, re.S)
    tie = "Ana and Cara both have 20; Ana is the starting player, so Ana ranks higher."
    assert tie in part
    assert lines_of(client, code)[-1] == f"Ben wins round 1. {tie}"


def test_explorers_screen_shows_the_threat_track_with_its_enraged_marks(client):
    code = create(client, "explorers-of-the-woodlands")
    for seat in range(3):
        take(client, code, seat)
    ok(client, code, "reveal_boss", {"boss": "venomia", "track": 7})
    ok(client, code, "threat_up")
    part = client.get(f"/t/{code}/screen/view").get_data(as_text=True)
    view = client.get(f"/api/tables/{code}").get_json()["view"]
    boss = view["boss"]
    track = re.search(r'<ol class="sc-track"[^>]*>(.*?)</ol>', part, re.S).group(1)
    assert track.count("<li") == boss["track"]
    assert re.search(rf'<li class="cube[^"]*">{boss["threat"]}<', track)
    assert '<li class=" enraged">5<span class="sc-rage">⚡</span>' in track  # Venomia at threat 5
    for hero in view["heroes"]:
        assert f'{hero["label"]}</span>' in part and f'❤ <b>{hero["hp"]}</b> 🔮 <b>{hero["orbs"]}</b>' in part
    assert f'Stack: <b>{view["stack"]}</b> of {view["stack_total"]}' in part
    assert "The Boss is revealed: Venomia, Sentinel of Snakes!" in lines_of(client, code)


def test_mysterious_forest_screen_shows_the_path_the_backpack_and_loki(client):
    code = create(client, "mysterious-forest")
    take(client, code, 0)
    ok(client, code, "start_scouting")
    part = client.get(f"/t/{code}/screen/view").get_data(as_text=True)
    view = client.get(f"/api/tables/{code}").get_json()["view"]
    assert re.search(r'<ol class="sc-path">(.*?)</ol>', part, re.S).group(1).count("<li") == len(view["path"])
    assert (f"Backpack: <b>{view['backpack_filled']}</b> of {view['backpack_size']} · "
            f"🦊 Loki: <b>{view['loki_in_backpack']}</b> in the Backpack") in part
    assert lines_of(client, code) == ["Ana, your turn: turn card 1 over and look together."]


def test_every_sentence_is_whole_with_named_placeholders():
    """Ready for gettext: a sentence is one string, its blanks named, never glued from parts."""
    for key, text in voice.SENTENCES.items():
        assert not re.search(r"%[sd]|\{\}", text), key
        names = re.findall(r"\{(\w+)\}", text)
        assert voice.say(key, **{name: "X" for name in names}) if names else voice.say(key)


def test_the_screen_address_follows_the_newest_table_and_its_rematch(app, client, monkeypatch, coop):
    assert b"No table yet." in client.get("/screen").data
    assert client.get("/screen/now").get_json() == {"code": "", "url": ""}
    first = create(client, "wicked-forest")
    second = create(client, "woodland-wizards")
    assert client.get("/screen/now").get_json() == {"code": second, "url": f"/t/{second}/screen/view"}
    html = client.get("/screen").get_data(as_text=True)
    assert 'data-follow="1"' in html and f'data-code="{second}"' in html and "Woodland Wizards" in html
    # A table that has not moved for half a day is last night's: not shown.
    monkeypatch.setattr(screen, "LIVE_SECONDS", -1)
    assert client.get("/screen/now").get_json()["code"] == ""
    monkeypatch.undo()
    # The rematch of a finished table: its screen leads there, and so does the address.
    first = finished_table(client, [client])
    resp = client.post(f"/t/{first}/rematch")
    assert resp.status_code in (302, 303)
    with app.app_context():
        from companion.db import get_db
        following = tables.following(get_db(), store.get_table(get_db(), first))
    part = client.get(f"/t/{first}/screen/view").get_data(as_text=True)
    assert f'data-next="{following.code}"' in part
    assert client.get("/screen/now").get_json()["code"] == following.code


def test_the_screen_address_follows_the_newest_table_on_postgresql_too(postgres_database):
    """(The address's query is the store's, in each database's own words: a query written
    for SQLite's placeholders made it a server error on PostgreSQL.)"""
    app = create_app({"TESTING": True, "DATABASE": postgres_database("screen"), "SECRET_KEY": "k",
                      "LAN_ADDRESS": "192.168.1.20"})
    client = app.test_client()
    assert b"No table yet." in client.get("/screen").data
    assert client.get("/screen/now").get_json() == {"code": "", "url": ""}
    first, second = create(client, "wicked-forest"), create(client, "woodland-wizards")
    assert client.get("/screen/now").get_json() == {"code": second, "url": f"/t/{second}/screen/view"}
    assert f'data-code="{second}"' in client.get("/screen").get_data(as_text=True)
    assert first != second


def test_a_phone_finds_the_screen_and_the_voice_switch_in_more(client):
    code = create(client, "wicked-forest")
    take(client, code, 0)
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert f'href="/t/{code}/screen"' in page
    assert re.search(r'<button class="btn" type="button" data-voice-toggle data-voice-src="[^"]+voice.js', page)
    assert f'href="/t/{code}/screen"' in client.get(f"/t/{code}/share").get_data(as_text=True)
