"""Hostile requests to every route the app has, with every method it accepts.

The route arguments are real table codes, seats, history and campaign ids most of the
time, and the sending phone holds a seat, so the requests get past the first checks;
one or more of the values is hostile: lone surrogates, NUL and other control
characters, bidi controls and marks, combining characters, numbers past 64 bits, JSON
nested deep or of the wrong type, broken percent-encoding and bytes that are not UTF-8,
in the address, the query string and the body.

Whatever is sent: never a 500; a refused request (4xx) changes nothing; and after every
request each page of the table, the history and its exports still answer 200 for
another phone. The figures (requests sent, 500s) are printed at the end; run with -s.
FOREST_FUZZ_EXAMPLES sets the examples per route that reads no body (default 10); routes
that take a body get three times as many. The default run takes about 30 s.
"""

from __future__ import annotations

import hashlib
import json
import os
from urllib.parse import quote_from_bytes

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from companion import create_app, store, tables
from companion.games import get_game
from companion.web.limits import limiter

from .history_fixture import STATS_EXPORT

settings.register_profile(
    "fuzz-routes", max_examples=int(os.environ.get("FOREST_FUZZ_EXAMPLES", "10")), deadline=None,
    derandomize=True, database=None, phases=[Phase.explicit, Phase.generate, Phase.shrink],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.function_scoped_fixture])

GAME = "woodland-wizards"
PLAYERS = ["Ana", "Ben", "Cara"]

HOSTILE_TEXT = ["\ud800", "\udfff", "Ana\udc80", "\x00", "Ana\x00Ben", "\x1b[31m", "\x7f", "\x85",
                "\u202eanA", "\u2066Ana\u2069", "\u200fدانا", "\u061c", "e\u0301\u0301\u0301", "Zoe\u0308",
                "👩\u200d👩\u200d👧", "\ufffd", "\ufffe", "\U0010ffff", "\ue000", "²", "٣", "①", "Ⅻ",
                "9223372036854775808", "18446744073709551616", "-9223372036854775809", "1" * 401,
                "NaN", "Infinity", "-0", " 0 ", "0x10", "1e400", "%FF", "%", "<b>", "a" * 300, ""]
HUGE = [2**63, 2**64, -2**63 - 1, 10**400, 2**63 - 1, -1]
# The characters that once got stored and broke every page that showed them.
BREAKING_TEXT = ["\ud800", "Ana\udc80", "\x00", "\u202eanA", "\ufffe", "\ue000"]
# Mostly the known troublemakers; sometimes any code point at all, surrogates included.
text = st.one_of(st.sampled_from(BREAKING_TEXT), st.sampled_from(HOSTILE_TEXT), st.sampled_from(HOSTILE_TEXT),
                 st.text(st.characters(exclude_categories=()), max_size=12))
json_leaf = st.one_of(st.none(), st.booleans(), st.integers(), st.sampled_from(HUGE),
                      st.floats(), text)  # floats: NaN and infinities as well
json_value = st.recursive(json_leaf, lambda inner: st.lists(inner, max_size=3)
                          | st.dictionaries(text, inner, max_size=3), max_leaves=6)
hostile_json = st.one_of(text, text, st.sampled_from(HUGE), json_value)
form_text = st.one_of(text, st.sampled_from(HUGE).map(str))


def nested(depth: int) -> bytes:
    return b'{"a": ' * depth + b"1" + b"}" * depth


RAW_JSON_BODIES = [nested(1000), b"[" * 1000 + b"]" * 1000, b"[" * 40 + b"]" * 40, b'{"players": ["\xff\xfe"]}',
                   b'{"name": "\xed\xa0\x80"}', b'{"version": 1e400}', b'{"seat": NaN}', b"\xef\xbb\xbf{}",
                   b'"\\ud800"', b'{"a": 1' + b"1" * 5000 + b"}", b"{not json", b""]
BROKEN_ENCODINGS = [b"%FF", b"%ED%A0%80", b"%", b"%zz", b"%C0%80", b"\xff", b"\xed\xa0\x80", b"%00", b"+%2B"]

counts = {"requests": 0, "page_checks": 0, "refused": 0, "500s": 0}


def _percent(value: str) -> str:
    # What a hostile client sends: a lone surrogate written as UTF-8 anyway.
    return quote_from_bytes(value.encode("utf-8", "surrogatepass"), safe="")


class Club:
    """The app, one table with a seated phone, a history and a campaign."""

    def __init__(self, app):
        self.app = app
        self.watcher = app.test_client()  # another phone: it checks every page after a request
        self.conn = store.connect(app.config["DATABASE"])
        importer = app.test_client()
        resp = importer.post("/api/history/import", data=json.dumps(STATS_EXPORT),
                             content_type="application/json")
        assert resp.status_code == 200, resp.get_json()
        self.played_ids = [g["id"] for g in importer.get("/api/history").get_json()["games"]]
        resp = importer.post("/campaigns", data={"name": "Winter", "player0": "Ana", "player1": "Ben",
                                                 "hero_1": "shavi", "hero_2": "bethras",
                                                 "first_player": "0", "thorns": "easy"})
        assert resp.status_code == 303
        self.campaign_id = int(resp.headers["Location"].rstrip("/").split("/")[-1])
        self.new_table()

    def new_table(self):
        self.phone = self.app.test_client()
        resp = self.phone.post("/api/tables", json={"game": GAME, "players": PLAYERS,
                                                    "options": {"first_player": "0"}})
        assert resp.status_code == 201
        self.code = resp.get_json()["code"]
        assert self.phone.post(f"/api/tables/{self.code}/seats/0").status_code == 201

    def seated(self):
        """The sending phone holds seat 0 again (a hostile request may have freed it)."""
        if 0 in self.phone.get(f"/api/tables/{self.code}").get_json()["my_seats"]:
            return
        if self.phone.post(f"/api/tables/{self.code}/seats/0").status_code != 201:
            self.new_table()

    def version(self) -> int:
        return store.get_table(self.conn, self.code).version

    def fingerprint(self) -> str:
        """Everything a refused request must leave as it was."""
        table = store.get_table(self.conn, self.code)
        parts = [table.version, table.snapshot, [dict(r) for r in store.seats(self.conn, table.id)]]
        for query in ("SELECT COUNT(*) FROM game_table", "SELECT id, state FROM campaign ORDER BY id",
                      "SELECT * FROM name_merge ORDER BY alias_key",
                      "SELECT uid FROM played_game WHERE table_id IS NULL ORDER BY uid"):
            parts.append([tuple(r) for r in self.conn.execute(query)])
        return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()

    def check_pages(self):
        played = self.played_ids[0]
        for url, headers in [(f"/t/{self.code}", {}), (f"/t/{self.code}/view", {"HX-Request": "true"}),
                             (f"/api/tables/{self.code}", {}), (f"/t/{self.code}/log", {}),
                             (f"/api/tables/{self.code}/actions", {}), ("/history", {}), ("/api/history", {}),
                             (f"/history/{played}", {}), (f"/api/history/{played}", {}),
                             ("/history/export.json", {}), ("/history/export.csv", {})]:
            resp = self.watcher.get(url, headers=headers)
            counts["page_checks"] += 1
            assert resp.status_code == 200, (url, resp.get_data(as_text=True)[:500])


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path_factory.mktemp("routes") / "fuzz.sqlite"),
                      "SECRET_KEY": "test-key", "LAN_ADDRESS": "192.168.1.20",
                      "CODE_GUESS_LIMIT": "1000000 per minute", "STREAM_MAX_SECONDS": 0.2})
    limiter.reset()
    club = Club(app)
    yield club
    club.conn.close()
    print(f"\n[routes] {counts['requests']} hostile requests, {counts['refused']} refused (4xx), "
          f"{counts['500s']} answered 500; {counts['page_checks']} page checks by another phone")


def _rules():
    app = create_app({"TESTING": True, "DATABASE": ":memory:", "SECRET_KEY": "k"})
    return [(rule.rule, rule.endpoint, tuple(sorted(rule.methods))) for rule in app.url_map.iter_rules()]


RULES = _rules()


def draw_path(data, club, rule: str) -> str:
    def real_or(real, hostile):
        return data.draw(st.one_of(st.just(real), st.just(real), st.just(real), hostile))

    def half_real(real, hostile):
        return data.draw(st.one_of(st.just(real), hostile))

    values = {
        "code": real_or(club.code, st.one_of(st.just("ZZZZ"), st.just(club.code.lower()), text)),
        "seat": real_or(0, st.sampled_from([1, 2, 3, 2**63 - 1, 2**63, 2**64, 10**400])),
        "played_id": half_real(data.draw(st.sampled_from(club.played_ids)), st.sampled_from(HUGE[:4] + [0])),
        "campaign_id": half_real(club.campaign_id, st.sampled_from(HUGE[:4] + [0])),
        "game_id": real_or(GAME, st.one_of(st.sampled_from(["tiny", "explorers-of-the-woodlands"]), text)),
        "name": real_or("htmx.min.js", text),
        "filename": real_or("app.css", text),
    }
    path = rule
    for name, value in values.items():
        encoded = _percent(value) if isinstance(value, str) else str(value)
        for form in (f"<{name}>", f"<int:{name}>", f"<path:{name}>"):
            path = path.replace(form, encoded)
    return path


TEXT_ACTIONS = sorted(name for name, spec in get_game(GAME).ACTIONS.items()
                      if any(p.kind == "text" for p in spec.params))
# The fields each route reads, and so the ones worth making hostile; any other route gets any.
TARGETS = {
    "api.create": ["game", "players", "options"],
    "api.apply": ["action", "params", "params", "version", "seat", "request_id"],
    "api.undo": ["version", "request_id"],
    "pages.new_table": ["player0", "player1", "first_player", "timer_seconds"],
    "pages.join_table": ["seat"],
    "pages.act": ["action", "version", "rid", "seat", "name", "player", "value"],
    "pages.undo": ["version", "rid"],
    "pages.free_seat": ["seat"],
    "history.merge": ["alias", "person"],
    "history.unmerge": ["alias"],
    "campaigns.campaign_create": ["name", "player0", "player1", "hero_1", "first_player", "thorns"],
    "campaigns.campaign_restart": ["discard_shavi"],
    "campaigns.campaign_confirm": ["table"],
    "campaigns_api.create": ["name", "players", "heroes", "first_player", "thorns"],
    "campaigns_api.confirm": ["table"],
    "campaigns_api.restart": ["discards"],
}
ANY_FIELD = sorted({field for fields in TARGETS.values() for field in fields})


def template(club, data) -> dict:
    """A request that would mostly be accepted: every route takes the fields it knows."""
    actions = tables.all_actions(get_game(GAME))
    action = data.draw(st.sampled_from(TEXT_ACTIONS + sorted(actions)), label="action")
    params = {}
    for p in actions[action].params:
        params[p.name] = {"seat": 0, "int": p.min or 0, "bool": False, "text": "Oak Elf"}.get(
            p.kind, p.choices[0] if p.choices else None)
    return {"game": GAME, "players": ["Dana", "Eli"], "options": {"first_player": "0"},
            "action": action, "params": params, "version": club.version(), "seat": 0, "player": "0", "value": "3",
            "request_id": f"r{counts['requests']}", "rid": f"r{counts['requests']}",
            "alias": "Anna", "person": "Ana", "name": "Spring", "player0": "Dana", "player1": "Eli",
            "hero_1": "shavi", "hero_2": "bethras", "first_player": "0", "thorns": "easy",
            "discard_shavi": "0", "timer_seconds": "60", "heroes": ["shavi", "bethras"],
            "table": club.code, "discards": {"shavi": 0}}


def free_text_slots(fields: dict) -> list[tuple[dict | list, str | int]]:
    """Where a route keeps whatever text it is given: names, card names, request ids."""
    slots = [(fields, key) for key in ("request_id", "rid", "alias", "person", "name", "player0")]
    slots.append((fields["players"], 0))
    params = fields["params"]
    spec = tables.all_actions(get_game(GAME)).get(fields["action"])
    slots += [(params, p.name) for p in spec.params if p.kind == "text"] if spec else []
    return slots


def mutate(data, fields: dict, value_strategy, endpoint: str) -> dict:
    """Either every free-text field holds one hostile text, or one to three fields are
    hostile (inside a list or object, one of its entries)."""
    if data.draw(st.integers(0, 2), label="mode") == 0:
        hostile = data.draw(text, label="free text")
        for container, key in free_text_slots(fields):
            container[key] = hostile
        return fields
    for _ in range(data.draw(st.sampled_from([1, 1, 2, 3]), label="hostile fields")):
        key = data.draw(st.sampled_from(TARGETS.get(endpoint, ANY_FIELD)), label="field")
        inside = fields.get(key)
        if isinstance(inside, list) and inside and data.draw(st.booleans()):
            inside[data.draw(st.integers(0, len(inside) - 1))] = data.draw(value_strategy)
        elif isinstance(inside, dict) and inside and data.draw(st.booleans()):
            inside[data.draw(st.sampled_from(sorted(inside)))] = data.draw(value_strategy)
        else:
            fields[key] = data.draw(value_strategy)
    return fields


def draw_query(data, club) -> str:
    """The raw query string, as the server hands it over (each byte one latin-1 character)."""
    fields = {"page": "0", "game": GAME, "player": "Ana", "seat": "0", "as": "0", "v": str(club.version()),
              "code": club.code, "created": "1"}
    fields = {k: v for k, v in fields.items() if data.draw(st.booleans())}
    for _ in range(data.draw(st.integers(0, 2), label="hostile query fields")):
        fields[data.draw(st.sampled_from(sorted(fields) or ["page"]))] = data.draw(form_text)
    raw = b"&".join(_percent(k).encode() + b"=" + _percent(str(v)).encode() for k, v in fields.items())
    if data.draw(st.integers(0, 3)) == 0:
        raw += b"&x=" + data.draw(st.sampled_from(BROKEN_ENCODINGS))
    return raw.decode("latin-1")


def draw_body(data, club, endpoint) -> tuple[bytes, str | None]:
    kind = data.draw(st.sampled_from(["json", "json", "raw json", "form", "form", "broken form",
                                      "import file", "none"] + (["json", "raw json"] if endpoint.startswith("api") else ["form"])),
                     label="body")
    if kind == "none":
        return b"", None
    if kind == "raw json":
        return data.draw(st.sampled_from(RAW_JSON_BODIES)), "application/json"
    if kind == "import file":
        export = json.loads(json.dumps(STATS_EXPORT))
        export["games"][0]["players"][0]["name"] = data.draw(text)
        body = json.dumps(export).encode()
        if data.draw(st.booleans()):
            return body, "application/json"
        boundary = "fuzzboundary"
        return (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"h.json\"\r\n"
                f"Content-Type: application/json\r\n\r\n").encode() + body + f"\r\n--{boundary}--\r\n".encode(), \
            f"multipart/form-data; boundary={boundary}"
    fields = template(club, data)
    if kind == "json":
        fields = mutate(data, fields, hostile_json, endpoint)
        return json.dumps(fields).encode(), "application/json"  # NaN and surrogates written as JSON has them
    fields = mutate(data, fields, form_text, endpoint)
    form = {k: v for k, v in fields.items() if not isinstance(v, (dict, list))}
    form.update(fields["params"] if isinstance(fields["params"], dict) else {})
    raw = b"&".join(_percent(str(k)).encode() + b"=" + _percent(str(v)).encode() for k, v in form.items())
    if kind == "broken form":
        raw += b"&name=" + data.draw(st.sampled_from(BROKEN_ENCODINGS))
    return raw, "application/x-www-form-urlencoded"


@pytest.mark.parametrize("rule, endpoint, methods", RULES, ids=[f"{','.join(r[2])} {r[0]}" for r in RULES])
def test_hostile_requests_to_every_route(club, rule, endpoint, methods):
    profile = settings.get_profile("fuzz-routes")
    takes_body = bool(set(methods) & {"POST", "PUT", "PATCH", "DELETE"})

    @settings(profile, max_examples=profile.max_examples * (3 if takes_body else 1))
    @given(data=st.data())
    def requests(data):
        club.seated()
        # HEAD and OPTIONS run no route of the app's own: a few tries are enough.
        method = data.draw(st.sampled_from([m for m in methods for _ in range(1 if m in ("HEAD", "OPTIONS") else 4)]),
                           label="method")
        path = draw_path(data, club, rule)
        query = draw_query(data, club)
        body, content_type = draw_body(data, club, endpoint) if method not in ("GET", "HEAD") else (b"", None)
        headers = {"HX-Request": "true"} if data.draw(st.booleans()) else {}
        before = club.fingerprint()
        resp = club.phone.open(path, method=method, data=body, content_type=content_type, headers=headers,
                               environ_overrides={"QUERY_STRING": query})
        status = resp.status_code
        resp.close()  # the event stream ends here
        counts["requests"] += 1
        if status >= 500:
            counts["500s"] += 1
        assert status < 500, (method, path, query, body[:300], resp.get_data(as_text=True)[:500])
        if status >= 400:
            counts["refused"] += 1
            assert club.fingerprint() == before, (method, path, query, body[:300], status)
        club.check_pages()

    requests()
