"""What the benchmarks share: the server under test, a deadline, an asyncio HTTP client
light enough to hold thousands of event streams in one process, memory of the server's
processes, and percentiles.

Everything runs on loopback (127.0.0.1) against a server this module starts with a
throwaway database, and stops whatever happens.
"""

from __future__ import annotations

import asyncio
import math
import os
import re
import secrets
import shlex
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

PROJECT_ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
STEP_TIMEOUT = 10.0      # seconds for any single request or wait
STARTUP_TIMEOUT = 30.0   # seconds for the server to answer
VERSION_ATTR = re.compile(rb'data-version="(\d+)"')


class BenchError(Exception):
    pass


class Deadline:
    """The hard cap on a whole run; every wait takes its timeout from here."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.end = time.monotonic() + seconds

    def remaining(self) -> float:
        return self.end - time.monotonic()

    def step(self, limit: float = STEP_TIMEOUT) -> float:
        left = self.remaining()
        if left <= 0:
            raise BenchError(f"the run's cap of {self.seconds:.0f} s was reached")
        return min(limit, left)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


# -- the server ------------------------------------------------------------------------------


@dataclass
class Server:
    """Forest Table on a free loopback port with a throwaway database.

    kind "gunicorn" runs `gunicorn.conf.py` (the production way) with `workers` worker
    processes of `worker_class`; kind "dev" runs `app.py` (Werkzeug's threaded server).
    """

    kind: str = "gunicorn"
    workers: int = 2
    worker_class: str = "gevent"
    threads: int | None = None
    config: str = str(PROJECT_ROOT / "gunicorn.conf.py")
    env: dict = field(default_factory=dict)
    port: int = 0
    proc: subprocess.Popen | None = None
    tmp: tempfile.TemporaryDirectory | None = None
    watchdog: threading.Timer | None = None

    def describe(self) -> str:
        if self.kind == "dev":
            return "development server (app.py, Werkzeug threaded), 1 process"
        threads = f", {self.threads} threads each" if self.threads and self.worker_class == "gthread" else ""
        return f"gunicorn ({Path(self.config).name}), {self.workers} {self.worker_class} workers{threads}"

    def start(self, deadline: Deadline) -> None:
        self.tmp = tempfile.TemporaryDirectory(prefix="forest-bench-")
        self.port = self.port or free_port()  # a port given (a range of one's own) is kept
        env = dict(os.environ, FOREST_TABLE_DATABASE=str(Path(self.tmp.name) / "bench.sqlite"),
                   FOREST_TABLE_SECRET_KEY="bench-only-secret", FOREST_TABLE_HOST=HOST,
                   FOREST_TABLE_PORT=str(self.port), FOREST_TABLE_WORKERS=str(self.workers),
                   FOREST_TABLE_WORKER_CLASS=self.worker_class,
                   # The benchmark guesses no codes; every phone here shares one address.
                   FOREST_TABLE_CODE_GUESS_LIMIT="1000000 per minute",
                   FOREST_TABLE_TABLE_CREATION_LIMIT="1000000 per minute",
                   FOREST_TABLE_LOG_LEVEL="warning")
        if self.threads:
            env["FOREST_TABLE_THREADS"] = str(self.threads)
        env.update(self.env)
        if self.kind == "dev":
            cmd = [sys.executable, str(PROJECT_ROOT / "app.py"), "--host", HOST, "--port", str(self.port)]
        else:
            cmd = [sys.executable, "-m", "gunicorn", "--config", self.config]
        log_path = Path(self.tmp.name) / "server.log"
        with open(log_path, "wb") as log:
            # A session of its own: stop() can then end the server and its workers as a group.
            self.proc = subprocess.Popen(cmd, cwd=PROJECT_ROOT, env=env, stdin=subprocess.DEVNULL,
                                         stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        # A last guard: if this process were ever stuck, the server goes anyway.
        self.watchdog = threading.Timer(deadline.remaining() + 15, self._kill_group)
        self.watchdog.daemon = True
        self.watchdog.start()
        self._wait_until_up(log_path, deadline)

    def _wait_until_up(self, log_path: Path, deadline: Deadline) -> None:
        limit = time.monotonic() + deadline.step(STARTUP_TIMEOUT)
        while time.monotonic() < limit:
            if self.proc.poll() is not None:
                raise BenchError(f"server exited with {self.proc.returncode}:\n{log_path.read_text()[-2000:]}")
            try:
                with socket.create_connection((HOST, self.port), timeout=1) as s:
                    s.sendall(b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                    if s.recv(12).startswith(b"HTTP/1.1 200"):
                        if self.kind == "dev" or len(self.pids()) > self.workers:
                            return
            except OSError:
                pass
            time.sleep(0.05)
        raise BenchError(f"server did not answer within {STARTUP_TIMEOUT:.0f} s:\n{log_path.read_text()[-2000:]}")

    def log_tail(self) -> str:
        try:
            return (Path(self.tmp.name) / "server.log").read_text()[-3000:]
        except (OSError, AttributeError):
            return ""

    def pids(self) -> list[int]:
        """The server's processes: the master and its children (gunicorn's workers)."""
        if self.proc is None:
            return []
        return process_tree(self.proc.pid)

    def memory(self) -> dict:
        """Resident memory summed over the server's processes, in MiB (RSS and PSS)."""
        rss = pss = 0
        pids = self.pids()
        for pid in pids:
            rss += _proc_kib(f"/proc/{pid}/status", "VmRSS:")
            pss += _proc_kib(f"/proc/{pid}/smaps_rollup", "Pss:")
        return {"processes": len(pids), "rss_mib": rss / 1024, "pss_mib": pss / 1024}

    def cpu_seconds(self) -> float:
        """CPU time (user and system) the server's processes have used so far."""
        return cpu_seconds(self.pids())

    def system_seconds(self) -> float:
        """Of it, the time in the kernel (system calls: the database's file, the sockets)."""
        return cpu_seconds(self.pids(), fields=(12,))

    def _kill_group(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                pass

    def stop(self) -> None:
        if self.watchdog is not None:
            self.watchdog.cancel()
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.terminate()  # gunicorn's master stops its workers
                try:
                    self.proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    pass
            self._kill_group()  # anything of the server's group still running
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        if self.tmp is not None:
            self.tmp.cleanup()
            self.tmp = None


def process_tree(root: int) -> list[int]:
    """A process and all its descendants."""
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        try:
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children") as handle:
                    todo.extend(int(c) for c in handle.read().split())
        except OSError:
            pass
    return found


def cpu_seconds(pids: list[int], reaped_of: int | None = None, fields: tuple = (11, 12)) -> float:
    """CPU time (user and system) the processes have used so far; with `reaped_of`, also
    that of the children the process `reaped_of` has waited for (PostgreSQL's ended
    connections). `fields` (12,) counts the system time alone."""
    ticks = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as handle:
                stat = handle.read().rsplit(")", 1)[1].split()
            ticks += sum(int(stat[field]) for field in fields)
            if pid == reaped_of:
                ticks += sum(int(stat[field + 2]) for field in fields)
        except (OSError, IndexError, ValueError):
            pass
    return ticks / os.sysconf("SC_CLK_TCK")


def _proc_kib(path: str, key: str) -> int:
    try:
        with open(path) as handle:
            for line in handle:
                if line.startswith(key):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


# -- an asyncio HTTP/1.1 client ----------------------------------------------------------------


@dataclass
class Reply:
    status: int
    headers: dict  # lower-case name -> value (the last one); Set-Cookie values in .cookies
    body: bytes
    cookies: list
    wire_bytes: int  # what came over the socket: status line, headers and body as sent


async def _read_head(reader: asyncio.StreamReader) -> tuple[int, dict, list, int]:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers, cookies = {}, []
    for line in lines[1:]:
        if not line:
            continue
        name, _, value = line.partition(":")
        name, value = name.strip().lower(), value.strip()
        headers[name] = value
        if name == "set-cookie":
            cookies.append(value)
    return status, headers, cookies, len(head)


async def _read_chunk(reader: asyncio.StreamReader) -> tuple[bytes, int]:
    """One chunk of a chunked body: (data, bytes on the wire); empty data ends the body."""
    size_line = await reader.readuntil(b"\r\n")
    size = int(size_line.split(b";")[0].strip(), 16)
    if size == 0:
        wire = len(size_line)
        while True:  # trailers, then the blank line
            line = await reader.readuntil(b"\r\n")
            wire += len(line)
            if line == b"\r\n":
                return b"", wire
    data = await reader.readexactly(size + 2)
    return data[:-2], len(size_line) + size + 2


def accept_language(code: str) -> str:
    """A browser's Accept-Language asking for `code` first ("de" -> "de-DE,de;q=0.9,en;q=0.5")."""
    base = code.split("-")[0].lower()
    region = code.split("-")[1] if "-" in code else ("US" if base == "en" else base.upper())
    return f"{base}-{region},{base};q=0.9" + ("" if base == "en" else ",en;q=0.5")


class Phone:
    """One phone: its own cookies and one kept-alive connection, as a browser tab has."""

    def __init__(self, port: int, name: str = "phone", language: str | None = None):
        self.port = port
        self.name = name
        self.language = language  # sent as Accept-Language (None: no such header, read as English)
        self.cookies: dict[str, str] = {}
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.lock = asyncio.Lock()

    def browser_headers(self) -> dict:
        """What this phone's browser sends with every request: its cookies and its language."""
        sent = {"Accept-Language": accept_language(self.language)} if self.language else {}
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        return sent

    def keep_cookies(self, set_cookies: list) -> None:
        for raw in set_cookies:
            pair = raw.split(";", 1)[0]
            name, _, value = pair.partition("=")
            self.cookies[name.strip()] = value.strip()

    async def request(self, method: str, path: str, *, headers: dict | None = None, form: dict | None = None,
                      json_body: bytes | None = None, timeout: float = STEP_TIMEOUT) -> Reply:
        async with self.lock:
            try:
                return await asyncio.wait_for(self._request(method, path, headers, form, json_body), timeout)
            except (asyncio.TimeoutError, asyncio.CancelledError):
                # The answer may still come: on this connection it would be read as the
                # answer to the next request. A browser gives up on the connection too.
                await self.close()
                raise

    async def _request(self, method, path, headers, form, json_body) -> Reply:
        body = b""
        # The Origin of the app's own pages: writes from anywhere else are refused.
        hdrs = {"Host": f"{HOST}:{self.port}", "User-Agent": "forest-bench",
                "Origin": f"http://{HOST}:{self.port}"}
        if form is not None:
            body = urlencode(form).encode()
            hdrs["Content-Type"] = "application/x-www-form-urlencoded"
        elif json_body is not None:
            body = json_body
            hdrs["Content-Type"] = "application/json"
        if body or method in ("POST", "PUT", "DELETE"):
            hdrs["Content-Length"] = str(len(body))
        hdrs.update(self.browser_headers())
        hdrs.update(headers or {})
        raw = (f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in hdrs.items())
               + "\r\n").encode() + body
        for attempt in (0, 1):
            reused = self.writer is not None
            if self.writer is None:
                self.reader, self.writer = await asyncio.open_connection(HOST, self.port)
            try:
                self.writer.write(raw)
                await self.writer.drain()
                reply = await self._read_reply(method)
            except (asyncio.IncompleteReadError, ConnectionError) as exc:
                await self.close()
                if reused and attempt == 0:
                    continue  # the server had closed the idle keep-alive connection
                raise BenchError(f"{self.name}: {method} {path}: {exc!r}") from None
            self.keep_cookies(reply.cookies)
            if reply.headers.get("connection", "").lower() == "close":
                await self.close()
            return reply
        raise AssertionError("unreachable")

    async def _read_reply(self, method: str) -> Reply:
        status, headers, cookies, wire = await _read_head(self.reader)
        if method == "HEAD" or status in (204, 304):
            body = b""
        elif "chunked" in headers.get("transfer-encoding", "").lower():
            parts = []
            while True:
                data, n = await _read_chunk(self.reader)
                wire += n
                if not data:
                    break
                parts.append(data)
            body = b"".join(parts)
        elif "content-length" in headers:
            body = await self.reader.readexactly(int(headers["content-length"]))
            wire += len(body)
        else:
            body = await self.reader.read()
            wire += len(body)
            headers["connection"] = "close"
        return Reply(status, headers, body, cookies, wire)

    async def close(self) -> None:
        if self.writer is not None:
            writer, self.writer, self.reader = self.writer, None, None
            writer.close()
            try:
                await asyncio.wait_for(writer.wait_closed(), 1)
            except (asyncio.TimeoutError, ConnectionError, OSError):
                pass


class EventStream:
    """One phone's server-sent-event stream on a connection of its own.

    `on_update(stream, version, arrived_at)` is called for every `update` event; the
    stream reconnects by itself when the server ends it, as a browser does. With
    `on_view(stream, html, arrived_at)` the stream asks for views, as the table page does,
    and that is called for every `view` event (the phone's view, pushed before its update).
    """

    def __init__(self, phone: Phone, code: str, version: int, on_update, on_problem, on_view=None):
        self.phone = phone
        self.code = code
        self.version = version
        self.on_update = on_update
        self.on_problem = on_problem
        self.on_view = on_view
        self.wire_bytes = 0  # what the stream weighed as sent (its body, compressed or not)
        self.last_read_bytes = 0  # the read (one chunk, one server write) of the last event
        self.opened = asyncio.Event()
        self.task: asyncio.Task | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.reconnects = 0
        self.keepalives = 0
        self.stopping = False
        self.view_text = None  # the last view this stream sent: the next may be its change
        self.last_view_changed = False  # whether the last view came as a change

    def start(self) -> None:
        self.task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        while not self.stopping:
            try:
                await self._read_once()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # reported, then reconnect like a browser would
                if self.stopping:
                    return
                self.on_problem(self, exc)
                await asyncio.sleep(1.5)
            if self.stopping:
                return
            self.reconnects += 1

    async def _read_once(self) -> None:
        reader, self.writer = await asyncio.wait_for(asyncio.open_connection(HOST, self.phone.port),
                                                     STEP_TIMEOUT)
        try:
            hdrs = {"Host": f"{HOST}:{self.phone.port}", "Accept": "text/event-stream",
                    "Cache-Control": "no-cache", "Accept-Encoding": "gzip, deflate"}
            hdrs.update(self.phone.browser_headers())
            path = f"/t/{self.code}/events?v={self.version}" + ("&views=1" if self.on_view else "")
            self.writer.write((f"GET {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in hdrs.items())
                               + "\r\n").encode())
            await self.writer.drain()
            status, headers, _cookies, _wire = await asyncio.wait_for(_read_head(reader), STEP_TIMEOUT)
            if status != 200:
                raise BenchError(f"event stream answered {status}")
            self.view_text = None  # a new stream starts with a whole view
            coding = headers.get("content-encoding")
            if coding and (coding != "gzip" or self.on_view is None):
                raise BenchError(f"event stream came compressed ({coding})")
            # A stream of pushed views comes gzipped, each event flushed: decoded as it comes.
            gunzip = zlib.decompressobj(16 + zlib.MAX_WBITS) if coding else None
            chunked = "chunked" in headers.get("transfer-encoding", "").lower()
            buffer = b""
            while not self.stopping:
                if chunked:
                    # The server sends a keepalive every few seconds: a long silence is a fault.
                    data, _n = await asyncio.wait_for(_read_chunk(reader), 60)
                    if not data:
                        return  # the server ended the stream (its maximum lifetime)
                else:
                    data = await asyncio.wait_for(reader.read(65536), 60)
                    if not data:
                        return
                arrived = time.perf_counter()
                self.wire_bytes += len(data)
                self.last_read_bytes = len(data)
                buffer += gunzip.decompress(data) if gunzip else data
                while b"\n\n" in buffer:
                    message, buffer = buffer.split(b"\n\n", 1)
                    self._dispatch(message.decode(), arrived)
        finally:
            writer, self.writer = self.writer, None
            writer.close()

    def _dispatch(self, message: str, arrived: float) -> None:
        event, data = "message", []
        for line in message.split("\n"):
            if line.startswith(":"):
                self.keepalives += 1
                continue
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "event":
                event = value
            elif name == "data":
                data.append(value)
            elif name == "retry":
                self.opened.set()
        if event == "view" and self.on_view is not None:
            self.last_view_changed = bool(data) and data[0].startswith("~")
            self.view_text = put_together(self.view_text, "\n".join(data))
            if self.view_text is None:
                raise BenchError("a pushed change did not put together with the view before it")
            self.on_view(self, self.view_text.encode(), arrived)
        elif event == "update" and data:
            version = int(data[-1])
            if version > self.version:
                self.version = version
            self.on_update(self, version, arrived)
        elif event == "gone":
            raise BenchError("table gone")

    async def stop(self) -> None:
        self.stopping = True
        if self.writer is not None:
            self.writer.close()
        if self.task is not None:
            self.task.cancel()
            try:
                await asyncio.wait_for(self.task, 2)
            except (asyncio.CancelledError, asyncio.TimeoutError, Exception):
                pass


def put_together(before: str | None, data: str) -> str | None:
    """A pushed view from its change, as the page does it (static/app.js): "~" and the new
    length, then "=start,length" (a span of the view before) or "+" and new text, a line
    each; offsets count UTF-16 units. A whole view is as it came."""
    if not data.startswith("~"):
        return data
    if before is None:
        return None
    units = before.encode("utf-16-le")
    lines = data.split("\n")
    out = []
    for line in lines[1:]:
        if line.startswith("+"):
            out.append(line[1:])
        else:
            start, length = map(int, line[1:].split(","))
            out.append(units[2 * start:2 * (start + length)].decode("utf-16-le"))
    view = "".join(out)
    return view if len(view.encode("utf-16-le")) // 2 == int(lines[0][1:]) else None


def new_rid() -> str:
    return secrets.token_urlsafe(9)


def view_version(body: bytes) -> int | None:
    match = VERSION_ATTR.search(body)
    return int(match.group(1)) if match else None


# -- figures -------------------------------------------------------------------------------------


def percentile(values, fraction: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def ms_summary(seconds, p: float = 0.95) -> str:
    if not seconds:
        return "no samples"
    ms = [v * 1000 for v in seconds]
    label = f"p{int(round(p * 100))}"
    return (f"median {statistics.median(ms):7.1f} ms   {label} {percentile(ms, p):7.1f} ms   "
            f"worst {max(ms):7.1f} ms   ({len(ms)} samples)")


def machine_busy_seconds() -> float:
    """CPU time all processes of the machine have used so far (every core), from /proc/stat."""
    try:
        with open("/proc/stat") as handle:
            fields = [int(v) for v in handle.readline().split()[1:]]
    except (OSError, ValueError):
        return 0.0
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def cpu_model() -> str:
    """The processor's name as /proc/cpuinfo gives it (some virtual machines give little)."""
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                name, _, value = line.partition(":")
                if name.strip() in ("model name", "Model", "cpu model"):
                    return value.strip()
    except OSError:
        pass
    return "unknown CPU"


def machine_line() -> str:
    with open("/proc/loadavg") as handle:
        load = " ".join(handle.read().split()[:3])
    return (f"{cpu_model()}, {os.cpu_count()} cores, load average {load} at start, "
            f"Python {sys.version.split()[0]}")


def command_line() -> str:
    """The exact command that started this run, to be run again as it was."""
    return shlex.join(getattr(sys, "orig_argv", [sys.executable, *sys.argv]))
