"""The real server killed with SIGKILL mid-game, restarted on the same port and database.

An action the server acknowledged was committed before the answer left, so it survives the
kill; the phones keep their seats through their signed cookies; the snapshot is the fold of
the log. A backup taken while the app writes is a consistent database of its own.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from companion import db, store, tables
from companion.dialects import run_text
from companion.games import get_game, json_view

from .browser import browser, phones  # noqa: F401  (fixtures)
from .test_concurrency import Phone, assert_snapshot_is_fold, new_table

ROOT = Path(__file__).resolve().parent.parent
SECRET = "crash-test-key"  # the same key after a restart keeps the phones' cookies valid
CRASHES = 3


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class AppProcess:
    """`python app.py` as the players run it, on a fixed port and database."""

    def __init__(self, db_path: Path, port: int, log_path: Path):
        self.db_path, self.port, self.log_path = db_path, port, log_path
        self.base = f"http://127.0.0.1:{port}"
        self.proc = None

    def start(self) -> None:
        env = dict(os.environ, FOREST_TABLE_DATABASE=str(self.db_path),
                   FOREST_TABLE_SECRET_KEY=SECRET, FOREST_TABLE_LAN_ADDRESS="127.0.0.1")
        with open(self.log_path, "a") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "app.py", "--host", "127.0.0.1", "--port", str(self.port)],
                cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60  # a loaded machine: the app builds its assets at start
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                pytest.fail(f"app.py exited with {self.proc.returncode}:\n{self.log_path.read_text()}")
            try:
                with urllib.request.urlopen(self.base + "/api/games", timeout=1) as resp:
                    if resp.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                time.sleep(0.05)
        pytest.fail(f"app.py did not answer within 60 s:\n{self.log_path.read_text()}")

    def kill(self) -> None:
        """kill -9: no shutdown code runs, as when the machine's power goes."""
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.kill()


def _running(db_path, tmp_path):
    made = AppProcess(db_path, free_port(), tmp_path / "app.log")
    made.start()
    yield made
    made.stop()


@pytest.fixture
def app_process(tmp_path):
    """The app on a SQLite file (its backup and the browser's reconnect are SQLite's own)."""
    yield from _running(tmp_path / "crash.sqlite", tmp_path)


@pytest.fixture
def any_app_process(database, tmp_path):
    """The app on each database the tests run against."""
    yield from _running(database("crash"), tmp_path)


def play(phones, code, steps, acked):
    """Play the real game one step at a time: reveal, everyone picks, next round."""
    for step in range(steps):
        view = phones[0].get(f"/api/tables/{code}")
        v, version = view["view"], view["version"]
        if v["phase"] == "reveal":
            sends = [(0, "reveal", {"card": v["steps"]["reveal"], "flowers": step % 5, "witch": False})]
        elif v["phase"] == "choose":
            sends = [(seat, "choose", {"choice": "return" if (seat + step) % 3 == 0 else "stay",
                                       "decision": v["decision"]}) for seat in v["waiting"]]
        elif v["phase"] == "prepare":
            leader = v["leader"]
            sends = [(leader, "start_exploration", {"round": v["steps"]["start_exploration"]})]
        elif v["run_outs"]:
            sends = [(0, "set_run_outs", {"count": 0})]  # keep the game from ending
        else:
            sends = [(0, "next_round", {"round": v["steps"]["next_round"]})]
        for seat, action, params in sends:
            rid = f"play-{len(acked)}-{seat}"
            status, body = phones[seat].act(code, action, params, version, seat, rid)
            assert status == 200, body
            acked.append((rid, seat, action, params))
            version = body["version"]


def fire_until_killed(phones, code, acked, lock, stop):
    """Every phone fires corrections as fast as it can until the server is gone."""
    def fire(seat):
        phone, version = phones[seat], None
        for n in range(400):
            if stop.is_set():
                return
            rid = f"fire-{seat}-{n}-{time.monotonic_ns()}"
            params = {"count": (seat + n) % 22}
            try:
                if version is None:
                    version = phone.get(f"/api/tables/{code}")["version"]
                status, body = phone.act(code, "set_draw_pile", params, version, seat, rid)
            except (urllib.error.URLError, http.client.HTTPException, OSError, AssertionError):
                return  # the server died under this request: it was never acknowledged
            if status == 200:
                with lock:
                    acked.append((rid, seat, "set_draw_pile", params))
            else:
                assert status == 409, body
            version = body["version"]

    threads = [threading.Thread(target=fire, args=(s,), daemon=True) for s in range(len(phones))]
    for t in threads:
        t.start()
    return threads


def check_survivors(server, phones, code, acked):
    """Every acknowledged action is live in the log the API shows, seats held, state = fold."""
    conn = store.connect(str(server.db_path))
    try:
        table = store.get_table(conn, code)
        rows = {r["request_id"]: r for r in run_text(
            conn, "SELECT seq, seat, name, params, undone_at, request_id FROM action WHERE table_id = :id",
            {"id": table.id})}
    finally:
        conn.close()
    log = {a["seq"]: a for a in phones[0].get(f"/api/tables/{code}/actions")["actions"]}
    for rid, seat, action, params in acked:
        row = rows.get(rid)
        assert row is not None, f"acknowledged action {rid} was lost"
        assert row["undone_at"] is None and row["name"] == action and row["seat"] == seat
        assert json.loads(row["params"]) == params
        assert log[row["seq"]]["action"] == action and log[row["seq"]]["seat"] == seat
    assert len(log) == table.version  # no undos here: one live row per version
    for seat, phone in enumerate(phones):
        assert phone.get(f"/api/tables/{code}")["my_seats"] == [seat]
    table, live = assert_snapshot_is_fold(server.db_path, code)
    folded = tables.fold(get_game(table.game), table.players, table.options, live)
    watcher = Phone(server.base)  # holds no seat: sees what everyone may see
    assert watcher.get(f"/api/tables/{code}")["view"] == json_view(get_game(table.game), folded, None)


def test_acknowledged_actions_survive_kill_9(any_app_process):
    server = any_app_process
    code, phones = new_table(server.base, n_players=4)
    acked, lock = [], threading.Lock()
    survived = 0
    for crash in range(CRASHES):
        play(phones, code, 6, acked)
        before = len(acked)
        stop = threading.Event()
        threads = fire_until_killed(phones, code, acked, lock, stop)
        # Kill while the phones are mid-flight: after some acks, within a bounded wait.
        deadline = time.monotonic() + 10
        while len(acked) < before + 15 and time.monotonic() < deadline:
            time.sleep(0.01)
        server.kill()
        stop.set()
        for t in threads:
            t.join(10)
        assert not any(t.is_alive() for t in threads)
        assert len(acked) > before, "no action was acknowledged before the kill"
        server.start()
        check_survivors(server, phones, code, acked)
        survived += 1
    play(phones, code, 4, acked)  # and the game goes on
    check_survivors(server, phones, code, acked)
    print(f"\ncrashes survived: {survived}, acknowledged actions kept: {len(acked)}")
    assert survived == CRASHES


@pytest.mark.browser
def test_open_page_catches_up_after_restart(app_process, phones):  # noqa: F811
    expect = pytest.importorskip("playwright.sync_api").expect
    server = app_process
    code, seats = new_table(server.base, n_players=3)
    status, body = seats[1].act(code, "set_draw_pile", {"count": 15}, 0, 1, "b-1")
    assert status == 200, body
    (page,) = phones(1)
    page.goto(f"{server.base}/t/{code}")
    expect(page.locator(".view[data-version]")).to_have_attribute("data-version", "1")
    draw = page.locator(".deck .stat b").first
    expect(draw).to_have_text("15")

    server.kill()
    server.start()
    status, body = seats[2].act(code, "set_draw_pile", {"count": 4}, 1, 2, "b-2")
    assert status == 200, body
    # Nobody touches the page: its stream reconnects and the server, seeing an older
    # version in the stream's address, sends the update at once.
    expect(page.locator(".view[data-version]")).to_have_attribute("data-version", "2", timeout=15000)
    expect(draw).to_have_text("4", timeout=15000)


def test_backup_while_playing_and_restore(app_process, tmp_path):
    server = app_process
    code, phones = new_table(server.base, n_players=3)
    acked, lock, stop = [], threading.Lock(), threading.Event()
    threads = fire_until_killed(phones, code, acked, lock, stop)
    copies = []
    try:
        deadline = time.monotonic() + 10
        for n in range(3):
            while len(acked) < 10 * (n + 1) and time.monotonic() < deadline:
                time.sleep(0.01)
            copy = tmp_path / f"copy-{n}.sqlite"
            db.backup(str(server.db_path), str(copy))
            copies.append(copy)
    finally:
        stop.set()
        for t in threads:
            t.join(10)
    assert not any(t.is_alive() for t in threads)

    versions = []
    for copy in copies:
        conn = store.connect(str(copy))
        try:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            table = store.get_table(conn, code)
            live = store.live_actions(conn, table.id)
            assert len(live) == table.version
            assert table.snapshot == tables.fold(get_game(table.game), table.players,
                                                 table.options, live)
            versions.append(table.version)
        finally:
            conn.close()
    assert versions == sorted(versions) and versions[-1] > 0

    # The documented command, then the documented restore: stop, copy over, start.
    cli_copy = tmp_path / "cli.sqlite"
    env = dict(os.environ, FOREST_TABLE_DATABASE=str(server.db_path), FOREST_TABLE_SECRET_KEY=SECRET)
    done = subprocess.run([sys.executable, "-m", "flask", "--app", "app:create_app", "backup",
                           str(cli_copy)], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=30)
    assert done.returncode == 0, done.stderr
    final_version = phones[0].get(f"/api/tables/{code}")["version"]
    status, body = phones[0].act(code, "set_draw_pile", {"count": 1}, final_version, 0, "after-backup")
    assert status == 200, body
    server.kill()
    shutil.copyfile(cli_copy, server.db_path)
    for suffix in ("-wal", "-shm"):
        Path(f"{server.db_path}{suffix}").unlink(missing_ok=True)
    server.start()
    restored = phones[0].get(f"/api/tables/{code}")
    assert restored["version"] == final_version  # the action after the backup is gone
    assert restored["my_seats"] == [0]
    assert_snapshot_is_fold(server.db_path, code)
