"""Upgrades: a database made by the release before the migrations (tests/data, made by
tests/make_release_fixture.py with that release's own code) is migrated by this one, reads
back every row the same and plays on; a fresh database and a migrated one both match the
schema of companion/schema.py (`flask db check`); stored text the input rules refuse is
cleaned and its table renders; the commands work across a migration."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
from alembic import command
from psycopg.rows import dict_row

from companion import create_app, migrate, store, tables
from companion.dialects import run_text
from companion.web.limits import limiter

from .conftest import postgres_opted_out, postgres_server_url
from .helpers import act, create_tiny, take
from .make_release_fixture import PG_FIXTURE, SQLITE_FIXTURE
from .old_database import from_before_migrations
from .test_postgres import _pg_tool

OLD_TABLES = ("game_table", "seat", "action", "table_request", "shared_part", "played_game",
              "played_seat", "name_merge", "campaign", "campaign_event")
# Kept far off, so opening the old tables archives none of them while the test runs.
NEVER = 10**9


def _rows(read, table: str) -> list[dict]:
    return sorted((dict(row) for row in read(f"SELECT * FROM {table}")),
                  key=lambda row: json.dumps(row, sort_keys=True, default=str))


def sqlite_rows(path: str) -> dict[str, list[dict]]:
    raw = sqlite3.connect(path)
    raw.row_factory = sqlite3.Row
    try:
        return {t: _rows(lambda q: raw.execute(q).fetchall(), t) for t in OLD_TABLES}
    finally:
        raw.close()


def pg_rows(url: str) -> dict[str, list[dict]]:
    with psycopg.connect(url, row_factory=dict_row) as raw:
        return {t: _rows(lambda q: raw.execute(q).fetchall(), t) for t in OLD_TABLES}


@pytest.fixture
def old_release(backend, tmp_path):
    """The address of a copy of the old release's database on the backend under test."""
    if backend == "sqlite":
        path = tmp_path / "old.sqlite"
        shutil.copy(SQLITE_FIXTURE, path)
        yield str(path)
        return
    if postgres_opted_out():
        pytest.skip("PostgreSQL runs opted out")
    server = postgres_server_url()
    name = f"release_{tmp_path.name.lower().replace('-', '_')[-30:]}"
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        admin.execute(f"CREATE DATABASE {name}")
    url = urlunsplit(urlsplit(server)._replace(path=f"/{name}"))
    with psycopg.connect(url, autocommit=True) as fresh:
        fresh.execute("DROP SCHEMA public")  # the dump makes it, as it was
    try:
        done = subprocess.run([_pg_tool("psql"), "-q", "-v", "ON_ERROR_STOP=1", "-f", str(PG_FIXTURE), url],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        yield url
    finally:
        from companion import pgstore
        pgstore.close_pool(url)
        with psycopg.connect(server, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def read_rows(target: str) -> dict[str, list[dict]]:
    return pg_rows(target) if store.is_postgres_url(target) else sqlite_rows(target)


def open_app(target: str):
    app = create_app({"TESTING": True, "DATABASE": target, "SECRET_KEY": "test-key",
                      "LAN_ADDRESS": "192.168.1.20", "ABANDON_AFTER_HOURS": NEVER,
                      "CODE_GUESS_LIMIT": "100000 per minute"})
    limiter.reset()
    return app


def check(conn) -> None:
    """`flask db check`: the database and companion/schema.py agree (raises if not)."""
    migrate.run(conn, command.check)


def test_the_old_release_database_migrates_reads_back_the_same_and_plays_on(old_release):
    before = read_rows(old_release)
    assert len(before["game_table"]) >= 6 and before["campaign"] and before["name_merge"]
    assert {row["game"] for row in before["game_table"]} >= {
        "woodland-wizards", "mysterious-forest", "wicked-forest", "explorers-of-the-woodlands"}
    conn = store.connect(old_release)
    try:
        store.init_schema(conn)
        assert migrate.run(conn, lambda cfg: migrate.current(cfg.attributes["connection"])) == migrate.head()
        check(conn)
        after = read_rows(old_release)
        for table, rows in before.items():
            # Every row as it was; the columns the release lacked hold their defaults.
            kept = [{k: row[k] for k in rows[0]} for row in after[table]] if rows else after[table]
            assert sorted(kept, key=lambda r: json.dumps(r, sort_keys=True, default=str)) == rows, table
        for row in after["game_table"]:
            assert row["next_table_id"] is None and row["answered_by"] is None
        for row in after["seat"]:
            assert row["kept_for"] is None

        # Through this release's own functions: the tables, their seats and logs.
        for old in before["game_table"]:
            table = store.get_table(conn, old["code"])
            assert (table.version, table.players, table.snapshot) == (
                old["version"], json.loads(old["players"]), json.loads(old["snapshot"]))
            assert [s["name"] for s in store.seats(conn, table.id)] == json.loads(old["players"])
            live = [a for a in before["action"] if a["table_id"] == old["id"] and a["undone_at"] is None]
            assert [a.seq for a in store.live_actions(conn, table.id)] == sorted(a["seq"] for a in live)
            assert len(tables.log_lines(conn, table)) >= 1
        # The history, its stats and the campaign.
        from companion import campaigns, history
        exported = json.loads(history.export_json(conn))
        assert {g["uid"] for g in exported["games"]} == {row["uid"] for row in before["played_game"]}
        assert exported["merges"] and exported["merges"][0]["alias"] == "Ana"
        stats = history.stats(conn)
        assert stats and "Ben" in json.dumps(stats)
        for old in before["campaign"]:
            assert campaigns.load(conn, old["id"]).state == json.loads(old["state"])
        assert [e for e in campaigns.events(conn, before["campaign"][0]["id"])]
    finally:
        conn.close()

    # The web: every page, then play on at the tables in progress (a move, an undo).
    app = open_app(old_release)
    phone = app.test_client()
    for old in before["game_table"]:
        assert phone.get(f"/t/{old['code']}").status_code == 200
    assert phone.get("/history").status_code == 200
    assert phone.get("/history/stats").status_code == 200
    assert phone.get(f"/campaigns/{before['campaign'][0]['id']}").status_code == 200
    wicked = next(row["code"] for row in before["game_table"] if row["game"] == "wicked-forest")
    # The release's phone holds every seat there: the host frees one for this phone.
    held = store.connect(old_release)
    store.set_seat_token(held, store.get_table(held, wicked).id, 0, None)
    held.close()
    take(phone, wicked, 0)
    version = phone.get(f"/api/tables/{wicked}").get_json()["version"]
    moved = act(phone, wicked, "set_draw_pile", {"count": 9}, version=version)
    assert moved.status_code == 200 and store.get_table(store.connect(old_release), wicked).snapshot["draw"] == 9
    undone = phone.post(f"/api/tables/{wicked}/undo", json={"version": version + 1})
    assert undone.status_code == 200, undone.get_json()
    assert undone.get_json()["version"] == version + 2
    # A new table gets an id after the old ones.
    code = create_tiny_real(phone)
    assert store.get_table(store.connect(old_release), code).id > max(r["id"] for r in before["game_table"])


def create_tiny_real(phone) -> str:
    resp = phone.post("/api/tables", json={"game": "wicked-forest", "players": ["Ana", "Ben", "Cara"],
                                           "options": {"first_leader": "0"}})
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()["code"]


def test_a_fresh_database_matches_the_schema_and_is_at_the_newest_revision(database):
    conn = store.connect(database("fresh"))
    try:
        store.init_schema(conn)
        check(conn)
        store.init_schema(conn)  # a second start changes nothing
        check(conn)
    finally:
        conn.close()


@pytest.mark.parametrize("revision", ["0001", "0002", "0003", "0004", "0005"])
def test_a_database_from_before_the_migrations_is_recognised_by_its_columns(database, revision):
    target = database("old")
    from_before_migrations(target, revision)
    conn = store.connect(target)
    try:
        with migrate.locked_connection(conn) as connection:
            assert migrate.current(connection) is None
            assert migrate.recognise(connection) == revision
        store.init_schema(conn)
        check(conn)
    finally:
        conn.close()


def test_every_revision_goes_down_and_up_again(database):
    conn = store.connect(database("downgraded"))
    try:
        store.init_schema(conn)
        migrate.downgrade(conn, "base")
        with migrate.locked_connection(conn) as connection:
            from sqlalchemy import inspect
            assert set(inspect(connection).get_table_names()) <= {"alembic_version"}
        store.init_schema(conn)
        check(conn)
    finally:
        conn.close()


def test_a_stored_lone_surrogate_is_cleaned_by_the_migration_and_its_table_renders(database, caplog):
    target = database("surrogate")
    app = open_app(target)
    phone = app.test_client()
    code = create_tiny(phone, players=("Ana", "Ben", "Cara"))
    take(phone, code, 0)
    assert act(phone, code, "add", {"amount": 1}, version=0).status_code == 200
    # As a release before the input checks stored it: half a character in a name (JSON
    # keeps it as an escape), a control character in a seat's name, both in a move's
    # parameters; the database at the revision before the cleaning.
    conn = store.connect(target)
    table = store.get_table(conn, code)
    broken = "Ana\ud83d"
    with store.Transaction(conn):
        run_text(conn, "UPDATE game_table SET players = :players, snapshot = :snapshot WHERE id = :id",
                 {"players": json.dumps([broken, "Ben", "Cara"]),
                  "snapshot": json.dumps(json.loads(json.dumps(table.snapshot).replace('"Ana"', '"Ana\\ud83d"'))),
                  "id": table.id})
        run_text(conn, "UPDATE seat SET name = :name WHERE table_id = :id AND seat = 1",
                 {"name": "Be\x07n", "id": table.id})
        run_text(conn, "UPDATE action SET params = :params WHERE table_id = :id",
                 {"params": json.dumps({"amount": 1, "note": "x\ud800\x01y"}), "id": table.id})
        conn.execute("UPDATE alembic_version SET version_num = '0005'")
    assert "\ud83d" in store.get_table(conn, code).players[0]
    conn.close()

    with caplog.at_level("WARNING", logger="forest_table.migrations"):
        app = open_app(target)  # the start migrates
    logged = caplog.text
    assert "game_table.players of id=" in logged and "seat.name of table_id=" in logged
    assert "action.params of table_id=" in logged and "\ud800" not in logged and "x y" not in logged
    conn = store.connect(target)
    try:
        table = store.get_table(conn, code)
        assert table.players == ["Ana", "Ben", "Cara"]
        assert "\ud83d" not in json.dumps(table.snapshot, ensure_ascii=False)
        assert [s["name"] for s in store.seats(conn, table.id)][:2] == ["Ana", "Be n"]
        assert store.live_actions(conn, table.id)[0].params == {"amount": 1, "note": "x y"}
        check(conn)
    finally:
        conn.close()
    page = app.test_client().get(f"/t/{code}")
    assert page.status_code == 200 and "Ana" in page.get_data(as_text=True)


def test_copy_to_postgres_from_the_old_release_file(postgres_database, tmp_path):
    source = tmp_path / "old.sqlite"
    shutil.copy(SQLITE_FIXTURE, source)
    before = sqlite_rows(str(source))
    url = postgres_database("copied")
    app = open_app(str(tmp_path / "unused.sqlite"))
    with app.app_context():  # as the flask command gives its commands
        result = app.test_cli_runner().invoke(args=["copy-to-postgres", str(source), url])
    assert result.exit_code == 0, result.output
    conn = store.connect(url)
    try:
        check(conn)
        for old in before["game_table"]:
            table = store.get_table(conn, old["code"])
            assert (table.id, table.version, table.snapshot) == (
                old["id"], old["version"], json.loads(old["snapshot"]))
        assert len(store.all_played(conn, ("finished", "unfinished"))) == len(before["played_game"])
    finally:
        conn.close()


def test_backup_of_a_migrated_database_and_the_db_commands(tmp_path):
    source = tmp_path / "old.sqlite"
    shutil.copy(SQLITE_FIXTURE, source)
    app = open_app(str(source))  # migrated at start
    runner = app.test_cli_runner()
    copy = tmp_path / "copy.sqlite"
    with app.app_context():  # as the flask command gives its commands
        result = runner.invoke(args=["db", "current"])
        assert result.exit_code == 0 and migrate.head() in result.output, result.output
        assert runner.invoke(args=["db", "check"]).exit_code == 0
        result = runner.invoke(args=["backup", str(copy)])
        assert result.exit_code == 0, result.output
    assert sqlite_rows(str(copy)) == sqlite_rows(str(source))
    conn = store.connect(str(copy))
    try:
        check(conn)
    finally:
        conn.close()


def test_processes_starting_together_migrate_once(database):
    """Workers starting at once on a new database: the first migrates, the others wait for
    it and find the newest revision (none fails, no revision runs twice)."""
    import sys
    target = database("together")
    script = ("import sys; from companion import store; c = store.connect(sys.argv[1]); "
              "store.init_schema(c); c.close()")
    starts = [subprocess.Popen([sys.executable, "-c", script, target], cwd=str(SQLITE_FIXTURE.parents[2]),
                               stderr=subprocess.PIPE, text=True) for _ in range(3)]
    for start in starts:
        assert start.wait(120) == 0, start.stderr.read()
    conn = store.connect(target)
    try:
        assert [tuple(r) for r in run_text(conn, "SELECT version_num FROM alembic_version")] == [(migrate.head(),)]
        check(conn)
    finally:
        conn.close()
