"""The action forms of a table view, built in Python.

A view has thirty to fifty of them (every stepper is two), and as Jinja macros with a
`caller` each cost several macro calls: they were half of a view's render time. The
templates call them as `ui.form`, `ui.button` and `ui.stepper` (the global `ui`, `UI` below),
with the same arguments and the same markup.
"""

from __future__ import annotations

import re
from functools import lru_cache
from types import SimpleNamespace

from flask import url_for
from jinja2 import pass_context
from markupsafe import Markup, escape

from ..games.words import Names, Text, join_names, t
from . import i18n, templating


@lru_cache(maxsize=4096, typed=True)  # typed: True must not come back as "1"
def _escaped(value) -> str:
    return str(escape(value))


def _said(value):
    """A game's words (Text, Names) as this phone reads them; anything else as it is."""
    return i18n.say_in_template(value) if isinstance(value, (Text, Names)) else value


def _text(value) -> str:
    """A value escaped for HTML. The same few (action names, classes, seat numbers, the
    version) come back in every form of every view, so each is escaped once. A game's words
    are said in the phone's language first."""
    if isinstance(value, (Text, Names)):
        value = i18n.say_in_template(value)  # (a mark, markup, in a part rendered for every language)
    if isinstance(value, Markup):
        return str(value)  # HTML already (a template's message, its values escaped there)
    try:
        return _escaped(value)
    except TypeError:  # unhashable
        return str(escape(value))


def _opening(context, action, seat, cls, label) -> str:
    """The <form> tag and its hidden fields: the action, the request id (a retried tap is
    recognised by it) and the seat it acts for. The version this phone saw is the view's
    own (`data-version`): the page sends it with the form (static/app.js), so a form is the
    same text from one version to the next and a pushed change leaves it out."""
    url = _text(context.get("act_url") or url_for("pages.act", code=context["table"].code))
    aria = f' aria-label="{_text(label)}"' if label else ""
    seat_field = "" if seat is None else f'<input type="hidden" name="seat" value="{_text(seat)}">'
    # The request id is left empty: the page gives the form its own when it is tapped
    # (static/app.js), so two phones never send the same one and a form stays the same text.
    return (f'<form method="post" action="{url}" hx-post="{url}" hx-target="#view" hx-sync="this:drop" '
            f'class="act {_text(cls)}"{aria}>'
            f'<input type="hidden" name="action" value="{_text(action)}">'
            f'<input type="hidden" name="rid" value="">{seat_field}')


def _fields(fields: dict) -> str:
    return "".join(f'<input type="hidden" name="{_text(k)}" value="{_text(v)}">'
                   for k, v in fields.items())


@pass_context
def act_form(context, action, seat=None, cls="", label=None, caller=None):
    """One post per action, answered with the fresh view swapped into #view. hx-sync on
    the form itself: a form already on its way is not sent again, and a live refresh of
    the view does not abort it. The body is the `{% call %}` block."""
    body = caller() if caller is not None else ""
    return Markup(f"{_opening(context, action, seat, cls, label)}{body}</form>")


_NOT_WORDS = re.compile(r"[^\w\s]|_")


def _plain(text) -> str:
    """A button's words as a browser reads them out of its markup: tags dropped, entities
    read, spaces as written (text beside a tag joins it)."""
    return (text if isinstance(text, Markup) else escape(text)).striptags()


def _words(text: str) -> str:
    """Text as a listener compares it: no symbols, punctuation or case."""
    return " ".join(_NOT_WORDS.sub("", text).lower().split())


_SMALL_AFTER_WORD = re.compile(r"(?<=\S)<small>")


def _spaced(text):
    """A space before a button's note (<small>): the button shows it on a line of its own
    either way, and its words are then read apart ("Threat +1 Combat skill")."""
    if isinstance(text, Markup):
        return Markup(_SMALL_AFTER_WORD.sub(" <small>", str(text)))
    return text


def spoken_name(label, visible) -> str | None:
    """A button's accessible name: its `label`, with the words on the button after it when the
    label leaves them out, so a player who says what they see (voice control) names it."""
    if not label:
        return None
    return _spoken_name(label, visible)


@i18n.deferred
def _spoken_name(label, visible) -> str:
    label, visible = _said(label), _said(visible)
    if isinstance(label, Markup):  # a template's message: its words, escaped once by the caller
        label = label.unescape()
    shown = _plain(visible)
    # Whole words: "Boost" is not in "Ana boosts" for a listener.
    if not _words(shown) or f" {_words(shown)} " in f" {_words(label)} ":
        return label
    return i18n.say(t("{label}: {detail}", label=label, detail=shown))


@pass_context
def act_button(context, action, text, seat=None, cls="btn", fields=None, label=None):
    """A form of one button, with `fields` as hidden inputs."""
    text = _spaced(_said(text))
    label = spoken_name(label, text)
    aria = f' aria-label="{_text(label)}"' if label else ""
    return Markup(f'{_opening(context, action, seat, "inline", None)}{_fields(fields or {})}'
                  f'<button class="{_text(cls)}" type="submit"{aria}>{_text(text)}</button></form>')


@i18n.deferred
def _caption(message, said):
    # The message's own words escaped once, the label as it came: a template's label is
    # markup already (its player's name escaped there), plain text is escaped here.
    return escape(i18n.say(message)).format(label=said)


@pass_context
def act_stepper(context, action, value, name, low, high, fields=None, label="", unit=""):
    """A number with − and + beside it, each its own form posting value ∓ 1."""
    hidden = _fields(fields or {})
    said = _said(label)

    def step(new_value, disabled, sign, words):
        return (f'{_opening(context, action, None, "inline", None)}{hidden}'
                f'<button class="btn step" name="{_text(name)}" value="{_text(new_value)}"'
                f'{" disabled" if disabled else ""} aria-label="{words}">{sign}</button></form>')

    minus = _caption(t("{label} minus one", label="{label}"), said)
    plus = _caption(t("{label} plus one", label="{label}"), said)
    return Markup(f'<div class="stepper" role="group" aria-label="{_text(said)}">'
                  f'{step(value - 1, value <= low, "−", minus)}'
                  f'<span class="step-value" aria-live="polite">{_text(value)}{_text(unit)}</span>'
                  f'{step(value + 1, value >= high, "+", plus)}</div>')


@pass_context
def big_button(context, action, icon, text, note="", cls="btn big primary", fields=None, label=None):
    """A form of one button for the phone's actor: an icon and words, a note under them
    (The Mysterious Forest's next steps, for small hands)."""
    text, note = _said(text), _said(note)
    label = spoken_name(label, f"{text} {note}")
    aria = f' aria-label="{_text(label)}"' if label else ""
    small = f" <small>{_text(note)}</small>" if note else ""
    return Markup(f'{_opening(context, action, context.get("actor"), "inline", None)}{_fields(fields or {})}'
                  f'<button class="{_text(cls)} mf-btn" type="submit"{aria}><span class="mf-btn-text">'
                  f'<span aria-hidden="true">{_text(icon)}</span> {_text(text)}</span>{small}</button></form>')


@lru_cache(maxsize=16)
def number_options(count: int) -> Markup:
    """`<option>0</option>` to `<option>{count - 1}</option>`: the same in every view, made once."""
    return Markup("".join(f"<option>{n}</option>" for n in range(count)))


REMATCH = t("Rematch")
REMATCH_NOTE = t("same players, new table")


@pass_context
def rematch_button(context, text=REMATCH, note=REMATCH_NOTE, cls="btn primary"):
    """A new table with the same players and options, for a board's own "Play again". Once
    a phone made it, every phone is offered its own seat there instead (following.offer)."""
    if context.get("next_table"):
        return Markup("")  # made already: the top of the view offers it (next_table_button)
    url = _text(templating.url_for("history.table_rematch", code=context["table"].code))
    small = f"<small>{_text(note)}</small>" if note else ""
    return Markup(f'<form method="post" action="{url}" class="inline">'
                  f'<button class="{_text(cls)}" type="submit">{_text(text)}{small}</button></form>')


@pass_context
def next_table_button(context, cls="btn big primary") -> Markup:
    """"Join the rematch as Ben" (one tap takes the seats kept for this phone), or the way
    to the next table for a phone already there or with no seat kept."""
    offer = context.get("next_table")
    if not offer:
        return Markup("")
    chapter, code = offer["chapter"], offer["code"]
    if offer["names"]:
        names = join_names(offer["names"])
        if chapter:
            caption = t("Go on to chapter {chapter} as {names}", chapter=chapter, names=names)
        else:
            caption = t("Join the rematch as {names}", names=names)
        kept = t("your seat is kept · table {code}", code=code)
        return Markup(f'<form method="post" action="{_text(offer["url"])}" class="inline">'
                      f'<button class="{_text(cls)} next-table" type="submit">{_text(caption)}'
                      f'<small>{_text(kept)}</small></button></form>')
    go = t("Go to chapter {chapter}", chapter=chapter) if chapter else t("Go to the rematch")
    if offer["seated"]:
        there = t("table {code}", code=code)
        return Markup(f'<a class="{_text(cls)} next-table" href="{_text(offer["table_url"])}">{_text(go)}'
                      f'<small>{_text(there)}</small></a>')
    there = t("table {code}: take a seat or watch", code=code)
    return Markup(f'<a class="{_text(cls)} next-table" href="{_text(offer["join_url"])}">{_text(go)}'
                  f'<small>{_text(there)}</small></a>')


def panel(id, label, cls="", caller=None):
    """A section one tap away: a full-width summary that looks like a control; the id lets
    a refresh keep it open. The body is the `{% call %}` block."""
    body = caller() if caller is not None else ""
    return Markup(f'<details class="panel {_text(cls)}" id="{_text(id)}"><summary><span>{_text(label)}</span>'
                  f'</summary><div class="panel-body">{body}</div></details>')


# What the table templates call as `ui.form`, `ui.button`, `ui.big_button`, `ui.stepper`,
# `ui.panel`, `ui.rematch_button` and `ui.next_table`: a global, where importing a macro file with the context
# into each view and shared part cost a module built at every render.
UI = SimpleNamespace(form=act_form, button=act_button, big_button=big_button, stepper=act_stepper,
                     panel=panel, rematch_button=rematch_button, next_table=next_table_button)
