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

from .. import store, tables
from .newest import Newest

# Tables kept per process: only the moments after a move need them (the views of its
# phones here render within milliseconds), so a few hundred cover a busy club.
KEPT_TABLES = 256


class TableReads:
    """The table (row and state), its seat rows and its newest live moves at one version,
    and the view everyone may see, made once when first asked for."""

    __slots__ = ("table", "seat_rows", "newest", "_public")

    def __init__(self, table: store.TableRow, seat_rows: list, newest: list):
        self.table, self.seat_rows, self.newest = table, seat_rows, newest
        self._public = None

    def public_view(self, game) -> dict:
        """`game.view(state, None)`, the same for every phone at this version."""
        if self._public is None:
            self._public = game.view(self.table.snapshot, None)
        return self._public

    def view_for(self, game, seat) -> dict:
        """The game's view for `seat`: made from the public view when the game can (only
        the seat's own part differs), else made whole."""
        if hasattr(game, "view_for"):
            return game.view_for(self.public_view(game), self.table.snapshot, seat)
        return game.view(self.table.snapshot, seat)


class ReadCache:
    def __init__(self, limit: int = KEPT_TABLES):
        self._kept = Newest(limit)
        self.reads = 0  # how many times the table was read whole (the tests count them)

    def get(self, conn, code: str) -> TableReads:
        """The table's reads at its current version, or NotFound."""
        code = tables.normalize_code(code)
        marks = store.get_marks(conn, code)
        if marks is None:
            raise tables.NotFound(tables.NO_SUCH_TABLE)
        found = self._kept.get(code, marks)
        if found is not None:
            return found
        table = tables.load(conn, code)
        reads = TableReads(table, store.seats(conn, table.id),
                           store.live_actions(conn, table.id, newest=tables.NEWEST_ROWS))
        self.reads += 1
        self._kept.put(code, (table.id, table.version, table.seat_stamp), reads)
        return reads


def cache_of(app) -> ReadCache:
    cache = app.extensions.get("forest_table_reads")
    if cache is None:
        cache = app.extensions["forest_table_reads"] = ReadCache()
    return cache
