"""The Mysterious Forest: a co-operative memory game for children, in three phases.

The phones keep what small players lose track of: whose turn it is to look at a Path card
and which card it is, whose turn it is to roll and how full the Backpack is, where Jonas
stands on the Path, the Wanderer's weapon and tokens, the Loki tokens used, and the result,
kept per difficulty level so a family can climb the levels. The real cards, dice and tokens
stay the authority: the players tell the app what they covered, it never checks Equipment.

Seats 0..N-1 sit clockwise; the player to the left of seat i is seat (i + 1) % N.

The Path, by position: 0 is the Starting card, then the Forest cards before the Wanderer,
the Wanderer card, the Forest cards after it, and the Final Battle card last. Phase 1 looks
at positions 1..N in order, so "card 3 of 8" is position 3 in both Phase 1 and Phase 3.

Rulings where the rulebook leaves a gap:
- Players: the rulebook gives no player count; a co-operative game works alone or in a
  crowd, so 1 to 6 players may sit at a table.
- The Starting card has no Equipment, so it is not scouted: Phase 1 looks at every card
  after it, the Final Battle card last (8 cards at Standard, 10 at Lead Adventurers).
- The Backpack board's number of spaces is not in the rulebook: the players may set any whole
  number above their level's Loki tokens in the setup (24 by default). A roll fills only the
  spaces left, so an odd number works: the last roll fills the one space there is.
- A Loki face is never rerolled: the rulebook rerolls a die "in this case, and this case
  only", an Equipment face whose Equipment is not in the Reserve. When the face-down Loki
  stack runs short, the roll takes the Loki tokens left (one Loki rolled: still an Equipment
  of the players' choice); a Loki face with no token left brings nothing, and the space it
  would have filled waits for the next roll. Loki goes in first, since he takes precedence
  over Equipment; a roll bringing more than the spaces left fills what is left.
- Any seated phone may tap for whoever's turn it is: one phone may serve the whole table.
- Phase 3 starts with the first Path card turned over and Jonas on it, as the rulebook says.
- The Wanderer's "an Equipment and a Loki token" exchange takes a Loki token out of the
  Backpack, so it needs one there; the other exchanges are the players' to check.
- Final Battle guess variant: the guess is laid before the card is turned over; the game is
  won only if the guess matches the card exactly, lost otherwise.
- The setup checklist is ticked on the table (an action), so every phone sees the same
  ticks and a reload keeps them; starting to scout does not wait for every tick. The level,
  first player and extras can be corrected until scouting starts.
- The family's record counts every finished table of this game on the server: one record
  per server, not per device or family.
"""

from __future__ import annotations

import json
import random

from .base import (ActionSpec, Param, Rejected, StepOver, check_action, check_player_count,
                   parse_params, settle_seat)
from .words import as_int, player_name, t, tc, tn

ID = "mysterious-forest"
# Its published German and French editions have titles of their own (docs/glossary-*.md).
NAME = t("The Mysterious Forest")
MIN_PLAYERS = 1
MAX_PLAYERS = 6
RULES_VERSION = 1
# The end screen has its own big "Play again": the table page shows no second Rematch.
BOARD_OFFERS_REMATCH = True

LOKI_TOKENS = 11
WANDERER_TOKENS = 2
DEFAULT_BACKPACK_SIZE = 24
# Any whole number above the level's Loki tokens (ruling); the bounds only keep a typo out.
MIN_BACKPACK_SIZE = 1
MAX_BACKPACK_SIZE = 40
# A roll of Lokis with the stack empty brings nothing, so a Backpack can take more rolls
# than half its spaces; this bounds the roll number a phone may name.
MAX_ROLLS = 200

PHASE_SETUP = "setup"
PHASE_SCOUTING = "scouting"
PHASE_PACKING = "packing"
PHASE_EXPEDITION = "expedition"
PHASE_OVER = "over"

# Easiest first; each: label, Forest cards before the Wanderer, after it, Loki in the Backpack.
LEVELS = {
    "standard": (tc("difficulty level", "Standard"), 4, 2, 4),
    "budding": (t("Budding Explorers"), 4, 2, 2),
    "courageous": (t("Courageous Travelers"), 4, 2, 0),
    "lead": (t("Lead Adventurers"), 5, 3, 4),
    "foliage": (t("Foliage Conquerors"), 5, 3, 2),
    "heroes": (t("Heroes of the Forest"), 5, 3, 0),
}
LEVEL_ORDER = tuple(LEVELS)

START, FOREST, WANDERER, FINAL = "start", "forest", "wanderer", "final"
CARD_LABELS = {START: tc("path card", "Start"), FOREST: tc("path card", "Forest"),
               WANDERER: tc("path card", "Wanderer"), FINAL: tc("path card", "Final Battle")}
CARD_ICONS = {START: "🏁", FOREST: "🌲", WANDERER: "🧙", FINAL: "🐉"}

# What a roll of the 4 dice put in the Backpack: (Loki tokens, Equipment).
TAKES = {
    "equipment": (0, 2),
    "loki_equipment": (1, 1),
    "two_loki": (2, 0),
}
TAKE_LABELS = {
    "equipment": t("2 Equipment"),
    "loki_equipment": t("1 Loki + 1 Equipment"),
    "two_loki": t("2 Loki"),
}
TAKE_ICONS = {"equipment": "🧭🧭", "loki_equipment": "🦊🧭", "two_loki": "🦊🦊"}
TAKE_NOTES = {
    "equipment": t("No Loki: choose 2 of the 4"),
    "loki_equipment": t("One Loki rolled: a Loki token and 1 Equipment"),
    "two_loki": t("Two Lokis rolled: two Loki tokens"),
}
REROLL_RULE = t("🔁 Equipment not in the Reserve? Roll that die again, never a Loki.")

# The Wanderer card shows one of these exchanges for his crystal weapon.
EXCHANGES = {
    "two_same": t("two identical Equipment"),
    "equipment_loki": t("an Equipment and a Loki token"),
    "three_different": t("three different Equipment"),
    "any_four": t("any four Equipment"),
}
EXCHANGE_SHORT = {
    "two_same": t("2 the same"),
    "equipment_loki": t("1 Equipment + 1 🦊"),
    "three_different": t("3 different"),
    "any_four": t("any 4"),
}
# What a button giving each exchange says to a screen reader.
EXCHANGE_GIVE = {
    "two_same": t("Give two identical Equipment"),
    "equipment_loki": t("Give an Equipment and a Loki token"),
    "three_different": t("Give three different Equipment"),
    "any_four": t("Give any four Equipment"),
}
# The same exchanges in whole sentences (each language words each its own way).
EXCHANGE_TAKEN = {
    "two_same": t("Crystal weapon taken for two identical Equipment: those go back to the "
                  "Reserve. Put the 2 Wanderer tokens on the card; each replaces any Equipment once."),
    "equipment_loki": t("Crystal weapon taken for an Equipment and a Loki token: those go back to "
                        "the Reserve. Put the 2 Wanderer tokens on the card; each replaces any "
                        "Equipment once."),
    "three_different": t("Crystal weapon taken for three different Equipment: those go back to "
                         "the Reserve. Put the 2 Wanderer tokens on the card; each replaces any "
                         "Equipment once."),
    "any_four": t("Crystal weapon taken for any four Equipment: those go back to the Reserve. "
                  "Put the 2 Wanderer tokens on the card; each replaces any Equipment once."),
}

# A Loki token's two powers, as the rulebook words them; the last line is its special case.
LOKI_POWERS = {
    1: t("Power 1: choose one of the Equipment shown on the Loki token and put it in your Backpack."),
    2: t("Power 2: exchange an Equipment in your Backpack with one in the Reserve."),
}
LOKI_ONLY_LOKI = t("Only Loki tokens in your Backpack? Then exchange this Loki token with an "
                   "Equipment of your choice in the Reserve.")
LOKI_ONLY_LOKI_POWER_2 = t("Only Loki tokens in your Backpack? Then, with Power 2, exchange this "
                           "Loki token with an Equipment of your choice in the Reserve.")
LOKI_BACK = t("Then put the Loki token back in the Reserve.")
LOKI_TURN_OVER = t("Turn it over: it shows one of 2 powers.")
# The same, short, for the log: what the token showed (None: not said).
LOKI_SAID = {
    1: t("Power 1, one of the Equipment shown on it into the Backpack"),
    2: t("Power 2, an Equipment of the Backpack exchanged with one in the Reserve (with only Loki "
         "tokens in the Backpack, this Loki token for an Equipment)"),
    None: t("Power 1, one of the Equipment shown on it into the Backpack, or Power 2, an Equipment "
            "of the Backpack exchanged with one in the Reserve (with only Loki tokens in the "
            "Backpack, this Loki token for an Equipment)"),
}

OPTIONS = (
    Param("first_player", "text", label=t("First player"), default="random"),
    Param("level", "choice", label=t("Difficulty level"), choices=LEVEL_ORDER, default="standard"),
    Param("guess_variant", "bool", label=t("Final Battle guess"), default=False),
    Param("backpack_size", "int", label=t("Backpack spaces"), min=MIN_BACKPACK_SIZE,
          max=MAX_BACKPACK_SIZE, default=DEFAULT_BACKPACK_SIZE),
)

_CARD = Param("card", "int", label=t("Path card"), min=0, max=20)
_TAKE = Param("took", "choice", label=t("What was taken"), choices=tuple(TAKES))

ACTIONS: dict[str, ActionSpec] = {
    # Two phones ticking different steps at once must not refuse each other.
    "tick": ActionSpec("tick", (Param("step", "int", label=t("Setup step"), min=0, max=20),
                                Param("done", "bool", label=t("Done"), default=True)),
                       label=t("Tick a setup step"), commutes=True),
    "change_setup": ActionSpec(
        "change_setup",
        (Param("level", "choice", label=t("Difficulty level"), choices=LEVEL_ORDER, optional=True),
         Param("first_player", "seat", label=t("First player"), optional=True),
         Param("guess_variant", "bool", label=t("Final Battle guess"), optional=True),
         Param("backpack_size", "int", label=t("Backpack spaces"), min=MIN_BACKPACK_SIZE,
               max=MAX_BACKPACK_SIZE, optional=True)),
        label=t("Change the setup")),
    "start_scouting": ActionSpec("start_scouting", (), label=t("Start scouting")),
    "done_looking": ActionSpec("done_looking", (_CARD,), label=t("Done looking"), step="card"),
    "pack": ActionSpec("pack", (Param("roll", "int", label=t("Roll number"), min=1, max=MAX_ROLLS),
                                _TAKE),
                       label=t("We rolled"), step="roll"),
    "change_roll": ActionSpec("change_roll", (Param("roll", "int", label=tc("roll number", "Roll"), min=1,
                                                    max=MAX_ROLLS), _TAKE),
                              label=t("Change a roll")),
    "cross": ActionSpec("cross", (_CARD,), label=t("Card crossed"), step="card"),
    "wanderer": ActionSpec(
        "wanderer",
        (_CARD,
         Param("take", "bool", label=t("Take the crystal weapon"), default=False),
         Param("exchange", "choice", label=t("The Wanderer's exchange"), choices=tuple(EXCHANGES),
               optional=True)),
        label=t("Meet the Wanderer"), step="card"),
    # The power the token shows once turned over; without it, both are explained.
    "use_loki": ActionSpec("use_loki", (Param("power", "int", label=t("Loki's power"), min=1, max=2,
                                              optional=True),),
                           label=t("Use a Loki token")),
    "return_loki": ActionSpec("return_loki", (), label=t("Take back a Loki token")),
    "use_token": ActionSpec("use_token", (), label=t("Use a Wanderer token")),
    "return_token": ActionSpec("return_token", (), label=t("Take back a Wanderer token")),
    "lay_guess": ActionSpec("lay_guess", (), label=t("Our guess is laid")),
    "beat_queen": ActionSpec("beat_queen", (), label=t("We beat the Queen")),
    "fail": ActionSpec("fail", (_CARD,), label=t("We cannot cover it"), step="card"),
}


# ----------------------------------------------------------------- small utilities


def level_label(level: str) -> str:
    return LEVELS[level][0] if level in LEVELS else str(level)


def path_kinds(level: str) -> list[str]:
    """The Path for a level, Starting card first: e.g. Start, 4 Forest, Wanderer, 2 Forest, Final."""
    _, before, after, _ = LEVELS[level]
    return [START] + [FOREST] * before + [WANDERER] + [FOREST] * after + [FINAL]


def scout_count(level: str) -> int:
    """How many Path cards Phase 1 looks at: every card after the Starting card."""
    return len(path_kinds(level)) - 1


def setup_loki(level: str) -> int:
    return LEVELS[level][3]


def path_text(level: str) -> str:
    _, before, after, _ = LEVELS[level]
    # Every level has at least 2 Forest cards on each side of the Wanderer.
    return t("Start, {before} Forest cards, 1 Wanderer card, {after} Forest cards, 1 Final Battle card",
             before=before, after=after)


def setup_steps(level: str) -> list[str]:
    """The setup checklist for a level, in the rulebook's order."""
    loki = setup_loki(level)
    loki_step = (tn("🦊 Put {count} Loki token face-down on the Backpack board.",
                    "🦊 Put {count} Loki tokens face-down on the Backpack board.", loki) if loki
                 else t("🦊 No Loki tokens in the Backpack at this level."))
    return [
        t("🃏 Sort the Path cards into 3 face-down piles (🌲 Forest, 🧙 Wanderer, 🐉 Final Battle) "
          "and shuffle each pile."),
        t("🛤️ Lay the Path face-down: {path}.", path=path_text(level)),
        t("🧒 Put Jonas on the Start card."),
        t("🧭 Make the Reserve: a pile of each Equipment, the Loki tokens face-down in one stack, "
          "the Wanderer tokens in another."),
        t("🎲 Put the 4 dice and the Backpack board 🎒 near the Path."),
        loki_step,
    ]


def setup_notes(n_players: int) -> list[str]:
    """The setup steps at the Standard level."""
    check_player_count(n_players, NAME, MIN_PLAYERS, MAX_PLAYERS)
    return setup_steps("standard")


def _seat_count(state: dict) -> int:
    return len(state["players"])


def _require_seat(state: dict, seat) -> None:
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < _seat_count(state):
        raise Rejected(t("That seat is not at this table."))


def _turn_seat(state: dict, turn: int) -> int:
    """The seat whose turn it is at the `turn`-th turn (0 first), clockwise from the first player."""
    return (state["first_player"] + turn) % _seat_count(state)


def _path(state: dict) -> list[str]:
    return path_kinds(state["level"])


def _final_position(state: dict) -> int:
    return len(_path(state)) - 1


def roll_fills(state: dict, rolls: list[str] | None = None) -> list[dict]:
    """What each roll put in the Backpack, in roll order: {loki, equipment, no_token, no_room}.

    Loki first, as he takes precedence over Equipment, while the stack has tokens (no_token:
    Loki faces that found none); then the Equipment, while the Backpack has spaces (no_room:
    tokens that found no space).
    """
    stack = LOKI_TOKENS - state["setup_loki"]
    space = state["backpack_size"] - state["setup_loki"]
    fills = []
    for take in state["rolls"] if rolls is None else rolls:
        loki_faces, equipment_wanted = TAKES[take]
        from_stack = min(loki_faces, stack)
        loki = min(from_stack, space)
        equipment = min(equipment_wanted, space - loki)
        stack -= loki
        space -= loki + equipment
        fills.append({"loki": loki, "equipment": equipment, "no_token": loki_faces - from_stack,
                      "no_room": from_stack - loki + equipment_wanted - equipment})
    return fills


def loki_packed(state: dict) -> int:
    """Loki tokens put in the Backpack: at setup and by the rolls."""
    return state["setup_loki"] + sum(fill["loki"] for fill in roll_fills(state))


def loki_in_stack(state: dict) -> int:
    """Face-down Loki tokens left to take while packing."""
    return LOKI_TOKENS - loki_packed(state)


def loki_in_backpack(state: dict) -> int:
    """Loki tokens still in the Backpack: packed, less those used or given to the Wanderer."""
    given = 1 if state["exchange"] == "equipment_loki" else 0
    return loki_packed(state) - state["loki_used"] - given


def backpack_filled(state: dict, rolls: list[str] | None = None) -> int:
    fills = roll_fills(state, rolls)
    return state["setup_loki"] + sum(fill["loki"] + fill["equipment"] for fill in fills)


def backpack_slots(state: dict) -> list[str]:
    """The Backpack's spaces in the order they were filled: "loki", "equipment" or "empty"."""
    slots = ["loki"] * state["setup_loki"]
    for fill in roll_fills(state):
        slots += ["loki"] * fill["loki"] + ["equipment"] * fill["equipment"]
    return slots + ["empty"] * (state["backpack_size"] - len(slots))


def roll_notes(fill: dict) -> list[str]:
    """Say what a roll could not bring, a sentence each: Loki faces past the stack, tokens past
    the spaces."""
    notes = []
    if fill["no_token"]:
        if fill["loki"]:  # one Loki found the last token: the other found none
            notes.append(t("Only 1 Loki token was left in the stack, so that Loki brings nothing "
                           "(a Loki die is never rolled again)."))
        elif fill["no_token"] == 1:
            notes.append(t("No Loki token was left in the stack, so that Loki brings nothing "
                           "(a Loki die is never rolled again)."))
        else:
            notes.append(t("No Loki token was left in the stack, so those Lokis bring nothing "
                           "(a Loki die is never rolled again)."))
    if fill["no_room"]:
        notes.append(t("The Backpack had room for {count} only.",
                       count=fill["loki"] + fill["equipment"]))
    return notes


def packing_tips(state: dict) -> list[str]:
    """The reminders under the roll buttons: rerolls, and what a short Loki stack means."""
    tips = [REROLL_RULE]
    left = loki_in_stack(state)
    if left == 1:
        tips.append(t("🦊 Only 1 Loki token is left in the stack: a second Loki brings nothing."))
    elif left == 0:
        tips.append(t("🦊 No Loki token is left in the stack: a Loki brings nothing."))
    return tips


def scout_seat(state: dict) -> int | None:
    """Who looks at the next card in Phase 1."""
    if state["phase"] != PHASE_SCOUTING:
        return None
    return _turn_seat(state, state["scouted"])


def roll_seat(state: dict) -> int | None:
    """Who rolls the dice next in Phase 2."""
    if state["phase"] != PHASE_PACKING:
        return None
    return _turn_seat(state, len(state["rolls"]))


# ----------------------------------------------------------------- options and setup


def prepare_options(raw: dict, players: list[str], rng: random.Random) -> dict:
    """Check the setup options and settle a random first player to a seat."""
    check_player_count(len(players), NAME, MIN_PLAYERS, MAX_PLAYERS)
    values = parse_params(OPTIONS, raw if raw is not None else {}, len(players))
    first_player = settle_seat(values["first_player"], players, rng, t("First player"))
    size = values["backpack_size"]
    _check_backpack_size(size, values["level"])
    return {"first_player": first_player, "level": values["level"],
            "guess_variant": values["guess_variant"], "backpack_size": size}


def setup(players: list[str], options: dict) -> dict:
    """The table before anything is laid out: the setup checklist for the chosen level."""
    check_player_count(len(players), NAME, MIN_PLAYERS, MAX_PLAYERS)
    first = options.get("first_player")
    if isinstance(first, bool) or not isinstance(first, int) or not 0 <= first < len(players):
        raise Rejected(t("The first player must be one of the seats."))
    level = options.get("level", "standard")
    if level not in LEVELS:
        raise Rejected(t("Difficulty level: choose one of {levels}.", levels=", ".join(LEVEL_ORDER)))
    size = options.get("backpack_size", DEFAULT_BACKPACK_SIZE)
    if (isinstance(size, bool) or not isinstance(size, int)
            or not setup_loki(level) < size <= MAX_BACKPACK_SIZE):
        raise Rejected(t("Backpack spaces: choose a whole number from {low} to {high}.",
                         low=setup_loki(level) + 1, high=MAX_BACKPACK_SIZE))
    state = {
        "rules_version": RULES_VERSION,
        "players": list(players),
        "first_player": first,
        "level": level,
        "guess_variant": bool(options.get("guess_variant", False)),
        "backpack_size": size,
        "setup_loki": setup_loki(level),
        "phase": PHASE_SETUP,
        "ticked": [False] * len(setup_steps(level)),
        "scouted": 0,
        "rolls": [],
        "jonas": 0,
        "weapon": None,  # None until the Wanderer card: "taken" or "declined"
        "exchange": None,
        "wanderer_tokens": 0,
        "tokens_used_on": [],
        "loki_used": 0,
        "loki_used_on": [],
        "loki_powers": [],  # the power each Loki token used showed (None: not said)
        "guess_laid": False,
        "result": None,
        "ended_at_card": None,
        "events": [],
    }
    state["events"].append(t("{level}: lay out the Path and the Backpack. {name} goes first.",
                             level=level_label(level), name=players[first]))
    return state


# ----------------------------------------------------------------- actions


def apply(state: dict, action: str, params: dict, seat: int) -> dict:
    """Return the state after `seat` takes `action`; raise Rejected and change nothing."""
    _, parsed = check_action(ACTIONS, action, params if params is not None else {},
                             _seat_count(state))
    _require_seat(state, seat)
    if state["phase"] == PHASE_OVER:
        raise Rejected(t("The game is over. Undo to change the end."))
    # The state is plain JSON by contract, so a JSON round trip is a fast deep copy.
    new_state = json.loads(json.dumps(state))
    new_state["events"] = []
    # A table started before the powers were kept: its Loki tokens said no power.
    new_state.setdefault("loki_powers", [None] * len(new_state["loki_used_on"]))
    _HANDLERS[action](new_state, parsed, seat)
    return new_state


def _require_phase(state: dict, phase: str, refusal: str) -> None:
    """Refuse, with `refusal` (a whole sentence saying when it is done), outside `phase`."""
    if state["phase"] != phase:
        raise Rejected(refusal)


def _step(named: int, current, past: bool, was_for: str, is_for: str) -> None:
    """Refuse an action naming a step other than the current one (a double tap, a phone a
    step behind): `was_for` when the named step is over, `is_for` when it has not come yet."""
    if named != current:
        raise StepOver(was_for if past else is_for)


def _tick(state: dict, params: dict, seat: int) -> None:
    _require_phase(state, PHASE_SETUP, t("Ticking the setup checklist is done during setup."))
    step = params["step"]
    if step >= len(state["ticked"]):
        raise Rejected(t("The setup checklist has {count} steps: choose 0 to {last}.",
                         count=len(state["ticked"]), last=len(state["ticked"]) - 1))
    state["ticked"][step] = params["done"]


# The checklist steps that depend on the level: the Path and the Loki tokens in the Backpack.
_LEVEL_STEPS = (1, 5)


def _check_backpack_size(size: int, level: str) -> None:
    if size <= setup_loki(level):
        raise Rejected(tn("Backpack spaces: the Backpack needs room beyond its {count} Loki token.",
                          "Backpack spaces: the Backpack needs room beyond its {count} Loki tokens.",
                          setup_loki(level)))


def _smaller_backpack(state: dict) -> int | None:
    size = state["backpack_size"] - 1
    return size if size > state["setup_loki"] else None


def _change_setup(state: dict, params: dict, seat: int) -> None:
    """Correct a setup choice before the Path is looked at."""
    _require_phase(state, PHASE_SETUP, t("Changing the setup is done during setup."))
    level = params["level"] if params["level"] is not None else state["level"]
    size = params["backpack_size"] if params["backpack_size"] is not None else state["backpack_size"]
    _check_backpack_size(size, level)
    players = state["players"]
    if level != state["level"]:
        state["level"] = level
        state["setup_loki"] = setup_loki(level)
        for step in _LEVEL_STEPS:
            state["ticked"][step] = False
        state["events"].append(tn("Level: {level}. Lay the Path: {path}; {count} Loki token in the Backpack.",
                                  "Level: {level}. Lay the Path: {path}; {count} Loki tokens in the Backpack.",
                                  setup_loki(level), level=level_label(level), path=path_text(level)))
    if size != state["backpack_size"]:
        state["backpack_size"] = size
        state["events"].append(tn("The Backpack has {count} space.", "The Backpack has {count} spaces.",
                                  size))
    if params["first_player"] is not None and params["first_player"] != state["first_player"]:
        state["first_player"] = params["first_player"]
        state["events"].append(t("{name} goes first.", name=players[state["first_player"]]))
    if params["guess_variant"] is not None and params["guess_variant"] != state["guess_variant"]:
        state["guess_variant"] = params["guess_variant"]
        state["events"].append(t("Final Battle guess: on.") if state["guess_variant"]
                               else t("Final Battle guess: off."))
    if not state["events"]:
        raise Rejected(t("That is already the setup."))


def _start_scouting(state: dict, params: dict, seat: int) -> None:
    _require_phase(state, PHASE_SETUP, t("Starting to scout is done during setup."))
    state["phase"] = PHASE_SCOUTING
    scout = state["players"][scout_seat(state)]
    state["events"].append(t("Phase 1, scouting: {name} turns over card 1 of {cards}; look together "
                             "and remember its Equipment.", name=scout, cards=_final_position(state)))


def _done_looking(state: dict, params: dict, seat: int) -> None:
    _require_phase(state, PHASE_SCOUTING,
                   t("Looking at a Path card is done in Phase 1, scouting the Path."))
    current = state["scouted"] + 1
    card = params["card"]
    players = state["players"]
    scout = players[scout_seat(state)]
    if card != current:
        _step(card, current, card < current,
              t("That was for card {card}, which has already been looked at: a Path card can only "
                "be looked at once; it is now card {current}, {name} to look.",
                card=card, current=current, name=scout),
              t("That is for card {card}, which has not come yet; it is now card {current}, "
                "{name} to look.", card=card, current=current, name=scout))
    state["scouted"] = current
    final = _final_position(state)
    if current < final:
        following = players[scout_seat(state)]
        state["events"].append(t("{name} turned card {card} of {cards} back face-down. Next: {next} "
                                 "looks at card {following} of {cards}.", name=scout, card=current,
                                 cards=final, next=following, following=current + 1))
        return
    state["phase"] = PHASE_PACKING
    state["events"].append(t("The Final Battle card is turned back face-down: scouting is over."))
    state["events"].append(t("Phase 2, packing: {name} rolls the 4 dice and takes 2 Equipment for "
                             "the Backpack.", name=players[roll_seat(state)]))


def _check_rolls_fit(state: dict, rolls: list[str]) -> None:
    """Refuse rolls of which one comes after the Backpack is already full."""
    filled = state["setup_loki"]
    for number, fill in enumerate(roll_fills(state, rolls), start=1):
        if filled >= state["backpack_size"]:
            raise Rejected(t("With that change the Backpack is full before roll {roll}: undo back "
                             "to roll {roll} instead.", roll=number))
        filled += fill["loki"] + fill["equipment"]


def _pack(state: dict, params: dict, seat: int) -> None:
    named = params["roll"]
    named_name = state["players"][_turn_seat(state, named - 1)]
    if state["phase"] == PHASE_EXPEDITION:
        raise StepOver(t("That was for roll {roll} ({name}), which is already in the Backpack; the "
                         "Backpack is full and the expedition has started.", roll=named, name=named_name))
    _require_phase(state, PHASE_PACKING,
                   t("Filling the Backpack is done in Phase 2, packing the Backpack."))
    due = len(state["rolls"]) + 1
    take = params["took"]
    roller = state["players"][roll_seat(state)]
    if named != due:
        _step(named, due, named < due,
              t("That was for roll {roll} ({name}), which is already in the Backpack; it is now "
                "roll {due}, {roller} to roll.", roll=named, name=named_name, due=due, roller=roller),
              t("That is for roll {roll} ({name}), which has not come yet; it is now roll {due}, "
                "{roller} to roll.", roll=named, name=named_name, due=due, roller=roller))
    state["rolls"].append(take)
    filled, size = backpack_filled(state), state["backpack_size"]
    if take == "equipment":
        state["events"].append(t("{name} rolled and took 2 Equipment.", name=roller))
    elif take == "loki_equipment":
        state["events"].append(t("{name} rolled and took 1 Loki + 1 Equipment (one Loki rolled: a "
                                 "Loki token and one Equipment).", name=roller))
    else:
        state["events"].append(t("{name} rolled and took 2 Loki (two Lokis rolled: two Loki "
                                 "tokens).", name=roller))
    state["events"].extend(roll_notes(roll_fills(state)[-1]))
    state["events"].append(t("Backpack: {filled} of {size} spaces filled.", filled=filled, size=size))
    if filled < size:
        state["events"].append(t("Next to roll: {name}.", name=state["players"][roll_seat(state)]))
        return
    _start_expedition(state)


def _start_expedition(state: dict) -> None:
    state["phase"] = PHASE_EXPEDITION
    state["jonas"] = 1
    state["events"].append(t("The Backpack is full: packing is over."))
    state["events"].append(t("Phase 3, the expedition: turn over card 1 and put Jonas on it. "
                             "Move the Equipment it shows from the Backpack onto it."))


def _change_roll(state: dict, params: dict, seat: int) -> None:
    if state["phase"] not in (PHASE_PACKING, PHASE_EXPEDITION):
        raise Rejected(t("There are no rolls to change yet."))
    number, take = params["roll"], params["took"]
    if number > len(state["rolls"]):
        if not state["rolls"]:
            raise Rejected(t("Nobody has rolled yet."))
        raise Rejected(tn("There is {count} roll: choose 1 to {count}.",
                          "There are {count} rolls: choose 1 to {count}.", len(state["rolls"])))
    rolls = list(state["rolls"])
    rolls[number - 1] = take
    _check_rolls_fit(state, rolls)
    full = backpack_filled(state, rolls) >= state["backpack_size"]
    if state["phase"] == PHASE_EXPEDITION and not full:
        raise Rejected(t("With that change the Backpack would not be full, and the expedition "
                         "has started: undo back to the roll instead."))
    before = state["rolls"]
    state["rolls"] = rolls
    if loki_in_backpack(state) < 0:
        state["rolls"] = before
        raise Rejected(t("More Loki tokens have been used than the Backpack would have held: "
                         "take back a used Loki token first."))
    roller = state["players"][_turn_seat(state, number - 1)]
    if take == "equipment":
        state["events"].append(t("Roll {roll} ({name}) changed to 2 Equipment.", roll=number, name=roller))
    elif take == "loki_equipment":
        state["events"].append(t("Roll {roll} ({name}) changed to 1 Loki + 1 Equipment.",
                                 roll=number, name=roller))
    else:
        state["events"].append(t("Roll {roll} ({name}) changed to 2 Loki.", roll=number, name=roller))
    state["events"].extend(roll_notes(roll_fills(state)[number - 1]))
    state["events"].append(t("Loki tokens in the Backpack: {count}.", count=loki_in_backpack(state)))
    if state["phase"] == PHASE_PACKING and full:
        _start_expedition(state)


def _require_jonas_on(state: dict, card: int, kinds: tuple[str, ...], outside: str) -> str:
    """The kind of card Jonas is on, refusing `card` if he is elsewhere or a card of another
    kind (`outside`: the refusal outside Phase 3)."""
    _require_phase(state, PHASE_EXPEDITION, outside)
    jonas = state["jonas"]
    kind = _path(state)[jonas]
    if card != jonas:
        _step(card, jonas, card < jonas,
              t("That was for card {card}, which is already behind Jonas; Jonas is on card {jonas}.",
                card=card, jonas=jonas),
              t("That is for card {card}, which has not come yet; Jonas is on card {jonas}.",
                card=card, jonas=jonas))
    if kind not in kinds:
        if kind == WANDERER:
            raise Rejected(t("Jonas is at the Wanderer: take the crystal weapon or walk on."))
        if kind == FINAL:
            raise Rejected(t("Jonas is at the Final Battle: face the Queen of the Draconia."))
        if kind == FOREST:
            raise Rejected(t("Jonas is on a Forest card: cover its Equipment to walk on."))
        raise Rejected(t("Jonas is still on the Start card."))
    return kind


def _walk_on(state: dict) -> None:
    state["jonas"] += 1
    position = state["jonas"]
    kind = _path(state)[position]
    cards = _final_position(state)
    if kind == FOREST:
        state["events"].append(t("Turn over card {card} of {cards}, a Forest card, and move Jonas "
                                 "onto it.", card=position, cards=cards))
    elif kind == WANDERER:
        state["events"].append(t("Turn over card {card} of {cards}: Jonas meets the Wanderer.",
                                 card=position, cards=cards))
    else:
        if state["guess_variant"]:
            state["events"].append(t("Jonas reaches the Queen of the Draconia. Before turning the "
                                     "Final Battle card over, lay your guess above it."))
        else:
            state["events"].append(t("Jonas reaches the Queen of the Draconia: turn over the "
                                     "Final Battle card."))


def _cross(state: dict, params: dict, seat: int) -> None:
    _require_jonas_on(state, params["card"], (FOREST,),
                      t("Crossing a card is done in Phase 3, the expedition."))
    state["events"].append(t("Card {card} is covered: Jonas walks on.", card=state["jonas"]))
    _walk_on(state)


def _wanderer(state: dict, params: dict, seat: int) -> None:
    _require_jonas_on(state, params["card"], (WANDERER,),
                      t("Meeting the Wanderer is done in Phase 3, the expedition."))
    if not params["take"]:
        if params["exchange"]:
            raise Rejected(t("Walking on without the weapon gives nothing to the Wanderer."))
        state["weapon"] = "declined"
        state["events"].append(t("No crystal weapon this time: Jonas walks on."))
        _walk_on(state)
        return
    exchange = params["exchange"]
    if not exchange:
        raise Rejected(t("Which exchange does the Wanderer card show? Choose it to take the weapon."))
    if exchange == "equipment_loki" and loki_in_backpack(state) < 1:
        raise Rejected(t("The Wanderer wants a Loki token and none is left in the Backpack: "
                         "Jonas must walk on without the weapon."))
    state["weapon"] = "taken"
    state["exchange"] = exchange
    state["wanderer_tokens"] = WANDERER_TOKENS
    state["events"].append(EXCHANGE_TAKEN[exchange])
    _walk_on(state)


def loki_explained(power: int | None) -> list[str]:
    """What a Loki token does, in the rulebook's words: the power it shows, or both."""
    if power == 1:
        return [LOKI_POWERS[1], LOKI_BACK]
    if power == 2:
        return [LOKI_POWERS[2], LOKI_ONLY_LOKI, LOKI_BACK]
    return [LOKI_TURN_OVER, LOKI_POWERS[1], LOKI_POWERS[2], LOKI_ONLY_LOKI_POWER_2, LOKI_BACK]


def loki_said(power: int | None) -> str:
    """What a Loki token did, short, for the log."""
    return LOKI_SAID.get(power, LOKI_SAID[None])


def _use_loki(state: dict, params: dict, seat: int) -> None:
    _require_phase(state, PHASE_EXPEDITION, t("Using a Loki token is done in Phase 3, the expedition."))
    if loki_in_backpack(state) < 1:
        raise Rejected(t("No Loki token is left in the Backpack."))
    power = params["power"]
    state["loki_used"] += 1
    state["loki_used_on"].append(state["jonas"])
    state["loki_powers"].append(power)
    left = loki_in_backpack(state)
    if power:
        state["events"].append(t("Loki token used on card {card}, Power {power}.",
                                 card=state["jonas"], power=power))
    else:
        state["events"].append(t("Loki token used on card {card}.", card=state["jonas"]))
    state["events"].extend(loki_explained(power))
    state["events"].append(tn("{count} Loki token left in the Backpack.",
                              "{count} Loki tokens left in the Backpack.", left))


def _return_loki(state: dict, params: dict, seat: int) -> None:
    _require_phase(state, PHASE_EXPEDITION,
                   t("Taking back a Loki token is done in Phase 3, the expedition."))
    if not state["loki_used"]:
        raise Rejected(t("No Loki token has been used."))
    state["loki_used"] -= 1
    state["loki_used_on"].pop()
    state["loki_powers"].pop()
    state["events"].append(t("A Loki token is back in the Backpack: {count} there.",
                             count=loki_in_backpack(state)))


def _use_token(state: dict, params: dict, seat: int) -> None:
    _require_phase(state, PHASE_EXPEDITION,
                   t("Using a Wanderer token is done in Phase 3, the expedition."))
    if state["weapon"] != "taken":
        raise Rejected(t("Wanderer tokens come with the crystal weapon, which was not taken."))
    if state["wanderer_tokens"] < 1:
        raise Rejected(t("Both Wanderer tokens are used: each one can only be used once."))
    state["wanderer_tokens"] -= 1
    state["tokens_used_on"].append(state["jonas"])
    state["events"].append(tn("Wanderer token used on card {card} in place of an Equipment. "
                              "{count} Wanderer token left.",
                              "Wanderer token used on card {card} in place of an Equipment. "
                              "{count} Wanderer tokens left.", state["wanderer_tokens"],
                              card=state["jonas"]))


def _return_token(state: dict, params: dict, seat: int) -> None:
    _require_phase(state, PHASE_EXPEDITION,
                   t("Taking back a Wanderer token is done in Phase 3, the expedition."))
    if not state["tokens_used_on"]:
        raise Rejected(t("No Wanderer token has been used."))
    state["tokens_used_on"].pop()
    state["wanderer_tokens"] += 1
    state["events"].append(t("A Wanderer token is back: {count} left.", count=state["wanderer_tokens"]))


def _lay_guess(state: dict, params: dict, seat: int) -> None:
    _require_phase(state, PHASE_EXPEDITION, t("Laying the guess is done in Phase 3, the expedition."))
    if not state["guess_variant"]:
        raise Rejected(t("The Final Battle guess is not played at this table."))
    if _path(state)[state["jonas"]] != FINAL:
        raise Rejected(t("The guess is laid at the Final Battle card, card {final}; Jonas is on "
                         "card {card}.", final=_final_position(state), card=state["jonas"]))
    if state["guess_laid"]:
        raise Rejected(t("The guess is already laid: turn the Final Battle card over."))
    state["guess_laid"] = True
    state["events"].append(t("The guess is laid. Turn the Final Battle card over: does it match "
                             "exactly?"))


def _require_final(state: dict, outside: str) -> None:
    _require_phase(state, PHASE_EXPEDITION, outside)
    if _path(state)[state["jonas"]] != FINAL:
        raise Rejected(t("Jonas is on card {card}; the Queen waits on the Final Battle card, card "
                         "{final}.", card=state["jonas"], final=_final_position(state)))
    if state["guess_variant"] and not state["guess_laid"]:
        raise Rejected(t("Lay your guess above the Final Battle card first."))


def _beat_queen(state: dict, params: dict, seat: int) -> None:
    _require_final(state, t("Beating the Queen is done in Phase 3, the expedition."))
    state["phase"] = PHASE_OVER
    state["result"] = "won"
    state["ended_at_card"] = state["jonas"]
    level = level_label(state["level"])
    if state["guess_variant"]:
        state["events"].append(t("Your guess matched the card exactly: the Queen of the Draconia is "
                                 "defeated. You won at {level}!", level=level))
    else:
        state["events"].append(t("Every Equipment is covered: the Queen of the Draconia is "
                                 "defeated. You won at {level}!", level=level))


def _fail(state: dict, params: dict, seat: int) -> None:
    kind = _require_jonas_on(state, params["card"], (FOREST, FINAL),
                             t("Giving up on a card is done in Phase 3, the expedition."))
    if kind == FINAL:
        _require_final(state, t("Facing the Queen is done in Phase 3, the expedition."))
    state["phase"] = PHASE_OVER
    state["result"] = "lost"
    state["ended_at_card"] = state["jonas"]
    if kind == FINAL and state["guess_variant"]:
        state["events"].append(t("The guess did not match the Final Battle card: the Queen wins "
                                 "this time."))
    elif kind == FINAL:
        state["events"].append(t("The Backpack could not cover the Final Battle card: the Queen "
                                 "wins this time."))
    else:
        state["events"].append(t("The Backpack could not cover card {card}: the expedition ends "
                                 "here.", card=state["jonas"]))


_HANDLERS = {
    "tick": _tick,
    "change_setup": _change_setup,
    "start_scouting": _start_scouting,
    "done_looking": _done_looking,
    "pack": _pack,
    "change_roll": _change_roll,
    "cross": _cross,
    "wanderer": _wanderer,
    "use_loki": _use_loki,
    "return_loki": _return_loki,
    "use_token": _use_token,
    "return_token": _return_token,
    "lay_guess": _lay_guess,
    "beat_queen": _beat_queen,
    "fail": _fail,
}


# ----------------------------------------------------------------- results across games


def record(results) -> dict:
    """The family's record per level from finished games (oldest first), and what to play next.

    After a win the next level is suggested (the hardest level stays the hardest); after a
    loss, the same level again; with no game yet, Standard.
    """
    counts = {level: {"won": 0, "lost": 0} for level in LEVEL_ORDER}
    last = None
    for state in results:
        if not isinstance(state, dict):
            continue
        level, result = state.get("level"), state.get("result")
        if level not in LEVELS or result not in ("won", "lost") or state.get("phase") != PHASE_OVER:
            continue
        counts[level][result] += 1
        last = (level, result)
    levels = [{"level": level, "label": level_label(level), **counts[level],
               "played": counts[level]["won"] + counts[level]["lost"]} for level in LEVEL_ORDER]
    if last is None:
        suggestion, reason = LEVEL_ORDER[0], t("Start with Standard.")
    elif last[1] == "won":
        index = LEVEL_ORDER.index(last[0])
        if index + 1 < len(LEVEL_ORDER):
            suggestion = LEVEL_ORDER[index + 1]
            reason = t("You won {level}: try {next} next!", level=level_label(last[0]),
                       next=level_label(suggestion))
        else:
            suggestion = last[0]
            reason = t("You beat the hardest level! Play it again, or add the Final Battle guess.")
    else:
        suggestion = last[0]
        reason = t("Try {level} again: you will remember more this time.", level=level_label(last[0]))
    return {
        "levels": levels,
        "games": sum(row["played"] for row in levels),
        "won": sum(row["won"] for row in levels),
        "last": {"level": last[0], "label": level_label(last[0]), "result": last[1]} if last else None,
        "suggestion": suggestion,
        "suggestion_label": level_label(suggestion),
        "reason": reason,
    }


def next_level(level: str) -> str | None:
    """The level after `level`, or None at the hardest."""
    index = LEVEL_ORDER.index(level)
    return LEVEL_ORDER[index + 1] if index + 1 < len(LEVEL_ORDER) else None


# ----------------------------------------------------------------- view and log


TIMER_STEP = "card"
TIMER_SETUP_LABEL = t("Memorize countdown for each card")
TIMER_PRESETS = (10, 15, 20, 30)


def timer_cue(state: dict):
    """A countdown for each Path card looked at in Phase 1."""
    if state["phase"] != PHASE_SCOUTING:
        return None
    card = state["scouted"] + 1
    return f"scout:{card}", t("Memorize card {card} of {cards}", card=card, cards=_final_position(state))


def step_values(state: dict) -> dict:
    """What each step-advancing action must name now: the card in play or the roll due."""
    card = current_card(state)
    return {"done_looking": card if state["phase"] == PHASE_SCOUTING else None,
            "pack": len(state["rolls"]) + 1 if state["phase"] == PHASE_PACKING else None,
            "cross": card if state["phase"] == PHASE_EXPEDITION else None,
            "wanderer": card if state["phase"] == PHASE_EXPEDITION else None,
            "fail": card if state["phase"] == PHASE_EXPEDITION else None}


def current_card(state: dict) -> int | None:
    """The Path card in play: the one looked at in Phase 1, Jonas's in Phase 3."""
    if state["phase"] == PHASE_SCOUTING:
        return state["scouted"] + 1
    if state["phase"] == PHASE_EXPEDITION:
        return state["jonas"]
    return None


def view(state: dict, seat: int | None) -> dict:
    """Return what `seat` may see: the whole game is public."""
    players = state["players"]
    seat_count = _seat_count(state)
    is_seat = isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < seat_count
    phase = state["phase"]
    kinds = _path(state)
    final = len(kinds) - 1
    current = current_card(state)
    path = []
    for position, kind in enumerate(kinds):
        path.append({
            "position": position,
            "kind": kind,
            "label": CARD_LABELS[kind],
            "icon": CARD_ICONS[kind],
            "current": position == current,
            "scouted": 1 <= position <= state["scouted"],
            "crossed": phase in (PHASE_EXPEDITION, PHASE_OVER) and position < state["jonas"],
            "jonas": position == state["jonas"],
        })
    steps = setup_steps(state["level"])
    scout = scout_seat(state)
    roller = roll_seat(state)
    filled = backpack_filled(state)
    rolls = [{"number": index + 1, "seat": _turn_seat(state, index),
              "name": players[_turn_seat(state, index)], "took": take, "label": TAKE_LABELS[take],
              "icons": TAKE_ICONS[take], "loki": fill["loki"], "equipment": fill["equipment"],
              "notes": roll_notes(fill)}
             for index, (take, fill) in enumerate(zip(state["rolls"], roll_fills(state)))]
    level = state["level"]
    following = next_level(level)
    powers = state.get("loki_powers", [None] * len(state["loki_used_on"]))
    loki_uses = [{"card": card, "power": power, "said": loki_said(power)}
                 for card, power in zip(state["loki_used_on"], powers)]
    # The last Loki token used stays explained while Jonas is on the card it was used on.
    last_loki = loki_uses[-1] if loki_uses else None
    loki_now = (dict(last_loki, lines=loki_explained(last_loki["power"]))
                if phase == PHASE_EXPEDITION and last_loki and last_loki["card"] == state["jonas"]
                else None)
    return {
        "game": ID,
        "seat": seat if is_seat else None,
        "players": list(players),
        "first_player": state["first_player"],
        "level": level,
        "level_label": level_label(level),
        "levels": [{"key": key, "label": level_label(key), "path_text": path_text(key),
                    "loki": setup_loki(key)} for key in LEVEL_ORDER],
        "next_level": following,
        "next_level_label": level_label(following) if following else None,
        "guess_variant": state["guess_variant"],
        "phase": phase,
        "path": path,
        "path_text": path_text(level),
        "cards": final,
        "current_card": current,
        "current_kind": kinds[current] if current is not None else None,
        "setup_steps": [{"index": i, "text": text, "done": state["ticked"][i]}
                        for i, text in enumerate(steps)],
        "setup_done": all(state["ticked"]),
        "setup_loki": state["setup_loki"],
        "scouted": state["scouted"],
        "scout_seat": scout,
        "next_scout_seat": _turn_seat(state, state["scouted"] + 1) if scout is not None and current < final else None,
        "backpack_size": state["backpack_size"],
        # The sizes the setup may still choose: one space at a time, always room beyond the Loki tokens.
        "backpack_smaller": _smaller_backpack(state),
        "backpack_larger": (state["backpack_size"] + 1
                            if state["backpack_size"] < MAX_BACKPACK_SIZE else None),
        "backpack_filled": filled,
        "backpack_left": state["backpack_size"] - filled,
        "backpack_slots": backpack_slots(state),
        "rolls": rolls,
        "takes": [{"key": key, "label": TAKE_LABELS[key], "icons": TAKE_ICONS[key],
                   "note": TAKE_NOTES[key]} for key in TAKES],
        "packing_tips": packing_tips(state) if phase == PHASE_PACKING else [],
        "roll_seat": roller,
        "loki_in_stack": loki_in_stack(state),
        "loki_packed": loki_packed(state),
        "loki_in_backpack": loki_in_backpack(state),
        "loki_used": state["loki_used"],
        "loki_uses": loki_uses,
        "loki_now": loki_now,
        "jonas": state["jonas"],
        "weapon": state["weapon"],
        "exchange": state["exchange"],
        "exchange_label": EXCHANGES.get(state["exchange"]),
        # An exchange giving a Loki token needs one in the Backpack.
        "exchanges": [{"key": key, "label": label, "short": EXCHANGE_SHORT[key], "give": EXCHANGE_GIVE[key],
                       "possible": key != "equipment_loki" or loki_in_backpack(state) >= 1}
                      for key, label in EXCHANGES.items()],
        "wanderer_tokens": state["wanderer_tokens"],
        "tokens_used_on": list(state["tokens_used_on"]),
        "guess_laid": state["guess_laid"],
        "game_over": phase == PHASE_OVER,
        "result": state["result"],
        "ended_at_card": state["ended_at_card"],
        "steps": step_values(state),
        "events": list(state["events"]),
    }


def secret_open(state: dict, seat: int) -> bool:
    """Tell whether `seat` has an unrevealed secret: never, in this game."""
    return False


def describe(action: str, params: dict, seat: int, players: list[str]) -> str:
    """Write one public log line."""
    params = params if isinstance(params, dict) else {}
    who = player_name(players, seat)
    if action == "tick":
        step = as_int(params.get("step")) + 1
        if params.get("done", True):
            return t("{who} ticked setup step {step}", who=who, step=step)
        return t("{who} unticked setup step {step}", who=who, step=step)
    if action == "change_setup":
        changed = []
        if params.get("level") in LEVELS:
            changed.append(t("{who} set the level to {level}", who=who,
                             level=level_label(params["level"])))
        if params.get("first_player") not in (None, ""):
            changed.append(t("{who} set the first player to {name}", who=who,
                             name=player_name(players, as_int(params.get("first_player"), -1))))
        if params.get("guess_variant") is not None:
            changed.append(t("{who} turned the Final Battle guess on", who=who)
                           if params.get("guess_variant") else
                           t("{who} turned the Final Battle guess off", who=who))
        if params.get("backpack_size") is not None:
            changed.append(tn("{who} set the Backpack to {count} space",
                              "{who} set the Backpack to {count} spaces",
                              as_int(params.get("backpack_size")), who=who))
        # The table's buttons change one thing at a time; a client changing more is told shortly.
        return changed[0] if len(changed) == 1 else t("{who} changed the setup", who=who)
    if action == "start_scouting":
        return t("{who} started scouting the Path", who=who)
    if action == "done_looking":
        return t("{who} turned card {card} back face-down", who=who, card=as_int(params.get("card")))
    if action == "pack":
        took = TAKE_LABELS.get(params.get("took"))
        return (t("{who} logged a roll: {took}", who=who, took=took) if took
                else t("{who} logged a roll", who=who))
    if action == "change_roll":
        took, roll = TAKE_LABELS.get(params.get("took")), as_int(params.get("roll"))
        return (t("{who} changed roll {roll} to {took}", who=who, roll=roll, took=took) if took
                else t("{who} changed roll {roll}", who=who, roll=roll))
    if action == "cross":
        return t("{who} covered card {card}", who=who, card=as_int(params.get("card")))
    if action == "wanderer":
        if params.get("take"):
            exchange = params.get("exchange")
            if exchange == "two_same":
                return t("{who} took the crystal weapon for two identical Equipment", who=who)
            if exchange == "equipment_loki":
                return t("{who} took the crystal weapon for an Equipment and a Loki token", who=who)
            if exchange == "three_different":
                return t("{who} took the crystal weapon for three different Equipment", who=who)
            if exchange == "any_four":
                return t("{who} took the crystal weapon for any four Equipment", who=who)
            return t("{who} took the crystal weapon for an exchange", who=who)
        return t("{who} walked past the Wanderer", who=who)
    if action == "use_loki":
        power = params.get("power")
        power = as_int(power) if str(power).strip() in ("1", "2") else None
        return t("{who} used a Loki token: {said}", who=who, said=loki_said(power))
    if action == "return_loki":
        return t("{who} took back a Loki token", who=who)
    if action == "use_token":
        return t("{who} used a Wanderer token", who=who)
    if action == "return_token":
        return t("{who} took back a Wanderer token", who=who)
    if action == "lay_guess":
        return t("{who} laid the Final Battle guess", who=who)
    if action == "beat_queen":
        return t("{who}: the Queen is beaten", who=who)
    if action == "fail":
        return t("{who}: card {card} could not be covered", who=who, card=as_int(params.get("card")))
    spec = ACTIONS.get(action)
    return t("{who}: {action}", who=who, action=spec.label if spec else action)


def outcome(state: dict) -> dict | None:
    """The family's result for the history: won or lost, at which difficulty level."""
    if state["phase"] != "over" or state["result"] is None:
        return None
    won = state["result"] == "won"
    return {
        "cooperative": True,
        "won": won,
        "level": level_label(state["level"]),
        "players": [{"seat": seat, "name": name, "score": None, "place": None, "winner": won}
                    for seat, name in enumerate(state["players"])],
        "rounds": 1,
        "score_by_round": None,
        "summary": (t("Jonas beat the Queen of the Draconia at {level}.", level=level_label(state["level"]))
                    if won else t("The expedition stopped at card {card}, {level}.",
                                  card=state["ended_at_card"], level=level_label(state["level"]))),
    }
