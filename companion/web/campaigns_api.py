"""The campaign JSON API: everything the campaign pages do, for other clients and tests.

The same conventions as /api/tables: a JSON body in, JSON out, a refusal is
{"error": ...} with a 4xx status and changes nothing.
"""

from __future__ import annotations

from flask import Blueprint, jsonify

from .. import campaigns, tables
from ..db import get_db
from ..games import explorers_campaign as rules
from ..games import explorers_of_the_woodlands as explorers
from ..games.words import t
from . import phone
from .api import _body  # the JSON body, one object, read as every /api route reads it
from .pages import join_url, live_hub

bp = Blueprint("campaigns_api", __name__, url_prefix="/api/campaigns")


def _text(body: dict, key: str, default: str = "") -> str:
    value = body.get(key, default)
    if value is None:
        return default
    if not isinstance(value, str):
        raise tables.TableError(t("{key} must be text.", key=key))
    return value


def campaign_json(row) -> dict:
    """A campaign as every client sees it: where it stands, what the Heroes carry, what awoke."""
    state = row.state
    view = rules.campaign_view(state)
    playing = campaigns.chapter_table(get_db(), row)
    if playing is not None:
        playing["join_url"] = join_url(playing["code"])
    heroes = [{**hero, "seat": seat["seat"]} for hero, seat in zip(view["heroes"], state["heroes"])]
    return {
        "id": row.id,
        "name": row.name,
        "game": campaigns.GAME,
        "players": state["players"],
        "first_player": state["first_player"],
        "thorns": state["thorns"],
        "heroes": heroes,
        "finished": state["finished"],
        "next": campaigns.next_step(row, playing),
        "chapter": None if state["finished"] else {
            "number": state["chapter"], "title": rules.CHAPTER_TITLES[state["chapter"]],
            "goal": rules.CHAPTER_GOALS[state["chapter"]]},
        "table": playing,
        "chapters": [{key: ch[key] for key in ("number", "title", "goal", "attempts", "result")}
                     for ch in view["chapters"]],
        "enraged": view["enraged"],
        "forest_awakens": campaigns.awakenings(state),
        "log": list(reversed(campaigns.events(get_db(), row.id))),
    }


@bp.get("")
def listing():
    return jsonify([{"id": row.id, "name": row.name, "players": row.state["players"],
                     "chapter": row.state["chapter"], "finished": row.state["finished"]}
                    for row in campaigns.listing(get_db())])


@bp.post("")
def create():
    body = _body()
    first_player = body.get("first_player", 0)
    if isinstance(first_player, bool) or not isinstance(first_player, int):
        raise tables.TableError(t("first_player must be a seat number (0 for the first "
                                  "player)."))
    campaign_id = campaigns.create(get_db(), _text(body, "name"), body.get("players"),
                                   body.get("heroes"), first_player,
                                   _text(body, "thorns", "regular"))
    return jsonify(campaign_json(campaigns.load(get_db(), campaign_id))), 201


@bp.get("/<int:campaign_id>")
def read(campaign_id):
    return jsonify(campaign_json(campaigns.load(get_db(), campaign_id)))


@bp.post("/<int:campaign_id>/chapters")
def start_chapter(campaign_id):
    """Start the next chapter: its table is created (this client becomes its host), or the
    table already started is given back."""
    code, host = campaigns.start_chapter(get_db(), campaign_id)
    if host:
        phone.set_host_token(code, host)
        live_hub().notify(code)
    row = campaigns.load(get_db(), campaign_id)
    return jsonify({"code": code, "created": host is not None, "join_url": join_url(code),
                    "campaign": campaign_json(row)}), 201 if host else 200


@bp.post("/<int:campaign_id>/confirm")
def confirm(campaign_id):
    """The players confirm the chapter's end: recorded from the table's final tallies, once."""
    body = _body()
    confirmed = campaigns.confirm_end(get_db(), campaign_id, _text(body, "table") or None)
    if not confirmed.repeated:
        live_hub().notify(confirmed.code)
    entry = confirmed.entry
    draw = entry.get("draw")
    return jsonify({
        **campaign_json(confirmed.row),
        "recorded": {"table": confirmed.code, "chapter": entry["chapter"],
                     "outcome": entry["outcome"],
                     "forest_awakens": ({"text": rules.awakening_text(draw), **draw}
                                        if draw else None)},
        "repeated": confirmed.repeated,
    })


@bp.post("/<int:campaign_id>/restart")
def restart(campaign_id):
    """A lost chapter: each Hero with Loot discards the card named by its index in `loot`."""
    body = _body()
    discards = body.get("discards", {})
    if not isinstance(discards, dict):
        raise tables.TableError(t("discards must be a JSON object, e.g. {example}.",
                                  example='{"xylia": 0}'))
    row = campaigns.load(get_db(), campaign_id)
    playing = {hero["id"] for hero in row.state["heroes"]}
    strangers = sorted(set(discards) - playing)
    if strangers:
        raise tables.TableError(t("Not a Hero of this campaign: {strangers}. Its Heroes are "
                                  "{heroes}.", strangers=", ".join(strangers)[:80],
                                  heroes=", ".join(sorted(playing))))
    for hero, index in discards.items():
        if isinstance(index, bool) or not isinstance(index, int):
            raise tables.TableError(t("Choose which Loot card {hero} discards by its number in "
                                      "the list (0 for the first).",
                                      hero=explorers.hero_label(hero)))
    campaigns.restart(get_db(), campaign_id, discards)
    return jsonify(campaign_json(campaigns.load(get_db(), campaign_id)))
