"""The floor under `phone.py`'s tap figures: the same phones, network and taps on a page that
does almost nothing.

A throwaway server (the standard library's, threads) serves one page: a big button in a
form and a view (`#view .view[data-version]`). A tap's click handler posts to `/act` with
`fetch`; the server counts the version on and answers the new view (a line of text), which
the page puts in with `innerHTML`; every other page gets the same view on its open
`EventSource` stream at once (the tapping page's stream does not: as in the app, its
answer brings it). No htmx, no templates, no database: what is left is Chromium
slowed as `phone.py` slows it (`Emulation.setCPUThrottlingRate`, 40 ms of latency, 20/10
Mbit/s), Playwright's tap, the network's round trip and a paint. Measured with `phone.py`'s
own probe (from the tap's `pointerdown` to the paint after the new version is in the page),
so a figure here is one that no page can beat on this machine with these settings.

`--pad N` adds N elements of text to the view (each some 80 bytes, as a view's rows are),
sent and parsed at every tap, to see what the size of a view costs on its own; with
`--patch` only what changed is sent (the version and one row) and put in place, the rest of
the view left as it is: what a page that parses and touches only a view's changed parts
could reach.

    .venv/bin/python bench/tap_floor.py --runs 3 --taps 20
    .venv/bin/python bench/tap_floor.py --runs 3 --taps 20 --pad 700
    .venv/bin/python bench/tap_floor.py --runs 3 --taps 20 --pad 700 --patch
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from harness import command_line, free_port, machine_line, percentile
from phone import CHROMIUM, CHROMIUM_ARGS, GOALS, PHONE, PROBE, slowed_page, wifi

PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:18px system-ui;margin:0;padding:16px}button{font-size:24px;min-height:64px;width:100%}</style>
</head><body>
<form id="act"><button class="primary big" type="submit">Next move</button></form>
<div id="view">%VIEW%</div>
<script>
var phone = Math.random().toString(36).slice(2);
function show(html) {
  if (html.charAt(0) !== "~") { document.getElementById("view").innerHTML = html; return; }
  // A patch: "~version~row number~the row's HTML".
  var parts = html.split("~");
  var row = document.querySelectorAll("#view .row")[Number(parts[2])];
  var template = document.createElement("template");
  template.innerHTML = parts[3];
  row.replaceWith(template.content);
  document.querySelector("#view .view").setAttribute("data-version", parts[1]);
}
document.getElementById("act").addEventListener("submit", function (event) {
  event.preventDefault();
  fetch("/act?phone=" + phone, {method: "POST"}).then(function (r) { return r.text(); }).then(show);
});
var stream = new EventSource("/events?phone=" + phone);
stream.onmessage = function (event) { show(event.data); };
document.body.dispatchEvent(new CustomEvent("htmx:load", {bubbles: true}));
stream.onopen = function () { document.dispatchEvent(new CustomEvent("htmx:sseOpen")); };
</script></body></html>"""


class Floor:
    """The table: a version and the open streams."""

    def __init__(self, pad: int, patch: bool = False):
        self.version = 0
        self.pad, self.patch = pad, patch
        self.lock = threading.Lock()
        self.streams: list = []

    def view(self) -> str:
        rows = "".join(self.row(i) for i in range(self.pad))
        return f'<div class="view" data-version="{self.version}"><p>Version {self.version}</p>{rows}</div>'

    def row(self, i: int) -> str:
        # (with --patch, only the row the version names changes)
        value = self.version if not self.patch or i == self.version % max(1, self.pad) else 0
        return f'<div class="row"><span class="name">Row {i}</span> <span class="n">{value}</span></div>'

    def act(self, phone: str) -> str:
        with self.lock:
            self.version += 1
            if self.patch and self.pad:
                changed = self.version % self.pad
                view = f"~{self.version}~{changed}~{self.row(changed)}"
            else:
                view = self.view()
            for stream in list(self.streams):
                if stream.phone == phone:  # as the app does: the tapping phone has its answer
                    continue
                try:
                    stream.wfile.write(f"data: {view}\n\n".encode())
                    stream.wfile.flush()
                except OSError:
                    self.streams.remove(stream)
        return view


def handler_for(floor: Floor):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def _send(self, body: str, kind: str = "text/html; charset=utf-8") -> None:
            data = body.encode()
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            if self.path.startswith("/events"):
                self.phone = self.path.partition("phone=")[2]
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(b": open\n\n")
                self.wfile.flush()
                with floor.lock:
                    floor.streams.append(self)
                while True:  # held open; the act writes to it
                    time.sleep(3600)
            with floor.lock:
                view = floor.view()
            self._send(PAGE.replace("%VIEW%", view))

        def do_POST(self):
            self._send(floor.act(self.path.partition("phone=")[2]))

    return Handler


def taps(browser, port: int, cpu: float, network: dict, phones: int, count: int, think: float) -> dict:
    contexts, pages = [], []
    own, other = [], []
    try:
        for _ in range(phones):
            context = browser.new_context(**PHONE)
            contexts.append(context)
            page, _traffic = slowed_page(context, cpu, network)
            page.add_init_script(PROBE)
            page.goto(f"http://127.0.0.1:{port}/", wait_until="commit")
            page.wait_for_function("() => window.__ft && __ft.htmx !== null && __ft.sse !== null", timeout=20_000)
            pages.append(page)
        for number in range(count):
            tapper = number % phones
            page = pages[tapper]
            target = page.evaluate("() => Number(document.querySelector('#view .view').dataset.version)") + 1
            taps_before = page.evaluate("() => __ft.taps.length")
            page.locator("button.primary").tap()
            for p in pages:
                p.wait_for_function("(v) => __ft.shown.some(([version]) => version >= v)", arg=target, timeout=20_000)
            page.wait_for_timeout(think * 1000)
            tapped = page.evaluate("(n) => __ft.taps[n]", taps_before)
            for i, p in enumerate(pages):
                painted = p.evaluate("(v) => __ft.shown.find(([version]) => version >= v)[2]", target)
                (own if i == tapper else other).append(painted - tapped)
    finally:
        for context in contexts:
            context.close()
    return {"own": own, "other": other}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--taps", type=int, default=20)
    parser.add_argument("--phones", type=int, default=3)
    parser.add_argument("--pad", type=int, default=0, help="rows of text added to the view")
    parser.add_argument("--patch", action="store_true", help="send and put in only the row that changed")
    parser.add_argument("--cpu", type=float, default=4.0)
    parser.add_argument("--latency", type=float, default=40.0)
    parser.add_argument("--down", type=float, default=20.0)
    parser.add_argument("--up", type=float, default=10.0)
    parser.add_argument("--think", type=float, default=1.0)
    args = parser.parse_args()
    network = wifi(args.latency, args.down, args.up)
    print(f"The floor under a tap: {machine_line()}")
    print(f"command: {command_line()}")
    floor = Floor(args.pad, args.patch)
    server = ThreadingHTTPServer(("127.0.0.1", free_port()), handler_for(floor))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    print(f"view: {len(floor.view())} B; Chromium CPU slowed {args.cpu:g}x, {args.latency:g} ms latency")
    from playwright.sync_api import sync_playwright

    results = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for number in range(1, args.runs + 1):
                with open("/proc/loadavg") as handle:
                    load = " ".join(handle.read().split()[:3])
                found = taps(browser, port, args.cpu, network, args.phones, args.taps, args.think)
                results.append(found)
                print(f"run {number} ({time.strftime('%H:%M:%S', time.gmtime())} UTC, load {load}): "
                      + "; ".join(f"{label} median {statistics.median(found[key]):.0f}, p95 "
                                  f"{percentile(found[key], 0.95):.0f}, best {min(found[key]):.0f} ms"
                                  for label, key in (("tapping phone", "own"), ("other phones", "other"))))
        finally:
            browser.close()
    server.shutdown()
    for label, key, goal in (("tapping phone", "own", GOALS["tap_own_p95"]),
                             ("other phones", "other", GOALS["tap_other_p95"])):
        p95s = [percentile(r[key], 0.95) for r in results]
        print(f"  p95 to the {label}: {' / '.join(f'{v:.0f}' for v in p95s)} ms, median "
              f"{statistics.median(p95s):.0f} (the app's goal {goal:g})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
