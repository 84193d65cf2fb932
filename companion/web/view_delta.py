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

Shared parts (`shared_parts.Piece`) are cut once per version and process, and the change
of a part from its previous version is worked out once for all the phones that were sent
that version.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from itertools import accumulate

from .shared_parts import Piece

# Where a segment starts: before an element that holds one number or line of a view. Finer
# cuts make smaller changes (a changed number sends its <span>, not its whole row).
# The "<" is matched, not looked ahead for: a pattern that starts with a letter is searched
# for that letter first, three times faster over a view (each segment gets it back).
SEGMENT_START = re.compile(
    r"<(?=(?:div|li|section|form|details|summary|p|h[1-6]|ul|ol|tr|table|span|button|label|input)[\s>])")
MARK = "~"  # a change; a whole view starts with "<"
WHOLE_ABOVE = 0.5  # new text above this share of the view: the view goes whole


def utf16_length(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-16-le")) // 2


# A letter beyond the first 65,536 (most emoji): two UTF-16 units.
_ASTRAL = re.compile("[\U00010000-\U0010FFFF]")


class Cut:
    """A text cut into segments, kept as the hash and the UTF-16 length of each (not the
    text: a stream keeps this of the last view it sent, for the next change), and the hash
    and length of the whole, to know the same text again without cutting it."""

    __slots__ = ("hashes", "lengths", "size", "whole")

    def __init__(self, text: str, segments: list[str]):
        self.hashes = array("q", map(hash, segments))
        self.lengths = lengths = array("l", map(len, segments))
        # A letter that takes two units adds one to its segment's length (the text is its
        # segments one after the other).
        astral = [found.start() for found in _ASTRAL.finditer(text)]
        if astral:
            ends = list(accumulate(lengths))
            for at in astral:
                lengths[bisect_right(ends, at)] += 1
        self.size = sum(lengths)
        self.whole = (hash(text), len(text))


def segments_of(text: str) -> list[str]:
    first, *rest = SEGMENT_START.split(text)
    return ([first] if first else []) + ["<" + segment for segment in rest]


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
            if ops and type(ops[-1]) is str:
                ops[-1] += segment
            else:
                ops.append(segment)
            if follows >= 0:
                follows += 1  # most often a segment changed in place: the old text goes on after it
            continue
        last = ops[-1] if ops else None
        if type(last) is list and last[0] + last[1] == starts[index]:
            last[1] += length
        else:
            ops.append([starts[index], length])
        follows = index + 1
    return ops


def _piece_cut(piece: Piece) -> tuple[Cut, list[str] | None]:
    """A shared part's cut, made once (its segments too, when just made)."""
    cut = piece.cut
    if cut is not None:
        return cut, None
    text = piece.text()
    segments = segments_of(text)
    piece.cut = cut = Cut(text, segments)
    return cut, segments


def _piece_changes(old: Piece, new: Piece) -> list:
    """A shared part's change from its old version, worked out once for every phone."""
    found = new.changes
    if found is not None and found[0] is old:
        return found[1]
    if new.cut is None and old.cut is not None and new.same_text(old):
        new.cut = old.cut  # most parts are as they were: not even cut again
    old_cut, _ = _piece_cut(old)
    new_cut, segments = _piece_cut(new)
    if new_cut is old_cut or (old_cut.size == new_cut.size and old_cut.hashes == new_cut.hashes):
        ops = [[0, new_cut.size]] if new_cut.size else []
    else:
        if segments is None:
            segments = segments_of(new.text())
        ops = changes(old_cut, segments, new_cut)
    new.changes = (old, ops)
    return ops


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
                segments = segments_of(item)
                text_segments.append(segments)
                cuts.append(Cut(item, segments))
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
                old_size, size = old.cut.size, new.cut.size
            elif new is old:
                item_ops = [[0, new.size]] if new.size else []
                old_size = size = new.size
            else:
                item_ops = changes(old, segments, new)
                old_size, size = old.size, new.size
            for op in item_ops:
                if type(op) is str:
                    fresh += len(op)
                    if ops and type(ops[-1]) is str:
                        ops[-1] += op
                    else:
                        ops.append(op)
                    continue
                start = base + op[0]
                last = ops[-1] if ops else None
                if type(last) is list and last[0] + last[1] == start:
                    last[1] += op[1]
                else:
                    ops.append([start, op[1]])
            base += old_size
            new_size += size
        self._sent = cuts
        if fresh > WHOLE_ABOVE * new_size:
            return items
        lines = [f"{MARK}{new_size}"]
        lines.extend(f"+{op}" if type(op) is str else f"={op[0]},{op[1]}" for op in ops)
        return "\n".join(lines)
