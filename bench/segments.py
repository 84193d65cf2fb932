"""TCP segments per answer: how many packets one request and its answer take on loopback.

Starts the production server (gunicorn with `gunicorn.conf.py`, one worker) on a free
loopback port with a throwaway database, then asks for one small file `--requests` times
(default 500) on one kept-alive connection, as a phone's htmx requests go, and divides the
growth of the machine's TCP `OutSegs` counter (/proc/net/snmp) by the requests. On loopback
both directions are counted: the request, the answer's segments and any bare
acknowledgement. Other traffic on the machine meanwhile adds to it, so run it quiet.

    .venv/bin/python bench/segments.py [--requests 500] [--path /static/icon.svg]
"""

from __future__ import annotations

import argparse
import http.client
import sys

from harness import HOST, Deadline, Server, command_line, machine_line


def out_segments() -> int:
    with open("/proc/net/snmp") as handle:
        tcp = [line.split() for line in handle if line.startswith("Tcp:")]
    return int(tcp[1][tcp[0].index("OutSegs")])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--path", default="/static/icon.svg")
    args = parser.parse_args()
    print(machine_line())
    print(command_line())
    deadline = Deadline(120)
    server = Server(workers=1)
    server.start(deadline)
    try:
        connection = http.client.HTTPConnection(HOST, server.port, timeout=10)

        def ask() -> None:
            connection.request("GET", args.path)
            reply = connection.getresponse()
            reply.read()
            if reply.status != 200:
                raise SystemExit(f"GET {args.path} -> {reply.status}")

        ask()  # the connection open, the answer compressed and kept
        before = out_segments()
        for _ in range(args.requests):
            ask()
        per_answer = (out_segments() - before) / args.requests
        connection.close()
    finally:
        server.stop()
    print(f"{server.describe()}: {per_answer:.2f} TCP segments per request and its answer "
          f"({args.requests} requests of {args.path} on one connection)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
