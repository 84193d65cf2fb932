"""Seats reach every phone live: taking or freeing a seat moves a seat stamp that the
event stream carries, and never the game version, which actions check strictly."""

import sqlite3

from companion import store
from companion.web.limits import limiter

from .helpers import act, create_tiny, take, version_of
from .old_database import from_before_migrations
from .test_serving import StreamReader, make_app


def hosted_table(app):
    """A tiny table whose host sits in seat 0; the host's client and the code."""
    limiter.reset()
    host = app.test_client()
    code = create_tiny(host)
    take(host, code, 0)
    return host, code


def test_a_seat_taken_through_one_app_reaches_a_stream_held_by_another(tmp_path):
    path = tmp_path / "shared.sqlite"
    writer, holder = make_app(path), make_app(path)
    host, code = hosted_table(writer)
    ben = writer.test_client()
    stream = StreamReader(holder.test_client().get(f"/t/{code}/events?v=0&s=1"))
    try:
        stream.until(r"retry: \d+")
        take(ben, code, 1)
        text = stream.until(r"event: seats\ndata: 2\n\n")
        assert "event: update" not in text  # the game did not move
    finally:
        stream.close()


def test_a_join_does_not_make_a_move_prepared_before_it_stale(tmp_path):
    app = make_app(tmp_path / "db.sqlite")
    host, code = hosted_table(app)
    seen = version_of(host, code)
    take(app.test_client(), code, 1)
    assert version_of(host, code) == seen
    assert act(host, code, "add", {"amount": 1}, version=seen).status_code == 200


def test_a_freed_seat_wakes_the_streams_of_the_same_app(tmp_path):
    app = make_app(tmp_path / "db.sqlite")
    limiter.reset()
    host, ben = app.test_client(), app.test_client()
    code = create_tiny(host)
    take(ben, code, 1)
    stream = StreamReader(app.test_client().get(f"/t/{code}/events?v=0"))
    try:
        stream.until(r"retry: \d+")
        assert host.delete(f"/api/tables/{code}/seats/1", headers={"Origin": "http://localhost"}).status_code == 200
        stream.until(r"event: seats\ndata: 2\n\n")
    finally:
        stream.close()


def test_a_phone_reconnecting_with_old_seats_is_told_the_current_stamp(tmp_path):
    app = make_app(tmp_path / "db.sqlite")
    _, code = hosted_table(app)
    take(app.test_client(), code, 1)
    stream = StreamReader(app.test_client().get(f"/t/{code}/events?v=0&s=0"))
    try:
        text = stream.until(r"event: seats\ndata: 2\n\n")
        assert "event: update" not in text
    finally:
        stream.close()


def test_a_database_made_before_seat_stamps_gains_the_column(tmp_path):
    path = tmp_path / "old.sqlite"
    from_before_migrations(str(path), "0001")
    conn = sqlite3.connect(path)
    assert "seat_stamp" not in {row[1] for row in conn.execute("PRAGMA table_info(game_table)")}
    conn.close()
    app = make_app(path)
    limiter.reset()
    client = app.test_client()
    code = create_tiny(client)
    take(client, code, 0)
    conn = store.connect(str(path))
    assert store.get_stamps(conn, code) == (0, 1)
    conn.close()
