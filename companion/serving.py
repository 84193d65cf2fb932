"""Forest Table as a production server runs it (gunicorn.conf.py: `production_app()`).

Python runs one thread (or greenlet) of a process at a time. With gunicorn's gthread
workers, where each open stream holds a thread, the threads serving pages and moves
shared the interpreter: each waited for the others at every database call and socket
write, and a 4 ms request took hundreds of milliseconds. So a process lets only
`REQUEST_SLOTS` requests run at once (default 1: the worker processes use the cores) and
the others wait their turn; streams take no slot, they hardly run. Under gevent (the
default) a request runs to its end without giving way anyway, and the slot's queue is what
keeps the wait even: requests get the slot in the order they asked for it.
"""

from __future__ import annotations

import collections
import gc
import socket
import sys
import threading
import time

from . import create_app
from .web import assets


class InOrder:
    """A semaphore that hands a freed slot to the longest waiter, never to a newcomer.

    Under gevent a released semaphore wakes its first waiter only at the hub's next turn;
    meanwhile every request whose bytes arrived in the same turn finds the slot free and
    takes it. At saturation that let fresh requests pass the queue again and again: most
    actions were served at once and a few waited seconds. Here the slot is handed over.
    """

    def __init__(self, slots: int):
        self.free = slots
        self.waiting: collections.deque = collections.deque()
        self.guard = threading.Lock()

    def __enter__(self):
        with self.guard:
            if self.free and not self.waiting:
                self.free -= 1
                return self
            turn = threading.Lock()
            turn.acquire()
            self.waiting.append(turn)
        try:
            turn.acquire()  # released by __exit__ of the request before: the slot is now ours
        except BaseException:  # killed while waiting: leave the line, or pass on a slot given
            with self.guard:
                handed = turn not in self.waiting
                if not handed:
                    self.waiting.remove(turn)
            if handed:
                self.__exit__()
            raise
        return self

    def __exit__(self, *exc) -> None:
        with self.guard:
            if self.waiting:
                self.waiting.popleft().release()
            else:
                self.free += 1


class TakeTurns:
    """Under gevent: a kept-alive connection's next request waits until the hub has polled
    the sockets once, when it was read straight after the connection's previous answer.

    Gunicorn's gevent worker reads a connection's next request as soon as it has sent the
    answer, and a read finding the bytes already there does not go back to the hub. A phone
    that answers fast enough (on loopback, a benchmark's client acting back to back) was
    thus served dozens of times in a row, up to 150 ms, while every other connection's
    request sat unread: p99 800 ms and worst 3 s at saturation, with a median of 100 ms.
    So each connection is served at most once per turn of the hub's loop: such a request
    waits on a timer that fires at the loop's next turn, at the lowest priority, so after
    the requests that turn's poll found (libev, gevent's default loop; others: no wait)."""

    def __init__(self):
        from gevent import get_hub
        self.get_hub = get_hub
        # gevent patches threading: one per greenlet, which is one per connection.
        self.last = threading.local()

    def wait(self) -> None:
        loop = self.get_hub().loop
        turn = getattr(loop, "iteration", None)
        if turn is not None and getattr(self.last, "turn", None) == turn:
            with loop.timer(0, priority=loop.MINPRI) as timer:
                self.get_hub().wait(timer)

    def served(self) -> None:
        self.last.turn = getattr(self.get_hub().loop, "iteration", None)


def _under_gevent() -> bool:
    monkey = sys.modules.get("gevent.monkey")
    return monkey is not None and monkey.is_module_patched("threading")


# Linux only: a corked socket sends what is written to it in full segments only, and all of
# it when uncorked.
_CORK = getattr(socket, "TCP_CORK", None)


def _uncork(sock) -> None:
    try:
        sock.setsockopt(socket.IPPROTO_TCP, _CORK, 0)
    except OSError:
        pass  # the phone is gone: nothing is left to send


class _Uncorking:
    """The app's answer, as it is, and the socket uncorked once the server has written it
    all (a WSGI server closes the answer after its last write). Not a generator: an
    iterable that hands over the answer's own iterator, adding no frame to the writes."""

    __slots__ = ("_answer", "_sock")

    def __init__(self, answer, sock):
        self._answer, self._sock = answer, sock

    def __iter__(self):
        return iter(self._answer)

    def close(self):
        try:
            if hasattr(self._answer, "close"):
                self._answer.close()
        finally:
            _uncork(self._sock)


def _is_stream(environ) -> bool:
    return environ.get("PATH_INFO", "").endswith("/events")


class CorkedAnswers:
    """Each answer's headers and body go out together. gunicorn writes them apart on
    sockets that send at once: two packets for the phone where one does, and on loopback
    two passes through the receiving side, which the sender pays (a run of the club spent a
    tenth of its CPU in sends). So the request's socket is corked while the app makes the
    answer, and uncorked when the server has written it, or at once if the app fails.

    Left alone: a stream (its events go out as they come), an answer the server sends from
    a file (`wsgi.file_wrapper`, which it recognises only as it is), and HTTP/2, where the
    socket carries other requests' frames too.

    `RequestSlots` corks as it is one: a stream's request passing through two such wrappers
    instead of one left each open stream some 4 KiB heavier (12.2-12.7 KiB against 8.4-8.9
    at 2,500 streams, `bench/club.py --tables 500` as it counted memory then, from no
    stream after a set-up that left freed memory for the streams), so the app is wrapped
    once."""

    def __init__(self, wsgi_app):
        self.wsgi_app = wsgi_app

    def __call__(self, environ, start_response):
        if _is_stream(environ):
            return self.wsgi_app(environ, start_response)
        return self._corked(environ, start_response)

    def _corked(self, environ, start_response):
        sock = environ.get("gunicorn.socket") if _CORK is not None else None
        if sock is None or not str(environ.get("SERVER_PROTOCOL", "")).startswith("HTTP/1."):
            return self.wsgi_app(environ, start_response)
        try:
            sock.setsockopt(socket.IPPROTO_TCP, _CORK, 1)
        except (OSError, AttributeError):
            return self.wsgi_app(environ, start_response)
        try:
            answer = self.wsgi_app(environ, start_response)
        except BaseException:
            _uncork(sock)
            raise
        file_wrapper = environ.get("wsgi.file_wrapper")
        if isinstance(file_wrapper, type) and isinstance(answer, file_wrapper):
            _uncork(sock)
            return answer
        return _Uncorking(answer, sock)


class RequestSlots(CorkedAnswers):
    def __init__(self, wsgi_app, slots: int, in_order: bool | None = None,
                 take_turns: bool | None = None):
        super().__init__(wsgi_app)
        self.turns = TakeTurns() if (_under_gevent() if take_turns is None else take_turns) else None
        if _under_gevent() if in_order is None else in_order:
            self.gate = InOrder(slots)
        else:
            # Threads: a plain semaphore, where a thread that already runs may take a free
            # slot before a woken one. Handing each slot over in strict order measured far
            # worse there, since every request then waited for another thread to be scheduled.
            self.gate = threading.BoundedSemaphore(slots)

    def __call__(self, environ, start_response):
        if _is_stream(environ):
            return self.wsgi_app(environ, start_response)
        asked = time.perf_counter()
        slot = [0.0]

        def timed_start_response(status, headers, exc_info=None):
            # How long the request waited for its slot and then ran: a client subtracting
            # both from its round trip sees how long it sat unread (bench/club.py does).
            ran = time.perf_counter() - asked - slot[0]
            headers.append(("Server-Timing", f"slot;dur={slot[0] * 1000:.1f}, app;dur={ran * 1000:.1f}"))
            return start_response(status, headers, exc_info)

        # The response is complete when the app returns; sending it to a slow phone
        # happens after the slot is given back. Waiting for its turn counts as the slot's wait.
        if self.turns is not None:
            self.turns.wait()
        try:
            with self.gate:
                slot[0] = time.perf_counter() - asked
                return self._corked(environ, timed_start_response)
        finally:
            if self.turns is not None:
                self.turns.served()


FULL_COLLECTION_EVERY = 100  # collections of the middle generation between two full ones (default 10)


def settle(flask_app) -> None:
    """Compile every template and compress every asset now, then take what exists out of
    the garbage collector's walk.

    A full collection walks every tracked object and stops all of the worker's threads
    meanwhile (50 to 130 ms were measured with 1,250 streams in a worker). The app's own
    objects, some 40,000 once loaded, need never be walked again; and with the server
    loading the app before it forks (preload), the workers keep sharing those pages.
    """
    for name in flask_app.jinja_env.list_templates(extensions=["html"]):
        flask_app.jinja_env.get_template(name)
    assets.load_all(flask_app)  # compressed once, before the first phone asks
    gc.collect()
    gc.freeze()
    # The streams' own objects live for minutes and so reach the oldest generation, which
    # a full collection walks whole: with 1,250 streams a worker ran one every ten seconds
    # or so, 55 to 105 ms each, 3 % of its CPU. A tenth as often still frees any cycle left
    # there, within minutes.
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTION_EVERY)


def production_app():
    """The app with its memory settled, one request slot per process, answers corked."""
    app = create_app()
    settle(app)
    slots = int(app.config.get("REQUEST_SLOTS", 1))
    # One wrapper either way (see CorkedAnswers); 0 slots: no limit.
    app.wsgi_app = RequestSlots(app.wsgi_app, slots) if slots > 0 else CorkedAnswers(app.wsgi_app)
    return app
