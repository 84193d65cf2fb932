"""What one worker process learns from another through the database, so a move costs the
server less: the shared parts of a view rendered by one process are taken by the other
instead of being rendered again, and the phone whose tap was answered with its view is not
pushed that view again by its stream in the other process. Two apps on one SQLite file stand
for two worker processes: each has its own caches and its own live-update hub."""

import contextlib
import re
import threading
import time

from companion import create_app, store
from companion.dialects import run_text
from companion.web import i18n, shared_parts
from companion.web.limits import limiter

from .test_pushed_views import views_in
from .test_secrecy import normalise
from .test_serving import StreamReader
from .test_shared_parts import NAMES, OPTIONS

HX = {"HX-Request": "true"}
ORIGIN = {"Origin": "http://localhost"}
COOKIE = "forest_table"


def two_processes(tmp_path):
    settings = {"TESTING": True, "DATABASE": str(tmp_path / "club.sqlite"), "SECRET_KEY": "club",
                "LAN_ADDRESS": "127.0.0.1", "STREAM_POLL_SECONDS": 0.02,
                "STREAM_KEEPALIVE_SECONDS": 0.1, "STREAM_MAX_SECONDS": 5.0,
                "CODE_GUESS_LIMIT": "100000 per minute"}
    first, second = create_app(dict(settings)), create_app(dict(settings))
    limiter.reset()
    return first, second


@contextlib.contextmanager
def unheard_by(app):
    """While it lasts the app's live-update watcher hears no write of the other process: its
    streams wake only after what the block does is done (in a real server they may wake in
    between, before the other process's rows are kept, and then render the parts themselves)."""
    hub, gate = app.extensions["forest_hub"], threading.Lock()
    publish, sweep = hub._publish_changes, hub._sweep

    def gated(step):
        def run(*args):
            with gate:
                return step(*args)
        return run

    hub._publish_changes, hub._sweep = gated(publish), gated(sweep)
    try:
        with gate:
            yield
    finally:
        hub._publish_changes, hub._sweep = publish, sweep


def seated(first, game="wicked-forest"):
    phones = [first.test_client() for _ in NAMES]
    reply = phones[0].post("/api/tables", headers=ORIGIN,
                           json={"game": game, "players": NAMES, "options": OPTIONS[game]})
    assert reply.status_code == 201
    code = reply.get_json()["code"]
    for seat, phone in enumerate(phones):
        assert phone.post(f"/api/tables/{code}/seats/{seat}", headers=ORIGIN).status_code == 201
    return code, phones


def same_phone_in(app, phone):
    """The phone's cookie (its seats) on a client of the other process."""
    other = app.test_client()
    other.set_cookie(COOKIE, phone.get_cookie(COOKIE).value)
    return other


def view(phone, code):
    resp = phone.get(f"/t/{code}/view", headers=HX)
    assert resp.status_code == 200
    return resp.get_data(as_text=True)


def tap_set_draw_pile(phone, code, count):
    version = phone.get(f"/api/tables/{code}").get_json()["version"]
    return phone.post(f"/t/{code}/act", headers=HX, data={
        "action": "set_draw_pile", "count": str(count), "version": str(version), "rid": f"tap-{version}"})


def test_parts_one_process_rendered_are_taken_by_the_other_not_rendered_again(tmp_path):
    first, second = two_processes(tmp_path)
    code, phones = seated(first)
    in_second = same_phone_in(second, phones[2])
    first_cache, second_cache = shared_parts.cache_of(first), shared_parts.cache_of(second)
    before = (first_cache.renders, second_cache.renders)
    assert tap_set_draw_pile(phones[0], code, 17).status_code == 200  # renders the new version's parts
    rendered = first_cache.renders - before[0]
    assert rendered >= 2
    shown = view(in_second, code)
    assert second_cache.renders == before[1]  # none rendered in the second process
    assert "17" in shown and 'data-version="1"' in shown
    # Exactly what the first process shows the same phone.
    assert normalise(shown) == normalise(view(phones[2], code))


def test_a_part_kept_for_an_older_version_is_never_taken(tmp_path):
    first, second = two_processes(tmp_path)
    code, phones = seated(first)
    in_second = same_phone_in(second, phones[1])
    assert tap_set_draw_pile(phones[0], code, 17).status_code == 200
    # A move through the JSON API renders no view: nothing is kept for its version.
    version = phones[0].get(f"/api/tables/{code}").get_json()["version"]
    assert phones[0].post(f"/api/tables/{code}/actions", headers=ORIGIN, json={
        "action": "set_draw_pile", "params": {"count": 9}, "version": version}).status_code == 200
    before = shared_parts.cache_of(second).renders
    shown = view(in_second, code)
    assert shared_parts.cache_of(second).renders > before  # rendered afresh
    assert re.search(r"<b>9</b><span>Draw pile", shown) and not re.search(r"<b>17</b><span>Draw pile", shown)


def test_a_watching_phone_never_takes_the_parts_made_for_seated_phones(tmp_path):
    first, second = two_processes(tmp_path)
    code, phones = seated(first)
    assert tap_set_draw_pile(phones[0], code, 17).status_code == 200
    watching = view(second.test_client(), code)
    assert "set_draw_pile" not in watching and "Draw pile" in watching


def test_the_tapping_phones_stream_in_another_process_is_not_pushed_its_answered_view(tmp_path):
    first, second = two_processes(tmp_path)
    code, phones = seated(first)
    tapper, other = same_phone_in(second, phones[0]), same_phone_in(second, phones[1])
    streams = [StreamReader(client.get(f"/t/{code}/events?v=0&s={seats}&views=1"))
               for client, seats in ((tapper, 4), (other, 4))]
    try:
        for stream in streams:
            stream.until(r"retry: \d+")
        assert tap_set_draw_pile(phones[0], code, 17).status_code == 200  # answered with the view
        tapped = streams[0].until(r"event: update\ndata: 1\n\n")
        assert views_in(tapped) == []
        assert ['data-version="1"' in html for html in views_in(streams[1].until(r"event: update\ndata: 1\n\n"))] == [True]
        # A move whose answer carries no view (the JSON API): its stream pushes the view.
        assert phones[0].post(f"/api/tables/{code}/actions", headers=ORIGIN, json={
            "action": "set_draw_pile", "params": {"count": 9}, "version": 1}).status_code == 200
        pushed = views_in(streams[0].until(r"event: update\ndata: 2\n\n"))
        assert ['data-version="2"' in html for html in pushed] == [True]
    finally:
        for stream in streams:
            stream.close()


def test_what_marks_an_answer_is_a_digest_not_the_phones_seat_tokens(tmp_path):
    first, _ = two_processes(tmp_path)
    code, phones = seated(first)
    assert tap_set_draw_pile(phones[0], code, 17).status_code == 200
    conn = store.connect(first.config["DATABASE"])
    try:
        stored = run_text(conn, "SELECT answered_by FROM game_table WHERE code = :code", {"code": code}).fetchone()[0]
    finally:
        conn.close()
    cookie = phones[0].get_cookie(COOKIE).value
    assert re.fullmatch(r"[0-9a-f]{24}", stored)
    assert stored not in cookie


def test_only_news_of_an_answer_spares_a_stream_its_view(tmp_path):
    """A watcher's overlap reads a write again, and a stream may open after the write: the
    answer it names must then change nothing (the stream shows the phone what it missed)."""
    from companion import live
    first, _ = two_processes(tmp_path)
    code, phones = seated(first)
    assert tap_set_draw_pile(phones[0], code, 17).status_code == 200  # version 1, answered
    hub = live.Hub(first.config["DATABASE"])
    conn = store.connect(first.config["DATABASE"])
    try:
        (answered_by,) = run_text(conn, "SELECT answered_by FROM game_table WHERE code = :code", {"code": code}).fetchone()
        opened_after = live.Channel(code, None)
        opened_after.publish(1)
        hub._channels[code] = opened_after
        hub._publish_changes(conn, 0.0)
        assert opened_after.answered == {}
        open_before = live.Channel(code, None)
        open_before.publish(0)
        hub._channels[code] = open_before
        hub._publish_changes(conn, 0.0)
        assert open_before.answered == {answered_by: 1} and open_before.version == 1
    finally:
        conn.close()


def test_a_write_the_watcher_reads_again_wakes_no_stream(tmp_path, monkeypatch):
    """The overlap reads each write some twenty times: only the first reading (news) takes
    the channel's lock and wakes its streams, and a newer seat stamp alone is news too."""
    from companion import live
    first, _ = two_processes(tmp_path)
    code, phones = seated(first)
    assert tap_set_draw_pile(phones[0], code, 17).status_code == 200  # version 1
    hub = live.Hub(first.config["DATABASE"])
    published = []
    real_publish = live.Channel.publish
    monkeypatch.setattr(live.Channel, "publish", lambda self, *stamps: published.append(stamps) or real_publish(self, *stamps))
    conn = store.connect(first.config["DATABASE"])
    try:
        (seats,) = run_text(conn, "SELECT seat_stamp FROM game_table WHERE code = :code", {"code": code}).fetchone()
        channel = hub._channels[code] = live.Channel(code, None)
        real_publish(channel, 0, seats - 1)
        for _ in range(3):
            hub._publish_changes(conn, 0.0)
        assert published == [(1, seats)] and channel.stamps() == (1, seats)
        assert channel.knows(1, seats) and channel.knows(0, seats - 1)
        assert not channel.knows(2, seats) and not channel.knows(1, seats + 1)
        assert not live.Channel(code, None).knows(0, 0)  # nothing known yet
    finally:
        conn.close()


def stored_parts(app, code):
    conn = store.connect(app.config["DATABASE"])
    try:
        return run_text(conn, "SELECT COUNT(*) FROM shared_part JOIN game_table ON game_table.id = table_id"
                        " WHERE code = :code", {"code": code}).fetchone()[0]
    finally:
        conn.close()


def test_the_parts_of_a_table_idle_for_an_hour_are_dropped_and_made_again_when_opened(tmp_path, monkeypatch):
    from companion import history
    first, _ = two_processes(tmp_path)
    code, phones = seated(first)
    assert tap_set_draw_pile(phones[0], code, 17).status_code == 200
    kept = stored_parts(first, code)
    assert kept >= 2
    now = time.time()
    monkeypatch.setattr(history, "now", lambda: now + 3000)
    first.test_client().get("/")  # the home page runs the archiving
    assert stored_parts(first, code) == kept
    monkeypatch.setattr(history, "now", lambda: now + 3700)
    first.test_client().get("/")
    assert stored_parts(first, code) == 0
    shared_parts.cache_of(first).clear()
    assert "<b>17</b><span>Draw pile" in view(phones[1], code)
    assert stored_parts(first, code) == kept


def test_a_never_played_table_whose_parts_were_kept_is_deleted_whole(tmp_path, monkeypatch):
    from companion import history
    first, _ = two_processes(tmp_path)
    code, phones = seated(first)
    view(phones[1], code)  # renders and keeps the parts of version 0
    assert stored_parts(first, code) >= 2
    later = time.time() + 7 * 3600
    monkeypatch.setattr(history, "now", lambda: later)
    first.test_client().get("/")
    assert phones[1].get(f"/api/tables/{code}").status_code == 404
    assert stored_parts(first, code) == 0


def test_parts_said_in_several_languages_are_kept_once_and_taken_by_the_other_process(tmp_path):
    """At a table read in three languages the first process renders each part once for all
    of them and keeps one row per part (its canonical text and each language's words); the
    other process takes every language from it, renders nothing, and its streams' changes
    are worked out on the canonical text (each held against the texts under test)."""
    first, second = two_processes(tmp_path)
    code, phones = seated(first)
    languages = ["en", "de", "fr", "de"]
    for phone, language in zip(phones, languages):
        phone.set_cookie(i18n.COOKIE, language)
    for phone in phones:
        view(phone, code)  # every language asked at this version: the table reads three
    others = [same_phone_in(second, phone) for phone in phones[1:3]]
    for phone, language in zip(others, languages[1:3]):
        phone.set_cookie(i18n.COOKIE, language)
    streams = [StreamReader(phone.get(f"/t/{code}/events?v=0&s=4&views=1")) for phone in others]
    try:
        for stream in streams:
            stream.until(r"retry: \d+")
        first_cache, second_cache = shared_parts.cache_of(first), shared_parts.cache_of(second)
        for count, version in ((17, 1), (12, 2)):
            recorded, renders = first_cache.recorded, (first_cache.renders, second_cache.renders)
            with unheard_by(second):
                assert tap_set_draw_pile(phones[0], code, count).status_code == 200
            per_language = (first_cache.renders - renders[0]) // 3
            assert per_language >= 2 and first_cache.renders - renders[0] == 3 * per_language
            assert first_cache.recorded - recorded == per_language  # one render for all three
            # One row a part (its name says the languages and the maker), replaced at each version.
            rows = said_rows(first, code, version)
            assert len(rows) == per_language and all(row.split("|")[2].startswith("de,en,fr*") for row in rows)
            for phone, stream, language in zip(others, streams, languages[1:3]):
                pushed = views_in(stream.until(r"event: update\ndata: %d\n\n" % version))[-1]
                assert f'data-version="{version}"' in pushed
                shown = view(phone, code)
                assert normalise(pushed) == normalise(shown)
                assert normalise(shown) == normalise(view(phones[languages.index(language)], code))
                assert i18n.language(language).gettext("The table at a glance") in shown
            assert second_cache.renders == renders[1] and second_cache.recorded == 0
    finally:
        for stream in streams:
            stream.close()


def test_a_part_the_same_as_at_the_version_before_is_said_and_read_once(tmp_path):
    """At a table read in three languages, a part that a move left as it was is taken as it
    was in every language: the process that renders it says it no more (its parts share
    their words with the version before) and the other reads its row no more (the same
    bytes); a part the move changed is said and read anew. Each reads as a render."""
    first, second = two_processes(tmp_path)
    code, phones = seated(first)
    for phone, language in zip(phones, ["en", "de", "fr", "en", "de"]):
        phone.set_cookie(i18n.COOKIE, language)
        view(phone, code)
    french = same_phone_in(second, phones[2])
    french.set_cookie(i18n.COOKIE, "fr")
    view(french, code)
    caches = [shared_parts.cache_of(first), shared_parts.cache_of(second)]

    def said_parts(cache):
        """(part, language) -> the newest part said from a recording, as kept."""
        return {(key[1], key[3]): piece for key, (_, piece) in list(cache._kept.items())
                if len(key) == 4 and key[3] is not None and key[2] and piece.spoken is not None}

    assert tap_set_draw_pile(phones[0], code, 17).status_code == 200
    view(french, code)
    before = [said_parts(cache) for cache in caches]
    assert {language for _, language in before[1]} == {"en", "de", "fr"}
    assert tap_set_draw_pile(phones[0], code, 12).status_code == 200
    shown = view(french, code)
    in_first = same_phone_in(first, phones[2])
    in_first.set_cookie(i18n.COOKIE, "fr")
    assert normalise(shown) == normalise(view(in_first, code))
    after = [said_parts(cache) for cache in caches]
    for old, new in zip(before, after):
        assert set(old) == set(new)
        kept = {name for name, _ in new if new[name, "fr"].spoken is old[name, "fr"].spoken}
        assert kept and kept != {name for name, _ in new}  # some parts moved, some did not
        for (name, language), piece in new.items():
            assert (piece.spoken is old[name, language].spoken) == (name in kept)
            assert (piece.text() == old[name, language].text()) == (name in kept)
            assert piece is not old[name, language]  # (a part of its own version: its change its own)
    assert {name for name, _ in after[0] if after[0][name, "de"].spoken is before[0][name, "de"].spoken} \
        == {name for name, _ in after[1] if after[1][name, "de"].spoken is before[1][name, "de"].spoken}


def said_rows(app, code, version):
    """The names of the rows that keep a version's parts said from one render for several
    languages."""
    return [name for name, at in table_rows(app, code) if "*" in name and at == version]


def table_rows(app, code):
    """(name, version) of every row of parts kept for the table."""
    conn = store.connect(app.config["DATABASE"])
    try:
        rows = run_text(conn, "SELECT part, stamp FROM shared_part JOIN game_table ON game_table.id = table_id"
                              " WHERE code = :code", {"code": code}).fetchall()
    finally:
        conn.close()
    return sorted((name, int(stamp.split("|")[1])) for name, stamp in rows)


def english_german_and_french_in_the_other(tmp_path):
    """Two processes at one table: the first's phones read English and German, the second's
    French, each phone's view asked once (the second says French, taking the others' parts)."""
    first, second = two_processes(tmp_path)
    code, phones = seated(first)
    phones[0].set_cookie(i18n.COOKIE, "en")
    phones[1].set_cookie(i18n.COOKIE, "de")
    french = same_phone_in(second, phones[2])
    french.set_cookie(i18n.COOKIE, "fr")
    for phone in (phones[0], phones[1], french):
        view(phone, code)
    return first, second, code, phones, french


def test_a_language_read_only_in_the_other_process_is_said_by_the_one_that_renders(tmp_path):
    """The first process's phones read English and German, the second's French: once the
    second has kept a French part, the first learns French from its row's name and says
    each new version in all three at its one render, so the second renders nothing."""
    first, second, code, phones, french = english_german_and_french_in_the_other(tmp_path)
    second_cache = shared_parts.cache_of(second)
    assert second_cache.recorded == 1 or second_cache.renders > 0
    for count, version in ((17, 1), (12, 2)):
        renders = second_cache.renders
        assert tap_set_draw_pile(phones[0], code, count).status_code == 200
        rows = said_rows(first, code, version)
        assert rows and all(row.split("|")[2].startswith("de,en,fr*") for row in rows)
        shown = view(french, code)
        assert second_cache.renders == renders  # taken whole from the first process's row
        assert i18n.language("fr").gettext("The table at a glance") in shown
        # and its own render for every language, made to say French at the start, is gone
        # (it kept the render's context alive, table after table)
        assert not [value for _, value in second_cache._kept.values() if type(value) is shared_parts.Recorded]
        in_first = same_phone_in(first, phones[2])
        in_first.set_cookie(i18n.COOKIE, "fr")
        assert normalise(shown) == normalise(view(in_first, code))


def test_rows_named_as_an_older_release_or_otherwise_are_passed_over(tmp_path):
    """A database from before a release kept its parts under names of another form ("part|
    seated", no language), and a row may name a language the app does not speak: the
    views are rendered as if those rows were not there, at this version and the next."""
    first, second = two_processes(tmp_path)
    code, phones = seated(first)
    in_second = same_phone_in(second, phones[1])
    assert tap_set_draw_pile(phones[0], code, 17).status_code == 200
    conn = store.connect(first.config["DATABASE"])
    try:
        table_id, stamp = run_text(conn, "SELECT table_id, stamp FROM shared_part JOIN game_table"
                                         " ON game_table.id = table_id WHERE code = :code",
                                   {"code": code}).fetchone()
        older = stamp.replace("|1|", "|0|", 1)
        with store.Transaction(conn):
            for part, at in (("wicked-forest/_shared_now.html|seated", stamp), ("odd", stamp),
                             ("wicked-forest/_shared_now.html|seated|xx", stamp),
                             ("table/_shared_more.html|seated", older), ("a|seated|de", "no version"),
                             ("b|seated|zz*1.a", older)):
                run_text(conn, "INSERT INTO shared_part (table_id, part, stamp, deflated, crc, size)"
                               " VALUES (:t, :p, :s, :d, 0, 3)", {"t": table_id, "p": part, "s": at, "d": b"\x00"})
    finally:
        conn.close()
    shown = view(in_second, code)
    assert 'data-version="1"' in shown and re.search(r"<b>17</b><span>Draw pile", shown)
    assert tap_set_draw_pile(in_second, code, 12).status_code == 200
    assert re.search(r"<b>12</b><span>Draw pile", view(phones[2], code))


def test_a_parts_rows_under_older_names_go_once_a_newer_row_says_every_language(tmp_path):
    """Before the table is known to be read in three languages each process keeps the parts
    it said under names of their own (English, German; French in the other). Once a version's
    row names all three, those rows are read by no phone again: they go, and each part keeps
    one row. The languages they named are not lost with them: at the versions after, the
    process that renders still says French for the other, which renders nothing."""
    first, second, code, phones, french = english_german_and_french_in_the_other(tmp_path)
    parts = {name.split("|")[0] for name, _ in table_rows(first, code)}
    assert len(table_rows(first, code)) > len(parts)  # several names for a part at version 0
    second_cache = shared_parts.cache_of(second)
    for count, version in ((17, 1), (12, 2), (9, 3)):
        renders = second_cache.renders
        assert tap_set_draw_pile(phones[0], code, count).status_code == 200
        shown = view(french, code)
        assert second_cache.renders == renders  # French was said for it, from the row's name
        assert i18n.language("fr").gettext("The table at a glance") in shown
        rows = table_rows(first, code)
        assert len(rows) == len(parts) and {name.split("|")[0] for name, _ in rows} == parts
        assert all(at == version and name.split("|")[2].startswith("de,en,fr*") for name, at in rows)
        in_first = same_phone_in(first, phones[2])
        in_first.set_cookie(i18n.COOKIE, "fr")
        assert normalise(shown) == normalise(view(in_first, code))
