"""A bounded cache of the newest value per key, each kept with the stamp it was made for
(a table's version and seat stamp): a value asked for at another stamp is not there."""

from __future__ import annotations

import threading
from collections import OrderedDict


class Newest:
    def __init__(self, limit: int):
        self.limit = limit
        self._kept: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key, stamp):
        """The value kept for `key` at `stamp`, or None; the least used go first."""
        with self._lock:
            found = self._kept.get(key)
            if found is None or found[0] != stamp:
                return None
            self._kept.move_to_end(key)
            return found[1]

    def latest(self, key):
        """The value kept for `key` at whatever stamp, or None (not counted as a use)."""
        found = self._kept.get(key)
        return None if found is None else found[1]

    def put(self, key, stamp, value) -> None:
        with self._lock:
            self._kept[key] = (stamp, value)
            self._kept.move_to_end(key)
            while len(self._kept) > self.limit:
                self._kept.popitem(last=False)

    def discard_older(self, key, stamp) -> None:
        """Forget the value kept for `key`, unless it is kept at `stamp`."""
        with self._lock:
            found = self._kept.get(key)
            if found is not None and found[0] != stamp:
                del self._kept[key]

    def discard(self, key) -> None:
        with self._lock:
            self._kept.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()
