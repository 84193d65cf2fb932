"""Where a phone's main thread spends a tap: a Chromium performance trace per tap.

The same table and taps as `phone.py` (its server, slowed phones and probe), but each tap is
recorded with Chromium's tracing (the DevTools timeline categories, all renderers at once).
For every phone's renderer main thread it sums, from the tap to a second after the last
phone showed it, the thread's own CPU time (trace `tdur`, not wall time: steadier on a
loaded machine) of its top-level tasks, and the CPU of what ran inside them: scripts
(`FunctionCall`, `EvaluateScript`, `TimerFire`, `EventDispatch` at the top), style
(`UpdateLayoutTree`), layout (`Layout`), paint (`PrePaint`, `Paint`, `Layerize`,
`Commit`, ...), the HTML parser (`ParseHTML`) and garbage collection (`MajorGC`,
`MinorGC`). Printed per tap and as medians over the taps, for the tapping phone and for
the others; `--top N` adds the trace's heaviest script entries (function and URL).

    .venv/bin/python bench/tap_trace.py --taps 8 --port 8240
    .venv/bin/python bench/tap_trace.py --tap-game wicked-forest --taps 8 --port 8240
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict

from harness import BenchError, Deadline, Server, command_line, machine_line
from phone import (CHROMIUM, CHROMIUM_ARGS, GAMES, PHONE, PROBE, new_table, slowed_page, take_seat, tap_button,
                   wait_usable, wifi)

CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "v8.execute", "blink", "v8"]
KINDS = {
    "script": {"FunctionCall", "EvaluateScript", "TimerFire", "EventDispatch", "FireAnimationFrame",
               "RunMicrotasks", "v8.callFunction", "V8.Execute"},
    "style": {"UpdateLayoutTree", "RecalculateStyles", "ScheduleStyleRecalculation"},
    "layout": {"Layout"},
    "paint": {"PrePaint", "Paint", "Layerize", "UpdateLayer", "Commit", "PaintImage", "CompositeLayers"},
    "parse": {"ParseHTML", "ParseAuthorStyleSheet"},
    "gc": {"MajorGC", "MinorGC", "V8.GC_SCAVENGER", "BlinkGC.AtomicPhase"},
}


def main_threads(events) -> dict:
    """(pid, tid) of every renderer's main thread."""
    return {(e["pid"], e["tid"]) for e in events
            if e.get("ph") == "M" and e.get("name") == "thread_name" and e["args"].get("name") == "CrRendererMain"}


def intervals(events, key):
    """Complete ('X') events of one thread, with their own CPU time, sorted by start."""
    out = [e for e in events if (e["pid"], e["tid"]) == key and e.get("ph") == "X" and "tdur" in e]
    out.sort(key=lambda e: (e["ts"], -e.get("dur", 0)))
    return out


def summarise(events, key, top: dict | None = None) -> dict:
    """CPU ms on one main thread: its top-level tasks, and each kind counted once where it
    starts (not again inside an event of the same kind)."""
    found = defaultdict(float)
    stack = []  # (end ts, kind) of the open events
    for e in intervals(events, key):
        while stack and stack[-1][0] <= e["ts"]:
            stack.pop()
        end = e["ts"] + e.get("dur", 0)
        if not stack:
            found["tasks"] += e["tdur"] / 1000
        kind = next((k for k, names in KINDS.items() if e["name"] in names), None)
        if kind and all(k != kind for _, k in stack):
            found[kind] += e["tdur"] / 1000
            if top is not None and kind == "script":
                data = e.get("args", {}).get("data", {})
                label = f"{e['name']} {data.get('functionName') or data.get('type') or ''} " \
                        f"{(data.get('url') or '').rsplit('/', 1)[-1][:40]}:{data.get('lineNumber', '')}"
                top[label] += e["tdur"] / 1000
        stack.append((end, kind))
    return dict(found)


def run(args) -> int:
    from playwright.sync_api import sync_playwright

    network = wifi()
    deadline = Deadline(args.cap)
    server = Server(kind="gunicorn", workers=1, port=args.port)
    per_tap = {"own": [], "other": []}
    top = defaultdict(float)
    profiled = defaultdict(float)
    try:
        server.start(deadline)
        with open("/proc/loadavg") as handle:
            print(f"start {time.strftime('%H:%M:%S', time.gmtime())} UTC, load {' '.join(handle.read().split()[:3])}")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                code = new_table(server.port, args.tap_game, tapping=args.phones)
                next_move = tap_button(args.tap_game)
                pages = []
                for seat in range(args.phones):
                    context = browser.new_context(**PHONE)
                    take_seat(context, server.port, code, seat)
                    page, _ = slowed_page(context, args.cpu, network)
                    page.add_init_script(PROBE)
                    page.goto(f"http://127.0.0.1:{server.port}/t/{code}", wait_until="commit")
                    wait_usable(page)
                    pages.append(page)
                for page in pages:
                    page.wait_for_timeout(1000)
                for number in range(args.taps):
                    versions = [pg.evaluate("() => Number(document.querySelector('#view .view').dataset.version)")
                                for pg in pages]
                    tapper = next((i for i, pg in enumerate(pages) if pg.locator(next_move).count()), None)
                    if tapper is None:
                        raise BenchError(f"no primary button at version {versions[0]}")
                    button = pages[tapper].locator(next_move).first
                    label = " ".join(button.inner_text().split())[:30]
                    button.scroll_into_view_if_needed()
                    pages[tapper].wait_for_timeout(300)
                    if args.profile:
                        # The tapping phone's, or with --profile-other the next phone's.
                        watched = pages[(tapper + 1) % len(pages)] if args.profile_other else pages[tapper]
                        profiler = watched.context.new_cdp_session(watched)
                        profiler.send("Profiler.enable")
                        profiler.send("Profiler.setSamplingInterval", {"interval": 200})
                        profiler.send("Profiler.start")
                    browser.start_tracing(categories=CATEGORIES)
                    button.tap()
                    for pg in pages:
                        pg.wait_for_function("(v) => __ft.shown.some(([version]) => version >= v)",
                                             arg=versions[tapper] + 1, timeout=20_000)
                    pages[tapper].wait_for_timeout(args.think * 1000)
                    trace = json.loads(browser.stop_tracing())
                    if args.profile:
                        add_profile(profiler.send("Profiler.stop")["profile"], profiled)
                        profiler.detach()
                    events = trace["traceEvents"] if isinstance(trace, dict) else trace
                    threads = sorted(main_threads(events))
                    sums = [summarise(events, key, top) for key in threads]
                    # Which renderer is which phone: the one whose trace holds the tap's pointer event.
                    tapped_key = None
                    for key in threads:
                        if any((e["pid"], e["tid"]) == key and e.get("name") == "EventDispatch"
                               and e.get("args", {}).get("data", {}).get("type") == "pointerdown" for e in events):
                            tapped_key = key
                    line = []
                    for key, found in zip(threads, sums):
                        if not found.get("script"):
                            continue  # a renderer that ran no script (a spare one): no phone
                        role = "own" if key == tapped_key else "other"
                        per_tap[role].append(found)
                        line.append(f"{role} {found.get('tasks', 0):.0f} (" + ", ".join(
                            f"{k} {found.get(k, 0):.0f}" for k in KINDS) + ")")
                    print(f"tap {number + 1} '{label}': " + "; ".join(line))
            finally:
                browser.close()
    except BenchError as exc:
        print(f"failed: {exc}\n{server.log_tail()}", file=sys.stderr)
        return 1
    finally:
        server.stop()
    print("\nmain-thread CPU per tap, ms: median over the taps (min-max)")
    for role in ("own", "other"):
        rows = per_tap[role]
        if not rows:
            continue
        cells = []
        for k in ["tasks", *KINDS]:
            values = [r.get(k, 0) for r in rows]
            cells.append(f"{k} {statistics.median(values):.0f} ({min(values):.0f}-{max(values):.0f})")
        print(f"  {'tapping phone' if role == 'own' else 'other phones':14} " + ", ".join(cells))
    if args.top:
        print("\nheaviest script entries, CPU ms over all taps and phones:")
        for label, ms in sorted(top.items(), key=lambda kv: -kv[1])[:args.top]:
            print(f"  {ms:8.0f}  {label}")
    if args.profile:
        whose = "another phone's" if args.profile_other else "the tapping phone's"
        print(f"\n{whose} JavaScript, sampled: self time in ms over all taps")
        for label, ms in sorted(profiled.items(), key=lambda kv: -kv[1])[:args.profile]:
            print(f"  {ms:8.0f}  {label}")
    return 0


def add_profile(profile: dict, into: dict) -> None:
    """Self time per function (name, file, line) from a V8 CPU profile."""
    nodes = {n["id"]: n for n in profile["nodes"]}
    deltas = profile.get("timeDeltas", [])
    for sample, delta in zip(profile.get("samples", []), deltas[1:] + [0]):
        frame = nodes[sample]["callFrame"]
        label = f"{frame['functionName'] or '(anonymous)'} {frame['url'].rsplit('/', 1)[-1][:30]}:{frame['lineNumber'] + 1}"
        into[label] += delta / 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--taps", type=int, default=8)
    parser.add_argument("--phones", type=int, default=3)
    parser.add_argument("--tap-game", default="explorers-of-the-woodlands", choices=sorted(GAMES))
    parser.add_argument("--port", type=int, default=8220)
    parser.add_argument("--cpu", type=float, default=4.0)
    parser.add_argument("--think", type=float, default=1.0)
    parser.add_argument("--top", type=int, default=0)
    parser.add_argument("--profile", type=int, default=0, help="profile the tapping phone's JavaScript, print N functions")
    parser.add_argument("--profile-other", action="store_true",
                        help="with --profile: profile the phone after the tapping one instead (its view comes pushed)")
    parser.add_argument("--cap", type=float, default=600.0)
    args = parser.parse_args()
    print(f"Forest Table, a tap's main-thread CPU: {machine_line()}")
    print(f"command: {command_line()}")
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
