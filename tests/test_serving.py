"""Serving a whole club: live updates across processes, compression, stream keepalive and
lifetime, static caching, and the production server (gunicorn) with its configuration."""

import gzip
import os
import queue
import re
import runpy
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import brotli
import pytest

from companion import create_app, store
from companion.dialects import run_text
from companion.web.limits import limiter

from .helpers import act, create_tiny, take

ROOT = Path(__file__).resolve().parent.parent
WAIT = 10.0  # seconds any single wait may take before the test fails


def make_app(db_path, **config):
    settings = {"TESTING": True, "DATABASE": str(db_path), "SECRET_KEY": "test-key",
                "LAN_ADDRESS": "192.168.1.20", "STREAM_POLL_SECONDS": 0.02,
                "STREAM_KEEPALIVE_SECONDS": 0.1, "STREAM_MAX_SECONDS": 5.0,
                "CODE_GUESS_LIMIT": "100000 per minute"}
    settings.update(config)
    return create_app(settings)


class StreamReader:
    """Reads a test-client event stream in a thread, so the test can wait with a timeout.

    Only that thread touches the stream: it closes it, as a server does when a write to
    the phone fails, at the first keepalive after close() is asked for.
    """

    def __init__(self, response):
        self.response = response
        self.chunks = queue.Queue()
        self.text = ""
        self.ended = threading.Event()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        try:
            for chunk in self.response.response:
                self.chunks.put(chunk if isinstance(chunk, str) else chunk.decode())
                if self.stop.is_set():
                    break
        finally:
            self.response.close()
            self.ended.set()

    def until(self, pattern, timeout=WAIT):
        limit = time.monotonic() + timeout
        while not re.search(pattern, self.text):
            left = limit - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{pattern!r} never came; the stream said {self.text!r}")
            try:
                self.text += self.chunks.get(timeout=left)
            except queue.Empty:
                pass
        return self.text

    def rest(self):
        """Everything sent, once the stream has ended."""
        assert self.ended.wait(WAIT), "the stream never ended"
        self.thread.join(WAIT)
        while not self.chunks.empty():
            self.text += self.chunks.get_nowait()
        return self.text

    def close(self):
        self.stop.set()
        self.thread.join(WAIT)
        assert not self.thread.is_alive(), "the stream did not close"


# -- live updates across processes ---------------------------------------------------------------


def test_a_write_through_one_app_reaches_a_stream_held_by_another(database):
    """Two app instances on one database, as two worker processes are: each has its own
    hub, so only the watcher of the second can carry the first one's write."""
    path = database("shared")
    writer, holder = make_app(path), make_app(path)
    limiter.reset()
    phone = writer.test_client()
    code = create_tiny(phone)
    take(phone, code, 0)
    stream = StreamReader(holder.test_client().get(f"/t/{code}/events?v=0"))
    try:
        stream.until(r"retry: \d+")
        assert act(phone, code, "add", {"amount": 2}, version=0).status_code == 200
        stream.until(r"event: update\ndata: 1\n\n")
        assert act(phone, code, "add", {"amount": 1}, version=1).status_code == 200
        stream.until(r"event: update\ndata: 2\n\n")
    finally:
        stream.close()


def test_a_write_in_the_same_app_wakes_its_streams(database):
    app = make_app(database("db"))
    limiter.reset()
    client = app.test_client()
    code = create_tiny(client)
    take(client, code, 0)
    streams = [StreamReader(app.test_client().get(f"/t/{code}/events?v=0")) for _ in range(3)]
    try:
        for stream in streams:
            stream.until("retry:")
        assert app.extensions["forest_hub"].stream_count() == 3
        assert act(client, code, "add", {"amount": 1}, version=0).status_code == 200
        for stream in streams:
            stream.until(r"event: update\ndata: 1\n\n")
    finally:
        for stream in streams:
            stream.close()


def test_a_phone_reconnecting_with_an_old_version_is_told_the_current_one(database):
    app = make_app(database("db"))
    limiter.reset()
    client = app.test_client()
    code = create_tiny(client)
    take(client, code, 0)
    for version in range(3):
        assert act(client, code, "add", {"amount": 1}, version=version).status_code == 200
    stream = StreamReader(client.get(f"/t/{code}/events?v=1"))
    try:
        text = stream.until(r"event: update\ndata: \d+\n\n")
        assert "event: update\ndata: 3\n\n" in text
    finally:
        stream.close()


def test_a_change_stamped_in_the_past_still_reaches_the_stream(database, monkeypatch):
    """If the clock steps back, a write's updated_at can be older than the watcher's
    last look; the watcher's regular re-read of every watched table still finds it."""
    from companion import live

    monkeypatch.setattr(live, "SWEEP_SECONDS", 0.1)
    path = database("shared")
    holder = make_app(path)
    limiter.reset()
    code = create_tiny(holder.test_client())
    stream = StreamReader(holder.test_client().get(f"/t/{code}/events?v=0"))
    try:
        stream.until("retry:")
        conn = store.connect(str(path))  # another process, writing with a clock an hour slow
        run_text(conn, "UPDATE game_table SET version = 7, updated_at = updated_at - 3600 WHERE code = :code",
                 {"code": code})
        conn.close()
        stream.until(r"event: update\ndata: 7\n\n")
    finally:
        stream.close()


def test_the_watcher_reads_only_tables_written_since_it_last_looked(tmp_path):
    conn = store.connect(str(tmp_path / "db.sqlite"))
    store.init_schema(conn)
    plan = [row["detail"] for row in conn.execute(
        "EXPLAIN QUERY PLAN SELECT code, version, updated_at FROM game_table WHERE updated_at > ?", (0.0,))]
    assert any("game_table_updated" in step for step in plan), plan
    conn.close()


# -- stream keepalive and lifetime --------------------------------------------------------------------


def test_streams_opened_together_do_not_keep_alive_together(tmp_path, monkeypatch):
    from companion import live

    keepalive = 30.0  # far longer than the stream lives (1 s): only the random first one can come
    app = make_app(tmp_path / "db.sqlite", STREAM_KEEPALIVE_SECONDS=keepalive, STREAM_MAX_SECONDS=1.0)
    limiter.reset()
    client = app.test_client()
    code = create_tiny(client)
    drawn = []

    def uniform(low, high):
        drawn.append((low, high))
        return high - 0.05 if (low, high) == (0.0, keepalive) else high

    monkeypatch.setattr(live.random, "uniform", uniform)
    stream = StreamReader(client.get(f"/t/{code}/events?v=0"))
    try:
        stream.until(r": keepalive\n\n")  # after 0.05 s, not 30
    finally:
        stream.close()
    assert (0.0, keepalive) in drawn


def test_a_stream_sends_keepalives_and_ends_by_itself(tmp_path):
    app = make_app(tmp_path / "db.sqlite", STREAM_KEEPALIVE_SECONDS=0.05, STREAM_MAX_SECONDS=0.6)
    limiter.reset()
    client = app.test_client()
    code = create_tiny(client)
    stream = StreamReader(client.get(f"/t/{code}/events?v=0"))
    try:
        stream.rest()
    finally:
        stream.close()
    assert stream.text.startswith("retry: ")
    assert stream.text.count(": keepalive\n\n") >= 2
    assert "event: update" not in stream.text  # the phone was up to date all along
    assert app.extensions["forest_hub"].stream_count() == 0


def test_a_phone_that_goes_away_leaves_nothing_behind(database):
    app = make_app(database("db"))
    limiter.reset()
    client = app.test_client()
    code = create_tiny(client)
    hub = app.extensions["forest_hub"]
    stream = StreamReader(client.get(f"/t/{code}/events?v=0"))
    stream.until("retry:")
    assert hub.stream_count() == 1
    stream.close()  # what the server does when a write to a dead socket fails
    assert hub.stream_count() == 0
    # With no stream left the process's watcher stops too.
    limit = time.monotonic() + WAIT
    while hub._watcher is not None and time.monotonic() < limit:
        time.sleep(0.01)
    assert hub._watcher is None


@pytest.mark.skipif(not hasattr(socket, "TCP_USER_TIMEOUT"), reason="Linux only")
def test_a_stream_socket_gives_up_on_a_phone_that_vanished():
    from companion.live import notice_dead_peer

    with socket.create_server(("127.0.0.1", 0)) as server:
        with socket.create_connection(server.getsockname()):
            stream_socket, _ = server.accept()
            with stream_socket:
                notice_dead_peer({"gunicorn.socket": stream_socket}, keepalive=10.0)
                # Unacknowledged keepalives for 20 s and the kernel drops the connection.
                assert stream_socket.getsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT) == 20000
    notice_dead_peer({}, keepalive=10.0)  # other servers hand no socket: nothing to do


def test_the_keepalive_is_short_and_streams_are_recycled():
    app = create_app({"TESTING": True, "DATABASE": ":memory:", "SECRET_KEY": "k"})
    # A dead phone is noticed within two keepalives; a proxy's read timeout (60 s at nginx)
    # never ends a quiet stream; every phone reconnects now and then.
    assert app.config["STREAM_KEEPALIVE_SECONDS"] <= 30
    assert 60 <= app.config["STREAM_MAX_SECONDS"] <= 600
    assert app.config["STREAM_POLL_SECONDS"] <= 0.1


# -- compression and caching ------------------------------------------------------------------------


def test_pages_fragments_scripts_and_json_are_gzipped(app, client):
    code = create_tiny(client)
    take(client, code, 0)
    page = client.get("/")
    plain = page.get_data()
    packed = client.get("/", headers={"Accept-Encoding": "gzip, deflate"})
    assert packed.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in packed.headers["Vary"]
    assert gzip.decompress(packed.get_data()) == plain
    assert len(packed.get_data()) < len(plain) / 2

    for url, headers in [(f"/t/{code}", {}), (f"/t/{code}/view", {"HX-Request": "true"}),
                         ("/api/games", {})]:
        resp = client.get(url, headers={**headers, "Accept-Encoding": "gzip"})
        assert resp.status_code == 200, url
        assert resp.headers.get("Content-Encoding") == "gzip", url
        gzip.decompress(resp.get_data())

    html = plain.decode()
    for src in re.findall(r'(?:src|href)="(/(?:vendor|static)/[^"]+\.(?:js|css)\?v=[0-9a-f]+)"', html):
        resp = client.get(src, headers={"Accept-Encoding": "gzip"})
        assert resp.headers["Content-Encoding"] == "gzip", src
        raw = client.get(src).get_data()
        assert "Content-Encoding" not in client.get(src).headers
        assert gzip.decompress(resp.get_data()) == raw
        # Over HTTPS browsers offer brotli as well, and get it.
        resp = client.get(src, headers={"Accept-Encoding": "gzip, deflate, br"})
        assert resp.headers["Content-Encoding"] == "br"
        assert brotli.decompress(resp.get_data()) == raw


def test_the_event_stream_is_never_compressed(app, client):
    code = create_tiny(client)
    resp = client.get(f"/t/{code}/events?v=0", headers={"Accept-Encoding": "gzip, deflate, br"})
    try:
        assert resp.mimetype == "text/event-stream"
        assert "Content-Encoding" not in resp.headers
        first = next(iter(resp.response))
        assert (first if isinstance(first, str) else first.decode()).startswith("retry: ")
    finally:
        resp.close()


def test_fingerprinted_assets_are_cached_for_a_year_and_others_revalidate(client):
    html = client.get("/").get_data(as_text=True)
    css = re.search(r'href="(/static/app\.css\?v=[0-9a-f]+)"', html).group(1)
    resp = client.get(css)
    assert "max-age=31536000" in resp.headers["Cache-Control"]
    assert "immutable" in resp.headers["Cache-Control"]
    stale = client.get("/static/app.css?v=000000000000")
    assert stale.headers["Cache-Control"] == "no-cache"
    again = client.get(css, headers={"If-None-Match": resp.headers["ETag"]})
    assert again.status_code == 304 and not again.get_data()
    assert client.get("/static/nothing-here.css").status_code == 404
    assert client.get("/static/../app.py").status_code == 404


def test_live_updates_do_not_resend_the_seat_cookie(app, client):
    code = create_tiny(client)
    assert "Set-Cookie" in client.post(f"/api/tables/{code}/seats/0").headers  # a change: sent
    assert "Set-Cookie" not in client.get(f"/t/{code}/view", headers={"HX-Request": "true"}).headers
    resp = client.get(f"/t/{code}/events?v=0")
    assert "Set-Cookie" not in resp.headers
    resp.close()
    # A page load renews the cookie's sixty days.
    assert "Set-Cookie" in client.get(f"/t/{code}").headers


def test_every_form_of_a_page_leaves_its_request_id_to_the_page(app, client):
    """The page gives each form its own id when it is tapped (app.js): none is rendered."""
    code = create_tiny(client)
    take(client, code, 0)
    html = client.get(f"/t/{code}").get_data(as_text=True)
    rids = re.findall(r'name="rid" value="([^"]*)"', html)
    assert len(rids) >= 2 and set(rids) == {""}


def test_the_view_reads_only_the_log_lines_it_shows(database):
    conn = store.connect(database("db"))
    store.init_schema(conn)
    with store.Transaction(conn):
        table_id = store.insert_table(conn, "ABCD", "tiny", 1, {}, ["Ana"], "h", {})
        for n in range(10):
            store.append_action(conn, table_id, 0, "add", {"amount": n}, None)
        store.mark_undone(conn, table_id, 10)
    newest = store.live_actions(conn, table_id, newest=3)
    assert [row.seq for row in newest] == [7, 8, 9]
    assert [row.seq for row in store.live_actions(conn, table_id)] == list(range(1, 10))
    conn.close()


# -- the production server ---------------------------------------------------------------------------


@pytest.mark.parametrize("in_order", [False, True])
def test_a_worker_runs_one_request_at_a_time_but_any_number_of_streams(in_order):
    from companion.serving import RequestSlots

    running, most, lock = [0], [0], threading.Lock()
    inside = threading.Barrier(3, timeout=WAIT)  # two streams and the test meet here

    def inner_app(environ, start_response):
        if environ["PATH_INFO"].endswith("/events"):
            inside.wait()
            return [b"stream"]
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.01)  # long enough for the other threads to try to come in
        with lock:
            running[0] -= 1
        return [b"page"]

    gated = RequestSlots(inner_app, 1, in_order=in_order)
    answers = []

    def call(path):
        answers.append(gated({"PATH_INFO": path, "REQUEST_METHOD": "GET"}, None))

    threads = [threading.Thread(target=call, args=(p,)) for p in ["/t/ABCD/view"] * 6]
    streams = [threading.Thread(target=call, args=("/t/ABCD/events",)) for _ in range(2)]
    for thread in threads + streams:
        thread.start()
    inside.wait()  # both streams got in while pages were being served one by one
    for thread in threads + streams:
        thread.join(WAIT)
    assert most[0] == 1
    assert sorted(answers) == [[b"page"]] * 6 + [[b"stream"]] * 2


def test_an_answer_says_how_long_it_waited_for_its_slot_and_ran(monkeypatch):
    from companion import serving

    clock = iter([10.0, 10.25, 10.3])  # asked, slot taken, answer ready
    monkeypatch.setattr(serving.time, "perf_counter", lambda: next(clock))

    def inner_app(environ, start_response):
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"page"]

    sent = {}
    body = serving.RequestSlots(inner_app, 1, in_order=True)(
        {"PATH_INFO": "/t/ABCD/act", "REQUEST_METHOD": "POST"},
        lambda status, headers, exc_info=None: sent.update(headers))
    assert body == [b"page"]
    # A client takes both from its round trip: the rest is the time its request sat unread.
    assert sent["Server-Timing"] == "slot;dur=250.0, app;dur=50.0"


def test_a_freed_slot_goes_to_the_request_that_waited_not_to_a_newcomer():
    from companion.serving import RequestSlots

    gate = RequestSlots(None, 1, in_order=True).gate
    served = []

    def waiter():
        with gate:
            served.append("waited")

    gate.__enter__()  # a request is running
    queued = threading.Thread(target=waiter)
    queued.start()
    limit = time.monotonic() + WAIT
    while not gate.waiting:  # until the waiter stands in line
        assert time.monotonic() < limit and queued.is_alive()
        time.sleep(0.001)
    gate.__exit__(None, None, None)
    # A newcomer asks the very moment the slot is freed, before the waiter has run again:
    # a plain semaphore lets it in first, and at saturation some requests then waited seconds.
    with gate:
        served.append("newcomer")
    queued.join(WAIT)
    assert served == ["waited", "newcomer"]


def test_a_request_given_up_while_waiting_does_not_keep_the_slot(monkeypatch):
    from companion import serving

    gate = serving.InOrder(1)
    gate.__enter__()  # a request is running

    class GivesUp:
        """A waiter's turn that is killed in the line instead of blocking."""

        def acquire(self, blocking=True):
            if blocking and self.taken:
                raise KeyboardInterrupt
            self.taken = True
            return True

        taken = False

    monkeypatch.setattr(serving.threading, "Lock", GivesUp)
    with pytest.raises(KeyboardInterrupt):
        gate.__enter__()
    monkeypatch.undo()
    assert not gate.waiting  # it left the line
    gate.__exit__(None, None, None)
    assert gate.free == 1  # the slot is free again, not handed to the one who left


def test_under_gevent_the_slot_is_handed_over_in_order():
    done = subprocess.run([sys.executable, "-c", (
        "from gevent import monkey; monkey.patch_all()\n"
        "from companion.serving import InOrder, RequestSlots\n"
        "assert isinstance(RequestSlots(None, 1).gate, InOrder)\n")],
        cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    from companion.serving import InOrder, RequestSlots
    assert not isinstance(RequestSlots(None, 1).gate, InOrder)  # threads: the plain semaphore


TURNS_APP = """
import os
from gevent import monkey
from companion.serving import RequestSlots

blocking_sleep = monkey.get_original("time", "sleep")
served = []


def inner_app(environ, start_response):
    path = environ["PATH_INFO"].strip("/")
    body = b"ok"
    if path == "order":
        body = " ".join(served).encode()
    elif path != "warm":
        served.append(path)
        if path == "a1":
            # A request's work blocks the worker, as SQLite's calls do: until connection b's
            # request is surely waiting in its socket.
            open(os.environ["TURNS_SENT"] + ".a1", "w").close()
            while not os.path.exists(os.environ["TURNS_SENT"]):
                blocking_sleep(0.005)
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
    return [body]


app = RequestSlots(inner_app, 1)
"""


def _answers(sock, count: int) -> list[bytes]:
    """The bodies of the next `count` answers on a kept-alive connection."""
    data, bodies, limit = b"", [], time.monotonic() + WAIT
    while len(bodies) < count:
        head, found, rest = data.partition(b"\r\n\r\n")
        length = re.search(rb"Content-Length: (\d+)", head)
        if found and length and len(rest) >= int(length[1]):
            bodies.append(rest[:int(length[1])])
            data = rest[int(length[1]):]
            continue
        assert time.monotonic() < limit, f"{count} answers never came: {data!r}"
        chunk = sock.recv(65536)
        assert chunk, f"the connection closed after {data!r}"
        data += chunk
    return bodies


def test_under_gevent_a_kept_alive_connection_waits_its_turn(tmp_path):
    """A gevent worker reads a kept-alive connection's next request as soon as its answer
    is sent, without going back to the hub, whenever that request is already in the socket:
    a phone acting back to back was served dozens of times in a row while the other
    connections' requests sat unread (bench/club.py's throughput: p99 800 ms, worst 3 s).
    Such a request waits until the hub has polled the sockets once and served those ready."""
    (tmp_path / "turns_app.py").write_text(TURNS_APP)
    sent = tmp_path / "b-sent"
    port = _free_port()
    env = dict(os.environ, TURNS_SENT=str(sent), PYTHONPATH=os.pathsep.join([str(ROOT), str(tmp_path)]))
    log = open(tmp_path / "gunicorn.log", "wb")
    # Run from tmp_path: no gunicorn.conf.py there, one gevent worker with its defaults.
    proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "--worker-class", "gevent", "--workers", "1",
                             "--bind", f"127.0.0.1:{port}", "--keep-alive", "5", "turns_app:app"],
                            cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL)
    get = "GET /{} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".format
    try:
        limit = time.monotonic() + 30
        while True:
            assert proc.poll() is None, (tmp_path / "gunicorn.log").read_text()
            try:
                a = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
                break
            except OSError:
                assert time.monotonic() < limit, "gunicorn did not start"
                time.sleep(0.1)
        with a, socket.create_connection(("127.0.0.1", port), timeout=WAIT) as b:
            for sock in (a, b):  # both connections kept alive and idle, as phones between taps
                sock.sendall(get("warm").encode())
                _answers(sock, 1)
            # Phone a's next requests are all in its socket at once (pipelined), so each is
            # there the moment the one before it is answered; b's comes while a1 runs.
            a.sendall((get("a1") + get("a2") + get("a3")).encode())
            limit = time.monotonic() + WAIT
            while not Path(f"{sent}.a1").exists():  # a1 is being served
                assert time.monotonic() < limit, "a1 never came"
                time.sleep(0.005)
            b.sendall(get("b1").encode())
            sent.touch()
            _answers(a, 3)
            _answers(b, 1)
            b.sendall(get("order").encode())
            order = _answers(b, 1)[0].decode()
        assert order == "a1 b1 a2 a3"
    finally:
        _stop(proc, log)


def test_the_production_app_settles_its_memory_before_forking(tmp_path):
    import gc

    from companion.serving import settle

    from companion.web import assets

    app = make_app(tmp_path / "db.sqlite")
    threshold = gc.get_threshold()
    assets._load.cache_clear()
    try:
        settle(app)
        # Every template compiled, every asset compressed (no phone's first page waits for
        # zopfli), and the app's objects out of the collector's walk.
        assert gc.get_freeze_count() > 0
        assert len(app.jinja_env.cache) == len(app.jinja_env.list_templates(extensions=["html"]))
        loaded = assets._load.cache_info().currsize
        assert loaded == len(assets.VENDOR_FILES) + len(list((ROOT / "static").iterdir()))
        # The whole heap (the streams' objects) is walked a tenth as often; young objects as before.
        assert gc.get_threshold() == (threshold[0], threshold[1], 10 * threshold[2])
    finally:
        gc.unfreeze()  # this test process goes on as before
        gc.set_threshold(*threshold)


def test_the_production_config_loads(tmp_path):
    settings = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    assert settings["wsgi_app"] == "companion.serving:production_app()"
    assert settings["workers"] >= 2
    # A worker holds thousands of open streams: gevent greenlets by default.
    assert settings["worker_class"] == "gevent"
    assert settings["worker_connections"] >= 2000
    assert settings["preload_app"] is False  # gevent patches the library before the app loads
    # A phone's connection stays open between its taps (a minute apart, or more), instead of
    # a new one per tap; one setting, as the others.
    assert settings["keepalive"] >= 60
    # --check-config loads the app: its database and key go to a temporary folder, never the checkout.
    env = dict(os.environ, FOREST_TABLE_WORKERS="3", FOREST_TABLE_PORT="8123",
               FOREST_TABLE_DATABASE=str(tmp_path / "check.sqlite"), FOREST_TABLE_SECRET_KEY="test-key")
    done = subprocess.run([sys.executable, "-m", "gunicorn", "--config", "gunicorn.conf.py", "--print-config"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    printed = dict(re.findall(r"^(\w+)\s+= (.*)$", done.stdout, re.M))
    assert printed["workers"] == "3"
    assert printed["bind"] == "['0.0.0.0:8123']"
    assert printed["keepalive"] == str(settings["keepalive"])
    env["FOREST_TABLE_KEEPALIVE"] = "20"
    done = subprocess.run([sys.executable, "-m", "gunicorn", "--config", "gunicorn.conf.py", "--print-config"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert re.search(r"^keepalive\s+= 20$", done.stdout, re.M), done.stdout
    del env["FOREST_TABLE_KEEPALIVE"]
    # The other kind measured stays one setting away, sized for streams as well.
    env["FOREST_TABLE_WORKER_CLASS"] = "gthread"
    done = subprocess.run([sys.executable, "-m", "gunicorn", "--config", "gunicorn.conf.py", "--print-config"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    printed = dict(re.findall(r"^(\w+)\s+= (.*)$", done.stdout, re.M))
    assert printed["worker_class"] == "gthread" and printed["preload_app"] == "True"
    assert int(printed["threads"]) >= 2000
    assert int(printed["threads"]) < int(printed["worker_connections"])
    check = subprocess.run([sys.executable, "-m", "gunicorn", "--config", "gunicorn.conf.py", "--check-config"],
                           cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert check.returncode == 0, check.stderr


def _stop(proc, log) -> None:
    """End a server the test started, and close its log."""
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)
    log.close()


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _http(port, request: bytes, cut: bool = False) -> tuple[str, bytes]:
    """One request on a fresh connection: (head, body) of the answer. `cut`: the phone
    stops sending after `request`, as if its connection broke mid-body."""
    with socket.create_connection(("127.0.0.1", port), timeout=WAIT) as sock:
        sock.sendall(request)
        if cut:
            sock.shutdown(socket.SHUT_WR)
        data = b""
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return head.decode("latin-1"), body


@pytest.fixture(params=["gevent", "gthread"])
def gunicorn_server(request, tmp_path):
    port = _free_port()
    db_path = tmp_path / "club.sqlite"
    env = dict(os.environ, FOREST_TABLE_DATABASE=str(db_path), FOREST_TABLE_SECRET_KEY="test-key",
               FOREST_TABLE_HOST="127.0.0.1", FOREST_TABLE_PORT=str(port), FOREST_TABLE_WORKERS="2",
               FOREST_TABLE_WORKER_CLASS=request.param, FOREST_TABLE_THREADS="50",
               FOREST_TABLE_WORKER_CONNECTIONS="100", FOREST_TABLE_STREAM_POLL_SECONDS="0.02",
               # Streams whose phone left end at the next keepalive, so the server stops at once.
               FOREST_TABLE_STREAM_KEEPALIVE_SECONDS="0.2",
               FOREST_TABLE_LOG_LEVEL="warning")
    log = open(tmp_path / "gunicorn.log", "wb")
    proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "--config", "gunicorn.conf.py"], cwd=ROOT,
                            env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        limit = time.monotonic() + 30
        while True:
            assert proc.poll() is None, (tmp_path / "gunicorn.log").read_text()
            try:
                head, _ = _http(port, b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                if head.startswith("HTTP/1.1 200"):
                    break
            except OSError:
                pass
            assert time.monotonic() < limit, "gunicorn did not start"
            time.sleep(0.1)
        yield port, db_path
    finally:
        _stop(proc, log)


def test_gunicorn_delivers_a_write_made_by_another_process(gunicorn_server):
    port, db_path = gunicorn_server
    # The writer is this test process: only the workers' watchers can tell their streams.
    writer = make_app(db_path)
    limiter.reset()
    phone = writer.test_client()
    resp = phone.post("/api/tables", json={"game": "wicked-forest", "players": ["Ana", "Ben", "Cara"],
                                           "options": {"first_leader": "0"}})
    assert resp.status_code == 201
    code = resp.get_json()["code"]
    take(phone, code, 0)

    streams = []
    try:
        for _ in range(4):  # a few, so that both workers are likely to hold some
            sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
            sock.sendall(f"GET /t/{code}/events?v=0 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                         "Accept-Encoding: gzip, deflate\r\n\r\n".encode())
            streams.append([sock, b""])
        for entry in streams:
            _read_until(entry, b"retry:")
            head = entry[1].split(b"\r\n\r\n")[0].decode("latin-1").lower()
            assert "content-type: text/event-stream" in head
            assert "content-encoding" not in head  # never compressed, even when asked
        assert act(phone, code, "set_draw_pile", {"count": 12}, version=0).status_code == 200
        for entry in streams:
            _read_until(entry, b"event: update\ndata: 1\n\n")
    finally:
        for sock, _ in streams:
            sock.close()

    # The same server answers pages gzipped.
    head, body = _http(port, f"GET /t/{code} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: gzip\r\n"
                             "Connection: close\r\n\r\n".encode())
    assert head.startswith("HTTP/1.1 200") and "content-encoding: gzip" in head.lower()
    assert b"data-version" in gzip.decompress(body)


def _read_until(entry, marker: bytes) -> None:
    sock, _ = entry
    limit = time.monotonic() + WAIT
    while marker not in entry[1]:
        assert time.monotonic() < limit, f"{marker!r} never came: {entry[1]!r}"
        chunk = sock.recv(4096)
        assert chunk, f"the stream closed before {marker!r}: {entry[1]!r}"
        entry[1] += chunk


BROKEN_CHUNKED_BODIES = [
    (b"zz\r\n{}\r\n0\r\n\r\n", False),  # a chunk size that is no number
    (b"2\r\n{}xx\r\n0\r\n\r\n", False),  # a chunk longer than it said
    (b"40\r\n{", True),  # the connection cut in the middle of a chunk
]


def test_gunicorn_answers_a_broken_chunked_body_with_400_and_changes_nothing(gunicorn_server):
    port, db_path = gunicorn_server
    for url, content_type, body_type in [("/api/tables", "application/json", "json"),
                                         ("/new/wicked-forest", "application/x-www-form-urlencoded", "html"),
                                         ("/history/names/merge", "application/x-www-form-urlencoded", "html")]:
        for body, cut in BROKEN_CHUNKED_BODIES:
            head, answer = _http(port, f"POST {url} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                                       f"Origin: http://127.0.0.1:{port}\r\nContent-Type: {content_type}\r\n"
                                       "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n".encode()
                                 + body, cut=cut)
            assert head.startswith("HTTP/1.1 400"), (url, body, head)
            assert b"cut off or malformed" in answer, answer
            if body_type == "json":
                assert "application/json" in head.lower()
    conn = store.connect(str(db_path))
    try:
        assert conn.execute("SELECT COUNT(*) FROM game_table").fetchone()[0] == 0
        assert conn.execute("SELECT COUNT(*) FROM name_merge").fetchone()[0] == 0
    finally:
        conn.close()
    # The same server still answers.
    head, _ = _http(port, f"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
    assert head.startswith("HTTP/1.1 200")


@pytest.fixture
def tcp_pair():
    """A real loopback TCP connection: (the phone's end, the server's end)."""
    listener = socket.create_server(("127.0.0.1", 0))
    phone = socket.create_connection(listener.getsockname())
    server_side, _ = listener.accept()
    yield phone, server_side
    for sock in (phone, server_side, listener):
        sock.close()


def _cork_of(sock):
    return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_CORK)


@pytest.mark.skipif(not hasattr(socket, "TCP_CORK"), reason="TCP_CORK is Linux's")
@pytest.mark.parametrize("ending", ["written", "app failed"])
@pytest.mark.parametrize("wrapper", ["CorkedAnswers", "RequestSlots"])
def test_an_answer_goes_out_corked_so_its_headers_and_body_leave_as_one_segment(tcp_pair, ending, wrapper):
    """gunicorn writes an answer's headers and its body apart on a socket that sends at once:
    two packets (and on loopback two passes through the receiving side) for one answer. The
    socket is corked while the app runs and uncorked when the server has written the answer
    (it closes the answer then), or at once when the app fails."""
    from companion import serving

    _, server_side = tcp_pair
    seen = []

    def inner_app(environ, start_response):
        seen.append(_cork_of(server_side))
        if ending == "app failed":
            raise RuntimeError("the render failed")
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"page"]

    corked = serving.CorkedAnswers(inner_app) if wrapper == "CorkedAnswers" \
        else serving.RequestSlots(inner_app, 1, in_order=True)
    environ = {"PATH_INFO": "/t/ABCD/act", "REQUEST_METHOD": "POST", "SERVER_PROTOCOL": "HTTP/1.1",
               "gunicorn.socket": server_side}
    if ending == "app failed":
        with pytest.raises(RuntimeError):
            corked(environ, lambda *args: None)
        assert seen == [1] and _cork_of(server_side) == 0
    else:
        answer = corked(environ, lambda *args: None)
        assert list(answer) == [b"page"]
        assert seen == [1] and _cork_of(server_side) == 1  # still corked while the server writes
        answer.close()
        assert _cork_of(server_side) == 0


@pytest.mark.skipif(not hasattr(socket, "TCP_CORK"), reason="TCP_CORK is Linux's")
def test_a_stream_a_file_and_http2_are_not_corked(tcp_pair):
    """A stream's events go out as they come; a file answer must reach the server as it is
    (it sends a `wsgi.file_wrapper` with sendfile, recognising it by its class); under
    HTTP/2 the socket carries other requests' frames too."""
    from companion.serving import CorkedAnswers

    _, server_side = tcp_pair

    class FileWrapper:
        def __init__(self, handle):
            self.handle = handle

        def __iter__(self):
            return iter([self.handle])

    seen = []

    def inner_app(environ, start_response):
        seen.append(_cork_of(server_side))
        start_response("200 OK", [("Content-Type", "text/plain")])
        return FileWrapper(b"file") if environ["PATH_INFO"] == "/file" else [b"body"]

    corked = CorkedAnswers(inner_app)

    def ask(path, protocol="HTTP/1.1"):
        return corked({"PATH_INFO": path, "REQUEST_METHOD": "GET", "SERVER_PROTOCOL": protocol,
                       "gunicorn.socket": server_side, "wsgi.file_wrapper": FileWrapper},
                      lambda *args: None)

    assert ask("/t/ABCD/events") == [b"body"] and seen == [0]
    assert ask("/t/ABCD/view", "HTTP/2.0") == [b"body"] and seen == [0, 0]
    answer = ask("/file")
    assert isinstance(answer, FileWrapper)  # handed on as it is, for sendfile
    assert seen == [0, 0, 1] and _cork_of(server_side) == 0  # and the socket uncorked at once


def test_the_production_app_corks_its_answers_with_or_without_request_slots(monkeypatch, tmp_path):
    from companion import serving

    # Its settings from the environment, as gunicorn gives them; nothing in the checkout.
    monkeypatch.setenv("FOREST_TABLE_DATABASE", str(tmp_path / "db.sqlite"))
    monkeypatch.setenv("FOREST_TABLE_SECRET_KEY", "test-key")
    monkeypatch.setenv("FOREST_TABLE_LAN_ADDRESS", "192.168.1.20")
    for slots in ("1", "0"):
        monkeypatch.setenv("FOREST_TABLE_REQUEST_SLOTS", slots)
        monkeypatch.setattr(serving, "settle", lambda app: None)
        app = serving.production_app()
        # One wrapper either way: a stream's request passing two left each stream heavier.
        assert isinstance(app.wsgi_app, serving.CorkedAnswers)
        assert isinstance(app.wsgi_app, serving.RequestSlots) == (slots == "1")
        assert not isinstance(app.wsgi_app.wsgi_app, serving.CorkedAnswers)
