"""Many phones at one table at the same moment, over real HTTP on a threaded server.

Each phone is its own cookie jar in its own thread. Whatever the interleaving, an action
the server acknowledged is in the log exactly once, a refused one changed nothing, and the
cached snapshot is the fold of the live log.
"""

from __future__ import annotations

import http.cookiejar
import json
import threading
import time
import urllib.error
import urllib.request

import pytest
from werkzeug.serving import WSGIRequestHandler, make_server

from companion import create_app, store, tables
from companion.dialects import run_text
from companion.games import get_game

GAME = "wicked-forest"
PLAYERS = ["Ana", "Ben", "Cara", "Dan", "Eve"]
PER_PHONE = 60
THREAD_SECONDS = 20  # a hard cap for every loop below, far above the normal run


class Phone:
    """One phone: a cookie jar of its own, so its seat tokens travel with each request."""

    def __init__(self, base: str):
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def call(self, method: str, path: str, body=None, timeout: float = 10):
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"} if data is not None else {}
        headers["Origin"] = self.base  # as a browser on the app's own page sends it
        req = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        try:
            with self.opener.open(req, timeout=timeout) as resp:
                return resp.status, _json(resp.read())
        except urllib.error.HTTPError as exc:
            with exc:
                return exc.code, _json(exc.read())

    def get(self, path):
        status, body = self.call("GET", path)
        assert status == 200, body
        return body

    def act(self, code, action, params, version, seat=None, rid=None):
        body = {"action": action, "params": params, "version": version}
        if seat is not None:
            body["seat"] = seat
        if rid is not None:
            body["request_id"] = rid
        return self.call("POST", f"/api/tables/{code}/actions", body)

    def undo(self, code, version, rid=None):
        body = {"version": version}
        if rid is not None:
            body["request_id"] = rid
        return self.call("POST", f"/api/tables/{code}/undo", body)


def _json(raw: bytes):
    try:
        return json.loads(raw)
    except ValueError:
        return {"raw": raw.decode(errors="replace")}  # an HTML error page, e.g. a 500


def new_table(base, n_players=5, leader="0"):
    """Create a Wicked Forest table; return its code and one phone per seat."""
    host = Phone(base)
    status, body = host.call("POST", "/api/tables", {"game": GAME, "players": PLAYERS[:n_players],
                                                     "options": {"first_leader": leader}})
    assert status == 201, body
    code = body["code"]
    phones = [host] + [Phone(base) for _ in range(n_players - 1)]
    for seat, phone in enumerate(phones):
        status, body = phone.call("POST", f"/api/tables/{code}/seats/{seat}")
        assert status == 201 and body["my_seats"] == [seat], body
    return code, phones


def run_threads(targets, seconds=THREAD_SECONDS + 10):
    """Start one thread per target, join them all, re-raise the first failure."""
    errors = []

    def guard(fn):
        def run():
            try:
                fn()
            except BaseException as exc:  # noqa: BLE001 - reported in the main thread
                errors.append(exc)
        return run

    threads = [threading.Thread(target=guard(fn), daemon=True) for fn in targets]
    for t in threads:
        t.start()
    deadline = time.monotonic() + seconds
    for t in threads:
        t.join(max(0.1, deadline - time.monotonic()))
    assert not any(t.is_alive() for t in threads), "a phone thread hung"
    if errors:
        raise errors[0]


def db_rows(db_path, code):
    """All action rows of a table, undone ones and undo markers included."""
    conn = store.connect(db_path)
    try:
        table = store.get_table(conn, code)
        rows = run_text(conn, "SELECT seq, seat, name, params, request_id, undone_at FROM action"
                        " WHERE table_id = :id ORDER BY seq", {"id": table.id}).fetchall()
        return table, [dict(r, params=json.loads(r["params"])) for r in rows]
    finally:
        conn.close()


def assert_snapshot_is_fold(db_path, code):
    """The cached snapshot is exactly the replay of the live log; return the table row."""
    conn = store.connect(db_path)
    try:
        table = store.get_table(conn, code)
        live = store.live_actions(conn, table.id)
        assert table.snapshot == tables.fold(get_game(table.game), table.players, table.options, live)
        return table, live
    finally:
        conn.close()


def assert_refusal(status, body, sent_version):
    """A 409 carries the table as it is now: a newer version and a view."""
    assert status == 409, (status, body)
    assert isinstance(body.get("error"), str) and body["error"]
    assert isinstance(body.get("version"), int) and body["version"] > sent_version
    assert isinstance(body.get("view"), dict) and body["view"]["game"] == GAME


class QuietHandler(WSGIRequestHandler):
    def log_request(self, *args, **kwargs):
        pass  # hundreds of request lines would bury the figures printed under -s


@pytest.fixture
def server(database):
    db_path = database("race")
    app = create_app({"DATABASE": db_path, "SECRET_KEY": "race-test", "LAN_ADDRESS": "127.0.0.1",
                      "STREAM_POLL_SECONDS": 0.05, "STREAM_MAX_SECONDS": 2.0})
    srv = make_server("127.0.0.1", 0, app, threaded=True, request_handler=QuietHandler)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.server_port}", db_path
    srv.shutdown()
    thread.join(5)


def test_five_phones_fire_at_once(server):
    base, db_path = server
    code, phones = new_table(base)
    start = threading.Barrier(len(phones))
    sent = [[] for _ in phones]  # per phone: (rid, count, version sent, status, body)

    def fire(seat):
        phone, version = phones[seat], 0
        start.wait(10)
        deadline = time.monotonic() + THREAD_SECONDS
        for n in range(PER_PHONE):
            if time.monotonic() > deadline:
                break
            count, rid = (seat * 7 + n) % 22, f"race-{seat}-{n}"
            status, body = phone.act(code, "set_draw_pile", {"count": count}, version, seat, rid)
            sent[seat].append((rid, count, version, status, body))
            if status in (200, 409):
                version = body["version"]  # the version this phone now shows

    run_threads([lambda s=s: fire(s) for s in range(len(phones))])

    every = [entry for per_phone in sent for entry in per_phone]
    assert all(status != 500 for _, _, _, status, _ in every)
    accepted = [e for e in every if e[3] == 200]
    refused = [e for e in every if e[3] != 200]
    print(f"\nfive phones: fired {len(every)}, accepted {len(accepted)}, refused {len(refused)}")
    assert len(every) == len(phones) * PER_PHONE
    assert accepted, "no action got through"
    for _, _, version, status, body in refused:
        assert_refusal(status, body, version)
    for _, _, _, _, body in accepted:
        assert body["repeated"] is False and body["view"]["game"] == GAME

    # Every acknowledged action is in the log exactly once, with the seat and count sent;
    # nothing refused left a row.
    table, rows = db_rows(db_path, code)
    by_rid = {}
    for row in rows:
        assert row["request_id"] not in by_rid, f"{row['request_id']} logged twice"
        by_rid[row["request_id"]] = row
    assert set(by_rid) == {e[0] for e in accepted}
    for seat, per_phone in enumerate(sent):
        seqs = []
        for rid, count, _, status, _ in per_phone:
            if status == 200:
                row = by_rid[rid]
                assert (row["seat"], row["name"], row["params"], row["undone_at"]) == \
                    (seat, "set_draw_pile", {"count": count}, None)
                seqs.append(row["seq"])
        assert seqs == sorted(seqs), "a phone's actions landed out of the order it sent them"
    assert table.version == len(accepted)

    state_table, live = assert_snapshot_is_fold(db_path, code)
    assert state_table.snapshot["draw"] == live[-1].params["count"]
    log = phones[0].get(f"/api/tables/{code}/actions")
    assert log["version"] == len(accepted) and len(log["actions"]) == len(accepted)
    assert [a["seq"] for a in log["actions"]] == [r.seq for r in live]


def test_same_request_twice_at_once_applies_once(server):
    base, db_path = server
    code, phones = new_table(base, n_players=2)
    phone = phones[0]
    for n in range(10):
        version = phone.get(f"/api/tables/{code}")["version"]
        body = {"action": "set_draw_pile", "params": {"count": n}, "version": version,
                "request_id": f"twin-{n}"}
        both = threading.Barrier(2)
        answers = []

        def send():
            both.wait(10)
            answers.append(phone.call("POST", f"/api/tables/{code}/actions", body))

        run_threads([send, send])
        assert [s for s, _ in answers] == [200, 200], answers
        assert sorted(b["repeated"] for _, b in answers) == [False, True]
        assert phone.get(f"/api/tables/{code}")["version"] == version + 1
    table, rows = db_rows(db_path, code)
    assert sorted(r["request_id"] for r in rows) == sorted(f"twin-{n}" for n in range(10))
    assert table.version == 10
    assert_snapshot_is_fold(db_path, code)


def test_double_tap_applies_once(server):
    base, db_path = server
    code, phones = new_table(base, n_players=2)
    phone = phones[1]
    first = phone.act(code, "set_draw_pile", {"count": 9}, 0, rid="tap-1")
    second = phone.act(code, "set_draw_pile", {"count": 9}, 0, rid="tap-1")
    assert first[0] == 200 and first[1]["repeated"] is False and first[1]["version"] == 1
    assert second[0] == 200 and second[1]["repeated"] is True and second[1]["version"] == 1
    # A double-tapped undo is recognised as well, by its marker row.
    first = phone.undo(code, 1, rid="tap-undo")
    second = phone.undo(code, 1, rid="tap-undo")
    assert first[0] == 200 and first[1]["repeated"] is False and first[1]["version"] == 2
    assert second[0] == 200 and second[1]["repeated"] is True and second[1]["version"] == 2
    table, rows = db_rows(db_path, code)
    assert [(r["name"], r["request_id"]) for r in rows] == [("set_draw_pile", "tap-1"),
                                                            ("_undo", "tap-undo")]
    assert all(r["undone_at"] is not None for r in rows)
    assert table.version == 2 and table.snapshot["draw"] == 21


def test_undos_race_with_actions(server):
    base, db_path = server
    code, phones = new_table(base)
    actors, undoers = phones[:3], phones[3:]
    start = threading.Barrier(len(phones))
    done_acts, done_undos = [], []  # rids the server acknowledged
    lock = threading.Lock()

    def act(seat):
        phone, version = phones[seat], 0
        start.wait(10)
        deadline = time.monotonic() + THREAD_SECONDS
        for n in range(40):
            if time.monotonic() > deadline:
                break
            rid = f"act-{seat}-{n}"
            status, body = phone.act(code, "set_draw_pile", {"count": (seat + n) % 22}, version, seat, rid)
            if status == 200:
                with lock:
                    done_acts.append(rid)
            else:
                assert_refusal(status, body, version)
            version = body["version"]

    def undo(seat):
        phone = phones[seat]
        start.wait(10)
        deadline = time.monotonic() + THREAD_SECONDS
        for n in range(25):
            if time.monotonic() > deadline:
                break
            version = phone.get(f"/api/tables/{code}")["version"]
            rid = f"undo-{seat}-{n}"
            status, body = phone.undo(code, version, rid)
            if status == 200:
                with lock:
                    done_undos.append(rid)
            elif status == 400:
                assert body["error"].startswith("Nothing to undo"), body  # the log was empty
            else:
                assert_refusal(status, body, version)
            time.sleep(0.005)  # let the actors get some in between

    run_threads([lambda s=s: act(s) for s in range(len(actors))] +
                [lambda s=s: undo(s) for s in range(len(actors), len(phones))])
    print(f"\nundo race: actions accepted {len(done_acts)}, undos accepted {len(done_undos)}")
    assert done_acts and done_undos

    table, rows = db_rows(db_path, code)
    acts = [r for r in rows if r["name"] != "_undo"]
    markers = [r for r in rows if r["name"] == "_undo"]
    assert sorted(r["request_id"] for r in acts) == sorted(done_acts)
    assert sorted(r["request_id"] for r in markers) == sorted(done_undos)
    # Each undo took away a different action, and only those are undone.
    undid = [m["params"]["undid"] for m in markers]
    assert len(set(undid)) == len(undid)
    assert sorted(undid) == sorted(r["seq"] for r in acts if r["undone_at"] is not None)
    assert table.version == len(done_acts) + len(done_undos)
    _, live = assert_snapshot_is_fold(db_path, code)
    assert len(live) == len(done_acts) - len(done_undos)
    assert len(undoers[0].get(f"/api/tables/{code}/actions")["actions"]) == len(live)
