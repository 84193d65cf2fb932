"""A table's life: create it, take and free seats, apply an action, undo.

The state is the fold of the live action log over the game's setup; the snapshot in the
table row is a cache of that fold at the current version. Every write happens inside one
IMMEDIATE transaction that re-reads the version, so a write made against an old version is
refused and nothing is applied twice.
"""

from __future__ import annotations

import hashlib
import json
import random
import secrets
from dataclasses import dataclass, field

import time

from . import store, timers
from .games import GAMES, get_game, words
from .games.base import Rejected, StepOver, check_action
from .games.words import t, tn

# No 0/O, 1/I/L, 2/Z, 5/S, 8/B: easy to read aloud and to type from a glance.
CODE_ALPHABET = "ACDEFGHJKMNPQRTUVWXY34679"
# New codes have 4 letters (390,625 codes) while enough are free, then 5, then 6 (244
# million): a longer space is used once this many random draws of a length were all taken.
# Codes already given keep their length.
CODE_LENGTH = 4
CODE_MAX_LENGTH = 6
CODE_TRIES_PER_LENGTH = 40
NAME_MAX = 24

# Rows the table layer itself writes into the log; no game names an action with "_".
SEAT_FREED = "_seat_freed"  # a freed seat's unrevealed pick was withdrawn (public line)
WITHDRAWN = "_withdrawn"  # an unrevealed pick that never reached its reveal: no value kept
# Added to a stored action's params: the seats whose unrevealed picks that action ended.
DROPPED = "_dropped_picks"
# A public line after an undo took a reveal back: every phone learns why its pick is gone.
REVEAL_UNDONE = "_reveal_undone"
REVEAL_UNDONE_LINE = t("The reveal was undone: everyone chooses again.")
# A public sentence the app adds to a table's log from outside the game (a campaign's draw).
NOTE = "_note"
# Set by a note that closes the table (a campaign chapter's end once recorded): why nothing at
# the table may change any more, so the table never tells a story the campaign does not keep.
CLOSED = "_closed"
# The option that makes a table a campaign chapter: only the campaign layer may set it.
CHAPTER_START = "campaign_start"


NO_SUCH_TABLE = t("No table has that code. Check the letters and try again.")


class TableError(Exception):
    """A request the table refuses; `status` is the HTTP status the JSON API reports."""

    status = 400

    def __init__(self, message: str, param: str | None = None, detail: str | None = None):
        super().__init__(message)
        self.message = message
        self.param = param  # the parameter whose value was refused, when it is one
        self.detail = detail

    @classmethod
    def refusing(cls, exc: Rejected) -> "TableError":
        """The rules' refusal, keeping which parameter it names."""
        return cls(exc.reason, exc.param, exc.detail)

    def for_api(self) -> dict:
        """The JSON error body: a refused value is named by its parameter, not its label."""
        if self.param is None:
            return {"error": self.message}
        return {"error": t("{label}: {detail}", label=self.param, detail=self.detail), "param": self.param}


class NotFound(TableError):
    status = 404


class Forbidden(TableError):
    status = 403


class Stale(TableError):
    status = 409


class ReusedRequestId(TableError):
    """A request id already used for another request: refused, never taken for a retry."""

    status = 409


@dataclass
class Outcome:
    version: int
    events: list = field(default_factory=list)
    repeated: bool = False  # the same request arrived before: applied once, not again


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    """A seat or host token: 256 random bits."""
    return secrets.token_urlsafe(32)


def normalize_code(raw) -> str:
    if not isinstance(raw, str):
        return ""
    return "".join(ch for ch in raw.upper() if ch.isalnum())


def clean_players(raw_names, game) -> list[str]:
    """Trim and check the player names in seat order, or raise TableError."""
    if not isinstance(raw_names, list):
        raise TableError(t("Players must be a list of names in seat order."))
    names = []
    for raw in raw_names:
        if not isinstance(raw, str):
            raise TableError(t("Each player name must be text."))
        name = " ".join(raw.split())
        if name:
            names.append(name)
    if any(len(n) > NAME_MAX for n in names):
        raise TableError(t("Player names can be at most {count} characters.", count=NAME_MAX))
    if len({n.casefold() for n in names}) != len(names):
        raise TableError(t("Two players have the same name; add an initial to tell them apart."))
    if not game.MIN_PLAYERS <= len(names) <= game.MAX_PLAYERS:
        raise TableError(t("{game} is for {low} to {high} players; {count} given.", game=game.NAME,
                           low=game.MIN_PLAYERS, high=game.MAX_PLAYERS, count=len(names)))
    return names


def fold(game, players: list[str], options: dict, actions) -> dict:
    """Replay the log from the start: the state is exactly what the actions made it."""
    state = start_state(game, players, options)
    for row in actions:
        state, _ = step(game, state, row.name, row.params, row.seat, row.created_at)
    return state


def start_state(game, players: list[str], options: dict) -> dict:
    state = game.setup(players, options)
    clock = timers.new(options)
    if clock["mode"] == "turn":
        # Set to the first timed step but waiting for Start: the table may still be sitting down.
        clock["cue"], clock["cue_label"] = timer_cue(game, state) or (None, "")
    state["_clock"] = clock
    return state


def step(game, state: dict, action: str, params: dict, seat, at: float) -> tuple[dict, list[str]]:
    """One action, the game's or the table clock's, at server time `at`; return state and events."""
    clock = state.get("_clock") or timers.new({})
    if action in (SEAT_FREED, REVEAL_UNDONE, NOTE):
        new_state = dict(state)
        new_state["events"] = [describe(game, action, params, seat, state.get("players", []))]
        if action == NOTE and params.get("closes"):
            closes = words.from_data(params["closes"])
            new_state[CLOSED] = closes if isinstance(closes, str) else str(closes)
        return new_state, list(new_state["events"])
    if action in timers.ACTIONS:
        clock, said = timers.apply(clock, action, params, at, timer_cue(game, state), is_over(game, state),
                                   step=getattr(game, "TIMER_STEP", "turn"))
        new_state = dict(state)
        new_state["_clock"] = clock
        return new_state, [said]
    new_state = game.apply(state, action, params, seat)
    new_state["_clock"] = timers.after_game_action(clock, timer_cue(game, new_state),
                                                   is_over(game, new_state), at)
    if params.get(DROPPED):
        new_state["events"] = list(new_state.get("events", [])) + [
            dropped_line(state.get("players", []), params[DROPPED])]
    return new_state, list(new_state.get("events", []))


def withdrawn_line(players: list[str], seat) -> str:
    name = words.player_name(players, seat)
    return t("{name}'s seat was freed: {name}'s choice was withdrawn unseen; {name} chooses again.", name=name)


def dropped_line(players: list[str], seats: list[int]) -> str:
    names = words.join_names([words.player_name(players, s) for s in seats])
    if len(seats) == 1:
        return t("{name}'s choice was never revealed and is discarded unseen.", name=names)
    return t("The choices of {names} were never revealed and are discarded unseen.", names=names)


def timer_cue(game, state: dict):
    """The game's current timed step as (key, label), or None; games without turns have none."""
    cue = getattr(game, "timer_cue", None)
    return cue(state) if cue else None


def is_over(game, state: dict) -> bool:
    over = getattr(game, "is_over", None)
    return bool(over(state)) if over else state.get("phase") == "over"


def all_actions(game) -> dict:
    return {**game.ACTIONS, **timers.ACTIONS}


def describe(game, action: str, params: dict, seat, players: list[str]) -> str:
    if action == SEAT_FREED:
        return withdrawn_line(players, params.get("seat"))
    if action == REVEAL_UNDONE:
        return REVEAL_UNDONE_LINE
    if action == NOTE:
        # A note's words are kept as data (words.to_data) in its row, so each phone reads them.
        text = words.from_data(params.get("text", ""))
        return text if isinstance(text, str) else str(text)
    if action in timers.ACTIONS:
        name = words.player_name(players, seat)
        return timers.describe(action, params, name, getattr(game, "TIMER_STEP", "turn"))
    return game.describe(action, params, seat, players)


@dataclass
class NewTable:
    """A table set up and checked, not yet stored: its rules run before any lock is taken."""

    game: object
    players: list
    options: dict
    state: dict
    asked: dict


def prepare_table(game_id: str, raw_players, raw_options, rng: random.Random | None = None,
                  *, chapter_start: dict | None = None) -> NewTable:
    """Check and set up a new table, or raise TableError.

    `chapter_start` (a campaign chapter's starting state) is passed only by the campaign
    layer: the public routes hand over the options they were sent, which may not carry it."""
    game = get_game(game_id)
    if game is None:
        raise TableError(t("Unknown game."))
    players = clean_players(raw_players, game)
    if not isinstance(raw_options, dict):
        raise TableError(t("Options must be given as named values."))
    if CHAPTER_START in raw_options:
        raise TableError(t("A campaign chapter's table is started from its campaign (the campaign "
                           "page or POST /api/campaigns/<id>/chapters), not by a table option."))
    if chapter_start is not None:
        raw_options = {**raw_options, CHAPTER_START: chapter_start}
    rng = rng or random.SystemRandom()
    try:
        options = game.prepare_options(raw_options, players, rng)
        if getattr(game, "timer_cue", None) and raw_options.get("timer_seconds") not in (None, ""):
            options["timer"] = timers.parse_setting(raw_options.get("timer_seconds"))
        state = start_state(game, players, options)
    except Rejected as exc:
        raise TableError.refusing(exc) from None
    return NewTable(game, players, options, state, asked_options(game, raw_options))


def insert_table(conn, new: NewTable, host_token: str, after: store.TableRow | None = None) -> str:
    """Store a prepared table inside the caller's write transaction; return its code.

    `after`: the table the same group played before. The new table becomes its next table
    (its phones are offered their seats there, each seat kept for the phone that held it),
    unless it has one already: then TableError, and the caller's transaction stores nothing."""
    kept_for = None
    if after is not None:
        rows = store.seats(conn, after.id)
        if [row["name"] for row in rows] == new.players:
            kept_for = [row["token_hash"] for row in rows]
    code = _free_code(conn)
    table_id = store.insert_table(conn, code, new.game.ID, new.game.RULES_VERSION, new.options,
                                  new.players, hash_token(host_token), new.state, new.asked,
                                  kept_for=kept_for)
    if after is not None and not store.link_next_table(conn, after.id, table_id):
        raise TableError(t("Table {code} has its next table already.", code=after.code))
    return code


def create_table(conn, game_id: str, raw_players, raw_options, rng: random.Random | None = None,
                 *, chapter_start: dict | None = None):
    """Create a table; return (code, host token)."""
    new = prepare_table(game_id, raw_players, raw_options, rng, chapter_start=chapter_start)
    host_token = new_token()
    with store.Transaction(conn):
        code = insert_table(conn, new, host_token)
    return code, host_token


def next_table(conn, code, prepare) -> tuple[str, str | None]:
    """The table this table's group plays next: the one named already, or else a new one
    made from `prepare()` (a NewTable) and named in the same transaction, so two taps, on
    one server or two, make one table. Return (its code, the host token if made here)."""
    table = load(conn, code)
    found = following(conn, table)
    if found is not None:
        return found.code, None
    new = prepare()
    host_token = new_token()
    with store.Transaction(conn):
        current = store.get_table_by_id(conn, table.id)
        found = following(conn, current)
        if found is not None:  # another tap named it while this one was setting up
            return found.code, None
        new_code = insert_table(conn, new, host_token, after=current)
    return new_code, host_token


def following(conn, table: store.TableRow) -> store.TableRow | None:
    """The table named as this one's next table, if any."""
    return store.get_table_by_id(conn, table.next_table_id) if table.next_table_id else None


def take_kept_seats(conn, code, tokens_before) -> list[tuple[int, str]]:
    """Take every seat of the table kept for this phone (it holds, at the table before,
    the tokens `tokens_before`); return [(seat, token)], none when none is kept for it."""
    hashes = {hash_token(t) for t in tokens_before if isinstance(t, str)}
    table = load(conn, code)
    taken = []
    if not hashes:
        return taken
    with store.Transaction(conn, table.code):
        for row in store.seats(conn, table.id):
            if row["token_hash"] is None and row["kept_for"] in hashes:
                token = new_token()
                store.set_seat_token(conn, table.id, row["seat"], hash_token(token))
                taken.append((row["seat"], token))
    return taken


def add_note(conn, table: store.TableRow, text: str, closes: str | None = None) -> int:
    """Add a public sentence to a table's log, inside the caller's write transaction: every
    phone shows it, and the history keeps it. With `closes` (the reason), no move or undo is
    taken at the table afterwards. Return the table's new version."""
    game = get_game(table.game)
    current = store.get_table(conn, table.code)
    at = time.time()
    params = {"text": words.to_data(text), **({"closes": words.to_data(closes)} if closes else {})}
    state, _ = step(game, current.snapshot, NOTE, params, None, at)
    store.append_action(conn, table.id, None, NOTE, params, None, at)
    return store.save_snapshot(conn, table.id, state)


def asked_options(game, raw_options: dict) -> dict:
    """The options as asked for, before random choices were settled: a rematch asks again."""
    asked = {}
    for name in [p.name for p in game.OPTIONS] + ["timer_seconds"]:
        value = raw_options.get(name)
        if isinstance(value, (bool, int, float)) or value is None:
            asked[name] = value
        elif isinstance(value, str):
            asked[name] = value[:100]
    return asked


def _free_code(conn) -> str:
    picker = random.SystemRandom()
    for length in range(CODE_LENGTH, CODE_MAX_LENGTH + 1):
        for _ in range(CODE_TRIES_PER_LENGTH):
            code = "".join(picker.choice(CODE_ALPHABET) for _ in range(length))
            if not store.code_exists(conn, code):
                return code
    raise TableError(t("No free table code left; try again."))


def load(conn, code) -> store.TableRow:
    table = store.get_table(conn, normalize_code(code))
    if table is None:
        raise NotFound(NO_SUCH_TABLE)
    return table


def seats_held(conn, table: store.TableRow, tokens, rows=None) -> list[int]:
    """The seats whose current token is among this phone's tokens (`rows`: the table's
    seat rows, when already read)."""
    hashes = {hash_token(t) for t in tokens if isinstance(t, str)}
    rows = store.seats(conn, table.id) if rows is None else rows
    return [row["seat"] for row in rows if row["token_hash"] in hashes]


def seat_list(conn, table: store.TableRow, held: list[int], rows=None, tokens_before=()) -> list[dict]:
    """Each seat: taken (by a phone, or kept for one), kept (for the phone that held it at
    the table before), kept for this phone (it holds `tokens_before` there), this phone's."""
    hashes = {hash_token(t) for t in tokens_before if isinstance(t, str)}
    listed = []
    for row in (store.seats(conn, table.id) if rows is None else rows):
        kept = row["token_hash"] is None and row["kept_for"] is not None
        listed.append({"seat": row["seat"], "name": row["name"],
                       "taken": row["token_hash"] is not None or kept, "kept": kept,
                       "kept_mine": kept and row["kept_for"] in hashes, "mine": row["seat"] in held})
    return listed


def is_host(table: store.TableRow, host_token) -> bool:
    return isinstance(host_token, str) and secrets.compare_digest(hash_token(host_token),
                                                                  table.host_token_hash)


def take_seat(conn, code, seat, tokens_before=()) -> tuple[int, str]:
    """Take a free seat, or one kept for this phone (`tokens_before`: its tokens at the
    table before); return (seat, token)."""
    table = load(conn, code)
    if isinstance(seat, bool) or not isinstance(seat, int):
        try:
            seat = int(str(seat))
        except (TypeError, ValueError):
            raise TableError(t("Pick a seat by its number.")) from None
    token = new_token()
    with store.Transaction(conn, table.code):
        rows = {row["seat"]: row for row in store.seats(conn, table.id)}
        if seat not in rows:
            raise TableError(t("That seat does not exist at this table."))
        if rows[seat]["token_hash"] is not None:
            raise TableError(t("{name}'s seat is already taken by another phone.", name=rows[seat]["name"]))
        kept_for = rows[seat]["kept_for"]
        if kept_for is not None and kept_for not in {hash_token(t) for t in tokens_before if isinstance(t, str)}:
            name = rows[seat]["name"]
            raise TableError(t("{name}'s seat is kept for the phone that played {name} at the last "
                               "game; the host can free it from the table's code.", name=name))
        store.set_seat_token(conn, table.id, seat, hash_token(token))
    return seat, token


def free_seat(conn, code, host_token, seat) -> None:
    """Free a seat (its phone was lost): the old token stops working."""
    table = load(conn, code)
    if not is_host(table, host_token):
        raise Forbidden(t("Only the phone that created the table can free a seat."))
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(table.players):
        raise TableError(t("That seat does not exist at this table."))
    game = get_game(table.game)
    with store.Transaction(conn, table.code):
        current = store.get_table(conn, table.code)
        store.set_seat_token(conn, table.id, seat, None)
        if game.secret_open(current.snapshot, seat):
            # The pick belongs to the phone that made it: whoever takes the seat next must
            # not find it, so it is withdrawn for good and the table is told.
            _withdraw_pending(conn, game, table.id, [seat])
            store.append_action(conn, table.id, None, SEAT_FREED, {"seat": seat}, None)
            store.save_snapshot(conn, table.id, fold(game, table.players, table.options,
                                                     store.live_actions(conn, table.id)))


def _check_seat(table, seat, held):
    if not held:
        raise Forbidden(t("Take a seat at this table first."))
    if seat is None:
        return held[0]
    if isinstance(seat, bool) or not isinstance(seat, int) or seat not in held:
        raise Forbidden(t("This phone does not hold that seat."))
    return seat


def _parse_version(version) -> int | None:
    if version is None or version == "":
        return None
    if isinstance(version, bool):
        raise TableError(t("The version must be a whole number."))
    try:
        return int(str(version))
    except ValueError:
        raise TableError(t("The version must be a whole number.")) from None


def _check_request_id(request_id):
    """A request id is text of up to 64 characters, or a whole number (7 and "7" are one id)."""
    if request_id in (None, ""):
        return None
    if isinstance(request_id, int) and not isinstance(request_id, bool):
        request_id = str(request_id)
    if not isinstance(request_id, str) or len(request_id) > 64:
        raise TableError(t("Malformed request id: send text of up to 64 characters, or a whole number."))
    return request_id


def request_key(conn, table_id: int, seat: int, action: str, params: dict) -> str:
    """Which phone sent what under a request id: the acting seat's token (so another phone,
    or the seat's next holder, is told apart), the action, and a digest of the seat and the
    values (store.REQUEST_DIGEST_LENGTH long, forgotten when the row is withdrawn)."""
    token_hash = next((row["token_hash"] for row in store.seats(conn, table_id) if row["seat"] == seat), None)
    phone = hashlib.sha256(f"phone|{token_hash}".encode()).hexdigest()[:32]
    values = json.dumps([seat, params], sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(values.encode()).hexdigest()[:store.REQUEST_DIGEST_LENGTH]
    return f"{phone}|{action}|{digest}"


REUSED_BY_ANOTHER_PHONE = t("That request id was already used by another phone at this table: nothing "
                            "was changed. Send each new request with a new id.")
REUSED_FOR_ANOTHER_REQUEST = t("That request id was already used for a different request: nothing was "
                               "changed. A retry sends the same action with the same values; a new "
                               "request needs a new id.")
VERSION_MISSING = t("The version this phone saw is missing.")
CHANGED_FIRST = t("Someone else changed the table first. Here it is as it is now.")


def _is_retry(conn, table_id: int, request_id: str | None, key: str) -> bool:
    """True when this very request (same phone, same action and values) was applied before;
    False when the id is new. A reused id with anything else is refused (ReusedRequestId)."""
    if not request_id:
        return False
    used = store.request_key(conn, table_id, request_id)
    if used is None:
        return False
    if used == "":
        return True  # logged before keys were kept: the id alone decides, as it did then
    if used == key:
        return True
    used_phone, used_action, used_digest = used.split("|", 2)
    phone, action, _ = key.split("|", 2)
    if used_phone != phone:
        raise ReusedRequestId(REUSED_BY_ANOTHER_PHONE)
    if used_action == action and used_digest == store.REQUEST_KEY_WITHDRAWN:
        return True  # a pick withdrawn since: its values are forgotten, its phone and action are not
    raise ReusedRequestId(REUSED_FOR_ANOTHER_REQUEST)


def apply_action(conn, code, held: list[int], seat, action, raw_params, version, request_id=None,
                 answered_by: str | None = None) -> Outcome:
    """Apply one action for a seat this phone holds; raise TableError or Stale to refuse.
    `answered_by`: the phone that gets the new view in the answer (live.Hub.answered)."""
    table = load(conn, code)
    game = get_game(table.game)
    acting = _check_seat(table, seat, held)
    if seat is None and len(held) > 1 and hasattr(game, "acting_seat"):
        # A phone passed around the table: the move is credited to the seat acting, if held.
        named = game.acting_seat(table.snapshot, action, raw_params)
        acting = named if named in held else acting
    version = _parse_version(version)
    request_id = _check_request_id(request_id)
    try:
        spec, params = check_action(all_actions(game), action,
                                    raw_params if raw_params is not None else {}, len(table.players))
    except Rejected as exc:
        raise TableError.refusing(exc) from None
    with store.Transaction(conn, table.code):
        current = store.get_table(conn, table.code)
        key = request_key(conn, table.id, acting, action, params) if request_id else None
        if _is_retry(conn, table.id, request_id, key):
            return Outcome(current.version, repeated=True)
        if current.snapshot.get(CLOSED):
            raise TableError(current.snapshot[CLOSED])
        if version is None:
            raise TableError(VERSION_MISSING)
        # Secret picks and per-player entries commute, so an older version is fine for them.
        if version != current.version and not spec.any_version:
            late = _step_over(game, current.snapshot, action, params, acting) if spec.step else None
            raise Stale(late or CHANGED_FIRST)
        if action in timers.ACTIONS and params[timers.STAMP] != timers.stamp(current.snapshot.get("_clock")):
            raise Stale(timers.CLOCK_MOVED_ON)  # a double tap, or another phone's tap first
        at = time.time()
        before = current.snapshot
        try:
            state, events = step(game, before, action, params, acting, at)
        except Rejected as exc:
            raise TableError.refusing(exc) from None
        wiped = []
        if spec.secret and game.secret_open(before, acting):
            # A change of mind: the earlier pick was never revealed, so nothing keeps it.
            wiped = [acting]
        dropped = dropped_picks(game, spec, before, state, len(table.players))
        if dropped:
            wiped = dropped
            params = {**params, DROPPED: dropped}
        if wiped:
            _withdraw_pending(conn, game, table.id, wiped)
        store.append_action(conn, table.id, acting, action, params, request_id, at, key)
        if wiped:
            # Without the wiped rows the fold is the truth (the clock may have started with one).
            state = fold(game, table.players, table.options, store.live_actions(conn, table.id))
            events = list(state.get("events", []))
        new_version = store.save_snapshot(conn, table.id, state, answered_by)
    return Outcome(new_version, events=events)


def dropped_picks(game, spec, before: dict, after: dict, seat_count: int) -> list[int]:
    """Seats whose unrevealed pick an action ended without a reveal (a correction, a Witch,
    an early end). Only a secret pick opens the hands, so any other action closing a pick
    drops it."""
    if spec.secret:
        return []
    return [s for s in range(seat_count)
            if game.secret_open(before, s) and not game.secret_open(after, s)]


def _withdraw_pending(conn, game, table_id: int, seats: list[int]) -> None:
    """Wipe the unrevealed picks of `seats` from the log: out of every fold, log, history and
    export, and out of reach of undo, which never brings a withdrawn row back."""
    names = [name for name, spec in game.ACTIONS.items() if spec.secret]
    for seat in seats:
        seq = store.latest_live_action(conn, table_id, seat, names)
        if seq is not None:
            store.withdraw_action(conn, table_id, seq, WITHDRAWN)


def _step_over(game, state: dict, action: str, params: dict, seat) -> str | None:
    """Why a late action is refused when the step it names is over: a second tap on the
    same button then says so, rather than blaming someone else's change."""
    try:
        game.apply(state, action, params, seat)
    except StepOver as exc:
        return exc.reason
    except Rejected:
        return None
    return None


@dataclass
class UndoPlan:
    """What undo would take back for a phone now, or why it would refuse."""

    last: store.ActionRow | None = None
    undone: list = field(default_factory=list)  # every move it marks undone, `last` first
    said: list = field(default_factory=list)  # the table's lines about the move, going with it
    state: dict | None = None  # the table after it
    text: str = ""  # the move it undoes, as the log says it
    label: str = ""  # the same, or why not, short enough for the Undo button
    refusal: str | None = None


def undo_plan(game, table: store.TableRow, actions: list, snapshot: dict, held: list[int]) -> UndoPlan:
    """The one place that decides what undo would undo: the Undo button's label and undo()
    both come from here, so the button never offers what the table then refuses."""
    if not held:
        return UndoPlan(refusal=t("Take a seat at this table first."), label=t("Take a seat first"))
    if snapshot.get(CLOSED):
        return UndoPlan(refusal=snapshot[CLOSED], label=t("Recorded in the campaign"))
    moves = [row for row in actions if not row.name.startswith("_")]
    if not moves:
        return UndoPlan(refusal=t("Nothing to undo: the table is as it was set up."),
                        label=t("Nothing to undo yet"))
    # The table's own lines (a withdrawn pick) are not moves: undo steps over them.
    last = moves[-1]
    spec = game.ACTIONS.get(last.name)
    if spec is not None and spec.secret and game.secret_open(snapshot, last.seat):
        name = table.players[last.seat]
        return UndoPlan(last=last, label=t("{name}'s choice stays secret", name=name),
                        refusal=t("{name}'s choice stays secret until everyone has chosen, so it "
                                  "cannot be undone; {name} can change it on their own phone.", name=name))
    text = describe(game, last.name, last.params, last.seat, table.players)
    # The pick that opened every hand: undoing it takes the reveal back.
    label = t("The reveal: everyone chooses again") if spec is not None and spec.secret else text
    return UndoPlan(last=last, text=text, label=label)


def _settle_undo(game, table: store.TableRow, actions: list, plan: UndoPlan) -> None:
    """Fold the table without the plan's move; a reveal brings back every pick it showed.
    A line saying an earlier reveal was undone goes too: it spoke of the state being left."""
    said = [row for row in actions if row.name == REVEAL_UNDONE and row.seq > plan.last.seq]
    remaining = [row for row in actions if row.seq != plan.last.seq and row not in said]
    state = fold(game, table.players, table.options, remaining)
    undone = [plan.last]
    if _is_secret(game, plan.last):
        # The pick that opened every hand: the picks it revealed come back with it, or
        # they would sit pending again (already seen by all) and block the next undo.
        while True:
            open_rows = [i for i, row in enumerate(remaining)
                         if _is_secret(game, row) and game.secret_open(state, row.seat)]
            if not open_rows:
                break
            undone.append(remaining.pop(open_rows[-1]))
            state = fold(game, table.players, table.options, remaining)
    plan.undone, plan.said, plan.state = undone, said, state


# The newest live rows a view reads: the Undo button's plan and the last moves come from them.
NEWEST_ROWS = 8


def undo_preview(conn, table: store.TableRow, held: list[int], newest=None) -> UndoPlan:
    """The plan for the Undo button, reading only the newest rows (`newest`, when already
    read) when they hold a move."""
    game = get_game(table.game)
    actions = store.live_actions(conn, table.id, newest=NEWEST_ROWS) if newest is None else newest
    if actions and all(row.name.startswith("_") for row in actions):
        actions = store.live_actions(conn, table.id)
    return undo_plan(game, table, actions, table.snapshot, held)


UNDO_MARKER = "_undo"


def undo(conn, code, held: list[int], version, request_id=None, answered_by: str | None = None) -> Outcome:
    """Drop the last live move and fold again, as undo_plan says, or refuse as it says."""
    table = load(conn, code)
    game = get_game(table.game)
    _check_seat(table, None, held)
    version = _parse_version(version)
    request_id = _check_request_id(request_id)
    with store.Transaction(conn, table.code):
        current = store.get_table(conn, table.code)
        key = request_key(conn, table.id, held[0], UNDO_MARKER, {}) if request_id else None
        if _is_retry(conn, table.id, request_id, key):
            return Outcome(current.version, repeated=True)
        if version is None:
            raise TableError(VERSION_MISSING)
        if version != current.version:
            raise Stale(CHANGED_FIRST)
        actions = store.live_actions(conn, table.id)
        plan = undo_plan(game, current, actions, current.snapshot, held)
        if plan.refusal:
            raise TableError(plan.refusal)
        _settle_undo(game, table, actions, plan)
        state = plan.state
        for row in plan.undone + plan.said:
            store.mark_undone(conn, table.id, row.seq)
        if len(plan.undone) > 1:
            # Every phone saw the picks; now they vanish: say so on every phone.
            store.append_action(conn, table.id, None, REVEAL_UNDONE, {}, None)
            state = fold(game, table.players, table.options, store.live_actions(conn, table.id))
        if request_id:
            # A marker row, itself never live, so that a retried undo is recognised.
            marker = store.append_action(conn, table.id, None, UNDO_MARKER, {"undid": plan.last.seq},
                                         request_id, key=key)
            store.mark_undone(conn, table.id, marker)
        new_version = store.save_snapshot(conn, table.id, state, answered_by)
    if len(plan.undone) > 1:
        said = tn("Undone: {move}; the {count} choice it revealed is undone too: everyone chooses again",
                  "Undone: {move}; the {count} choices it revealed are undone too: everyone chooses again",
                  len(plan.undone), move=plan.text)
    else:
        said = t("Undone: {move}", move=plan.text)
    return Outcome(new_version, events=[said])


def _is_secret(game, row) -> bool:
    spec = game.ACTIONS.get(row.name)
    return spec is not None and spec.secret


def log_lines(conn, table: store.TableRow, limit: int | None = None, newest=None) -> list[dict]:
    """The public log, newest first: a secret action never shows what was chosen. `newest`:
    the newest live rows, when already read (at least `limit` of them, or all there are)."""
    game = get_game(table.game)
    # Only the lines shown are read: a long game's view costs no more than a short one's.
    if newest is not None and limit and limit <= NEWEST_ROWS:
        rows = newest[-limit:]
    else:
        rows = store.live_actions(conn, table.id, newest=limit)
    return [
        {"seq": r.seq, "seat": r.seat, "action": r.name,
         "text": describe(game, r.name, r.params, r.seat, table.players), "at": r.created_at}
        for r in reversed(rows)
    ]


def game_list():
    return [GAMES[key] for key in GAMES]
