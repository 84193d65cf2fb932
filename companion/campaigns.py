"""An Explorers of the Woodlands campaign's life: create it, start a chapter's table, record
the finished table's result once the players confirm its end (once), restart a lost chapter.
Reading a campaign or a chapter table never records anything.

The rules are in games/explorers_campaign.py; this layer only reads and writes the record.
Random draws use the system's randomness and are stored with the result, so a reload or a
repeated request shows the same draw and never draws again.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from . import store, tables
from .games import explorers_campaign as rules
from .games import game_result
from .games import explorers_of_the_woodlands as explorers
from .games.base import Rejected
from .games.words import Text, t

GAME = explorers.ID


def create(conn, name, raw_players, raw_heroes, first_player, thorns) -> int:
    """Create a campaign; return its id, or raise TableError."""
    players = tables.clean_players(raw_players, explorers)
    heroes = _heroes(raw_heroes, players)
    try:
        first = int(str(first_player))
    except (TypeError, ValueError):
        raise tables.TableError(t("Choose the first player among the players.")) from None
    try:
        state = rules.new_campaign(name, players, heroes, first, thorns)
    except Rejected as exc:
        raise tables.TableError.refusing(exc) from None
    with store.Transaction(conn):
        if store.campaign_name_taken(conn, GAME, state["name"]):
            raise tables.TableError(t("A campaign called {name} already exists: open it from "
                                      "the list, or choose another name.", name=state["name"]))
        campaign_id = store.insert_campaign(conn, GAME, state["name"], state)
        heroes = [t("{hero} ({player})", hero=explorers.hero_label(h["id"]),
                    player=players[h["seat"]]) for h in state["heroes"]]
        store.add_campaign_events(conn, campaign_id, [
            t("Campaign {name} begins: {heroes}.", name=state["name"], heroes=rules._listed(heroes))])
    return campaign_id


def _heroes(raw_heroes, players: list[str]) -> list[str]:
    wanted = len(players) + (1 if len(players) == 1 else 0)
    if not isinstance(raw_heroes, list):
        raise tables.TableError(t("Choose a Hero for each player."))
    heroes = [str(h or "").strip().lower() for h in raw_heroes][:wanted]
    if len(heroes) != wanted or any(h not in explorers.HEROES for h in heroes):
        raise tables.TableError(t("Choose a Hero for each player (two for a solo player): "
                                  "Xylia, Klethor, Sha'Vi or Bethras."))
    if len(set(heroes)) != len(heroes):
        raise tables.TableError(t("Each Hero plays at most once."))
    return heroes


def load(conn, campaign_id) -> store.CampaignRow:
    try:
        number = int(str(campaign_id))
    except (TypeError, ValueError):
        number = 0
    row = store.get_campaign(conn, number) if number > 0 else None
    if row is None or row.game != GAME:
        raise tables.NotFound(t("No campaign has that number."))
    return row


def listing(conn) -> list[store.CampaignRow]:
    return store.list_campaigns(conn, GAME)


def events(conn, campaign_id: int) -> list[Text | str]:
    return [row["text"] for row in store.campaign_events(conn, campaign_id)]


def start_chapter(conn, campaign_id, rng: random.Random | None = None) -> tuple[str, str | None]:
    """Create the table of the current chapter; return (code, host token or None if it existed).

    The chapter's table is the next table of the chapter played before (its phones keep their
    seats), named in the same transaction as the campaign records it: two phones starting
    the chapter at once make one table."""
    row = load(conn, campaign_id)
    if row.state["table"]:
        return row.state["table"], None
    rng = rng or random.SystemRandom()
    try:
        raw = rules.table_options(row.state, row.id, rng)
    except Rejected as exc:
        raise tables.TableError.refusing(exc) from None
    start = raw.pop(tables.CHAPTER_START)
    new = tables.prepare_table(GAME, row.state["players"], raw, rng, chapter_start=start)
    host = tables.new_token()
    with store.Transaction(conn):
        current = store.get_campaign(conn, row.id)
        if current.state["table"]:
            # Another phone started the chapter a moment earlier: everyone plays at that table.
            return current.state["table"], None
        before = previous_table(conn, current)
        code = tables.insert_table(conn, new, host, after=before)
        state, lines = rules.chapter_started(current.state, code)
        store.save_campaign(conn, row.id, state)
        store.add_campaign_events(conn, row.id, lines)
    return code, host


def previous_table(conn, row: store.CampaignRow) -> store.TableRow | None:
    """The table of the chapter recorded last, while it has no next table yet."""
    recorded = list(row.state["recorded"])
    table = store.get_table(conn, recorded[-1]) if recorded else None
    return table if table is not None and table.next_table_id is None else None


@dataclass
class Confirmed:
    """A chapter's end as recorded: which table, its entry in the record, and whether this
    confirmation came after another one (a double tap) and so recorded nothing."""

    row: store.CampaignRow
    code: str
    entry: dict
    repeated: bool


def confirm_end(conn, campaign_id, raw_code=None, rng: random.Random | None = None) -> Confirmed:
    """Record the current chapter from its table's final tallies, once: the players confirm
    the end after tallying the final fight. The Forest Awakens is drawn here, and said in the
    campaign's history and in the table's log. Naming the table makes a repeat harmless."""
    row = load(conn, campaign_id)
    code = tables.normalize_code(raw_code) if raw_code not in (None, "") else None
    if raw_code not in (None, "") and not code:
        raise tables.TableError(t("Name the chapter's table by its code."))
    rng = rng or random.SystemRandom()
    # One writer in all: the campaign and its chapter table change together.
    with store.Transaction(conn):
        current = store.get_campaign(conn, row.id)
        if code in current.state["recorded"]:
            return Confirmed(current, code, current.state["recorded"][code], repeated=True)
        playing = current.state["table"]
        if not playing:
            raise tables.TableError(t("No chapter is being played: start the next chapter "
                                      "first."))
        if code and code != playing:
            raise tables.TableError(t("Table {code} is not this campaign's current chapter; that "
                                      "is table {playing}.", code=code, playing=playing))
        table = store.get_table(conn, playing)
        if table is None or not _ended(table.snapshot):
            raise tables.TableError(t(
                "Chapter {chapter} has not ended yet at table {code}: play it to its victory or "
                "defeat, tally the Monsters of the final fight, then confirm the end.",
                chapter=current.state["chapter"], code=playing))
        waiting = rules.loot_waiting(table.snapshot)
        if waiting:
            # The Loot earned is carried only once taken: confirming first would lose it.
            raise tables.TableError(waiting)
        state, lines = rules.record_result(current.state, playing, table.snapshot, rng)
        store.save_campaign(conn, row.id, state)
        store.add_campaign_events(conn, row.id, lines)
        entry = state["recorded"][playing]
        # Every phone at the table is told, in its log, that the end is recorded and what awoke.
        tables.add_note(conn, table, _recorded_line(current.name, entry),
                        closes=t("Chapter {chapter}'s end is recorded in the campaign, so this "
                                 "table can no longer change: the campaign goes on from its "
                                 "page.", chapter=current.state["table_chapter"]))
        if entry.get("draw"):
            tables.add_note(conn, table, rules.awakening_text(entry["draw"]))
    return Confirmed(store.get_campaign(conn, row.id), playing, entry, repeated=False)


def _ended(snapshot: dict) -> bool:
    return snapshot.get("phase") == explorers.PHASE_OVER and bool(snapshot.get("result"))


def _recorded_line(name: str, entry: dict) -> Text:
    chapter = entry["chapter"]
    if entry["outcome"] == "won":
        return t("Chapter {chapter}'s victory is recorded in the campaign {name}.",
                 chapter=chapter, name=name)
    return t("Chapter {chapter}'s defeat is recorded in the campaign {name}: each Hero discards "
             "one Loot card on the campaign page, then the chapter starts again.",
             chapter=chapter, name=name)


def tally_correction(conn, row: store.CampaignRow) -> dict | None:
    """The last won chapter's Monster tally, while it may still be corrected (until the next
    chapter starts): its table, chapter and the counts as recorded."""
    code = rules.correctable_chapter(row.state)
    if code is None:
        return None
    entry = row.state["recorded"][code]
    counts = entry.get("monsters")
    if counts is None:
        table = store.get_table(conn, code)
        counts = (table.snapshot.get("monsters") if table is not None else None) or {}
    return {"code": code, "chapter": entry["chapter"],
            "monsters": [{"kind": kind, "label": explorers.MONSTER_LABELS[kind],
                          "icon": explorers.MONSTER_ICONS[kind], "count": int(counts.get(kind, 0))}
                         for kind in explorers.MONSTERS]}


def correct_tally(conn, campaign_id, raw_counts: dict, rng: random.Random | None = None) -> None:
    """Correct the last won chapter's Monsters defeated; The Forest Awakens is drawn again.
    Each count is a whole number from 0 to 99, or the correction is refused whole."""
    row = load(conn, campaign_id)
    counts = {}
    for kind in explorers.MONSTERS:
        raw = str(raw_counts.get(kind, "") or "").strip()
        if not raw.isdigit() or int(raw) > 99:
            raise tables.TableError(t("{monsters} defeated: a whole number from 0 to 99.",
                                      monsters=rules.MONSTER_PLURALS[kind]))
        counts[kind] = int(raw)
    rng = rng or random.SystemRandom()
    with store.Transaction(conn):
        current = store.get_campaign(conn, row.id)
        try:
            state, lines = rules.correct_tally(current.state, counts, rng)
        except Rejected as exc:
            raise tables.TableError.refusing(exc) from None
        store.save_campaign(conn, row.id, state)
        store.add_campaign_events(conn, row.id, lines)


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


def chapter_table(conn, row: store.CampaignRow) -> dict | None:
    """The chapter being played: its table, and once the table has ended, its result
    waiting for the players to confirm it."""
    code = row.state["table"]
    if not code:
        return None
    table = store.get_table(conn, code)
    snapshot = table.snapshot if table is not None else {}
    over = _ended(snapshot)
    return {"code": code, "chapter": row.state["table_chapter"], "over": over,
            "result": game_result(explorers, snapshot) if over else None}


def next_step(row: store.CampaignRow, table: dict | None) -> str:
    """What the players do next: start_chapter, play_chapter, confirm_end, discard or none."""
    state = row.state
    if state["finished"]:
        return "none"
    if state["awaiting_discards"]:
        return "discard"
    if table is None:
        return "start_chapter"
    return "confirm_end" if table["over"] else "play_chapter"


def awakenings(state: dict) -> list[dict]:
    """The Forest Awakens draws, in the order of the chapters won, each with its sentence."""
    return [{"chapter": entry["chapter"], "table": code, "text": rules.awakening_text(entry["draw"]),
             **entry["draw"]}
            for code, entry in state["recorded"].items() if entry.get("draw")]


def for_table(conn, table: store.TableRow) -> dict | None:
    """What a chapter table's page shows of its campaign: the name, and once the end is
    confirmed, the result and the draw. Reading it records nothing."""
    campaign_id = table.options.get("campaign") if isinstance(table.options, dict) else None
    if table.game != GAME or not isinstance(campaign_id, int):
        return None
    try:
        row = load(conn, campaign_id)
    except tables.NotFound:
        return None
    entry = row.state["recorded"].get(table.code)
    return {"id": row.id, "name": row.name, "recorded": entry is not None,
            "outcome": entry["outcome"] if entry else None,
            "draw": rules.awakening_text(entry["draw"]) if entry and entry.get("draw") else None,
            "current": row.state["table"] == table.code}
