"""The check at the door: text that is not text, numbers too large and JSON nested too deep
are refused with a clear 400 wherever they come in, nothing changes, and the table goes on
answering; names in any script, with marks, combining characters and emoji, still work."""

import io
import json

import pytest

from companion import inbound

from .helpers import act, create_tiny, take, version_of
from .history_fixture import STATS_EXPORT

SURROGATE = b'"\\ud800"'  # a lone surrogate, as JSON writes it
TOO_BIG = 2**63


def raw_json(client, url, body: bytes):
    return client.post(url, data=body, content_type="application/json")


def assert_refused(resp, *words):
    assert resp.status_code == 400, resp.get_data(as_text=True)
    text = resp.get_json()["error"] if resp.is_json else resp.get_data(as_text=True)
    for word in words:
        assert word in text, text
    return text


def assert_table_answers(make_client, code, version):
    """Every page of the table, for another phone: 200, at the version it had."""
    other = make_client()
    for url, headers in [(f"/t/{code}", {}), (f"/t/{code}/view", {"HX-Request": "true"}),
                         (f"/api/tables/{code}", {}), (f"/t/{code}/log", {}),
                         (f"/api/tables/{code}/actions", {}), ("/history", {}), ("/api/history", {}),
                         ("/history/export.json", {}), ("/history/export.csv", {})]:
        resp = other.get(url, headers=headers)
        assert resp.status_code == 200, (url, resp.get_data(as_text=True)[:300])
    assert version_of(other, code) == version


def woodland_table(client):
    resp = client.post("/api/tables", json={"game": "woodland-wizards", "players": ["Ana", "Ben"],
                                            "options": {"first_player": "0"}})
    assert resp.status_code == 201
    code = resp.get_json()["code"]
    take(client, code, 0)
    return code


# -- a lone surrogate, wherever it comes in --------------------------------------------------------


def test_a_lone_surrogate_in_a_player_name_is_refused(client):
    body = b'{"game": "tiny", "players": ["Ana", ' + SURROGATE + b'], "options": {}}'
    assert_refused(raw_json(client, "/api/tables", body), "players[1]", "surrogate", "U+D800")
    assert client.get("/").status_code == 200


def test_a_lone_surrogate_in_a_card_name_is_refused_and_the_table_goes_on(client, make_client):
    code = woodland_table(client)
    body = (b'{"action": "add_card", "version": 0, "params": {"player": 0, "value": 3, "name": '
            + SURROGATE + b'}}')
    assert_refused(raw_json(client, f"/api/tables/{code}/actions", body), "params.name", "U+D800")
    assert_table_answers(make_client, code, 0)
    # The same card with an ordinary name goes through.
    assert act(client, code, "add_card", {"player": 0, "value": 3, "name": "Oak Elf"}, version=0).status_code == 200


def test_a_lone_surrogate_as_request_id_is_refused_for_an_action_and_an_undo(client, make_client):
    code = create_tiny(client)
    take(client, code, 0)
    body = b'{"action": "add", "params": {"amount": 1}, "version": 0, "request_id": ' + SURROGATE + b'}'
    assert_refused(raw_json(client, f"/api/tables/{code}/actions", body), "request_id")
    assert act(client, code, "add", {"amount": 2}, version=0).status_code == 200
    # Before, this undo was applied and then its answer failed: now it is refused, not applied.
    body = b'{"version": 1, "request_id": ' + SURROGATE + b'}'
    assert_refused(raw_json(client, f"/api/tables/{code}/undo", body), "request_id")
    assert_table_answers(make_client, code, 1)
    assert client.get(f"/api/tables/{code}").get_json()["view"]["count"] == 2


def test_a_lone_surrogate_in_a_history_import_is_refused(client):
    body = json.dumps(STATS_EXPORT).replace('"Ben"', '"Ben\\ud800"', 1).encode()
    text = assert_refused(client.post("/api/history/import", data=body, content_type="application/json"),
                          "not imported", "U+D800")
    assert "games[0].players[1].name" in text
    assert client.get("/api/history").get_json()["games"] == []
    # The form upload says so on the page.
    resp = client.post("/history/import", data={"file": (io.BytesIO(body), "h.json")},
                       content_type="multipart/form-data")
    assert_refused(resp, "not imported")
    assert client.get("/history/export.json").status_code == 200


def test_surrogates_sent_as_utf8_bytes_are_refused_too(client):
    # Python's own JSON reader lets these bytes through as a surrogate.
    body = b'{"game": "tiny", "players": ["Ana", "\xed\xa0\x80"], "options": {}}'
    assert_refused(raw_json(client, "/api/tables", body), "not valid UTF-8")
    resp = client.post("/new/tiny", data=b"player0=Ana&player1=%ED%A0%80",
                       content_type="application/x-www-form-urlencoded")
    assert_refused(resp, "not valid UTF-8")


# -- other text that is not text --------------------------------------------------------------------


@pytest.mark.parametrize("name, words", [
    ("Ana\x00", ["control character", "U+0000"]),
    ("Ana\x85", ["control character", "U+0085"]),
    ("\u202eanA", ["text-direction", "U+202E"]),
    ("\u2067Ana", ["text-direction", "U+2067"]),
    ("Ana\ue000", ["private-use", "U+E000"]),
    ("Ana\ufffe", ["not a character", "U+FFFE"]),
    ("Ana\ufffd", ["replacement character"]),
])
def test_hostile_characters_in_a_name_are_refused_on_the_form_and_the_api(client, name, words):
    resp = client.post("/api/tables", json={"game": "tiny", "players": [name, "Ben"], "options": {}})
    assert_refused(resp, "players[0]", *words)
    resp = client.post("/new/tiny", data={"player0": name, "player1": "Ben"})
    assert_refused(resp, "player0", *words)
    assert client.get("/api/history").status_code == 200


def test_names_in_any_script_with_marks_combining_characters_and_emoji_are_kept(client, make_client):
    names = ["שָׁלוֹם", "\u200fدانا", "Zoe\u0308", "👩\u200d👩\u200d👧 Kim", "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"]
    resp = client.post("/api/tables", json={"game": "tiny", "players": names[:4], "options": {}})
    assert resp.status_code == 201, resp.get_json()
    code = resp.get_json()["code"]
    assert resp.get_json()["players"] == names[:4]
    take(client, code, 0)
    assert_table_answers(make_client, code, 0)
    # The form, too, and whitespace (a tab here) folds to one space as before.
    resp = client.post("/new/tiny", data={"player0": names[4], "player1": "Ana\tLee"})
    assert resp.status_code == 302
    new_code = resp.headers["Location"].split("/join/")[1].split("?")[0]
    assert client.get(f"/api/tables/{new_code}").get_json()["players"] == [names[4], "Ana Lee"]


def test_text_that_is_not_utf8_is_refused_in_the_query_the_form_and_the_address(client):
    code = create_tiny(client)
    take(client, code, 0)
    assert_refused(client.get("/history?player=%FF"), "not valid UTF-8")
    # A raw byte, not escaped: the server hands it over as one latin-1 character.
    assert_refused(client.get("/history", environ_overrides={"QUERY_STRING": "player=\xff"}),
                   "not valid UTF-8")
    assert_refused(client.get("/api/history?game=%00"), "control character")
    assert_refused(client.get(f"/t/{code}/view?as=%E2%80%AE0"), "text-direction")
    resp = client.post(f"/t/{code}/act", data=b"action=add&amount=%ff&version=0",
                       content_type="application/x-www-form-urlencoded")
    assert_refused(resp, "not valid UTF-8")
    resp = client.post(f"/t/{code}/act", data=b"action=add&amount=\xff&version=0",
                       content_type="application/x-www-form-urlencoded")
    assert_refused(resp, "not valid UTF-8")
    # In a multipart form the bytes arrive already replaced by U+FFFD.
    body = (b'--b\r\nContent-Disposition: form-data; name="alias"\r\n\r\nAn\xffa\r\n--b\r\n'
            b'Content-Disposition: form-data; name="person"\r\n\r\nAna\r\n--b--\r\n')
    resp = client.post("/history/names/merge", data=body, content_type="multipart/form-data; boundary=b")
    assert_refused(resp, "alias", "replacement character")
    assert_refused(client.get("/t/%FF%FE"), "The address")
    assert_refused(client.get("/api/tables/AB%00CD"), "The address", "control character")
    assert version_of(client, code) == 0


# -- numbers too large ------------------------------------------------------------------------------


@pytest.mark.parametrize("method, url", [
    ("GET", "/history/{}"), ("POST", "/history/{}/rematch"), ("GET", "/api/history/{}"),
    ("GET", "/campaigns/{}"), ("POST", "/campaigns/{}/start"), ("POST", "/campaigns/{}/restart"),
    ("POST", "/api/tables/ABCD/seats/{}"), ("DELETE", "/api/tables/ABCD/seats/{}"),
])
def test_ids_beyond_64_bits_in_the_address_are_refused(client, method, url):
    for number in (TOO_BIG, 2**64, 10**400):
        assert_refused(client.open(url.format(number), method=method), "too large")
    # The largest id SQLite holds is simply not there.
    assert client.open(url.format(TOO_BIG - 1), method=method).status_code == 404


@pytest.mark.parametrize("number", [TOO_BIG, -TOO_BIG - 1, 10**400])
def test_numbers_beyond_64_bits_in_json_are_refused(client, number):
    code = create_tiny(client)
    take(client, code, 0)
    for field in ("version", "seat"):
        body = {"action": "add", "params": {"amount": 1}, "version": 0, field: number}
        assert_refused(client.post(f"/api/tables/{code}/actions", json=body), field, "too large")
    body = json.dumps({"game": "tiny", "players": ["Ana"], "options": {"start": number}}).encode()
    assert_refused(raw_json(client, "/api/tables", body), "start", "too large")
    assert_refused(raw_json(client, f"/api/tables/{code}/undo", b'{"version": 1e400}'), "too large")
    assert_refused(raw_json(client, f"/api/tables/{code}/undo", b'{"version": NaN}'), "NaN")
    assert version_of(client, code) == 0


@pytest.mark.parametrize("page", ["²", "٣", "-1", "1.0", "abc", "100000", "9" * 30])
def test_a_page_that_is_not_a_small_whole_number_is_refused(client, page):
    assert_refused(client.get("/history", query_string={"page": page}), "page")
    assert_refused(client.get("/api/history", query_string={"page": page}), "page")
    assert client.get("/api/history", query_string={"page": "3"}).get_json()["page"] == 3


# -- JSON nested too deep ---------------------------------------------------------------------------


def nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


@pytest.mark.parametrize("where", ["/api/tables", "/api/tables/{code}/actions", "/api/tables/{code}/undo"])
def test_json_nested_a_thousand_deep_is_refused(client, make_client, where):
    code = create_tiny(client)
    take(client, code, 0)
    url = where.format(code=code)
    assert_refused(raw_json(client, url, nested(1000)), "nested", str(inbound.MAX_JSON_DEPTH))
    params = b'{"action": "add", "version": 0, "params": {"amount": ' + nested(40) + b"}}"
    assert_refused(raw_json(client, url, params), "nested")
    assert_table_answers(make_client, code, 0)


def test_json_nested_to_the_limit_is_read_and_one_more_is_refused(client):
    code = create_tiny(client)
    take(client, code, 0)
    url = f"/api/tables/{code}/actions"
    inside = inbound.MAX_JSON_DEPTH - 2  # the body object and params hold the rest
    resp = raw_json(client, url, b'{"action": "add", "version": 0, "params": {"amount": ' + nested(inside) + b"}}")
    assert resp.status_code == 400 and "nested" not in resp.get_json()["error"]  # the game's own refusal
    resp = raw_json(client, url, b'{"action": "add", "version": 0, "params": {"amount": ' + nested(inside + 1) + b"}}")
    assert_refused(resp, "nested")


def test_the_session_cookie_is_not_read_by_the_request_checks(client):
    """A cookie signed before these rules may hold a flashed sentence naming anyone: it
    must not lock its phone out."""
    with client.session_transaction() as session:
        session["_flashes"] = [("info", "\u202eanA now counts as Ana.")]
    resp = client.get("/history/stats")
    assert resp.status_code == 200
    assert "\u202eanA now counts as Ana." in resp.get_data(as_text=True)


def test_a_tap_refused_at_the_door_keeps_the_screen_and_names_the_problem(client, make_client):
    """htmx swaps no 4xx answer: a refused tap answers 200, swaps nothing, and carries the
    message for the notice the page shows."""
    code = woodland_table(client)
    resp = client.post(f"/t/{code}/act", headers={"HX-Request": "true"},
                       data={"action": "add_card", "version": "0", "rid": "r1", "seat": "0",
                             "player": "0", "value": "3", "name": "Oak\u202eElf"})
    assert resp.status_code == 200
    assert resp.headers["HX-Reswap"] == "none"
    notice = json.loads(resp.headers["HX-Trigger"])["forest-notice"]["message"]
    assert "U+202E" in notice and notice == resp.get_data(as_text=True)
    assert_table_answers(make_client, code, 0)
    # The same refusal without htmx is a 400 page.
    resp = client.post(f"/t/{code}/act", data={"action": "add_card", "version": "0", "rid": "r2",
                                               "seat": "0", "player": "0", "value": "3",
                                               "name": "Oak\u202eElf"})
    assert_refused(resp, "U+202E")
