"""Pages and htmx partials. The same template renders the whole page or one block."""

from __future__ import annotations

import hashlib
import io
import json
import time

import qrcode
import qrcode.image.svg
from flask import (Blueprint, Response, abort, current_app, flash, get_flashed_messages,
                   redirect, render_template, request, url_for)
from flask.ctx import RequestContext
from jinja2_fragments.flask import render_block

from .. import live, tables, timers
from ..hubs import live_hub
from ..db import get_db
from ..games import GAMES, get_game
from ..games.words import join_names, noun, plural, t
from . import assets, compression, following, forms, i18n, phone, shared_parts, table_reads, templating, view_delta

bp = Blueprint("pages", __name__)
# The templates call the first three as ui.form, ui.button and ui.stepper (forms.UI).
for _helper in (forms.act_form, forms.act_button, forms.act_stepper, forms.number_options):
    bp.add_app_template_global(_helper)
bp.add_app_template_global(forms.UI, "ui")
# The countdown's words for a game's timed step ("turn", "card", ...), each a whole message.
bp.add_app_template_global(timers.setup_label, "timer_setup_label")
bp.add_app_template_global(timers.each_step, "timer_each_step")
bp.add_app_template_global(timers.seconds_each, "timer_seconds_each")

ACTION_FIELDS = {"action", "version", "rid", "seat", "as"}
LOG_LINES = 6  # the last moves in the More sheet


def _int_arg(raw):
    if raw is None or raw == "":
        return None
    try:
        return int(raw)
    except (TypeError, ValueError):
        return None


def view_context(reads, held, as_seat=None, notice=None, notice_kind="error", just_chose=False,
                 pieces=None):
    """Everything the table templates need, with the game's view for this phone's seat;
    `reads`: the table as every phone's view reads it at this version (table_reads).

    A phone passed around (several seats) shows a seat's own secret pick only in the answer
    to that seat's own pick; opened again later, the private screen never shows it, so the
    next person holding the phone cannot look it up."""
    table, newest = reads.table, reads.newest
    game = get_game(table.game)
    private = as_seat is not None and as_seat in held and len(held) > 1
    if private:
        viewer = as_seat
    elif len(held) == 1:
        viewer = held[0]
    else:
        # A phone holding several seats shows only what everyone may see, until it is
        # handed to one player for a private screen.
        viewer = None
    conn = get_db()
    act_url = templating.url_for("pages.act", code=table.code)
    clock = timers.view(table.snapshot.get("_clock"), time.time())

    def public_extras():
        # What the shared parts read besides the public view: the public log and the clock's
        # setting (not its running figures, which move with the time, not the version).
        return {"log": tables.log_lines(conn, table, limit=LOG_LINES, newest=newest),
                "clock": {"mode": clock["mode"], "seconds": clock.get("seconds", ""),
                          "stamp": clock["stamp"]},
                "timer_presets": timers.SECONDS_PRESETS}

    return {
        "table": table,
        "game": game,
        "v": reads.view_for(game, viewer),
        "clock": clock,
        "held": held,
        "viewer": viewer,
        "actor": viewer if viewer is not None else (held[0] if held else None),
        "private": private,
        "show_choice": len(held) == 1 or (private and just_chose),
        "seats": tables.seat_list(conn, table, held, rows=reads.seat_rows),
        "undo": tables.undo_preview(conn, table, held, newest=newest),
        "ending": ending_sentence(game, table.snapshot),
        "notice": notice,
        "notice_kind": notice_kind,
        "is_host": tables.is_host(table, phone.host_token(table.code)),
        "next_table": following.offer(table),
        "act_url": act_url,
        "shared_part": shared_parts.PartRenderer(table, game, seated=bool(held), act_url=act_url,
                                             private_actor=as_seat if private else None,
                                             pieces=pieces, extras=public_extras,
                                             public=lambda: reads.public_view(game)),
    }


def ending_sentence(game, state: dict) -> str | None:
    """Who won and why, once the game is over: the game's own summary, the same sentence
    the history and the export keep."""
    outcome = getattr(game, "outcome", None)
    result = outcome(state) if outcome else None
    return result.get("summary") if result else None


def _context_for_phone(code, pieces=None, **options):
    # The table, its seats and newest moves as every phone's view reads them at this version.
    reads = table_reads.cache_of(current_app).get(get_db(), code)
    held = tables.seats_held(get_db(), reads.table, phone.tokens(reads.table.code), rows=reads.seat_rows)
    return view_context(reads, held, pieces=pieces, **options)


def render_view(code, notice=None, notice_kind="error", as_seat=None, just_chose=False):
    """The live region: the block alone for htmx, the whole page otherwise.

    To htmx the notice goes as a toast (an event for app.js), not into the view: it shows
    where the finger is, whatever part of the page is on the screen."""
    # A fragment going out gzipped is put together from its parts, each shared one compressed
    # once for every phone, instead of compressing the whole view again for each.
    pieces = [] if request.htmx and compression.takes_gzip_only(request) else None
    ctx = _context_for_phone(code, pieces, as_seat=as_seat, just_chose=just_chose,
                             notice=None if request.htmx else notice, notice_kind=notice_kind)
    if request.htmx:
        html = render_block("table/page.html", "view", **ctx)
        ctx["shared_part"].share()
        if pieces is None:
            # One line, as the view a stream pushes and the parts in it.
            response = Response(shared_parts.one_line_kept(html))
        else:
            response = Response(compression.gzip_body(shared_parts.view_items(html, pieces)),
                                mimetype="text/html")
            response.headers["Content-Encoding"] = "gzip"
            response.headers["Vary"] = "Accept-Encoding"
        if notice:
            _toast(response, notice, notice_kind)
    else:
        # One line too: the first view pushed or answered after it then differs from it only
        # where the table moved on (not in every blank between two tags), and morphs little.
        response = compression.whole_page(shared_parts.one_line_kept(render_template("table/page.html", **ctx)),
                                          request)
        ctx["shared_part"].share()
    response.headers["Vary"] = ", ".join(filter(None, ("HX-Request, Cookie", response.headers.get("Vary"))))
    response.headers["Cache-Control"] = "no-store"
    return response


def _toast(response, message, kind="error"):
    response.headers["HX-Trigger"] = json.dumps({"forest-notice": {"message": i18n.say(message), "kind": kind}})
    return response


def _refuse_in_place(message):
    """A refused tap: nothing on the screen changes (a form keeps what was entered), and the
    reason shows as a toast. htmx swaps no 4xx answer, so this is a 200 with no swap."""
    response = Response(i18n.say(message), mimetype="text/plain")
    response.headers["HX-Reswap"] = "none"
    response.headers["Cache-Control"] = "no-store"
    return _toast(response, message)


@bp.get("/")
def home():
    return render_template("home.html", games=list(GAMES.values()), my_tables=_my_tables(),
                           records=_records(GAMES.values()))


def _records(games) -> dict:
    """Results kept across tables, for the games that keep a record of finished games."""
    return {game.ID: game.record(tables.store.finished_snapshots(get_db(), game.ID))
            for game in games if hasattr(game, "record")}


def _my_tables():
    conn = get_db()
    found = []
    seats = phone._bucket("seats")
    for code in reversed(list(seats)):
        table = tables.store.get_table(conn, code)
        if table is not None:
            found.append({"code": code, "game": get_game(table.game).NAME,
                          "players": table.players})
    return found[:5]


@bp.route("/new/<game_id>", methods=["GET", "POST"])
def new_table(game_id):
    game = get_game(game_id)
    if game is None:
        abort(404)
    error = None
    names = [""] * game.MAX_PLAYERS
    values = {}
    if request.method == "POST":
        names = [request.form.get(f"player{i}", "") for i in range(game.MAX_PLAYERS)]
        values = {p.name: request.form.get(p.name) for p in game.OPTIONS}
        values["timer_seconds"] = request.form.get("timer_seconds")
        try:
            code, host = tables.create_table(get_db(), game.ID, names, values)
        except tables.TableError as exc:
            error = exc.message
        else:
            phone.set_host_token(code, host)
            live_hub().notify(code)
            return redirect(url_for("pages.join_table", code=code, created=1))
    return render_template("new_table.html", game=game, names=names, values=values, error=error,
                           notes=game.setup_notes, record=_records([game]).get(game.ID)), \
        (400 if error else 200)


@bp.get("/join")
def join_by_code():
    raw = request.args.get("code", "")
    code = tables.normalize_code(raw)
    if not code:
        return render_template("home.html", games=list(GAMES.values()), my_tables=_my_tables(),
                               records=_records(GAMES.values()),
                               join_error=t("Type the table code shown on the host's phone.")), 400
    if tables.store.get_table(get_db(), code) is None:
        return render_template("home.html", games=list(GAMES.values()), my_tables=_my_tables(),
                               records=_records(GAMES.values()),
                               join_error=t("No table has the code {code}. Check the letters.", code=code),
                               join_code=code), 404
    return redirect(url_for("pages.join_table", code=code))


@bp.route("/join/<code>", methods=["GET", "POST"])
def join_table(code):
    table = tables.load(get_db(), code)
    if table.code != code:
        return redirect(url_for("pages.join_table", code=table.code))
    error = None
    kept_tokens = following.kept_tokens(table)  # a seat kept for this phone from the last game
    if request.method == "POST":
        choice = request.form.get("seat", "")
        try:
            if choice == "all":
                taken = 0
                for row in tables.seat_list(get_db(), table, []):
                    if not row["taken"]:
                        seat, token = tables.take_seat(get_db(), code, row["seat"])
                        phone.add_token(code, token)
                        taken += 1
                if not taken:
                    raise tables.TableError(t("Every seat is already taken."))
            else:
                seat, token = tables.take_seat(get_db(), code, _int_arg(choice) if choice else None,
                                               kept_tokens)
                phone.add_token(code, token)
        except tables.TableError as exc:
            error = exc.message
        else:
            live_hub().notify(code)
            return redirect(url_for("pages.table_page", code=code))
    held = phone.held_seats(table)
    return render_template("join.html", table=table, game=get_game(table.game),
                           seats=tables.seat_list(get_db(), table, held, tokens_before=kept_tokens),
                           held=held, error=error, created=request.args.get("created"),
                           join_url=join_url(table.code)), (400 if error else 200)


def join_url(code: str) -> str:
    return f"{phone.public_base_url()}{url_for('pages.join_table', code=code)}"


@bp.get("/t/<code>")
def table_page(code):
    table = tables.load(get_db(), code)
    if table.code != code:
        return redirect(url_for("pages.table_page", code=table.code))
    notices = get_flashed_messages()
    return render_view(code, notice=notices[-1] if notices else None)


@bp.get("/t/<code>/view")
def table_view(code):
    return render_view(code, as_seat=_int_arg(request.args.get("as")))


def _respond_after_write(code, notice=None, kind="error"):
    if request.htmx:
        return render_view(code, notice=notice, notice_kind=kind)
    if notice:
        flash(i18n.say(notice))  # kept in the cookie as this phone reads it
    return redirect(url_for("pages.table_page", code=code), code=303)


def _respond_to_refusal(code, exc):
    """A stale tap gets the table as it is now (morphed in, so typing survives) and says
    so; any other refusal leaves the screen as it is."""
    if request.htmx and not isinstance(exc, tables.Stale):
        return _refuse_in_place(exc.message)
    return _respond_after_write(code, exc.message)


# A form carries no version of its own: the page sends the one its view shows (app.js). A
# form posted by the browser itself (the page's script not running yet, or at all) comes
# without it: nothing is changed, and the page says to tap again.
NOT_READY = t("The page was not ready yet: nothing was changed. Tap again.")


def _posted_without_the_page():
    return not request.htmx and request.form.get("version") in (None, "")


@bp.post("/t/<code>/act")
def act(code):
    table = tables.load(get_db(), code)
    if _posted_without_the_page():
        return _respond_after_write(table.code, NOT_READY)
    held = phone.held_seats(table)
    form = request.form
    params = {key: form.get(key) for key in form if key not in ACTION_FIELDS}
    seat = _int_arg(form.get("seat"))
    if form.get("seat") not in (None, "") and seat is None:
        return _respond_to_refusal(code, tables.Forbidden(t("This phone does not hold that seat.")))
    # The answer carries the new view: this phone's stream, in any process, need not.
    answered_by = _phone_key(table.code) if request.htmx else None
    try:
        outcome = tables.apply_action(get_db(), code, held, seat, form.get("action"), params,
                                      form.get("version"), form.get("rid"), answered_by=answered_by)
    except tables.TableError as exc:
        return _respond_to_refusal(code, exc)
    if answered_by:
        live_hub().answered(table.code, answered_by, outcome.version)
    live_hub().notify(code)
    passed_to = _int_arg(form.get("as"))
    spec = get_game(table.game).ACTIONS.get(form.get("action"))
    if (request.htmx and spec is not None and spec.secret and passed_to is not None
            and passed_to == seat and not outcome.repeated):
        # The player holding a passed phone sees their own pick once, then hides it.
        return render_view(code, as_seat=passed_to, just_chose=True)
    return _respond_after_write(code)


@bp.post("/t/<code>/undo")
def undo(code):
    table = tables.load(get_db(), code)
    if _posted_without_the_page():
        return _respond_after_write(table.code, NOT_READY)
    held = phone.held_seats(table)
    answered_by = _phone_key(table.code) if request.htmx else None
    try:
        outcome = tables.undo(get_db(), code, held, request.form.get("version"), request.form.get("rid"),
                              answered_by=answered_by)
    except tables.TableError as exc:
        return _respond_to_refusal(code, exc)
    if answered_by:
        live_hub().answered(table.code, answered_by, outcome.version)
    live_hub().notify(code)
    said = outcome.events[0] if len(outcome.events) == 1 else " ".join(i18n.say(e) for e in outcome.events)
    return _respond_after_write(code, said or None, kind="info")


@bp.get("/t/<code>/events")
def events(code):
    table = tables.load(get_db(), code)
    cfg = current_app.config
    # Not wrapped in the request context: the request ends here and gives its database
    # connection back, so an open stream holds only its socket and a place on the hub.
    render = _view_pusher(table.code) if request.args.get("views") == "1" else None
    # Pushed views are most of what a stream carries: they go compressed when the phone can.
    compressed = render is not None and request.accept_encodings["gzip"] > 0
    stream = live.event_stream(live_hub(), table.code, _int_arg(request.args.get("v")),
                               keepalive=cfg["STREAM_KEEPALIVE_SECONDS"],
                               max_seconds=cfg["STREAM_MAX_SECONDS"],
                               known_seats=_int_arg(request.args.get("s")),
                               render=render, phone=_phone_key(table.code),
                               push_gap=cfg["STREAM_PUSH_GAP_SECONDS"],
                               encoder=compression.GzipEvents() if compressed else None)
    live.notice_dead_peer(request.environ, cfg["STREAM_KEEPALIVE_SECONDS"])
    # Handed to the server as it is (bytes, each chunk flushed): werkzeug would otherwise wrap
    # it in two more generators (see live.event_stream).
    response = Response(stream, mimetype="text/event-stream", direct_passthrough=True)
    if compressed:
        response.headers["Content-Encoding"] = "gzip"
    response.headers["Vary"] = "Accept-Encoding"
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"
    return response


# What a pushed view is rendered with, of the stream's own request (ProxyFix, when on, has
# already put the phone's real scheme, host and address there).
_PUSH_ENVIRON_KEYS = ("SERVER_NAME", "SERVER_PORT", "SERVER_PROTOCOL", "SCRIPT_NAME", "HTTP_HOST",
                      "REMOTE_ADDR", "wsgi.url_scheme")


def _view_pusher(code: str):
    """The view this stream's phone would fetch, rendered for its `view` events.

    It is rendered from the phone's own cookie, exactly as `GET /t/<code>/view` would be
    for it, so a stream never carries what its phone could not fetch; seats are checked
    afresh at every render (a freed seat stops showing its secrets at once). An open
    stream keeps only this table's part of the cookie and a few request values."""
    app = current_app._get_current_object()
    values = tuple(request.environ.get(key) for key in _PUSH_ENVIRON_KEYS)
    path = url_for("pages.table_view", code=code)
    tokens, host = tuple(phone.tokens(code)), phone.host_token(code)
    language = i18n.current()  # the page's: a phone changing language loads the page again
    sent = view_delta.StreamViews()  # after its first view, the stream sends changes

    def render():
        environ = {key: value for key, value in zip(_PUSH_ENVIRON_KEYS, values) if value is not None}
        environ.update(REQUEST_METHOD="GET", PATH_INFO=path, QUERY_STRING="", HTTP_HX_REQUEST="true")
        environ[i18n.ENVIRON_KEY] = language
        environ["wsgi.input"] = io.BytesIO()
        cookie = app.session_interface.session_class(
            {"seats": {code: list(tokens)}, **({"host": {code: host}} if host else {})})
        try:
            with RequestContext(app, environ, session=cookie):
                # The view as `GET /t/<code>/view` answers it, its shared parts kept apart:
                # the stream sends their copy made once for every phone.
                pieces = []
                context = _context_for_phone(code, pieces)
                html = render_block("table/page.html", "view", **context)
                context["shared_part"].share()
                return sent.event_text(shared_parts.view_items(html, pieces))
        except Exception:  # the phone fetches its view after the update instead
            app.logger.exception("rendering a pushed view of table %s failed", code)
            return None
    return render


def _phone_key(code: str) -> str | None:
    """Names this phone's stream for `Hub.answered`: a digest of its seat tokens at the
    table, stored with a version it was answered with, so never the tokens themselves (None
    for a phone with none: phones watching are not told apart)."""
    tokens = sorted(phone.tokens(code))
    if not tokens:
        return None
    return hashlib.sha256("|".join(tokens).encode()).hexdigest()[:24]


@bp.get("/t/<code>/qr.svg")
def qr_svg(code):
    table = tables.load(get_db(), code)
    image = qrcode.make(join_url(table.code), image_factory=qrcode.image.svg.SvgPathImage, border=2)
    buffer = io.BytesIO()
    image.save(buffer)
    response = Response(buffer.getvalue(), mimetype="image/svg+xml")
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/t/<code>/share")
def share(code):
    table = tables.load(get_db(), code)
    held = phone.held_seats(table)
    return render_template("share.html", table=table, game=get_game(table.game),
                           seats=tables.seat_list(get_db(), table, held), held=held,
                           is_host=tables.is_host(table, phone.host_token(table.code)),
                           join_url=join_url(table.code), error=None)


@bp.post("/t/<code>/free")
def free_seat(code):
    seat = _int_arg(request.form.get("seat"))
    try:
        tables.free_seat(get_db(), code, phone.host_token(tables.normalize_code(code)), seat)
    except tables.TableError as exc:
        table = tables.load(get_db(), code)
        held = phone.held_seats(table)
        return render_template("share.html", table=table, game=get_game(table.game),
                               seats=tables.seat_list(get_db(), table, held), held=held,
                               is_host=tables.is_host(table, phone.host_token(table.code)),
                               join_url=join_url(table.code), error=exc.message), exc.status
    live_hub().notify(tables.normalize_code(code))
    return redirect(url_for("pages.share", code=tables.normalize_code(code)), code=303)


@bp.get("/t/<code>/log")
def full_log(code):
    table = tables.load(get_db(), code)
    return render_template("log.html", table=table, game=get_game(table.game),
                           log=tables.log_lines(get_db(), table))


@bp.app_template_filter("names")
def seat_names(seats, players):
    """Seat numbers to player names, for sentences like "Waiting for Ben, Cara"."""
    return [players[s] for s in seats if isinstance(s, int) and 0 <= s < len(players)]


@bp.app_template_filter("and_list")
def and_list(words):
    """"Ana", "Ana and Ben", "Ana, Ben and Cara" (the games' own `join_names`; nothing for none)."""
    words = [word if isinstance(word, str) else str(word) for word in words]
    return join_names(words) if words else ""


# "1 Flower", "3 Flowers": the games' own `plural`; "win", "wins" under a number shown apart.
bp.add_app_template_filter(plural, "counted")
bp.add_app_template_filter(noun, "noun")


@bp.app_template_filter("clock")
def clock_text(seconds):
    return timers.clock_text(seconds)


# The web app manifest as the static file has it, its words in each phone's language.
_MANIFEST = None


@bp.get("/manifest.webmanifest")
def manifest():
    """The manifest a page links (with its own language in the address, so each language's
    is cached apart): the app's name, short name and description said in that language, the
    icons and the rest as in static/manifest.webmanifest."""
    global _MANIFEST
    if _MANIFEST is None:
        with open(f"{current_app.static_folder}/manifest.webmanifest", encoding="utf-8") as file:
            _MANIFEST = json.load(file)
    data = dict(_MANIFEST)
    # The icons at the addresses the pages give them (made from the file's contents): a phone
    # loads the icon once for the page and the manifest, and keeps it.
    data["icons"] = [dict(icon, src=assets.asset_url("static", icon["src"].removeprefix("/static/")))
                     for icon in _MANIFEST.get("icons", [])]
    data.update(name=i18n.say(t("Forest Table")), short_name=i18n.say(t("Forest Table")),
                description=i18n.say(t("Your phone at the game table: secret picks, turns, "
                                       "countdown and scores for four forest board games.")),
                lang=i18n.formatting_locale(i18n.current()).replace("_", "-"))
    response = Response(json.dumps(data, ensure_ascii=False), mimetype="application/manifest+json")
    response.headers["Cache-Control"] = "no-cache"
    response.vary.add("Accept-Language")
    response.vary.add("Cookie")
    response.add_etag()
    return response.make_conditional(request)
