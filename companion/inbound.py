"""What the app accepts from outside: the rules for text, numbers and JSON, checked once.

Every piece of text that enters (a JSON body, a form field, the query string, the
address, an imported history file) passes `check_text`; every JSON document passes
`check_json`. What is refused, and why:

- Cc, control characters (C0, DEL, C1), except tab, line feed and carriage return: they
  are whitespace, and the app folds whitespace to single spaces wherever it keeps a name.
- Cs, surrogates: a lone one is half of a character; it cannot be written as UTF-8, so a
  stored one broke every page that showed it.
- Co, private-use characters: each phone draws them differently, or not at all.
- Noncharacters (U+FDD0-U+FDEF and the last two code points of every plane): never text.
- U+FFFD, the replacement character: it stands where text was already broken on the way
  (invalid UTF-8 in a multipart field arrives as one).
- The bidi embeddings, overrides and isolates U+202A-U+202E and U+2066-U+2069: a name
  holding one reverses the rest of every log line it appears in. They are refused, not
  stripped, so that a name is stored as typed or not at all.

Kept, because people type them: the marks LRM, RLM and ALM (U+200E, U+200F, U+061C),
zero-width joiners (emoji sequences, Persian), combining characters, variation
selectors, emoji tags, and unassigned code points (Cn): this Python's Unicode tables are
older than the phones' keyboards, so a new emoji would look unassigned here.

Numbers in JSON must fit SQLite's signed 64-bit integers and be finite; JSON may nest at
most MAX_JSON_DEPTH containers deep.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from urllib.parse import parse_qsl

from .games.words import Text, t

MAX_JSON_DEPTH = 32
INT_MIN, INT_MAX = -2**63, 2**63 - 1

_BIDI_CONTROLS = "\u202a-\u202e\u2066-\u2069"
_NONCHARACTERS = "\ufdd0-\ufdef" + "".join(
    f"{chr(plane * 0x10000 + 0xfffe)}{chr(plane * 0x10000 + 0xffff)}" for plane in range(17))
# Every class below is closed under Unicode's stability policy, so one pattern is exact.
_REFUSED = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"  # Cc, less tab, LF, CR
    "\ud800-\udfff"  # Cs
    "\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd"  # Co
    f"{_NONCHARACTERS}\ufffd{_BIDI_CONTROLS}]")


def _too_large(where):
    return t("{where} is a number too large to be used here; it was refused and nothing was "
             "changed.", where=where)


TOO_DEEP = t("The JSON is nested more than {count} levels deep; it was refused and nothing was "
             "changed.", count=MAX_JSON_DEPTH)


class Refused(Exception):
    """Input the app does not take in; `message` says what and where, for people."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def _kind(char: str) -> str:
    if re.match(f"[{_BIDI_CONTROLS}]", char):
        return t("{where} contains a text-direction control, which would reverse the text after "
                 "it ({code}); it was refused and nothing was changed.")
    if char == "\ufffd":
        return t("{where} contains a replacement character, left where the text was broken "
                 "({code}); it was refused and nothing was changed.")
    category = unicodedata.category(char)
    if category == "Cc":
        return t("{where} contains a control character ({code}); it was refused and nothing was changed.")
    if category == "Cs":
        return t("{where} contains half of a character (a lone surrogate) ({code}); it was refused "
                 "and nothing was changed.")
    if category == "Co":
        return t("{where} contains a private-use character, which other phones cannot show "
                 "({code}); it was refused and nothing was changed.")
    return t("{where} contains a code point that is not a character ({code}); it was refused and "
             "nothing was changed.")


def check_text(text: str, where: str) -> str:
    """The text itself, or Refused naming the first character the app does not take."""
    found = _REFUSED.search(text)
    if found:
        char = found.group()
        sentence = _kind(char)  # one whole sentence for each kind of character
        raise Refused(Text(sentence.message, {"where": where, "code": f"U+{ord(char):04X}"}))
    return text


def decode_utf8(raw: bytes, where: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused(t("{where} is not valid UTF-8 text; it was refused and nothing was changed.",
                        where=where)) from None


def form_pairs(raw: bytes, where: str) -> list[tuple[str, str]]:
    """A query string or urlencoded body as (name, value) pairs, decoded strictly.

    Werkzeug leaves bytes that are not UTF-8 percent-encoded in the value; here they are
    refused instead, whether sent raw or as %XX escapes.
    """
    text = decode_utf8(raw, where)
    try:
        return parse_qsl(text, keep_blank_values=True, encoding="utf-8", errors="strict")
    except UnicodeDecodeError:
        raise Refused(t("{where} has a percent-escape that is not valid UTF-8; it was refused and "
                        "nothing was changed.", where=where)) from None


def check_number(value: int, where: str) -> int:
    if not INT_MIN <= value <= INT_MAX:
        raise Refused(_too_large(where))
    return value


def check_json(value, where: str | None = None, depth: int = 0):
    """Walk a parsed JSON document: text, numbers and nesting depth; return it unchanged."""
    where = t("The request") if where is None else where
    if isinstance(value, str):
        check_text(value, where)
    elif isinstance(value, bool) or value is None:
        pass
    elif isinstance(value, int):
        check_number(value, where)
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise Refused(_too_large(where))
    elif isinstance(value, (dict, list)):
        if depth >= MAX_JSON_DEPTH:
            raise Refused(TOO_DEEP)
        if isinstance(value, dict):
            for key, item in value.items():
                check_text(key, t("A name in {where}", where=where) if depth else t("A name in the JSON"))
                check_json(item, key if not depth else f"{where}.{key}", depth + 1)
        else:
            for index, item in enumerate(value):
                check_json(item, f"{where}[{index}]", depth + 1)
    return value


def _no_constants(name):
    raise Refused(t("The JSON contains {name}, which is not a number; it was refused and "
                    "nothing was changed.", name=name))


def loads_json(raw: bytes | str):
    """Parse a JSON body and check it; a syntax error stays a ValueError (json's own)."""
    text = decode_utf8(raw, t("The request body")) if isinstance(raw, (bytes, bytearray)) else raw
    try:
        value = json.loads(text, parse_constant=_no_constants)
    except RecursionError:
        raise Refused(TOO_DEEP) from None
    return check_json(value)
