"""Make the upgrade tests' databases with the release before the migrations (commit 08136bc).

    .venv/bin/python tests/make_release_fixture.py [--postgres SERVER_URL]

It unpacks that commit (`git archive 08136bc | tar -x`) into a temporary folder and runs its
own code there, with this checkout's .venv (that release's requirements are a subset of
these), through its own JSON API: a few games of each kind finished and in progress (with
undone moves), an Explorers campaign with a chapter won and the next one under way, an
imported history, a merge of two spellings of a name and names outside ASCII. The result is
tests/data/release-08136bc.sqlite (committed: small, and making it needs the repository's
history, which a CI checkout may lack).

With --postgres the same play runs against a fresh database on that server (the release
on PostgreSQL), and its plain pg_dump is written to tests/data/release-08136bc.pg.sql: a
dump, not the script at test time, for the same reason (test_upgrade.py restores it).

Run by hand; the tests only read what it made.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
RELEASE = "08136bc"
SQLITE_FIXTURE = DATA / f"release-{RELEASE}.sqlite"
PG_FIXTURE = DATA / f"release-{RELEASE}.pg.sql"

# Runs inside the old release's folder, with its companion and its tests' helpers.
PLAY = r'''
import json, sys
from companion import create_app
from tests.helpers import act, take
from tests.history_fixture import api_act, play_woodland_wizards, stats_export
from tests.campaign_play import create_campaign, start_chapter, win_chapter_1
from tests.test_mysterious_forest_web import new_table, play_to_the_end

target = sys.argv[1]
key = "DATABASE_URL" if target.startswith("postgresql://") else "DATABASE"
app = create_app({key: target, "DATABASE": sys.argv[2], "SECRET_KEY": "fixture",
                  "LAN_ADDRESS": "127.0.0.1", "TABLE_CREATION_LIMIT": "100000 per minute",
                  "CODE_GUESS_LIMIT": "100000 per minute"})
phone = app.test_client()
phone.environ_base["HTTP_ORIGIN"] = "http://localhost"

def ok(resp, status=200):
    assert resp.status_code == status, (resp.status_code, resp.get_data(as_text=True)[:300])
    return resp.get_json()

# An imported history, and two spellings of one person merged.
ok(phone.post("/api/history/import", data=json.dumps(stats_export()), content_type="application/json"))
# Woodland Wizards: one finished, one under way (a move undone).
play_woodland_wizards(phone, players=("Zoë", "Ben"))
code = ok(phone.post("/api/tables", json={"game": "woodland-wizards", "players": ["Ana", "Łukasz"],
                                          "options": {"first_player": "1"}}), 201)["code"]
take(phone, code, 0); take(phone, code, 1)
api_act(phone, code, "set_phase", {"phase": "scoring"})
api_act(phone, code, "enter_total", {"player": 0, "total": 7})
ok(phone.post(f"/api/tables/{code}/undo", json={"version": phone.get(f"/api/tables/{code}").get_json()["version"]}))
# The Mysterious Forest: one won, one scouting.
play_to_the_end(phone, new_table(phone, players=("Ana", "Ben")))
code = new_table(phone, players=("Cara", "Dan", "Eve"))
take(phone, code, 0)
api_act(phone, code, "start_scouting")
api_act(phone, code, "done_looking", {"card": 1})
# The Wicked Forest: a table of five under way, with an undo.
code = ok(phone.post("/api/tables", json={"game": "wicked-forest", "players": ["Ana", "Ben", "Cara", "Dan", "Eve"],
                                          "options": {"first_leader": "0"}}), 201)["code"]
for seat in range(5):
    take(phone, code, seat)
for count in (12, 7, 3):
    api_act(phone, code, "set_draw_pile", {"count": count})
ok(phone.post(f"/api/tables/{code}/undo", json={"version": phone.get(f"/api/tables/{code}").get_json()["version"]}))
# An Explorers campaign: chapter 1 won and confirmed, chapter 2 under way.
campaign = create_campaign(phone)
chapter = start_chapter(phone, campaign["id"])
win_chapter_1(phone, chapter)
ok(phone.post(f"/api/campaigns/{campaign['id']}/confirm", json={"table": chapter}))
chapter = start_chapter(phone, campaign["id"])
api_act(phone, chapter, "quest", {"counter": "markers_lost", "value": 1})
# The finished tables into the history, then a merge.
ok(phone.get("/api/history"))
assert phone.post("/history/names/merge", data={"alias": "Ana", "person": "Anna"}).status_code in (200, 303)
print("played")
'''


def unpack(folder: str) -> None:
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", RELEASE], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", folder], input=archive, check=True)


def play(folder: str, target: str, sqlite_path: str) -> None:
    env = {**os.environ, "PYTHONPATH": folder}
    env.pop("FOREST_TABLE_DATABASE_URL", None)
    subprocess.run([sys.executable, "-c", PLAY, target, sqlite_path], cwd=folder, env=env, check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", help="a PostgreSQL server URL: make the PostgreSQL dump too")
    args = parser.parse_args()
    DATA.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        unpack(folder)
        made = Path(folder) / "fixture.sqlite"
        play(folder, str(made), str(made))
        # One file: the write-ahead log folded in, the free pages dropped.
        import sqlite3
        conn = sqlite3.connect(made)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("PRAGMA journal_mode=DELETE")
        conn.execute("VACUUM")
        conn.close()
        SQLITE_FIXTURE.write_bytes(made.read_bytes())
        print(f"{SQLITE_FIXTURE} ({SQLITE_FIXTURE.stat().st_size} bytes)")
        if args.postgres:
            import psycopg
            name = "forest_table_release_fixture"
            with psycopg.connect(args.postgres, autocommit=True) as admin:
                admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
                admin.execute(f"CREATE DATABASE {name}")
            url = urlunsplit(urlsplit(args.postgres)._replace(path=f"/{name}"))
            try:
                play(folder, url, str(Path(folder) / "unused.sqlite"))
                dump = subprocess.run(["pg_dump", "--no-owner", "--no-privileges", "--schema=public",
                                       url], check=True, capture_output=True, text=True).stdout
                # Only what a restore into a fresh database needs: no client settings of this pg_dump.
                PG_FIXTURE.write_text(dump)
            finally:
                with psycopg.connect(args.postgres, autocommit=True) as admin:
                    admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
            print(f"{PG_FIXTURE} ({PG_FIXTURE.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
