"""A whole club on one server: update latency, action throughput and memory.

For each number of tables asked for (default 1, 100 and 500), a fresh server is started
(gunicorn with `gunicorn.conf.py`, several workers, so an update often has to cross from
one worker process to another) with a throwaway database. Each table is a Wicked Forest
game with five phones, every phone seated and holding its own live-update stream, as a
browser does. Then:

1. latency: every table's first phone posts an action (the htmx form post a tap makes)
   at a steady pace, the club as a whole making `--rate` actions a second; the time from
   just before the post to the `update` event arriving on each of the four other phones
   is recorded. Like htmx, each phone then fetches its view; that time is reported too.
2. throughput: `--actors` tables post actions back to back for `--throughput-seconds`;
   the server's accepted actions per second and the time per action are reported (the
   other phones still receive every update and fetch their views).
3. memory: resident memory summed over the server's processes with the tables made and
   no stream open, again with the streams of half the tables open, and with every stream
   open: what the second half added, per stream, is the memory per open stream.

    .venv/bin/python bench/club.py [--tables 1 100 500] [--workers 2] [--worker-class gevent]

With `--database-url postgresql://...` every part runs `--servers` app servers (default
2) on their own ports, sharing a fresh schema of that PostgreSQL server, as several
machines behind a load balancer would: a table's phones are spread over the servers, so
most updates cross from one server to another (LISTEN/NOTIFY). The CPU figures then count
the PostgreSQL server's processes too (when it runs on this machine).

The client is one asyncio process (raw sockets), so thousands of streams cost it little.
Every wait has a timeout, the whole run is capped (`--cap`, default 900 s) and each
server is stopped at the end of its part whatever happens.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import random
import re
import resource
import secrets
import statistics
import sys
import time
from dataclasses import dataclass, field
from urllib.parse import quote

from harness import (BenchError, Deadline, EventStream, Phone, Server, command_line, cpu_seconds,
                     machine_busy_seconds, machine_line, ms_summary, new_rid, percentile,
                     process_tree, view_version)
from weight import goal_lines as weight_goals
from weight import measure_all as measure_weight

PLAYERS = ["Ana", "Ben", "Cara", "Dan", "Eve"]
HX = {"HX-Request": "true", "HX-Target": "view", "Accept-Encoding": "gzip, deflate"}
SETUP_CONCURRENCY = 16     # tables set up at once
OPEN_CONCURRENCY = 200     # streams being opened at once
DRAIN_SECONDS = 10.0       # after a phase, how long updates still in flight may take

# The goals the figures are held against.
CPU_PER_ACTION_GOAL_MS = 8.0          # server CPU per action, the views of its four other phones included
UPDATE_P95_GOAL_MS = 100.0            # last of the four other phones, 95th percentile
LATENCY_GOAL_CLUBS = [(500, 50.0), (2000, 100.0)]   # (tables of five phones, actions a second)
THROUGHPUT_GOAL = 400.0               # actions a second at saturation...
THROUGHPUT_P99_GOAL_MS = 500.0        # ...each answered within this, 99 times in 100
STREAM_MEMORY_GOAL_KIB = 12.0         # per open stream; "near" it: up to a quarter more
STREAM_MEMORY_MIN_STREAMS = 500       # fewer streams are lost in the noise of the RSS


@dataclass
class Listener:
    """One of the four phones that did not act: when updates and views reached it."""
    index: int
    seen: int = 0          # highest version whose update arrived
    shown: int = 0         # highest version its fetched view showed
    fetching: bool = False
    again: bool = False


@dataclass
class Table:
    code: str
    phones: list
    version: int = 0
    streams: list = field(default_factory=list)
    listeners: dict = field(default_factory=dict)   # phone index -> Listener
    sent: dict = field(default_factory=dict)        # version -> perf_counter before its post
    arrived: dict = field(default_factory=dict)     # version -> {phone index: seconds}
    visible: dict = field(default_factory=dict)     # version -> {phone index: seconds}
    phase: dict = field(default_factory=dict)       # version -> phase name


class SharedDatabase:
    """A fresh schema on a PostgreSQL server for one part of the run, dropped after it;
    and the CPU time of that server's processes when it runs on this machine."""

    def __init__(self, server_url: str):
        import psycopg
        self.server_url = server_url
        self.schema = f"bench_{secrets.token_hex(4)}"
        with psycopg.connect(server_url, autocommit=True) as admin:
            admin.execute(f"CREATE SCHEMA {self.schema}")
            backend = admin.execute("SELECT pg_backend_pid()").fetchone()[0]
            self.postmaster = _parent_pid(backend)
        sep = "&" if "?" in server_url else "?"
        self.url = f"{server_url}{sep}options={quote(f'-csearch_path={self.schema}')}"

    def cpu_seconds(self) -> float:
        if self.postmaster is None:
            return 0.0
        return cpu_seconds(process_tree(self.postmaster), reaped_of=self.postmaster)

    def drop(self) -> None:
        import psycopg
        with psycopg.connect(self.server_url, autocommit=True) as admin:
            admin.execute(f"DROP SCHEMA {self.schema} CASCADE")


def _parent_pid(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return int(handle.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None  # the server runs elsewhere: its CPU is not counted


class Fleet:
    """The app servers of one part (one, or several sharing PostgreSQL), seen as one."""

    def __init__(self, servers: list[Server], database: SharedDatabase | None = None):
        self.servers = servers
        self.database = database

    @property
    def ports(self) -> list[int]:
        return [server.port for server in self.servers]

    def start(self, deadline: Deadline) -> None:
        for server in self.servers:
            server.start(deadline)

    def describe(self) -> str:
        n = len(self.servers)
        if self.database is None:
            where = "SQLite"
        elif self.database.postmaster is None:
            where = "PostgreSQL (not on this machine: its CPU is not counted)"
        else:
            where = "PostgreSQL on this machine (its CPU counted with the servers')"
        return f"{n} server{'s' if n != 1 else ''}, each {self.servers[0].describe()}; {where}"

    @property
    def cpu_label(self) -> str:
        if self.database is None or self.database.postmaster is None:
            return "server" if len(self.servers) == 1 else "servers"
        return "servers+PostgreSQL"

    def memory(self) -> dict:
        found = [server.memory() for server in self.servers]
        return {key: sum(m[key] for m in found) for key in found[0]}

    def cpu_seconds(self) -> float:
        used = sum(server.cpu_seconds() for server in self.servers)
        return used + (self.database.cpu_seconds() if self.database else 0.0)

    def system_seconds(self) -> float:
        """The app servers' time in the kernel (`--against` runs on SQLite: no database server)."""
        return sum(server.system_seconds() for server in self.servers)

    def log_tail(self) -> str:
        return "\n".join(server.log_tail() for server in self.servers if server.log_tail())

    def stop(self) -> None:
        for server in self.servers:
            server.stop()
        if self.database is not None:
            self.database.drop()


def server_timing(header: str):
    """(slot, app) in seconds from the server's `Server-Timing: slot;dur=..., app;dur=...`
    (production_app gives it), or None."""
    found = dict(re.findall(r"(\w+);dur=([0-9.]+)", header))
    if "slot" not in found or "app" not in found:
        return None
    return float(found["slot"]) / 1000, float(found["app"]) / 1000


class Club:
    def __init__(self, ports: list[int], n_tables: int, fetch_views: bool, deadline: Deadline,
                 push_views: bool = True, languages: list[str] | None = None):
        self.ports = ports
        self.languages = languages or []  # Accept-Language of the phones, in turn (none: not sent)
        self.n_tables = n_tables
        self.fetch_views = fetch_views
        self.push_views = push_views and fetch_views
        self.deadline = deadline
        self.tables: list[Table] = []
        self.by_code: dict[str, Table] = {}
        self.errors: dict[str, int] = {}
        self.first_errors: list[str] = []
        self.post_times: dict[str, list] = {}
        # (time unread, time waiting for the request slot, time in the app) per accepted post
        self.post_parts: dict[str, list] = {}
        self.fetches: set = set()   # view fetches on their way
        self.phase = "setup"

    def error(self, kind: str, detail: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1
        if len(self.first_errors) < 8:
            self.first_errors.append(f"{kind}: {detail}")

    # -- setting up ----------------------------------------------------------------------------

    async def setup(self) -> None:
        gate = asyncio.Semaphore(SETUP_CONCURRENCY)

        async def one(i):
            async with gate:
                # Behind a load balancer a table's phones land on different servers.
                phones = [Phone(self.ports[(i + s) % len(self.ports)], f"table {i} phone {s}",
                                language=self.language_of(i, s))
                          for s in range(len(PLAYERS))]
                reply = await phones[0].request("POST", "/api/tables", json_body=json.dumps({
                    "game": "wicked-forest", "players": PLAYERS, "options": {"first_leader": "0"}}).encode(),
                    headers={"Accept": "application/json"}, timeout=self.deadline.step())
                if reply.status != 201:
                    raise BenchError(f"creating a table: {reply.status} {reply.body[:200]!r}")
                code = json.loads(reply.body)["code"]
                for seat, phone in enumerate(phones):
                    reply = await phone.request("POST", f"/api/tables/{code}/seats/{seat}",
                                                headers={"Accept": "application/json"},
                                                timeout=self.deadline.step())
                    if reply.status != 201:
                        raise BenchError(f"taking seat {seat}: {reply.status} {reply.body[:200]!r}")
                table = Table(code, phones)
                table.listeners = {s: Listener(s) for s in range(1, len(PLAYERS))}
                # Its set-up connections closed at once (the phones reconnect when they next
                # need to): all the tables' kept open together would leave the server's
                # memory grown by them, freed but still resident, and the streams opened next
                # would take that memory instead of adding theirs to the figure.
                await asyncio.gather(*(phone.close() for phone in phones))
                return table

        self.tables = list(await asyncio.gather(*(one(i) for i in range(self.n_tables))))
        self.by_code = {t.code: t for t in self.tables}

    def language_of(self, table: int, seat: int) -> str | None:
        """The language phone `seat` of table `table` asks for: the languages in turn along a
        table's phones, starting one further at each table, so the acting phone (seat 0)
        takes each language in turn too."""
        if not self.languages:
            return None
        return self.languages[(table + seat) % len(self.languages)]

    async def open_streams(self, tables: list | None = None) -> int:
        """Open the streams of `tables` (default all); the number of streams open."""
        gate = asyncio.Semaphore(OPEN_CONCURRENCY)

        async def one(table, index):
            async with gate:
                stream = EventStream(table.phones[index], table.code, table.version,
                                     self.on_update, self.on_problem,
                                     on_view=self.on_view if self.push_views else None)
                stream.table = table
                stream.index = index
                table.streams.append(stream)
                stream.start()
                await asyncio.wait_for(stream.opened.wait(), self.deadline.step())

        await asyncio.gather(*(one(t, i) for t in (self.tables if tables is None else tables)
                               for i in range(len(PLAYERS))))
        return sum(len(t.streams) for t in self.tables)

    async def close_streams(self) -> None:
        for task in list(self.fetches):  # a fetch still on its way would find its phone closed
            task.cancel()
        await asyncio.gather(*self.fetches, return_exceptions=True)
        await asyncio.gather(*(s.stop() for t in self.tables for s in t.streams))
        await asyncio.gather(*(p.close() for t in self.tables for p in t.phones))

    # -- what the phones do ----------------------------------------------------------------------

    def on_problem(self, stream, exc) -> None:
        self.error("stream dropped", f"{stream.table.code} phone {stream.index}: {exc!r}")

    def on_view(self, stream, html: bytes, arrived: float) -> None:
        """A view pushed by the stream: on the phone's screen with no fetch."""
        listener = stream.table.listeners.get(stream.index)
        shown = view_version(html)
        if listener is None or shown is None:
            return
        self.shown(stream.table, listener, shown, arrived)

    def shown(self, table: Table, listener: Listener, shown: int, when: float) -> None:
        for v in range(listener.shown + 1, shown + 1):
            if v in table.sent:
                table.visible.setdefault(v, {})[listener.index] = when - table.sent[v]
        listener.shown = max(listener.shown, shown)

    def on_update(self, stream, version: int, arrived: float) -> None:
        table, index = stream.table, stream.index
        listener = table.listeners.get(index)
        if listener is None:
            return  # the acting phone: its own post already brought its view back
        # An update for version v also tells of every version before it not yet seen.
        for v in range(listener.seen + 1, version + 1):
            if v in table.sent:
                table.arrived.setdefault(v, {})[index] = arrived - table.sent[v]
        listener.seen = max(listener.seen, version)
        if self.fetch_views and listener.shown < version:  # a pushed view came first: no fetch
            if listener.fetching:
                listener.again = True  # htmx's hx-sync replace: one more fetch after this one
            else:
                listener.fetching = True
                task = asyncio.get_running_loop().create_task(self.fetch_view(table, listener))
                self.fetches.add(task)
                task.add_done_callback(self.fetches.discard)

    async def fetch_view(self, table: Table, listener: Listener) -> None:
        phone = table.phones[listener.index]
        try:
            while True:
                listener.again = False
                try:
                    reply = await phone.request("GET", f"/t/{table.code}/view", headers=HX,
                                                timeout=self.deadline.step())
                except (BenchError, asyncio.TimeoutError, OSError) as exc:
                    self.error("view fetch failed", f"{table.code}: {exc!r}")
                    return
                done = time.perf_counter()
                if reply.status != 200:
                    self.error("view fetch answered non-200", f"{table.code}: {reply.status}")
                    return
                shown = view_version(_body(reply))
                if shown is None:
                    self.error("view without a version", table.code)
                    return
                self.shown(table, listener, shown, done)
                if not listener.again:
                    return
        finally:
            listener.fetching = False

    async def act(self, table: Table) -> bool:
        """The first phone taps an action; True when the server accepted it."""
        count = 20 if table.version % 2 == 0 else 21
        form = {"action": "set_draw_pile", "count": str(count), "version": str(table.version),
                "rid": new_rid(), "seat": "0"}
        started = time.perf_counter()
        table.sent[table.version + 1] = started
        table.phase[table.version + 1] = self.phase
        try:
            reply = await table.phones[0].request("POST", f"/t/{table.code}/act", headers=HX, form=form,
                                                  timeout=self.deadline.step())
        except (BenchError, asyncio.TimeoutError, OSError) as exc:
            del table.sent[table.version + 1]
            self.error("action failed", f"{table.code}: {exc!r}")
            return False
        took = time.perf_counter() - started
        shown = view_version(_body(reply)) if reply.status == 200 else None
        if shown != table.version + 1:
            del table.sent[table.version + 1]
            self.error("action refused", f"{table.code}: {reply.status}, view shows {shown}")
            if shown is not None:
                table.version = shown
            return False
        table.version = shown
        self.post_times.setdefault(self.phase, []).append(took)
        served = server_timing(reply.headers.get("server-timing", ""))
        if served is not None:
            slot, app = served
            self.post_parts.setdefault(self.phase, []).append((max(0.0, took - slot - app), slot, app))
        return True

    # -- the phases ------------------------------------------------------------------------------

    async def paced(self, seconds: float, rate: float) -> None:
        """Every table acts on a steady beat; together they make `rate` actions a second."""
        self.phase = "latency"
        interval = max(self.n_tables / rate, 0.2)
        start = time.perf_counter()
        end = start + min(seconds, self.deadline.remaining() - 60)

        async def actor(table):
            beat = start + random.uniform(0, interval)
            while True:
                # A beat after the end is not waited for: with more tables than the rate
                # times the phase's length, some tables act not at all, and the phase
                # (and its CPU, which counts the idle streams' keepalives) still ends on time.
                if beat >= end:
                    return
                now = time.perf_counter()
                if beat > now:
                    await asyncio.sleep(beat - now)
                await self.act(table)
                beat = max(beat + interval, time.perf_counter())

        await asyncio.gather(*(actor(t) for t in self.tables))
        await self.drain()

    async def flat_out(self, seconds: float, actors: int) -> tuple[list[int], float]:
        """`actors` tables post back to back; returns (actions accepted per table, elapsed seconds)."""
        self.phase = "throughput"
        chosen = self.tables[:actors]
        accepted = [0] * len(chosen)
        start = time.perf_counter()
        end = start + min(seconds, self.deadline.remaining() - 60)

        async def actor(i, table):
            while time.perf_counter() < end:
                if await self.act(table):
                    accepted[i] += 1

        await asyncio.gather(*(actor(i, t) for i, t in enumerate(chosen)))
        elapsed = time.perf_counter() - start
        await self.drain()
        return accepted, elapsed

    async def drain(self) -> None:
        """Wait for the updates and views still on their way, then count what never came."""
        limit = time.perf_counter() + min(DRAIN_SECONDS, max(1.0, self.deadline.remaining() - 30))
        while time.perf_counter() < limit and self.missing():
            await asyncio.sleep(0.1)
        for table, v, kind in self.missing():
            self.error(f"{kind} never arrived", f"{table.code} version {v}")

    def missing(self) -> list:
        """(table, version, what) for every action of this phase not yet seen by all."""
        wanted = len(PLAYERS) - 1
        found = []
        for table in self.tables:
            for v, phase in table.phase.items():
                if phase != self.phase or v not in table.sent:
                    continue
                if len(table.arrived.get(v, {})) < wanted:
                    found.append((table, v, "update"))
                elif self.fetch_views and len(table.visible.get(v, {})) < wanted:
                    found.append((table, v, "view"))
        return found

    def samples(self, phase: str):
        arrive_each, arrive_last, visible_last = [], [], []
        for table in self.tables:
            for v, t_phase in table.phase.items():
                if t_phase != phase or v not in table.sent:
                    continue
                arrived = table.arrived.get(v, {})
                arrive_each.extend(arrived.values())
                if len(arrived) == len(PLAYERS) - 1:
                    arrive_last.append(max(arrived.values()))
                visible = table.visible.get(v, {})
                if len(visible) == len(PLAYERS) - 1:
                    visible_last.append(max(visible.values()))
        return arrive_each, arrive_last, visible_last


def _body(reply) -> bytes:
    if reply.headers.get("content-encoding") == "gzip":
        return gzip.decompress(reply.body)
    if reply.headers.get("content-encoding"):
        raise BenchError(f"unexpected content coding {reply.headers['content-encoding']}")
    return reply.body


class LoopLag:
    """How late this client's own event loop runs a callback asked for every `step` seconds:
    a round trip measured here includes the time this process took to get to the answer, so
    a lag shows which part of a slow round trip is the client's and not the server's."""

    def __init__(self, step: float = 0.005):
        self.step = step
        self.lags: list[float] = []
        self.task = None

    async def _watch(self) -> None:
        while True:
            asked = time.perf_counter()
            await asyncio.sleep(self.step)
            self.lags.append(max(0.0, time.perf_counter() - asked - self.step))

    def __enter__(self):
        self.task = asyncio.get_running_loop().create_task(self._watch())
        return self

    def __exit__(self, *exc) -> None:
        self.task.cancel()


async def run_club(server: Fleet, n_tables: int, args, deadline: Deadline) -> dict:
    club = Club(server.ports, n_tables, not args.no_fetch, deadline, push_views=not args.fetch_only,
                languages=args.languages)
    t0 = time.perf_counter()
    await club.setup()
    setup_s = time.perf_counter() - t0
    await asyncio.sleep(1.0)
    memory_idle = server.memory()
    # The streams open in two halves, the memory measured after each: what the second half
    # adds is what a stream costs. Measured from no stream, the first streams also take the
    # memory a server frees and keeps (its start, the set-up), and seem to cost less.
    half = n_tables // 2
    half_streams, memory_half, open_s = 0, None, 0.0
    if half:
        t0 = time.perf_counter()
        half_streams = await club.open_streams(club.tables[:half])
        open_s = time.perf_counter() - t0
        await asyncio.sleep(2.0)  # let every worker settle with its streams
        memory_half = server.memory()
    t0 = time.perf_counter()
    streams = await club.open_streams(club.tables[half:])
    open_s += time.perf_counter() - t0
    await asyncio.sleep(2.0)
    memory_streams = server.memory()
    result = {"tables": n_tables, "streams": streams, "setup_s": setup_s, "open_s": open_s,
              "memory_idle": memory_idle, "memory_streams": memory_streams,
              "half_streams": half_streams, "memory_half": memory_half}
    try:
        cpu, own, wall, busy = server.cpu_seconds(), time.process_time(), time.perf_counter(), machine_busy_seconds()
        with LoopLag() as lag:
            await club.paced(args.seconds, args.rate)
        result["latency_client_lag"] = lag.lags
        result["latency"] = club.samples("latency")
        result["latency_posts"] = club.post_times.get("latency", [])
        result["latency_post_parts"] = club.post_parts.get("latency", [])
        result["latency_cpu"] = (server.cpu_seconds() - cpu, time.process_time() - own,
                                 time.perf_counter() - wall, machine_busy_seconds() - busy)
        actors = min(args.actors, n_tables)
        cpu, own, wall, busy = server.cpu_seconds(), time.process_time(), time.perf_counter(), machine_busy_seconds()
        with LoopLag() as lag:
            per_table, elapsed = await club.flat_out(args.throughput_seconds, actors)
        result["throughput"] = {"actors": actors, "accepted": sum(per_table), "per_table": per_table,
                                "elapsed": elapsed,
                                "posts": club.post_times.get("throughput", []),
                                "post_parts": club.post_parts.get("throughput", []),
                                "samples": club.samples("throughput"),
                                "client_lag": lag.lags,
                                "cpu": (server.cpu_seconds() - cpu, time.process_time() - own,
                                        time.perf_counter() - wall, machine_busy_seconds() - busy)}
        result["memory_after"] = server.memory()
        result["reconnects"] = sum(s.reconnects for t in club.tables for s in t.streams)
        result["keepalives"] = sum(s.keepalives for t in club.tables for s in t.streams)
    finally:
        await club.close_streams()
    result["errors"] = dict(club.errors)
    result["first_errors"] = list(club.first_errors)
    return result


async def run_pair(fleets: list[Fleet], n_tables: int, args, deadline: Deadline) -> dict:
    """Two clubs of `n_tables` each, one on each fleet (the first's phones in `--languages`,
    the second's in `--against`), every stream of both open; then the latency phase in
    slices of `--slice-seconds`, the two clubs in turn (A B, B A, A B, ...), after a slice
    each that is not counted: each club's
    server CPU per action counted over its own slices only. Whatever slows the machine for
    a while (a neighbour, the clock) falls on both alike, so their ratio is steadier than
    two runs' figures taken minutes apart."""
    clubs = [Club(fleet.ports, n_tables, not args.no_fetch, deadline, push_views=not args.fetch_only,
                  languages=languages)
             for fleet, languages in zip(fleets, (args.languages, args.against))]
    for club in clubs:
        await club.setup()
    for club in clubs:
        await club.open_streams()
    await asyncio.sleep(2.0)
    # One slice each first, not counted: the first moves of a club make what later ones
    # reuse (each language's words, each table's first parts), a third of the mixed club's
    # first slice.
    for club in clubs:
        await club.paced(args.slice_seconds, args.rate)
    result = {"tables": n_tables, "streams": [sum(len(t.streams) for t in c.tables) for c in clubs],
              "slices": [[], []], "system": [0.0, 0.0], "memory_streams": [fleet.memory() for fleet in fleets]}
    try:
        for pair in range(args.pairs):
            order = (0, 1) if pair % 2 == 0 else (1, 0)
            for index in order:
                club, fleet = clubs[index], fleets[index]
                before = len(club.post_times.get("latency", []))
                cpu, system = fleet.cpu_seconds(), fleet.system_seconds()
                await club.paced(args.slice_seconds, args.rate)
                spent = fleet.cpu_seconds() - cpu
                actions = len(club.post_times.get("latency", [])) - before
                result["slices"][index].append((spent, actions))
                result["system"][index] += fleet.system_seconds() - system
            first, second = (result["slices"][i][-1] for i in (0, 1))
            print(f"   pair {pair + 1}: {_per_action_ms(*first):.2f} against {_per_action_ms(*second):.2f} ms "
                  f"of CPU per action ({first[1]} and {second[1]} actions)", flush=True)
        result["memory_after"] = [fleet.memory() for fleet in fleets]
        result["latency"] = [club.samples("latency") for club in clubs]
    finally:
        for club in clubs:
            await club.close_streams()
    result["errors"] = [dict(club.errors) for club in clubs]
    result["first_errors"] = [list(club.first_errors) for club in clubs]
    return result


def _per_action_ms(spent: float, actions: int) -> float:
    return spent / max(1, actions) * 1000


def report_pair(fleets: list[Fleet], result: dict, args) -> bool:
    """Prints the paired run's figures; True when neither club had an error."""
    names = [" ".join(args.languages) if args.languages else "English (none sent)", " ".join(args.against)]
    n = result["tables"]
    print(f"\n== {n} tables of {len(PLAYERS)} phones on each of two servers ({fleets[0].describe()}), "
          f"in turn, {args.pairs} pairs of {args.slice_seconds:.0f} s slices")
    ratios = [_per_action_ms(*b) / _per_action_ms(*a) for a, b in zip(*result["slices"])]
    for index, name in enumerate(names):
        spent = sum(s for s, _ in result["slices"][index])
        actions = sum(a for _, a in result["slices"][index])
        last = result["latency"][index][1]
        ma = result["memory_after"][index]
        print(f"   {name}: {result['streams'][index]} streams; {_per_action_ms(spent, actions):.2f} ms of CPU per "
              f"action ({_per_action_ms(result['system'][index], actions):.2f} of it in the kernel) "
              f"over {actions} actions; update p95 (last of 4) "
              f"{percentile(last, 0.95) * 1000 if last else float('nan'):.1f} ms; memory after "
              f"{ma['rss_mib']:.1f} MiB RSS; errors {sum(result['errors'][index].values())}"
              + (f" {result['errors'][index]}" if result["errors"][index] else ""))
        for line in result["first_errors"][index]:
            print(f"     {line}")
    print(f"   >> {names[1]} against {names[0]}: median {(statistics.median(ratios) - 1) * 100:+.1f} % "
          f"(pairs {', '.join(f'{(r - 1) * 100:+.1f}' for r in ratios)})")
    sys.stdout.flush()
    return not any(sum(errors.values()) for errors in result["errors"])


def other_cpu(busy: float, server_cpu: float, client_cpu: float, wall: float) -> str:
    """What the rest of the machine used meanwhile: a busy neighbour disturbs the figures."""
    return f"{max(0.0, busy - server_cpu - client_cpu) / wall * 100:.0f}%"


def print_post_parts(parts: list, p: float) -> None:
    """Where a post's round trip went, from the server's Server-Timing: unread (in the
    socket, waiting for the worker's event loop to read it), waiting for the request slot,
    in the app. A wait that is not in the app is the server's scheduling, not the move."""
    if not parts:
        print("       (no Server-Timing in the answers: not the production app)")
        return
    for index, label in enumerate(("unread by the server", "waiting for the slot", "in the app")):
        print(f"       of it, {label:21s}  {ms_summary([part[index] for part in parts], p)}")


def report(server: Fleet, result: dict, args) -> None:
    n = result["tables"]
    print(f"\n== {n} table{'s' if n != 1 else ''} of {len(PLAYERS)} phones: {result['streams']} open streams; "
          f"{server.describe()}" + (f"; phones in {' '.join(args.languages)}" if args.languages else ""))
    print(f"   set up in {result['setup_s']:.1f} s, streams opened in {result['open_s']:.1f} s")
    cpu_ms = cpu_per_action_ms(result)
    if cpu_ms is not None:
        print(f"   >> CPU per action: {cpu_ms:.1f} ms ({server.cpu_label}, latency phase, the views of its four other phones "
              f"included; goal <= {CPU_PER_ACTION_GOAL_MS:.0f} ms: {'met' if cpu_ms <= CPU_PER_ACTION_GOAL_MS else 'NOT MET'})")
    mi, ms, mh = result["memory_idle"], result["memory_streams"], result["memory_half"]
    print(f"   memory, {mi['processes']} processes:  no stream {mi['rss_mib']:7.1f} MiB RSS ({mi['pss_mib']:.1f} PSS)"
          + (f"   {result['half_streams']} streams {mh['rss_mib']:7.1f} MiB RSS ({mh['pss_mib']:.1f} PSS)" if mh else "")
          + f"   {result['streams']} streams {ms['rss_mib']:7.1f} MiB RSS ({ms['pss_mib']:.1f} PSS)")
    rss_kib, pss_kib, _counted = stream_memory_kib(result)
    from_idle = (ms["rss_mib"] - mi["rss_mib"]) * 1024 / max(1, result["streams"])
    print(f"   memory per open stream: {rss_kib:.1f} KiB RSS ({pss_kib:.1f} KiB PSS)"
          + (f", what the second {result['streams'] - result['half_streams']} streams added each; "
             f"{from_idle:.1f} KiB counted from no stream" if mh else ""))
    if "latency" in result:
        each, last, visible = result["latency"]
        posts = result["latency_posts"]
        interval = max(n / args.rate, 0.2)
        print(f"   latency phase: {len(posts)} actions in {args.seconds:.0f} s "
              f"(each table every {interval:.1f} s, {len(posts) / args.seconds:.1f} actions/s)")
        print(f"     update arrives, each phone        {ms_summary(each)}")
        print(f"     update arrives, last of 4 phones  {ms_summary(last)}")
        if not args.no_fetch:
            print(f"     view shown,    last of 4 phones   {ms_summary(visible)}   ({'pushed by the stream' if not args.fetch_only else 'fetched after the update'})")
        print(f"     action post round trip            {ms_summary(posts)}")
        print_post_parts(result["latency_post_parts"], 0.95)
        print(f"     this client's own lag (late by)   {ms_summary(result['latency_client_lag'], 0.95)}")
        server_cpu, client_cpu, wall, busy = result["latency_cpu"]
        print(f"     CPU: {server.cpu_label} {server_cpu / wall * 100:.0f}% of one core "
              f"({server_cpu / max(1, len(posts)) * 1000:.1f} ms per action, the other phones' views included), "
              f"this client {client_cpu / wall * 100:.0f}%, other processes {other_cpu(busy, server_cpu, client_cpu, wall)}")
    if "throughput" in result:
        tp = result["throughput"]
        rate = tp["accepted"] / tp["elapsed"] if tp["elapsed"] else 0.0
        posts = tp["posts"]
        each, last, visible = tp["samples"]
        print(f"   throughput: {tp['actors']} tables acting back to back for {tp['elapsed']:.1f} s: "
              f"{tp['accepted']} actions accepted, {rate:.1f} actions/s")
        if posts:
            print(f"     time per action                   median {statistics.median(posts) * 1000:7.1f} ms   "
                  f"p99 {percentile(posts, 0.99) * 1000:7.1f} ms   worst {max(posts) * 1000:7.1f} ms")
        print_post_parts(tp["post_parts"], 0.99)
        print(f"     this client's own lag (late by)   {ms_summary(tp['client_lag'], 0.99)}")
        # Fair service gives every pressing table about the same number of actions; a
        # table starved for a while falls behind however fast the median is.
        spread = sorted(tp["per_table"])
        print(f"     actions per pressing table        fewest {spread[0]}   median {statistics.median(spread):.0f}   "
              f"most {spread[-1]}")
        print(f"     meanwhile update arrives, each    {ms_summary(each)}")
        server_cpu, client_cpu, wall, busy = tp["cpu"]
        print(f"     CPU: {server.cpu_label} {server_cpu / wall * 100:.0f}% of one core "
              f"({server_cpu / max(1, tp['accepted']) * 1000:.1f} ms per action), this client {client_cpu / wall * 100:.0f}%, "
              f"other processes {other_cpu(busy, server_cpu, client_cpu, wall)}")
        ma = result["memory_after"]
        print(f"   memory after both phases: {ma['rss_mib']:.1f} MiB RSS ({ma['pss_mib']:.1f} PSS); "
              f"stream reconnects {result['reconnects']}, keepalives received {result['keepalives']}")
    errors = result["errors"]
    print(f"   errors: {sum(errors.values())}" + (f" {errors}" if errors else ""))
    for line in result["first_errors"]:
        print(f"     {line}")
    sys.stdout.flush()


def cpu_per_action_ms(result: dict) -> float | None:
    """The headline: the servers' CPU per action in the latency phase, the other phones' views included."""
    posts = result.get("latency_posts")
    if not posts:
        return None
    return result["latency_cpu"][0] / len(posts) * 1000


def stream_memory_kib(result: dict) -> tuple[float, float, int]:
    """What one open stream adds to the servers' memory (RSS, PSS), in KiB: the growth while
    the second half of the streams opened, per stream (from no stream with one table); and
    how many streams that growth is of."""
    base, n = result["memory_idle"], result["streams"]
    if result.get("memory_half"):
        base, n = result["memory_half"], n - result["half_streams"]
    ms, per = result["memory_streams"], max(1, n)
    return ((ms["rss_mib"] - base["rss_mib"]) * 1024 / per, (ms["pss_mib"] - base["pss_mib"]) * 1024 / per, n)


def goals(result: dict, args) -> list[tuple[str, str, bool | None]]:
    """(goal, measured, met) for one part; met is None where this part does not measure it."""
    n, errors = result["tables"], sum(result["errors"].values())
    found = []
    cpu_ms = cpu_per_action_ms(result)
    found.append((f"CPU per action <= {CPU_PER_ACTION_GOAL_MS:.0f} ms (the 4 other phones' views included)",
                  f"{cpu_ms:.1f} ms" if cpu_ms is not None else "no action",
                  None if cpu_ms is None else cpu_ms <= CPU_PER_ACTION_GOAL_MS))
    for tables, rate in LATENCY_GOAL_CLUBS:
        goal = (f"update p95 (last of 4) < {UPDATE_P95_GOAL_MS:.0f} ms and 0 errors at {tables} tables "
                f"x 5 phones, {rate:.0f} actions/s")
        if n != tables or args.rate != rate or "latency" not in result:
            continue
        last = result["latency"][1]
        p95 = percentile(last, 0.95) * 1000 if last else None
        found.append((goal, f"p95 {p95:.1f} ms, {errors} errors" if p95 is not None else f"no samples, {errors} errors",
                      p95 is not None and p95 < UPDATE_P95_GOAL_MS and errors == 0))
    if "throughput" in result:
        tp = result["throughput"]
        rate = tp["accepted"] / tp["elapsed"] if tp["elapsed"] else 0.0
        p99 = percentile(tp["posts"], 0.99) * 1000 if tp["posts"] else float("inf")
        found.append((f"throughput at saturation >= {THROUGHPUT_GOAL:.0f} actions/s with p99 < "
                      f"{THROUGHPUT_P99_GOAL_MS:.0f} ms", f"{rate:.1f} actions/s, p99 {p99:.1f} ms "
                      f"({tp['actors']} tables pressing)",
                      rate >= THROUGHPUT_GOAL and p99 < THROUGHPUT_P99_GOAL_MS))
    rss_kib, _pss, counted = stream_memory_kib(result)
    enough = counted >= STREAM_MEMORY_MIN_STREAMS
    found.append((f"memory per open stream near {STREAM_MEMORY_GOAL_KIB:.0f} KiB (at most a quarter more)",
                  f"{rss_kib:.1f} KiB RSS" + ("" if enough else f" (under {STREAM_MEMORY_MIN_STREAMS} streams: not judged)"),
                  rss_kib <= STREAM_MEMORY_GOAL_KIB * 1.25 if enough else None))
    return found


def print_goals(parts: list[tuple[int, list]], weight: list | None) -> None:
    print("\n== Against the goals")
    for n, found in parts:
        for goal, measured, met in found:
            verdict = "  --   " if met is None else ("met    " if met else "NOT MET")
            print(f"   {verdict} {n:>5} tables: {goal}: {measured}")
    covered = {(n, rate) for n, found in parts for goal, _m, _v in found
               for tables, rate in LATENCY_GOAL_CLUBS if n == tables and f"{tables} tables x" in goal}
    for tables, rate in LATENCY_GOAL_CLUBS:
        if (tables, rate) not in covered:
            print(f"     --          update p95 at {tables} tables, {rate:.0f} actions/s: not measured "
                  f"(run with --tables {tables} --rate {rate:.0f})")
    if weight is None:
        print("     --          page weight: not measured (--no-weight, or the first part failed)")
    else:
        for goal, measured, met in weight:
            print(f"   {'met    ' if met else 'NOT MET'}        {goal}: {measured}")
    sys.stdout.flush()


def languages_line(languages: list[str] | None) -> str:
    if not languages:
        return "no Accept-Language sent: every phone reads English"
    n = len(PLAYERS)
    example = ", ".join(languages[s % len(languages)] for s in range(n))
    return (f"each table's {n} phones send Accept-Language in turn over {' '.join(languages)} "
            f"(table 1: {example}; the next table starts one further), in both phases")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[1, 100, 500],
                        help="numbers of tables to try, each on a fresh server (default 1 100 500)")
    parser.add_argument("--port", type=int, default=None,
                        help="the first server's port, the others' after it (default: free ports)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn worker processes (default 2)")
    parser.add_argument("--worker-class", default="gevent", choices=["gevent", "gthread"],
                        help="gunicorn worker class (default gevent, as gunicorn.conf.py)")
    parser.add_argument("--threads", type=int, default=None, help="gthread threads per worker (default: the config's)")
    parser.add_argument("--dev", action="store_true", help="the development server (app.py) instead of gunicorn")
    parser.add_argument("--config", default=None, help="another gunicorn config file (default gunicorn.conf.py)")
    parser.add_argument("--rate", type=float, default=50.0,
                        help="actions a second the whole club makes in the latency phase (default 50); "
                             "each table acts every tables/rate seconds, at most every 0.2 s")
    parser.add_argument("--seconds", type=float, default=30.0, help="length of the latency phase (default 30)")
    parser.add_argument("--actors", type=int, default=50,
                        help="tables acting back to back in the throughput phase (default 50)")
    parser.add_argument("--throughput-seconds", type=float, default=15.0,
                        help="length of the throughput phase (default 15)")
    parser.add_argument("--no-fetch", action="store_true",
                        help="phones do not fetch their view after an update (push only)")
    parser.add_argument("--fetch-only", action="store_true",
                        help="phones do not ask their stream for views: each update is followed by a "
                             "fetch of the view (as before views were pushed)")
    parser.add_argument("--database-url", default=None,
                        help="a PostgreSQL server (postgresql://...) that the app servers share; "
                             "each part uses a fresh schema of it (default: SQLite)")
    parser.add_argument("--servers", type=int, default=None,
                        help="app servers, each on its own port (default 2 with --database-url, else 1)")
    parser.add_argument("--languages", nargs="+", default=None, metavar="CODE",
                        help="the phones' languages (e.g. en de fr): each table's phones send these as "
                             "Accept-Language in turn, so every page, view and pushed view is rendered "
                             "in its phone's language (default: no Accept-Language, all English)")
    parser.add_argument("--against", nargs="+", default=None, metavar="CODE",
                        help="a second server beside the first, its tables' phones in these languages: "
                             "the two clubs act in turn (--pairs slices of --slice-seconds each) and "
                             "each one's CPU per action is given, with their ratio (no throughput phase)")
    parser.add_argument("--pairs", type=int, default=6, help="with --against: slices of each club (default 6)")
    parser.add_argument("--slice-seconds", type=float, default=10.0,
                        help="with --against: length of one club's slice (default 10)")
    parser.add_argument("--no-weight", action="store_true",
                        help="leave out the page weight of every game (measured on the first part's server)")
    parser.add_argument("--cap", type=float, default=900.0, help="hard cap on the whole run in seconds")
    args = parser.parse_args()
    if args.servers is None:
        args.servers = 2 if args.database_url else 1
    if args.servers > 1 and not args.database_url:
        parser.error("several servers share a PostgreSQL database: give --database-url")
    for codes in (args.languages, args.against):
        if codes and not all(re.fullmatch(r"[a-z]{2}(-[A-Z]{2})?", code) for code in codes):
            parser.error("--languages and --against take language codes such as en de fr (or de-DE)")
    if args.against and (args.pairs < 1 or args.slice_seconds <= 0 or args.database_url):
        parser.error("--against takes --pairs >= 1 and --slice-seconds > 0, on SQLite")
    if args.rate <= 0 or args.seconds <= 0 or args.actors < 1 or min(args.tables) < 1 or args.servers < 1:
        parser.error("rates, lengths and counts must be positive")

    # Every phone holds two connections here (its stream and its requests), and the
    # servers started inherit the limit: allow as many open files as this user may have.
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    deadline = Deadline(args.cap)
    print(f"Forest Table club benchmark on loopback: {machine_line()}")
    print(f"command: {command_line()}")
    print(f"languages: {languages_line(args.languages)}")
    if args.against:
        return paired_main(args, deadline)
    status = 0
    parts, weight = [], None
    for n_tables in args.tables:
        database = SharedDatabase(args.database_url) if args.database_url else None
        env = {"FOREST_TABLE_DATABASE_URL": database.url} if database else {}
        servers = [Server(kind="dev" if args.dev else "gunicorn", workers=args.workers,
                          worker_class=args.worker_class, threads=args.threads, env=dict(env),
                          port=args.port + i if args.port else 0)
                   for i in range(args.servers)]
        for one in servers:
            if args.config:
                one.config = args.config
        server = Fleet(servers, database)
        try:
            server.start(deadline)
            result = asyncio.run(asyncio.wait_for(run_club(server, n_tables, args, deadline),
                                                  max(1.0, deadline.remaining() - 20)))
            report(server, result, args)
            parts.append((n_tables, goals(result, args)))
            if sum(result["errors"].values()):
                status = 1
            if weight is None and not args.no_weight:
                # After the club's phases, on a server that is quiet again.
                weight = weight_goals(asyncio.run(asyncio.wait_for(
                    measure_weight(server.ports[0], deadline), max(1.0, deadline.remaining() - 20))))
        except (BenchError, asyncio.TimeoutError, OSError) as exc:
            print(f"\n== {n_tables} tables: benchmark failed: {exc!r}", file=sys.stderr)
            tail = server.log_tail()
            if tail:
                print(f"   server log:\n{tail}", file=sys.stderr)
            status = 1
        finally:
            server.stop()
        if deadline.remaining() < 60:
            print("stopping: the run's cap is near", file=sys.stderr)
            break
    print_goals(parts, weight)
    return status


def paired_main(args, deadline: Deadline) -> int:
    """`--against`: for each number of tables, two fresh servers side by side (`run_pair`)."""
    print(f"against: {languages_line(args.against)}, on a second server")
    status = 0
    for n_tables in args.tables:
        fleets = [Fleet([Server(kind="dev" if args.dev else "gunicorn", workers=args.workers,
                                worker_class=args.worker_class, threads=args.threads,
                                port=args.port + i if args.port else 0)])
                  for i in range(2)]
        try:
            for fleet in fleets:
                if args.config:
                    fleet.servers[0].config = args.config
                fleet.start(deadline)
            result = asyncio.run(asyncio.wait_for(run_pair(fleets, n_tables, args, deadline),
                                                  max(1.0, deadline.remaining() - 20)))
            if not report_pair(fleets, result, args):
                status = 1
        except (BenchError, asyncio.TimeoutError, OSError) as exc:
            print(f"\n== {n_tables} tables: benchmark failed: {exc!r}", file=sys.stderr)
            for fleet in fleets:
                if fleet.log_tail():
                    print(f"   server log:\n{fleet.log_tail()}", file=sys.stderr)
            status = 1
        finally:
            for fleet in fleets:
                fleet.stop()
        if deadline.remaining() < 60:
            print("stopping: the run's cap is near", file=sys.stderr)
            break
    return status


if __name__ == "__main__":
    sys.exit(main())
