"""Abuse from the network: guessing codes, making tables in bulk, other hosts and sites,
proxies, cookies over HTTPS and caches."""

import copy
import csv
import io
import json
import re
import time
import subprocess
import sys
import textwrap

import pytest
from flask.testing import FlaskClient
from limits.storage import MemoryStorage

from companion import PROJECT_ROOT, create_app, history, store, tables
from companion.db import get_db
from companion.web.limits import DatabaseStorage, limiter

from .helpers import act, create_tiny, take
from .history_fixture import stats_export

UNKNOWN = "ZZZZ"


def code_routes(app, code):
    """(method, url) of every route that takes a table code, filled in with `code`."""
    fills = {"code": code, "seat": "1", "game_id": "tiny", "played_id": "1", "campaign_id": "1"}
    found = []
    for rule in app.url_map.iter_rules():
        if "code" not in rule.arguments:
            continue
        url = re.sub(r"<(?:\w+:)?(\w+)>", lambda m: fills[m.group(1)], rule.rule)
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            found.append((method, url))
    return found


def send(client, method, url):
    # JSON for the API (its writes want a JSON object), a form elsewhere.
    body = {"json": {"version": 0, "action": "add"}} if url.startswith("/api/") else {"data": {"version": "0"}}
    resp = client.open(url, method=method, **(body if method != "GET" else {}))
    resp.close()
    return resp.status_code


def test_every_route_that_takes_a_code_counts_wrong_codes(app, client):
    app.config["CODE_GUESS_LIMIT"] = "2 per minute"
    routes = code_routes(app, UNKNOWN)
    assert len(routes) >= 15, routes
    for method, url in routes + [("GET", f"/join?code={UNKNOWN}")]:
        limiter.reset()
        assert [send(client, method, url) for _ in range(3)] == [404, 404, 429], (method, url)


def test_a_real_table_never_counts_and_other_routes_are_not_limited(app, client):
    app.config["CODE_GUESS_LIMIT"] = "2 per minute"
    code = create_tiny(client)
    for _ in range(5):
        assert client.get(f"/t/{code}/log").status_code == 200
    assert [send(client, "GET", f"/t/{UNKNOWN}/log") for _ in range(3)] == [404, 404, 429]
    assert client.get("/").status_code == 200
    assert client.get("/history").status_code == 200


def test_seated_phones_and_the_host_are_never_held_back_by_others_typos(app, make_client):
    app.config["CODE_GUESS_LIMIT"] = "3 per minute"
    app.config["CODE_GUESS_PACE_SECONDS"] = 0.01
    host, seated, stranger, typist = (make_client() for _ in range(4))
    code = create_tiny(host)
    take(seated, code, 0)
    # Every phone behind one address (a club's router): someone types wrong codes.
    assert [typist.get(f"/t/{UNKNOWN}").status_code for _ in range(4)] == [404, 404, 404, 429]
    # Past the limit a wrong code is refused, while the right one still opens the table.
    assert typist.get(f"/t/{UNKNOWN}").status_code == 429
    assert typist.get(f"/t/{code}").status_code == 200
    assert stranger.get(f"/join/{code}").status_code == 200
    for url in (f"/t/{code}", f"/t/{code}/view", f"/t/{code}/log", f"/api/tables/{code}"):
        assert seated.get(url).status_code == 200, url
        assert host.get(url).status_code == 200, url
    assert act(seated, code, "add", {"amount": 2}).status_code == 200
    assert host.post(f"/api/tables/{code}/seats/1").status_code == 201
    # A cookie holding a token of another table buys no more wrong guesses.
    assert seated.get("/t/QQQQ").status_code == 429


def test_one_phones_typos_do_not_lock_a_venue_out(app, make_client):
    """At a club every phone shares one public address. After 31 wrong codes from it, with
    the limits as shipped, a new phone opens a real join link and takes a free seat."""
    assert app.config["CODE_GUESS_LIMIT"] != "30 per minute"  # the suite's own, lifted
    app.config["CODE_GUESS_LIMIT"] = "30 per minute"
    host, typist, newcomer = make_client(), make_client(), make_client()
    code = create_tiny(host)
    guesses = [typist.get(f"/join/{UNKNOWN}").status_code for _ in range(31)]
    assert guesses == [404] * 30 + [429]
    page = newcomer.get(f"/join/{code}")
    assert page.status_code == 200 and "Ben" in page.get_data(as_text=True)
    taken = newcomer.post(f"/join/{code}", data={"seat": "1"})
    assert taken.status_code == 302 and taken.headers["Location"].endswith(f"/t/{code}")
    assert newcomer.get(f"/api/tables/{code}").get_json()["my_seats"] == [1]
    # The typist's next wrong code is still refused: guessing stays as expensive.
    assert typist.get(f"/join/{UNKNOWN}").status_code == 429


def test_past_the_limit_look_ups_wait_their_turn_and_a_full_queue_refuses_alike(app, make_client):
    """Over the limit each look-up from the address takes the next turn in the database
    (shared by every server) before the table is read; beyond the longest wait, every code,
    real or not, is refused the same way and books nothing."""
    app.config.update(CODE_GUESS_LIMIT="2 per minute", CODE_GUESS_PACE_SECONDS=60.0,
                      CODE_GUESS_MAX_WAIT_SECONDS=0.0)
    host, typist = make_client(), make_client()
    code = create_tiny(host)
    assert [typist.get(f"/t/{UNKNOWN}").status_code for _ in range(3)] == [404, 404, 429]
    conn = store.connect(app.config["DATABASE"])
    try:
        turn = conn.execute("SELECT expires_at FROM rate_limit WHERE bucket LIKE 'code-pace/%'").fetchone()[0]
    finally:
        conn.close()
    assert turn > time.time() + 30  # the next look-up's turn, a pace from now
    for url in (f"/t/{UNKNOWN}", f"/t/{code}", f"/join/{code}"):
        resp = make_client().get(url)
        assert resp.status_code == 429 and "waits its turn" in resp.get_data(as_text=True), url


def test_the_counter_is_shared_by_processes_on_one_database(app, client):
    app.config["CODE_GUESS_LIMIT"] = "4 per minute"
    assert client.get(f"/t/{UNKNOWN}").status_code == 404
    # A second worker process on the same database makes three more wrong guesses.
    script = textwrap.dedent(f"""
        from companion import create_app
        app = create_app({{"TESTING": True, "DATABASE": {app.config["DATABASE"]!r}, "SECRET_KEY": "k",
                          "LAN_ADDRESS": "192.168.1.20", "CODE_GUESS_LIMIT": "4 per minute"}})
        print([app.test_client().get("/t/{UNKNOWN}").status_code for _ in range(3)])
    """)
    done = subprocess.run([sys.executable, "-c", script], cwd=PROJECT_ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.stdout.strip() == "[404, 404, 404]", done.stderr
    assert client.get(f"/t/{UNKNOWN}").status_code == 429


def test_counters_live_in_the_database_unless_memory_is_configured(tmp_path):
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "a.sqlite"), "SECRET_KEY": "k"})
    assert isinstance(limiter.storage, DatabaseStorage)
    app.config["CODE_GUESS_LIMIT"] = "1 per minute"
    app.test_client().get(f"/t/{UNKNOWN}")
    conn = store.connect(app.config["DATABASE"])
    try:
        assert conn.execute("SELECT COUNT(*) FROM rate_limit").fetchone()[0] == 1
    finally:
        conn.close()
    create_app({"TESTING": True, "DATABASE": str(tmp_path / "b.sqlite"), "SECRET_KEY": "k",
                "RATELIMIT_STORAGE_URI": "memory://"})
    assert isinstance(limiter.storage, MemoryStorage)


def test_the_database_storage_counts_windows(tmp_path):
    storage = DatabaseStorage(f"forest-table://{tmp_path / 'limits.sqlite'}")
    assert storage.check() and storage.get("k") == 0
    assert [storage.incr("k", 60) for _ in range(3)] == [1, 2, 3]
    assert storage.get("k") == 3 and storage.get_expiry("k") > 0
    assert storage.incr("gone", 0) == 1 and storage.get("gone") == 0  # its window is over
    storage.clear("k")
    assert storage.get("k") == 0
    storage.incr("k", 60)
    assert storage.reset() >= 1 and storage.get("k") == 0


# ----------------------------------------------------------------- proxies


def proxied_app(tmp_path, proxies, **settings):
    return create_app({"TESTING": True, "DATABASE": str(tmp_path / "p.sqlite"), "SECRET_KEY": "k",
                       "LAN_ADDRESS": "192.168.1.20", "TRUSTED_PROXIES": proxies,
                       "CODE_GUESS_LIMIT": "2 per minute", **settings})


def guesses_from(app, forwarded_for, n=3):
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = "10.0.0.1"  # the proxy
    return [client.get(f"/t/{UNKNOWN}", headers={"X-Forwarded-For": forwarded_for}).status_code
            for _ in range(n)]


def test_without_trusted_proxies_forwarded_for_is_ignored(tmp_path):
    app = proxied_app(tmp_path, 0)
    assert guesses_from(app, "203.0.113.1") == [404, 404, 429]
    # Another made-up address does not buy more guesses: the socket's address counts.
    assert guesses_from(app, "203.0.113.2", 1) == [429]


def test_behind_one_trusted_proxy_each_client_has_its_own_count(tmp_path):
    app = proxied_app(tmp_path, 1)
    assert guesses_from(app, "203.0.113.1") == [404, 404, 429]
    assert guesses_from(app, "203.0.113.2") == [404, 404, 429]
    # Only the last address counts (the one the proxy saw): one sent by the client is not.
    assert guesses_from(app, "198.51.100.7, 203.0.113.1", 1) == [429]


def test_trusted_proxies_must_be_a_number(tmp_path):
    with pytest.raises(ValueError, match="TRUSTED_PROXIES"):
        proxied_app(tmp_path, "yes")


# ----------------------------------------------------------------- hosts and origins


def test_another_host_name_is_refused_with_a_clear_message(app, client):
    for url, kwargs in (("/", {}), ("/api/tables", {"json": {"game": "tiny", "players": ["A", "B"]}})):
        resp = client.open(url, method="POST" if kwargs else "GET", headers={"Host": "rebind.example",
                           "Origin": "http://rebind.example"}, **kwargs)
        assert resp.status_code == 400
        assert "does not answer to that address" in resp.get_data(as_text=True)
    conn = store.connect(app.config["DATABASE"])
    try:
        assert conn.execute("SELECT COUNT(*) FROM game_table").fetchone()[0] == 0
    finally:
        conn.close()


def test_known_host_names_are_served(tmp_path, monkeypatch):
    monkeypatch.setenv("FOREST_TABLE_TRUSTED_HOSTS", "games.club.example, other.example")
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "h.sqlite"), "SECRET_KEY": "k",
                      "LAN_ADDRESS": "192.168.1.20", "PUBLIC_URL": "https://play.example.org"})
    client = app.test_client()
    for host in ("localhost", "127.0.0.1:5000", "192.168.1.20:8000", "play.example.org",
                 "games.club.example", "other.example:8080"):
        assert client.get("/", headers={"Host": host}).status_code == 200, host
    assert client.get("/", headers={"Host": "evil.example"}).status_code == 400


def bare_client(app):
    """A client that sends no Origin, like a script or an old browser."""
    return FlaskClient(app, app.response_class, use_cookies=True)


def test_writes_need_an_origin_or_referer_of_this_very_site(app, client):
    code = create_tiny(client)
    body = {"json": {"game": "tiny", "players": ["A", "B"]}}
    refusals = {
        "no header": {},
        "other scheme": {"Origin": "https://localhost"},
        "other port": {"Origin": "http://localhost:8080"},
        "null": {"Origin": "null"},
        "other referer": {"Referer": "http://evil.example/page"},
        "referer of another scheme": {"Referer": "https://localhost/"},
    }
    for why, headers in refusals.items():
        resp = bare_client(app).post("/api/tables", headers=headers, **body)
        assert resp.status_code == 403, why
        assert "other sites" in resp.get_json()["error"], why
    assert "did not say which page" in bare_client(app).post("/api/tables", **body).get_json()["error"]
    assert bare_client(app).post("/api/tables", headers={"Referer": f"http://localhost/t/{code}"},
                                 **body).status_code == 201
    assert bare_client(app).post("/api/tables", headers={"Origin": "http://localhost:80"},
                                 **body).status_code == 201


def test_an_origin_is_scheme_host_and_port_and_nothing_else(app):
    """Origin: http://localhost/x or http://evil@localhost names this site's host, but no
    browser sends such a thing: a write carrying one is refused and changes nothing."""
    body = {"json": {"game": "tiny", "players": ["A", "B"]}}
    for origin in ("http://localhost/x", "http://localhost/", "http://evil@localhost",
                   "http://evil:pw@localhost", "http://localhost?x=1", "http://localhost#top",
                   "http://localhost:80/t/ABCD"):
        resp = bare_client(app).post("/api/tables", headers={"Origin": origin}, **body)
        assert resp.status_code == 403, origin
        assert "other sites" in resp.get_json()["error"], origin
    with app.app_context():
        assert get_db().execute("SELECT COUNT(*) AS n FROM game_table").fetchone()["n"] == 0
    assert bare_client(app).post("/api/tables", headers={"Origin": "http://localhost"},
                                 **body).status_code == 201


def test_behind_an_https_proxy_the_origin_must_be_https(tmp_path):
    app = proxied_app(tmp_path, 1, PUBLIC_URL="https://play.example.org")
    client = bare_client(app)
    body = {"json": {"game": "tiny", "players": ["A", "B"]}}
    proxy = {"Host": "play.example.org", "X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.9"}
    assert client.post("/api/tables", headers={**proxy, "Origin": "http://play.example.org"},
                       **body).status_code == 403
    assert client.post("/api/tables", headers={**proxy, "Origin": "https://play.example.org"},
                       **body).status_code == 201


# ----------------------------------------------------------------- cookies and caches


def cookie_flags(resp):
    (header,) = [h for h in resp.headers.getlist("Set-Cookie") if h.startswith("forest_table=")]
    return {part.strip().split("=")[0].lower() for part in header.split(";")[1:]}


def test_the_seat_cookie_is_secure_over_https_only(tmp_path):
    body = {"json": {"game": "tiny", "players": ["A", "B"]}}
    https = {"Origin": "https://localhost", "X-Forwarded-Proto": "https"}
    behind_proxy = proxied_app(tmp_path, 1).test_client()
    assert "secure" in cookie_flags(behind_proxy.post("/api/tables", headers=https, **body))
    assert "secure" not in cookie_flags(behind_proxy.post("/api/tables", **body))
    # Without a trusted proxy a client cannot claim https: the header is ignored.
    direct = create_app({"TESTING": True, "DATABASE": str(tmp_path / "d.sqlite"),
                         "SECRET_KEY": "k"}).test_client()
    assert "secure" not in cookie_flags(direct.post("/api/tables", headers={"X-Forwarded-Proto": "https"},
                                                    **body))


def test_table_and_history_answers_are_never_cached(app, client):
    code = create_tiny(client)
    take(client, code, 0)
    answers = [
        client.get(f"/api/tables/{code}"), client.get(f"/api/tables/{code}/actions"),
        act(client, code, "add", {"amount": 1}), client.post(f"/api/tables/{code}/seats/1"),
        client.post(f"/api/tables/{code}/undo", json={"version": 2}),
        client.get("/api/history"), client.get("/api/history/stats"), client.get("/api/history/9"),
        client.get(f"/api/tables/{UNKNOWN}"),
        client.get(f"/t/{code}/view", headers={"HX-Request": "true"}),
        client.get(f"/t/{code}", headers={"HX-Request": "true"}),
        client.post(f"/t/{code}/act", data={"action": "add", "amount": "1", "version": "0"},
                    headers={"HX-Request": "true"}),
    ]
    for resp in answers:
        assert resp.headers.get("Cache-Control") == "no-store", (resp.request.path, resp.headers)


# ----------------------------------------------------------------- making tables


HOUR = 3600


def test_making_tables_is_limited_per_address(app, client, make_client):
    app.config["TABLE_CREATION_LIMIT"] = "3 per hour"
    # A form sent back with a mistake makes no table and does not count.
    for _ in range(5):
        assert client.post("/new/tiny", data={"player0": "Ana", "player1": "ana"}).status_code == 400
    codes = [create_tiny(client) for _ in range(2)]
    assert client.post("/new/tiny", data={"player0": "Ana", "player1": "Ben"}).status_code == 302
    refused = make_client().post("/api/tables", json={"game": "tiny", "players": ["A", "B"]})
    assert refused.status_code == 429 and "Too many new tables" in refused.get_json()["error"]
    page = client.post("/new/tiny", data={"player0": "Ana", "player1": "Ben"})
    assert page.status_code == 429 and "Too many new tables" in page.get_data(as_text=True)
    # Playing at the tables already made goes on.
    take(client, codes[0], 0)
    assert act(client, codes[0], "add", {"amount": 1}).status_code == 200


def table_count(app):
    conn = store.connect(app.config["DATABASE"])
    try:
        return conn.execute("SELECT COUNT(*) FROM game_table").fetchone()[0]
    finally:
        conn.close()


def test_tables_never_played_are_deleted_after_the_configured_time(app, client, make_client, monkeypatch):
    app.config["EMPTY_TABLE_HOURS"] = 6
    idle = create_tiny(client)
    joined = create_tiny(client)
    take(make_client(), joined, 1)  # sitting down is not playing
    played = create_tiny(client)
    take(client, played, 0)
    assert act(client, played, "add", {"amount": 1}).status_code == 200
    undone = create_tiny(client)
    take(client, undone, 0)
    act(client, undone, "add", {"amount": 1})
    assert client.post(f"/api/tables/{undone}/undo", json={"version": 1}).status_code == 200
    soon = time.time() + 6 * HOUR - 60
    monkeypatch.setattr(history, "now", lambda: soon)
    client.get("/")
    assert table_count(app) == 4
    monkeypatch.setattr(history, "now", lambda: soon + 120)
    client.get("/")
    assert table_count(app) == 2
    assert client.get(f"/api/tables/{idle}").status_code == 404
    assert client.get(f"/api/tables/{joined}").status_code == 404
    assert client.get(f"/api/tables/{played}").status_code == 200
    assert client.get(f"/api/tables/{undone}").status_code == 200


def test_archived_tables_give_their_code_back_and_old_cookies_get_nothing(app, client, make_client,
                                                                         monkeypatch):
    monkeypatch.setattr(tables, "CODE_ALPHABET", "A")  # a single possible code: AAAA
    monkeypatch.setattr(tables, "CODE_MAX_LENGTH", 4)
    app.config["ABANDON_AFTER_HOURS"] = 24
    old_phone = make_client()
    code = create_tiny(client)
    take(old_phone, code, 0)
    assert act(old_phone, code, "add", {"amount": 3}).status_code == 200
    assert client.post("/api/tables", json={"game": "tiny", "players": ["A", "B"]}).status_code == 400
    monkeypatch.setattr(history, "now", lambda: time.time() + 25 * HOUR)
    done = app.test_cli_runner().invoke(args=["archive-tables"])
    assert "freed 1 codes" in done.output
    (game,) = client.get("/api/history").get_json()["games"]
    assert (game["code"], game["status"]) == (code, "unfinished")  # shown as it was
    assert client.get(f"/history/{game['id']}").status_code == 200
    assert old_phone.get(f"/t/{code}").status_code == 404

    new_host = make_client()
    assert create_tiny(new_host, ("Xia", "Yul")) == code
    seen = old_phone.get(f"/api/tables/{code}").get_json()
    assert seen["players"] == ["Xia", "Yul"] and seen["my_seats"] == []
    assert act(old_phone, code, "add", {"amount": 1}, seat=0).status_code == 403
    assert client.delete(f"/api/tables/{code}/seats/0").status_code == 403  # the old host
    assert new_host.delete(f"/api/tables/{code}/seats/0").status_code == 200
    # The old history entry still reads as before.
    assert [s["name"] for s in client.get(f"/api/history/{game['id']}").get_json()["seats"]] == ["Ana", "Ben", "Cara"]


# ----------------------------------------------------------------- history import and stats


def many_games(count, start=0, people=2):
    """An export of `count` finished games, each with its own players (many distinct people)."""
    data = stats_export()
    template = data["games"][0]
    games = []
    for n in range(start, start + count):
        game = copy.deepcopy(template)
        game["uid"] = f"bulk{n}"
        players = [{"seat": s, "name": f"P{n}-{s}", "score": 10 - s, "place": s + 1, "winner": s == 0}
                   for s in range(people)]
        game["players"] = players
        game["outcome"]["players"] = copy.deepcopy(players)
        games.append(game)
    data["games"] = games
    return data


def import_api(client, data):
    return client.post("/api/history/import", data=json.dumps(data), content_type="application/json")


def test_an_import_has_a_cap_on_games_with_a_clear_message(app, client):
    app.config["IMPORT_MAX_GAMES"] = 5
    resp = import_api(client, many_games(6))
    assert resp.status_code == 400
    assert "holds 6 games and one import takes at most 5" in resp.get_json()["error"]
    page = client.post("/history/import", data={"file": (io.BytesIO(json.dumps(many_games(6)).encode()),
                                                         "h.json")})
    assert "one import takes at most 5" in page.get_data(as_text=True)
    assert client.get("/api/history").get_json()["games"] == []
    assert import_api(client, many_games(5)).get_json()["added"] == 5


def test_imported_games_have_a_cap_in_all_and_nothing_is_half_imported(app, client):
    app.config["IMPORTED_GAMES_MAX"] = 8
    assert import_api(client, many_games(5)).get_json()["added"] == 5
    resp = import_api(client, many_games(5, start=5))
    assert resp.status_code == 400
    assert "at most 8 imported games and would then hold 10" in resp.get_json()["error"]
    assert len(client.get("/api/history").get_json()["games"]) == 5
    # The same games again are skipped, not counted twice.
    assert import_api(client, many_games(5)).get_json() == {"added": 0, "skipped": 5, "merges": 0}


def test_imports_are_limited_per_address(app, client):
    app.config["HISTORY_IMPORT_LIMIT"] = "2 per hour"
    assert [import_api(client, many_games(1, start=n)).status_code for n in range(3)] == [200, 200, 429]
    resp = import_api(client, many_games(1, start=9))
    assert "Too many history imports" in resp.get_json()["error"]
    page = client.post("/history/import", data={"file": (io.BytesIO(b"{}"), "h.json")})
    assert page.status_code == 429 and "Too many history imports" in page.get_data(as_text=True)


def test_stats_list_people_in_pages(app, client):
    import_api(client, many_games(30))  # 60 people
    first = client.get("/api/history/stats").get_json()
    assert (len(first["people"]), first["people_count"], first["pages"], first["more"]) == (25, 60, 3, True)
    last = client.get("/api/history/stats?page=2").get_json()
    assert (len(last["people"]), last["page"], last["more"]) == (10, 2, False)
    names = [p["name"] for n in range(3)
             for p in client.get(f"/api/history/stats?page={n}").get_json()["people"]]
    assert len(set(names)) == 60
    assert client.get("/api/history/stats?page=99").get_json()["page"] == 2
    page = client.get("/history/stats?page=1").get_data(as_text=True)
    assert "People 26–50 of 60" in page
    assert 'href="/history/stats?page=0"' in page and 'href="/history/stats?page=2"' in page
    assert page.count('class="card person"') == 25


# ----------------------------------------------------------------- CSV export


def test_csv_keeps_numbers_numbers_and_every_formula_start_text(client):
    data = stats_export()
    # (Names lose leading spaces when read; the game's name below keeps them.)
    tricky = ["=SUM(A1)", "＝1+1", "＋A1", "－A1", "＠SUM(A1)", "@x", "+1", "-2"]
    game = data["games"][0]
    game["players"] = [{"seat": s, "name": name, "score": -3 - s, "place": s + 1, "winner": s == 0}
                       for s, name in enumerate(tricky)]
    game["outcome"]["players"] = copy.deepcopy(game["players"])
    game["outcome"]["level"] = "\t=1"
    game["game_name"] = "  -cmd"
    import_api(client, data)
    rows = list(csv.DictReader(io.StringIO(client.get("/history/export.csv").get_data(as_text=True))))
    mine = [row for row in rows if row["player"].lstrip("'") in tricky]
    assert [row["player"] for row in mine] == ["'" + name for name in tricky]
    # Negative scores are written as numbers (no apostrophe, no quotes), so they add up.
    assert [int(row["score"]) for row in mine] == [-3 - s for s in range(len(tricky))]
    assert {row["level"] for row in mine} == {"'\t=1"} and {row["game_name"] for row in mine} == {"'  -cmd"}
    plain = [row for row in rows if row["player"] == "Ben"]
    assert plain and all(not row["game_name"].startswith("'") for row in plain)


def test_with_rate_limits_switched_off_codes_are_not_counted_and_nothing_fails(database, tmp_path):
    """RATELIMIT_ENABLED off (a trusted room, or a benchmark): the code look-ups are not
    counted at all, instead of asking a limiter that was never started (a 500)."""
    quiet = create_app({"TESTING": True, "DATABASE": database("quiet"), "SECRET_KEY": "test-key",
                        "LAN_ADDRESS": "192.168.1.20", "RATELIMIT_ENABLED": False,
                        "CODE_GUESS_LIMIT": "2 per minute"})
    host, newcomer = quiet.test_client(), quiet.test_client()
    code = create_tiny(host)
    assert [newcomer.get(f"/join/{UNKNOWN}").status_code for _ in range(4)] == [404] * 4
    assert newcomer.post(f"/api/tables/{code}/seats/1").status_code == 201
    assert newcomer.get(f"/api/tables/{code}").get_json()["my_seats"] == [1]


def test_an_app_with_rate_limits_off_leaves_them_on_for_the_next_app(database):
    """Two apps in one process (a worker's, a test's): the one made after an app with limits
    off still counts wrong codes, as its own settings say."""
    create_app({"TESTING": True, "DATABASE": database("quiet"), "SECRET_KEY": "test-key",
                "LAN_ADDRESS": "192.168.1.20", "RATELIMIT_ENABLED": False})
    guarded = create_app({"TESTING": True, "DATABASE": database("guarded"), "SECRET_KEY": "test-key",
                          "LAN_ADDRESS": "192.168.1.20", "CODE_GUESS_LIMIT": "2 per minute"})
    limiter.reset()
    client = guarded.test_client()
    statuses = [client.get("/join", query_string={"code": f"ZZZ{c}"}).status_code for c in "ACD"]
    assert statuses == [404, 404, 429]
