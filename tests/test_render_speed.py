"""What keeps a move cheap to serve: reused database connections and rendered views."""

from __future__ import annotations

import gc
import os
from collections import Counter
from contextlib import contextmanager

import pytest

from companion import db as db_module
from companion import store

from .helpers import act, version_of


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


# -- the view -------------------------------------------------------------------------------

HX = {"HX-Request": "true"}


def _wicked_forest_table(app, players):
    phones = [app.test_client() for _ in players]
    code = phones[0].post("/api/tables", json={"game": "wicked-forest", "players": players,
                                               "options": {"first_leader": "0"}}).get_json()["code"]
    for seat, phone in enumerate(phones):
        assert phone.post(f"/join/{code}", data={"seat": str(seat)}).status_code in (302, 303)
    return code, phones


def test_a_view_reads_the_seats_and_the_newest_moves_once(sqlite_app):
    code, phones = _wicked_forest_table(sqlite_app, ["Ana", "Ben", "Cara"])
    statements = []
    with sqlite_app.app_context():
        conn = db_module.get_db()  # the pooled connection the next request gets
    conn.set_trace_callback(statements.append)
    try:
        assert phones[1].get(f"/t/{code}/view", headers=HX).status_code == 200
    finally:
        conn.set_trace_callback(None)
    # The table and its state are read once, and the seats once for this phone's seats and
    # the seat list; the rate limit's check that the phone was given a seat here reads its
    # signed cookie only.
    assert sum("game_table.snapshot" in s and "FROM game_table" in s for s in statements) == 1
    assert sum("FROM seat" in s for s in statements) == 1
    assert not any("JOIN seat" in s or "rate_limit" in s for s in statements)
    # The Undo button and the last moves come from one read of the newest moves.
    assert sum("FROM action" in s for s in statements) == 1


def test_form_helpers_escape_what_players_typed(sqlite_app):
    hostile = 'Al"<b>'
    code, phones = _wicked_forest_table(sqlite_app, [hostile, "Ben", "Cara"])
    html = phones[0].get(f"/t/{code}/view", headers=HX).get_data(as_text=True)
    assert hostile not in html
    assert 'aria-label="Al&#34;&lt;b&gt; Magic"' in html  # a stepper's label
    assert 'aria-label="Al&#34;&lt;b&gt; Magic minus one"' in html


def test_every_form_of_a_view_leaves_its_request_id_and_version_to_the_page(sqlite_app):
    """A form carries an empty request id, which the page fills when it is tapped (app.js):
    an id handed to two phones would make one phone's tap look like the other's retry. The
    version goes from the view (`data-version`), not the form, so the forms of a view are
    the same text from one version to the next and a pushed change leaves them out."""
    import re
    code, phones = _wicked_forest_table(sqlite_app, ["Ana", "Ben", "Cara"])
    view = phones[0].get(f"/t/{code}/view", headers=HX).get_data(as_text=True)
    # (the language menu in ☰ More is a plain form of the phone's own, not a table action)
    forms = view.count("<form ") - view.count('<form class="language-menu"')
    assert forms > 20 and view.count('<form class="language-menu"') == 1
    assert re.findall(r'name="rid" value="([^"]*)"', view) == [""] * forms
    assert 'name="version"' not in view and 'data-version="0"' in view
    act(phones[1], code, "set_draw_pile", {"count": 20}, seat=1)
    later = phones[0].get(f"/t/{code}/view", headers=HX).get_data(as_text=True)
    assert 'data-version="1"' in later
    stepper = re.compile(r'<form [^>]*>(?:(?!</form>).)*aria-label="Draw pile minus one"')
    assert stepper.search(view).group(0) == stepper.search(later).group(0).replace('value="19"', 'value="20"')


def test_a_stepper_at_its_bounds_disables_the_step_past_them(sqlite_app):
    import re
    code, phones = _wicked_forest_table(sqlite_app, ["Ana", "Ben", "Cara"])
    html = phones[0].get(f"/t/{code}/view", headers=HX).get_data(as_text=True)
    # Ana's Forest Magic Tiles start at 0: minus is disabled, plus posts 1.
    minus = re.search(r'<button class="btn step" name="count" value="-1" disabled '
                      r'aria-label="Ana Forest Magic Tiles minus one">', html)
    plus = re.search(r'<button class="btn step" name="count" value="1" '
                     r'aria-label="Ana Forest Magic Tiles plus one">', html)
    assert minus and plus


def test_dict_attributes_in_templates_read_as_jinja_reads_them(sqlite_app):
    env = sqlite_app.jinja_env
    view = {"phase": "choose", "items": "a key named like a method"}
    assert env.from_string("{{ v.phase }}").render(v=view) == "choose"
    # A dict's own methods come first, as Jinja has it; a key is reached with v['items'].
    assert env.from_string("{{ v.items()|list|length }}").render(v=view) == "2"
    assert env.from_string("{{ v['items'] }}").render(v=view) == "a key named like a method"
    assert env.from_string("{{ v.missing is defined }}").render(v=view) == "False"
    assert env.from_string("{{ v.missing|default('-') }}").render(v=view) == "-"


def test_the_phones_of_a_table_take_one_read_of_it_per_version(sqlite_app):
    from companion.web import table_reads
    code, phones = _wicked_forest_table(sqlite_app, ["Ana", "Ben", "Cara"])
    cache = table_reads.cache_of(sqlite_app)
    before = cache.reads
    for phone in phones:
        assert phone.get(f"/t/{code}/view", headers=HX).status_code == 200
    assert cache.reads - before == 1
    # A move: read again, once, and every phone shows it.
    version = phones[0].get(f"/api/tables/{code}").get_json()["version"]
    assert phones[0].post(f"/api/tables/{code}/actions", headers={"Origin": "http://localhost"}, json={
        "action": "set_draw_pile", "params": {"count": 13}, "version": version}).status_code == 200
    for phone in phones:
        assert "<b>13</b><span>Draw pile" in phone.get(f"/t/{code}/view", headers=HX).get_data(as_text=True)
    assert cache.reads - before == 2


def test_a_seat_freed_at_the_same_version_is_read_afresh(sqlite_app):
    from companion.web import table_reads
    code, phones = _wicked_forest_table(sqlite_app, ["Ana", "Ben", "Cara"])
    assert "(this phone)" in phones[1].get(f"/t/{code}/view", headers=HX).get_data(as_text=True)
    reads = table_reads.cache_of(sqlite_app).reads
    with sqlite_app.app_context():
        conn = db_module.get_db()
        store.set_seat_token(conn, store.get_table(conn, code).id, 1, None)  # the seat stamp moves
    html = phones[1].get(f"/t/{code}/view", headers=HX).get_data(as_text=True)
    assert table_reads.cache_of(sqlite_app).reads == reads + 1
    assert "(this phone)" not in html and "You are watching this table" in html


@pytest.mark.parametrize("game", ["wicked-forest", "woodland-wizards", "explorers-of-the-woodlands",
                                  "mysterious-forest"])
def test_rendering_views_changes_nothing_in_the_state_the_phones_share(sqlite_app, game):
    import copy

    from companion.web import table_reads
    from .test_shared_parts import NAMES, seated_table
    code, phones = seated_table(sqlite_app, game, NAMES)
    watcher = sqlite_app.test_client()
    with sqlite_app.test_request_context():
        reads = table_reads.cache_of(sqlite_app).get(db_module.get_db(), code)
    kept = copy.deepcopy((reads.table, list(map(dict, reads.seat_rows)), reads.newest))
    for phone in [*phones, watcher]:
        assert phone.get(f"/t/{code}/view", headers=HX).status_code == 200
        assert phone.get(f"/t/{code}").status_code == 200
    with sqlite_app.test_request_context():
        again = table_reads.cache_of(sqlite_app).get(db_module.get_db(), code)
    assert again is reads  # the same copy served them all...
    assert (again.table, list(map(dict, again.seat_rows)), again.newest) == kept  # ...left as it was


def test_writers_of_every_process_queue_on_the_databases_lock_file(tmp_path):
    import fcntl
    path = str(tmp_path / "w.sqlite")
    conn = store.connect(path)
    store.init_schema(conn)
    # Another process's writer: its own open file, so flock tells the two apart.
    with open(path + "-writers", "a+b") as other:
        with store.Transaction(conn):
            with pytest.raises(BlockingIOError):
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)  # free once the write committed
        fcntl.flock(other, fcntl.LOCK_UN)
        with pytest.raises(RuntimeError):
            with store.Transaction(conn):
                raise RuntimeError("a write that fails")
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)  # a failed write frees it too
        fcntl.flock(other, fcntl.LOCK_UN)
    conn.close()
    assert store.connect(":memory:").writer_lock is None


def test_remembered_urls_are_flasks_for_each_script_root(sqlite_app):
    import flask
    from companion.web import templating
    for root in ("", "/club"):
        with sqlite_app.test_request_context("/", base_url=f"http://localhost{root}"):
            for _ in range(2):  # built, then remembered
                assert templating.url_for("pages.act", code="ABCD") == flask.url_for("pages.act", code="ABCD")
                assert templating.url_for("pages.act", code="ABCD") == f"{root}/t/ABCD/act"
            assert templating.url_for("pages.act", code="WXYZ") == f"{root}/t/WXYZ/act"
            external = templating.url_for("pages.act", code="ABCD", _external=True)
            assert external.startswith("http://") and external.endswith(f"{root}/t/ABCD/act")


def test_processes_opening_a_new_database_together_switch_it_to_wal_in_turn(tmp_path):
    import fcntl
    import threading
    path = str(tmp_path / "new.sqlite")
    opened = []
    with open(path + "-writers", "a+b") as other:  # another process, switching it just now
        fcntl.flock(other, fcntl.LOCK_EX)
        opener = threading.Thread(target=lambda: opened.append(store.connect(path)))
        opener.start()
        opener.join(0.3)
        assert opened == []  # waits for its turn
        fcntl.flock(other, fcntl.LOCK_UN)
        opener.join(10)
    conn = opened[0]
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


@contextmanager
def cyclic_garbage():
    """The objects that only the cyclic garbage collector would have freed, of what ran inside."""
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    found: list = []
    try:
        yield found
    finally:
        gc.collect()
        found.extend(gc.garbage)
        gc.garbage.clear()
        gc.set_debug(0)
        if was_enabled:
            gc.enable()


def _kind(obj) -> str:
    kind = type(obj)
    return f"{kind.__module__}.{kind.__qualname__}"


# One move of each game, by the JSON API.
FIRST_MOVES = {"wicked-forest": ("set_draw_pile", {"count": 19}),
               "woodland-wizards": ("next_phase", {"phase": "wandering"}),
               "explorers-of-the-woodlands": ("set_hp", {"hero": "klethor", "hp": 4}),
               "mysterious-forest": ("tick", {"step": 0, "done": True})}


@pytest.mark.parametrize("game", sorted(FIRST_MOVES))
def test_serving_a_table_leaves_nothing_for_the_cycle_collector(tmp_path, game):
    """A template's own {% macro %} is a closure over the render's context, kept in that
    context: a reference cycle, so each render's whole context (the view, its forms, the
    request) waited for the cycle collector, whose passes over a server holding thousands
    of streams took some 5 % of its CPU at saturation. Templates define no macros (forms are
    Python, `ui`; a repeated piece is an include): a page, a fetched view and a pushed view
    leave no context of Jinja, and nothing of the app's, to that collector."""
    from .test_shared_parts import NAMES, make_app, seated_table

    app = make_app(tmp_path)
    code, phones = seated_table(app, game, NAMES)
    version = version_of(phones[1], code)
    stream = phones[1].get(f"/t/{code}/events?v={version}&views=1", buffered=False)
    chunks = iter(stream.response)
    try:
        with cyclic_garbage() as garbage:
            assert phones[1].get(f"/t/{code}").status_code == 200
            assert phones[1].get(f"/t/{code}/view", headers=HX).status_code == 200
            action, params = FIRST_MOVES[game]
            assert act(phones[0], code, action, params).status_code == 200
            text = ""
            while "event: view" not in text:  # the move's view, pushed to phone 1
                chunk = next(chunks)
                text += chunk.decode() if isinstance(chunk, bytes) else chunk
        kinds = Counter(_kind(obj) for obj in garbage)
        left = {kind: count for kind, count in kinds.items()
                if kind.startswith(("jinja2.", "companion.", "markupsafe."))}
        assert not left, f"left to the cycle collector: {left}"
    finally:
        stream.close()


def test_no_template_defines_a_macro_or_imports_one_with_its_context():
    """The render-time side of the test above, for every template (some render only in
    states a short test does not reach): a macro library imported without the context
    (`{% from "table/_macros.html" import ... %}`) is one module per process, not a cycle
    per render."""
    import re
    from pathlib import Path

    folder = Path(__file__).resolve().parent.parent / "templates"
    libraries = {"table/_macros.html", "woodland-wizards/_words.html"}
    found = []
    for path in sorted(folder.rglob("*.html")):
        name = path.relative_to(folder).as_posix()
        text = path.read_text()
        if name not in libraries and re.search(r"{%-?\s*macro\b", text):
            found.append(f"{name} defines a macro")
        if re.search(r"{%-?\s*(?:import|from)\b[^%]*\bwith\s+context\b", text):
            found.append(f"{name} imports with its context")
    assert not found


def test_the_sentence_filters_count_and_list_as_a_player_reads_them(sqlite_app):
    env = sqlite_app.jinja_env
    counted = env.from_string('{{ n|counted("Flower") }}')
    assert [counted.render(n=n) for n in (0, 1, 2, 5)] == ["0 Flowers", "1 Flower", "2 Flowers", "5 Flowers"]
    listed = env.from_string("{{ seats|names(players)|and_list }}")
    players = ["Ana", "Ben", "Cara", "Dan"]
    assert [listed.render(seats=seats, players=players) for seats in ([], [2], [0, 3], [0, 1, 3], [3, 2, 1, 0])] \
        == ["", "Cara", "Ana and Dan", "Ana, Ben and Dan", "Dan, Cara, Ben and Ana"]
    # What a player typed is escaped where the sentence is shown.
    assert listed.render(seats=[0, 1], players=['<b>"A"', "B&"]) == "&lt;b&gt;&#34;A&#34; and B&amp;"


def test_a_big_button_acts_for_the_phones_actor_with_its_fields_and_note(sqlite_app):
    env = sqlite_app.jinja_env
    button = env.from_string('{{ ui.big_button("pack", "🎒", "Take <it>", note=note, cls="btn big",'
                             ' fields={"took": "food", "roll": 3}, label=label) }}')
    with sqlite_app.test_request_context():
        html = button.render(actor=2, act_url="/t/ABCD/act", note="1 < 2", label="Pack the food")
        bare = button.render(actor=None, act_url="/t/ABCD/act", note="", label=None)
    assert html == (
        '<form method="post" action="/t/ABCD/act" hx-post="/t/ABCD/act" hx-target="#view" hx-sync="this:drop" '
        'class="act inline"><input type="hidden" name="action" value="pack"><input type="hidden" name="rid" value="">'
        '<input type="hidden" name="seat" value="2"><input type="hidden" name="took" value="food">'
        '<input type="hidden" name="roll" value="3"><button class="btn big mf-btn" type="submit" '
        'aria-label="Pack the food: Take &lt;it&gt; 1 &lt; 2"><span class="mf-btn-text"><span aria-hidden="true">🎒</span>'
        ' Take &lt;it&gt;</span> <small>1 &lt; 2</small></button></form>')
    # No actor (a phone with no seat), no note, no label: none of them in the form.
    assert 'name="seat"' not in bare and "<small>" not in bare and "aria-label" not in bare
