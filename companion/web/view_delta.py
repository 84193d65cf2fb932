"""A view pushed on a stream as what changed since the view the same stream pushed before.

A move changes a few numbers and lines of a view 15 to 50 KB long, and the phone's stream
already sent it the rest. So after its first view a stream sends each view as its change
from the one before: the new view's text, cut into segments where an element opens, becomes
copies of spans of the old text and the segments that are new. On a `view` event's `data:`
lines (a view's text is one line, `shared_parts.one_line`):

    ~<length of the new view>
    =<offset>,<length>     a span of the view sent before
    +<text>                new text

The page keeps the text of the last view its stream sent, whether it showed it or not,
and puts the next one together from it (static/app.js), checking its length; a view it
cannot put together is not shown, and the update after it makes the page fetch the view.
A stream that reconnects starts with a whole view. Offsets and lengths count UTF-16 code
units, as the page's strings do.

A change holds nothing its phone could not fetch: new text from its own new view, and
spans of the view this stream sent it before.

The change of a shared part (`shared_parts.Piece`) from its previous version is worked out
once in a process for all the phones that were sent that version: a part as it was is one
copy, and of one that changed only the panels or sections that changed are cut.
"""

from __future__ import annotations

import re
import weakref
from array import array
from bisect import bisect_right
from itertools import accumulate

from .shared_parts import _KEY_MARK, ASTRAL, Piece, Spoken, made_once, utf16_length

# Where a segment starts: before an element that holds one number or line of a view. Finer
# cuts make smaller changes (a changed number sends its <span>, not its whole row).
# The "<" is matched, not looked ahead for: a pattern that starts with a letter is searched
# for that letter first, three times faster over a view (each segment gets it back).
SEGMENT_START = re.compile(
    r"<(?=(?:div|li|section|form|details|summary|p|h[1-6]|ul|ol|tr|table|span|button|label|input)[\s>])")
MARK = "~"  # a change; a whole view starts with "<"
WHOLE_ABOVE = 0.5  # new text above this share of the view: the view goes whole


class Cut:
    """A text cut into segments, kept as the hash and the UTF-16 length of each (not the
    text: a stream keeps this of the last view it sent, for the next change), and the hash
    and length of the whole, to know the same text again without cutting it."""

    __slots__ = ("hashes", "lengths", "size", "whole", "changes", "__weakref__")

    def __init__(self, text: str, segments: list[str]):
        self.changes = None  # (the Cut it was compared with, by weak reference; the change)
        self.hashes = array("q", map(hash, segments))
        self.lengths = lengths = array("l", map(len, segments))
        # A letter that takes two units adds one to its segment's length (the text is its
        # segments one after the other).
        astral = [found.start() for found in ASTRAL.finditer(text)]
        if astral:
            ends = list(accumulate(lengths))
            for at in astral:
                lengths[bisect_right(ends, at)] += 1
        self.size = sum(lengths)
        self.whole = (hash(text), len(text))


def _cut_before(start: re.Pattern, text: str) -> list[str]:
    """The text cut before each "<" that `start` matches (it matches the "<" alone)."""
    first, *rest = start.split(text)
    return ([first] if first else []) + ["<" + piece for piece in rest]


def segments_of(text: str) -> list[str]:
    return _cut_before(SEGMENT_START, text)


# The text of a view between its shared parts is mostly the same on every phone of a table
# at one version (`shared_parts.view_items` gives the same string for it): it is cut once,
# and its change from the text sent before worked out once, for all the streams here.
_cut_texts: dict[str, tuple["Cut", list[str]]] = {}


def _cut(text: str) -> tuple[Cut, list[str]]:
    segments = segments_of(text)
    return Cut(text, segments), segments


def _remembered_change(old, new, work, kept_in: str = "changes") -> list:
    """`work()`, the change of `new` (a Cut or a Piece) from `old`, worked out once for
    every stream here that sent `old` and sends `new` (kept in `new`'s `kept_in`). `old` is
    known by a weak reference: a strong one would keep every earlier version alive, each
    holding the one before it."""
    found = getattr(new, kept_in)
    if found is not None and found[0]() is old:
        return found[1]
    ops = work()
    setattr(new, kept_in, (weakref.ref(old), ops))
    return ops


def changes(old: Cut, segments: list[str], new: Cut) -> list:
    """The new text as copies of spans of the old one (`[offset, length]`, offsets from the
    old text's start) and new text (str), in order."""
    where: dict[int, int] = {}  # a segment's hash -> its first index in the old text
    starts = []
    at = 0
    for index, (digest, length) in enumerate(zip(old.hashes, old.lengths)):
        where.setdefault(digest, index)
        starts.append(at)
        at += length
    old_hashes, old_lengths, count = old.hashes, old.lengths, len(old.hashes)
    ops: list = []
    follows = -1  # the old segment after the last one copied
    for segment, digest, length in zip(segments, new.hashes, new.lengths):
        if 0 <= follows < count and old_hashes[follows] == digest and old_lengths[follows] == length:
            index = follows  # the old text goes on as before: one longer copy
        else:
            index = where.get(digest, -1)
            if index >= 0 and old_lengths[index] != length:
                index = -1
        if index < 0:
            _append(ops, segment)
            if follows >= 0:
                follows += 1  # most often a segment changed in place: the old text goes on after it
            continue
        _append(ops, [starts[index], length])
        follows = index + 1
    return ops


# Where a block starts: a panel or section of a shared part. A part that changed is compared
# block by block first, and only a block that changed is cut into segments.
BLOCK_START = re.compile(r"<(?=(?:details|section|article)[\s>])")


def _blocks(text: str) -> list[str]:
    return _cut_before(BLOCK_START, text)


def _piece_changes(old: Piece, new: Piece) -> list:
    """A shared part's change from its old version, worked out once for every phone."""
    def work():
        if new.same_text(old):  # most parts are as they were: copied whole
            return [[0, old.size16()]] if old.size16() else []
        was, now = old.spoken, new.spoken
        if was is not None and now is not None and was.language == now.language \
                and was.canonical.origin == now.canonical.origin:
            return _spoken_changes(old, new)
        return _text_changes(old.text(), new.text())
    return _remembered_change(old, new, work)


def _spoken_changes(old: Piece, new: Piece) -> list:
    """The change of a part said from a recording in one language, from its change on the
    canonical text (worked out once for every language, `_canonical_changes`): each copy's
    ends moved to this language's offsets, each new text said in it."""
    was, now = old.spoken, new.spoken
    ops: list = []
    shifts, words = was.shifts, now.words
    for text, first, last in _canonical_changes(was, now):
        if text is None:  # a copy: its ends, each with the marks before it
            (start, marks), (end, end_marks) = first, last
            start += shifts[marks - 1] if marks else 0
            end += shifts[end_marks - 1] if end_marks else 0
            if end > start:
                _append(ops, [start, end - start])
        else:
            if first is not None:  # text, a mark, text, ...: this language's words in the marks
                pieces = first.copy()
                pieces[1::2] = words[last:last + len(pieces) // 2]
                text = "".join(pieces)
            if text:  # (marks alone whose words here are none: nothing to send)
                _append(ops, text)
    if now.check:
        assert applied(old.text(), ops) == new.text(), "a part's change in its language is wrong"
    return ops


def _canonical_changes(was: Spoken, now: Spoken) -> list:
    """The change of the canonical text, made ready for any language once: a copy as
    ((start, marks before it), (end, marks before it)); new text as (text, None, 0), or, when
    it holds marks, (text, its pieces split at them, the number of marks before it). The ends
    of a copy are where segments start, which no mark holds ("<" is not in one)."""
    old, new = was.canonical.piece, now.canonical.piece

    def work():
        old_ends, new_ends = was.ends, now.ends
        prepared: list = []
        at = 0  # where the op's text stands in the new canonical text
        for op in _piece_changes(old, new):
            if type(op) is str:
                if "\x00" in op:
                    prepared.append((op, _KEY_MARK.split(op), bisect_right(new_ends, at)))
                else:
                    prepared.append((op, None, 0))
                at += utf16_length(op)
            else:
                start, end = op[0], op[0] + op[1]
                prepared.append((None, (start, bisect_right(old_ends, start)), (end, bisect_right(old_ends, end))))
                at += op[1]
        return prepared
    return _remembered_change(old, new, work, kept_in="prepared")


def applied(old_text: str, ops: list) -> str:
    """The text a page puts together from `ops` and the text it had (`old_text`)."""
    units = old_text.encode("utf-16-le")
    return b"".join(op.encode("utf-16-le") if type(op) is str else units[2 * op[0]:2 * (op[0] + op[1])]
                    for op in ops).decode("utf-16-le")


def _text_changes(old_text: str, new_text: str) -> list:
    """`changes` of two texts, block by block: a block found whole in the old text is copied
    from there, one that changed is cut and compared with the old block in its place."""
    old_blocks, new_blocks = _blocks(old_text), _blocks(new_text)
    starts, found = [], {}
    at = 0
    for block in old_blocks:
        found.setdefault(block, at)
        starts.append(at)
        at += utf16_length(block)
    if len(old_blocks) != len(new_blocks):
        old_blocks, starts = [old_text], [0]  # blocks added or gone: against the whole old text
    ops: list = []
    for index, block in enumerate(new_blocks):
        start = found.get(block)
        if start is not None:
            block_ops = [[start, utf16_length(block)]]
        else:
            old_block = old_blocks[min(index, len(old_blocks) - 1)]
            base = starts[min(index, len(starts) - 1)]
            segments = segments_of(block)
            block_ops = [[base + op[0], op[1]] if type(op) is list else op
                         for op in changes(Cut(old_block, segments_of(old_block)), segments, Cut(block, segments))]
        for op in block_ops:
            _append(ops, op)
    return ops


def _append(ops: list, op) -> None:
    """Add an op, joining it to the one before when it goes on from there."""
    last = ops[-1] if ops else None
    if type(op) is str:
        if type(last) is str:
            ops[-1] = last + op
        else:
            ops.append(op)
    elif type(last) is list and last[0] + last[1] == op[0]:
        last[1] += op[1]
    else:
        ops.append(list(op))


class StreamViews:
    """What one stream sent last, and each new view as a change from it.

    `event_text(items)` takes a view rendered for the stream (`shared_parts.view_items`) and gives either the items themselves (the view goes whole) or
    the text of a change."""

    __slots__ = ("_sent",)

    def __init__(self):
        self._sent = None  # per item of the last view: its Piece, or the Cut of its text

    def event_text(self, items: list):
        sent_before = self._sent
        same_shape = sent_before is not None and len(sent_before) == len(items)
        cuts, text_segments = [], []
        for index, item in enumerate(items):
            if isinstance(item, str):
                old = sent_before[index] if same_shape else None
                if isinstance(old, Cut) and old.whole == (hash(item), len(item)):
                    text_segments.append(None)  # as sent before: not cut again
                    cuts.append(old)
                    continue
                cut, segments = made_once(_cut_texts, item, _cut)
                text_segments.append(segments)
                cuts.append(cut)
            else:
                text_segments.append(None)
                cuts.append(item)
        if not same_shape or any(
                isinstance(a, Piece) != isinstance(b, Piece) for a, b in zip(sent_before, cuts)):
            self._sent = cuts
            return items
        ops: list = []
        base = 0
        new_size = 0
        fresh = 0
        for old, new, segments in zip(sent_before, cuts, text_segments):
            if isinstance(new, Piece):
                item_ops = _piece_changes(old, new)
                old_size, size = old.size16(), new.size16()
            elif new is old:
                item_ops = [[0, new.size]] if new.size else []
                old_size = size = new.size
            else:
                item_ops = _remembered_change(old, new, lambda: changes(old, segments, new))
                old_size, size = old.size, new.size
            for op in item_ops:
                if type(op) is str:
                    fresh += len(op)
                    _append(ops, op)
                else:
                    _append(ops, [base + op[0], op[1]])
            base += old_size
            new_size += size
        self._sent = cuts
        if fresh > WHOLE_ABOVE * new_size:
            return items
        lines = [f"{MARK}{new_size}"]
        lines.extend(f"+{op}" if type(op) is str else f"={op[0]},{op[1]}" for op in ops)
        return "\n".join(lines)
