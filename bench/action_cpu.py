"""CPU time of one action, in process: the whole request path of a phone's move (JSON API:
read the table, check, apply, write, commit, answer) with no network and no other phone.

CPU time, not wall time, so a busy machine disturbs it little. With `--database-url` the
app uses PostgreSQL (a fresh schema, dropped after) and the PostgreSQL server's CPU (when
it runs on this machine) is given apart.

    .venv/bin/python bench/action_cpu.py [--actions 2000] [--runs 3] [--database-url URL]
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

PROJECT_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import cpu_seconds, machine_line, process_tree  # noqa: E402

from companion import create_app  # noqa: E402

PLAYERS = ["Ana", "Ben", "Cara", "Dan", "Eve"]


def one_run(database: str, actions: int, postmaster: int | None) -> tuple[float, float]:
    """(app CPU ms per action, database server CPU ms per action)."""
    app = create_app({"DATABASE": database, "SECRET_KEY": "bench", "LAN_ADDRESS": "127.0.0.1",
                      "TABLE_CREATION_LIMIT": "1000000 per minute"})
    phone = app.test_client()
    phone.environ_base["HTTP_ORIGIN"] = "http://localhost"
    reply = phone.post("/api/tables", json={"game": "wicked-forest", "players": PLAYERS,
                                            "options": {"first_leader": "0"}})
    code = reply.get_json()["code"]
    for seat in range(len(PLAYERS)):
        phone.post(f"/api/tables/{code}/seats/{seat}")
    version = 0
    for _ in range(50):  # warm up: templates, caches, pool
        version = phone.post(f"/api/tables/{code}/actions", json={
            "action": "set_draw_pile", "params": {"count": version % 20}, "version": version,
            "seat": 0}).get_json()["version"]
    own, server = time.process_time(), _server_cpu(postmaster)
    for n in range(actions):
        reply = phone.post(f"/api/tables/{code}/actions", json={
            "action": "set_draw_pile", "params": {"count": n % 20}, "version": version, "seat": 0,
            "request_id": secrets.token_hex(8)})
        if reply.status_code != 200:
            raise SystemExit(f"action refused: {reply.status_code} {reply.get_data(as_text=True)[:200]}")
        version = reply.get_json()["version"]
    return ((time.process_time() - own) / actions * 1000,
            (_server_cpu(postmaster) - server) / actions * 1000)


def _server_cpu(postmaster: int | None) -> float:
    return 0.0 if postmaster is None else cpu_seconds(process_tree(postmaster), reaped_of=postmaster)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()
    print(f"CPU per action, in process: {machine_line()}")
    app_ms, server_ms = [], []
    for _ in range(args.runs):
        if args.database_url:
            import psycopg
            schema = f"bench_{secrets.token_hex(4)}"
            with psycopg.connect(args.database_url, autocommit=True) as admin:
                admin.execute(f"CREATE SCHEMA {schema}")
                backend = admin.execute("SELECT pg_backend_pid()").fetchone()[0]
                with open(f"/proc/{backend}/stat") as handle:
                    postmaster = int(handle.read().rsplit(")", 1)[1].split()[1])
            sep = "&" if "?" in args.database_url else "?"
            try:
                ms = one_run(f"{args.database_url}{sep}options={quote(f'-csearch_path={schema}')}",
                             args.actions, postmaster)
            finally:
                with psycopg.connect(args.database_url, autocommit=True) as admin:
                    admin.execute(f"DROP SCHEMA {schema} CASCADE")
        else:
            with tempfile.TemporaryDirectory(prefix="forest-bench-") as folder:
                ms = one_run(os.path.join(folder, "bench.sqlite"), args.actions, None)
        app_ms.append(ms[0])
        server_ms.append(ms[1])
        line = f"  run: app {ms[0]:.2f} ms per action"
        if args.database_url:
            line += f", PostgreSQL server {ms[1]:.2f} ms, together {ms[0] + ms[1]:.2f} ms"
        print(line, flush=True)
    print(f"median of {args.runs} runs of {args.actions} actions: app {statistics.median(app_ms):.2f} ms"
          + (f", PostgreSQL server {statistics.median(server_ms):.2f} ms" if args.database_url else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
