"""Pages, partials and the JSON API through Flask's test client."""

import re

from .helpers import act, create_tiny, hidden, hx_post, kept_in_place, take, toast, version_of, shown_version


def test_home_lists_the_games(client):
    html = client.get("/").get_data(as_text=True)
    assert "The Wicked Forest" in html and "Join a table" in html


def test_create_by_form_then_join_by_code(client, make_client):
    resp = client.post("/new/tiny", data={"player0": "Ana", "player1": " Ben ", "start": "3"})
    assert resp.status_code == 302
    code = re.search(r"/join/([A-Z0-9]+)", resp.headers["Location"]).group(1)
    phone = make_client()
    resp = phone.get(f"/join?code={code.lower()}")
    assert resp.status_code == 302 and resp.headers["Location"].endswith(f"/join/{code}")
    page = phone.get(f"/join/{code}").get_data(as_text=True)
    assert "I am Ana" in page and "I am Ben" in page
    resp = phone.post(f"/join/{code}", data={"seat": "1"})
    assert resp.status_code == 302
    table = phone.get(f"/t/{code}").get_data(as_text=True)
    assert "Ben (this phone)" in table
    # The cookie keeps the seat: a fresh page load on the same phone is still Ben.
    assert phone.get(f"/api/tables/{code}").get_json()["my_seats"] == [1]


def test_form_errors_are_shown_and_create_nothing(client):
    resp = client.post("/new/tiny", data={"player0": "Ana", "player1": "ana"})
    assert resp.status_code == 400
    assert "same name" in resp.get_data(as_text=True)


def test_wrong_code_gets_a_message(client):
    resp = client.get("/join?code=ZZZZ")
    assert resp.status_code == 404
    assert "No table has the code ZZZZ" in resp.get_data(as_text=True)
    assert client.get("/t/ZZZZ").status_code == 404


def test_taken_seat_is_refused(client, make_client):
    code = create_tiny(client)
    take(client, code, 0)
    other = make_client()
    resp = other.post(f"/join/{code}", data={"seat": "0"})
    assert resp.status_code == 400 and "already taken" in resp.get_data(as_text=True)


def test_pass_the_phone_takes_every_free_seat(client):
    code = create_tiny(client)
    client.post(f"/join/{code}", data={"seat": "all"})
    assert client.get(f"/api/tables/{code}").get_json()["my_seats"] == [0, 1, 2]


def test_htmx_action_returns_the_partial_and_stale_gets_fresh_view(client, make_client):
    code = create_tiny(client)
    take(client, code, 0)
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert 'sse-connect="/t/' in page and "<html" in page
    resp = hx_post(client, f"/t/{code}/act", {"action": "add", "amount": "2", "version": "0", "seat": "0"})
    body = resp.get_data(as_text=True)
    assert resp.status_code == 200 and "<html" not in body and 'data-version="1"' in body
    # The same form sent again (old version, no request id): refused with the fresh view.
    resp = hx_post(client, f"/t/{code}/act", {"action": "add", "amount": "2", "version": "0", "seat": "0"})
    body = resp.get_data(as_text=True)
    assert resp.status_code == 200 and "changed the table first" in toast(resp) and 'data-version="1"' in body
    assert resp.headers.get("HX-Reswap") is None  # a stale tap gets the fresh view swapped in
    assert client.get(f"/api/tables/{code}").get_json()["view"]["count"] == 2


def test_double_tap_with_same_request_id_applies_once(client):
    code = create_tiny(client)
    take(client, code, 0)
    form = {"action": "add", "amount": "1", "version": "0", "seat": "0", "rid": "abc123"}
    hx_post(client, f"/t/{code}/act", form)
    body = hx_post(client, f"/t/{code}/act", form).get_data(as_text=True)
    assert "changed the table first" not in body
    assert client.get(f"/api/tables/{code}").get_json()["view"]["count"] == 1


def test_undo_from_another_phone_restores_previous_state(client, make_client):
    code = create_tiny(client)
    take(client, code, 0)
    other = make_client()
    take(other, code, 1)
    assert act(client, code, "add", {"amount": 3}).status_code == 200
    page = other.get(f"/t/{code}/view", headers={"HX-Request": "true"}).get_data(as_text=True)
    resp = hx_post(other, f"/t/{code}/undo", {"version": shown_version(page), "rid": "u1"})
    assert toast(resp) == "Undone: Ana added 3." and 'data-version="2"' in resp.get_data(as_text=True)
    assert client.get(f"/api/tables/{code}").get_json()["view"]["count"] == 0


def test_unseated_phone_cannot_act_or_undo(client, make_client):
    code = create_tiny(client)
    stranger = make_client()
    resp = act(stranger, code, "add", {"amount": 1})
    assert resp.status_code == 403 and "Take a seat" in resp.get_json()["error"]
    resp = hx_post(stranger, f"/t/{code}/undo", {"version": "0"})
    assert kept_in_place(resp) and "Take a seat" in toast(resp)
    assert version_of(client, code) == 0


def test_forged_seat_is_refused(client, make_client):
    code = create_tiny(client)
    take(client, code, 0)
    resp = act(client, code, "add", {"amount": 1}, seat=2)
    assert resp.status_code == 403
    resp = hx_post(client, f"/t/{code}/act", {"action": "add", "amount": "1", "version": "0", "seat": "2"})
    assert kept_in_place(resp) and "does not hold that seat" in toast(resp)
    assert version_of(client, code) == 0


def test_host_frees_a_lost_phone_seat(client, make_client):
    code = create_tiny(client)
    lost = make_client()
    take(lost, code, 1)
    assert make_client().post(f"/t/{code}/free", data={"seat": "1"}).status_code == 403
    assert client.post(f"/t/{code}/free", data={"seat": "1"}).status_code == 303
    assert lost.get(f"/api/tables/{code}").get_json()["my_seats"] == []
    newcomer = make_client()
    assert take(newcomer, code, 1)["my_seats"] == [1]


def test_qr_code_is_svg_with_lan_address(client):
    code = create_tiny(client)
    resp = client.get(f"/t/{code}/qr.svg")
    assert resp.mimetype == "image/svg+xml" and resp.data.startswith(b"<?xml")
    join = client.get(f"/join/{code}").get_data(as_text=True)
    # Opened on localhost, the printed address still uses the LAN address other phones can reach.
    assert f"http://192.168.1.20/join/{code}" in join


def test_public_url_setting_wins(app, client):
    app.config["PUBLIC_URL"] = "https://games.example.org/"
    code = create_tiny(client)
    assert client.get(f"/api/tables/{code}").get_json()["join_url"] == f"https://games.example.org/join/{code}"


def test_json_api_round_trip_and_secret_redaction(client, make_client):
    code = create_tiny(client, players=("Ana", "Ben"))
    take(client, code, 0)
    ben = make_client()
    take(ben, code, 1)
    resp = act(client, code, "pick", {"color": "blue"}, version=0)
    assert resp.status_code == 200 and resp.get_json()["view"]["my_pick"] == "blue"
    seen_by_ben = ben.get(f"/api/tables/{code}").get_data(as_text=True)
    log = ben.get(f"/api/tables/{code}/actions").get_data(as_text=True)
    assert "blue" not in seen_by_ben and "blue" not in log
    assert ben.get(f"/api/tables/{code}").get_json()["view"]["chosen"] == [0]


def test_api_errors_are_json_with_reasons(client):
    assert client.post("/api/tables", data="nope", content_type="application/json").status_code == 400
    resp = client.post("/api/tables", json={"game": "tiny", "players": "Ana"})
    assert resp.status_code == 400 and "list" in resp.get_json()["error"]
    code = create_tiny(client)
    take(client, code, 0)
    resp = act(client, code, "add", {"amount": 99})
    assert resp.status_code == 400 and "above" in resp.get_json()["error"]
    assert resp.get_json()["version"] == 0
    resp = act(client, code, "add", {"amount": 1}, version=5)
    assert resp.status_code == 409 and resp.get_json()["view"]["count"] == 0


def test_security_headers_and_cross_site_post(client):
    resp = client.get("/")
    assert "frame-ancestors 'none'" in resp.headers["Content-Security-Policy"]
    assert "unsafe-inline" not in resp.headers["Content-Security-Policy"]
    assert resp.headers["X-Content-Type-Options"] == "nosniff"
    code = create_tiny(client)
    take(client, code, 0)
    resp = client.post(f"/t/{code}/act", data={"action": "add", "amount": "1", "version": "0"},
                       headers={"Origin": "http://evil.example"})
    assert resp.status_code == 403
    assert version_of(client, code) == 0


def test_vendor_assets_are_served_locally(client):
    page = client.get("/").get_data(as_text=True)
    src = re.search(r'src="(/bundle/forest\.js\?v=[0-9a-f]+)"', page).group(1)
    resp = client.get(src)
    assert resp.status_code == 200 and b"htmx" in resp.data
    assert "max-age=31536000" in resp.headers["Cache-Control"]
    assert "http" not in re.findall(r'<script src="([^"]+)"', page)[0]


def test_event_stream_sends_update_when_version_moves(app, client):
    code = create_tiny(client)
    take(client, code, 0)
    resp = client.get(f"/t/{code}/events?v=0")
    chunks = resp.response
    first = next(chunks)
    assert b"retry:" in (first if isinstance(first, bytes) else first.encode())
    act(client, code, "add", {"amount": 1}, version=0)
    text = b""
    for chunk in chunks:
        text += chunk if isinstance(chunk, bytes) else chunk.encode()
        if b"event: update" in text:
            break
    assert b"event: update\ndata: 1" in text
    resp.close()


def test_guessing_codes_is_rate_limited(app, client):
    app.config["CODE_GUESS_LIMIT"] = "5 per minute"
    code = create_tiny(client)
    for _ in range(10):
        assert client.get(f"/t/{code}").status_code == 200  # a real table never counts
    statuses = [client.get("/join", query_string={"code": f"ZZZ{c}"}).status_code for c in "ACDEFGH"]
    assert statuses[:5] == [404] * 5
    assert statuses[-1] == 429
    resp = client.get("/join", query_string={"code": "ZZZZ"})
    assert resp.status_code == 429 and "Too many wrong table codes" in resp.get_data(as_text=True)


def test_styles_and_scripts_carry_nosniff_but_not_the_page_policy(client):
    page = client.get("/")
    for href in re.findall(r'(?:href|src)="(/(?:static|vendor)/[^"]+\.(?:css|js)[^"]*)"', page.get_data(as_text=True)):
        resp = client.get(href)
        assert resp.status_code == 200, href
        assert resp.headers["X-Content-Type-Options"] == "nosniff"
        assert "Content-Security-Policy" not in resp.headers
    assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]


def test_a_form_posted_by_the_browser_before_the_page_script_runs_changes_nothing(client):
    """A form carries no version of its own (the page's script sends the one its view
    shows): posted as rendered, by the browser alone, it changes nothing and the page says
    to tap again."""
    code = create_tiny(client)
    take(client, code, 0)
    page = client.get(f"/t/{code}").get_data(as_text=True)
    form = re.search(r'<form method="post" action="(/t/\w+/act)"[^>]*>(.*?)</form>', page, re.S)
    fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', form.group(2)))
    assert "version" not in fields and fields["rid"] == ""
    button = re.search(r'<button[^>]*name="(\w+)" value="([^"]*)"', form.group(2))
    if button:
        fields[button.group(1)] = button.group(2)
    resp = client.post(form.group(1), data=fields)
    assert resp.status_code == 303
    assert version_of(client, code) == 0
    assert "The page was not ready yet: nothing was changed. Tap again." in client.get(resp.location).get_data(as_text=True)
    undo = client.post(f"/t/{code}/undo", data={"rid": ""})
    assert undo.status_code == 303 and version_of(client, code) == 0
