"""History pages: past games, one game's replay, player stats, rematch, export and import."""

from __future__ import annotations

from datetime import datetime

import click
from babel.dates import format_skeleton
import flask_babel
from flask.cli import with_appcontext
from flask import (Blueprint, Response, abort, current_app, flash, get_flashed_messages, jsonify,
                   redirect, render_template, request, url_for)

from .. import charts, history, store, tables
from ..inbound import Refused
from ..db import get_db
from ..games import get_game
from ..games.words import join_names, t, tn
from . import following, i18n, phone

bp = Blueprint("history", __name__)
api_bp = Blueprint("history_api", __name__, url_prefix="/api/history")


def archive_due() -> dict:
    """Record finished tables and archive abandoned ones, now (no background thread)."""
    return history.sync(get_db(), history.now(), current_app.config["ABANDON_AFTER_HOURS"],
                        current_app.config["EMPTY_TABLE_HOURS"])


@bp.before_app_request
def archive_on_home():
    # The home page is where people arrive: abandoned tables are archived then.
    if request.endpoint == "pages.home" and request.method == "GET":
        archive_due()


def _text_arg(name: str, max_length: int = 40) -> str | None:
    value = request.args.get(name, "")
    value = " ".join(value.split())[:max_length]
    return value or None


PAGE_MAX = 99999


def _page_arg() -> int:
    raw = request.args.get("page", "")
    if raw == "":
        return 0
    # isdigit() alone lets "²" through, which int() refuses.
    if not (raw.isascii() and raw.isdigit()) or int(raw) > PAGE_MAX:
        raise Refused(t("The page must be a whole number from 0 to {most}.", most=PAGE_MAX))
    return int(raw)


def _notice():
    messages = get_flashed_messages(with_categories=True)
    return messages[-1] if messages else None


@bp.get("/history")
def index():
    archive_due()
    conn = get_db()
    game, player = _text_arg("game"), _text_arg("player")
    people = history.People(conn)
    found = history.listing(conn, game, player, _page_arg())
    return render_template("history/list.html", found=found, games=history.games_in_history(conn),
                           people=people.everyone(), game=game, player=player, notice=_notice())


@bp.get("/history/<int:played_id>")
def game_page(played_id):
    record = history.entry(get_db(), played_id)
    if record is None:
        abort(404)
    chart = None
    outcome = record["outcome"]
    if outcome and outcome.get("score_by_round") and len(outcome["score_by_round"]) > 1:
        chart = charts.line_chart(
            [{"label": s["name"], "values": [r[s["seat"]] for r in outcome["score_by_round"]]}
             for s in record["seats"]],
            [flask_babel.format_decimal(i + 1) for i in range(len(outcome["score_by_round"]))],
            t("Score after each round: {names}", names=join_names([s["name"] for s in record["seats"]])),
            t("round"), say=i18n.say)
    return render_template("history/game.html", g=record, chart=chart, legend_mark=charts.legend_mark,
                           notice=_notice())


@bp.post("/history/<int:played_id>/rematch")
def rematch(played_id):
    # A game whose table is still open is played again at that table's next table, as
    # from the table itself: one next table for the whole group.
    return _rematch(played_id, history.open_table_of(get_db(), played_id))


def _rematch(played_id, code_before):
    try:
        code, host = history.rematch(get_db(), played_id, code_before)
    except history.HistoryError as exc:
        if history.entry(get_db(), played_id) is None:
            abort(404)
        flash(i18n.say(exc.message), "error")
        return redirect(url_for("history.game_page", played_id=played_id), code=303)
    if host:
        phone.set_host_token(code, host)
    return following.go_to(code_before, code, created=bool(host))


@bp.post("/t/<code>/rematch")
def table_rematch(code):
    """The first tap makes the next table; every other tap, on any phone, goes to that one."""
    table = tables.load(get_db(), code)
    if tables.following(get_db(), table) is not None:
        return following.go_to(table.code, tables.following(get_db(), table).code)
    game = get_game(table.game)
    if not tables.is_over(game, table.snapshot):
        flash(i18n.say(t("The game is not over yet: a rematch starts once it has ended.")))
        return redirect(url_for("pages.table_page", code=table.code), code=303)
    if table.options.get("campaign"):
        flash(i18n.say(t("A campaign chapter goes on from its campaign page.")))
        return redirect(url_for("pages.table_page", code=table.code), code=303)
    archive_due()
    played_id = history.played_id_of_table(get_db(), table.code)
    if played_id is None:
        abort(404)
    return _rematch(played_id, table.code)


@bp.get("/history/table/<code>")
def table_entry(code):
    archive_due()
    table = tables.load(get_db(), code)
    played_id = history.played_id_of_table(get_db(), table.code)
    if played_id is None:
        flash(i18n.say(t("That table's game is still going on: it joins the history when it ends.")), "info")
        return redirect(url_for("history.index"))
    return redirect(url_for("history.game_page", played_id=played_id))


def day_month(at) -> str:
    """A chart's date label: "05 Jan" in English, each language's own short day and month."""
    moment = datetime.fromtimestamp(at)
    if i18n.formatting_locale(i18n.current()) == "en":
        return flask_babel.format_date(moment, "dd MMM")
    return format_skeleton("MMMd", moment, locale=flask_babel.get_locale())


def _stats_context(game):
    conn = get_db()
    data = history.stats(conn, game, _page_arg())
    wins = data["wins_over_time"]
    chart = None
    if wins["series"] and len(wins["dates"]) > 1:
        labels = [day_month(at) for at in wins["dates"]]
        chart = charts.line_chart(wins["series"], labels,
                                  t("Wins so far, game after game: {names}",
                                    names=join_names([s["label"] for s in wins["series"]])),
                                  t("games"), say=i18n.say)
    return data, chart


@bp.get("/history/stats")
def stats_page():
    archive_due()
    conn = get_db()
    game = _text_arg("game")
    data, chart = _stats_context(game)
    people = history.People(conn)
    merges = [dict(m, person_name=people.name(m["person_key"])) for m in people.merges]
    return render_template("history/stats.html", s=data, chart=chart, legend_mark=charts.legend_mark,
                           games=history.games_in_history(conn), game=game, merges=merges,
                           spellings=people.spellings, notice=_notice())


@bp.post("/history/names/merge")
def merge():
    return _names_changed(lambda: history.merge_names(get_db(), request.form.get("alias"),
                                                      request.form.get("person"), history.now()))


@bp.post("/history/names/undo")
def unmerge():
    return _names_changed(lambda: history.undo_merge(get_db(), request.form.get("alias")))


def _names_changed(change):
    """Say what the merge or its undo did (or why not), back on the names part of the stats."""
    try:
        flash(i18n.say(change()), "info")
    except history.HistoryError as exc:
        flash(i18n.say(exc.message), "error")
    return redirect(url_for("history.stats_page") + "#names", code=303)


@bp.get("/history/transfer")
def transfer():
    return render_template("history/transfer.html", notice=_notice(), limit_mb=history.IMPORT_MAX_BYTES // 2**20,
                           columns=history.CSV_COLUMNS)


def _download(body: str, mimetype: str, filename: str) -> Response:
    response = Response(body, mimetype=mimetype)
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/history/export.json")
def export_json():
    archive_due()
    return _download(history.export_json(get_db()), "application/json", "forest-table-history.json")


@bp.get("/history/export.csv")
def export_csv():
    archive_due()
    # The columns stay as they are; a result's sentences are in the exporter's language.
    return _download(history.export_csv(get_db(), say=i18n.say), "text/csv", "forest-table-history.csv")


def _import_body() -> bytes:
    """The uploaded file (a form) or the raw body (the API): both bounded to IMPORT_MAX_BYTES."""
    request.max_content_length = history.IMPORT_MAX_BYTES
    upload = request.files.get("file")
    if upload is not None:
        return upload.read(history.IMPORT_MAX_BYTES + 1)
    if request.mimetype == "application/json":
        return request.get_data(cache=False)
    return b""


def _import(raw: bytes) -> dict:
    cfg = current_app.config
    return history.import_file(get_db(), raw, history.now(), max_games=cfg["IMPORT_MAX_GAMES"],
                               max_imported=cfg["IMPORTED_GAMES_MAX"])


@bp.post("/history/import")
def import_history():
    try:
        raw = _import_body()
        if len(raw) > history.IMPORT_MAX_BYTES:
            raise history.HistoryError(_too_large())
        done = _import(raw)
    except history.HistoryError as exc:
        return render_template("history/transfer.html", notice=("error", exc.message),
                               limit_mb=history.IMPORT_MAX_BYTES // 2**20,
                               columns=history.CSV_COLUMNS), 400
    flash(_imported_sentence(done), "info")
    return redirect(url_for("history.index"), code=303)


def _too_large():
    return t("The file is larger than {size} MB: it was not imported.",
             size=history.IMPORT_MAX_BYTES // 2**20)


def _imported_sentence(done: dict) -> str:
    """What an import did, in the phone's language: a clause each, as many as apply."""
    clauses = [tn("Imported {count} game", "Imported {count} games", done["added"])]
    if done["skipped"]:
        clauses.append(tn("{count} already here, skipped", "{count} already here, skipped",
                          done["skipped"]))
    if done["merges"]:
        clauses.append(tn("{count} name merge added", "{count} name merges added", done["merges"]))
    return "; ".join(i18n.say(clause) for clause in clauses) + "."


# ----------------------------------------------------------------- JSON API


@api_bp.get("")
def api_list():
    archive_due()
    found = history.listing(get_db(), _text_arg("game"), _text_arg("player"), _page_arg())
    for row in found["games"]:
        row.pop("table_id", None)
    return jsonify(found)


@api_bp.get("/<int:played_id>")
def api_game(played_id):
    record = history.entry(get_db(), played_id)
    if record is None:
        return jsonify({"error": t("That game is not in the history.")}), 404
    for key in ("table_id", "table_version", "rounds_log"):
        record.pop(key, None)
    return jsonify(record)


@api_bp.get("/stats")
def api_stats():
    archive_due()
    data = history.stats(get_db(), _text_arg("game"), _page_arg())
    return jsonify(data)


@api_bp.post("/import")
def api_import():
    try:
        raw = _import_body()
        if len(raw) > history.IMPORT_MAX_BYTES:
            raise history.HistoryError(_too_large())
        done = _import(raw)
    except history.HistoryError as exc:
        return jsonify({"error": exc.message}), 400
    return jsonify(done)


@click.command("archive-tables")
@with_appcontext
def archive_command() -> None:
    """Record finished tables, archive those abandoned for ABANDON_AFTER_HOURS (their codes
    are free again) and delete those never played for EMPTY_TABLE_HOURS."""
    done = archive_due()
    click.echo(f"Recorded {done['finished']} finished, archived {done['unfinished']} abandoned;"
               f" freed {done['released']} codes; deleted {done['deleted']} never played.")


def init_app(app) -> None:
    app.register_blueprint(bp)
    app.register_blueprint(api_bp)
    app.cli.add_command(archive_command)

    @app.template_filter("when")
    def when(at):
        """A day and time as the phone's language writes them ("Mon 05 Jan 2025, 14:30"
        in English), in the server's time zone."""
        if not at:
            return ""
        moment = datetime.fromtimestamp(at)  # local time; Babel's zone is UTC, so kept as is
        if i18n.formatting_locale(i18n.current()) == "en":
            return flask_babel.format_datetime(moment, "EEE dd MMM y, HH:mm")
        locale = flask_babel.get_locale()
        day = format_skeleton("yMMMEd", moment, locale=locale)
        hour = flask_babel.format_time(moment, "short")
        return str(locale.datetime_formats["medium"]).replace("{1}", day).replace("{0}", hour)

    @app.template_filter("duration")
    def duration(seconds):
        """Playing time in words: "48 min", "1 h 05 min"."""
        if seconds is None:
            return ""
        minutes = max(1, round(seconds / 60))
        hours, minutes = divmod(minutes, 60)
        if hours:
            padded = f"{minutes:02d}"  # "1 h 05 min"
            return t("{hours} h {minutes} min", hours=hours, minutes=padded)
        return t("{minutes} min", minutes=minutes)

    @app.template_filter("percent")
    def percent(rate):
        return "–" if rate is None else flask_babel.format_percent(rate / 100)

    @app.template_filter("decimal")
    def decimal(value):
        """A number as the phone's language writes it (12.5, 12,5); "–" for none."""
        return "–" if value is None else flask_babel.format_decimal(value)

    @app.template_filter("said")
    def said(value):
        """A word kept as a plain string (a co-operative game's level, from the history's
        columns) read from the catalog when it is one of its messages, else as it is."""
        if not value or not isinstance(value, str):
            return value or ""
        value = store.stored_words(value)  # a level kept as data (the stats read the column)
        if hasattr(value, "render"):
            return i18n.say(value)
        # a game's level is a message of its own context (the same English may mean else elsewhere)
        level = flask_babel.pgettext("difficulty level", value)
        return level if level != value else flask_babel.gettext(value)
