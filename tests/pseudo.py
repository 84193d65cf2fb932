"""English that did not come through the catalogs, found on a page rendered in the pseudo-locale.

In the pseudo-locale (`?lang=en_XA`) every catalog message reads `[Šţàý öŕ Ŕéţûŕñ ··]`:
its letters accented and the whole bracketed. Whatever a player would read that is still
plain ASCII words after the bracketed parts are taken out (and the players' own names, the
table's code and numbers) was written in English somewhere and never translated.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

# Read by a player besides the text: these attributes (a button's value only).
_READ_ATTRIBUTES = ("title", "aria-label", "placeholder", "alt", "aria-description")
_SKIPPED = {"script", "style", "template", "noscript"}
_INNERMOST = re.compile(r"\[[^\[\]]*\]")
_WORD = re.compile(r"[A-Za-z]{2,}")


class _Reader(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.skipping = 0
        self.skipped_tags: list[str] = []
        self.texts: list[str] = []

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        # Skipped: scripts and styles, and text marked as in a language of its own (the
        # language menu names each language in itself).
        if tag in _SKIPPED or (values.get("lang") and tag != "html"):
            self.skipping += 1
            self.skipped_tags.append(tag)
            return
        if self.skipping:
            return
        for name in _READ_ATTRIBUTES:
            if values.get(name):
                self.texts.append(values[name])
        if tag in ("input", "button") and values.get("type") in ("submit", "button") and values.get("value"):
            self.texts.append(values["value"])

    def handle_endtag(self, tag):
        if self.skipped_tags and self.skipped_tags[-1] == tag:
            self.skipped_tags.pop()
            self.skipping -= 1

    def handle_data(self, data):
        if not self.skipping and data.strip():
            self.texts.append(data)


def without_pseudo(text: str) -> str:
    """The text with every bracketed pseudo-locale message (nested ones too) taken out."""
    while True:
        shorter = _INNERMOST.sub(" ", text)
        if shorter == text:
            return text
        text = shorter


# Names kept in every language: the app's, the games' titles, and the games' own proper names.
PROPER_NAMES = ("Forest Table", "The Wicked Forest", "Woodland Wizards", "Explorers of the Woodlands",
                "The Mysterious Forest", "Golden Phoenix", "Loki")


def bare_english(html: str, allowed=()) -> list[str]:
    """Each text a player reads on the page that holds English words outside the catalog's
    brackets (`allowed`: names that are no words, such as the players' and the table's code,
    besides the PROPER_NAMES)."""
    reader = _Reader()
    reader.feed(html)
    names = sorted({str(n) for n in (*allowed, *PROPER_NAMES) if str(n).strip()}, key=len, reverse=True)
    proper = re.compile(r"(?<!\w)(?:" + "|".join(re.escape(n) for n in names) + r")(?!\w)") if names else None
    found = []
    for text in reader.texts:
        left = without_pseudo(text)
        if proper is not None:
            left = proper.sub(" ", left)
        words = _WORD.findall(left)
        if words:
            found.append(" ".join(text.split())[:160])
    return found


# --- finding a control or a text by its English, as the pseudo-locale shows it ------------------

_ACCENTED = dict(zip("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
                     "àƀçđéƒĝĥîĵķĺɱñöþǫŕšţûṽŵẋýžÀƁÇĐÉƑĜĤÎĴĶĹṀÑÖÞǪŔŠŢÛṼŴẊÝŽ"))
_BETWEEN = r"[\s\[\]·]*"  # a message's brackets and padding, where two messages meet


def say(english, exact: bool = False) -> re.Pattern:
    """A pattern matching `english` (a string, or a compiled pattern's simple text) as the
    pseudo-locale renders it: each letter plain (a name, filled into a message) or accented
    (the message's own), brackets and padding allowed wherever words meet. `exact`: the whole
    text, with nothing else but brackets and padding around it."""
    if isinstance(english, re.Pattern):
        source, literal = english.pattern, False
    else:
        source, literal = english, True
    out = []
    index = 0
    if source.startswith("^"):
        out.append("^" + _BETWEEN)
        index = 1
    while index < len(source):
        char = source[index]
        if char in _ACCENTED:
            out.append(f"[{char}{_ACCENTED[char]}]")
        elif char == " ":
            out.append(r"[\s\[\]·]+")
        elif char == "\\" and not literal and index + 1 < len(source):
            out.append(source[index:index + 2])
            index += 1
        elif char == "$" and not literal and index == len(source) - 1:
            out.append(_BETWEEN + "$")
        elif char in ":,!" or (literal and char in ".?"):
            # where one message ends and the next begins: brackets and padding around it
            out.append(_BETWEEN + re.escape(char) + _BETWEEN)
        elif literal:
            out.append(re.escape(char))
        else:
            out.append(char)
        index += 1
    pattern = "".join(out)
    if exact:
        pattern = "^" + _BETWEEN + pattern + _BETWEEN + "$"
    return re.compile(pattern)


def board_part(html: str, stylesheet: str) -> str:
    """The part of a table page a game's own templates render: from the board's stylesheet
    (`stylesheet`, its file name) to the page's own after-game card or bottom bar."""
    start = html.rindex("<link", 0, html.index(stylesheet))
    ends = [i for i in (html.find('<section class="card after-game"'),
                        html.find('<nav class="bottom-bar"')) if i > start]
    return html[start:min(ends)]
