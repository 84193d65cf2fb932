"""Seat tokens and the session cookie: hard to guess, hard to forge, bound to one table."""

import re
import string

from companion import store, tables

from .helpers import act, create_tiny, take, version_of

COOKIE = "forest_table"


def stored_tokens(client):
    """The seat tokens inside this phone's signed cookie."""
    with client.session_transaction() as session:
        return dict(session.get("seats", {}))


def db_state(app):
    """Everything a write could change: tables, seats and log."""
    conn = store.connect(app.config["DATABASE"])
    try:
        return (conn.execute("SELECT code, version, snapshot FROM game_table ORDER BY id").fetchall(),
                conn.execute("SELECT * FROM seat ORDER BY table_id, seat").fetchall(),
                conn.execute("SELECT table_id, seq, undone_at FROM action ORDER BY table_id, seq").fetchall())
    finally:
        conn.close()


def as_tuples(state):
    return [[tuple(row) for row in part] for part in state]


def test_tokens_carry_at_least_128_random_bits(app, client):
    alphabet = set(string.ascii_letters + string.digits + "-_")
    made = {tables.new_token() for _ in range(500)}
    assert len(made) == 500
    for token in made:
        # token_urlsafe(32): 43 characters of 6 bits each, 256 bits in all.
        assert len(token) >= 43 and set(token) <= alphabet
        assert len(token) * 6 >= 128
    # The tokens handed to a phone are of that kind, and no response body repeats them.
    code = create_tiny(client)
    body = client.post(f"/api/tables/{code}/seats/0").get_data(as_text=True)
    (token,) = stored_tokens(client)[code]
    assert len(token) >= 43 and token not in body
    assert token not in client.get(f"/t/{code}").get_data(as_text=True)
    # Only a hash is stored, never the token itself.
    assert tables.hash_token(token) in [row[3] for row in db_state(app)[1]]
    assert token not in str(as_tuples(db_state(app)))


def test_session_cookie_is_httponly_and_samesite_lax(client):
    code = create_tiny(client)
    resp = client.post(f"/api/tables/{code}/seats/0")
    cookies = [h for h in resp.headers.getlist("Set-Cookie") if h.startswith(f"{COOKIE}=")]
    assert cookies, resp.headers
    for header in cookies:
        attributes = {part.strip().split("=")[0].lower(): part.strip() for part in header.split(";")}
        assert "httponly" in attributes
        assert attributes.get("samesite", "").lower() == "samesite=lax"
        assert "expires" in attributes  # kept across browser restarts for the evening


def test_tampered_cookie_holds_no_seat_and_cannot_act(app, client):
    code = create_tiny(client)
    take(client, code, 0)
    assert act(client, code, "add", {"amount": 1}).status_code == 200
    value = client.get_cookie(COOKIE).value
    before = as_tuples(db_state(app))
    # Change one character in the payload and, separately, in the signature.
    for index in (3, len(value) // 2, len(value) - 2):
        swapped = "A" if value[index] != "A" else "B"
        forged = value[:index] + swapped + value[index + 1:]
        client.set_cookie(COOKIE, forged)
        assert client.get(f"/api/tables/{code}").get_json()["my_seats"] == []
        resp = client.post(f"/api/tables/{code}/actions",
                           json={"action": "add", "params": {"amount": 1}, "version": 1, "seat": 0})
        assert resp.status_code == 403
        resp = client.post(f"/api/tables/{code}/undo", json={"version": 1})
        assert resp.status_code == 403
        resp = client.post(f"/t/{code}/act", data={"action": "add", "amount": "1", "version": "1"},
                           headers={"HX-Request": "true"})
        assert "Take a seat" in resp.get_data(as_text=True)
        assert client.delete(f"/api/tables/{code}/seats/0").status_code == 403
    assert as_tuples(db_state(app)) == before
    client.set_cookie(COOKIE, value)
    assert client.get(f"/api/tables/{code}").get_json()["my_seats"] == [0]


def test_a_seat_at_one_table_is_no_seat_at_another(client, make_client):
    table_a = create_tiny(client)
    table_b = create_tiny(make_client())
    phone = make_client()
    take(phone, table_a, 0)
    assert phone.get(f"/api/tables/{table_b}").get_json()["my_seats"] == []
    assert act(phone, table_b, "add", {"amount": 1}, version=0, seat=0).status_code == 403
    # Even with table A's token filed under table B's code, the seat is not B's.
    with phone.session_transaction() as session:
        seats = dict(session["seats"])
        seats[table_b] = list(seats[table_a])
        session["seats"] = seats
    assert phone.get(f"/api/tables/{table_b}").get_json()["my_seats"] == []
    assert act(phone, table_b, "add", {"amount": 1}, version=0, seat=0).status_code == 403
    assert act(phone, table_b, "add", {"amount": 1}, version=0).status_code == 403
    assert version_of(phone, table_b) == 0
    assert act(phone, table_a, "add", {"amount": 1}, version=0).status_code == 200


def test_freed_seat_token_stops_working(client, make_client):
    code = create_tiny(client)
    lost = make_client()
    take(lost, code, 1)
    assert act(lost, code, "add", {"amount": 1}, version=0).status_code == 200
    # Only the host may free it.
    assert make_client().delete(f"/api/tables/{code}/seats/1").status_code == 403
    assert lost.delete(f"/api/tables/{code}/seats/1").status_code == 403
    resp = client.delete(f"/api/tables/{code}/seats/1")
    assert resp.status_code == 200
    assert [s["taken"] for s in resp.get_json()["seats"]] == [False, False, False]
    assert lost.get(f"/api/tables/{code}").get_json()["my_seats"] == []
    resp = act(lost, code, "add", {"amount": 1}, version=1, seat=1)
    assert resp.status_code == 403
    assert lost.post(f"/api/tables/{code}/undo", json={"version": 1}).status_code == 403
    # A new phone takes the seat; the old token still does nothing.
    newcomer = make_client()
    take(newcomer, code, 1)
    assert act(lost, code, "add", {"amount": 1}, version=1).status_code == 403
    assert act(newcomer, code, "add", {"amount": 1}, version=1).status_code == 200
    assert version_of(client, code) == 2


def _write_routes(app, code):
    """Every route that accepts a write, filled in with real values."""
    fills = {"code": code, "seat": "1", "game_id": "tiny", "played_id": "1", "campaign_id": "1"}
    for rule in app.url_map.iter_rules():
        methods = rule.methods & {"POST", "PUT", "PATCH", "DELETE"}
        if not methods:
            continue
        unknown = set(rule.arguments) - set(fills)
        assert not unknown, f"no value to fill {unknown} in {rule.rule}: add one"
        url = re.sub(r"<(?:\w+:)?(\w+)>", lambda m: fills[m.group(1)], rule.rule)
        for method in sorted(methods):
            yield method, url


def test_cross_site_writes_are_refused_on_every_route(app, client):
    code = create_tiny(client)
    take(client, code, 0)
    assert act(client, code, "add", {"amount": 1}).status_code == 200
    before = as_tuples(db_state(app))
    forms = {"action": "add", "amount": "1", "version": "1", "seat": "0", "rid": "x",
             "player0": "Ana", "player1": "Ben"}
    bodies = {"game": "tiny", "players": ["Ana", "Ben"], "action": "add",
              "params": {"amount": 1}, "version": 1, "seat": 0}
    refused = 0
    for method, url in _write_routes(app, code):
        for origin in ("http://evil.example", "null", "http://localhost.evil.example"):
            for kwargs in ({"data": forms}, {"json": bodies}):
                resp = client.open(url, method=method, headers={"Origin": origin}, **kwargs)
                assert resp.status_code == 403, (method, url, origin, resp.status_code)
                assert "other sites" in resp.get_data(as_text=True)
                refused += 1
    assert refused >= 8 * 3 * 2
    assert as_tuples(db_state(app)) == before
    # The same phone on the same site still writes.
    resp = client.post(f"/api/tables/{code}/actions", json={**bodies, "version": 1},
                       headers={"Origin": "http://localhost"})
    assert resp.status_code == 200
