"""A PostgreSQL outage under the production server: how fast requests are answered while
the database is down, and how soon service is back once it returns.

It uses a throwaway cluster made by scripts/postgres.sh on `--pg-port` (started here if it
is not running), which it stops and starts again: never point it at a server anyone else
uses. It starts gunicorn (gunicorn.conf.py, `--workers` gevent workers) on a fresh schema
of that cluster, makes a table, then for each of `--runs` runs:

1. Rounds of `--concurrency` requests sent at once, half `GET /api/tables/<code>` and
   half `GET /` (both read the database), until all answer 200.
2. `postgres.sh down` (pg_ctl stop -m fast). For `--down-seconds`, the same rounds: each
   request's time to its answer (or to `--timeout`, counted as no answer) and status. The
   first round, in which the servers find the database lost, is given apart.
3. `postgres.sh up` (pg_ctl start, which returns once the server accepts connections).
   The rounds go on: the recovery time is from then to the first round of `--settle`
   rounds in a row that were all answered 200.

    FOREST_TABLE_PG_PORT=54331 bash scripts/postgres.sh start
    .venv/bin/python bench/outage.py --pg-port 54331 [--port 8131] [--runs 3]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import secrets
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import quote

PROJECT_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness  # noqa: E402
from harness import HOST, BenchError, Deadline, Server, command_line, machine_line  # noqa: E402


def postgres(command: str, port: int, quiet: bool = False) -> None:
    subprocess.run(["bash", str(PROJECT_ROOT / "scripts" / "postgres.sh"), command], check=True,
                   env=dict(os.environ, FOREST_TABLE_PG_PORT=str(port)), timeout=90,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL if quiet else None)


def request(port: int, method: str, path: str, timeout: float, body: dict | None = None,
            cookie: str = "") -> tuple[float, object, bytes, str]:
    """(seconds to the answer, status or "no answer", body, Set-Cookie) of one request."""
    started = time.monotonic()
    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
    headers = {"Host": f"{HOST}:{port}", "Origin": f"http://{HOST}:{port}", "Connection": "close"}
    if cookie:
        headers["Cookie"] = cookie
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    try:
        conn.request(method, path, body=data, headers=headers)
        resp = conn.getresponse()
        payload = resp.read()
        return time.monotonic() - started, resp.status, payload, resp.getheader("Set-Cookie") or ""
    except (OSError, http.client.HTTPException):
        return time.monotonic() - started, "no answer", b"", ""
    finally:
        conn.close()


def one_round(pool: ThreadPoolExecutor, port: int, code: str, concurrency: int, timeout: float):
    paths = [f"/api/tables/{code}" if i % 2 == 0 else "/" for i in range(concurrency)]
    started = time.monotonic()
    answers = list(pool.map(lambda path: request(port, "GET", path, timeout)[:2], paths))
    return started, answers


def spread(values: list[float]) -> str:
    if not values:
        return "none"
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return (f"median {statistics.median(ordered) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, "
            f"worst {ordered[-1] * 1000:.0f} ms")


def statuses(answers) -> str:
    counts: dict = {}
    for _, status in answers:
        counts[status] = counts.get(status, 0) + 1
    return ", ".join(f"{n} x {status}" for status, n in sorted(counts.items(), key=str))


def run_once(args, server: Server, code: str, deadline: Deadline) -> dict:
    with ThreadPoolExecutor(args.concurrency) as pool:
        while True:  # every worker answers from the database before the outage
            _, answers = one_round(pool, server.port, code, args.concurrency, args.timeout)
            if all(status == 200 for _, status in answers):
                break
            deadline.step()
        postgres("down", args.pg_port)
        down_at = time.monotonic()
        rounds = []
        while time.monotonic() - down_at < args.down_seconds:
            rounds.append(one_round(pool, server.port, code, args.concurrency, args.timeout))
            deadline.step()
        postgres("up", args.pg_port)
        up_at = time.monotonic()
        settled_since, in_a_row, last_failure, after = None, 0, None, []
        while in_a_row < args.settle:
            started, answers = one_round(pool, server.port, code, args.concurrency, args.timeout)
            after.append((started, answers))
            if all(status == 200 for _, status in answers):
                if in_a_row == 0:
                    settled_since = started
                in_a_row += 1
            else:
                in_a_row = 0
                last_failure = time.monotonic()
            if time.monotonic() - up_at > args.recovery_cap:
                raise BenchError(f"not recovered {args.recovery_cap:.0f} s after the database came back")
            deadline.step()
    first = rounds[0][1] if rounds else []
    rest = [a for _, answers in rounds[1:] for a in answers]
    return {
        "first": first, "rest": rest, "rounds": len(rounds),
        "recovered": max(0.0, settled_since - up_at),
        "last_failure": (last_failure - up_at) if last_failure else None,
        "after": [a for _, answers in after for a in answers],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pg-port", type=int, required=True,
                        help="the port of a throwaway cluster of scripts/postgres.sh (stopped and started here)")
    parser.add_argument("--port", type=int, default=0, help="the app's port (default: a free one)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=20)
    parser.add_argument("--down-seconds", type=float, default=10.0)
    parser.add_argument("--settle", type=int, default=3, help="rounds all 200 in a row that count as recovered")
    parser.add_argument("--timeout", type=float, default=15.0, help="a request's longest wait for its answer")
    parser.add_argument("--recovery-cap", type=float, default=120.0)
    parser.add_argument("--cap", type=float, default=900.0)
    args = parser.parse_args()
    deadline = Deadline(args.cap)
    print(command_line())
    print(machine_line())
    if args.port:
        harness.free_port = lambda: args.port
    harness.STARTUP_TIMEOUT = 120.0  # a busy machine starts the workers slowly
    postgres("start", args.pg_port)
    durable = os.environ.get("FOREST_TABLE_PG_DURABLE") == "1"
    print(f"PostgreSQL: scripts/postgres.sh cluster on port {args.pg_port} "
          f"({'durable defaults' if durable else 'fsync, synchronous_commit and full_page_writes off'})")

    import psycopg
    server_url = f"postgresql://postgres@127.0.0.1:{args.pg_port}/postgres"
    schema = f"bench_{secrets.token_hex(4)}"
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(f"CREATE SCHEMA {schema}")
    url = f"{server_url}?options={quote(f'-csearch_path={schema}')}"
    server = Server(workers=args.workers, env={"FOREST_TABLE_DATABASE_URL": url})
    failed = False
    try:
        server.start(deadline)
        print(f"server: {server.describe()}; {args.concurrency} requests at once per round, "
              f"{args.down_seconds:g} s down per run")
        _, status, body, _ = request(server.port, "POST", "/api/tables", args.timeout,
                                     {"game": "wicked-forest", "players": ["Ana", "Ben"]})
        if status != 201:
            raise BenchError(f"making a table: {status} {body[:200]!r}")
        code = json.loads(body)["code"]
        figures = []
        for run in range(1, args.runs + 1):
            result = run_once(args, server, code, deadline)
            figures.append(result)
            print(f"run {run}: database down {args.down_seconds:g} s, {result['rounds']} rounds")
            print(f"  first round (found lost): {statuses(result['first'])}; "
                  f"{spread([t for t, _ in result['first']])}")
            print(f"  later rounds:             {statuses(result['rest'])}; "
                  f"{spread([t for t, _ in result['rest']])}")
            last = result["last_failure"]
            print(f"  back: all {args.concurrency} answered 200 in {args.settle} rounds in a row from "
                  f"{result['recovered']:.2f} s after the database accepted connections"
                  f" (last failed answer at {last:.2f} s)" if last is not None else
                  f"  back: every answer 200 from the first round after the database came back "
                  f"({result['recovered']:.2f} s)")
        worst_down = [max((t for t, _ in r["rest"]), default=0.0) for r in figures]
        print("over the runs: worst answer while down (after the first round) "
              + ", ".join(f"{w * 1000:.0f} ms" for w in worst_down)
              + "; recovered after " + ", ".join(f"{r['recovered']:.2f} s" for r in figures))
    except BenchError as exc:
        print(f"FAILED: {exc}\n{server.log_tail()}")
        failed = True
    finally:
        server.stop()
        try:
            postgres("up", args.pg_port, quiet=True)
        except subprocess.CalledProcessError:
            pass  # already up
        with psycopg.connect(server_url, autocommit=True) as admin:
            admin.execute(f"DROP SCHEMA {schema} CASCADE")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
