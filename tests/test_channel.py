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


def test_a_move_between_the_look_and_the_wait_ends_the_wait_at_once():
    channel = live.Channel("ABCD", 1)
    waited = []

    class MoveFirst(type(channel._next)):
        def wait(self, timeout=None):
            channel.publish(2)  # lands after wait_past looked at the stamps
            waited.append(super().wait(timeout))
            return waited[-1]

    channel._next = MoveFirst()
    assert channel.wait_past((1, 0), 5) == (2, 0)
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
