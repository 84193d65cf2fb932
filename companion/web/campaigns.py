"""Campaign pages: the list, a new campaign, one campaign between its chapters."""

from __future__ import annotations

from flask import Blueprint, redirect, render_template, request, url_for

from .. import campaigns, store, tables
from ..db import get_db
from ..games import explorers_campaign as rules
from ..games import explorers_of_the_woodlands as explorers
from ..games.words import t, tc
from . import following, phone
from .pages import live_hub

bp = Blueprint("campaigns", __name__)

# A Hero's name (a proper name) and its colour, which is translated.
HERO_COLOURS = {"green": tc("hero colour", "green"), "purple": tc("hero colour", "purple"),
                "blue": tc("hero colour", "blue"), "orange": tc("hero colour", "orange")}
HERO_CHOICES = [(hero, t("{hero} ({colour})", hero=explorers.HERO_LABELS[hero],
                         colour=HERO_COLOURS[explorers.HERO_COLORS[hero]]))
                for hero in explorers.HEROES]


def _list_page(error=None, values=None, status=200):
    rows = campaigns.listing(get_db())
    listed = [{"id": row.id, "name": row.name, "players": row.state["players"],
               "chapter": row.state["chapter"], "finished": row.state["finished"],
               "title": rules.CHAPTER_TITLES[row.state["chapter"]]} for row in rows]
    return render_template("campaigns/list.html", campaigns=listed, error=error,
                           values=values or {}, hero_choices=HERO_CHOICES,
                           game=explorers), status


@bp.get("/campaigns")
def campaign_list():
    return _list_page()


@bp.post("/campaigns")
def campaign_create():
    form = request.form
    names = [form.get(f"player{i}", "") for i in range(explorers.MAX_PLAYERS)]
    heroes = [form.get(f"hero_{i + 1}", "") for i in range(explorers.MAX_PLAYERS)]
    solo = len([n for n in names if n.strip()]) == 1
    chosen = [h for n, h in zip(names, heroes) if n.strip()] + ([form.get("solo_hero")] if solo
                                                                else [])
    try:
        campaign_id = campaigns.create(get_db(), form.get("name"), names, chosen,
                                       form.get("first_player", "0"), form.get("thorns", "regular"))
    except tables.TableError as exc:
        return _list_page(exc.message, dict(form), 400)
    return redirect(url_for("campaigns.campaign_page", campaign_id=campaign_id), code=303)


def _page(campaign_id, error=None, status=200):
    row = campaigns.load(get_db(), campaign_id)
    view = rules.campaign_view(row.state)
    playing = campaigns.chapter_table(get_db(), row)
    return render_template("campaigns/page.html", c=view, campaign_id=row.id, playing=playing,
                           next_step=campaigns.next_step(row, playing),
                           tally=campaigns.tally_correction(get_db(), row),
                           history=campaigns.events(get_db(), row.id), error=error), status


@bp.get("/campaigns/<int:campaign_id>")
def campaign_page(campaign_id):
    return _page(campaign_id)


@bp.post("/campaigns/<int:campaign_id>/start")
def campaign_start(campaign_id):
    try:
        code, host = campaigns.start_chapter(get_db(), campaign_id)
    except tables.NotFound:
        raise
    except tables.TableError as exc:
        return _page(campaign_id, exc.message, 400)
    if host:
        phone.set_host_token(code, host)
    # This phone keeps the seats it held at the chapter before.
    before = store.previous_table(get_db(), tables.load(get_db(), code).id)
    return following.go_to(before.code if before else None, code, created=bool(host))


@bp.post("/campaigns/<int:campaign_id>/confirm")
def campaign_confirm(campaign_id):
    """The players confirm the chapter's end (after tallying the final fight): recorded once."""
    try:
        confirmed = campaigns.confirm_end(get_db(), campaign_id, request.form.get("table"))
    except tables.NotFound:
        raise
    except tables.TableError as exc:
        return _page(campaign_id, exc.message, 400)
    if not confirmed.repeated:
        live_hub().notify(confirmed.code)
    return redirect(url_for("campaigns.campaign_page", campaign_id=campaign_id), code=303)


@bp.post("/campaigns/<int:campaign_id>/tally")
def campaign_tally(campaign_id):
    """The last won chapter's Monster tally corrected, until the next chapter starts."""
    try:
        campaigns.correct_tally(get_db(), campaign_id,
                                {kind: request.form.get(kind) for kind in explorers.MONSTERS})
    except tables.NotFound:
        raise
    except tables.TableError as exc:
        return _page(campaign_id, exc.message, 400)
    return redirect(url_for("campaigns.campaign_page", campaign_id=campaign_id), code=303)


@bp.post("/campaigns/<int:campaign_id>/restart")
def campaign_restart(campaign_id):
    discards = {}
    for hero in explorers.HEROES:
        raw = request.form.get(f"discard_{hero}")
        if raw not in (None, ""):
            try:
                discards[hero] = int(raw)
            except ValueError:
                return _page(campaign_id, t("Choose a Loot card from the list."), 400)
    try:
        campaigns.restart(get_db(), campaign_id, discards)
    except tables.NotFound:
        raise
    except tables.TableError as exc:
        return _page(campaign_id, exc.message, 400)
    return redirect(url_for("campaigns.campaign_page", campaign_id=campaign_id), code=303)


@bp.app_context_processor
def campaign_helpers():
    def campaign_of(table):
        return campaigns.for_table(get_db(), table) if table is not None else None
    return {"campaign_of": campaign_of}
