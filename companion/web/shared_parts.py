"""Parts of a table view that every seated phone sees alike, rendered once per version.

A table view is rendered for one phone: its seat, "this phone", what it must do now, its
own secret pick. Most of it, though (the numbers everyone looks at, the piles, the panels
of corrections), is the same on every phone holding a seat, and rendering it again for
each phone was most of what a move cost in a process. Such a part lives in a template of its own,
included with `{{ shared_part("game/_shared_x.html") }}`, and is rendered:

- from the public view only (`game.view(state, None)`): no seat's secret pick can be in it;
- with a context that has nothing to tell phones apart: no seat, no `held`, no `me`, no
  request or session (any use of them fails the render, so a part cannot quietly depend on
  who looks), no table state (only its code, version, players and options), only `seated`
  (whether the phone holds a seat: watchers get no forms);
- with forms that carry no seat (the server acts for the phone's first seat, as it always
  did for them);
- as one line: each line break and the blanks around it become one space, which HTML reads
  the same (no shared part holds <pre>, <textarea> or a script), so one compressed copy
  serves both a fragment's body and a stream's `view` event, whose lines are `data:` lines.

It is kept per table, for the table's current version and seat stamp and per language, in
this process, and in the database (`shared_part`), where the other processes take it
instead of rendering it again. At a table read in several languages it is rendered once for
all of them (`Recorded`): its words marked, then said in each language (`i18n.recorded`).
A phone passed around and opened for one player (a private screen) acts as that player,
so its parts are rendered for it alone, with that seat in their forms.
"""

from __future__ import annotations

import secrets
import zlib

from flask import current_app, request
from jinja2 import StrictUndefined
from markupsafe import Markup

from .. import store
from ..db import get_db
from . import i18n
from .newest import Newest

MAX_PARTS = 16384  # kept in a process: one per table, part, seated-or-not and language, the newest version only


class Piece:
    """A rendered part, kept compressed: raw deflate blocks with the checksum and length of
    what they hold, made once for every phone. Its HTML is one line (`one_line`), so the
    same bytes stand in a plain HTML body and on a `view` event's `data:` line: one copy,
    compressed once. The HTML itself is not kept (a part of a view is some 15 KB, kept for
    every table): a plain view rendered for a phone inflates it again, which costs a tenth
    of rendering it."""

    __slots__ = ("_compressed", "changes", "_size16", "__weakref__")

    def __init__(self, html: str | None):
        # For a stream's changes (view_delta): the part's change from the version before,
        # worked out once for every phone, and its length as a page counts it.
        self.changes = self._size16 = None
        if html is not None:
            text = one_line(html)
            self._size16 = utf16_length(text)
            self._compressed = _compressed(text.encode())

    @classmethod
    def stored(cls, deflated: bytes, crc: int, size: int) -> "Piece":
        """A part as another process rendered and kept it (`store.shared_parts`)."""
        piece = cls(None)
        piece._compressed = (deflated, crc, size, _crc_of_zeros(size, 0))
        return piece

    def to_store(self) -> tuple[bytes, int, int]:
        deflated, crc, size, _ = self._compressed
        return deflated, crc, size

    @property
    def html(self) -> Markup:
        return Markup(self.text())

    def text(self) -> str:
        # Blocks ending in a sync flush, not a whole stream: a decompressor object takes them.
        return zlib.decompressobj(-zlib.MAX_WBITS).decompress(self._compressed[0]).decode()

    def sse(self) -> str:
        """The part inside a `view` event: as it is, since it holds no line break."""
        return self.html

    def size16(self) -> int:
        """Its text's length in UTF-16 units, as a page counts it (found once)."""
        if self._size16 is None:
            self._size16 = utf16_length(self.text())
        return self._size16

    def same_text(self, other: "Piece") -> bool:
        """Whether the two hold the same text (the same checksum and length of its bytes)."""
        return self._compressed[1:3] == other._compressed[1:3]

    def deflated(self) -> bytes:
        """The part as raw deflate blocks ending byte-aligned: a compressed stream or body
        takes them as they are, wherever they fall in it, since they refer to nothing before
        them."""
        return self._compressed[0]

    def crc_after(self, crc: int) -> tuple[int, int]:
        """(the CRC-32 of what was sent before, whose CRC is `crc`, followed by this part;
        the part's length), without keeping its text: the CRC of a block after a prefix is
        the block's own CRC plus the prefix's CRC moved on by as many zero bytes."""
        _, own, size, zeros = self._compressed
        return _crc_of_zeros(size, crc) ^ zeros ^ own, size


def utf16_length(text: str) -> int:
    """Its length as a page's script counts it (a letter beyond the first 65,536 is two)."""
    return len(text) if text.isascii() else len(text.encode("utf-16-le")) // 2


def one_line(html: str) -> str:
    """A part's HTML with each line break and the blanks around it made one space: outside
    <pre>, <textarea> and scripts (which no shared part holds) HTML reads it the same."""
    if "\r" in html:
        html = html.replace("\r\n", "\n").replace("\r", "\n")
    if "\n" not in html:
        return html
    # Splitting is some fifteen times faster than a regular expression over a part's blanks.
    return " ".join(filter(None, (line.strip(" \t") for line in html.split("\n"))))


def _compressed(data: bytes) -> tuple[bytes, int, int, int]:
    """(raw deflate blocks ending byte-aligned, CRC-32, length, CRC-32 of as many zero bytes)."""
    deflate = zlib.compressobj(DEFLATE_LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS)
    return (deflate.compress(data) + deflate.flush(zlib.Z_SYNC_FLUSH), zlib.crc32(data), len(data),
            _crc_of_zeros(len(data), 0))


_ZEROS = bytes(1 << 16)


def _crc_of_zeros(count: int, crc: int) -> int:
    view = memoryview(_ZEROS)
    while count > 0:
        step = min(count, len(_ZEROS))
        crc = zlib.crc32(view[:step], crc)
        count -= step
    return crc


DEFLATE_LEVEL = 6  # compressed once for every phone of the table: worth the better ratio


# Where a part goes in a view rendered for a stream: the stream sends the part's own copy.
_MARK = f"\x00part-{secrets.token_hex(6)}-"


def view_items(html: str, pieces: list) -> list:
    """A view rendered with marks back into its text and its parts, in order, each text
    made one line as the parts are (`one_line_kept`): a view goes out as one line."""
    out = []
    for index, chunk in enumerate(html.split(_MARK)):
        if index:
            number, chunk = chunk.split("\x00", 1)
            out.append(pieces[int(number)])
        if chunk:
            out.append(made_once(_one_lined, chunk, one_line_kept))
    return out


# The text between parts, made one line: most of it is the same on every phone of a table
# at one version, and looking it up costs a hash of it, a tenth of making it again.
_one_lined: dict[str, str] = {}
KEPT_TEXTS = 256  # texts a memo keeps: those of the views rendered in the last moments


def made_once(memo: dict, text: str, make):
    """`make(text)`, kept in `memo` for the next view with the same text; a full memo is
    emptied (the views rendered in the last moments fill it again)."""
    found = memo.get(text)
    if found is None:
        if len(memo) >= KEPT_TEXTS:
            memo.clear()
        found = memo[text] = make(text)
    return found


def one_line_kept(text: str) -> str:
    """`one_line`, keeping one blank where the text began or ended with blanks: the text
    between two shared parts may stand between two words."""
    if "\n" not in text and "\r" not in text:
        return text
    body = one_line(text)
    lead = " " if text[:1].isspace() else ""
    tail = " " if text[-1:].isspace() and body else ""
    return f"{lead}{body}{tail}"


class _NotInSharedPart(StrictUndefined):
    """What a shared part sees for a name that would tell phones apart: any use fails."""


class PublicTable:
    """What a shared part may read of a table (not its state, which holds unrevealed picks)."""

    __slots__ = ("code", "version", "seat_stamp", "players", "options", "game")

    def __init__(self, table):
        self.code = table.code
        self.version = table.version
        self.seat_stamp = table.seat_stamp
        self.players = table.players
        self.options = table.options
        self.game = table.game


class PartCache(Newest):
    """The newest render of each (table, part, seated, language) in this process; and, for a
    table whose phones read several languages, of each (table, part, seated) for every
    language at once (`Recorded`)."""

    def __init__(self, limit: int = MAX_PARTS):
        super().__init__(limit)
        self.renders = 0  # how many parts were rendered (the tests count them)
        self.recorded = 0  # how many of them for every language at once
        # The languages each table's parts were last asked in (the newest tables only).
        self.languages = Newest(limit)
        self.check = False  # a test's: each part said from a recording is held against a render

    def several_languages(self, table_id, language: str) -> bool:
        """Whether this table's parts are read in more than one language, counting this one:
        then a part is rendered once for all of them. A table read in one language renders
        it in that language, as it always did."""
        seen = self.languages.get(table_id, None)
        if seen is None:
            self.languages.put(table_id, None, {language})
            return False
        seen.add(language)
        return len(seen) > 1


class Recorded:
    """A part rendered for every language at once: its text with marks and the calls that say
    its words (`i18n.recorded`); each language is made from it when first asked."""

    __slots__ = ("text", "calls", "keys", "said")

    def __init__(self, text: str, calls: list):
        self.text, self.calls = text, calls
        self.keys = i18n.call_keys(calls)
        self.said: set[str] = set()  # the languages it was said in

    def spoken_in(self, language: str) -> str:
        return one_line(i18n.spoken_in(language, self.text, self.calls, self.keys))


def cache_of(app) -> PartCache:
    cache = app.extensions.get("forest_shared_parts")
    if cache is None:
        cache = app.extensions["forest_shared_parts"] = PartCache()
        # Under test, each part said from a recording is held against a plain render.
        cache.check = bool(app.config.get("TESTING"))
    return cache


class PartRenderer:
    """`shared_part(name)` for one view: the part's HTML, from this process's cache when
    another phone's view at the same version already rendered it, else from the database
    when another process did (`share()` keeps what this view rendered there for them). With
    `pieces` (a view rendered for a stream), the part goes there and a mark stands in the
    view instead. `extras()` gives what the parts read besides the public view (the same for
    every phone at this version and seat stamp: the public log, the clock's setting), asked
    for only when a part is rendered."""

    def __init__(self, table, game, *, seated: bool, act_url: str, private_actor=None, pieces=None,
                 extras=None, public=None):
        self.app = current_app._get_current_object()
        self.table, self.game, self.seated, self.act_url = table, game, seated, act_url
        self.private_actor, self.pieces, self.extras = private_actor, pieces, extras
        # The public view, when the caller already has it (made once per version).
        self.public = public or (lambda: game.view(table.snapshot, None))
        self._names = None  # what the parts are rendered with, made for the first one
        # Part of the key: what a part's links are built from (the same for every phone of
        # one server, unless a proxy mounts the app under different prefixes).
        root = request.script_root if request else ""
        # and the language it is said in: a part is rendered once per language in use
        self.language = i18n.current()
        self.stamp = (table.created_at, table.version, table.seat_stamp, root)
        self._looked_up = False  # whether the database was asked for this stamp's parts yet
        self._rendered: list = []  # (name, piece) rendered here, for share()

    def _context(self) -> dict:
        if self._names is None:
            names = {"table": PublicTable(self.table), "game": self.game,
                     "v": self.public(), "seated": self.seated,
                     "actor": self.private_actor, "act_url": self.act_url,
                     **(self.extras() if self.extras is not None else {})}
            for hidden in ("request", "session", "g", "held", "viewer", "me", "private", "seats"):
                names[hidden] = _NotInSharedPart(name=hidden, hint=f"'{hidden}' is not for a shared part")
            self._names = names
        return dict(self._names)  # a render may set names of its own: each gets a copy

    def _render(self, name: str) -> Markup:
        return Markup(one_line(self.app.jinja_env.get_template(name).render(self._context())))

    def _said_once_for_all(self, name: str, cache) -> Markup | None:
        """The part in this phone's language from its render for every language (made now
        if no phone made it at this stamp); None when the part cannot be rendered so."""
        key = (self.table.id, name, self.seated, None)
        recorded = cache.get(key, self.stamp)
        if recorded is None:
            self._context()  # made first: its extras may read the database, not a part's words
            made = i18n.recorded(lambda: self._render(name), strict=cache.check)
            if made is None:
                return None
            recorded = Recorded(*made)
            cache.recorded += 1
            cache.put(key, self.stamp, recorded)
        html = Markup(recorded.spoken_in(self.language))
        recorded.said.add(self.language)
        everyone = cache.languages.get(self.table.id, None)
        if everyone and recorded.said >= everyone:
            cache.discard(key)  # said in every language the table reads: not kept (some 20 KB)
        if cache.check:
            rendered = self._render(name)
            assert html == rendered, f"{name} in {self.language}: said from a recording, it differs"
        return html

    def _stored_name(self, name: str) -> str:
        return f"{name}|{'seated' if self.seated else 'watching'}|{self.language}"

    def _look_up_stored(self, cache) -> None:
        """Every part of this stamp another process kept, into this process's cache."""
        self._looked_up = True
        suffix = self._stored_name("")
        for stored, deflated, crc, size in store.shared_parts(get_db(), self.table.id, _stamp_text(self.stamp)):
            if stored.endswith(suffix):
                cache.put((self.table.id, stored[:-len(suffix)], self.seated, self.language), self.stamp,
                          Piece.stored(deflated, crc, size))

    def __call__(self, name: str) -> Markup:
        pieces = self.pieces
        if self.private_actor is not None:
            if pieces is None:
                return self._render(name)
            piece = Piece(self._render(name))
        else:
            cache = cache_of(self.app)
            key = (self.table.id, name, self.seated, self.language)
            piece = cache.get(key, self.stamp)
            if piece is None and not self._looked_up:
                self._look_up_stored(cache)
                piece = cache.get(key, self.stamp)
            if piece is None:
                html = None
                if cache.several_languages(self.table.id, self.language):
                    html = self._said_once_for_all(name, cache)
                if html is None:
                    html = self._render(name)
                piece = Piece(html)
                cache.renders += 1
                cache.put(key, self.stamp, piece)
                self._rendered.append((name, piece))
                if pieces is None:
                    return html
            elif pieces is None:
                return piece.html
        pieces.append(piece)
        return Markup(f"{_MARK}{len(pieces) - 1}\x00")

    def share(self) -> None:
        """Keep the parts this view rendered in the database, for the other processes (a
        part every seated phone sees is the same whichever process renders it). A view whose
        parts cannot be kept is still answered: the others render them then."""
        rendered, self._rendered = self._rendered, []
        if not rendered:
            return
        try:
            store.put_shared_parts(get_db(), self.table.id, _stamp_text(self.stamp),
                                   [(self._stored_name(name), *piece.to_store()) for name, piece in rendered])
        except Exception:  # noqa: BLE001 (the answer goes out whatever the database said)
            self.app.logger.warning("keeping the shared parts of table %s failed", self.table.code,
                                    exc_info=True)


def _stamp_text(stamp: tuple) -> str:
    created_at, version, seat_stamp, root = stamp
    return f"{created_at!r}|{version}|{seat_stamp}|{root}"
