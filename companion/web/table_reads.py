"""What every phone's view of a table reads from the database, read once per version.

When a move lands, each open stream of the table in this process renders its phone's view
within a few milliseconds of the others; each used to read the table (and parse its
state), its seats and its newest moves again. Here the first one reads them and the others
take that copy, as long as the table's (id, version, seat stamp) is still the same: one
small query per view instead of three and the parsing. Seats are read after the table row,
so a cached copy never shows a seat as held that was freed before its stamp (a freed seat
moves the stamp, and with it the key).

What is kept is shared between phones: nothing that reads it may change it (a test checks
that rendering views leaves the state as it was).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from .. import store, tables

# Tables kept per process: only the moments after a move need them (the views of its
# phones here render within milliseconds), so a few hundred cover a busy club.
KEPT_TABLES = 256


@dataclass(frozen=True)
class TableReads:
    table: store.TableRow
    seat_rows: list
    newest: list  # the newest live moves (tables.NEWEST_ROWS)


class ReadCache:
    def __init__(self, limit: int = KEPT_TABLES):
        self.limit = limit
        self._kept: OrderedDict = OrderedDict()
        self._lock = threading.Lock()
        self.reads = 0  # how many times the table was read whole (the tests count them)

    def get(self, conn, code: str) -> TableReads:
        """The table's reads at its current version, or NotFound."""
        code = tables.normalize_code(code)
        marks = store.get_marks(conn, code)
        if marks is None:
            raise tables.NotFound("No table has that code. Check the letters and try again.")
        with self._lock:
            found = self._kept.get(code)
            if found is not None and found[0] == marks:
                self._kept.move_to_end(code)
                return found[1]
        table = tables.load(conn, code)
        seat_rows = store.seats(conn, table.id)
        reads = TableReads(table, seat_rows, store.live_actions(conn, table.id, newest=tables.NEWEST_ROWS))
        with self._lock:
            self.reads += 1
            self._kept[code] = ((table.id, table.version, table.seat_stamp), reads)
            self._kept.move_to_end(code)
            while len(self._kept) > self.limit:
                self._kept.popitem(last=False)
        return reads


def cache_of(app) -> ReadCache:
    cache = app.extensions.get("forest_table_reads")
    if cache is None:
        cache = app.extensions["forest_table_reads"] = ReadCache()
    return cache
