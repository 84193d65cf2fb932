"""The table a group plays next (a rematch, a campaign's next chapter): every phone at the
finished table is offered its own seat there, and takes it with one tap."""

from __future__ import annotations

from flask import Blueprint, redirect, url_for

from .. import store, tables
from ..db import get_db
from . import phone

bp = Blueprint("following", __name__)


def offer(table: store.TableRow) -> dict | None:
    """What a phone at a finished table is offered of the next one: its code, what it is
    (a rematch or a chapter), and the seats kept there for this phone, by name."""
    if not table.next_table_id:
        return None
    conn = get_db()
    following = tables.following(conn, table)
    if following is None:
        return None
    mine = [s for s in tables.seat_list(conn, following, [], tokens_before=phone.tokens(table.code))
            if s["kept_mine"]]
    there = tables.seats_held(conn, following, phone.tokens(following.code))
    start = following.options.get(tables.CHAPTER_START) if isinstance(following.options, dict) else None
    chapter = start.get("chapter") if isinstance(start, dict) else None
    return {"code": following.code, "chapter": chapter, "names": [s["name"] for s in mine],
            "seated": bool(there), "url": url_for("following.take_next", code=table.code),
            "table_url": url_for("pages.table_page", code=following.code),
            "join_url": url_for("pages.join_table", code=following.code)}


def go_to(code_before: str | None, code: str, created: bool = False):
    """Take the seats kept at table `code` for this phone (what it held at `code_before`)
    and go there: to the table when the phone holds a seat there, else to its join page."""
    taken = tables.take_kept_seats(get_db(), code, phone.tokens(code_before)) if code_before else []
    for _seat, token in taken:
        phone.add_token(code, token)
    hub = _hub()
    for changed in (code_before, code):
        if changed:
            hub.notify(changed)
    table = tables.load(get_db(), code)
    if phone.held_seats(table):
        return redirect(url_for("pages.table_page", code=code), code=303)
    return redirect(url_for("pages.join_table", code=code, **({"created": 1} if created else {})), code=303)


def kept_tokens(table: store.TableRow) -> list[str]:
    """This phone's tokens at the table before `table`, which the seats kept there are for."""
    before = store.previous_table(get_db(), table.id)
    return phone.tokens(before.code) if before is not None else []


@bp.post("/t/<code>/next")
def take_next(code):
    """"Join the rematch as Ben": the seats kept at the next table for this phone, in one tap."""
    table = tables.load(get_db(), code)
    following = tables.following(get_db(), table)
    if following is None:
        return redirect(url_for("pages.table_page", code=table.code), code=303)
    return go_to(table.code, following.code)


def _hub():
    from ..hubs import live_hub
    return live_hub()

