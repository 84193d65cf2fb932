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


def bare_english(html: str, allowed=()) -> list[str]:
    """Each text a player reads on the page that holds English words outside the catalog's
    brackets (names in `allowed` are not words: players' names, a table's code)."""
    reader = _Reader()
    reader.feed(html)
    allowed_words = {word.lower() for name in allowed for word in _WORD.findall(str(name))}
    found = []
    for text in reader.texts:
        left = without_pseudo(text)
        words = [w for w in _WORD.findall(left) if w.lower() not in allowed_words]
        if words:
            found.append(" ".join(text.split())[:160])
    return found
