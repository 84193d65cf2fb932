"""Live updates: wake the server-sent-event streams of a table when its version moves.

One hub per process. A stream waits on its table's channel and reads nothing from the
database itself, so thousands of open streams cost no queries. Two things move a
channel's version:

- a write in this process: the route calls `notify(code)` right after the commit, and
  the table's streams here wake at once;
- a write in another worker process: the hub's watcher, one thread per process (a
  greenlet under gevent), asks the database every `poll` seconds which tables changed
  since it last looked (`updated_at`, indexed) and wakes their streams. Every few
  seconds it also re-reads the version of every watched table, so nothing is missed
  even if the clock steps back.

The watcher runs only while this process holds at least one stream, and a fork (a
server's worker processes) starts its own.
"""

from __future__ import annotations

import logging
import os
import random
import socket
import threading
import time

from . import store

log = logging.getLogger(__name__)

# A change is looked for again this long after its timestamp, so two commits with the
# same `updated_at`, or a small step back of the clock, are not missed.
OVERLAP_SECONDS = 0.5
# How often the watcher re-reads the version of every watched table, whatever changed.
SWEEP_SECONDS = 5.0
SWEEP_BATCH = 500  # codes per query, well under SQLite's limit on bound parameters


class Channel:
    """The streams of one table in this process, and the latest version and seat stamp
    known here (the seat stamp moves when a seat is taken or freed)."""

    __slots__ = ("code", "version", "seats", "streams", "_lock", "_next", "answered")

    def __init__(self, code: str, version: int | None):
        self.code = code
        self.version = version
        self.seats = 0
        self.streams = 0
        self._lock = threading.Lock()
        # Set when the stamps next move (then replaced by a fresh one). A stream waits on
        # this event, where a condition variable gave each waiting stream a lock of its own:
        # under gevent (threading.Event is gevent's) a waiting stream costs some 0.7 KiB less.
        self._next = threading.Event()
        # phone -> the version its own tap's answer already showed it (see Hub.answered)
        self.answered: dict[str, int] = {}

    def knows(self, version: int, seats: int) -> bool:
        """Whether a reading tells nothing new (both stamps only grow, so a read without the
        lock may be older than the truth, never newer: at worst it is published anyway)."""
        return self.version is not None and version <= self.version and seats <= self.seats

    def publish(self, version: int, seats: int = 0) -> None:
        with self._lock:
            # Both only grow: a reading older than what a stream already has is dropped.
            moved = False
            if self.version is None or version > self.version:
                self.version = version
                moved = True
            if seats > self.seats:
                self.seats = seats
                moved = True
            if not moved:
                return
            fired, self._next = self._next, threading.Event()
        fired.set()

    def stamps(self) -> tuple[int | None, int]:
        return self.version, self.seats

    def wait_past(self, stamps: tuple, timeout: float) -> tuple[int | None, int]:
        """Wait until (version, seats) differs from `stamps` (or the timeout); return it."""
        with self._lock:
            now, upcoming = self.stamps(), self._next
        if now != stamps or timeout <= 0:
            return now
        # A publish after the look above sets `upcoming`: the wait then ends at once.
        upcoming.wait(timeout)
        with self._lock:
            return self.stamps()


class Hub:
    def __init__(self, db_path: str, poll: float = 0.05):
        self.db_path = db_path
        self.poll = poll
        self._lock = threading.Lock()
        self._channels: dict[str, Channel] = {}
        self._watcher: threading.Thread | None = None
        self._watcher_pid: int | None = None
        self._lookup = None  # this process's connection for version look-ups
        self._lookup_pid: int | None = None
        self._lookup_lock = threading.Lock()

    # -- streams -------------------------------------------------------------------------

    def subscribe(self, code: str) -> Channel:
        with self._lock:
            channel = self._channels.get(code)
            if channel is None:
                channel = self._channels[code] = Channel(code, None)
            channel.streams += 1
            if self._watcher is None or self._watcher_pid != os.getpid():
                self._start_watcher()
        if channel.version is None:  # the first stream of this table here
            stamps = self._read_stamps(code)
            if stamps is not None:
                channel.publish(*stamps)
        return channel

    def unsubscribe(self, channel: Channel) -> None:
        with self._lock:
            channel.streams -= 1
            if channel.streams <= 0 and self._channels.get(channel.code) is channel:
                del self._channels[channel.code]

    def answered(self, code: str, phone: str | None, version: int) -> None:
        """A phone's own tap was answered with the view at `version`: its stream here need
        not render that version for it again. (A stream in another process learns it from
        the table's `answered_by`, which the write stored with the version.)"""
        channel = self._channels.get(code)
        if channel is not None and phone is not None:
            channel.answered[phone] = version

    def notify(self, code: str) -> None:
        """A write in this process just committed: wake the table's streams here at once."""
        channel = self._channels.get(code)
        if channel is None:
            return  # no stream for this table in this process; other processes' watchers see it
        stamps = self._read_stamps(code)
        if stamps is not None:
            channel.publish(*stamps)

    def stream_count(self) -> int:
        with self._lock:
            return sum(c.streams for c in self._channels.values())

    # -- database ------------------------------------------------------------------------

    def _read_stamps(self, code: str) -> tuple[int, int] | None:
        with self._lookup_lock:
            if self._lookup is None or self._lookup_pid != os.getpid():
                # A connection inherited through a fork is never used: SQLite forbids it.
                self._lookup = store.connect(self.db_path)
                self._lookup_pid = os.getpid()
            return store.get_stamps(self._lookup, code)

    # -- the watcher ---------------------------------------------------------------------

    def _start_watcher(self) -> None:
        # Called with self._lock held.
        self._watcher = threading.Thread(target=self._watch, name="forest-table-live-watcher",
                                         daemon=True)
        self._watcher_pid = os.getpid()
        self._watcher.start()

    def _keeps_watching(self, me: threading.Thread) -> bool:
        """Whether watcher `me` goes on: not once another replaced it, nor with no stream
        left here (it stops; the next stream starts a new watcher)."""
        with self._lock:
            if self._watcher is not me:
                return False
            if not self._channels:
                self._watcher = None
                return False
            return True

    def _watch(self) -> None:
        me = threading.current_thread()
        conn = None
        since = time.time() - OVERLAP_SECONDS
        next_sweep = time.monotonic() + SWEEP_SECONDS
        try:
            while self._keeps_watching(me):
                try:
                    if conn is None:
                        conn = store.connect(self.db_path)
                    since = self._publish_changes(conn, since)
                    if time.monotonic() >= next_sweep:
                        next_sweep = time.monotonic() + SWEEP_SECONDS
                        self._sweep(conn)
                except Exception:  # a locked or vanished database must not end live updates
                    log.exception("live-update watcher: reading the database failed")
                    if conn is not None:
                        conn.close()
                        conn = None
                    time.sleep(1.0)
                time.sleep(self.poll)
        finally:
            if conn is not None:
                conn.close()

    def _publish_changes(self, conn, since: float) -> float:
        newest = since
        for code, version, seats, updated_at, answered_by in store.changed_since(conn, since - OVERLAP_SECONDS):
            channel = self._channels.get(code)
            # Each write is read again for OVERLAP_SECONDS, some twenty polls: most rows are
            # known already.
            if channel is not None and not channel.knows(version, seats):
                _note_answer(channel, answered_by, version)
                channel.publish(version, seats)
            if updated_at > newest:
                newest = updated_at
        return newest

    def _sweep(self, conn) -> None:
        with self._lock:
            codes = list(self._channels)
        for start in range(0, len(codes), SWEEP_BATCH):
            for code, version, seats in store.versions_of(conn, codes[start:start + SWEEP_BATCH]):
                channel = self._channels.get(code)
                if channel is not None:
                    channel.publish(version, seats)


def _note_answer(channel: Channel, phone: str | None, version: int) -> None:
    """A version another process made and answered `phone`'s tap with: its stream here
    need not push it. Only news counts: a stream opened after that version was made never
    saw it, so it shows the phone what it may have missed (whether a watcher's overlap
    happens to report the write again must change nothing a phone is sent)."""
    if phone and channel.version is not None and version > channel.version:
        channel.answered[phone] = version


class TextEvents:
    """How a stream's chunks go out: as UTF-8 text (`compression.GzipEvents` compresses them)."""

    def opening(self) -> bytes:
        return b""

    def encode(self, chunk) -> bytes:
        return chunk_text(chunk).encode()

    def closing(self) -> bytes:
        return b""


def event_stream(hub: Hub, code: str, known_version: int | None, *,
                 keepalive: float, max_seconds: float, known_seats: int | None = None,
                 render=None, phone: str | None = None, push_gap: float = 0.0,
                 encoder=None):
    """Yield SSE text as bytes (`encoder`, TextEvents by default, makes them): an `update`
    event carrying the version whenever it changes, and a `seats` event carrying the seat
    stamp whenever a seat is taken or freed.

    The stream is handed to the server as this one generator: a stream waits for its
    table's next change inside every generator that wraps it, each keeping a frame on the
    waiting greenlet's saved stack (some 0.6 KiB a stream each).

    With `render` (a phone that asked for views), each change is preceded by a `view`
    event carrying the phone's view as it would fetch it (`render()` gives that HTML, or
    None), so the phone need not ask for it; the `update` after it then finds the phone
    up to date. Not for a version this phone's own tap was already answered with.

    A view follows the one pushed before it by `push_gap` seconds at least: the changes
    made meanwhile go out together, in one view of the table as it is then. So does an
    update the phone needs no view for (its own tap's answer showed it), unless something
    it has not seen comes meanwhile.

    A comment every `keepalive` seconds (the first sooner, at random) makes a socket whose
    phone is gone fail soon, and the stream ends after about `max_seconds` (spread a little,
    so phones that connected together do not all come back together); the browser then
    reconnects and resyncs.
    """
    encoder = encoder or TextEvents()
    encode = encoder.encode
    channel = hub.subscribe(code)
    try:
        opening = encoder.opening()
        if opening:
            yield opening
        if channel.version is None:
            yield encode("event: gone\ndata: table closed\n\n")
            yield encoder.closing()
            return
        # Tell the browser how soon to reconnect when the stream ends or drops.
        yield encode("retry: 1500\n\n")
        started = time.monotonic()
        ends = started + max_seconds * random.uniform(0.8, 1.0)
        # The first keepalive comes after a random part of the interval: phones that connected
        # together (every phone, after a server restart) do not all keep alive together, a
        # burst of thousands of writes every interval.
        last_sent = started - random.uniform(0.0, keepalive)
        version, seats = channel.stamps()
        if known_seats is None:
            known_seats = seats  # a phone that did not say has the seats it was shown
        pushed = None  # when this stream last pushed a view
        told = None  # when it last told of a change (a view, an update or the seats)
        while True:
            # What changed goes out in one write: the view first, then its update.
            out = []
            wants_view = _wants_view(channel, render, phone, version, seats, known_version, known_seats)
            if render is not None and not wants_view and told is not None \
                    and (version, seats) != (known_version, known_seats):
                # Only news this phone already has (its own taps, answered with their views):
                # at a table changing faster than the gap, one update for several moves. A
                # change it has not seen ends the wait at once, and goes out as a view; the
                # wait never delays a keepalive or the stream's end.
                until = min(told + push_gap, last_sent + keepalive, ends)
                if until > time.monotonic():
                    version, seats = channel.wait_past((version, seats), until - time.monotonic())
                    continue
            wait = pushed + push_gap - time.monotonic() if wants_view and pushed is not None else 0.0
            if wait > 0:
                # A table changing again and again (a server at saturation took each table's
                # 4 other phones through a view at every move): one view for the lot.
                time.sleep(wait)
                version, seats = channel.stamps()
                wants_view = _wants_view(channel, render, phone, version, seats, known_version, known_seats)
            if wants_view:
                pushed = time.monotonic()
                event = view_event(render())
                if isinstance(event, list):
                    out.extend(event)
                else:
                    out.append(event)
            if version != known_version:
                known_version = version
                out.append(f"event: update\ndata: {version}\n\n")
            if seats != known_seats:
                known_seats = seats
                out.append(f"event: seats\ndata: {seats}\n\n")
            if out:
                last_sent = told = time.monotonic()
                # Handed on whole: while the stream waits for the next change, its frame
                # keeps nothing of what it sent (2,500 streams would keep megabytes).
                yield encode(_handed_on(out))
            now = time.monotonic()
            if now >= ends:
                yield encoder.closing()
                return
            if now - last_sent >= keepalive:
                last_sent = now
                yield encode(": keepalive\n\n")
            version, seats = channel.wait_past((known_version, known_seats),
                                               min(ends, last_sent + keepalive) - now)
    finally:
        hub.unsubscribe(channel)


def _wants_view(channel: Channel, render, phone, version, seats, known_version, known_seats) -> bool:
    """Whether the stream pushes a view now: it renders views, something changed, and
    not only what this phone's own tap was already answered with."""
    return render is not None and (version != known_version or seats != known_seats) \
        and not (phone is not None and seats == known_seats and channel.answered.get(phone) == version)


def _handed_on(parts: list):
    """What changed, as one chunk: text, or a list of text and shared parts (`Piece`: the
    same for every phone of the table, whose SSE text and compressed copy are made once)."""
    if any(not isinstance(part, str) for part in parts):
        chunk = [part for part in parts if part != ""]
    else:
        chunk = "".join(parts)
    parts.clear()
    return chunk


def chunk_text(chunk) -> str:
    """A chunk of the stream as the text it sends."""
    if isinstance(chunk, str):
        return chunk
    return "".join(part if isinstance(part, str) else part.sse() for part in chunk)


def view_event(view):
    """An SSE `view` event: every line of the HTML on a `data:` line of its own (the
    browser joins them with newlines again). Any line break ends a line in SSE. No HTML
    (the render failed): nothing, and the update that follows makes the phone fetch.

    `view` is the HTML, or a list of HTML and shared parts (a view rendered for a stream):
    then the event is a list too, each shared part in it as it is."""
    if view is None:
        return ""
    if isinstance(view, str):
        return "event: view\ndata: " + sse_lines(view) + "\n\n"
    return ["event: view\ndata: ", *(sse_lines(part) if isinstance(part, str) else part
                                      for part in view), "\n\n"]


def sse_lines(html: str) -> str:
    """HTML for the inside of an SSE event: each line break ends a `data:` line and starts the
    next one (the browser joins them with newlines again). Any of CR, LF or CRLF ends a
    line in SSE, so each counts as one line break."""
    if "\r" in html:
        html = html.replace("\r\n", "\n").replace("\r", "\n")
    return html.replace("\n", "\ndata: ")


def notice_dead_peer(environ: dict, keepalive: float) -> None:
    """Let the kernel give up on a phone that vanished without closing its stream.

    A phone whose Wi-Fi dropped never acknowledges the keepalives; with TCP_USER_TIMEOUT
    the kernel aborts the socket after a while instead of retrying for many minutes, and
    the next keepalive ends the stream. Gunicorn hands the socket to the app; other
    servers do not, and there the stream's maximum lifetime is the bound.
    """
    sock = environ.get("gunicorn.socket")
    option = getattr(socket, "TCP_USER_TIMEOUT", None)
    if sock is None or option is None:
        return
    try:
        sock.setsockopt(socket.IPPROTO_TCP, option, int(max(10.0, 2 * keepalive) * 1000))
    except (OSError, AttributeError):
        pass
