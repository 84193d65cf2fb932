"""A table's channel in one process: a stream waits on it until the version or the seat
stamp moves past what the stream has, and no move is missed, whenever it lands."""

import threading

from companion import live


def test_news_wakes_a_waiting_stream_and_a_stale_reading_does_not():
    channel = live.Channel("ABCD", 1)
    assert channel.wait_past((0, 0), 5) == (1, 0)  # already past: no wait
    channel.publish(1)  # nothing new
    channel.publish(0, 0)
    assert channel.wait_past((1, 0), 0.05) == (1, 0)  # ran out its time: still the same
    woken = []
    stream = threading.Thread(target=lambda: woken.append(channel.wait_past((1, 0), 10)))
    stream.start()
    channel.publish(1, 3)  # a seat taken: news, though the version stayed
    stream.join(10)
    assert woken == [(1, 3)]


def test_a_move_between_the_look_and_the_wait_ends_the_wait_at_once(monkeypatch):
    waited = []

    class Recording(threading.Event):
        def wait(self, timeout=None):
            waited.append(super().wait(timeout))  # True: woken; False: its time ran out
            return waited[-1]

    monkeypatch.setattr(live.threading, "Event", Recording)
    channel = live.Channel("ABCD", 1)

    class MoveAfterLook:
        """The channel's lock, with a move landing just after wait_past looked."""

        def __init__(self):
            self.lock, self.armed = threading.Lock(), True

        def __enter__(self):
            self.lock.acquire()

        def __exit__(self, *exc):
            self.lock.release()
            if self.armed:
                self.armed = False
                channel.publish(2)

    channel._lock = MoveAfterLook()
    assert channel.wait_past((1, 0), 2) == (2, 0)
    assert waited == [True]  # woken by that move, not by the end of its time


def test_every_stream_waiting_wakes_for_one_move():
    channel = live.Channel("ABCD", 4)
    seen = []
    streams = [threading.Thread(target=lambda: seen.append(channel.wait_past((4, 0), 10))) for _ in range(5)]
    for stream in streams:
        stream.start()
    channel.publish(5)
    for stream in streams:
        stream.join(10)
    assert seen == [(5, 0)] * 5
