"""Each phone in its own language: which one, its catalog, and rendering the games' words in it.

A phone's language is, in this order: `?lang=` on the request (the JSON API's way, and a
test's), the `forest_lang` cookie this phone set from a language menu, the browser's
Accept-Language, English. Nothing else at the table changes with it: each phone, each
pushed view and each JSON answer is rendered in its own.

The catalogs are gettext catalogs in `companion/translations/<code>/LC_MESSAGES/messages.po`
(`scripts/catalogs.sh` extracts, updates and compiles them with pybabel). A compiled `.mo`
newer than its `.po` is read as it is; otherwise Babel compiles the `.po` in memory, so a
checkout never shows a stale catalog. The pseudo-locale (`en_XA`, every message wrapped
and lengthened, for tests) is made from the template `messages.pot`; it is never offered.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import io
import itertools
import re
import secrets
import threading
from pathlib import Path

from babel import Locale
from babel.lists import format_list
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal
from babel.support import NullTranslations, Translations
from flask.globals import _cv_request
from flask.json.provider import DefaultJSONProvider
from flask import Blueprint, current_app, has_request_context, redirect, request
from flask_babel import Babel, Domain
from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup, escape

from ..games.words import Names, Text

CATALOGS = Path(__file__).resolve().parent.parent / "translations"
TEMPLATE = CATALOGS / "messages.pot"

# What a player can choose, in its own name.
LANGUAGES = {"en": "English", "de": "Deutsch", "fr": "Français", "es": "Español"}
PSEUDO = "en_XA"  # for tests only: not offered, reached with ?lang=en_XA or its cookie
COOKIE = "forest_lang"
COOKIE_SECONDS = 60 * 60 * 24 * 365
ENVIRON_KEY = "forest.language"  # a pushed view's language, from the stream that asked for it


def known(code) -> str | None:
    """The language `code` names (a player's or the pseudo-locale), or None."""
    if not isinstance(code, str):
        return None
    code = code.strip().replace("-", "_")
    if code == PSEUDO:
        return PSEUDO
    code = code.lower()[:2]
    return code if code in LANGUAGES else None


def current() -> str:
    """This request's language code (English outside a request). Asked several times per
    request, found once and kept in its environ; each source is read only when the request
    carries it (parsing every header of every request cost more than an action's rules).
    While a part is rendered for every language at once (`recorded`), there is none: asking
    raises LanguageNeeded (the part is then rendered in each language as usual)."""
    speaking = _speaking.get()
    if speaking is not None:
        return speaking
    if _recording.get() is not None:
        raise LanguageNeeded
    ctx = _cv_request.get(None)  # (not through the `request` proxy: asked a hundred times a view)
    if ctx is None:
        return "en"
    environ = ctx.request.environ
    found = environ.get(_FOUND)
    if found is None:
        found = known(environ.get(ENVIRON_KEY))
        if found is None and "lang=" in environ.get("QUERY_STRING", ""):
            found = known(_asked())
        if found is None and COOKIE in environ.get("HTTP_COOKIE", ""):
            found = known(request.cookies.get(COOKIE))
        if found is None and environ.get("HTTP_ACCEPT_LANGUAGE"):
            found = request.accept_languages.best_match(list(LANGUAGES), default=None)
        found = environ[_FOUND] = found or "en"
    return found


_FOUND = "forest.language.found"


def _asked():
    """`?lang=`, unless the query string is not even UTF-8 (then the request is refused, in
    the language the phone's cookie or browser names)."""
    try:
        return request.args.get("lang")
    except UnicodeDecodeError:
        return None


# The pseudo-locale's dates, durations and numbers are Babel's for Russian: a date or a
# number that skipped Babel (an English month, a hand-made "1,200") then shows among them.
PSEUDO_FORMATS = "ru"


def formatting_locale(code: str) -> str:
    """The Babel locale whose numbers, lists and dates a language uses."""
    return PSEUDO_FORMATS if code == PSEUDO else code


# --- catalogs ---------------------------------------------------------------------------

_lock = threading.Lock()
_translations: dict[str, NullTranslations] = {}
_languages: dict[str, "CatalogLanguage"] = {}


def translations(code: str) -> NullTranslations:
    """The catalog of a language, read once per process."""
    found = _translations.get(code)
    if found is None:
        with _lock:
            found = _translations.get(code)
            if found is None:
                found = _translations[code] = _load(code)
    return found


def _load(code: str) -> NullTranslations:
    if code == "en":
        return NullTranslations()  # the messages are English
    if code == PSEUDO:
        return _compiled(_pseudo_catalog())
    po = CATALOGS / code / "LC_MESSAGES" / "messages.po"
    mo = po.with_suffix(".mo")
    if mo.exists() and (not po.exists() or mo.stat().st_mtime >= po.stat().st_mtime):
        with mo.open("rb") as file:
            return Translations(file)
    if not po.exists():
        return NullTranslations()
    with po.open("rb") as file:
        return _compiled(read_po(file, locale=code))


def _compiled(catalog) -> Translations:
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return Translations(buffer)


def _pseudo_catalog():
    with TEMPLATE.open("rb") as file:
        catalog = read_po(file, locale="en")
    for message in catalog:
        if not message.id:
            continue
        if isinstance(message.id, tuple):
            message.string = tuple(pseudo(part) for part in message.id)
        else:
            message.string = pseudo(message.id)
    return catalog


# Left as they are: holes ({name}, %(name)s, %s), tags and character references.
_KEPT = re.compile(r"(\{[^{}]*\}|%\([^)]*\)[sd]|%[sd%]|<[^>]*>|&[#\w]+;)")
_ACCENTED = str.maketrans(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "àƀçđéƒĝĥîĵķĺɱñöþǫŕšţûṽŵẋýžÀƁÇĐÉƑĜĤÎĴĶĹṀÑÖÞǪŔŠŢÛṼŴẊÝŽ")


def pseudo(message: str) -> str:
    """`Stay or Return` as `[Šţàý öŕ Ŕéţûŕñ ··]`: every letter changed, a third longer
    (translations run longer than English), bracketed so a cut or a bare English word shows."""
    parts = _KEPT.split(message)
    changed = "".join(part if index % 2 else part.translate(_ACCENTED) for index, part in enumerate(parts))
    letters = sum(1 for part in parts[::2] for char in part if char.isalpha())
    return f"[{changed}{' ' + '·' * max(1, letters // 3) if letters else ''}]"


class CatalogLanguage:
    """A language as the games' words render in it (`words.Language`)."""

    def __init__(self, code: str):
        self.code = code
        self.english = code == "en"
        self.locale = Locale.parse(formatting_locale(code))
        self.catalog = translations(code)
        self._numbers: dict = {}

    def gettext(self, message):
        return _translated(self.catalog, message)

    def ngettext(self, singular, plural, count):
        return self.catalog.ungettext(singular, plural, count)

    def pgettext(self, context, message):
        return self.catalog.upgettext(context, message)

    def npgettext(self, context, singular, plural, count):
        return self.catalog.unpgettext(context, singular, plural, count)

    def names(self, items):
        if self.code == PSEUDO:
            return "[" + " · ".join(items) + "]"
        return format_list(items, locale=self.locale)

    def number(self, value):
        # Babel's formatting reads the locale's patterns each time (some 100 µs): the few
        # numbers of a game are kept once said.
        found = self._numbers.get(value)
        if found is None:
            if len(self._numbers) > 4096:
                self._numbers.clear()
            found = self._numbers[value] = format_decimal(value, locale=self.locale)
        return found


def language(code: str | None = None) -> CatalogLanguage:
    """The language `code` (this request's when None), made once per process."""
    code = code or current()
    found = _languages.get(code)
    if found is None:
        found = _languages[code] = CatalogLanguage(code)
    return found


# --- one render for every language -------------------------------------------------------
# A shared part (`shared_parts`) is the same on every phone of a table but for its words. At a
# table in three languages, rendering it three times was most of what a move cost, so it can
# be rendered once with a mark in place of each thing said in a language (every call of a
# `deferred` function), the calls kept; each language then only makes those calls again in
# it and puts their HTML in the marks (`spoken_in`), a small part of a render. Anything else
# that asks for the language during such a render (`current`) stops it: that part is then
# rendered in each language as before.

class LanguageNeeded(RuntimeError):
    """The language was asked for while a part was rendered for every language at once."""


_recording: contextvars.ContextVar[list | None] = contextvars.ContextVar("forest_recording", default=None)
_speaking: contextvars.ContextVar[str | None] = contextvars.ContextVar("forest_speaking", default=None)
_SAID = f"\x00said-{secrets.token_hex(4)}-"  # a mark: this, a call's number, then \x00
_SAID_MARK = re.compile(re.escape(_SAID) + r"(\d+)\x00")


def deferred(function):
    """`function`, whose answer is said in the phone's language and put into HTML as text
    (escaped unless it is markup): called as it is, except while a part is rendered for
    every language at once (`recorded`), when the call is kept and a mark stands in for it."""
    @functools.wraps(function)
    def kept_or_called(*args, **kwargs):
        calls = _recording.get()
        if calls is None:
            return function(*args, **kwargs)
        # Most calls are a template's gettext of a plain message: keyed here at once, by the
        # message alone (`call_keys` then builds and hashes no tuple for them).
        key = (_plain_key(function, args[0], args[1]) if not kwargs and len(args) == 2
               and type(args[1]) is str and type(args[0]) is Context else None)
        calls.append((function, args, kwargs))
        calls.keys.append(key)
        return _mark(len(calls) - 1)
    return kept_or_called


def _mark(number: int) -> Markup:
    """The mark of a recording's call `number`, made once per process: a part holds a
    hundred of them and makes them again at every version."""
    try:
        return _MARKS[number]
    except IndexError:
        with _lock:  # (threads extending it at once would put marks out of their places)
            _MARKS.extend([Markup(f"{_SAID}{index}\x00") for index in range(len(_MARKS), 2 * number + 64)])
        return _MARKS[number]


_MARKS: list[Markup] = []


class _Calls(list):
    """A recording's calls, with the key of each found as it was kept (None: not yet)."""

    __slots__ = ("keys",)

    def __init__(self):
        super().__init__()
        self.keys: list = []


def _plain_key(function, context, message: str):
    """The key of a template's gettext call of a plain message, by the message alone (all
    such a call reads of its context is whether it escapes), or None for a message holding
    a mark (keyed by the call it stands for, in `call_keys`)."""
    autoescape = context.eval_ctx.autoescape
    by_message = _plain_keys.setdefault((function, autoescape), {})
    number = by_message.get(message)
    if number is None:
        if _SAID in message:
            return None
        if len(by_message) > 4 * KEPT_CALLS:
            by_message.clear()
        number = by_message[message] = _number_of((function, (_CONTEXT_KEYS[autoescape], message)))
    return number


def recorded(render, strict: bool = False):
    """`render()` with every deferred call kept and marked: (its text, the calls), or None
    when something in it asked for the language itself (`strict`: LanguageNeeded raised)."""
    calls = _Calls()
    token = _recording.set(calls)
    try:
        return render(), calls
    except LanguageNeeded:
        if strict:
            raise
        return None
    finally:
        _recording.reset(token)


def spoken_in(code: str, text: str, calls: list, keys: list | None = None) -> str:
    """A `recorded` text in language `code`: each call made again in it (`said_in`), its HTML
    put in its mark."""
    if not calls:
        return text
    said = said_in(code, calls, keys)
    return _SAID_MARK.sub(lambda found: said[int(found.group(1))], text)


def said_in(code: str, calls: list, keys: list | None = None) -> list[str]:
    """What each of a `recorded` text's calls says in language `code`, as HTML, in order (a
    call's arguments may hold marks of calls before it). Most calls come back at every
    version (the same label, the same name), so each language keeps what its calls said, by
    the calls' `keys` (`call_keys`, found once for every language)."""
    said: list[str] = []
    kept = _said_before.setdefault(code, {})
    if len(kept) > KEPT_CALLS:
        kept.clear()

    def said_for(found):
        return said[int(found.group(1))]

    def filled(value):
        if isinstance(value, str) and _SAID in value:
            text = _SAID_MARK.sub(said_for, value)
            return Markup(text) if isinstance(value, Markup) else text
        return value

    with speaking(code):
        for index, (function, args, kwargs) in enumerate(calls):
            key = keys[index] if keys is not None else None
            answer = kept.get(key) if key is not None else None
            if answer is None:
                answer = str(escape(function(*[filled(arg) for arg in args],
                                             **{name: filled(value) for name, value in kwargs.items()})))
                if key is not None:
                    kept[key] = answer
            said.append(answer)
    return said


def said_before(code: str, keys: list) -> list[str] | None:
    """What the calls of these keys (`call_keys`) said in language `code`, in order, when
    every one of them was said in it before (`said_in` keeps them), else None."""
    kept = _said_before.get(code)
    if kept is None:
        return None
    said = list(map(kept.get, keys))
    return None if None in said else said


@contextlib.contextmanager
def speaking(code: str):
    """Everything said inside in language `code`, whatever the request's."""
    token = _speaking.set(code)
    try:
        yield
    finally:
        _speaking.reset(token)


def marks_of(text: str) -> tuple[list[str], list[int]]:
    """A `recorded` text as the texts between its marks (one more than the marks) and the
    number of the call each mark stands for, in order."""
    pieces = _SAID_MARK.split(text)
    return pieces[0::2], [int(number) for number in pieces[1::2]]


def fresh_key() -> int:
    """A number no call's key is given (`call_keys`): for a call that has no key."""
    return next(_numbers)


_said_before: dict[str, dict] = {}
KEPT_CALLS = 20000  # per language: the calls of the parts of the tables playing now


class _Unkeyed(Exception):
    pass


def call_keys(calls: list) -> list:
    """What tells each recorded call apart for what it says, whatever the part or version:
    its function and its arguments, each with its kind (markup is not text: one is escaped,
    the other not), a Text by its message and sense too, and a mark by the key of the call
    it stands for. None for a call with an argument of another kind (made again each time)."""
    keys: list = []

    def marked(kind, value):
        pieces = _SAID_MARK.split(value)  # text, a call's number, text, ...
        for place in range(1, len(pieces), 2):
            pieces[place] = keys[int(pieces[place])]
            if pieces[place] is None:
                raise _Unkeyed
        return (kind, tuple(pieces))

    # (Kinds in the order they come most: a template's gettext's context and message first.
    # A text stands as itself, every other kind as a tuple: no two kinds' keys meet.)
    def value_key(value):
        kind = type(value)
        if kind is Context:
            return _CONTEXT_KEYS[value.eval_ctx.autoescape]  # all a template's gettext reads of it
        if kind is str:
            return value if _SAID not in value else marked(kind, value)
        if kind is Text:
            return (kind, str.__str__(value), value.message, value.context, value.plural)
        if kind is Markup:
            return (kind, value) if _SAID not in value else marked(kind, value)
        if kind is Names:
            return (kind, tuple(value.items))
        if kind in (int, float, bool) or value is None:
            return (kind, value)
        if isinstance(value, Context):
            return _CONTEXT_KEYS[value.eval_ctx.autoescape]
        raise _Unkeyed

    known = getattr(calls, "keys", None)
    if known is None or len(known) != len(calls):
        known = [None] * len(calls)  # (keyed here, all of them)
    for (function, args, kwargs), number in zip(calls, known):
        if number is not None:  # (keyed as it was recorded)
            keys.append(number)
            continue
        if not kwargs and len(args) == 2 and type(args[0]) is Context and type(args[1]) is str \
                and _SAID not in args[1]:
            # (a template's gettext of a plain message, kept without its key: the key value_key gives)
            keys.append(_plain_key(function, args[0], args[1]))
            continue
        try:
            if kwargs:
                key = (function, tuple(map(value_key, args)),
                       tuple((name, value_key(value)) for name, value in kwargs.items()))
            else:
                key = (function, tuple(map(value_key, args)))
        except _Unkeyed:
            keys.append(None)
            continue
        keys.append(_number_of(key))
    return keys


def _number_of(key) -> int:
    """A call's key as a number, found once: each language then looks up a number, not a
    nested tuple hashed again. A number is never given twice, so one kept by a part made
    before a clearing still means what it meant."""
    number = _numbered.get(key)
    if number is None:
        if len(_numbered) > 4 * KEPT_CALLS:
            _numbered.clear()
        number = _numbered[key] = next(_numbers)  # (one step of a count: atomic)
    return number


_numbered: dict = {}
_plain_keys: dict = {}  # (function, autoescape) -> {message: its call's number}
_numbers = itertools.count(1)
_CONTEXT_KEYS = {True: (Context, True), False: (Context, False)}


@deferred
def language_marker(code: str) -> Markup:
    """` aria-current="true"` on the language menu's button of the page's language."""
    return Markup(' aria-current="true"') if code == current() else Markup("")


# --- rendering --------------------------------------------------------------------------

def say(value, code: str | None = None):
    """A Text or Names in this request's language (anything else as it is)."""
    if isinstance(value, (Text, Names)):
        return value.render(language(code))
    return value


def localized(value, code: str | None = None):
    """`value` (a JSON answer) with every Text and Names in it said in the request's language."""
    code = code or current()
    if code == "en":
        return value  # a Text is its English
    return _walk(value, language(code))


def _walk(value, lang):
    if isinstance(value, (Text, Names)):
        return value.render(lang)
    kind = type(value)
    if kind is dict:
        return {key: _walk(item, lang) for key, item in value.items()}
    if kind is list or kind is tuple:
        return [_walk(item, lang) for item in value]
    return value


def _finalize(value):
    """Every `{{ ... }}` of a template: a game's Text said in the page's language."""
    if type(value) is Text or type(value) is Names:
        return say_in_template(value)
    return value


# `say` as templates use it: in a part rendered for every language, a mark.
say_in_template = deferred(say)


class LocalizedJSON(DefaultJSONProvider):
    """Every JSON answer in the language of the request (`?lang=`, cookie, Accept-Language);
    keys and ids are never Text, so they stay English."""

    def dumps(self, obj, **kwargs):
        return super().dumps(localized(obj), **kwargs)


class PhoneDomain(Domain):
    """Flask-Babel's domain, its catalog chosen by the phone's language (the pseudo-locale
    included, which has no Babel locale of its own)."""

    def get_translations(self):
        return translations(current()) if has_request_context() else NullTranslations()


# The templates' gettext. Flask-Babel's goes through its context and domain look-ups on every
# call, some 80 µs each: a table view says some fifty messages, for every phone at every
# move, which doubled what a move cost. These find the phone's catalog once per request
# (`current`) and skip the catalog entirely for English. As Jinja's new-style gettext, a
# message is a %-format (`%(name)s`), its values escaped; one with no values is formatted
# only when it holds a '%' ('%%' is a percent sign either way).
def _catalog_or_none():
    code = current()
    return None if code == "en" else translations(code)


def _translated(catalog, message: str) -> str:
    """`catalog.ugettext(message)`, most often straight from the catalog's own table (a
    compiled catalog holds only translated messages; anything else goes the long way)."""
    return getattr(catalog, "_catalog", _NO_TABLE).get(message) or catalog.ugettext(message)


_NO_TABLE: dict = {}


def _formatted(context, text, values):
    if not context.eval_ctx.autoescape:
        return text % values if values or "%" in text else text
    if not values:
        return Markup(text % values if "%" in text else text)
    # Each value escaped here, numbers left as numbers for %d: what Markup's own % does,
    # at a third of its cost (it wraps every value in a helper object first).
    return Markup(text % {key: value if type(value) in (int, float) else escape(value)
                          for key, value in values.items()})


@pass_context
@deferred
def _gettext(context, message, **values):
    catalog = _catalog_or_none()
    return _formatted(context, _translated(catalog, message) if catalog else message, values)


@pass_context
@deferred
def _ngettext(context, singular, plural, num, **values):
    values.setdefault("num", num)
    catalog = _catalog_or_none()
    text = catalog.ungettext(singular, plural, num) if catalog else (singular if num == 1 else plural)
    return _formatted(context, text, values)


@pass_context
@deferred
def _pgettext(context, message_context, message, **values):
    catalog = _catalog_or_none()
    return _formatted(context, catalog.upgettext(message_context, message) if catalog else message, values)


@pass_context
@deferred
def _npgettext(context, message_context, singular, plural, num, **values):
    values.setdefault("num", num)
    catalog = _catalog_or_none()
    text = (catalog.unpgettext(message_context, singular, plural, num) if catalog
            else (singular if num == 1 else plural))
    return _formatted(context, text, values)


def init_app(app) -> None:
    babel = Babel(app, locale_selector=lambda: formatting_locale(current()))
    babel.domain_instance = PhoneDomain()
    app.json = LocalizedJSON(app)
    app.jinja_env.finalize = _finalize
    # (after Flask-Babel's own, which these replace; `_` is gettext's alias)
    app.jinja_env.globals.update(gettext=_gettext, _=_gettext, ngettext=_ngettext,
                                 pgettext=_pgettext, npgettext=_npgettext)
    app.jinja_env.globals.update(languages=LANGUAGES, current_language=current,
                                 language_marker=language_marker)
    app.jinja_env.filters["say"] = say_in_template
    app.register_blueprint(bp)

    @app.after_request
    def _vary(response):
        if response.mimetype in ("text/html", "application/json", "text/event-stream"):
            response.vary.add("Accept-Language")
            response.vary.add("Cookie")
        return response


def set_language(response, code: str):
    """Keep `code` in this phone's cookie (for this phone only)."""
    response.set_cookie(COOKIE, code, max_age=COOKIE_SECONDS, samesite="Lax",
                        secure=current_app.config.get("SESSION_COOKIE_SECURE", False), httponly=True)
    return response


bp = Blueprint("language", __name__)


@bp.post("/language")
def choose():
    """A language menu's choice: kept for this phone, then back to the page it was on."""
    back = request.form.get("next") or "/"
    if not back.startswith("/") or back.startswith("//") or "\\" in back or len(back) > 300:
        back = "/"
    response = redirect(back, code=303)
    code = known(request.form.get("lang"))
    if code:
        set_language(response, code)
    return response
