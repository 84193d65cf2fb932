"""Two app servers (gunicorn, as scripts/serve.sh runs it) on two ports sharing one
PostgreSQL, as behind a load balancer: phones on both, any request of a phone may reach
either, a move made on one reaches the streams held by the other at once (LISTEN/NOTIFY),
and kill -9 of one loses no acknowledged action.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from .test_concurrency import Phone, new_table
from .test_crash import check_survivors, fire_until_killed, play

ROOT = Path(__file__).resolve().parent.parent
SECRET = "two-servers-key"  # one key on every server: a phone's cookie is good on any of them
WAIT = 15.0  # the longest any single wait may take before the test fails
DELIVERY_LIMIT = 1.0  # a move must reach the other server's streams within this
GUESSES = 3  # wrong table codes allowed per address, counted over both servers


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """One app server: gunicorn with the production configuration, gevent workers."""

    def __init__(self, url: str, log_path: Path):
        self.db_path = url  # what check_survivors reads the log from
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        env = dict(os.environ, FOREST_TABLE_DATABASE_URL=url, FOREST_TABLE_SECRET_KEY=SECRET,
                   FOREST_TABLE_HOST="127.0.0.1", FOREST_TABLE_PORT=str(self.port),
                   FOREST_TABLE_WORKERS="1", FOREST_TABLE_WORKER_CLASS="gevent",
                   FOREST_TABLE_WORKER_CONNECTIONS="100", FOREST_TABLE_LOG_LEVEL="warning",
                   FOREST_TABLE_STREAM_KEEPALIVE_SECONDS="0.5",
                   FOREST_TABLE_CODE_GUESS_LIMIT=f"{GUESSES} per minute")
        self.log = open(log_path, "wb")
        self.proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "--config", "gunicorn.conf.py"],
                                     cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True)

    def wait_ready(self) -> None:
        limit = time.monotonic() + 30
        while True:
            assert self.proc.poll() is None, self.log_path.read_text()
            try:
                status, _ = Phone(self.base).call("GET", "/api/games", timeout=2)
                if status == 200:
                    return
            except OSError:
                pass
            assert time.monotonic() < limit, f"the server did not start:\n{self.log_path.read_text()}"
            time.sleep(0.1)

    def kill(self) -> None:
        """kill -9 of the master and its workers, as when the machine dies."""
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.kill()
        self.log.close()


@pytest.fixture
def two_servers(postgres_database, tmp_path):
    url = postgres_database("shared")
    servers = [Server(url, tmp_path / f"server-{n}.log") for n in (1, 2)]
    try:
        for server in servers:
            server.wait_ready()
        yield servers
    finally:
        for server in servers:
            server.stop()


class Stream:
    """A phone's live-update stream, read straight off the socket."""

    def __init__(self, base: str, code: str):
        port = int(base.rsplit(":", 1)[1])
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
        self.sock.sendall(f"GET /t/{code}/events?v=0 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        self.text = b""

    def until(self, marker: bytes) -> None:
        limit = time.monotonic() + WAIT
        while marker not in self.text:
            assert time.monotonic() < limit, f"{marker!r} never came: {self.text!r}"
            chunk = self.sock.recv(4096)
            assert chunk, f"the stream closed before {marker!r}: {self.text!r}"
            self.text += chunk

    def close(self) -> None:
        self.sock.close()


def on(phone: Phone, server: Server) -> Phone:
    """Send the phone's next requests to `server` (its cookies go along: same host)."""
    phone.base = server.base
    return phone


def test_a_move_on_one_server_reaches_the_streams_of_the_other_and_limits_count_on_both(two_servers):
    first, second = two_servers
    code, phones = new_table(first.base, n_players=3)
    on(phones[2], second)  # seated through the first server, now served by the second
    streams = {"first": Stream(first.base, code), "second": Stream(second.base, code)}
    try:
        for stream in streams.values():
            stream.until(b"retry:")
        delays = []
        for version, (phone, stream) in enumerate([(phones[0], streams["second"]),
                                                  (phones[2], streams["first"])]):
            status, body = phone.act(code, "set_draw_pile", {"count": 10 + version}, version)
            acknowledged = time.monotonic()
            assert status == 200, body
            stream.until(f"event: update\ndata: {version + 1}\n\n".encode())
            delays.append(time.monotonic() - acknowledged)
        print(f"\nmove acknowledged by one server -> event on the other's stream: "
              f"{', '.join(f'{d * 1000:.0f} ms' for d in delays)}")
        assert max(delays) < DELIVERY_LIMIT, delays
        # A seat freed through one server reaches the other's phones as it happens too
        # (the host's phone sees its seat chips change), not at the next resync.
        status, body = on(phones[0], first).call("DELETE", f"/api/tables/{code}/seats/1")
        assert status == 200, body
        freed = time.monotonic()
        streams["second"].until(b"event: seats\n")
        assert time.monotonic() - freed < DELIVERY_LIMIT
        # Every phone reads the same table whichever server answers it.
        assert phones[1].get(f"/api/tables/{code}")["view"] == on(phones[1], second).get(
            f"/api/tables/{code}")["view"]
    finally:
        for stream in streams.values():
            stream.close()
    wrong_codes_are_counted_over_both_servers(first, second)


def test_kill_9_of_one_server_loses_no_acknowledged_action(two_servers):
    first, second = two_servers
    code, phones = new_table(first.base, n_players=4)
    on(phones[2], second)
    on(phones[3], second)
    acked, lock, stop = [], threading.Lock(), threading.Event()
    play(phones, code, 4, acked)
    before = len(acked)
    threads = fire_until_killed(phones, code, acked, lock, stop)
    # Kill the first server while phones on both fire, after some acks, within a bounded wait.
    limit = time.monotonic() + WAIT
    while len(acked) < before + 20 and time.monotonic() < limit:
        time.sleep(0.01)
    first.kill()
    # The second server's phones go on meanwhile.
    at_kill = len(acked)
    while len(acked) < at_kill + 10 and time.monotonic() < limit + WAIT:
        time.sleep(0.01)
    assert len(acked) >= at_kill + 10, "the second server stopped with the first"
    stop.set()
    for thread in threads:
        thread.join(WAIT)
    assert not any(thread.is_alive() for thread in threads)
    assert len(acked) > before, "no action was acknowledged before the kill"
    # The load balancer sends the first server's phones to the second: their seats hold.
    for phone in phones:
        on(phone, second)
    check_survivors(second, phones, code, acked)
    play(phones, code, 3, acked)  # and the game goes on
    check_survivors(second, phones, code, acked)


def wrong_codes_are_counted_over_both_servers(first, second):
    stranger = Phone(first.base)
    statuses = [stranger.call("GET", "/api/tables/ZZZZ")[0] for _ in range(GUESSES - 1)]
    on(stranger, second)
    statuses += [stranger.call("GET", "/api/tables/ZZZZ")[0] for _ in range(2)]
    assert statuses == [404] * GUESSES + [429]
