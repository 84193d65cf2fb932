"""A table page's stream pushes the phone's own view with every change, so the phone
shows it with no fetch: what it pushes is what that phone would fetch, never more."""

import gzip
import re
import zlib

from companion import live
from companion.web.limits import limiter

from .helpers import act, create_tiny, take, version_of
from .test_secrecy import normalise
from .test_serving import StreamReader, make_app

HX = {"HX-Request": "true"}


def views_in(text):
    """The HTML of every `view` event in the stream text, in order, each change put
    together with the view before it as the page does (static/app.js)."""
    found = []
    for block in text.split("\n\n"):
        lines = block.split("\n")
        if lines and lines[0] == "event: view":
            data = "\n".join(line[len("data: "):] for line in lines[1:])
            found.append(put_together(found[-1] if found else None, data))
    return found


def put_together(before, data):
    """A pushed view from its change ("~" and the length, then "=start,length" spans of the
    view before and "+" new text), counting UTF-16 units as a browser does."""
    if not data.startswith("~"):
        return data
    assert before is not None, "a change with no view before it on the stream"
    units = before.encode("utf-16-le")
    lines = data.split("\n")
    out = []
    for line in lines[1:]:
        assert line[:1] in ("+", "="), line
        if line[0] == "+":
            out.append(line[1:])
        else:
            start, length = map(int, line[1:].split(","))
            assert start + length <= len(units) // 2
            out.append(units[2 * start:2 * (start + length)].decode("utf-16-le"))
    view = "".join(out)
    assert len(view.encode("utf-16-le")) // 2 == int(lines[0][1:])
    return view


def fetched_view(client, code):
    resp = client.get(f"/t/{code}/view", headers=HX)
    assert resp.status_code == 200
    return resp.get_data(as_text=True)


def seat_stamp(client, code):
    return int(re.search(r'data-seats="(\d+)"', fetched_view(client, code)).group(1))


def table_of_two(tmp_path, **config):
    app = make_app(tmp_path / "db.sqlite", **config)
    limiter.reset()
    host, ben = app.test_client(), app.test_client()
    code = create_tiny(host)
    take(host, code, 0)
    take(ben, code, 1)
    return app, host, ben, code


def open_stream(client, code, *, views=True):
    query = f"v={version_of(client, code)}&s={seat_stamp(client, code)}" + ("&views=1" if views else "")
    stream = StreamReader(client.get(f"/t/{code}/events?{query}"))
    stream.until(r"retry: \d+")
    return stream


def tap(client, code, version, amount=1):
    """The htmx form post a tap on the page makes."""
    return client.post(f"/t/{code}/act", headers=HX, data={
        "action": "add", "amount": str(amount), "version": str(version), "rid": f"tap-{version}"})


def test_another_phones_move_pushes_the_view_this_phone_would_fetch(tmp_path):
    app, host, ben, code = table_of_two(tmp_path)
    stream = open_stream(ben, code)
    try:
        assert act(host, code, "add", {"amount": 3}).status_code == 200
        text = stream.until(r"event: update\ndata: 1\n\n")
        pushed = views_in(text)
        assert len(pushed) == 1
        # The view comes before the update, so the update finds the phone up to date.
        assert text.index("event: view") < text.index("event: update")
        assert 'data-version="1"' in pushed[0]
        assert normalise(pushed[0]) == normalise(fetched_view(ben, code))
    finally:
        stream.close()


def test_a_table_changing_faster_than_the_push_gap_sends_one_view_for_the_changes(tmp_path):
    """At saturation each of a table's other phones was pushed a view at every move (the
    streams then took a third of a worker); a view waits for the gap after the one before,
    and then shows the table as it is."""
    import time

    app, host, ben, code = table_of_two(tmp_path, STREAM_PUSH_GAP_SECONDS=0.6)
    stream = open_stream(ben, code)
    try:
        assert act(host, code, "add", {"amount": 1}).status_code == 200
        stream.until(r"event: update\ndata: 1\n\n")  # the first change goes out at once
        first = time.monotonic()
        assert act(host, code, "add", {"amount": 1}).status_code == 200
        time.sleep(0.15)  # plenty for a stream to render, were there no gap
        assert act(host, code, "add", {"amount": 1}).status_code == 200
        text = stream.until(r"event: update\ndata: 3\n\n")
        assert time.monotonic() - first >= 0.5
        assert [re.search(r'data-version="(\d+)"', view).group(1) for view in views_in(text)] == ["1", "3"]
        assert "event: update\ndata: 2\n\n" not in text
    finally:
        stream.close()


def test_a_stream_that_did_not_ask_carries_versions_only(tmp_path):
    app, host, ben, code = table_of_two(tmp_path)
    stream = open_stream(ben, code, views=False)
    try:
        assert act(host, code, "add", {"amount": 1}).status_code == 200
        text = stream.until(r"event: update\ndata: 1\n\n")
        assert "event: view" not in text
    finally:
        stream.close()


def test_the_phone_whose_tap_was_answered_is_not_sent_that_view_again(tmp_path):
    app, host, ben, code = table_of_two(tmp_path)
    stream = open_stream(host, code)
    try:
        answer = tap(host, code, 0)
        assert answer.status_code == 200 and 'data-version="1"' in answer.get_data(as_text=True)
        text = stream.until(r"event: update\ndata: 1\n\n")
        assert views_in(text) == []  # its own answer showed version 1 already
        # Another phone's move is pushed as usual.
        assert act(ben, code, "add", {"amount": 2}).status_code == 200
        text = stream.until(r"event: update\ndata: 2\n\n")
        assert ['data-version="2"' in html for html in views_in(text)] == [True]
    finally:
        stream.close()


def test_an_answered_phones_updates_wait_the_push_gap_but_a_move_it_has_not_seen_does_not(tmp_path):
    """A phone tapping fast (a server at saturation) is told of its own answered moves once
    per push gap; another phone's move meanwhile is news: its view goes out at once, and
    the updates it waited with fold into it."""
    app, host, ben, code = table_of_two(tmp_path, STREAM_PUSH_GAP_SECONDS=3600.0)
    stream = open_stream(host, code)
    try:
        assert tap(host, code, 0).status_code == 200
        stream.until(r"event: update\ndata: 1\n\n")  # nothing told before: at once
        assert tap(host, code, 1).status_code == 200  # answered: waits the (hour-long) gap
        assert act(ben, code, "add", {"amount": 2}).status_code == 200  # Ben's move: news
        text = stream.until(r"event: update\ndata: 3\n\n")
        assert "data: 2\n" not in text
        assert ['data-version="3"' in html for html in views_in(text)] == [True]
    finally:
        stream.close()


def test_the_push_gap_never_delays_a_stream_without_views_a_keepalive_or_the_end(tmp_path):
    """Only a phone's own answered moves wait the gap, and never past a keepalive or the
    stream's end: a stream that asked for no views is told of every move at once."""
    app, host, ben, code = table_of_two(tmp_path, STREAM_PUSH_GAP_SECONDS=3600.0,
                                        STREAM_KEEPALIVE_SECONDS=0.2, STREAM_MAX_SECONDS=1.5)
    plain = open_stream(ben, code, views=False)
    answered = open_stream(host, code)
    try:
        for version in range(3):
            assert tap(host, code, version).status_code == 200
            plain.until(rf"event: update\ndata: {version + 1}\n\n")  # each at once
        text = answered.until(r"event: update\ndata: 3\n\n")  # by the next keepalive at the latest
        assert "event: view" not in text
        answered.rest()  # the stream still ends in its time
    finally:
        plain.close()
        answered.close()


def test_a_phone_behind_at_connect_gets_the_current_view_at_once(tmp_path):
    app, host, ben, code = table_of_two(tmp_path)
    for _ in range(2):
        assert act(host, code, "add", {"amount": 1}).status_code == 200
    stream = StreamReader(ben.get(f"/t/{code}/events?v=0&s={seat_stamp(ben, code)}&views=1"))
    try:
        text = stream.until(r"event: update\ndata: 2\n\n")
        assert [normalise(html) for html in views_in(text)] == [normalise(fetched_view(ben, code))]
    finally:
        stream.close()


def test_a_freed_seat_is_no_longer_shown_as_this_phones_on_its_stream(tmp_path):
    app, host, ben, code = table_of_two(tmp_path)
    stream = open_stream(ben, code)
    try:
        before = fetched_view(ben, code)
        assert "(this phone)" in before and "You are watching" not in before
        resp = host.delete(f"/api/tables/{code}/seats/1", headers={"Origin": "http://localhost"})
        assert resp.status_code == 200
        text = stream.until(r"event: seats\ndata: \d+\n\n")
        pushed = views_in(text)
        assert len(pushed) == 1
        assert "You are watching" in pushed[0] and "(this phone)" not in pushed[0]
        assert normalise(pushed[0]) == normalise(fetched_view(ben, code))
    finally:
        stream.close()


def test_every_line_break_of_a_view_goes_on_a_data_line_of_its_own():
    event = live.view_event("<p>a</p>\r\n<p>b</p>\r<p>c</p>\n<p>d</p>")
    assert event == ("event: view\ndata: <p>a</p>\ndata: <p>b</p>\ndata: <p>c</p>\n"
                     "data: <p>d</p>\n\n")
    # Nothing in the event ends it early: a blank line ends an SSE event.
    assert "\n\n" not in event[:-2]


def test_pushed_views_go_gzipped_each_event_flushed_and_the_stream_ends_whole(tmp_path):
    app, host, ben, code = table_of_two(tmp_path, STREAM_MAX_SECONDS=0.5)
    resp = ben.get(f"/t/{code}/events?v=0&views=1", headers={"Accept-Encoding": "gzip, deflate"})
    assert resp.headers["Content-Encoding"] == "gzip"
    assert act(host, code, "add", {"amount": 2}).status_code == 200
    chunks = [c if isinstance(c, bytes) else c.encode() for c in resp.response]  # ends by itself
    resp.close()
    # Each event can be read as soon as it arrives: nothing waits in a compressor.
    reader = zlib.decompressobj(16 + zlib.MAX_WBITS)
    assert reader.decompress(chunks[0] + chunks[1]) == b"retry: 1500\n\n"
    # The whole is one valid gzip stream (its checksum and length check out).
    text = gzip.decompress(b"".join(chunks)).decode()
    assert "event: update\ndata: 1\n\n" in text and text.endswith("\n\n")
    pushed = views_in(text)
    assert len(pushed) == 1 and normalise(pushed[0]) == normalise(fetched_view(ben, code))


def test_a_stream_is_compressed_only_for_a_phone_that_takes_gzip_and_views(tmp_path):
    app, host, ben, code = table_of_two(tmp_path)
    for query, accept in (("v=0&views=1", "identity"), ("v=0", "gzip")):
        resp = ben.get(f"/t/{code}/events?{query}", headers={"Accept-Encoding": accept})
        assert "Content-Encoding" not in resp.headers
        first = next(iter(resp.response))
        assert (first if isinstance(first, str) else first.decode()).startswith("retry: ")
        resp.close()


def test_a_stream_goes_to_the_server_as_one_bytes_generator(tmp_path):
    """A stream waits for its table's next change inside every generator that wraps it, each
    keeping a frame on the waiting greenlet's stack: it is handed to the server as the one
    generator it is, compressed or not, and yields bytes as WSGI wants."""
    from werkzeug.test import EnvironBuilder
    app, host, ben, code = table_of_two(tmp_path)
    for accept in ("gzip", "identity"):
        environ = EnvironBuilder(path=f"/t/{code}/events", query_string="v=0&views=1",
                                 headers={"Accept-Encoding": accept}).get_environ()
        started = []
        body = app(environ, lambda status, headers, exc_info=None: started.append(status))
        try:
            assert started == ["200 OK"]
            assert getattr(body, "gi_code", None) is not None and body.gi_code.co_name == "event_stream"
            first = next(body)
            assert isinstance(first, bytes)
            if accept == "identity":
                assert first == b"retry: 1500\n\n"
            else:
                assert zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(first + next(body)) == b"retry: 1500\n\n"
        finally:
            body.close()
