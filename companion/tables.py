"""A table's life: create it, take and free seats, apply an action, undo.

The state is the fold of the live action log over the game's setup; the snapshot in the
table row is a cache of that fold at the current version. Every write happens inside one
IMMEDIATE transaction that re-reads the version, so a write made against an old version is
refused and nothing is applied twice.
"""

from __future__ import annotations

import hashlib
import random
import secrets
from dataclasses import dataclass, field

import time

from . import store, timers
from .games import GAMES, get_game, words
from .games.base import Rejected, StepOver, check_action

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
REVEAL_UNDONE_LINE = "The reveal was undone: everyone chooses again."
# A public sentence the app adds to a table's log from outside the game (a campaign's draw).
NOTE = "_note"
# Set by a note that closes the table (a campaign chapter's end once recorded): why nothing at
# the table may change any more, so the table never tells a story the campaign does not keep.
CLOSED = "_closed"
# The option that makes a table a campaign chapter: only the campaign layer may set it.
CHAPTER_START = "campaign_start"


NO_SUCH_TABLE = "No table has that code. Check the letters and try again."


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
        return {"error": f"{self.param}: {self.detail}", "param": self.param}


class NotFound(TableError):
    status = 404


class Forbidden(TableError):
    status = 403


class Stale(TableError):
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
        raise TableError("Players must be a list of names in seat order.")
    names = []
    for raw in raw_names:
        if not isinstance(raw, str):
            raise TableError("Each player name must be text.")
        name = " ".join(raw.split())
        if name:
            names.append(name)
    if any(len(n) > NAME_MAX for n in names):
        raise TableError(f"Player names can be at most {NAME_MAX} characters.")
    if len({n.casefold() for n in names}) != len(names):
        raise TableError("Two players have the same name; add an initial to tell them apart.")
    if not game.MIN_PLAYERS <= len(names) <= game.MAX_PLAYERS:
        raise TableError(f"{game.NAME} is for {game.MIN_PLAYERS} to {game.MAX_PLAYERS} players; "
                         f"{len(names)} given.")
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
            new_state[CLOSED] = str(params["closes"])
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
    return f"{name}'s seat was freed: {name}'s choice was withdrawn unseen; {name} chooses again."


def dropped_line(players: list[str], seats: list[int]) -> str:
    names = words.join_names([words.player_name(players, s) for s in seats])
    if len(seats) == 1:
        return f"{names}'s choice was never revealed and is discarded unseen."
    return f"The choices of {names} were never revealed and are discarded unseen."


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
        return str(params.get("text", ""))
    if action in timers.ACTIONS:
        name = players[seat] if seat is not None and 0 <= seat < len(players) else "Someone"
        return timers.describe(action, params, name, getattr(game, "TIMER_STEP", "turn"))
    return game.describe(action, params, seat, players)


def create_table(conn, game_id: str, raw_players, raw_options, rng: random.Random | None = None,
                 *, chapter_start: dict | None = None):
    """Create a table; return (code, host token).

    `chapter_start` (a campaign chapter's starting state) is passed only by the campaign
    layer: the public routes hand over the options they were sent, which may not carry it."""
    game = get_game(game_id)
    if game is None:
        raise TableError("Unknown game.")
    players = clean_players(raw_players, game)
    if not isinstance(raw_options, dict):
        raise TableError("Options must be given as named values.")
    if CHAPTER_START in raw_options:
        raise TableError("A campaign chapter's table is started from its campaign (the campaign "
                         "page or POST /api/campaigns/<id>/chapters), not by a table option.")
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
    host_token = new_token()
    with store.Transaction(conn):
        code = _free_code(conn)
        store.insert_table(conn, code, game.ID, game.RULES_VERSION, options, players,
                           hash_token(host_token), state, asked_options(game, raw_options))
    return code, host_token


def add_note(conn, table: store.TableRow, text: str, closes: str | None = None) -> int:
    """Add a public sentence to a table's log, inside the caller's write transaction: every
    phone shows it, and the history keeps it. With `closes` (the reason), no move or undo is
    taken at the table afterwards. Return the table's new version."""
    game = get_game(table.game)
    current = store.get_table(conn, table.code)
    at = time.time()
    params = {"text": text, **({"closes": closes} if closes else {})}
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
    raise TableError("No free table code left; try again.")


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


def seat_list(conn, table: store.TableRow, held: list[int], rows=None) -> list[dict]:
    return [
        {"seat": row["seat"], "name": row["name"], "taken": row["token_hash"] is not None,
         "mine": row["seat"] in held}
        for row in (store.seats(conn, table.id) if rows is None else rows)
    ]


def is_host(table: store.TableRow, host_token) -> bool:
    return isinstance(host_token, str) and secrets.compare_digest(hash_token(host_token),
                                                                  table.host_token_hash)


def take_seat(conn, code, seat) -> tuple[int, str]:
    """Take a free seat; return (seat, token)."""
    table = load(conn, code)
    if isinstance(seat, bool) or not isinstance(seat, int):
        try:
            seat = int(str(seat))
        except (TypeError, ValueError):
            raise TableError("Pick a seat by its number.") from None
    token = new_token()
    with store.Transaction(conn, table.code):
        rows = {row["seat"]: row for row in store.seats(conn, table.id)}
        if seat not in rows:
            raise TableError("That seat does not exist at this table.")
        if rows[seat]["token_hash"] is not None:
            raise TableError(f"{rows[seat]['name']}'s seat is already taken by another phone.")
        store.set_seat_token(conn, table.id, seat, hash_token(token))
    return seat, token


def free_seat(conn, code, host_token, seat) -> None:
    """Free a seat (its phone was lost): the old token stops working."""
    table = load(conn, code)
    if not is_host(table, host_token):
        raise Forbidden("Only the phone that created the table can free a seat.")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(table.players):
        raise TableError("That seat does not exist at this table.")
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
        raise Forbidden("Take a seat at this table first.")
    if seat is None:
        return held[0]
    if isinstance(seat, bool) or not isinstance(seat, int) or seat not in held:
        raise Forbidden("This phone does not hold that seat.")
    return seat


def _parse_version(version) -> int | None:
    if version is None or version == "":
        return None
    if isinstance(version, bool):
        raise TableError("The version must be a whole number.")
    try:
        return int(str(version))
    except ValueError:
        raise TableError("The version must be a whole number.") from None


def _check_request_id(request_id):
    if request_id in (None, ""):
        return None
    if not isinstance(request_id, str) or len(request_id) > 64:
        raise TableError("Malformed request id.")
    return request_id


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
        if request_id and store.request_seen(conn, table.id, request_id):
            return Outcome(current.version, repeated=True)
        if current.snapshot.get(CLOSED):
            raise TableError(current.snapshot[CLOSED])
        if version is None:
            raise TableError("The version this phone saw is missing.")
        # Secret picks and per-player entries commute, so an older version is fine for them.
        if version != current.version and not spec.any_version:
            late = _step_over(game, current.snapshot, action, params, acting) if spec.step else None
            raise Stale(late or "Someone else changed the table first. Here it is as it is now.")
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
        store.append_action(conn, table.id, acting, action, params, request_id, at)
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
        return UndoPlan(refusal="Take a seat at this table first.", label="Take a seat first")
    if snapshot.get(CLOSED):
        return UndoPlan(refusal=snapshot[CLOSED], label="Recorded in the campaign")
    moves = [row for row in actions if not row.name.startswith("_")]
    if not moves:
        return UndoPlan(refusal="Nothing to undo: the table is as it was set up.", label="Nothing to undo yet")
    # The table's own lines (a withdrawn pick) are not moves: undo steps over them.
    last = moves[-1]
    spec = game.ACTIONS.get(last.name)
    if spec is not None and spec.secret and game.secret_open(snapshot, last.seat):
        name = table.players[last.seat]
        return UndoPlan(last=last, label=f"{name}'s choice stays secret",
                        refusal=f"{name}'s choice stays secret until everyone has chosen, so it "
                                f"cannot be undone; {name} can change it on their own phone.")
    text = describe(game, last.name, last.params, last.seat, table.players)
    # The pick that opened every hand: undoing it takes the reveal back.
    label = "The reveal: everyone chooses again" if spec is not None and spec.secret else text
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


def undo(conn, code, held: list[int], version, request_id=None, answered_by: str | None = None) -> Outcome:
    """Drop the last live move and fold again, as undo_plan says, or refuse as it says."""
    table = load(conn, code)
    game = get_game(table.game)
    _check_seat(table, None, held)
    version = _parse_version(version)
    request_id = _check_request_id(request_id)
    with store.Transaction(conn, table.code):
        current = store.get_table(conn, table.code)
        if request_id and store.request_seen(conn, table.id, request_id):
            return Outcome(current.version, repeated=True)
        if version is None:
            raise TableError("The version this phone saw is missing.")
        if version != current.version:
            raise Stale("Someone else changed the table first. Here it is as it is now.")
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
            marker = store.append_action(conn, table.id, None, "_undo", {"undid": plan.last.seq}, request_id)
            store.mark_undone(conn, table.id, marker)
        new_version = store.save_snapshot(conn, table.id, state, answered_by)
    text = plan.text
    if len(plan.undone) > 1:
        text += f"; the {len(plan.undone)} choices it revealed are undone too: everyone chooses again"
    return Outcome(new_version, events=[f"Undone: {text}"])


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
