"""Words a player reads, kept as what they are made of so each phone reads them in its own language.

A rule's message, a log line or an event is a `Text`: a `str` holding its English, so
code, tests and an English phone read it as it is, that also keeps its message id (the
English with `{name}` holes) and the values that fill the holes. A phone in another
language renders it again from those (`Text.render`), through the translation catalogs.
The rules stay pure: `render` is given the language as an object (the web layer makes it
from Babel), and stored states keep a Text as data (`to_data`, `from_data`), never as
English alone.

Write a whole sentence per message (no sentence glued from pieces: word order and
grammar differ between languages); a count is a plural (`tn`); a list of names is
`join_names` (each language joins its own way); a player's name is a value, never
translated.

    t("{who} has chosen", who=name)
    tn("{count} Flower", "{count} Flowers", count)
    tc("choice", "Stay")   # the same English word meaning something else elsewhere
"""

from __future__ import annotations

import json
import re
from typing import Protocol


class Language(Protocol):
    """What rendering needs of a language (the web layer's is made from Babel's catalogs)."""

    english: bool  # nothing to translate: every Text reads as it is

    def gettext(self, message: str) -> str: ...
    def ngettext(self, singular: str, plural: str, count: int) -> str: ...
    def pgettext(self, context: str, message: str) -> str: ...
    def npgettext(self, context: str, singular: str, plural: str, count: int) -> str: ...
    def names(self, items: list[str]) -> str: ...
    def number(self, value: int) -> str: ...


class Text(str):
    """A message for a player: its English as the string, its parts kept to translate it."""

    def __new__(cls, message: str, values: dict | None = None, *, plural: str | None = None,
                count: int | None = None, context: str | None = None):
        values = dict(values or {})
        if plural is not None:
            values.setdefault("count", count)
        pattern = plural if plural is not None and count != 1 else message
        english = pattern.format(**values) if values else pattern
        self = super().__new__(cls, english)
        self.message, self.values, self.plural, self.count, self.context = (
            message, values, plural, count, context)
        return self

    def __reduce__(self):  # copies and pickles keep what it is made of
        return (_rebuilt, (self.message, self.values, self.plural, self.count, self.context))

    def __deepcopy__(self, memo):
        return self  # never changed once made

    def __copy__(self):
        return self

    def render(self, language: Language | None) -> str:
        """The message in `language` (its English when that is None or English)."""
        if language is None or language.english:
            return str.__str__(self)
        if self.plural is None:
            pattern = (language.pgettext(self.context, self.message) if self.context
                       else language.gettext(self.message))
        else:
            count = self.count if isinstance(self.count, int) else 0
            pattern = (language.npgettext(self.context, self.message, self.plural, count) if self.context
                       else language.ngettext(self.message, self.plural, count))
        if not self.values:
            return pattern
        filled = {key: render(value, language) for key, value in self.values.items()}
        try:
            return pattern.format(**filled)
        except (KeyError, IndexError, ValueError):  # a catalog's mistake must not break a page
            return str.__str__(self)


def _rebuilt(message, values, plural, count, context):
    return Text(message, values, plural=plural, count=count, context=context)


class Names(str):
    """Names joined as one phrase ("Ana, Ben and Cara"); each language joins them its own way."""

    def __new__(cls, items):
        items = [item if isinstance(item, str) else str(item) for item in items]
        if len(items) == 1:
            english = items[0]
        else:
            english = ", ".join(items[:-1]) + " and " + items[-1]
        self = super().__new__(cls, english)
        self.items = items
        return self

    def __reduce__(self):
        return (Names, (self.items,))

    def render(self, language: Language | None) -> str:
        if language is None or language.english:
            return str.__str__(self)
        return language.names([render(item, language) for item in self.items])


def render(value, language: Language | None):
    """A value as `language` says it: a Text or Names rendered, a whole number formatted,
    anything else (a player's name, a plain string) as it is."""
    if isinstance(value, (Text, Names)):
        return value.render(language)
    if language is not None and not language.english and type(value) is int:
        return language.number(value)
    return value


def t(message: str, **values) -> Text:
    """A message to translate, its `{holes}` filled with `values`."""
    return Text(message, values)


def tn(singular: str, plural: str, count: int, **values) -> Text:
    """A message said one way for one and another for more (`{count}` is the number)."""
    return Text(singular, values, plural=plural, count=count)


def tc(context: str, message: str, **values) -> Text:
    """A message whose English alone is ambiguous; `context` tells translators which sense."""
    return Text(message, values, context=context)


def tnc(context: str, singular: str, plural: str, count: int, **values) -> Text:
    return Text(singular, values, plural=plural, count=count, context=context)


# Stored states (snapshots, history, campaigns) keep a Text as a small dict of its parts.
_TEXT, _NAMES = "$t", "$names"


def to_data(value):
    """`value` with every Text and Names in it made plain JSON data (dicts, lists, strings)."""
    kind = type(value)
    if kind is Text:
        data = {_TEXT: value.message}
        if value.values:
            data["v"] = {key: to_data(item) for key, item in value.values.items()}
        if value.plural is not None:
            data["pl"], data["n"] = value.plural, value.count
        if value.context:
            data["c"] = value.context
        return data
    if kind is Names:
        return {_NAMES: [to_data(item) for item in value.items]}
    if kind is dict:
        return {key: to_data(item) for key, item in value.items()}
    if kind is list or kind is tuple:
        return [to_data(item) for item in value]
    return value


# A stored message's holes are plain names: a format spec (`{x:>999999999}`) in data that came
# from outside would make filling it costly, so such a message is read as the plain text it is.
_PLAIN_HOLES = re.compile(r"(?:[^{}]|\{\w+\})*")


def _plain(message) -> bool:
    return isinstance(message, str) and _PLAIN_HOLES.fullmatch(message) is not None


def from_data(value):
    """The reverse of `to_data`: each Text and Names made again from its data."""
    kind = type(value)
    if kind is dict:
        if _TEXT in value and isinstance(value[_TEXT], str):
            if not _plain(value[_TEXT]) or not (value.get("pl") is None or _plain(value.get("pl"))):
                return value[_TEXT]
            values = value.get("v")
            values = {str(k): from_data(v) for k, v in values.items()} if isinstance(values, dict) else {}
            plural = value.get("pl") if isinstance(value.get("pl"), str) else None
            count = value.get("n") if isinstance(value.get("n"), int) else None
            context = value.get("c") if isinstance(value.get("c"), str) else None
            try:
                return Text(value[_TEXT], values, plural=plural, count=count, context=context)
            except (KeyError, IndexError, ValueError):  # hand-edited or damaged data
                return value[_TEXT]
        if _NAMES in value and isinstance(value[_NAMES], list) and len(value) == 1:
            return Names([from_data(item) for item in value[_NAMES]])
        return {key: from_data(item) for key, item in value.items()}
    if kind is list:
        return [from_data(item) for item in value]
    return value


def _from_object(value: dict):
    """`from_data` for one JSON object, as `json.loads` builds it (its values made already)."""
    if _TEXT in value or _NAMES in value:
        return from_data(value)
    return value


def loads(text: str):
    """A stored JSON document with its words made again: `from_data(json.loads(text))`, in
    one pass of the parser (a state is read at every move; walking it again cost more than
    parsing it)."""
    return json.loads(text, object_hook=_from_object)


def join_names(words) -> str:
    """Join names as 'Ana', 'Ana and Ben', 'Ana, Ben and Cara' ('nobody' for none)."""
    words = list(words)
    if not words:
        return t("nobody")
    return Names(words)


def plural(count: int, word: str, many: str | None = None) -> str:
    """Say '1 Flower' or '3 Flowers' ('many' for irregular plurals)."""
    return f"{count} {noun(count, word, many)}"


def noun(count: int, word: str, many: str | None = None) -> str:
    """The word alone, as `count` of it is said: 'win' for 1, 'wins' otherwise."""
    return word if count == 1 else many or word + "s"


def player_name(players: list[str], seat) -> str:
    """A seat's name for a log line; a seat out of range (an old or forged row) is 'Someone'."""
    if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(players):
        return players[seat]
    return t("Someone")


def as_int(value, fallback: int = 0) -> int:
    """A logged parameter as a number, for describing rows whatever they hold."""
    try:
        return int(value)
    except (TypeError, ValueError):
        return fallback
