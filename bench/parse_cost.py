"""What parsing a view's text costs a phone, whole and without the parts that rarely change.

A pushed view is text the page parses before it morphs the parts that changed; a page that
parsed only the parts whose text changed would save the rest. This measures how much that
could be, before building it: on one seated phone at a new table of `--game` (the
production server, Chromium not slowed), the view's own text (`#view`'s HTML) is parsed
as htmx parses it (`Document.parseHTMLUnsafe` of a `<template>`), into a `<template>`'s
`innerHTML`, and into a template without the panels whose text rarely changes (each
`details.panel` closed on the page: Explorers' four Hero panels among them). Each is timed
once after a second of quiet (`--cold` times, as a pushed view finds the page), then `--loop`
times in a row (the mean). Milliseconds, unslowed: a phone slowed 4x takes some four times
as long, more on a busy machine.

    .venv/bin/python bench/parse_cost.py --port 8252
"""

from __future__ import annotations

import argparse
import statistics
import sys

from harness import BenchError, Deadline, Server, command_line, machine_line
from phone import CHROMIUM, CHROMIUM_ARGS, GAMES, PHONE, PROBE, new_table, take_seat, wait_usable

WAYS = {
    "parseHTMLUnsafe, whole": "Document.parseHTMLUnsafe('<body><template>' + html + '</template></body>')",
    "template, whole": "(() => { const t = document.createElement('template'); t.innerHTML = html; return t.content; })()",
    "template, closed panels left out": "(() => { const t = document.createElement('template'); "
                                        "t.innerHTML = rest; return t.content; })()",
}
SETUP = """
  const html = document.getElementById('view').innerHTML;
  let rest = html;
  document.querySelectorAll('#view details.panel:not([open])').forEach((d) => { rest = rest.split(d.outerHTML).join(''); });
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="explorers-of-the-woodlands", choices=sorted(GAMES))
    parser.add_argument("--port", type=int, default=8252)
    parser.add_argument("--cold", type=int, default=5)
    parser.add_argument("--loop", type=int, default=30)
    args = parser.parse_args()
    print(f"A view's parse on a phone: {machine_line()}")
    print(f"command: {command_line()}")
    from playwright.sync_api import sync_playwright

    server = Server(kind="gunicorn", workers=1, port=args.port)
    try:
        server.start(Deadline(300))
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                code = new_table(server.port, args.game)
                context = browser.new_context(**PHONE)
                take_seat(context, server.port, code, 0)
                page = context.new_page()
                page.add_init_script(PROBE)
                page.goto(f"http://127.0.0.1:{server.port}/t/{code}")
                wait_usable(page)
                sizes = page.evaluate("() => {" + SETUP + """
                  return [html.length, rest.length, document.querySelectorAll('#view *').length,
                          document.querySelectorAll('#view details.panel:not([open]) *').length]; }""")
                print(f"view: {sizes[0]} characters, {sizes[2]} elements; without its closed panels "
                      f"{sizes[1]} characters, {sizes[2] - sizes[3]} elements")
                for label, expression in WAYS.items():
                    cold = []
                    for _ in range(args.cold):
                        page.wait_for_timeout(1000)
                        cold.append(page.evaluate("() => {" + SETUP + " const t0 = performance.now(); "
                                                  + expression + "; return performance.now() - t0; }"))
                    looped = page.evaluate("(n) => {" + SETUP + " for (let i = 0; i < 3; i++) " + expression
                                           + "; const t0 = performance.now(); for (let i = 0; i < n; i++) "
                                           + expression + "; return (performance.now() - t0) / n; }", args.loop)
                    print(f"  {label:34} once after a pause: median {statistics.median(cold):.2f} ms "
                          f"({min(cold):.2f}-{max(cold):.2f}); {args.loop} in a row: {looped:.2f} ms each")
            finally:
                browser.close()
    except BenchError as exc:
        print(f"benchmark failed: {exc}\n{server.log_tail()}", file=sys.stderr)
        return 1
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
