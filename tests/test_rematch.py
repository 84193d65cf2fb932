"""One next table for the whole group: the first Rematch makes it, every other tap (on any
phone, at the same moment, on another server) goes to it, and every phone at the finished
table is offered its own seat there, kept for it. Campaign chapters go on the same way."""

from __future__ import annotations

import re
import threading

import pytest

from companion import create_app, store, tables
from companion.dialects import run_text
from companion.games import GAMES, register
from companion.web.limits import limiter

from . import tiny_coop
from .campaign_play import create_campaign, start_chapter, win_chapter_1
from .helpers import take
from .old_database import from_before_migrations
from .history_fixture import api_act
from .test_serving import StreamReader

PLAYERS = ["Ana", "Ben", "Cleo"]


@pytest.fixture
def coop():
    register(tiny_coop)
    yield tiny_coop
    GAMES.pop(tiny_coop.ID, None)


def finished_table(host, phones=()):
    """A finished game of three: `host` made it; each phone in `phones` holds the seat of
    its place (the host seat 0 unless it holds them all)."""
    resp = host.post("/api/tables", json={"game": "tiny-coop", "players": PLAYERS, "options": {"level": "Hard"}})
    code = resp.get_json()["code"]
    for seat, phone in enumerate(phones):
        take(phone, code, seat)
    api_act(phones[0], code, "advance", seat=0)
    api_act(phones[0], code, "end", {"won": True}, seat=0)
    return code


def new_code_of(resp) -> str:
    assert resp.status_code == 303, resp.get_data(as_text=True)
    return re.search(r"/(?:t|join)/([A-Z0-9]+)", resp.headers["Location"]).group(1)


def my_seats(phone, code):
    return phone.get(f"/api/tables/{code}").get_json()["my_seats"]


def table_count(app) -> int:
    with app.app_context():
        from companion.db import get_db
        return get_db().execute("SELECT COUNT(*) FROM game_table").fetchone()[0]


def both_set_up_before_either_stores(monkeypatch):
    """Two taps each set their table up (outside any lock) before either stores it: the
    moment two taps come in together, held open so the test does not depend on timing."""
    both = threading.Barrier(2)
    prepare = getattr(tables, "prepare_table", None)

    def held_open(*args, **kwargs):
        try:
            both.wait(5)
        except threading.BrokenBarrierError:
            pass
        return prepare(*args, **kwargs)

    monkeypatch.setattr(tables, "prepare_table", held_open, raising=False)


def tap_together(phones: dict, url: str) -> dict:
    """Each phone posts to `url` at the same moment; return the answers by name."""
    start = threading.Barrier(len(phones))
    landed = {}

    def tap(name, phone):
        start.wait(10)
        landed[name] = phone.post(url)

    threads = [threading.Thread(target=tap, args=item, daemon=True) for item in phones.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return landed


def test_two_rematch_taps_make_one_table_and_every_phone_takes_its_kept_seat(app, make_client, coop):
    ana, ben, cleo, watcher = (make_client() for _ in range(4))
    code = finished_table(ana, [ana, ben, cleo])
    assert "Rematch" in ben.get(f"/t/{code}").get_data(as_text=True)
    # Ana taps Rematch: the table is made, and she is at it in her own seat.
    resp = ana.post(f"/t/{code}/rematch")
    new = new_code_of(resp)
    assert resp.headers["Location"] == f"/t/{new}"
    assert new != code and my_seats(ana, new) == [0]
    # Every other phone at the finished table is offered its own seat there.
    page = ben.get(f"/t/{code}").get_data(as_text=True)
    assert "Join the rematch as Ben" in page and f'action="/t/{code}/next"' in page
    assert "Join the rematch as Cleo" in cleo.get(f"/t/{code}").get_data(as_text=True)
    assert "Join the rematch" not in watcher.get(f"/t/{code}").get_data(as_text=True)
    assert f'href="/join/{new}"' in watcher.get(f"/t/{code}").get_data(as_text=True)
    # Cleo taps Rematch too: the same table, in her seat; Ben taps his offer: in his.
    resp = cleo.post(f"/t/{code}/rematch")
    assert new_code_of(resp) == new and resp.headers["Location"] == f"/t/{new}"
    assert my_seats(cleo, new) == [2]
    resp = ben.post(f"/t/{code}/next")
    assert resp.status_code == 303 and resp.headers["Location"] == f"/t/{new}"
    assert my_seats(ben, new) == [1]
    assert ben.get(f"/api/tables/{code}").get_json()["next_table"] == new
    assert ben.get(f"/api/tables/{new}").get_json()["next_table"] is None
    # A second tap by the same phone goes there again and takes nothing more.
    assert new_code_of(ana.post(f"/t/{code}/rematch")) == new and my_seats(ana, new) == [0]
    assert table_count(app) == 2
    # Back at the finished table, a seated phone is shown the way to its table.
    page = ben.get(f"/t/{code}").get_data(as_text=True)
    assert "Join the rematch" not in page and f'href="/t/{new}"' in page and "Go to the rematch" in page
    # The rematch is a fresh game: nothing of the last one, the same players.
    fresh = ana.get(f"/api/tables/{new}").get_json()
    assert fresh["players"] == PLAYERS and fresh["version"] == 0 and fresh["view"]["round"] == 1
    # The finished game is kept in the history and its table still shows how it ended.
    games = ana.get("/api/history").get_json()["games"]
    assert [g["code"] for g in games] == [code]
    assert "The team beat the forest" in ana.get(f"/t/{code}").get_data(as_text=True)


def test_a_kept_seat_is_only_for_its_phone_until_the_host_frees_it(app, make_client, coop):
    ana, ben, stranger = make_client(), make_client(), make_client()
    code = finished_table(ana, [ana, ben])
    new = new_code_of(ana.post(f"/t/{code}/rematch"))
    join = stranger.get(f"/join/{new}").get_data(as_text=True)
    assert "kept for Ben's phone" in join and "I am Cleo" in join
    # Another phone cannot take Ben's seat, nor Ben's with "every free seat".
    resp = stranger.post(f"/join/{new}", data={"seat": "1"})
    assert resp.status_code == 400 and "kept for the phone that played Ben" in resp.get_data(as_text=True)
    assert stranger.post(f"/api/tables/{new}/seats/1").status_code == 400
    stranger.post(f"/join/{new}", data={"seat": "all"})
    assert my_seats(stranger, new) == [2]
    # Ben's phone sees its seat kept on the join page and takes it there with one tap too.
    assert "your seat from the last game" in ben.get(f"/join/{new}").get_data(as_text=True)
    # The host (Ana, who made the rematch) frees Ben's kept seat: it is anyone's then.
    share = ana.get(f"/t/{new}/share").get_data(as_text=True)
    assert "Ben · kept for the last game" in share
    assert ana.post(f"/t/{new}/free", data={"seat": "1"}).status_code == 303
    assert ben.post(f"/t/{code}/next").headers["Location"] == f"/join/{new}"
    assert my_seats(ben, new) == []
    assert stranger.post(f"/join/{new}", data={"seat": "1"}).status_code == 302
    assert my_seats(stranger, new) == [1, 2]


def test_pass_the_phone_takes_every_seat_at_the_rematch(app, make_client, coop):
    phone = make_client()
    code = finished_table(phone, [phone, phone, phone])
    assert "Rematch" in phone.get(f"/t/{code}").get_data(as_text=True)
    new = new_code_of(phone.post(f"/t/{code}/rematch"))
    assert my_seats(phone, new) == [0, 1, 2]


def test_another_phone_sees_the_offer_live(app, make_client, coop):
    ana, ben = make_client(), make_client()
    code = finished_table(ana, [ana, ben])
    view = ben.get(f"/t/{code}/view", headers={"HX-Request": "true"}).get_data(as_text=True)
    stamp = re.search(r'data-seats="(\d+)"', view).group(1)
    version = re.search(r'data-version="(\d+)"', view).group(1)
    stream = StreamReader(ben.get(f"/t/{code}/events?v={version}&s={stamp}&views=1"))
    try:
        stream.until(r"retry: \d+")
        ana.post(f"/t/{code}/rematch")
        stream.until(r"Join the rematch as Ben")
    finally:
        stream.close()


def test_two_taps_at_the_same_moment_on_two_servers_make_one_table(app, make_client, coop, monkeypatch):
    # A second server on the same database: its own process state, its own connections.
    other_server = create_app({"TESTING": True, "DATABASE": app.config["DATABASE"],
                               "SECRET_KEY": "test-key", "LAN_ADDRESS": "192.168.1.20"})
    limiter.reset()
    ana, ben = make_client(), other_server.test_client()
    code = finished_table(ana, [ana])
    take(ben, code, 1)
    both_set_up_before_either_stores(monkeypatch)
    landed = tap_together({"ana": ana, "ben": ben}, f"/t/{code}/rematch")
    codes = {new_code_of(resp) for resp in landed.values()}
    assert len(codes) == 1
    (new,) = codes
    assert my_seats(ana, new) == [0] and my_seats(ben, new) == [1]
    assert table_count(app) == 2


def test_the_history_page_rematch_of_an_open_table_goes_to_its_rematch(app, make_client, coop):
    ana, ben = make_client(), make_client()
    code = finished_table(ana, [ana, ben])
    new = new_code_of(ana.post(f"/t/{code}/rematch"))
    (game,) = ben.get("/api/history").get_json()["games"]
    resp = ben.post(f"/history/{game['id']}/rematch")
    assert new_code_of(resp) == new and my_seats(ben, new) == [1]
    assert table_count(app) == 2


def test_a_rematch_never_played_and_cleared_away_lets_the_table_offer_a_rematch_again(app, make_client, coop):
    ana = make_client()
    code = finished_table(ana, [ana])
    first = new_code_of(ana.post(f"/t/{code}/rematch"))
    with app.app_context():
        from companion.db import get_db
        conn = get_db()
        run_text(conn, "UPDATE game_table SET created_at = 0 WHERE code = :code", {"code": first})
        assert store.delete_never_played(conn, 1) == 1
    page = ana.get(f"/t/{code}").get_data(as_text=True)
    assert "Rematch" in page and first not in page
    second = new_code_of(ana.post(f"/t/{code}/rematch"))
    assert second != first and my_seats(ana, second) == [0]


def test_a_campaign_chapter_keeps_its_seats_for_the_next(app, make_client):
    ana, ben = make_client(), make_client()
    cid = create_campaign(ana)["id"]
    code = start_chapter(ana, cid)  # Ana sits at seat 0
    take(ben, code, 1)
    win_chapter_1(ana, code)
    assert ana.post(f"/campaigns/{cid}/confirm", data={"table": code}).status_code == 303
    # Ana starts chapter 2 from the campaign page: she is taken there in her seat.
    resp = ana.post(f"/campaigns/{cid}/start")
    chapter_2 = new_code_of(resp)
    assert resp.headers["Location"] == f"/t/{chapter_2}" and my_seats(ana, chapter_2) == [0]
    # Ben, still at chapter 1's table, is offered his seat there, and takes it in one tap.
    page = ben.get(f"/t/{code}").get_data(as_text=True)
    assert "Go on to chapter 2 as Ben" in page
    assert ben.post(f"/t/{code}/next").headers["Location"] == f"/t/{chapter_2}"
    assert my_seats(ben, chapter_2) == [1]
    # A second start makes no other table; a finished chapter's table makes no rematch.
    assert new_code_of(ben.post(f"/campaigns/{cid}/start")) == chapter_2
    assert new_code_of(ben.post(f"/t/{code}/rematch")) == chapter_2
    assert table_count(app) == 2


def test_two_phones_starting_a_chapter_at_once_make_one_table(app, make_client, monkeypatch):
    ana, ben = make_client(), make_client()
    cid = create_campaign(ana)["id"]
    code = start_chapter(ana, cid)
    take(ben, code, 1)
    win_chapter_1(ana, code)
    ana.post(f"/campaigns/{cid}/confirm", data={"table": code})
    both_set_up_before_either_stores(monkeypatch)
    landed = tap_together({"ana": ana, "ben": ben}, f"/campaigns/{cid}/start")
    assert len({new_code_of(resp) for resp in landed.values()}) == 1
    new = new_code_of(landed["ana"])
    assert my_seats(ana, new) == [0] and my_seats(ben, new) == [1]
    assert table_count(app) == 2


def test_a_database_from_before_opens_and_plays_on_to_a_rematch(database, backend, make_client, coop):
    target = database("old")
    # As it was before a table named its next table and seats were kept.
    from_before_migrations(target, "0003")
    conn = store.connect(target)
    # A game finished on the old release, in the old schema.
    conn.execute("INSERT INTO game_table (code, game, rules_version, options, players, host_token_hash,"
                 " version, snapshot, created_at, updated_at) VALUES ('OLDT', 'tiny-coop', 1, '{\"level\": \"Easy\"}',"
                 " '[\"Ana\", \"Ben\"]', 'x', 2, '{\"players\": [\"Ana\", \"Ben\"], \"level\": \"Easy\", \"round\": 1,"
                 " \"phase\": \"over\", \"won\": true, \"events\": []}', 1, 1)")
    for seat, name in enumerate(["Ana", "Ben"]):
        run_text(conn, "INSERT INTO seat (table_id, seat, name) SELECT id, :seat, :name FROM game_table"
                 " WHERE code = 'OLDT'", {"seat": seat, "name": name})
    conn.close()
    app = create_app({"TESTING": True, "DATABASE": target, "SECRET_KEY": "test-key"})
    limiter.reset()
    phone = app.test_client()
    take(phone, "OLDT", 0)
    new = new_code_of(phone.post("/t/OLDT/rematch"))
    assert my_seats(phone, new) == [0]
    api_act(phone, new, "advance", seat=0)
    assert phone.get(f"/api/tables/{new}").get_json()["view"]["round"] == 2


def test_a_board_with_its_own_play_again_offers_the_rematch_once(app, make_client):
    from .test_mysterious_forest_web import new_table, play_to_the_end
    ana, ben = make_client(), make_client()
    code = new_table(ana)
    take(ben, code, 1)
    play_to_the_end(ana, code)  # Ana at seat 0
    assert ben.get(f"/t/{code}").get_data(as_text=True).count(f'action="/t/{code}/rematch"') == 1
    new = new_code_of(ana.post(f"/t/{code}/rematch"))
    page = ben.get(f"/t/{code}").get_data(as_text=True)
    # The board's "Play again" gives way to Ben's seat at the table made: one button, at the top.
    assert f'action="/t/{code}/rematch"' not in page and "Play again" not in page
    assert page.count("Join the rematch as Ben") == 1
    assert ben.post(f"/t/{code}/next").headers["Location"] == f"/t/{new}"
