"""An Explorers of the Woodlands campaign's life: create it, start a chapter's table, record
the finished table's result (once), restart a lost chapter.

The rules are in games/explorers_campaign.py; this layer only reads and writes the record.
Random draws use the system's randomness and are stored with the result, so a reload or a
repeated request shows the same draw and never draws again.
"""

from __future__ import annotations

import random

from . import store, tables
from .games import explorers_campaign as rules
from .games import explorers_of_the_woodlands as explorers
from .games.base import Rejected

GAME = explorers.ID


def create(conn, name, raw_players, raw_heroes, first_player, thorns) -> int:
    """Create a campaign; return its id, or raise TableError."""
    players = tables.clean_players(raw_players, explorers)
    heroes = _heroes(raw_heroes, players)
    try:
        first = int(str(first_player))
    except (TypeError, ValueError):
        raise tables.TableError("Choose the first player among the players.") from None
    try:
        state = rules.new_campaign(name, players, heroes, first, thorns)
    except Rejected as exc:
        raise tables.TableError.refusing(exc) from None
    with store.Transaction(conn):
        if store.campaign_name_taken(conn, GAME, state["name"]):
            raise tables.TableError(f"A campaign called {state['name']} already exists: open it "
                                    "from the list, or choose another name.")
        campaign_id = store.insert_campaign(conn, GAME, state["name"], state)
        store.add_campaign_events(conn, campaign_id, [
            f"Campaign {state['name']} begins: " + ", ".join(
                f"{explorers.hero_label(h['id'])} ({players[h['seat']]})" for h in state["heroes"])
            + "."])
    return campaign_id


def _heroes(raw_heroes, players: list[str]) -> list[str]:
    wanted = len(players) + (1 if len(players) == 1 else 0)
    if not isinstance(raw_heroes, list):
        raise tables.TableError("Choose a Hero for each player.")
    heroes = [str(h or "").strip().lower() for h in raw_heroes][:wanted]
    if len(heroes) != wanted or any(h not in explorers.HEROES for h in heroes):
        raise tables.TableError("Choose a Hero for each player (two for a solo player): Xylia, "
                                "Klethor, Sha'Vi or Bethras.")
    if len(set(heroes)) != len(heroes):
        raise tables.TableError("Each Hero plays at most once.")
    return heroes


def load(conn, campaign_id) -> store.CampaignRow:
    try:
        number = int(str(campaign_id))
    except (TypeError, ValueError):
        number = 0
    row = store.get_campaign(conn, number) if number > 0 else None
    if row is None or row.game != GAME:
        raise tables.NotFound("No campaign has that number.")
    return row


def listing(conn) -> list[store.CampaignRow]:
    return store.list_campaigns(conn, GAME)


def events(conn, campaign_id: int) -> list[str]:
    return [row["text"] for row in store.campaign_events(conn, campaign_id)]


def start_chapter(conn, campaign_id, rng: random.Random | None = None) -> tuple[str, str | None]:
    """Create the table of the current chapter; return (code, host token or None if it existed)."""
    row = sync(conn, campaign_id)
    if row.state["table"]:
        return row.state["table"], None
    rng = rng or random.SystemRandom()
    try:
        raw = rules.table_options(row.state, row.id, rng)
    except Rejected as exc:
        raise tables.TableError.refusing(exc) from None
    code, host = tables.create_table(conn, GAME, row.state["players"], raw, rng)
    with store.Transaction(conn):
        current = store.get_campaign(conn, row.id)
        if current.state["table"]:
            # Another phone started the chapter a moment earlier: everyone plays at that table.
            return current.state["table"], None
        state, lines = rules.chapter_started(current.state, code)
        store.save_campaign(conn, row.id, state)
        store.add_campaign_events(conn, row.id, lines)
    return code, host


def sync(conn, campaign_id, rng: random.Random | None = None) -> store.CampaignRow:
    """Record the current chapter table's result if it has ended; return the campaign."""
    row = load(conn, campaign_id)
    code = row.state["table"]
    if not code:
        return row
    table = store.get_table(conn, code)
    if table is None or table.snapshot.get("phase") != explorers.PHASE_OVER:
        return row
    rng = rng or random.SystemRandom()
    with store.Transaction(conn):
        current = store.get_campaign(conn, row.id)
        state, lines = rules.record_result(current.state, code, table.snapshot, rng)
        if lines:
            store.save_campaign(conn, row.id, state)
            store.add_campaign_events(conn, row.id, lines)
    return store.get_campaign(conn, row.id)


def restart(conn, campaign_id, discards: dict) -> None:
    row = load(conn, campaign_id)
    with store.Transaction(conn):
        current = store.get_campaign(conn, row.id)
        try:
            state, lines = rules.restart(current.state, discards)
        except Rejected as exc:
            raise tables.TableError.refusing(exc) from None
        store.save_campaign(conn, row.id, state)
        store.add_campaign_events(conn, row.id, lines)


def for_table(conn, table: store.TableRow) -> dict | None:
    """What a chapter table's page shows of its campaign: the name, and once over, the result."""
    campaign_id = table.options.get("campaign") if isinstance(table.options, dict) else None
    if table.game != GAME or not isinstance(campaign_id, int):
        return None
    try:
        row = sync(conn, campaign_id)
    except tables.NotFound:
        return None
    entry = row.state["recorded"].get(table.code)
    return {"id": row.id, "name": row.name, "recorded": entry is not None,
            "outcome": entry["outcome"] if entry else None,
            "draw": rules.awakening_text(entry["draw"]) if entry and entry.get("draw") else None,
            "current": row.state["table"] == table.code}
