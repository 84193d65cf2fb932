import os

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion import create_app, store
from companion.games import register
from companion.web.limits import limiter

from . import tiny_game

register(tiny_game)

# The tests make hundreds of tables and imports from one address; every app they start,
# here or in a server process, allows that unless a test sets its own limit.
os.environ.setdefault("FOREST_TABLE_TABLE_CREATION_LIMIT", "1000000 per minute")
os.environ.setdefault("FOREST_TABLE_HISTORY_IMPORT_LIMIT", "1000000 per minute")


class SameOriginClient(FlaskClient):
    """A phone's browser: every request says it comes from a page of the app itself
    (browsers send Origin with every POST; the app refuses writes without it)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.environ_base["HTTP_ORIGIN"] = "http://localhost"


# Every app made in the tests, by the fixtures or by hand, hands out such clients.
Flask.test_client_class = SameOriginClient


@pytest.fixture
def app(tmp_path):
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "test.sqlite"),
                      "SECRET_KEY": "test-key", "LAN_ADDRESS": "192.168.1.20",
                      "STREAM_POLL_SECONDS": 0.05, "STREAM_MAX_SECONDS": 2.0,
                      "CODE_GUESS_LIMIT": "100000 per minute"})
    limiter.reset()  # one in-memory store per process: start every test from zero
    yield app


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def make_client(app):
    """A fresh phone: its own cookie jar."""
    return lambda: app.test_client()


@pytest.fixture
def conn(tmp_path):
    """A bare database connection, for the table layer without the web."""
    conn = store.connect(str(tmp_path / "t.sqlite"))
    store.init_schema(conn)
    yield conn
    conn.close()
