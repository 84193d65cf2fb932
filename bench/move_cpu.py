"""CPU time of one move at a Wicked Forest table of five phones, in process.

Phone 0 taps an action (the htmx form post, `set_draw_pile`, as `club.py` does) and the
four other phones' live-update streams (opened as the table page opens them, pushed views
asked for, gzip accepted) each carry the new view. One move is that post plus the four
pushed views: what `club.py` calls the CPU per action, without the network, the server's
event loop, the watcher or the other tables. Everything runs in one thread, so the CPU
time is the app's own (and the few microseconds of decompressing what the streams sent).

    .venv/bin/python bench/move_cpu.py [--moves 300] [--runs 3] [--profile FILE] [--garbage]
                                       [--languages en de fr]

`--languages` gives the five phones these Accept-Languages in turn (phone 0 the first):
`--languages en` against `--languages en de fr` is what a table in three languages costs.

`--garbage` also counts, in one more run of `--moves` moves with the cycle collector off,
the objects per move that only the cycle collector would have freed (reference cycles),
by kind: on a server their collection costs CPU in every worker.

`--timed` gives, for one run of each of `--languages` and `--against`, the CPU time per
move spent in the steps a table in several languages adds or changes (recording a part for
every language, saying it in each, each language's change, writing and reading rows),
each timed where it is called from outside the others (`time.process_time`).

`--profile FILE` writes a cProfile of the last run's moves (read it with
`python -m pstats FILE`); py-spy gives the same picture from outside:
`py-spy record -o move.svg -- .venv/bin/python bench/move_cpu.py`.
"""

from __future__ import annotations

import argparse
import collections
import gc
import os
import re
import statistics
import sys
import tempfile
import time
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from companion import create_app  # noqa: E402

PLAYERS = ["Ana", "Ben", "Cara", "Dan", "Eve"]
HX = {"HX-Request": "true", "Accept-Encoding": "gzip, deflate"}  # as a browser sends them
WAIT = 10.0


class Stream:
    """A phone's open event stream, read in this thread: each move, the stream's generator
    is asked for its next chunk, which is the pushed view and its update (no thread, no
    wait: the move has already moved the table's channel)."""

    def __init__(self, response):
        self.response = response
        self.chunks = iter(response.response)
        self.inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
        while "retry:" not in self.next_text():  # the gzip header, then the retry line
            pass

    def next_text(self) -> str:
        chunk = next(self.chunks)
        return self.inflate.decompress(chunk if isinstance(chunk, bytes) else chunk.encode()).decode()

    def wait_for(self, version: int) -> None:
        text = self.next_text()
        found = re.search(r'event: view\ndata: (?:.|\n)*?data-version="(\d+)"', text)
        if not found or int(found.group(1)) != version:
            raise RuntimeError(f"expected the view at version {version}, the stream sent {text[:200]!r}")

    def close(self):
        self.response.close()


def seated_table(app, languages: list[str] | None = None):
    phones = [app.test_client() for _ in PLAYERS]
    for seat, phone in enumerate(phones):
        phone.environ_base["HTTP_ORIGIN"] = "http://localhost"
        if languages:
            phone.environ_base["HTTP_ACCEPT_LANGUAGE"] = languages[seat % len(languages)]
    reply = phones[0].post("/api/tables", json={"game": "wicked-forest", "players": PLAYERS,
                                                 "options": {"first_leader": "0"}})
    code = reply.get_json()["code"]
    for seat, phone in enumerate(phones):
        reply = phone.post(f"/api/tables/{code}/seats/{seat}")
        assert reply.status_code == 201, (reply.status_code, reply.data[:300])
    return code, phones


def table_moving(languages: list[str] | None = None, processes: int = 1, tables: int = 1):
    """A seated table of five with four streams open, warmed up: (a move, what to close).
    With `processes` 2, phones 2 and 4 hold their streams in a second app on the same
    database, as in another worker process: it takes what the first kept there. With
    `tables` more than one, that many such tables in the same app(s), moved in turn (each
    move the next table's), as a club's tables are: what a process keeps of each table
    is then as large as it is at a club of that size."""
    folder = tempfile.mkdtemp(prefix="forest-move-")
    settings = {"DATABASE": os.path.join(folder, "bench.sqlite"), "SECRET_KEY": "bench",
                "LAN_ADDRESS": "127.0.0.1", "STREAM_KEEPALIVE_SECONDS": 3600.0,
                "STREAM_MAX_SECONDS": 36000.0, "RATELIMIT_ENABLED": False,
                # Every move's views, not one view for several moves made back to back.
                "STREAM_PUSH_GAP_SECONDS": 0.0,
                # A move wakes its streams directly (`notify`), no watcher needed.
                "STREAM_POLL_SECONDS": 3600.0}
    app = create_app(dict(settings))
    other = create_app(dict(settings)) if processes == 2 else None
    moving = [_one_table(app, other, languages) for _ in range(tables)]
    turn = [0]

    def move():
        moving[turn[0] % len(moving)][0]()
        turn[0] += 1

    for _ in range(20 if tables == 1 else 2 * tables):  # templates compiled, caches warm
        move()

    def close():
        for _, closing in moving:
            closing()
    return move, close


def _one_table(app, other, languages):
    """One seated table of `app` (phones 2 and 4 in `other`, if any), its four streams open:
    (a move of it, what to close)."""
    code, phones = seated_table(app, languages)
    if other is not None:
        for seat in (2, 4):  # the same phone (its cookie, its language) in the other process
            moved = other.test_client()
            moved.environ_base.update(phones[seat].environ_base)
            moved.set_cookie("forest_table", phones[seat].get_cookie("forest_table").value)
            phones[seat] = moved
    version = phones[0].get(f"/api/tables/{code}").get_json()["version"]
    streams = [Stream(phone.get(f"/t/{code}/events?v={version}&views=1",
                                headers={"Accept-Encoding": "gzip"}, buffered=False))
               for phone in phones[1:]]

    def move():
        nonlocal version
        count = 20 if version % 2 == 0 else 21
        reply = phones[0].post(f"/t/{code}/act", headers=HX, data={
            "action": "set_draw_pile", "count": str(count), "version": str(version),
            "rid": f"move-{version}", "seat": "0"})
        assert reply.status_code == 200, reply.status_code
        version += 1
        if other is not None:  # what its watcher would see
            other.extensions["forest_hub"].notify(code)
        for stream in streams:
            stream.wait_for(version)

    def close():
        for stream in streams:
            stream.close()
    return move, close


def one_run(moves: int, profile: str | None, garbage: list | None = None,
            languages: list[str] | None = None, processes: int = 1, tables: int = 1) -> float:
    move, close = table_moving(languages, processes, tables)
    profiler = None
    if profile:
        import cProfile
        profiler = cProfile.Profile()
        profiler.enable()
    if garbage is not None:
        gc.collect()
        gc.disable()
        gc.set_debug(gc.DEBUG_SAVEALL)
    started = time.process_time()
    for _ in range(moves):
        move()
    spent = time.process_time() - started
    if garbage is not None:
        gc.collect()
        garbage.extend(type(found).__qualname__ for found in gc.garbage)
        gc.garbage.clear()
        gc.set_debug(0)
        gc.enable()
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(profile)
    close()
    return spent / moves * 1000


# (owner, function) timed by --timed: the steps of a shared part's life, by name.
TIMED = [("companion.web.shared_parts:PartRenderer", "_render", "a part rendered (alone, or within a recording)"),
         ("companion.web.i18n", "recorded", "a part recorded for every language"),
         ("companion.web.shared_parts:Recorded", "__init__", "its keys and canonical text"),
         ("companion.web.shared_parts:Recorded", "spoken_in", "said in one language"),
         ("companion.web.view_delta", "_text_changes", "a text's change (English, or the canonical once)"),
         ("companion.web.view_delta", "_spoken_changes", "one language's change (the canonical's, above, within it)"),
         ("companion.web.shared_parts:PartRenderer", "share", "rows written"),
         ("companion.web.shared_parts:PartRenderer", "_look_up_stored", "rows read"),
         ("companion.web.shared_parts:Spoken", "from_store", "a row of several languages parsed")]


def timed_run(moves: int, languages: list[str], processes: int) -> tuple[float, dict]:
    """One run with each TIMED step wrapped: (ms per move in all, {step: ms per move})."""
    import functools
    import importlib

    spent: dict = collections.Counter()
    undo = []
    for where, name, label in TIMED:
        module, _, cls = where.partition(":")
        owner = importlib.import_module(module)
        owner = getattr(owner, cls) if cls else owner
        original = owner.__dict__[name]
        function = original.__func__ if isinstance(original, classmethod) else original
        inside = [0]

        def wrapper(*args, _function=function, _label=label, _inside=inside, **kwargs):
            if _inside[0]:  # (called from itself: counted once, from outside)
                return _function(*args, **kwargs)
            _inside[0] += 1
            started = time.process_time()
            try:
                return _function(*args, **kwargs)
            finally:
                spent[_label] += time.process_time() - started
                _inside[0] -= 1
        wrapped = functools.wraps(function)(wrapper)
        setattr(owner, name, classmethod(wrapped) if isinstance(original, classmethod) else wrapped)
        undo.append((owner, name, original))
    try:
        move, close = table_moving(languages, processes)
        spent.clear()
        started = time.process_time()
        for _ in range(moves):
            move()
        total = time.process_time() - started
        close()
    finally:
        for owner, name, original in undo:
            setattr(owner, name, original)
    return total / moves * 1000, {label: spent[label] / moves * 1000 for _, _, label in TIMED}


def paired_run(moves: int, languages: list[str], against: list[str], block: int = 10,
               processes: int = 1, tables: int = 1) -> tuple[float, float]:
    """Two tables in this process, one in `languages`, one in `against`, moved in turn,
    `block` moves each: the CPU per move of each, with whatever slows this machine down
    for a while (a neighbour, the clock) shared alike."""
    clubs = [table_moving(languages, processes, tables), table_moving(against, processes, tables)]
    spent = [0.0, 0.0]
    for _ in range(0, moves, block):
        for index, (move, _) in enumerate(clubs):
            started = time.process_time()
            for _ in range(block):
                move()
            spent[index] += time.process_time() - started
    for _, close in clubs:
        close()
    return spent[0] / moves * 1000, spent[1] / moves * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=300)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--profile", help="write a cProfile of the last run here")
    parser.add_argument("--garbage", action="store_true",
                        help="then count the objects per move left to the cycle collector")
    parser.add_argument("--languages", nargs="+", default=None, metavar="CODE",
                        help="the phones' Accept-Language, in turn (default: none sent, English)")
    parser.add_argument("--against", nargs="+", default=None, metavar="CODE",
                        help="also a table whose phones read these languages, moved in turn with "
                             "the first (blocks of 10 moves): each run gives both and their ratio")
    parser.add_argument("--processes", type=int, choices=(1, 2), default=1,
                        help="2: phones 2 and 4 stream from a second app on the same database, as "
                             "from the other worker process (default 1)")
    parser.add_argument("--timed", action="store_true",
                        help="time the steps of a shared part's life, one run of each set of languages")
    parser.add_argument("--tables", type=int, default=1,
                        help="that many tables in the app(s), moved in turn, as at a club of that size "
                             "(default 1; warmed up with two moves each)")
    args = parser.parse_args()
    from harness import command_line, machine_line
    print(machine_line())
    print(command_line())
    print(f"phones' languages: {' '.join(args.languages) if args.languages else 'none sent (English)'}")
    if args.timed:
        for languages in (args.languages or ["en"], args.against or ["en", "de", "fr"]):
            total, steps = timed_run(args.moves, languages, args.processes)
            print(f"{' '.join(languages)}: {total:.2f} ms of CPU per move; of it, ms per move:")
            for label, ms in steps.items():
                print(f"   {ms:6.3f}  {label}")
        return 0
    if args.against:
        print(f"against a table in: {' '.join(args.against)} (moved in turn, 10 moves each)")
        ratios = []
        for run in range(args.runs):
            first, second = paired_run(args.moves, args.languages or ["en"], args.against,
                                       processes=args.processes, tables=args.tables)
            ratios.append(second / first)
            print(f"run {run + 1}: {first:.2f} against {second:.2f} ms of CPU per move: "
                  f"{(second / first - 1) * 100:+.1f} %")
        print(f"median {(statistics.median(ratios) - 1) * 100:+.1f} %, spread "
              f"{(min(ratios) - 1) * 100:+.1f} to {(max(ratios) - 1) * 100:+.1f} %")
        return 0
    figures = []
    for run in range(args.runs):
        figures.append(one_run(args.moves, args.profile if run == args.runs - 1 else None,
                               languages=args.languages, processes=args.processes, tables=args.tables))
        print(f"run {run + 1}: {figures[-1]:.2f} ms of CPU per move (a post and 4 pushed views)")
    print(f"median {statistics.median(figures):.2f} ms, spread {min(figures):.2f}-{max(figures):.2f} ms")
    if args.garbage:
        kinds: list = []
        one_run(args.moves, None, kinds)
        counted = collections.Counter(kinds)
        print(f"left to the cycle collector: {len(kinds) / args.moves:.1f} objects per move; "
              + ", ".join(f"{kind} {count / args.moves:.1f}" for kind, count in counted.most_common(8)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
