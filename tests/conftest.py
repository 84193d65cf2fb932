import os
import secrets
from urllib.parse import quote

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


# These modules run against both databases: every test of theirs that uses the `database`
# fixture (or `app`, `conn`) runs once on SQLite and once on PostgreSQL.
BOTH_BACKENDS = {"test_tables", "test_concurrency", "test_crash", "test_secrecy", "test_campaign_api",
                 "test_history", "test_serving", "test_postgres", "test_rematch", "test_upgrade"}
# The PostgreSQL server the tests may use (scripts/test.sh starts a throwaway one).
POSTGRES_URL_ENV = "FOREST_TABLE_TEST_DATABASE_URL"
# A developer without PostgreSQL may opt out with FOREST_TABLE_TEST_POSTGRES=skip.
POSTGRES_OPT_OUT_ENV = "FOREST_TABLE_TEST_POSTGRES"


def postgres_opted_out() -> bool:
    return os.environ.get(POSTGRES_OPT_OUT_ENV) == "skip"


def pytest_generate_tests(metafunc):
    module = metafunc.module.__name__.rsplit(".", 1)[-1]
    if "backend" in metafunc.fixturenames and module in BOTH_BACKENDS:
        backends = ["sqlite"] if postgres_opted_out() else ["sqlite", "postgresql"]
        metafunc.parametrize("backend", backends, indirect=True)


@pytest.fixture
def backend(request):
    return getattr(request, "param", "sqlite")


def postgres_server_url() -> str:
    url = os.environ.get(POSTGRES_URL_ENV)
    if not url:
        pytest.fail(f"{POSTGRES_URL_ENV} is not set: run the tests with `bash scripts/test.sh`, "
                    "which starts a throwaway PostgreSQL, or opt out of the PostgreSQL runs "
                    f"with {POSTGRES_OPT_OUT_ENV}=skip.", pytrace=False)
    return url


class PostgresSchemas:
    """Fresh, empty databases on the test server: each one a schema of its own, reached
    by a URL whose connections see only that schema."""

    def __init__(self, server_url: str):
        self.server_url = server_url
        self.made: list[tuple[str, str]] = []

    def __call__(self, name: str = "test") -> str:
        import psycopg
        schema = f"t_{name.replace('-', '_')}_{secrets.token_hex(4)}"
        with psycopg.connect(self.server_url, autocommit=True) as admin:
            admin.execute(f"CREATE SCHEMA {schema}")
        sep = "&" if "?" in self.server_url else "?"
        url = (f"{self.server_url}{sep}application_name={schema}"
               f"&options={quote(f'-csearch_path={schema}')}")
        self.made.append((schema, url))
        return url

    def drop_all(self) -> None:
        import psycopg
        from companion import pgstore
        with psycopg.connect(self.server_url, autocommit=True) as admin:
            for schema, url in self.made:
                pgstore.close_pool(url)
                # Connections the test's apps still hold (listeners, look-ups) go too.
                admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                              " WHERE application_name = %s", (schema,))
                admin.execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture
def postgres_database():
    """postgres_database(name): the URL of a fresh, empty PostgreSQL database."""
    if postgres_opted_out():
        pytest.skip(f"PostgreSQL runs opted out ({POSTGRES_OPT_OUT_ENV}=skip)")
    schemas = PostgresSchemas(postgres_server_url())
    yield schemas
    schemas.drop_all()


@pytest.fixture
def database(request, backend, tmp_path):
    """database(name): the address of a fresh, empty database of the backend under test,
    a SQLite file in the test's folder or a PostgreSQL URL."""
    if backend == "sqlite":
        return lambda name="test": str(tmp_path / f"{name}.sqlite")
    return request.getfixturevalue("postgres_database")


@pytest.fixture
def app(database):
    app = create_app({"TESTING": True, "DATABASE": database("test"),
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
def conn(database):
    """A bare database connection, for the table layer without the web."""
    conn = store.connect(database("t"))
    store.init_schema(conn)
    yield conn
    conn.close()
