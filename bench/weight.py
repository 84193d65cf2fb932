"""Page weight: the bytes a phone downloads to open a table, and for each update.

Starts the production server (gunicorn with `gunicorn.conf.py`) on a free loopback port
with a throwaway database and, for each game, seats five phones at a new table. Then:

- first load: phone 0 opens the table page as a browser does, and fetches everything
  the page loads (stylesheet, scripts, icon, web manifest and the icons it names);
- updates: phone 1 makes three moves; phone 0's stream (asking for views, as the table
  page does) pushes its view and the `update` event, gzipped as a browser accepts: their
  bytes as sent are the update. The first view a stream pushes goes whole; each after it
  goes as its change from the one before (the typical update of a game under way). The
  view fragment is also fetched both ways, for scale.

Every response is fetched three times: asking for gzip (what a browser on a plain-http LAN
accepts), for brotli too (what Chromium asks for over HTTPS and on loopback), and for no
compression; the body sizes are reported (the headers apart, as sent by this server). The
first-load goal is judged as sent to a phone that takes brotli; gzip is given beside it. Then each library the script
bundles, read from `node_modules` and gzipped alone with zopfli as the server compresses
its assets (pages load them bundled with the app's own script): what no change to the
app's own files takes off a first load. Standard library, bench/harness.py, and for the
libraries the app's own package and zopfli; capped at 120 s; the server is always stopped.

    .venv/bin/python bench/weight.py
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from harness import BenchError, Deadline, EventStream, Phone, Server

PROJECT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

PLAYERS = ["Ana", "Ben", "Cara", "Dan", "Eve"]
GZIP = {"Accept-Encoding": "gzip, deflate"}
# What Chromium asks for over HTTPS and on loopback: brotli where the server has it.
BROTLI = {"Accept-Encoding": "gzip, deflate, br, zstd"}
IDENTITY = {"Accept-Encoding": "identity"}
HX = {"HX-Request": "true", "HX-Target": "view", "HX-Current-URL": "http://127.0.0.1/"}

# (game, players, options, moves made by phone 1 in turn, each measured as an update)
GAMES = [
    ("wicked-forest", PLAYERS, {"first_leader": "0"}, [
        ("a card revealed", "reveal", {"card": 1, "flowers": 3, "witch": False}),
        ("a secret pick", "choose", {"choice": "stay", "decision": 1}),
        ("the draw pile set", "set_draw_pile", {"count": 19}),
    ]),
    ("woodland-wizards", PLAYERS, {"first_player": "0"}, [
        ("next phase", "next_phase", {"phase": "wandering"}),
        ("next phase", "next_phase", {"phase": "contest"}),
        ("next phase", "next_phase", {"phase": "boost"}),
    ]),
    ("explorers-of-the-woodlands", PLAYERS[:4],
     {"first_player": "0", "heroes": ["xylia", "klethor", "shavi", "bethras"], "thorns": "regular"}, [
        ("a hero's hit points", "set_hp", {"hero": "klethor", "hp": 4}),
        ("a tile placed", "place_tile", {"kind": "growth", "hero": "xylia"}),
        ("a hero's hit points", "set_hp", {"hero": "shavi", "hp": 3}),
    ]),
    ("mysterious-forest", PLAYERS, {"first_player": "0"}, [
        ("a setup step ticked", "tick", {"step": 0, "done": True}),
        ("a setup step ticked", "tick", {"step": 1, "done": True}),
        ("scouting starts", "start_scouting", {}),
    ]),
]
# The goals: a phone's first table page (everything it loads) as sent to a phone that takes
# brotli (gzip, for a phone on a plain-http LAN, is printed beside it), and one update.
FIRST_LOAD_GOAL = 36_000
UPDATE_GOAL = 3_000
LINKED = re.compile(rb'<(?:link|script)\b[^>]*?\b(?:href|src)="([^"]+)"')


async def fetch_both(phone: Phone, path: str, headers: dict | None = None) -> tuple[int, int, int, int]:
    """(identity body bytes, gzip body bytes, gzip header bytes, body bytes with brotli
    accepted) of one GET."""
    plain = await phone.request("GET", path, headers={**(headers or {}), **IDENTITY})
    packed = await phone.request("GET", path, headers={**(headers or {}), **GZIP})
    brotli = await phone.request("GET", path, headers={**(headers or {}), **BROTLI})
    for reply in (plain, packed, brotli):
        if reply.status != 200:
            raise BenchError(f"GET {path} -> {reply.status}")
    if plain.headers.get("content-encoding"):
        raise BenchError(f"GET {path} came compressed without being asked")
    return len(plain.body), len(packed.body), packed.wire_bytes - len(packed.body), len(brotli.body)


async def first_load(phone: Phone, code: str) -> list[tuple[str, int, int, int]]:
    rows = []
    page = await phone.request("GET", f"/t/{code}", headers=IDENTITY)
    if page.status != 200:
        raise BenchError(f"table page -> {page.status}")
    rows.append((f"/t/{code} (the page)", *await fetch_both(phone, f"/t/{code}")))
    seen = set()
    for match in LINKED.finditer(page.body):
        path = match.group(1).decode().replace("&amp;", "&")
        if path in seen or urlsplit(path).scheme:
            continue
        seen.add(path)
        rows.append((path, *await fetch_both(phone, path)))
        if path.split("?")[0].endswith(".webmanifest"):
            manifest = await phone.request("GET", path, headers=IDENTITY)
            for icon in json.loads(manifest.body).get("icons", []):
                src = icon.get("src")
                if src and src not in seen and not any(src == p.split("?")[0] for p in seen):
                    seen.add(src)
                    rows.append((f"{src} (from the manifest)", *await fetch_both(phone, src)))
    return rows


@dataclass
class GameWeight:
    game: str
    players: int
    first_load: list      # (path, plain bytes, gzipped bytes, gzip header bytes, bytes with brotli taken)
    updates: list = field(default_factory=list)  # (label, whole, pushed bytes, fragment plain, gzipped, headers)
    refused: list = field(default_factory=list)  # (label, why)

    @property
    def first_load_gzipped(self) -> int:
        return sum(row[2] for row in self.first_load)

    @property
    def first_load_brotli(self) -> int:
        return sum(row[4] for row in self.first_load)

    def update_gzipped(self, whole: bool) -> list[int]:
        """Each update as the phone receives it (the pushed view, whole or as a change, and
        the update event), gzipped."""
        return [pushed for _label, was_whole, pushed, _raw, _gz, _head in self.updates if was_whole == whole]


async def measure_game(port: int, game: str, players: list, options: dict, moves, deadline: Deadline) -> GameWeight:
    phones = [Phone(port, f"phone {i}") for i in range(len(players))]
    reply = await phones[0].request("POST", "/api/tables", json_body=json.dumps(
        {"game": game, "players": players, "options": options}).encode(), headers={"Accept": "application/json"})
    if reply.status != 201:
        raise BenchError(f"creating a {game} table: {reply.status} {reply.body[:200]!r}")
    code = json.loads(reply.body)["code"]
    for seat, phone in enumerate(phones):
        reply = await phone.request("POST", f"/api/tables/{code}/seats/{seat}", headers={"Accept": "application/json"})
        if reply.status != 201:
            raise BenchError(f"seat {seat}: {reply.status}")

    weight = GameWeight(game, len(players), await first_load(phones[0], code))
    arrived: asyncio.Queue = asyncio.Queue()
    version = json.loads((await phones[0].request("GET", f"/api/tables/{code}",
                                                  headers={"Accept": "application/json"})).body)["version"]
    stream = EventStream(phones[0], code, version, lambda s, v, t: arrived.put_nowait(v),
                         lambda s, exc: arrived.put_nowait(exc), on_view=lambda s, html, t: None)
    stream.start()
    try:
        await asyncio.wait_for(stream.opened.wait(), deadline.step())
        for label, action, params in moves:
            reply = await phones[1].request("POST", f"/api/tables/{code}/actions", json_body=json.dumps(
                {"action": action, "params": params, "version": version, "seat": 1}).encode(),
                headers={"Accept": "application/json"})
            if reply.status != 200:
                weight.refused.append((label, f"{reply.status}: {json.loads(reply.body).get('error')}"))
                continue
            version = json.loads(reply.body)["version"]
            got = await asyncio.wait_for(arrived.get(), deadline.step())
            if isinstance(got, Exception):
                raise BenchError(f"stream: {got!r}")
            pushed = stream.last_read_bytes  # the view and its update: one write, one chunk
            pushed += len(f"{pushed:x}\r\n".encode()) + 2  # as one HTTP chunk
            raw, gz, head, _br = await fetch_both(phones[0], f"/t/{code}/view", HX)
            weight.updates.append((label, not stream.last_view_changed, pushed, raw, gz, head))
    finally:
        await stream.stop()
        for phone in phones:
            await phone.close()
    return weight


def print_weight(weight: GameWeight) -> None:
    print(f"\n{weight.game}, {weight.players} players, the phone of seat 0:")
    print("  first load of the table page          body bytes    gzipped  br taken   (gzip response headers)")
    for path, raw, gz, head, br in weight.first_load:
        print(f"    {path[:36]:36} {raw:10d} {gz:10d} {br:9d}   ({head})")
    total_raw = sum(r[1] for r in weight.first_load)
    print(f"    {'total':36} {total_raw:10d} {weight.first_load_gzipped:10d} {weight.first_load_brotli:9d}   "
          f"({sum(r[3] for r in weight.first_load)} in headers)")
    print("  updates: the view (whole, or as a change) and update events the stream pushes, gzipped as sent")
    for label, whole, pushed, raw, gz, head in weight.updates:
        print(f"    {label:20} {'whole ' if whole else 'change'} pushed {pushed} bytes as a chunk (the fragment is {raw} bytes; "
              f"fetched gzipped it would be {gz} bytes + {head} header bytes)")
    for label, why in weight.refused:
        print(f"    ({label}: refused, {why})")


def goal_lines(weights: list[GameWeight]) -> list[tuple[str, str, bool]]:
    """(goal, measured, met) for the page-weight goals, over every game measured."""
    first = {w.game: w.first_load_brotli for w in weights}
    gzipped = {w.game: w.first_load_gzipped for w in weights}
    updates = [total for w in weights for total in w.update_gzipped(whole=False)]
    firsts = [total for w in weights for total in w.update_gzipped(whole=True)]
    missing = [w.game for w in weights if w.refused or not w.update_gzipped(whole=False)]
    return [
        (f"first load of a table page <= {FIRST_LOAD_GOAL // 1000} KB as sent, brotli taken, every game",
         ", ".join(f"{game} {size / 1000:.1f} KB" for game, size in first.items())
         + " (gzip only: " + ", ".join(f"{size / 1000:.1f}" for size in gzipped.values()) + " KB)",
         bool(first) and max(first.values()) <= FIRST_LOAD_GOAL),
        (f"an update < {UPDATE_GOAL // 1000} KB gzipped (a pushed change and its update event)",
         (f"largest {max(updates) / 1000:.2f} KB of {len(updates)}" if updates else "none measured")
         + (f" (moves refused or no change measured in {', '.join(missing)})" if missing else ""),
         bool(updates) and max(updates) < UPDATE_GOAL and not missing),
        (f"the first update of a stream < {UPDATE_GOAL // 1000} KB gzipped (its view goes whole)",
         f"largest {max(firsts) / 1000:.2f} KB of {len(firsts)}" if firsts else "none measured",
         bool(firsts) and max(firsts) < UPDATE_GOAL),
    ]


def library_weights() -> list[tuple[str, int]]:
    """(file, gzipped bytes) of each library the pages' script bundles, compressed alone
    as the server compresses its assets (zopfli), from node_modules: the part of a first
    load that no change to the app's own pages, styles or script takes off."""
    import zopfli.gzip

    if PROJECT not in sys.path:
        sys.path.insert(0, PROJECT)
    from companion.web.assets import VENDOR_FILES

    found = []
    for name, (package, relative) in VENDOR_FILES.items():
        with open(os.path.join(PROJECT, "node_modules", package, relative), "rb") as handle:
            found.append((f"{package}/{relative}", len(zopfli.gzip.compress(handle.read()))))
    return found


def print_libraries() -> None:
    try:
        libraries = library_weights()
    except (OSError, ImportError) as exc:  # the verdicts below are printed all the same
        print(f"\nThe libraries in the script: not measured ({exc!r})")
        return
    print("\nThe libraries in the script, each gzipped alone (zopfli, as the server compresses assets):")
    for path, size in libraries:
        print(f"    {path:36} {size:10d}")
    total = sum(size for _path, size in libraries)
    print(f"    {'together':36} {total:10d}   ({total / FIRST_LOAD_GOAL:.0%} of the first-load goal)")


async def measure_all(port: int, deadline: Deadline) -> list[GameWeight]:
    return [await measure_game(port, game, players, options, moves, deadline)
            for game, players, options, moves in GAMES]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dev", action="store_true", help="the development server (app.py) instead of gunicorn")
    args = parser.parse_args()
    deadline = Deadline(120)
    server = Server(kind="dev" if args.dev else "gunicorn", workers=2)
    try:
        server.start(deadline)
        print(f"Forest Table page weight, {server.describe()}, 127.0.0.1:{server.port}")
        weights = asyncio.run(asyncio.wait_for(measure_all(server.port, deadline),
                                               max(1.0, deadline.remaining() - 10)))
    except (BenchError, asyncio.TimeoutError, OSError) as exc:
        print(f"benchmark failed: {exc!r}", file=sys.stderr)
        return 1
    finally:
        server.stop()
    for weight in weights:
        print_weight(weight)
    print_libraries()
    print("\nAgainst the goals:")
    for goal, measured, met in goal_lines(weights):
        print(f"  {'met    ' if met else 'NOT MET'}  {goal}: {measured}")
    return 0 if all(met for _goal, _measured, met in goal_lines(weights)) else 1


if __name__ == "__main__":
    sys.exit(main())
