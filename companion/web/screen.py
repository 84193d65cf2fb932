"""The table screen: one read-only, landscape view of a table for a TV, a laptop or a tablet
that everyone at the table sees, beside the private phones.

It holds no seat and sends nothing: it is made from exactly what a phone with no seat may
read, the game's public view (`game.view(state, None)`, the one every phone's view is built
from), the public clock and the public table row, never from a seat's own view. It follows
its table live over the table's own stream (`GET /t/<code>/events`, which carries only
version numbers when no view is asked for) and fetches its view at each change.

`/screen` is the address the start command prints for the host's laptop or TV: it shows
the newest table and moves on by itself to a newer one, a rematch or the next chapter.
"""

from __future__ import annotations

import time

from flask import Blueprint, Response, current_app, jsonify, render_template, url_for
from flask_babel import gettext
from markupsafe import Markup

from .. import store, tables, timers
from ..db import get_db
from ..games import get_game
from . import i18n, table_reads, templating, voice

bp = Blueprint("screen", __name__)


# The voice a browser is asked for, per language: a regional one where the language has a
# usual one (a German text read by an English voice is hard to follow); English any.
SPEECH_LANGUAGES = {"de": "de-DE", "fr": "fr-FR", "es": "es-ES"}


@bp.app_template_global("speech_language")
def speech_language(code: str | None = None) -> str:
    """The BCP 47 tag a spoken line of this page is said in (`SpeechSynthesisUtterance.lang`)."""
    code = code or i18n.current()
    return SPEECH_LANGUAGES.get(code, "en")


@bp.app_template_global("speak")
def speak_button(text: str | None = None) -> Markup:
    """A speaker button beside an instruction: a tap reads it aloud (static/voice.js, loaded
    at the first tap), for a child who does not read yet, in the page's language. `text`:
    what to read, when it is not the text around the button. Built here, not in a macro
    (see test_render_speed)."""
    said = Markup(' data-speak-text="{}"').format(i18n.say(text)) if text else ""
    return Markup('<button type="button" class="speak" data-speak data-voice-src="{}"{} '
                  'data-speech-lang="{}" aria-label="{}"></button>').format(
        templating.url_for("static", filename="voice.js"), said, speech_language(),
        gettext("Read it aloud"))

# A table the `/screen` address may show: one moved within this many seconds (an evening's
# games), so a screen opened the next day does not show last night's table.
LIVE_SECONDS = 12 * 3600


def _enraged_levels(game, view: dict) -> list[int]:
    """The threat levels at which an Enraged Boss does something (Explorers only)."""
    boss = view.get("boss") or {}
    marks = getattr(game, "ENRAGED_BOSS_AT", None)
    if not view.get("enraged_bosses") or not boss.get("key") or not marks:
        return []
    return sorted(level for key, level in marks if key == boss["key"])


def screen_context(code: str) -> dict:
    """What the screen shows of table `code`: the public view and nothing a seat owns."""
    from .pages import ending_sentence, join_url  # pages imports much; only its helpers here

    reads = table_reads.cache_of(current_app).get(get_db(), code)
    table = reads.table
    game = get_game(table.game)
    view = reads.public_view(game)
    ending = ending_sentence(game, table.snapshot)
    following = tables.following(get_db(), table)
    return {
        "table": table,
        "game": game,
        "v": view,
        "clock": timers.view(table.snapshot.get("_clock"), time.time()),
        "ending": ending,
        # Said in the page's language (a screen's view is fetched with its page's `?lang=`).
        "lines": voice.lines(game.ID, view, ending, say_in=i18n.say),
        "next_code": following.code if following is not None else "",
        "enraged_levels": _enraged_levels(game, view),
        "join_url": join_url(table.code),
        "time_up_text": voice.say("time_up"),
    }


def _no_store(response: Response) -> Response:
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/t/<code>/screen")
def table_screen(code):
    table = tables.load(get_db(), code)
    context = screen_context(table.code)
    return _no_store(Response(render_template("screen/page.html", follow=False, **context)))


@bp.get("/t/<code>/screen/view")
def screen_view(code):
    """The screen's live part, fetched at every change of the table."""
    table = tables.load(get_db(), code)
    context = screen_context(table.code)
    return _no_store(Response(render_template("screen/_view.html", **context)))


@bp.get("/t/<code>/screen/say")
def screen_say(code):
    """The lines of the table's current moment, for a phone whose voice is on."""
    table = tables.load(get_db(), code)
    context = screen_context(table.code)
    return _no_store(jsonify({"version": table.version, "lines": context["lines"],
                              "lang": speech_language()}))


def newest_code() -> str | None:
    """The table created last among those that moved lately and have not moved on to a
    rematch or a next chapter (the screen follows those itself)."""
    return store.newest_live_code(get_db(), time.time() - LIVE_SECONDS)


@bp.get("/screen")
def newest_screen():
    """The host's screen for the evening: the newest table, followed from game to game."""
    code = newest_code()
    if code is None:
        return _no_store(Response(render_template("screen/page.html", follow=True, table=None)))
    context = screen_context(code)
    return _no_store(Response(render_template("screen/page.html", follow=True, **context)))


@bp.get("/screen/now")
def newest_now():
    code = newest_code()
    return _no_store(jsonify({"code": code or "",
                              "url": url_for("screen.screen_view", code=code) if code else ""}))
