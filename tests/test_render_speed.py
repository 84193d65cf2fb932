"""What keeps a move cheap to serve: reused database connections and rendered views."""

from __future__ import annotations

import os

import pytest

from companion import db as db_module
from companion import store


@pytest.fixture
def sqlite_app(tmp_path):
    from companion import create_app
    return create_app({"DATABASE": str(tmp_path / "t.sqlite"), "SECRET_KEY": "test",
                       "TESTING": True, "LAN_ADDRESS": "127.0.0.1"})


def test_requests_reuse_one_sqlite_connection(sqlite_app):
    with sqlite_app.app_context():
        first = db_module.get_db()
    with sqlite_app.app_context():
        second = db_module.get_db()
    assert second is first
    second.execute("SELECT 1").fetchone()  # given back open, not closed


def test_a_connection_in_use_is_not_lent_twice(sqlite_app):
    with sqlite_app.app_context():
        outer = db_module.get_db()
        with sqlite_app.app_context():
            inner = db_module.get_db()
        assert inner is not outer


def test_a_request_failing_mid_write_leaves_no_transaction_behind(sqlite_app):
    with pytest.raises(RuntimeError):
        with sqlite_app.app_context():
            conn = db_module.get_db()
            conn.execute("BEGIN IMMEDIATE")
            raise RuntimeError("the request failed")
    with sqlite_app.app_context():
        again = db_module.get_db()
        assert again is conn
        assert not again.in_transaction
        # The write lock is free: another connection can write at once.
        other = store.connect(sqlite_app.config["DATABASE"])
        try:
            other.execute("BEGIN IMMEDIATE")
            other.execute("ROLLBACK")
        finally:
            other.close()


def test_a_forked_process_opens_its_own_connections(tmp_path, monkeypatch):
    pool = db_module.SqlitePool(str(tmp_path / "t.sqlite"))
    parent = pool.borrow()
    pool.give_back(parent)
    monkeypatch.setattr(os, "getpid", lambda: -1)  # as seen from a child after fork()
    child = pool.borrow()
    assert child is not parent
    child.close()


def test_the_pool_keeps_only_a_few_idle_connections(tmp_path):
    pool = db_module.SqlitePool(str(tmp_path / "t.sqlite"), keep=2)
    lent = [pool.borrow() for _ in range(4)]
    for conn in lent:
        pool.give_back(conn)
    assert len(pool._idle) == 2
    with pytest.raises(Exception):
        lent[-1].execute("SELECT 1")  # the ones beyond were closed
    pool.close()
