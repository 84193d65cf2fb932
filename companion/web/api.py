"""The JSON API: the same actions and views as the pages, for other clients and tests."""

from __future__ import annotations

import time

from flask import Blueprint, jsonify, request

from .. import tables, timers
from ..games.words import t
from ..db import get_db
from ..games import GAMES, get_game, json_view
from . import following, phone
from .pages import join_url, live_hub

bp = Blueprint("api", __name__, url_prefix="/api")


def _body() -> dict:
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise tables.TableError(t("Send a JSON object in the request body."))
    return body


def _seat_arg(raw):
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, int):
        raise tables.TableError(t("seat must be a whole number."))
    return raw


def table_json(code, seat=None, just_chose=False, **extra):
    """The table as this phone may see it: its seats and the game's view for one of them.

    A phone holding several seats is passed around the table: as on its private screen, a
    seat's own unrevealed pick shows only in the answer to that pick (`just_chose`), never
    when the view is read again, so the next person holding the phone cannot look it up."""
    table = tables.load(get_db(), code)
    held = phone.held_seats(table)
    if seat is not None and seat not in held:
        raise tables.Forbidden(t("This phone does not hold that seat."))
    viewer = seat if seat is not None else (held[0] if len(held) == 1 else None)
    own_pick = len(held) == 1 or just_chose
    game = get_game(table.game)
    data = {
        "code": table.code,
        "game": table.game,
        "version": table.version,
        "players": table.players,
        "seats": tables.seat_list(get_db(), table, held),
        "my_seats": held,
        "view_as": viewer,
        "view": json_view(game, table.snapshot, viewer, own_pick),
        "clock": timers.view(table.snapshot.get("_clock"), time.time()),
        "join_url": join_url(table.code),
        # The table its group plays next (a rematch, the next chapter), once one is made.
        "next_table": getattr(tables.following(get_db(), table), "code", None),
    }
    data.update(extra)
    return data


@bp.get("/games")
def games():
    return jsonify([
        {"id": g.ID, "name": g.NAME, "min_players": g.MIN_PLAYERS, "max_players": g.MAX_PLAYERS,
         "options": [{"name": p.name, "kind": p.kind, "default": p.default} for p in g.OPTIONS],
         "actions": {name: {"params": [{"name": p.name, "kind": p.kind, "min": p.min, "max": p.max,
                                          "choices": list(p.choices)} for p in spec.params],
                            "secret": spec.secret, "step": spec.step}
                     for name, spec in tables.all_actions(g).items()}}
        for g in GAMES.values()
    ])


@bp.post("/tables")
def create():
    body = _body()
    code, host = tables.create_table(get_db(), body.get("game"), body.get("players"),
                                     body.get("options", {}))
    phone.set_host_token(code, host)
    return jsonify(table_json(code)), 201


@bp.get("/tables/<code>")
def read(code):
    raw = request.args.get("seat")
    try:
        seat = int(raw) if raw not in (None, "") else None
    except ValueError:
        raise tables.TableError(t("seat must be a whole number.")) from None
    return jsonify(table_json(code, seat))


@bp.post("/tables/<code>/seats/<int:seat>")
def take_seat(code, seat):
    table = tables.load(get_db(), code)
    taken, token = tables.take_seat(get_db(), code, seat, following.kept_tokens(table))
    phone.add_token(tables.normalize_code(code), token)
    live_hub().notify(tables.normalize_code(code))
    return jsonify(table_json(code, taken)), 201


@bp.delete("/tables/<code>/seats/<int:seat>")
def free_seat(code, seat):
    tables.free_seat(get_db(), code, phone.host_token(tables.normalize_code(code)), seat)
    live_hub().notify(tables.normalize_code(code))
    return jsonify(table_json(code))


@bp.get("/tables/<code>/actions")
def actions(code):
    table = tables.load(get_db(), code)
    return jsonify({"version": table.version, "actions": list(reversed(tables.log_lines(get_db(), table)))})


def _refusal(code, exc, seat):
    try:
        fresh = table_json(code, seat)
    except tables.TableError:
        fresh = table_json(code)
    return jsonify({**exc.for_api(), **{k: fresh[k] for k in ("version", "view")}}), exc.status


@bp.post("/tables/<code>/actions")
def apply(code):
    body = _body()
    seat = _seat_arg(body.get("seat"))
    table = tables.load(get_db(), code)
    held = phone.held_seats(table)
    params = body.get("params", {})
    if not isinstance(params, dict):
        raise tables.TableError(t("params must be a JSON object."))
    try:
        outcome = tables.apply_action(get_db(), code, held, seat, body.get("action"), params,
                                      body.get("version"), body.get("request_id"))
    except tables.TableError as exc:
        return _refusal(code, exc, seat if seat in held else None)
    live_hub().notify(table.code)
    spec = tables.all_actions(get_game(table.game)).get(body.get("action"))
    just_chose = seat in held and spec is not None and spec.secret and not outcome.repeated
    return jsonify(table_json(code, seat if seat in held else None, just_chose,
                              events=outcome.events, repeated=outcome.repeated))


@bp.post("/tables/<code>/undo")
def undo(code):
    body = _body()
    table = tables.load(get_db(), code)
    held = phone.held_seats(table)
    try:
        outcome = tables.undo(get_db(), code, held, body.get("version"), body.get("request_id"))
    except tables.TableError as exc:
        return _refusal(code, exc, None)
    live_hub().notify(table.code)
    return jsonify(table_json(code, events=outcome.events, repeated=outcome.repeated))
