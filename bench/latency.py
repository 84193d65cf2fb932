"""How long a move on one phone takes to reach the other phones at the table.

Starts the app on a free loopback port with a throwaway database, seats five phones at
one Wicked Forest table and opens the live-update stream (server-sent events) on four
of them. Then, run after run, phone 0 posts an action and the script records when each
of the four streams delivers the `update` event for the new version, and when the
phone's follow-up fetch of the table view (what htmx does on that event) has come back.

    .venv/bin/python bench/latency.py [--runs 50]

Standard library only. Every wait has a timeout, the whole run is capped at 120 s and the
server process is stopped at the end whatever happens.
"""

from __future__ import annotations

import argparse
import http.client
import http.cookiejar
import json
import math
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
OVERALL_TIMEOUT = 120.0     # seconds for the whole benchmark
STEP_TIMEOUT = 10.0         # seconds for any single wait or request
STARTUP_TIMEOUT = 20.0      # seconds for the server to answer
PLAYERS = ["A", "B", "C", "D", "E"]
LISTENERS = (1, 2, 3, 4)    # the phones with an open live-update stream
VERSION_ATTR = re.compile(rb'data-version="(\d+)"')


class BenchError(Exception):
    pass


class Deadline:
    def __init__(self, seconds: float):
        self.end = time.monotonic() + seconds

    def remaining(self) -> float:
        return self.end - time.monotonic()

    def step(self, limit: float = STEP_TIMEOUT) -> float:
        """A timeout for one wait: `limit`, or less when the overall time runs out."""
        left = self.remaining()
        if left <= 0:
            raise BenchError(f"overall timeout of {OVERALL_TIMEOUT:.0f} s reached")
        return min(limit, left)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


class Phone:
    """One phone: its own cookies and one kept-alive connection, like a browser tab."""

    def __init__(self, index: int, port: int, deadline: Deadline):
        self.index = index
        self.port = port
        self.deadline = deadline
        self.jar = http.cookiejar.CookieJar()
        self.conn: http.client.HTTPConnection | None = None

    def url(self, path: str) -> str:
        return f"http://{HOST}:{self.port}{path}"

    def cookie_headers(self, method: str, path: str) -> tuple[urllib.request.Request, dict]:
        req = urllib.request.Request(self.url(path), method=method)
        self.jar.add_cookie_header(req)
        return req, dict(req.unredirected_hdrs)

    def request(self, method: str, path: str, body=None, headers=None):
        """Send one request; returns (status, body bytes). Retries once on a dropped keep-alive."""
        payload = None if body is None else json.dumps(body).encode()
        for attempt in (0, 1):
            req, hdrs = self.cookie_headers(method, path)
            hdrs["Origin"] = f"http://{HOST}:{self.port}"  # as the app's own page would send
            hdrs.update(headers or {})
            if payload is not None:
                hdrs["Content-Type"] = "application/json"
            reused = self.conn is not None
            if self.conn is None:
                self.conn = http.client.HTTPConnection(HOST, self.port, timeout=self.deadline.step())
            self.conn.timeout = self.deadline.step()
            if self.conn.sock is not None:
                self.conn.sock.settimeout(self.conn.timeout)
            try:
                self.conn.request(method, path, body=payload, headers=hdrs)
                resp = self.conn.getresponse()
                data = resp.read()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.close()
                if reused and attempt == 0:
                    continue
                raise
            self.jar.extract_cookies(resp, req)
            if resp.will_close:
                self.close()
            return resp.status, data
        raise AssertionError("unreachable")

    def json(self, method: str, path: str, body=None, expect=(200, 201)) -> dict:
        status, data = self.request(method, path, body, {"Accept": "application/json"})
        if status not in expect:
            raise BenchError(f"phone {self.index}: {method} {path} -> {status}: {data[:300]!r}")
        return json.loads(data)

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


class Listener(threading.Thread):
    """Reads one phone's event stream; on each update fetches the view as htmx would."""

    def __init__(self, phone: Phone, code: str, version: int, board: threading.Condition):
        super().__init__(daemon=True, name=f"listener-{phone.index}")
        self.phone = phone
        self.code = code
        self.start_version = version
        self.board = board            # guards the fields below; notified on every change
        self.connected = False
        self.arrived: dict[int, float] = {}   # version -> perf_counter when the event arrived
        self.visible: dict[int, float] = {}   # version -> perf_counter when the view came back
        self.error: BaseException | None = None
        self.stream: http.client.HTTPConnection | None = None
        self.sock: socket.socket | None = None
        self.stopping = False

    def run(self) -> None:
        try:
            self._read()
        except BaseException as exc:  # reported by the main thread
            if not self.stopping:
                with self.board:
                    self.error = exc
                    self.board.notify_all()

    def _read(self) -> None:
        path = f"/t/{self.code}/events?v={self.start_version}"
        _req, headers = self.phone.cookie_headers("GET", path)
        headers.update({"Accept": "text/event-stream", "Cache-Control": "no-cache"})
        # The server sends a keepalive comment every 15 s, so a 30 s read timeout is generous.
        self.stream = http.client.HTTPConnection(HOST, self.phone.port, timeout=30)
        self.stream.connect()
        # Kept so stop() can unblock the read: the response may take the socket over.
        self.sock = self.stream.sock
        if self.stopping:
            return
        self.stream.request("GET", path, headers=headers)
        resp = self.stream.getresponse()
        if resp.status != 200:
            raise BenchError(f"phone {self.phone.index}: event stream -> {resp.status}")
        event, data = "message", []
        while not self.stopping:
            raw = resp.readline()
            if not raw:
                raise BenchError(f"phone {self.phone.index}: event stream ended")
            line = raw.decode().rstrip("\r\n")
            if line:
                field, _, value = line.partition(":")
                value = value[1:] if value.startswith(" ") else value
                if field == "event":
                    event = value
                elif field == "data":
                    data.append(value)
                elif field == "retry" and not self.connected:
                    with self.board:
                        self.connected = True
                        self.board.notify_all()
                continue
            # A blank line dispatches the event, as in a browser.
            if event == "update" and data:
                now = time.perf_counter()
                version = int(data[-1])
                with self.board:
                    self.arrived.setdefault(version, now)
                    self.board.notify_all()
                self._fetch_view(version)
            elif event == "gone":
                raise BenchError(f"phone {self.phone.index}: table gone")
            event, data = "message", []

    def _fetch_view(self, version: int) -> None:
        status, body = self.phone.request("GET", f"/t/{self.code}/view",
                                          headers={"HX-Request": "true", "HX-Target": "view"})
        now = time.perf_counter()
        if status != 200:
            raise BenchError(f"phone {self.phone.index}: view -> {status}")
        match = VERSION_ATTR.search(body)
        shown = int(match.group(1)) if match else None
        if shown is None or shown < version:
            raise BenchError(f"phone {self.phone.index}: view shows version {shown}, expected {version}")
        with self.board:
            self.visible.setdefault(version, now)
            self.board.notify_all()

    def stop(self) -> None:
        self.stopping = True
        if self.sock is not None:
            try:
                self.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        if self.stream is not None:
            self.stream.close()
        self.phone.close()


def wait_for(board: threading.Condition, listeners, what: str, version: int, deadline: Deadline) -> None:
    """Block until every listener has `version` in its `what` dict (or an error/timeout)."""
    limit = time.monotonic() + deadline.step()
    with board:
        while True:
            for lst in listeners:
                if lst.error is not None:
                    raise BenchError(f"phone {lst.phone.index}: {lst.error!r}")
            if all(version in getattr(lst, what) for lst in listeners):
                return
            left = limit - time.monotonic()
            if left <= 0:
                missing = [lst.phone.index for lst in listeners if version not in getattr(lst, what)]
                why = (f"overall timeout of {OVERALL_TIMEOUT:.0f} s reached" if deadline.remaining() <= 0
                       else f"nothing within {STEP_TIMEOUT:.0f} s")
                raise BenchError(f"version {version} not {what} on phones {missing}: {why}")
            board.wait(left)


def wait_until_up(proc: subprocess.Popen, port: int, log_path: Path, deadline: Deadline) -> None:
    limit = time.monotonic() + deadline.step(STARTUP_TIMEOUT)
    while time.monotonic() < limit:
        if proc.poll() is not None:
            raise BenchError(f"server exited with {proc.returncode}:\n{log_path.read_text()[-2000:]}")
        try:
            conn = http.client.HTTPConnection(HOST, port, timeout=1)
            conn.request("GET", "/api/games")
            ok = conn.getresponse().status == 200
            conn.close()
            if ok:
                return
        except OSError:
            pass
        time.sleep(0.05)
    raise BenchError(f"server did not answer within {STARTUP_TIMEOUT:.0f} s:\n{log_path.read_text()[-2000:]}")


def stop_server(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


def percentile(values, fraction: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def summary(values) -> str:
    ms = [v * 1000 for v in values]
    return (f"median {statistics.median(ms):7.1f} ms   p95 {percentile(ms, 0.95):7.1f} ms   "
            f"worst {max(ms):7.1f} ms")


def bench(port: int, runs: int, warmup: int, pause: float, deadline: Deadline) -> None:
    phones = [Phone(i, port, deadline) for i in range(len(PLAYERS))]
    created = phones[0].json("POST", "/api/tables", {
        "game": "wicked-forest", "players": PLAYERS, "options": {"first_leader": "0"}})
    code = created["code"]
    for i, ph in enumerate(phones):
        ph.json("POST", f"/api/tables/{code}/seats/{i}")
    version = phones[0].json("GET", f"/api/tables/{code}?seat=0")["version"]

    board = threading.Condition()
    listeners = [Listener(phones[i], code, version, board) for i in LISTENERS]
    try:
        for lst in listeners:
            lst.start()
        limit = time.monotonic() + deadline.step()
        with board:
            while not all(lst.connected for lst in listeners):
                errors = [lst.error for lst in listeners if lst.error is not None]
                if errors:
                    raise BenchError(f"event stream failed: {errors[0]!r}")
                left = limit - time.monotonic()
                if left <= 0:
                    raise BenchError("event streams did not open in time")
                board.wait(left)
        time.sleep(0.1)  # let every stream settle into its wait

        post_rtt, arrive_last, visible_last = [], [], []
        arrive_each = {i: [] for i in LISTENERS}
        visible_each = {i: [] for i in LISTENERS}
        # Warm-up runs (run < 0) go through the same steps but are not recorded: the first
        # view the server renders also compiles its templates.
        for run in range(-warmup, runs):
            body = {"action": "set_draw_pile", "params": {"count": 20 if run % 2 == 0 else 21},
                    "version": version, "seat": 0}
            t0 = time.perf_counter()
            status, data = phones[0].request("POST", f"/api/tables/{code}/actions", body,
                                             {"Accept": "application/json"})
            t1 = time.perf_counter()
            if status != 200:
                raise BenchError(f"run {run + 1}: action -> {status}: {data[:300]!r}")
            new_version = json.loads(data)["version"]
            if new_version == version:
                raise BenchError(f"run {run + 1}: the version did not move ({version})")
            version = new_version

            wait_for(board, listeners, "arrived", version, deadline)
            wait_for(board, listeners, "visible", version, deadline)
            if pause > 0:
                time.sleep(min(pause, max(0.0, deadline.remaining())))
            if run < 0:
                continue
            post_rtt.append(t1 - t0)
            with board:
                for lst in listeners:
                    arrive_each[lst.phone.index].append(lst.arrived[version] - t0)
                    visible_each[lst.phone.index].append(lst.visible[version] - t0)
            arrive_last.append(max(arrive_each[i][-1] for i in LISTENERS))
            visible_last.append(max(visible_each[i][-1] for i in LISTENERS))
    finally:
        for lst in listeners:
            lst.stop()
        for ph in phones:
            ph.close()
        for lst in listeners:
            lst.join(timeout=2)

    print(f"Forest Table live-update latency: {runs} actions (after {warmup} untimed), "
          f"1 phone acting, {len(LISTENERS)} phones listening, {HOST}:{port}\n")
    print(f"  action POST round trip              {summary(post_rtt)}")
    print(f"  update arrives (last of {len(LISTENERS)} phones)   {summary(arrive_last)}")
    print(f"  update visible (last of {len(LISTENERS)} phones)   {summary(visible_last)}")
    print("\n  per phone, update arrives:")
    for i in LISTENERS:
        print(f"    phone {i}                           {summary(arrive_each[i])}")
    print("  per phone, update visible:")
    for i in LISTENERS:
        print(f"    phone {i}                           {summary(visible_each[i])}")
    print("\n  (times from just before phone 0 sends its action; 'visible' adds the htmx GET of the view)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=50, help="actions to time (default 50)")
    parser.add_argument("--pause", type=float, default=0.05,
                        help="seconds between one run's last view and the next action (default 0.05)")
    parser.add_argument("--warmup", type=int, default=1,
                        help="untimed actions before the timed ones (default 1)")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if args.warmup < 0 or args.pause < 0:
        parser.error("--warmup and --pause cannot be negative")

    deadline = Deadline(OVERALL_TIMEOUT)
    with tempfile.TemporaryDirectory(prefix="forest-bench-") as tmp:
        log_path = Path(tmp) / "server.log"
        port = free_port()
        env = dict(os.environ,
                   FOREST_TABLE_DATABASE=str(Path(tmp) / "bench.sqlite"),
                   FOREST_TABLE_SECRET_KEY="bench-only-secret",
                   FOREST_TABLE_TABLE_CREATION_LIMIT="1000000 per minute")
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(
                [sys.executable, str(PROJECT_ROOT / "app.py"), "--host", HOST, "--port", str(port)],
                cwd=PROJECT_ROOT, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        # A last guard: if the main thread were ever stuck, the server goes anyway.
        watchdog = threading.Timer(OVERALL_TIMEOUT + 5, proc.kill)
        watchdog.daemon = True
        watchdog.start()
        try:
            wait_until_up(proc, port, log_path, deadline)
            bench(port, args.runs, args.warmup, args.pause, deadline)
        except BenchError as exc:
            print(f"benchmark failed: {exc}", file=sys.stderr)
            return 1
        finally:
            watchdog.cancel()
            stop_server(proc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
