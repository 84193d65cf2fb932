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

import contextlib
import gc
import os
import re
import secrets
import struct
import sys
import zlib
from array import array
from bisect import bisect_right
from itertools import accumulate
from operator import add, sub

from flask import current_app, request
from jinja2 import StrictUndefined
from markupsafe import Markup

from .. import store
from ..db import get_db
from . import i18n
from .compression import stored_block
from .newest import Newest

MAX_PARTS = 16384  # kept in a process: one per table, part, seated-or-not and language, the newest version only


class Piece:
    """A rendered part, kept compressed: raw deflate blocks with the checksum and length of
    what they hold, made once for every phone. Its HTML is one line (`one_line`), so the
    same bytes stand in a plain HTML body and on a `view` event's `data:` line: one copy,
    compressed once. The HTML itself is not kept (a part of a view is some 15 KB, kept for
    every table): a plain view rendered for a phone inflates it again, which costs a tenth
    of rendering it.

    A part said in one language from a render for every language (`Spoken`) keeps only its
    words: its text is the canonical text (kept compressed, one copy for every language)
    with them in its marks, and is compressed itself only when a body needs its blocks."""

    __slots__ = ("_compressed", "_zeros", "changes", "prepared", "_size16", "spoken", "repeated", "__weakref__")

    def __init__(self, html: str | None, level: int | None = None):
        # For a stream's changes (view_delta): the part's change from the version before,
        # worked out once for every phone, and its length as a page counts it.
        self.changes = self._size16 = None
        # For a canonical text's: its change made ready for every language (view_delta).
        self.prepared = None
        self.spoken: Spoken | None = None  # how it was said from a recording, if it was
        self.repeated = False  # the same as at the version before (`again`)
        self._compressed = self._zeros = None
        if html is not None:
            text = one_line(html)
            self._size16 = utf16_length(text)
            self._compressed = _compressed(text.encode(), level)

    @classmethod
    def of_bytes(cls, data: bytes, size16: int, level: int | None = None) -> "Piece":
        """A part from its text (one line) as UTF-8 and its length in UTF-16 units."""
        piece = cls(None)
        piece._size16, piece._compressed = size16, _compressed(data, level)
        return piece

    @classmethod
    def stored(cls, deflated: bytes, crc: int, size: int) -> "Piece":
        """A part as another process rendered and kept it (`store.shared_parts`)."""
        piece = cls(None)
        piece._compressed = (deflated, crc, size)
        return piece

    @classmethod
    def said(cls, spoken: "Spoken") -> "Piece":
        """A part said from a recording in one language (`Spoken`)."""
        piece = cls(None)
        piece.spoken = spoken
        piece._size16 = spoken.size16()
        return piece

    def again(self) -> "Piece":
        """The same part at a new version (a `Spoken` one whose canonical text did not
        change): its words and its blocks, if made, shared; its change its own."""
        piece = Piece(None)
        piece.spoken, piece._size16, piece._compressed = self.spoken, self._size16, self._compressed
        piece._zeros = self._zeros
        piece.repeated = True
        return piece

    def compressed(self) -> bool:
        """Whether a body takes its blocks: made already, or worth making for the versions
        to come (a part said from a recording has none until asked; once it comes back the
        same, its blocks are made and serve every version while it stays so)."""
        return self._compressed is not None or self.repeated

    def _blocks(self) -> tuple:
        if self._compressed is None:  # (a part said from a recording, first sent whole)
            self._compressed = _compressed(self.text().encode())
        return self._compressed

    def to_store(self) -> tuple[bytes, int, int]:
        return self._blocks()

    def zeros(self) -> int:
        """The CRC-32 of as many zero bytes as the part holds (`crc_after`), found when first
        asked: a part another process kept, or a canonical text, is most often never sent."""
        if self._zeros is None:
            self._zeros = _crc_of_zeros(self._blocks()[2], 0)
        return self._zeros

    @property
    def html(self) -> Markup:
        return Markup(self.text())

    def text(self) -> str:
        if self._compressed is None:
            return self.spoken.text()
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

    def holds(self, data: bytes) -> bool:
        """Whether it holds the text (one line) whose UTF-8 is `data`, by its checksum and length."""
        blocks = self._blocks()
        return blocks[2] == len(data) and blocks[1] == zlib.crc32(data)

    def same_text(self, other: "Piece") -> bool:
        """Whether the two hold the same text: the same checksum and length of its bytes, or
        for two parts said in one language from recordings of one process, the same
        canonical text (the same calls' keys say the same words)."""
        mine, theirs = self.spoken, other.spoken
        if mine is not None and theirs is not None and mine.language == theirs.language \
                and mine.canonical.origin == theirs.canonical.origin:
            return mine.canonical.piece.same_text(theirs.canonical.piece)
        if self._compressed is None or other._compressed is None:
            return self.size16() == other.size16() and self.text() == other.text()
        return self._compressed[1:3] == other._compressed[1:3]

    def deflated(self) -> bytes:
        """The part as raw deflate blocks ending byte-aligned: a compressed stream or body
        takes them as they are, wherever they fall in it, since they refer to nothing before
        them."""
        return self._blocks()[0]

    def crc_after(self, crc: int) -> tuple[int, int]:
        """(the CRC-32 of what was sent before, whose CRC is `crc`, followed by this part;
        the part's length), without keeping its text: the CRC of a block after a prefix is
        the block's own CRC plus the prefix's CRC moved on by as many zero bytes."""
        _, own, size = self._blocks()
        return _crc_of_zeros(size, crc) ^ self.zeros() ^ own, size


# A letter beyond the first 65,536 (most emoji): two UTF-16 units.
ASTRAL = re.compile("[\U00010000-\U0010FFFF]")


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


def _compressed(data: bytes, level: int | None = None) -> tuple[bytes, int, int]:
    """(raw deflate blocks ending byte-aligned, CRC-32, length)."""
    deflate = zlib.compressobj(level or DEFLATE_LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS)
    return deflate.compress(data) + deflate.flush(zlib.Z_SYNC_FLUSH), zlib.crc32(data), len(data)


_ZEROS = bytes(1 << 16)


def _crc_of_zeros(count: int, crc: int) -> int:
    view = memoryview(_ZEROS)
    while count > 0:
        step = min(count, len(_ZEROS))
        crc = zlib.crc32(view[:step], crc)
        count -= step
    return crc


DEFLATE_LEVEL = 6  # compressed once for every phone of the table: worth the better ratio
CANONICAL_LEVEL = 1  # a canonical text is never sent to a phone: a third of the CPU, a sixth more bytes


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
        # The languages each table's parts (seated or watching) were asked in, each with the
        # last version it was asked at (the newest tables only).
        self.languages = Newest(limit)
        # What each row of parts said from one recording read as (`Spoken.from_store`), by
        # its checksum and length: a part the same as at the version before is read once.
        self.rows = Newest(limit)
        self.check = False  # a test's: each part said from a recording is held against a render

    def note_languages(self, table_id, seated: bool, languages, version: int) -> None:
        """This table's parts (seated or watching) were asked for in `languages` at `version`
        (here, or in another process, as the names of the rows it kept say)."""
        key = (table_id, seated)
        seen = self.languages.get(key, None)
        if seen is None:
            self.languages.put(key, None, dict.fromkeys(languages, version))
            return
        for language in languages:
            if seen.get(language, -1) < version:
                seen[language] = version

    def languages_reading(self, table_id, seated: bool, version: int) -> set | None:
        """The languages this table's parts are read in now (asked at this version or the
        `RECENT` before it, in any process), when there are several: then a part is rendered
        once for all of them and said in each. None for a table read in one language, which
        renders its parts in it as it always did."""
        seen = self.languages.get((table_id, seated), None)
        if seen is None or len(seen) == 1:
            return None
        for code in [code for code, last in seen.items() if last < version - RECENT]:
            del seen[code]  # a phone gone, or reading another language now
        return set(seen) if len(seen) > 1 else None


RECENT = 2  # versions: a language asked for within them is said at every new version


# Where a call's key stands in a canonical text.
_KEY_MARK = re.compile("\x00(\\d+)\x00")
_origin: tuple[int, str] | None = None


def origin() -> str:
    """This process's mark: what its calls' keys mean is its own (a worker forked after the
    app was loaded gets one of its own too)."""
    global _origin
    if _origin is None or _origin[0] != os.getpid():
        _origin = (os.getpid(), f"{os.getpid()}.{secrets.token_hex(3)}")
    return _origin[1]


class Canonical:
    """A part rendered for every language at once, with each call's key in place of its
    words (`i18n.call_keys`): the same at two versions wherever the part says the same
    things, in every language. Kept compressed (`piece`), one copy for all languages. Keys
    mean what they mean in the process that made it (`origin`)."""

    __slots__ = ("piece", "origin", "_layout", "recorded_as", "row")

    def __init__(self, piece: Piece, origin: str, layout: tuple[array, array]):
        self.piece, self.origin = piece, origin
        self._layout = layout
        # ((row form, languages), the row of `Spoken.to_store` said in them): the same at every version
        # while the canonical text stays, since its keys say the same words in a language
        self.row = None
        # (hash, length) of the recorded text it was made from and its calls' keys
        # (`Recorded`), when made here from one whose every call has a key
        self.recorded_as = None

    def layout(self) -> tuple[array, array]:
        """(where each mark ends in UTF-16 units, its length), in order (`layout_of`)."""
        return self._layout

    def text(self) -> str:
        return self.piece.text()


def utf16_lengths(texts: list[str]) -> list[int]:
    """`utf16_length` of each (most texts hold no letter beyond the first 65,536)."""
    lengths = list(map(len, texts))
    joined = "".join(texts)
    if not joined.isascii() and len(joined.encode("utf-16-le")) != 2 * len(joined):
        for index in [index for index, ascii in enumerate(map(str.isascii, texts)) if not ascii]:
            lengths[index] = utf16_length(texts[index])
    return lengths


def layout_of(texts: list[str], marks: list[str], lengths: list[int] | None = None) -> tuple[array, array]:
    """A canonical text's layout (`Canonical.layout`) from the texts between its marks and
    the marks, in order (and the texts' `utf16_lengths`, if found already)."""
    sizes = array("b", map(len, marks))
    return array(_INT, accumulate(map(add, lengths or utf16_lengths(texts), sizes))), sizes


class Spoken:
    """A part said in one language from a render for every language: the canonical text's
    marks and this language's words for them. A stream's change of the part is worked out
    once on the canonical text for every language and moved into this language's offsets
    (view_delta)."""

    __slots__ = ("language", "canonical", "words", "ends", "shifts", "check")

    def __init__(self, language: str, canonical: Canonical, words: list[str], check: bool = False,
                 shifts: array | None = None):
        self.language, self.canonical, self.words = language, canonical, words
        self.ends, sizes = canonical.layout()  # (where each mark ends in the canonical text)
        # How much longer the text is here than the canonical one, after each mark (as
        # another process found it, when it kept the part).
        self.shifts = shifts if shifts is not None else array(_INT, accumulate(map(sub, utf16_lengths(words), sizes)))
        self.check = check  # (a test's: each change made so is held against the texts)

    def size16(self) -> int:
        return self.canonical.piece.size16() + (self.shifts[-1] if self.shifts else 0)

    def at(self, offset: int) -> int:
        """An offset in the canonical text (never inside a mark) as an offset in this text."""
        marks = bisect_right(self.ends, offset)
        return offset + self.shifts[marks - 1] if marks else offset

    def said(self, text: str, at: int = 0) -> str:
        """Canonical text, found at offset `at` of the canonical text (not inside a mark),
        with this language's words in its marks."""
        if "\x00" not in text:
            return text
        pieces = _KEY_MARK.split(text)  # text, a mark's key, text, ...
        first = bisect_right(self.ends, at)
        pieces[1::2] = self.words[first:first + len(pieces) // 2]
        return "".join(pieces)

    def text(self) -> str:
        return self.said(self.canonical.text())

    @classmethod
    def to_store(cls, said: list["Spoken"]) -> tuple[str, bytes, int, int]:
        """Parts said from one recording, as one row for the other processes, whose name
        (`described`, the same at every version) gives their languages, in order, and the
        origin. The row holds a header (`_HEADER`: where the canonical text ends in its blocks
        and in its text, its length in UTF-16 units, its marks), the canonical text's blocks
        as they are, its layout (`Canonical.layout`), each language's shifts (`Spoken`), then
        each language's words ("\x01" before each, "\x00" between two): a reader takes them
        as they are, with no search of the text."""
        canonical = said[0].canonical
        languages = tuple(spoken.language for spoken in said)
        if canonical.row is not None and canonical.row[0] == (_ROW_FORM, languages):
            return canonical.row[1]
        deflated, _, size = canonical.piece._blocks()
        ends, sizes = canonical.layout()
        header = _HEADER.pack(_ROW_FORM, len(deflated), size, canonical.piece.size16(), len(ends))
        numbers = b"".join([_int_bytes(ends), sizes.tobytes(), *(_int_bytes(spoken.shifts) for spoken in said)])
        words = "".join("\x01" + "\x00".join(spoken.words) for spoken in said).encode()
        # Kept uncompressed: compressing a few KB of words cost more than all else of a row.
        tail = numbers + words
        blocks = [stored_block(header), deflated]
        blocks.extend(stored_block(tail[at:at + 0xFFFF]) for at in range(0, len(tail), 0xFFFF))
        crc = zlib.crc32(tail, canonical.piece.crc_after(zlib.crc32(header))[0])
        described = f"{','.join(languages)}*{canonical.origin}"
        row = described, b"".join(blocks), crc, len(header) + size + len(tail)
        canonical.row = ((_ROW_FORM, languages), row)
        return row

    @classmethod
    def from_store(cls, described: str, row: Piece, check: bool = False) -> list["Spoken"]:
        """The parts a row of `to_store` holds (none if it does not read as one)."""
        languages, _, maker = described.partition("*")
        languages = languages.split(",")
        deflated, _, whole = row.to_store()
        try:
            data = zlib.decompressobj(-zlib.MAX_WBITS).decompress(deflated)
            if len(data) != whole or whole < _HEADER.size:
                return []
            form, blocks, size, size16, marks = _HEADER.unpack_from(data)
            at = _HEADER.size + size  # the numbers, then the words
            if form != _ROW_FORM or whole < at + marks * (5 + 4 * len(languages)):
                return []
            piece = Piece.stored(deflated[_HEADER_BLOCK:_HEADER_BLOCK + blocks],
                                 zlib.crc32(memoryview(data)[_HEADER.size:at]), size)
            ends = _ints(data[at:at + 4 * marks])
            at += 4 * marks
            sizes = array("b", data[at:at + marks])
            at += marks
            shifts = []
            for _ in languages:
                shifts.append(_ints(data[at:at + 4 * marks]))
                at += 4 * marks
            said = data[at:].decode().split("\x01")[1:]
        except (zlib.error, UnicodeDecodeError):
            return []
        if len(said) != len(languages):
            return []
        piece._size16 = size16
        canonical = Canonical(piece, maker, (ends, sizes))
        found = []
        for language, words, shift in zip(languages, said, shifts):
            # (interned: every table says the same words, kept once)
            words = list(map(sys.intern, words.split("\x00"))) if marks else []
            if len(words) == marks:
                found.append(cls(language, canonical, words, check, shift))
        return found


def _int_bytes(numbers: array) -> bytes:
    """An array of 4-byte numbers as bytes, least significant first whatever the machine."""
    if sys.byteorder == "little":
        return numbers.tobytes()
    swapped = array(numbers.typecode, numbers)
    swapped.byteswap()
    return swapped.tobytes()


def _ints(data: bytes) -> array:
    """`_int_bytes` read back."""
    numbers = array(_INT)
    numbers.frombytes(data)
    if sys.byteorder != "little":
        numbers.byteswap()
    return numbers


_INT = "i" if array("i").itemsize == 4 else "l"  # a 4-byte number (C's int on every usual machine)
_ROW_FORM = 2  # what a row of `to_store` holds, after its header: a row of another form is not read
_HEADER = struct.Struct("<IIIII")
_HEADER_BLOCK = len(stored_block(bytes(_HEADER.size)))  # where the canonical text's blocks start


class Recorded:
    """A part rendered for every language at once: its text with marks and the calls that say
    its words (`i18n.recorded`); each language is made from it when first asked."""

    __slots__ = ("calls", "keys", "said", "_text", "texts", "numbers", "mark_keys", "canonical")

    def __init__(self, text: str, calls: list, before: Canonical | None = None):
        self.calls = calls
        self.keys = keys = i18n.call_keys(calls)
        self.said: set[str] = set()  # the languages it was said in
        self.texts = self.numbers = self.mark_keys = None  # (found when first needed)
        # The same text and the same calls' keys as the canonical text of the version before:
        # the same canonical text, found without making it.
        recorded_as = None
        if None not in keys:
            # (its hash, not a checksum of its bytes: a part with one emoji is held four bytes
            # a letter, and encoding it cost more than hashing it)
            recorded_as = (hash(text), len(text), tuple(keys))
            if before is not None and before.recorded_as == recorded_as:
                self.canonical = before
                self._text = text
                return
        self._text = text
        texts, _, mark_keys = self._marks()
        marks = [f"\x00{key}\x00" for key in mark_keys]
        joined = [None] * (2 * len(marks) + 1)
        joined[0::2], joined[1::2] = texts, marks
        canonical = "".join(joined)
        data = canonical.encode()  # (once: for the check and the blocks alike)
        if before is not None and before.piece.holds(data):
            # As it was at the version before (the same keys: the same words in every
            # language): that one is kept, and each language's part with it.
            self.canonical = before
        else:
            lengths = utf16_lengths(texts)
            layout = layout_of(texts, marks, lengths)
            piece = Piece.of_bytes(data, sum(lengths) + sum(layout[1]), CANONICAL_LEVEL)
            self.canonical = Canonical(piece, origin(), layout)
            self.canonical.recorded_as = recorded_as

    def _marks(self) -> tuple[list[str], list[int], list]:
        """(the texts between its marks, each mark's call, each mark's key), found once."""
        if self.texts is None:
            self.texts, self.numbers = i18n.marks_of(self._text)
            self._text = None  # (the texts hold it)
            keys = self.keys
            # Each mark as its call's key (a call with none gets a number of its own: never the same).
            self.mark_keys = [keys[number] if keys[number] is not None else i18n.fresh_key()
                              for number in self.numbers]
        return self.texts, self.numbers, self.mark_keys

    def spoken_in(self, language: str, check: bool = False) -> Piece:
        """The part in `language`: its words said into the canonical text, or, when a word
        holds a line break (which the part's one line would change) or the marks' or the
        stored row's separators, its text whole."""
        texts, numbers, mark_keys = self._marks()
        # Most calls said the same at the version before: each mark's words found by its key.
        words = i18n.said_before(language, mark_keys)
        if words is None:
            said = i18n.said_in(language, self.calls, self.keys)
            words = [said[number] for number in numbers]
        joined = "".join(words)
        if "\n" in joined or "\r" in joined or "\x00" in joined or "\x01" in joined:
            text = [None] * (2 * len(words) + 1)
            text[0::2], text[1::2] = texts, words
            return Piece("".join(text))
        return Piece.said(Spoken(language, self.canonical, words, check))


@contextlib.contextmanager
def _collector_paused():
    """The cycle collector paused while a part is recorded and said: a recording keeps its
    three hundred calls (each a tuple of its own arguments) until every language is said,
    then drops them all; a collection in between walked them and moved them to an older
    generation, where they were walked again (at a table in three languages, twice the
    young collections of one in English). Left as it was if something else paused it."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


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
        self._older: list[str] = []  # the names of this kind's rows kept at another stamp
        self._rendered: list = []  # (name, language, piece) rendered here, for share()
        self._noted = False  # whether this view's language was noted as asked at this version

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

    def _said_for_all(self, name: str, cache, languages: set) -> Piece | None:
        """The part said in every language the table reads that this process has not said it
        in at this stamp, from its render for every language (made now if no phone made it
        at this stamp), each kept and shared at once (one write); this phone's. None when the
        part cannot be rendered so."""
        key = (self.table.id, name, self.seated, None)
        recorded = cache.get(key, self.stamp)
        if recorded is None:
            made = i18n.recorded(lambda: self._render(name), strict=cache.check)
            if made is None:
                return None
            recorded = Recorded(*made, before=self._canonical_before(name, cache, languages))
            cache.recorded += 1
            cache.put(key, self.stamp, recorded)
        mine = None
        for language in sorted(languages):
            language_key = (self.table.id, name, self.seated, language)
            if language != self.language and (language in recorded.said
                                              or cache.get(language_key, self.stamp) is not None):
                continue
            before = cache.latest(language_key)
            if before is not None and before.spoken is not None and before.spoken.canonical is recorded.canonical:
                piece = before.again()  # unchanged since the version before
            else:
                piece = recorded.spoken_in(language, check=cache.check)
            recorded.said.add(language)
            if cache.check:
                with i18n.speaking(language):
                    rendered = self._render(name)
                assert piece.text() == rendered, f"{name} in {language}: said from a recording, it differs"
            cache.renders += 1
            cache.put(language_key, self.stamp, piece)
            self._rendered.append((name, language, piece))
            if language == self.language:
                mine = piece
        if recorded.said >= languages:
            cache.discard(key)  # said in every language the table reads: not kept (some 20 KB)
        return mine

    def _canonical_before(self, name: str, cache, languages) -> Canonical | None:
        """The canonical text this process said the part from at the version before (the
        newest kept in a language the table reads), if any."""
        for language in languages:
            before = cache.latest((self.table.id, name, self.seated, language))
            if before is not None and before.spoken is not None and before.spoken.canonical.origin == origin():
                return before.spoken.canonical
        return None

    def _stored_name(self, name: str, language: str) -> str:
        return f"{name}|{'seated' if self.seated else 'watching'}|{language}"

    def _look_up_stored(self, cache) -> None:
        """Every part of this stamp another process kept, in every language, into this
        process's cache (where this process has not made it itself); and the languages the
        names of all the table's rows say it was read in, at their versions."""
        self._looked_up = True
        kind = "seated" if self.seated else "watching"
        found, older = store.shared_parts(get_db(), self.table.id, _stamp_text(self.stamp))
        for stored, stamp in older:
            named, version = _named(stored, kind), _version_of(stamp)
            if named is not None and version is not None:
                cache.note_languages(self.table.id, self.seated, named[2], version)
                self._older.append(stored)
        for stored, deflated, crc, size in found:
            named = _named(stored, kind)
            if named is None:
                continue
            name, language, _ = named
            piece = Piece.stored(deflated, crc, size)
            if "*" not in language:
                made = [(language, piece)]
            else:  # parts said from one recording (`Spoken.to_store`)
                made = self._read_row(cache, stored, name, language, piece, crc, size)
            cache.note_languages(self.table.id, self.seated, [language for language, _ in made],
                                 self.table.version)
            for language, piece in made:
                key = (self.table.id, name, self.seated, language)
                if cache.get(key, self.stamp) is None:
                    cache.put(key, self.stamp, piece)
            # A render for every language this process made at a version before (to say a
            # language the other's row lacked) serves no version to come: it goes (some
            # 20 KB, and the render's context its calls hold).
            cache.discard_older((self.table.id, name, self.seated, None), self.stamp)

    def _read_row(self, cache, stored: str, name: str, described: str, row: Piece, crc: int, size: int) -> list:
        """(language, part) of each part a row of `Spoken.to_store` holds; the parts read
        from it at the version before when it holds the same bytes."""
        key = (self.table.id, stored)
        kept = cache.rows.latest(key)
        if kept is not None and kept[0] == crc and kept[1] == size:
            made = []
            for spoken in kept[2]:
                before = cache.latest((self.table.id, name, self.seated, spoken.language))
                made.append((spoken.language, before.again() if before is not None and before.spoken is spoken
                             else Piece.said(spoken)))
            return made
        said = Spoken.from_store(described, row, cache.check)
        cache.rows.put(key, None, (crc, size, said))
        return [(spoken.language, Piece.said(spoken)) for spoken in said]

    def __call__(self, name: str) -> Markup:
        pieces = self.pieces
        if self.private_actor is not None:
            if pieces is None:
                return self._render(name)
            piece = Piece(self._render(name))
        else:
            cache = cache_of(self.app)
            if not self._noted:  # (once per view: asked now in this language)
                self._noted = True
                cache.note_languages(self.table.id, self.seated, (self.language,), self.table.version)
            key = (self.table.id, name, self.seated, self.language)
            piece = cache.get(key, self.stamp)
            if piece is None and not self._looked_up:
                self._look_up_stored(cache)
                piece = cache.get(key, self.stamp)
            if piece is None:
                made = None
                languages = cache.languages_reading(self.table.id, self.seated, self.table.version)
                if languages:
                    self._context()  # made first: its extras may read the database, not a part's words
                    with _collector_paused():
                        made = self._said_for_all(name, cache, languages)
                if made is None:
                    html = self._render(name)
                    piece = Piece(html)
                    cache.renders += 1
                    cache.put(key, self.stamp, piece)
                    self._rendered.append((name, self.language, piece))
                else:
                    piece = made
                    if pieces is None:
                        return piece.html
                if pieces is None:
                    return Markup(html)
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
        rows, said = [], {}
        for name, language, piece in rendered:
            if piece.spoken is None:
                rows.append((self._stored_name(name, language), *piece.to_store()))
            else:  # said from a recording: one row for its canonical text and every language
                said.setdefault((name, id(piece.spoken.canonical)), []).append(piece.spoken)
        for (name, _), spoken in said.items():
            described, *row = Spoken.to_store(spoken)
            rows.append((self._stored_name(name, described), *row))
        # A part's rows at an older stamp under other names (another set of languages, or
        # another process's) are read by no phone again, yet every look-up reads their names
        # and every page of them: they go, once the languages their names say were noted here
        # (this view's rows name every language the table is read in now).
        names = {stored for stored, *_ in rows}
        written = {stored.rsplit("|", 1)[0] for stored in names}
        stale = [stored for stored in self._older
                 if stored not in names and stored.rsplit("|", 1)[0] in written]
        self._older = [stored for stored in self._older if stored not in stale]
        try:
            store.put_shared_parts(get_db(), self.table.id, _stamp_text(self.stamp), rows, stale)
        except Exception:  # noqa: BLE001 (the answer goes out whatever the database said)
            self.app.logger.warning("keeping the shared parts of table %s failed", self.table.code,
                                    exc_info=True)


def _named(stored: str, kind: str) -> tuple[str, str, list[str]] | None:
    """(part, what follows its kind, the languages that says) of a kept row's name (`_stored_name`) made for `kind` of phone
    ("seated" or "watching"), each language one the app speaks; None for a row made for the
    other kind, or named as an older release named its rows ("part|seated"), or otherwise."""
    fields = stored.rsplit("|", 2)
    if len(fields) != 3 or fields[1] != kind:
        return None
    languages = fields[2].partition("*")[0].split(",")
    if not all(language in i18n.LANGUAGES or language == i18n.PSEUDO for language in languages):
        return None
    return fields[0], fields[2], languages


def _version_of(stamp: str) -> int | None:
    """The table version a kept row's stamp (`_stamp_text`) names, or None."""
    fields = stamp.split("|")
    return int(fields[1]) if len(fields) > 2 and fields[1].isdigit() else None


def _stamp_text(stamp: tuple) -> str:
    created_at, version, seat_stamp, root = stamp
    return f"{created_at!r}|{version}|{seat_stamp}|{root}"
