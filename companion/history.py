"""The game history: every finished or abandoned table kept with its result and log,
player stats across games, rematch, and export/import for moving to another server.

A table is recorded lazily (when the home or history pages are read, or by the
`archive-tables` command): a table whose game is over is recorded as finished; one with no
move for ABANDON_AFTER_HOURS is archived as unfinished (shown, never counted in stats). The
record follows its table: a correction after the end re-records it, and a table that is
played again after being archived leaves the history until it ends or is abandoned again.

Player names are matched case-insensitively; a merge makes one spelling count as another
person (chains are followed, so undoing a merge is exact). All SQL lives in store.py.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import secrets
import time
from datetime import datetime, timezone

from . import inbound, store, tables, timers
from .games import get_game
from .games.base import Rejected
from .games.words import Names, Text, t, tn, to_data

FINISHED = "finished"
UNFINISHED = "unfinished"
EMPTY = "empty"  # a table where nothing was ever played: remembered, never shown
SHOWN = (FINISHED, UNFINISHED)
EXPORT_FORMAT = "forest-table-history"
# Version 2 keeps the words a player reads (log lines, events, a result's summary and level)
# as data (`words.to_data`), so the importing server says them in each phone's language;
# version 1 files hold them as plain English and still import.
EXPORT_VERSION = 2
READ_VERSIONS = (1, 2)
IMPORT_MAX_BYTES = 5 * 1024 * 1024
PAGE_SIZE = 30
SUMMARY_MAX = 3000
STATS_PAGE_SIZE = 25  # people per page of the stats
CHART_PEOPLE = 6

def now() -> float:
    """The history's clock (tests replace it). Read through `time.time` at each call: bound
    once at import, it kept whatever clock was in place then (a test's fake one)."""
    return time.time()


class HistoryError(Exception):
    """A request about the history that is refused, with a sentence for the players."""

    status = 400

    def __init__(self, message: str):  # a Text: each phone reads it in its own language
        super().__init__(message)
        self.message = message


def name_key(name) -> str:
    """The key names are matched by: spacing and case do not matter."""
    return " ".join(str(name).split()).casefold()


# ----------------------------------------------------------------- recording tables


# How long a table's shared parts stay in the database after its last write.
SHARED_PARTS_KEPT_SECONDS = 3600


def sync(conn, at: float, abandon_after_hours: float, empty_after_hours: float | None = None) -> dict:
    """Record finished tables and archive abandoned ones; free the codes of archived tables
    and delete the tables never played after `empty_after_hours`; return how many of each."""
    abandon_after = max(0.0, float(abandon_after_hours)) * 3600
    done = {FINISHED: 0, UNFINISHED: 0, "reopened": 0, "deleted": 0, "released": 0}
    if empty_after_hours is not None:
        done["deleted"] = store.delete_never_played(conn, at - max(0.0, float(empty_after_hours)) * 3600)
    store.drop_idle_shared_parts(conn, at - SHARED_PARTS_KEPT_SECONDS)
    for row in store.tables_to_record(conn):
        with store.Transaction(conn):
            table = store.get_table(conn, row["code"])
            current = store.played_for_table(conn, table.id)
            if current is not None and current["table_version"] == table.version:
                continue  # another request recorded it meanwhile
            game = get_game(table.game)
            if game is None:
                continue
            actions = store.live_actions(conn, table.id)
            if tables.is_over(game, table.snapshot):
                status = FINISHED
            elif at - table.updated_at >= abandon_after:
                status = UNFINISHED if actions else EMPTY
            else:
                if current is not None:
                    store.delete_played(conn, current["id"])
                    done["reopened"] += 1
                continue
            record, seats = table_record(conn, table, game, actions, status)
            record["uid"] = current["uid"] if current is not None else secrets.token_hex(16)
            store.save_played(conn, record, seats, current["id"] if current is not None else None)
            if status in done:
                done[status] += 1
    # Finished or abandoned, a table untouched this long is archived: its code goes back
    # to the pool (4 letters of 25: 390,625 codes), the history keeps it for display.
    done["released"] = store.release_codes(conn, at - abandon_after)
    return done


def table_record(conn, table, game, actions, status: str) -> tuple[dict, list[dict]]:
    """The history row of a table: the log refolded to know each action's round."""
    finished = status == FINISHED
    state = tables.start_state(game, table.players, table.options)
    log = []
    refolded = True
    for row in actions:
        events: list[str] = []
        if refolded:
            try:
                state, events = tables.step(game, state, row.name, row.params, row.seat, row.created_at)
            except Rejected:
                refolded = False  # rules changed since: keep the log, without rounds
        spec = game.ACTIONS.get(row.name)
        secret = spec is not None and spec.secret
        round_number = state.get("round") if refolded else None
        log.append({
            "seq": row.seq,
            "seat": row.seat,
            "action": row.name,
            # A pick still secret at an abandoned table must never come out.
            "params": row.params if (finished or not secret) else None,
            "text": tables.describe(game, row.name, row.params, row.seat, table.players),
            "at": row.created_at,
            "round": round_number if isinstance(round_number, int) and not isinstance(round_number, bool)
            else None,
            # What the phones said after it (public by design: shown to every seat at the time).
            "events": [_event(e) for e in events[:20]],
        })
    final = state if refolded else table.snapshot
    outcome = None
    if finished and hasattr(game, "outcome"):
        try:
            outcome = clean_outcome(game.outcome(final), len(table.players))
        except (HistoryError, Rejected, KeyError, TypeError, ValueError):
            outcome = None  # a game that cannot say its result is listed without scores
    clock = final.get("_clock") or table.snapshot.get("_clock") or {}
    last_at = actions[-1].created_at if actions else table.updated_at
    ended_at = clock.get("ended_at") if finished and clock.get("ended_at") else last_at
    started_at = clock.get("started_at") or (actions[0].created_at if actions else table.created_at)
    duration = timers.elapsed(clock, ended_at) if clock.get("started_at") is not None else None
    record = {
        "uid": None, "table_id": table.id, "table_version": table.version, "code": table.code,
        "game": table.game, "game_name": game.NAME, "status": status, "options": table.options,
        "asked_options": store.asked_options(conn, table.id), "started_at": started_at,
        "ended_at": ended_at, "duration": duration, "outcome": outcome, "log": log,
    }
    _outcome_columns(record)
    return record, _seats(table.players, outcome)


def _outcome_columns(record: dict) -> None:
    outcome = record["outcome"]
    record["cooperative"] = int(bool(outcome and outcome["cooperative"]))
    record["won"] = None if not outcome or outcome["won"] is None else int(outcome["won"])
    record["level"] = outcome["level"] if outcome else None


def _seats(players: list[str], outcome: dict | None) -> list[dict]:
    results = {p["seat"]: p for p in outcome["players"]} if outcome else {}
    seats = []
    for seat, name in enumerate(players):
        result = results.get(seat, {})
        seats.append({"seat": seat, "name": name, "name_key": name_key(name),
                      "score": result.get("score"), "place": result.get("place"),
                      "winner": bool(result.get("winner", False))})
    return seats


# ----------------------------------------------------------------- people and merges


class People:
    """Which person each spelling counts as, following the stored merges."""

    def __init__(self, conn):
        self.merges = [dict(row) for row in store.merges(conn)]
        self.edges = {m["alias_key"]: m["person_key"] for m in self.merges}
        spellings = store.name_spellings(conn, SHOWN)
        self._names: dict[str, tuple] = {}
        # A person is shown under the spelling used most (the latest on a tie).
        for row in spellings:
            key = self.resolve(row["name_key"])
            rank = (row["games"], row["last"] or 0)
            if key not in self._names or rank > self._names[key][0]:
                self._names[key] = (rank, row["name"])
        for merge in self.merges:
            self._names.setdefault(self.resolve(merge["person_key"]), ((0, 0), merge["person"]))
        self.spellings = sorted({row["name"] for row in spellings}, key=name_key)

    def resolve(self, key: str) -> str:
        seen = set()
        while key in self.edges and key not in seen:
            seen.add(key)
            key = self.edges[key]
        return key

    def name(self, key: str) -> str:
        found = self._names.get(self.resolve(key))
        return found[1] if found else key

    def keys_of(self, person_key: str) -> list[str]:
        """Every spelling key that counts as this person."""
        root = self.resolve(person_key)
        keys = {root} | {k for k in self.edges if self.resolve(k) == root}
        keys |= {name_key(s) for s in self.spellings if self.resolve(name_key(s)) == root}
        return sorted(keys)

    def everyone(self) -> list[dict]:
        roots = sorted({self.resolve(name_key(s)) for s in self.spellings}, key=lambda k: self.name(k).casefold())
        return [{"key": k, "name": self.name(k)} for k in roots]


def _event(event) -> str:
    """An event line as the record keeps it: a Text whole (each phone reads it in its own
    language), any other line cut at 500 characters."""
    if isinstance(event, (Text, Names)) and len(event) <= 500:
        return event
    return str(event)[:500]


def _clean_name(raw, empty: Text, long: Text) -> str:
    if not isinstance(raw, str) or not " ".join(raw.split()):
        raise HistoryError(empty)
    name = " ".join(raw.split())
    if len(name) > tables.NAME_MAX:
        raise HistoryError(long)
    return name


def merge_names(conn, raw_alias, raw_person, at: float) -> str:
    """Count the spelling `alias` as the person `person`; return what was done, in words."""
    alias = _clean_name(raw_alias, t("The other spelling: type a name."),
                        tn("The other spelling: at most {count} character.",
                           "The other spelling: at most {count} characters.", tables.NAME_MAX))
    person = _clean_name(raw_person, t("The person: type a name."),
                         tn("The person: at most {count} character.",
                            "The person: at most {count} characters.", tables.NAME_MAX))
    with store.Transaction(conn):
        people = People(conn)
        alias_key, person_key = name_key(alias), name_key(person)
        if alias_key == person_key:
            raise HistoryError(t("“{alias}” and “{person}” already count as the same person: "
                                 "names are matched whatever their capitals.", alias=alias, person=person))
        if alias_key in people.edges:
            raise HistoryError(t("“{alias}” already counts as {person}; undo that merge first.",
                                 alias=alias, person=people.name(alias_key)))
        if people.resolve(person_key) == alias_key:
            raise HistoryError(t("“{person}” already counts as “{alias}”: merge the other way round.",
                                 person=person, alias=alias))
        store.add_merge(conn, alias_key, alias, person_key, person, at)
    return t("“{alias}” now counts as {person}.", alias=alias, person=person)


def undo_merge(conn, raw_alias) -> str:
    if not isinstance(raw_alias, str) or not raw_alias.strip():
        raise HistoryError(t("Choose the merge to undo."))
    with store.Transaction(conn):
        people = People(conn)
        key = name_key(raw_alias)
        merge = next((m for m in people.merges if m["alias_key"] == key), None)
        if merge is None:
            raise HistoryError(t("That merge does not exist (any more)."))
        store.delete_merge(conn, key)
    return t("“{alias}” counts as its own person again.", alias=merge["alias"])


# ----------------------------------------------------------------- reading


def games_in_history(conn) -> list[dict]:
    return [dict(row) for row in store.history_games(conn, SHOWN)]


def listing(conn, game: str | None, person: str | None, page: int = 0) -> dict:
    people = People(conn)
    keys = people.keys_of(name_key(person)) if person else None
    rows = store.list_played(conn, SHOWN, game or None, keys, limit=PAGE_SIZE + 1,
                             offset=page * PAGE_SIZE)
    more = len(rows) > PAGE_SIZE
    rows = rows[:PAGE_SIZE]
    seats = store.played_seats(conn, [r["id"] for r in rows])
    by_game: dict[int, list] = {}
    for seat in seats:
        by_game.setdefault(seat["played_id"], []).append(dict(seat))
    for row in rows:
        row["players"] = by_game.get(row["id"], [])
        row["winners"] = [s["name"] for s in row["players"] if s["winner"]]
        row["top"] = max((s["score"] for s in row["players"] if s["score"] is not None), default=None)
        outcome = row.pop("outcome", None) or {}
        # The row says how the game ended when the names alone cannot: stopped early, or
        # equal scores that the tie-breaks decided.
        row["ended_early"] = bool(outcome.get("ended_early"))
        scores = [s["score"] for s in row["players"] if s["score"] is not None]
        row["summary"] = (outcome.get("summary") if row["ended_early"]
                          or len(scores) != len(set(scores)) else None)
    return {"games": rows, "more": more, "page": page,
            "person": people.name(name_key(person)) if person else None}


def entry(conn, played_id: int) -> dict | None:
    """One recorded game with its seats, ranking, rounds of log and score chart data."""
    record = store.get_played(conn, played_id)
    if record is None or record["status"] not in SHOWN:
        return None
    people = People(conn)
    seats = [dict(s) for s in store.played_seats(conn, [played_id])]
    for seat in seats:
        seat["person"] = people.name(seat["name_key"])
    record["seats"] = seats
    record["ranking"] = sorted(seats, key=lambda s: (s["place"] if s["place"] is not None else 99, s["seat"]))
    record["rounds_log"] = rounds_of(record["log"])
    record["replayable"] = get_game(record["game"]) is not None
    return record


def rounds_of(log: list[dict]) -> list[dict]:
    """The log lines grouped by round, in play order."""
    groups: list[dict] = []
    for line in log:
        number = line.get("round")
        if not groups or groups[-1]["round"] != number:
            groups.append({"round": number, "lines": []})
        groups[-1]["lines"].append(line)
    return groups


def _rate(part: int, whole: int) -> int | None:
    return round(100 * part / whole) if whole else None


def stats(conn, game: str | None = None, page: int = 0) -> dict:
    """Per person: games, wins and win rate, per game with average and best score;
    per co-operative game and level: the team's win rate. Only finished games with a result.

    People come STATS_PAGE_SIZE to a page (most wins first); the chart and the team
    results are over everyone."""
    people = People(conn)
    rows = [r for r in store.seat_results(conn, (FINISHED,))
            if r["has_outcome"] and not r["ended_early"] and (not game or r["game"] == game)]
    persons: dict[str, dict] = {}
    coop: dict[tuple, dict] = {}
    timeline: list[dict] = []
    seen_games = set()
    for r in rows:
        key = people.resolve(r["name_key"])
        person = persons.setdefault(key, {"key": key, "name": people.name(key), "played": 0,
                                          "wins": 0, "games": {}, "spellings": set()})
        person["played"] += 1
        person["wins"] += int(bool(r["winner"]))
        person["spellings"].add(r["name"])
        per_game = person["games"].setdefault(r["game"], {
            "game": r["game"], "game_name": r["game_name"], "played": 0, "wins": 0, "scores": [],
            "cooperative": bool(r["cooperative"])})
        per_game["played"] += 1
        per_game["wins"] += int(bool(r["winner"]))
        if r["score"] is not None:
            per_game["scores"].append(r["score"])
        if r["played_id"] not in seen_games:
            seen_games.add(r["played_id"])
            timeline.append({"id": r["played_id"], "at": r["ended_at"], "winners": set()})
            if r["cooperative"]:
                level = coop.setdefault((r["game_name"], r["level"] or ""), {
                    "game": r["game"], "game_name": r["game_name"], "level": r["level"],
                    "played": 0, "won": 0})
                level["played"] += 1
                level["won"] += int(bool(r["won"]))
        if r["winner"]:
            timeline[-1]["winners"].add(key)
    people_rows = []
    for person in persons.values():
        games = []
        for g in sorted(person["games"].values(), key=lambda g: g["game_name"]):
            scores = g.pop("scores")
            games.append(dict(g, win_rate=_rate(g["wins"], g["played"]),
                              average=round(sum(scores) / len(scores), 1) if scores else None,
                              best=max(scores) if scores else None))
        people_rows.append(dict(person, games=games, win_rate=_rate(person["wins"], person["played"]),
                                spellings=sorted(person["spellings"], key=name_key)))
    people_rows.sort(key=lambda p: (-p["wins"], -p["played"], p["name"].casefold()))
    coop_rows = [dict(c, win_rate=_rate(c["won"], c["played"]))
                 for _, c in sorted(coop.items())]
    pages = max(1, math.ceil(len(people_rows) / STATS_PAGE_SIZE))
    page = min(max(0, page), pages - 1)
    shown = people_rows[page * STATS_PAGE_SIZE:(page + 1) * STATS_PAGE_SIZE]
    return {"people": shown, "people_count": len(people_rows), "page": page, "pages": pages,
            "more": page + 1 < pages, "per_page": STATS_PAGE_SIZE, "coop": coop_rows, "games": len(timeline),
            "wins_over_time": _wins_over_time(timeline, people_rows)}


def _wins_over_time(timeline: list[dict], people_rows: list[dict]) -> dict:
    """Each leading player's running count of wins, game after game (oldest first)."""
    shown = [p for p in people_rows if p["wins"]][:CHART_PEOPLE]
    series = []
    for person in shown:
        count, values = 0, []
        for game in timeline:
            count += person["key"] in game["winners"]
            values.append(count)
        series.append({"label": person["name"], "values": values})
    dates = [game["at"] for game in timeline]
    return {"series": series, "dates": dates}


# ----------------------------------------------------------------- rematch


def rematch(conn, played_id: int, following_table: str | None = None):
    """A new table of the same game, players and options; random choices are drawn again.
    `following_table`: the code of the finished table it is played after, which then names
    it as its next table (or names one made already, which is returned instead).

    Returns (code, host token, or None when the table was made already)."""
    record = store.get_played(conn, played_id)
    if record is None or record["status"] not in SHOWN:
        raise HistoryError(t("That game is not in the history."))
    game = get_game(record["game"])
    if game is None:
        raise HistoryError(t("{game} is not installed on this server, so it cannot be played again here.",
                             game=record["game_name"]))
    players = [s["name"] for s in store.played_seats(conn, [played_id])]
    options = record["asked_options"]
    if options is None:
        # Tables from before the options were kept as asked: the same settled options.
        options = {k: v for k, v in (record["options"] or {}).items() if k != "timer"}
        timer = (record["options"] or {}).get("timer")
        if isinstance(timer, dict) and timer.get("mode") == "turn":
            options["timer_seconds"] = timer.get("seconds")
    try:
        if following_table is not None:
            return tables.next_table(conn, following_table,
                                     lambda: tables.prepare_table(game.ID, players, dict(options)))
        return tables.create_table(conn, game.ID, players, dict(options))
    except tables.TableError as exc:
        raise HistoryError(t("The rematch could not be set up: {reason}", reason=exc.message)) from None


def open_table_of(conn, played_id: int) -> str | None:
    """The code of the table a history entry was played at, while that table can still be
    reached by it (its code not yet freed for another table)."""
    record = store.get_played(conn, played_id)
    if record is None or record["table_id"] is None:
        return None
    table = store.get_table_by_id(conn, record["table_id"])
    if table is None or table.code.startswith(store.RELEASED_PREFIX):
        return None
    return table.code


def played_id_of_table(conn, code) -> int | None:
    table = store.get_table(conn, tables.normalize_code(code))
    if table is None:
        return None
    row = store.played_for_table(conn, table.id)
    return row["id"] if row is not None else None


# ----------------------------------------------------------------- export


def _iso(at) -> str:
    if at is None:
        return ""
    return datetime.fromtimestamp(at, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def export_data(conn) -> dict:
    """Everything shown in the history, full logs included, in a stable order."""
    records = store.all_played(conn, SHOWN)
    seats_by_game: dict[int, list] = {}
    for seat in store.played_seats(conn, [r["id"] for r in records]):
        seats_by_game.setdefault(seat["played_id"], []).append(
            {"seat": seat["seat"], "name": seat["name"], "score": seat["score"],
             "place": seat["place"], "winner": bool(seat["winner"])})
    games = []
    for r in records:
        games.append({
            "uid": r["uid"], "game": r["game"], "game_name": r["game_name"], "code": r["code"],
            "status": r["status"], "started_at": r["started_at"], "ended_at": r["ended_at"],
            "duration": r["duration"], "options": r["options"], "asked_options": r["asked_options"],
            "players": seats_by_game.get(r["id"], []), "outcome": r["outcome"], "log": r["log"],
        })
    merges = sorted(({"alias": m["alias"], "person": m["person"]} for m in store.merges(conn)),
                    key=lambda m: name_key(m["alias"]))
    return {"format": EXPORT_FORMAT, "version": EXPORT_VERSION, "merges": merges, "games": games}


def export_json(conn) -> str:
    return json.dumps(to_data(export_data(conn)), ensure_ascii=False, indent=1)


CSV_COLUMNS = ("game_uid", "game", "game_name", "status", "started_at", "ended_at",
               "duration_seconds", "rounds", "cooperative", "team_won", "level", "seat", "player",
               "person", "score", "place", "winner", "summary")


# What makes a spreadsheet read a cell as a formula, full-width forms included.
FORMULA_STARTS = ("=", "+", "-", "@", "\uff1d", "\uff0b", "\uff0d", "\uff20")


def _cell(value):
    """Numbers stay numbers; text a spreadsheet would run as a formula (even after leading
    spaces) gets a leading apostrophe, which keeps it text."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    text = "" if value is None else str(value)
    if text[:1] in ("\t", "\r") or text.lstrip()[:1] in FORMULA_STARTS:
        return "'" + text
    return text


def _yes_no(value) -> str:
    return "" if value is None else ("yes" if value else "no")


def export_csv(conn, say=str) -> str:
    """One row per player per game. The column names and the values a program reads (yes,
    no, the game's id, times in UTC) stay as they are in every language; the sentences a
    person reads (a result's summary and level) are said by `say`, in the exporter's."""
    people = People(conn)
    data = export_data(conn)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for game in data["games"]:
        outcome = game["outcome"] or {}
        for seat in game["players"]:
            writer.writerow([_cell(v) for v in (
                game["uid"], game["game"], game["game_name"], game["status"],
                _iso(game["started_at"]), _iso(game["ended_at"]),
                "" if game["duration"] is None else int(game["duration"]),
                outcome.get("rounds", ""), _yes_no(outcome.get("cooperative")) if outcome else "",
                _yes_no(outcome.get("won")), say(outcome.get("level") or ""), seat["seat"] + 1,
                seat["name"], people.name(name_key(seat["name"])),
                seat["score"], seat["place"], _yes_no(seat["winner"]) if outcome else "",
                # who won and why, the sentence the table showed at the end
                say(outcome.get("summary") or ""))])
    return out.getvalue()


# ----------------------------------------------------------------- import


class _Refused(HistoryError):
    pass


def _fail(where: str, what: Text):
    # `where` is the place in the file (data, as the file names it); `what` a clause of its own.
    raise _Refused(t("The file was not imported: {where}: {problem}. Nothing was changed.",
                     where=where, problem=what))


def _int(value, where, low=None, high=None, optional=False):
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        _fail(where, t("a whole number is expected"))
    if (low is not None and value < low) or (high is not None and value > high):
        _fail(where, t("{value} is out of range", value=value))
    return value


def _number(value, where, optional=False):
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        _fail(where, t("a number is expected"))
    if not 0 <= value < 1e11:
        _fail(where, t("{value} is out of range", value=value))
    return value


def _text(value, where, max_length, optional=False, pattern=None):
    if value is None and optional:
        return None
    if not isinstance(value, str):
        _fail(where, t("text is expected"))
    if len(value) > max_length:
        _fail(where, tn("at most {count} character", "at most {count} characters", max_length))
    if pattern and not re.fullmatch(pattern, value):
        _fail(where, t("unexpected characters"))
    return value


# A message kept as data: its holes are plain names ({who}), never a format spec or an attribute.
_HOLES = re.compile(r"\{\{|\}\}|\{[A-Za-z_][A-Za-z0-9_]{0,30}\}|[^{}]")
WORD_KEYS = frozenset({"$t", "$names"})


def _words(value, where, max_length, optional=False, depth=0):
    """A text a player reads: plain text (version 1, or a player's own words) or a message
    kept as data (`words.to_data`, version 2), checked before it is made again."""
    if value is None and optional:
        return None
    if isinstance(value, str) or depth > 3:
        return _text(value, where, max_length)
    value = _object(value, where)
    if "$names" in value:
        if len(value) != 1:
            _fail(where, t("unexpected value"))
        names = [_words(item, f"{where}.$names[{i}]", 200, depth=depth + 1)
                 for i, item in enumerate(_list(value["$names"], f"{where}.$names", 20))]
        made = Names(names)
    else:
        message = _text(value.get("$t"), f"{where}.$t", max_length)
        if set(value) - {"$t", "v", "pl", "n", "c"}:
            _fail(where, t("unexpected value"))
        plural = _text(value.get("pl"), f"{where}.pl", max_length, optional=True)
        context = _text(value.get("c"), f"{where}.c", 100, optional=True)
        count = _int(value.get("n"), f"{where}.n", -10**9, 10**9, optional=True)
        for pattern in (message, plural or "", context or ""):
            if _HOLES.sub("", pattern):
                _fail(where, t("unexpected characters"))
        values = {}
        for key, item in _object(value.get("v", {}), f"{where}.v").items():
            if len(values) >= 20:
                _fail(f"{where}.v", t("too many values"))
            at = f"{where}.v.{_text(key, f'{where}.v', 30, pattern=r'[A-Za-z_][A-Za-z0-9_]*')}"
            if isinstance(item, int) and not isinstance(item, bool):
                values[key] = _int(item, at, -10**9, 10**9)
            else:
                values[key] = _words(item, at, 200, depth=depth + 1)
        try:
            made = Text(message, values, plural=plural, count=count, context=context)
        except (KeyError, IndexError, ValueError):
            _fail(where, t("a hole of the message has no value"))
    if len(made) > max_length:
        _fail(where, tn("at most {count} character", "at most {count} characters", max_length))
    return made


def _bool(value, where, optional=False):
    if value is None and optional:
        return None
    if not isinstance(value, bool):
        _fail(where, t("true or false is expected"))
    return value


def _plain(value, where, depth=0):
    """A small JSON value of text, numbers and nested objects or lists (options, params)."""
    if depth > 3:
        _fail(where, t("nested too deeply"))
    if value is None or isinstance(value, (bool, str)):
        if isinstance(value, str) and len(value) > 200:
            _fail(where, t("at most 200 characters"))
        return value
    if isinstance(value, (int, float)):
        if isinstance(value, float) and not math.isfinite(value):
            _fail(where, t("a number is expected"))
        return value
    if isinstance(value, list):
        if len(value) > 50:
            _fail(where, t("too many values"))
        return [_plain(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(value)]
    if isinstance(value, dict):
        if len(value) > 50:
            _fail(where, t("too many values"))
        if WORD_KEYS & set(value):  # would be read back as words (words.from_data)
            _fail(where, t("unexpected value"))
        return {_text(k, where, 40): _plain(v, f"{where}.{k}", depth + 1) for k, v in value.items()}
    _fail(where, t("unexpected value"))


def _object(value, where, optional=False):
    if value is None and optional:
        return None
    if not isinstance(value, dict):
        _fail(where, t("an object is expected"))
    return value


def _list(value, where, max_items):
    if not isinstance(value, list):
        _fail(where, t("a list is expected"))
    if len(value) > max_items:
        _fail(where, tn("at most {count} entry", "at most {count} entries", max_items))
    return value


def _player_name(value, where):
    name = _text(value, where, tables.NAME_MAX)
    if not " ".join(name.split()):
        _fail(where, t("a name is empty"))
    return " ".join(name.split())


def clean_outcome(raw, seat_count: int, where: str = "outcome") -> dict | None:
    """Check an outcome's shape (a game's or an imported one); raise HistoryError."""
    if raw is None:
        return None
    raw = _object(raw, where)
    players = []
    for i, p in enumerate(_list(raw.get("players"), f"{where}.players", 20)):
        at = f"{where}.players[{i}]"
        p = _object(p, at)
        players.append({"seat": _int(p.get("seat"), f"{at}.seat", 0, seat_count - 1),
                        "name": _player_name(p.get("name"), f"{at}.name"),
                        "score": _int(p.get("score"), f"{at}.score", -10**6, 10**6, optional=True),
                        "place": _int(p.get("place"), f"{at}.place", 1, 20, optional=True),
                        "winner": _bool(p.get("winner"), f"{at}.winner")})
    if len({p["seat"] for p in players}) != len(players):
        _fail(f"{where}.players", t("a seat appears twice"))
    by_round = raw.get("score_by_round")
    if by_round is not None:
        by_round = [[_int(v, f"{where}.score_by_round[{r}]", -10**6, 10**6)
                     for v in _list(scores, f"{where}.score_by_round[{r}]", 20)]
                    for r, scores in enumerate(_list(by_round, f"{where}.score_by_round", 200))]
        if any(len(scores) != seat_count for scores in by_round):
            _fail(f"{where}.score_by_round", t("each round needs one score per player"))
    clean = {
        "cooperative": _bool(raw.get("cooperative"), f"{where}.cooperative"),
        "won": _bool(raw.get("won"), f"{where}.won", optional=True),
        "level": _words(raw.get("level"), f"{where}.level", 60, optional=True),
        "players": players,
        "rounds": _int(raw.get("rounds"), f"{where}.rounds", 0, 1000, optional=True),
        "score_by_round": by_round,
    }
    if "summary" in raw:
        # Long enough for every tie-break of a twelve-player game, one sentence each.
        clean["summary"] = _words(raw.get("summary"), f"{where}.summary", SUMMARY_MAX, optional=True)
    if raw.get("ended_early") is not None:
        # Kept only when said: a game the players stopped before the rules' end names no winner.
        clean["ended_early"] = _bool(raw.get("ended_early"), f"{where}.ended_early")
    if clean["cooperative"] and clean["won"] is None:
        _fail(f"{where}.won", t("a co-operative game needs won true or false"))
    return clean


def _clean_log(raw, where) -> list[dict]:
    lines = []
    for i, line in enumerate(_list(raw, where, 20000)):
        at = f"{where}[{i}]"
        line = _object(line, at)
        params = line.get("params")
        lines.append({"seq": _int(line.get("seq"), f"{at}.seq", 0, 10**9),
                      "seat": _int(line.get("seat"), f"{at}.seat", 0, 19, optional=True),
                      "action": _text(line.get("action"), f"{at}.action", 40),
                      "params": None if params is None else _plain(_object(params, f"{at}.params"), f"{at}.params"),
                      "text": _words(line.get("text"), f"{at}.text", 500),
                      "at": _number(line.get("at"), f"{at}.at"),
                      "round": _int(line.get("round"), f"{at}.round", 0, 1000, optional=True),
                      "events": [_words(e, f"{at}.events[{j}]", 500)
                                 for j, e in enumerate(_list(line.get("events", []), f"{at}.events", 20))]})
    return lines


def _clean_game(raw, where) -> tuple[dict, list[dict]]:
    raw = _object(raw, where)
    players = []
    for i, p in enumerate(_list(raw.get("players"), f"{where}.players", 20)):
        at = f"{where}.players[{i}]"
        p = _object(p, at)
        players.append({"seat": _int(p.get("seat"), f"{at}.seat", 0, 19),
                        "name": _player_name(p.get("name"), f"{at}.name"),
                        "score": _int(p.get("score"), f"{at}.score", -10**6, 10**6, optional=True),
                        "place": _int(p.get("place"), f"{at}.place", 1, 20, optional=True),
                        "winner": _bool(p.get("winner"), f"{at}.winner")})
    if not players:
        _fail(f"{where}.players", t("a game needs at least one player"))
    if [p["seat"] for p in players] != list(range(len(players))):
        _fail(f"{where}.players", t("seats must be 0, 1, 2… in order"))
    status = _text(raw.get("status"), f"{where}.status", 20)
    if status not in SHOWN:
        _fail(f"{where}.status", t("finished or unfinished expected"))
    outcome = clean_outcome(raw.get("outcome"), len(players), f"{where}.outcome")
    if outcome is not None and status != FINISHED:
        _fail(f"{where}.outcome", t("an unfinished game has no result"))
    record = {
        "uid": _text(raw.get("uid"), f"{where}.uid", 64, pattern=r"[A-Za-z0-9_-]+"),
        "table_id": None, "table_version": None,
        "code": _text(raw.get("code"), f"{where}.code", 12, pattern=r"[A-Z0-9]*"),
        "game": _text(raw.get("game"), f"{where}.game", 40, pattern=r"[a-z0-9][a-z0-9-]*"),
        "game_name": _text(raw.get("game_name"), f"{where}.game_name", 80),
        "status": status,
        "options": _plain(_object(raw.get("options"), f"{where}.options"), f"{where}.options"),
        "asked_options": _plain(_object(raw.get("asked_options"), f"{where}.asked_options", optional=True),
                                f"{where}.asked_options"),
        "started_at": _number(raw.get("started_at"), f"{where}.started_at"),
        "ended_at": _number(raw.get("ended_at"), f"{where}.ended_at"),
        "duration": _number(raw.get("duration"), f"{where}.duration", optional=True),
        "outcome": outcome,
        "log": _clean_log(raw.get("log"), f"{where}.log"),
    }
    if not record["game_name"].strip():
        _fail(f"{where}.game_name", t("the game needs a name"))
    _outcome_columns(record)
    seats = [dict(p, name_key=name_key(p["name"])) for p in players]
    return record, seats


def _no_constants(name):
    raise _Refused(t("The file was not imported: it contains {name}, which is not a number. "
                     "Nothing was changed.", name=name))


def parse_import(raw: bytes, max_games: int = 10000) -> tuple[list, list]:
    """Check a whole export file; return (games, merges) or raise HistoryError."""
    if not raw:
        raise _Refused(t("Choose a history file (.json) exported from Forest Table."))
    try:
        data = json.loads(raw.decode("utf-8"), parse_constant=_no_constants)
    except UnicodeDecodeError:
        raise _Refused(t("The file was not imported: it is not a text file. Nothing was changed.")) from None
    except json.JSONDecodeError as exc:
        raise _Refused(t("The file was not imported: it is not valid JSON (line {line}, "
                         "column {column}). Nothing was changed.", line=exc.lineno, column=exc.colno)) from None
    except RecursionError:
        raise _Refused(t("The file was not imported: it is nested too deeply. Nothing was changed.")) from None
    try:
        inbound.check_json(data, "The file")
    except inbound.Refused as exc:
        raise _Refused(t("The file was not imported: {reason}", reason=exc.message)) from None
    if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
        raise _Refused(t("The file was not imported: it is not a Forest Table history export. "
                         "Nothing was changed."))
    if data.get("version") not in READ_VERSIONS:
        raise _Refused(t("The file was not imported: it is of version {version}; this server reads "
                         "versions {oldest} to {newest}. Nothing was changed.",
                         version=repr(data.get("version"))[:20], oldest=READ_VERSIONS[0],
                         newest=READ_VERSIONS[-1]))
    listed = _list(data.get("games"), "games", 10**9)
    if len(listed) > max_games:
        raise _Refused(tn("The file was not imported: it holds {count} game and one import takes "
                          "at most {most}; split it into smaller files. Nothing was changed.",
                          "The file was not imported: it holds {count} games and one import takes "
                          "at most {most}; split it into smaller files. Nothing was changed.",
                          len(listed), most=max_games))
    games = [_clean_game(g, f"games[{i}]") for i, g in enumerate(listed)]
    merges = []
    for i, m in enumerate(_list(data.get("merges", []), "merges", 1000)):
        m = _object(m, f"merges[{i}]")
        alias = _player_name(m.get("alias"), f"merges[{i}].alias")
        person = _player_name(m.get("person"), f"merges[{i}].person")
        if name_key(alias) == name_key(person):
            _fail(f"merges[{i}]", t("a name cannot be merged with itself"))
        merges.append((alias, person))
    return games, merges


def import_file(conn, raw: bytes, at: float, max_games: int = 10000,
                max_imported: int | None = None) -> dict:
    """Import an export file in one transaction: all or nothing; known games are skipped.

    One file holds at most `max_games` games; the history keeps at most `max_imported`
    imported games in all (played ones are never limited)."""
    games, merges = parse_import(raw, max_games)
    added = skipped = merged = 0
    with store.Transaction(conn):
        for record, seats in games:
            if store.played_uid_exists(conn, record["uid"]):
                skipped += 1
                continue
            store.save_played(conn, record, seats)
            added += 1
        held = store.imported_count(conn)
        if max_imported is not None and held > max_imported:
            raise _Refused(t("The file was not imported: the history keeps at most {most} "
                             "imported games and would then hold {held}. Nothing was changed.",
                             most=max_imported, held=held))
        people = People(conn)
        for alias, person in merges:
            alias_key, person_key = name_key(alias), name_key(person)
            if alias_key in people.edges or people.resolve(person_key) == alias_key:
                continue  # this server already decided about that spelling
            store.add_merge(conn, alias_key, alias, person_key, person, at)
            people.edges[alias_key] = person_key
            merged += 1
    return {"added": added, "skipped": skipped, "merges": merged}
