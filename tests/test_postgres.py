"""What a shared database adds: table codes that grow, the dialect, the write lock,
PostgreSQL down at start or lost mid-game, the copy of a SQLite database into PostgreSQL,
and its backup. (Rate limits counted over two servers: tests/test_two_servers.py.)"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest

from companion import PROJECT_ROOT, create_app, pgstore, store, tables
from companion.games import get_game

from .helpers import act, create_tiny, take

UNKNOWN = "ZZZZ"
WAIT = 15.0


def make_app(database, **config):
    return create_app({"TESTING": True, "DATABASE": database, "SECRET_KEY": "k",
                       "LAN_ADDRESS": "192.168.1.20", **config})


# -- table codes -------------------------------------------------------------------------------


def test_new_codes_grow_when_the_short_ones_are_taken_and_old_ones_keep_working(conn, monkeypatch):
    monkeypatch.setattr(tables, "CODE_ALPHABET", "A")  # one code of each length: AAAA, AAAAA, ...
    codes = [tables.create_table(conn, "tiny", ["Ana", "Ben"], {})[0] for _ in range(3)]
    assert codes == ["AAAA", "AAAAA", "AAAAAA"]
    with pytest.raises(tables.TableError, match="No free table code"):
        tables.create_table(conn, "tiny", ["Ana", "Ben"], {})
    assert [tables.load(conn, code).code for code in codes] == codes


def test_a_longer_code_is_typed_and_joined_like_a_short_one(client, monkeypatch):
    monkeypatch.setattr(tables, "CODE_LENGTH", 6)
    code = create_tiny(client)
    assert len(code) == 6
    assert client.get(f"/join?code={code.lower()}").status_code in (200, 302, 303)
    assert client.get(f"/t/{code}").status_code == 200


# -- the dialect ---------------------------------------------------------------------------------


def test_each_statement_is_compiled_by_its_dialect_once():
    from companion.dialects import POSTGRESQL, SQLITE
    finished = store._finished
    assert finished.compiled(POSTGRESQL) is finished.compiled(POSTGRESQL)  # kept, not rebuilt
    pg, lite = finished.compiled(POSTGRESQL), finished.compiled(SQLITE)
    assert "CAST(game_table.snapshot AS JSON) ->> %(param_1)s" in pg.text and "?" not in pg.text
    assert "JSON_EXTRACT(game_table.snapshot, :param_1)" in lite.text
    assert lite.fixed["param_1"] == '$."phase"' and pg.fixed["param_1"] == "phase"
    assert "IS DISTINCT FROM" in store._to_record.compiled(POSTGRESQL).text
    assert "IS NOT game_table.version" in store._to_record.compiled(SQLITE).text
    assert store._insert_campaign.compiled(SQLITE).text.endswith("RETURNING id")
    assert "lower(campaign.name) = lower(%(name)s)" in store._name_taken.compiled(POSTGRESQL).text
    assert "pg_notify" in store._save_snapshot.compiled(POSTGRESQL).text
    assert "pg_notify" not in store._save_snapshot.compiled(SQLITE).text
    assert pgstore.safe_url("postgresql://app:secret@db.example:5432/forest") == (
        "postgresql://app:***@db.example:5432/forest")


# -- PostgreSQL down at start, lost mid-game ------------------------------------------------------


def test_postgresql_down_at_start_is_a_clear_message_and_exit(tmp_path):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # nothing listens there once it is closed
    env = {"PATH": "/usr/bin:/bin", "FOREST_TABLE_SECRET_KEY": "k",
           "FOREST_TABLE_DATABASE_URL": f"postgresql://forest:hunter2@127.0.0.1:{port}/forest"}
    done = subprocess.run([sys.executable, "app.py", "--port", "0"], cwd=PROJECT_ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "Forest Table cannot start: PostgreSQL at" in done.stderr, done.stderr
    assert f"127.0.0.1:{port}" in done.stderr and "hunter2" not in done.stderr
    assert "Traceback" not in done.stderr


class CuttableLink:
    """A TCP relay between the app and PostgreSQL that the test can cut and restore: the
    database server is lost to the app (connections dropped, new ones refused), then back."""

    def __init__(self, target_port: int):
        self.target_port = target_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.up = True
        self.sockets: list[socket.socket] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if not self.up:
                client.close()  # the server is gone: the app's connect fails at once
                continue
            upstream = socket.create_connection(("127.0.0.1", self.target_port))
            with self.lock:
                self.sockets += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pump(source, sink):
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def cut(self):
        self.up = False
        with self.lock:
            for sock in self.sockets:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            self.sockets.clear()

    def restore(self):
        self.up = True

    def close(self):
        self.cut()
        self.listener.close()


@pytest.fixture
def linked(postgres_database, monkeypatch):
    """(the database URL through a cuttable link, the link, the direct URL)."""
    monkeypatch.setattr(pgstore, "POOL_TIMEOUT", 0.5)
    direct = postgres_database("lost")
    parts = urlsplit(direct)
    link = CuttableLink(parts.port)
    through = urlunsplit(parts._replace(netloc=parts.netloc.replace(f":{parts.port}", f":{link.port}")))
    yield through, link, direct
    link.close()


def until_answered(fn, status=200):
    limit = time.monotonic() + WAIT
    while True:
        resp = fn()
        if resp.status_code == status:
            return resp
        assert resp.status_code == 503, (resp.status_code, resp.get_data(as_text=True))
        assert time.monotonic() < limit, "the app did not recover once PostgreSQL was back"


def version_in_database(url, code):
    conn = store.connect(url)
    try:
        table = store.get_table(conn, code)
        return table.version, len(store.live_actions(conn, table.id))
    finally:
        conn.close()


def test_postgresql_lost_mid_game_answers_503_and_recovers_by_itself(linked):
    through, link, direct = linked
    app = make_app(through)
    phone = app.test_client()
    code = create_tiny(phone)
    take(phone, code, 0)
    assert act(phone, code, "add", {"amount": 2}, version=0).status_code == 200

    link.cut()
    resp = phone.post(f"/api/tables/{code}/actions",
                      json={"action": "add", "params": {"amount": 5}, "version": 1, "request_id": "r-lost"})
    assert resp.status_code == 503
    assert "cannot be reached" in resp.get_json()["error"] and "nothing was changed" in resp.get_json()["error"]
    page = phone.get(f"/t/{code}")
    assert page.status_code == 503 and "cannot be reached" in page.get_data(as_text=True)
    fragment = phone.get(f"/t/{code}/view", headers={"HX-Request": "true"})
    assert fragment.status_code == 503 and fragment.headers["HX-Reswap"] == "none"
    assert "cannot be reached" in json.loads(fragment.headers["HX-Trigger"])["forest-notice"]["message"]

    link.restore()
    # The phone retries its request: it is applied now, once.
    retry = lambda: phone.post(f"/api/tables/{code}/actions",  # noqa: E731
                               json={"action": "add", "params": {"amount": 5}, "version": 1,
                                     "request_id": "r-lost"})
    assert until_answered(retry).get_json()["version"] == 2
    assert retry().get_json()["version"] == 2
    assert version_in_database(direct, code) == (2, 2)


def wait_for(condition, what):
    limit = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < limit, what
        time.sleep(0.02)


def test_while_postgresql_is_lost_requests_do_not_wait_for_it_and_it_is_back_with_the_server(linked, monkeypatch):
    """Once the server is found lost, every request is refused 503 without waiting for the
    pool (which kept each worker on one request for seconds); a background probe finds the
    server back and the next request gets a fresh pool."""
    through, link, direct = linked
    monkeypatch.setattr(pgstore, "POOL_TIMEOUT", 3.0)  # as shipped
    app = make_app(through)
    phone = app.test_client()
    code = create_tiny(phone)
    take(phone, code, 0)
    assert act(phone, code, "add", {"amount": 2}, version=0).status_code == 200
    breaker = pgstore.breaker(through)
    old_pool = pgstore._pools[(os.getpid(), through)]
    assert not breaker.is_open

    link.cut()
    assert phone.get(f"/api/tables/{code}").status_code == 503
    assert breaker.is_open
    real_connect = pgstore.QueuePool.connect

    def no_waiting(*args, **kwargs):
        raise AssertionError("a request waited for the pool while the server was known lost")

    monkeypatch.setattr(pgstore.QueuePool, "connect", no_waiting)
    for url in (f"/api/tables/{code}", f"/t/{code}", "/", f"/api/tables/{UNKNOWN}"):
        resp = phone.get(url)
        assert resp.status_code == 503 and resp.headers["Retry-After"] == "2", url
    refused = phone.post(f"/api/tables/{code}/actions", json={
        "action": "add", "params": {"amount": 5}, "version": 1, "request_id": "r-out"})
    assert refused.status_code == 503 and "nothing was changed" in refused.get_json()["error"]
    # The probe keeps trying while the server is away, and the breaker stays open.
    probes = breaker.probes
    wait_for(lambda: breaker.probes >= probes + 2, "the probe stopped trying")
    assert breaker.is_open
    monkeypatch.setattr(pgstore.QueuePool, "connect", real_connect)

    link.restore()
    wait_for(lambda: not breaker.is_open, "the probe did not find the server back")
    retry = phone.post(f"/api/tables/{code}/actions", json={
        "action": "add", "params": {"amount": 5}, "version": 1, "request_id": "r-out"})
    assert retry.status_code == 200 and retry.get_json()["version"] == 2
    assert pgstore._pools[(os.getpid(), through)] is not old_pool
    assert version_in_database(direct, code) == (2, 2)


def test_a_write_whose_database_is_lost_mid_transaction_is_not_half_applied(linked, monkeypatch):
    through, link, direct = linked
    app = make_app(through)
    phone = app.test_client()
    code = create_tiny(phone)
    take(phone, code, 0)
    real_append = store.append_action

    def append_then_lose_the_server(*args, **kwargs):
        seq = real_append(*args, **kwargs)
        link.cut()  # the row is written, the version not yet bumped, nothing committed
        return seq

    monkeypatch.setattr(store, "append_action", append_then_lose_the_server)
    resp = phone.post(f"/api/tables/{code}/actions",
                      json={"action": "add", "params": {"amount": 5}, "version": 0, "request_id": "r-half"})
    assert resp.status_code == 503
    assert version_in_database(direct, code) == (0, 0)  # neither the row nor the version

    monkeypatch.setattr(store, "append_action", real_append)
    link.restore()
    retry = lambda: phone.post(f"/api/tables/{code}/actions",  # noqa: E731
                               json={"action": "add", "params": {"amount": 5}, "version": 0,
                                     "request_id": "r-half"})
    assert until_answered(retry).get_json()["version"] == 1
    assert version_in_database(direct, code) == (1, 1)


# -- moving a SQLite database into PostgreSQL ------------------------------------------------------


def without_clock(table: dict) -> dict:
    """A table's JSON less the running time, which moves on between two reads."""
    table.pop("clock", None)
    return table


def test_copy_to_postgres_moves_every_table_and_the_game_goes_on(tmp_path, postgres_database):
    sqlite_file = str(tmp_path / "old.sqlite")
    old = make_app(sqlite_file)
    phone = old.test_client()
    code = create_tiny(phone)
    take(phone, code, 0)
    for version in range(3):
        assert act(phone, code, "add", {"amount": version + 1}, version=version).status_code == 200
    assert phone.post("/history/names/merge", data={"alias": "Ana", "person": "Anna"}).status_code in (200, 303)
    before = without_clock(phone.get(f"/api/tables/{code}").get_json())

    url = postgres_database("moved")
    done = old.test_cli_runner().invoke(args=["copy-to-postgres", sqlite_file, url])
    assert done.exit_code == 0, done.output
    assert "1 game_table" in done.output and "3 action" in done.output

    new = make_app(url)
    moved = new.test_client()
    moved.set_cookie("forest_table", phone.get_cookie("forest_table").value)  # the same phone
    assert without_clock(moved.get(f"/api/tables/{code}").get_json()) == before
    assert moved.get(f"/api/tables/{code}/actions").get_json() == phone.get(f"/api/tables/{code}/actions").get_json()
    assert act(moved, code, "add", {"amount": 1}, version=3).status_code == 200
    assert create_tiny(moved) != code  # new rows get new ids after the copied ones

    again = old.test_cli_runner().invoke(args=["copy-to-postgres", sqlite_file, url])
    assert again.exit_code != 0 and "already holds data" in again.output


def test_copy_to_postgres_refuses_what_is_not_a_postgresql_url(tmp_path):
    sqlite_file = str(tmp_path / "old.sqlite")
    app = make_app(sqlite_file)
    done = app.test_cli_runner().invoke(args=["copy-to-postgres", sqlite_file, str(tmp_path / "x.sqlite")])
    assert done.exit_code != 0 and "postgresql:// URL" in done.output


def test_the_write_lock_makes_a_second_writer_wait(postgres_database):
    """Two connections (two app servers): the second write starts only after the first commits."""
    url = postgres_database("lock")
    first, second = store.connect(url), store.connect(url)
    store.init_schema(first)
    order = []
    try:
        with store.Transaction(first):
            blocked = threading.Thread(target=lambda: (store.Transaction(second).__enter__(),
                                                       order.append("second in"),
                                                       second.raw.execute("COMMIT")))
            blocked.start()
            # The second writer is waiting on the lock, as pg_locks shows.
            limit = time.monotonic() + WAIT
            with psycopg.connect(url, autocommit=True) as watcher:
                while not watcher.execute("SELECT 1 FROM pg_locks WHERE locktype = 'advisory'"
                                          " AND NOT granted").fetchone():
                    assert time.monotonic() < limit
            order.append("first commits")
        blocked.join(WAIT)
        assert order == ["first commits", "second in"]
    finally:
        first.close()
        second.close()


def writers_in_turn(url, first_code, second_code):
    """Who got in first when a write at `second_code` starts while one at `first_code` is open."""
    first, second = store.connect(url), store.connect(url)
    order = []

    def second_writer():
        with store.Transaction(second, second_code):
            order.append("second in")

    try:
        with store.Transaction(first, first_code):
            other = threading.Thread(target=second_writer)
            other.start()
            # Either the second writer gets in, or pg_locks shows it waiting on a lock.
            limit = time.monotonic() + WAIT
            with psycopg.connect(url, autocommit=True) as watcher:
                while not order and not watcher.execute(
                        "SELECT 1 FROM pg_locks WHERE pid = %s AND NOT granted",
                        (second.raw.info.backend_pid,)).fetchone():
                    assert time.monotonic() < limit
            order.append("first commits")
        other.join(WAIT)
        return order
    finally:
        first.close()
        second.close()


def test_moves_at_different_tables_do_not_wait_for_each_other(postgres_database):
    url = postgres_database("tablelocks")
    # Two servers writing two tables: both in at once; writing one table: one after the other.
    assert writers_in_turn(url, "ABCD", "EFGH") == ["second in", "first commits"]
    assert writers_in_turn(url, "ABCD", "abcd") == ["first commits", "second in"]
    # A write not tied to one table (a new table, the history) waits for every table's writer,
    # and every table's writer waits for it.
    assert writers_in_turn(url, "ABCD", None) == ["first commits", "second in"]
    assert writers_in_turn(url, None, "ABCD") == ["first commits", "second in"]


# -- backup ------------------------------------------------------------------------------------------


def _pg_tool(name: str) -> str:
    import glob
    import shutil
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found[-1] if found else (shutil.which(name) or pytest.fail(f"{name} is not installed"))


def test_pg_dump_while_playing_then_restore_as_the_readme_says(postgres_database, tmp_path):
    url = postgres_database("dumped")
    app = make_app(url)
    phone = app.test_client()
    code = create_tiny(phone)
    take(phone, code, 0)
    schema = urlsplit(url).query.split("application_name=")[1].split("&")[0]
    dump = tmp_path / "forest-table.dump"
    server = os.environ["FOREST_TABLE_TEST_DATABASE_URL"]
    # Writers go on while pg_dump reads: it sees one consistent moment of them.
    dumping = subprocess.Popen([_pg_tool("pg_dump"), "--format=custom", f"--schema={schema}",
                                f"--file={dump}", server], stderr=subprocess.PIPE, text=True)
    version = 0
    while dumping.poll() is None or version < 5:
        if version % 2:  # add and undo in turn: the counter never reaches its end
            resp = phone.post(f"/api/tables/{code}/undo", json={"version": version})
        else:
            resp = act(phone, code, "add", {"amount": 1}, version=version)
        assert resp.status_code == 200, resp.get_json()
        version += 1
        assert version < 2000, "pg_dump never finished"
    assert dumping.wait(60) == 0, dumping.stderr.read()

    restored_db = f"restored_{schema}"
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {restored_db}")
    try:
        target = urlunsplit(urlsplit(server)._replace(path=f"/{restored_db}"))
        done = subprocess.run([_pg_tool("pg_restore"), "--no-owner", f"--dbname={target}", str(dump)],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        conn = store.connect(f"{target}?options=-csearch_path%3D{schema}")
        try:
            table = store.get_table(conn, code)
            live = store.live_actions(conn, table.id)
            assert 0 <= table.version <= version and len(live) == table.version % 2
            assert table.snapshot == tables.fold(get_game(table.game), table.players, table.options, live)
        finally:
            conn.close()
    finally:
        with psycopg.connect(server, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE {restored_db} WITH (FORCE)")


def test_a_notice_wakes_the_streams_of_its_table_with_its_seat_stamp():
    from companion import live
    from companion.pg_live import ListeningHub

    hub = ListeningHub("postgresql://unused")
    hub._channels["ABCD"] = channel = live.Channel("ABCD", 3)
    hub._publish_notice("ABCD 4 2")
    assert channel.stamps() == (4, 2)
    # A server of an older release says no seat stamp: its move still wakes the streams.
    hub._publish_notice("ABCD 5")
    assert channel.stamps() == (5, 2)
    for garbage in ("ABCD", "ABCD x 1", "ABCD 6 y", "WXYZ 9 9", ""):
        hub._publish_notice(garbage)
    assert channel.stamps() == (5, 2)
    # A tap answered with its view on another server: that phone's stream here is spared it,
    # but only as news (a notice for a version the channel already has changes nothing).
    hub._publish_notice("ABCD 6 2 0123456789abcdef01234567")
    assert channel.stamps() == (6, 2) and channel.answered == {"0123456789abcdef01234567": 6}
    hub._publish_notice("ABCD 6 2 76543210fedcba9876543210")
    assert channel.answered == {"0123456789abcdef01234567": 6}


def test_a_table_in_another_schema_with_the_same_code_wakes_no_stream_here(postgres_database, monkeypatch):
    """Two apps in two schemas of one database (two venues, or a test's twins) each hear only
    their own writes: a move at the other's table of the same code is not news here (it
    was: every notice reached every listener, and a version this table never had was taken
    as its own, so its own next moves seemed known and woke no stream)."""
    monkeypatch.setattr(tables, "_free_code", lambda conn: "KQMW")
    url = postgres_database("here")
    # The streams here are in one process; the moves here are made by another (a second
    # server of the venue), so this process learns of them by its listener alone.
    listening, writer, there = make_app(url), make_app(url), make_app(postgres_database("there"))
    phone_here, phone_there = writer.test_client(), there.test_client()
    code = create_tiny(phone_here)
    assert create_tiny(phone_there) == code
    take(phone_here, code, 0)
    take(phone_there, code, 0)
    hub = listening.extensions["forest_hub"]
    channel = hub.subscribe(code)  # as a stream here does: the listener starts
    try:
        assert act(phone_here, code, "add", {"amount": 1}).status_code == 200
        wait_for(lambda: channel.stamps()[0] == 1, "the listener here hears its table's move")
        for amount in (2, 3, 4):  # the other venue's table moves on, to version 3
            assert act(phone_there, code, "add", {"amount": amount}).status_code == 200
        assert act(phone_here, code, "add", {"amount": 5}).status_code == 200
        # (A listener hears notices in the order of their commits: the other's, if heard,
        # come first.)
        wait_for(lambda: channel.stamps()[0] >= 2, "the listener here hears its table's second move")
        assert channel.stamps()[0] == 2
    finally:
        hub.unsubscribe(channel)
