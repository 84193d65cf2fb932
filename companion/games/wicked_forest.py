"""The Wicked Forest: reveal forest cards, secretly Stay or Return, share Flowers, log Magic.

The phones keep the bookkeeping the table finds fiddly: the secret Stay/Return picks, the
sharing of Flowers, the Crystallization order, the Witch count, Forest Magic Tiles, the
Exploration Card piles (and so the final round) and the score. The real cards stay the
authority for everything else: Crystallization is logged, never checked against prices.

Seats 0..N-1 sit clockwise; the player to the left of seat i is seat (i + 1) % N.
"""

from __future__ import annotations

import json
import random

from .base import (ActionSpec, Param, Rejected, check_action, check_player_count, parse_params,
                   require_step, settle_seat)
from .words import as_int, join_names, player_name, t, tc, tn

ID = "wicked-forest"
NAME = "The Wicked Forest"
MIN_PLAYERS = 2
MAX_PLAYERS = 5
RULES_VERSION = 2  # 2: the Preparation Phase and the confirmed final tally are steps
# The board's first card says who won and why: the table page does not say it a second time.
BOARD_SHOWS_ENDING = True
# The class its stylesheet scopes its rules to, on the view itself: the board's parts are the
# view's own, so a part that comes back the same is not parsed again (static/app.js).
VIEW_CLASS = "wf"
# Its first card also offers the Rematch, in the first screen: the table page shows no second.
BOARD_OFFERS_REMATCH = True

DECK_SIZE = 30
FOREST_SIZE = 9
PILE_CARDS = DECK_SIZE - FOREST_SIZE  # draw pile + discard pile, always
WITCHES_TO_ELIMINATE = 2
RUN_OUTS_FOR_FINAL_ROUND = 2
FOREST_TILE_MAGIC = 3
BAG_CAPACITY = 6
EXPANDED_BAG_CAPACITY = 10
TILE_NUMBERS = 5
TILE_STACKS = 9  # Cultivation x4 colors, Exchange x4 colors, Expansion
# The Supply of Forest Magic Tiles is unlimited: this bound only checks what is typed in.
MAX_FOREST_TILES = 99

COLORS = ("red", "green", "blue", "yellow")
ITEMS = ("card", "cultivation", "exchange", "expansion")
COLORED_TILES = ("cultivation", "exchange")
ITEM_NAMES = {
    "card": t("Magic Crystal Card"),
    "cultivation": t("Cultivation tile"),
    "exchange": t("Exchange tile"),
    "expansion": t("Expansion tile"),
}
# A color as a player reads it; in French and Spanish said of a tile or card (feminine nouns).
COLOR_NAMES = {
    "red": tc("color of a tile or card", "red"),
    "green": tc("color of a tile or card", "green"),
    "blue": tc("color of a tile or card", "blue"),
    "yellow": tc("color of a tile or card", "yellow"),
}


def _item_phrase(item, color) -> str:
    """What a log line says was crystallized, with its article: 'a blue Exchange tile'.
    One message per kind (and with or without a color): articles and agreement differ."""
    shade = COLOR_NAMES.get(color) if item != "expansion" else None
    if item == "card":
        return (t("a {color} Magic Crystal Card", color=shade) if shade
                else t("a Magic Crystal Card"))
    if item == "cultivation":
        return (t("a {color} Cultivation tile", color=shade) if shade
                else t("a Cultivation tile"))
    if item == "exchange":
        return (t("a {color} Exchange tile", color=shade) if shade
                else t("an Exchange tile"))
    if item == "expansion":
        return t("an Expansion tile")
    return t("an item")

PHASE_PREPARE = "prepare"  # rounds 2+: Cultivation gains, then storing
PHASE_REVEAL = "reveal"
PHASE_CHOOSE = "choose"
PHASE_END = "end"
PHASE_TALLY = "tally"  # the final round's returners crystallize, then the players confirm
PHASE_OVER = "over"

OPTIONS = (
    Param("first_leader", "text", label=t("First leader"), default="random"),
    Param("inventory", "bool", label=t("Inventory mode"), default=False),
)

_PLAYER = Param("player", "seat", label=t("Player"))
_FLOWERS = Param("flowers", "int", label=t("Flowers"), min=0, max=4)
_WITCH = Param("witch", "bool", label=t("Witch"), default=False)

ACTIONS: dict[str, ActionSpec] = {
    "reveal": ActionSpec("reveal", (Param("card", "int", label=t("Forest card"), min=1,
                                          max=FOREST_SIZE), _FLOWERS, _WITCH),
                         label=t("Reveal a card"), step="card"),
    "choose": ActionSpec(
        "choose",
        (Param("choice", "choice", label=t("Choice"), choices=("stay", "return")),
         Param("decision", "int", label=t("Card"), min=0, max=FOREST_SIZE)),
        secret=True, label=t("Stay or Return")),
    "crystallize": ActionSpec(
        "crystallize",
        (_PLAYER,
         Param("magic", "int", label=t("Magic"), min=0, max=20),
         Param("item", "choice", label=t("Item"), choices=ITEMS),
         Param("color", "choice", label=t("Color"), choices=COLORS + ("none",), default="none"),
         Param("spent", "int", label=t("Flowers spent"), min=0, max=20, default=0),
         # The player pays from the Bag or the Storehouse as they like: how many from the latter.
         Param("from_storehouse", "int", label=t("Flowers from the Storehouse"), min=0, max=20,
               default=0)),
        label=t("Log Crystallization")),
    "done_crystallizing": ActionSpec("done_crystallizing", (_PLAYER,),
                                     label=t("Done crystallizing")),
    "store": ActionSpec("store", (_PLAYER,), label=t("Store a Flower")),
    "done_preparing": ActionSpec("done_preparing", (_PLAYER,), label=t("Done preparing")),
    "start_exploration": ActionSpec(
        "start_exploration",
        (Param("round", "int", label=t("Round whose Exploration starts"), min=2, max=999),),
        label=t("Start Exploration"), step="round"),
    "set_inventory": ActionSpec(
        "set_inventory",
        (_PLAYER,
         Param("bag", "int", label=t("Bag"), min=0, max=EXPANDED_BAG_CAPACITY),
         Param("storehouse", "int", label=t("Storehouse"), min=0, max=99)),
        label=t("Correct Bag and Storehouse")),
    "next_round": ActionSpec("next_round", (Param("round", "int", label=t("Round it starts"), min=2,
                                                  max=999),),
                             label=t("Start the next round"), step="round"),
    "correct_card": ActionSpec("correct_card", (_FLOWERS, _WITCH), label=t("Correct the last card")),
    "set_draw_pile": ActionSpec(
        "set_draw_pile",
        (Param("count", "int", label=t("Cards in the draw pile"), min=0, max=PILE_CARDS),),
        label=t("Correct the draw pile")),
    "set_run_outs": ActionSpec(
        "set_run_outs",
        (Param("count", "int", label=t("Run-outs"), min=0, max=RUN_OUTS_FOR_FINAL_ROUND),),
        label=t("Correct the run-out count")),
    "set_forest_magic": ActionSpec(
        "set_forest_magic",
        (_PLAYER, Param("count", "int", label=t("Forest Magic Tiles"), min=0, max=MAX_FOREST_TILES)),
        label=t("Correct Forest Magic Tiles")),
    "set_magic": ActionSpec(
        "set_magic",
        (_PLAYER, Param("magic", "int", label=t("Magic"), min=0, max=200)),
        label=t("Correct Magic")),
    "set_final_flowers": ActionSpec(
        "set_final_flowers",
        (_PLAYER, Param("count", "int", label=t("Flowers left"), min=0, max=99)),
        label=t("Flowers left on the board")),
    "finish": ActionSpec("finish", (), label=t("End the game now")),
    "confirm_tally": ActionSpec("confirm_tally", (), label=t("Confirm the final tally")),
}

# Once the final Exploration is over, only the tally moves: the returners' Crystallization,
# corrections of the numbers scored, and the players' confirmation.
_TALLY_ACTIONS = ("crystallize", "done_crystallizing", "set_inventory", "set_forest_magic", "set_magic",
                  "set_final_flowers", "confirm_tally")


# ----------------------------------------------------------------- small helpers


def _ordinal(number: int) -> str:
    """Say '1st', '2nd', '3rd', '4th'."""
    if 10 <= number % 100 <= 20:
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def _names(state: dict, seats) -> list[str]:
    return [state["players"][s] for s in seats]


def _seat_count(state: dict) -> int:
    return len(state["players"])


def card_text(flowers, witch) -> str:
    """Describe a card as '3 Flowers, Witch' or '1 Flower'."""
    count = as_int(flowers)
    if witch:
        return tn("{count} Flower, Witch", "{count} Flowers, Witch", count)
    return tn("{count} Flower", "{count} Flowers", count)


def flowers_on_display(state: dict) -> int:
    """Count the Flowers on all cards revealed this round."""
    return sum(card["flowers"] for card in state["cards"])


def witches_revealed(state: dict) -> int:
    """Count the Witch cards revealed this round."""
    return sum(1 for card in state["cards"] if card["witch"])


def share_flowers(total: int, returners: int) -> tuple[int, int]:
    """Return (Flowers each returner gains, Flowers discarded) for one Return.

    A lone returner takes everything; several split it rounded down but each gets at
    least 1 -- as long as there is a Flower to take, since every Flower gained is picked
    from those shown on the revealed cards.
    """
    if returners < 1:
        raise ValueError("at least one returner is needed")
    if returners == 1:
        return total, 0
    if total == 0:
        return 0, 0
    each = max(1, total // returners)
    return each, max(0, total - each * returners)


def crystallization_order(returners, leader: int, seat_count: int) -> list[int]:
    """Order simultaneous returners: the leader first, then clockwise from the leader's left."""
    return sorted(returners, key=lambda seat: (seat - leader) % seat_count)


def _new_board() -> dict:
    """Make an empty personal board."""
    return {
        "magic": 0,
        "forest_tiles": 0,
        "items": [],
        "flowers_by_round": [0],  # Flowers gained by Returning, one entry per round
        "bag": 0,
        "storehouse": 0,
        "bag_capacity": BAG_CAPACITY,
        "final_flowers": None,  # set at the end for the tie-break
    }


def _holds(board: dict, item: str, color: str = "none") -> bool:
    """Tell whether the board already holds a tile from that stack."""
    return any(entry["item"] == item and (item == "expansion" or entry["color"] == color)
               for entry in board["items"])


def _tile_colors(board: dict, item: str) -> list[str]:
    """List the colors of the tiles of one type on the board."""
    return [color for color in COLORS if _holds(board, item, color)]


def flowers_left(state: dict, seat: int) -> int:
    """Count the Flowers left on the personal board for the tie-break: as set, else tracked."""
    board = state["boards"][seat]
    if board["final_flowers"] is not None:
        return board["final_flowers"]
    if state["inventory"]:
        return board["bag"] + board["storehouse"]
    return 0


def _require_seat(state: dict, seat) -> None:
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < _seat_count(state):
        raise Rejected(t("That seat is not at this table."))


def _require_inventory(state: dict) -> None:
    if not state["inventory"]:
        raise Rejected(t("Inventory mode is off at this table: keep Flowers on the real board."))


# ----------------------------------------------------------------- options and setup


def prepare_options(raw: dict, players: list[str], rng: random.Random) -> dict:
    """Check the setup options and settle a random first leader to a seat."""
    check_player_count(len(players), NAME, MIN_PLAYERS, MAX_PLAYERS)
    values = parse_params(OPTIONS, raw, len(players))
    first_leader = settle_seat(values["first_leader"], players, rng, t("First leader"))
    return {"first_leader": first_leader, "inventory": bool(values["inventory"])}


def setup(players: list[str], options: dict) -> dict:
    """Start round 1: everyone in the forest, 9 cards face down, 21 in the draw pile."""
    check_player_count(len(players), NAME, MIN_PLAYERS, MAX_PLAYERS)
    leader = options.get("first_leader")
    if isinstance(leader, bool) or not isinstance(leader, int) or not 0 <= leader < len(players):
        raise Rejected(t("The first leader must be one of the seats."))
    seat_count = len(players)
    return {
        "rules_version": RULES_VERSION,
        "players": list(players),
        "inventory": bool(options.get("inventory", False)),
        "round": 1,
        "leader": leader,
        "phase": PHASE_REVEAL,
        "final_round": False,
        "final_round_number": None,
        "cards": [],
        "decision": 0,
        "in_forest": list(range(seat_count)),
        "eliminated": [],
        "returns": [],
        "picks": [None] * seat_count,  # secret until everyone in the forest has picked
        "history": [],
        "crystallization_order": [],
        "crystallizing": [],  # returners who have not said they are done crystallizing, in order
        "draw": PILE_CARDS,
        "discard": 0,
        "run_outs": 0,
        "boards": [_new_board() for _ in players],
        "prepared": [],  # seats done with the Preparation Phase this round
        "ended_early": False,  # the players stopped before the final round was played
        "round_scores": [],  # each seat's score at the end of each finished round
        "events": [t("Round {round}: {leader} leads. Everyone is in the forest.", round=1,
                     leader=players[leader])],
    }


def tiles_to_box(n_players: int) -> str:
    """Say which Ability Crystal Tiles go back in the box for this many players."""
    check_player_count(n_players, NAME, MIN_PLAYERS, MAX_PLAYERS)
    unused = list(range(n_players + 1, TILE_NUMBERS + 1))
    if not unused:
        return t("With {players} players every Ability Crystal Tile is used: none go back in the box.",
                 players=n_players)
    numbers = join_names([str(number) for number in unused])
    return tn("Put tile {numbers} of each of the {stacks} Ability Crystal Tile stacks back in the box "
              "({tiles} tiles).",
              "Put tiles {numbers} of each of the {stacks} Ability Crystal Tile stacks back in the box "
              "({tiles} tiles).",
              len(unused), numbers=numbers, stacks=TILE_STACKS, tiles=len(unused) * TILE_STACKS)


def setup_notes(n_players: int) -> list[str]:
    """List the setup steps for this many players, with the tiles that go back in the box."""
    tiles_line = tiles_to_box(n_players)
    return [
        t("Shuffle the {cards} Exploration Cards face down as the draw pile.", cards=DECK_SIZE),
        t("Lay {forest} cards face down as the forest; {pile} stay in the draw pile.",
          forest=FOREST_SIZE, pile=PILE_CARDS),
        t("Put the Flower tokens and the Forest Magic Tiles nearby as the Supply."),
        tiles_line,
        t("Stack each kind of Ability Crystal Tile face up by color, tile 1 on top."),
        t("Sort the Magic Crystal Cards by color, each stack with the smallest Magic on top."),
        t("Each player takes a Villager pawn, the Player board of its color and a Summary Card."),
        t("Give the Leader marker to the first leader."),
    ]


# ----------------------------------------------------------------- apply


def apply(state: dict, action: str, params: dict, seat: int) -> dict:
    """Return the state after `seat` takes `action`; raise Rejected and change nothing."""
    _, parsed = check_action(ACTIONS, action, params if params is not None else {},
                             _seat_count(state))
    _require_seat(state, seat)
    if state["phase"] == PHASE_OVER:
        raise Rejected(t("The game is over: undo the last move to change the tally."))
    if state["phase"] == PHASE_TALLY and action not in _TALLY_ACTIONS:
        raise Rejected(t("The final round's Exploration is over: finish Crystallization, "
                         "then confirm the final tally."))
    # The state is plain JSON by contract, so a JSON round trip is a fast deep copy.
    new_state = json.loads(json.dumps(state))
    new_state["events"] = []
    _HANDLERS[action](new_state, parsed, seat)
    return new_state


def step_values(state: dict) -> dict:
    """What each step-advancing action must name now: the forest card or the round it starts."""
    return {"reveal": len(state["cards"]) + 1 if state["phase"] == PHASE_REVEAL else None,
            "next_round": state["round"] + 1,
            "start_exploration": state["round"] if state["phase"] == PHASE_PREPARE else None}


def _now_text(state: dict) -> str:
    """Where the table is, for a refusal of an action meant for a step already gone by."""
    if state["phase"] == PHASE_PREPARE:
        return t("it is now round {round}'s Preparation Phase", round=state["round"])
    if state["phase"] == PHASE_REVEAL:
        return t("it is now round {round}, card {card} to reveal", round=state["round"],
                 card=len(state["cards"]) + 1)
    if state["phase"] == PHASE_CHOOSE:
        return t("it is now round {round}, card {card} waiting for Stay or Return",
                 round=state["round"], card=state["decision"])
    return t("round {round}'s exploration is over: start the next round", round=state["round"])


def _reveal(state: dict, params: dict, seat: int) -> None:
    """Turn a forest card face up, then eliminate, return everyone, or ask for picks."""
    named, number = params["card"], len(state["cards"]) + 1
    if named < number:
        require_step(named, None, t("card {card}", card=named), _now_text(state),
                     done=t("is already revealed"))
    if state["phase"] == PHASE_CHOOSE:
        raise Rejected(t("Everyone in the forest must choose Stay or Return before the next card."))
    if state["phase"] == PHASE_END:
        raise Rejected(t("Exploration is over for this round: start the next round first."))
    if state["phase"] == PHASE_PREPARE:
        raise Rejected(t("Round {round} is still in its Preparation Phase: {leader} starts "
                         "Exploration first.", round=state["round"],
                         leader=state["players"][state["leader"]]))
    require_step(named, number, t("card {card}", card=named), _now_text(state), past=False)
    state["cards"].append({"flowers": params["flowers"], "witch": params["witch"]})
    number = len(state["cards"])
    if witches_revealed(state) >= WITCHES_TO_ELIMINATE:
        _second_witch(state)
    elif number == FOREST_SIZE:
        _last_card_revealed(state)
    else:
        state["phase"] = PHASE_CHOOSE
        state["decision"] = number
        state["picks"] = [None] * _seat_count(state)
        state["events"].append(t("Card {card}: {names}, choose Stay or Return.", card=number,
                                 names=join_names(_names(state, state["in_forest"]))))


def _second_witch(state: dict) -> None:
    """Eliminate everyone still in the forest and end Exploration."""
    caught = sorted(state["in_forest"])
    state["eliminated"] = sorted(state["eliminated"] + caught)
    state["in_forest"] = []
    state["picks"] = [None] * _seat_count(state)
    state["events"].append(tn("Second Witch! {names} is eliminated and gains nothing this round.",
                              "Second Witch! {names} are eliminated and gain nothing this round.",
                              len(caught), names=join_names(_names(state, caught))))
    _end_exploration(state)


def _last_card_revealed(state: dict) -> None:
    """Bring everyone left home safely together, each with a Forest Magic Tile."""
    returners = sorted(state["in_forest"])
    state["events"].append(tn("All {forest} forest cards are revealed: {names} returns safely.",
                              "All {forest} forest cards are revealed: {names} return safely.",
                              len(returners), forest=FOREST_SIZE,
                              names=join_names(_names(state, returners))))
    _gain_flowers(state, returners, FOREST_SIZE)
    state["in_forest"] = []
    _award_forest_tiles(state, returners)
    _end_exploration(state)


def _gain_flowers(state: dict, returners: list[int], reveal_number: int) -> None:
    """Share the displayed Flowers among those returning together and fix their order."""
    total = flowers_on_display(state)
    each, discarded = share_flowers(total, len(returners))
    names = _names(state, returners)
    if len(returners) == 1:
        state["events"].append(tn("{name} gains {count} Flower.", "{name} gains {count} Flowers.",
                                  total, name=names[0]))
    elif total == 0:
        state["events"].append(t("No Flowers are on display: {names} gain nothing.",
                                 names=join_names(names)))
    else:
        shared = {"sharers": len(returners), "names": join_names(names),
                  "each": tn("{count} Flower", "{count} Flowers", each)}
        if discarded:
            line = tn("{count} Flower shared by {sharers}: {names} gain {each} each ({discarded} discarded).",
                      "{count} Flowers shared by {sharers}: {names} gain {each} each ({discarded} discarded).",
                      total, discarded=discarded, **shared)
        elif total < len(returners):
            line = tn("{count} Flower shared by {sharers}: {names} gain {each} each (at least 1 each).",
                      "{count} Flowers shared by {sharers}: {names} gain {each} each (at least 1 each).",
                      total, **shared)
        else:
            line = tn("{count} Flower shared by {sharers}: {names} gain {each} each.",
                      "{count} Flowers shared by {sharers}: {names} gain {each} each.",
                      total, **shared)
        state["events"].append(line)
    order = crystallization_order(returners, state["leader"], _seat_count(state))
    state["crystallization_order"] = order
    # Each returner is asked what they crystallized until they say they are done.
    pending = state.setdefault("crystallizing", [])
    pending.extend(seat for seat in order if seat not in pending)
    if len(order) > 1:
        state["events"].append(t("Crystallization order: {names}.",
                                 names=", ".join(_names(state, order))))
    for seat in order:
        board = state["boards"][seat]
        board["flowers_by_round"][-1] += each
        state["returns"].append({"seat": seat, "reveal": reveal_number, "flowers": each,
                                 "forest_tile": False})
        if state["inventory"]:
            kept = min(each, max(0, board["bag_capacity"] - board["bag"]))
            board["bag"] += kept
            if each > kept:
                state["events"].append(tn(
                    "{name}'s Bag holds only {capacity}: {count} Flower goes back to the Supply.",
                    "{name}'s Bag holds only {capacity}: {count} Flowers go back to the Supply.",
                    each - kept, name=state["players"][seat], capacity=board["bag_capacity"]))


def _award_forest_tiles(state: dict, seats: list[int]) -> None:
    """Give each of `seats` a Forest Magic Tile."""
    for seat in seats:
        state["boards"][seat]["forest_tiles"] += 1
    for entry in state["returns"]:
        if entry["seat"] in seats:
            entry["forest_tile"] = True
    names = _names(state, sorted(seats))
    if len(names) == 1:
        state["events"].append(t("{name} gains a Forest Magic Tile ({magic} Magic).", name=names[0],
                                 magic=FOREST_TILE_MAGIC))
    else:
        state["events"].append(t("{names} each gain a Forest Magic Tile ({magic} Magic).",
                                 names=join_names(names), magic=FOREST_TILE_MAGIC))


def _end_exploration(state: dict) -> None:
    """Close this round's Exploration; the final round's ends the game."""
    state["picks"] = [None] * _seat_count(state)
    if state["final_round"]:
        # The result waits for the returners' Crystallization and the players' word.
        state["phase"] = PHASE_TALLY
        state["events"].append(t("The final round's Exploration is over: the game ends once the "
                                 "returners have crystallized and the players confirm the tally."))
    else:
        state["phase"] = PHASE_END
        state["events"].append(t("Exploration is over for this round. "
                                 "Finish Crystallization, then start the next round."))


def _choose(state: dict, params: dict, seat: int) -> None:
    """Record a secret pick; open all hands once the last one is in."""
    decision = params["decision"]
    current = len(state["cards"])
    phase = state["phase"]
    if phase == PHASE_END:
        raise Rejected(t("Exploration is over for this round: there is nothing to choose."))
    if phase == PHASE_PREPARE:
        raise Rejected(t("Exploration has not started yet: wait for the first card."))
    if phase != PHASE_CHOOSE or decision != current:
        if decision > current or current == 0:
            if phase == PHASE_CHOOSE:
                raise Rejected(t("Card {card} has not been revealed yet.", card=decision))
            raise Rejected(t("Wait for the next card to be revealed before choosing."))
        raise Rejected(t("That choice was for an earlier card."))
    if seat not in state["in_forest"]:
        if seat in state["eliminated"]:
            raise Rejected(t("The Witch caught you this round: you choose again next round."))
        raise Rejected(t("You have already returned from the forest this round."))
    state["picks"][seat] = params["choice"]
    waiting = [s for s in state["in_forest"] if state["picks"][s] is None]
    if waiting:
        # The same words whatever was picked: the pick stays secret.
        state["events"].append(t("{name} has chosen. Waiting for {names}.", name=state["players"][seat],
                                 names=join_names(_names(state, waiting))))
    else:
        _resolve_choices(state)


def _resolve_choices(state: dict) -> None:
    """Open every hand at once: share Flowers among returners, then continue or end."""
    number = state["decision"]
    in_forest = sorted(state["in_forest"])
    picks = state["picks"]
    returners = [s for s in in_forest if picks[s] == "return"]
    stayers = [s for s in in_forest if picks[s] == "stay"]
    state["history"].append({
        "reveal": number,
        "flowers_on_display": flowers_on_display(state),
        "choices": [picks[s] if s in in_forest else None for s in range(_seat_count(state))],
    })
    state["events"].append(_reveal_line(number, join_names(_names(state, returners)), len(returners),
                                        join_names(_names(state, stayers)), len(stayers)))
    state["picks"] = [None] * _seat_count(state)
    state["in_forest"] = stayers
    if returners:
        _gain_flowers(state, returners, number)
    if not stayers:
        # Several returning at the moment the forest empties are all "the last remaining".
        _award_forest_tiles(state, returners)
        _end_exploration(state)
    else:
        state["phase"] = PHASE_REVEAL
        state["events"].append(t("{leader} reveals the next card.", leader=state["players"][state["leader"]]))


def _reveal_line(number: int, returners, returning: int, stayers, staying: int) -> str:
    """'Reveal 3: Ana returns, Ben and Cara stay.': one whole sentence per shape."""
    values = {"card": number, "returners": returners, "stayers": stayers}
    if not staying:
        return tn("Reveal {card}: {returners} returns.", "Reveal {card}: {returners} return.",
                  returning, **values)
    if not returning:
        return tn("Reveal {card}: {stayers} stays.", "Reveal {card}: {stayers} stay.", staying, **values)
    if returning == 1:
        return (t("Reveal {card}: {returners} returns, {stayers} stays.", **values) if staying == 1
                else t("Reveal {card}: {returners} returns, {stayers} stay.", **values))
    return (t("Reveal {card}: {returners} return, {stayers} stays.", **values) if staying == 1
            else t("Reveal {card}: {returners} return, {stayers} stay.", **values))


def _crystallize(state: dict, params: dict, seat: int) -> None:
    """Log a Magic Crystal Card or Ability Crystal Tile for a player."""
    player = params["player"]
    item = params["item"]
    color = params["color"]
    spent = params["spent"]
    name = state["players"][player]
    board = state["boards"][player]
    if item in COLORED_TILES:
        if color == "none":
            raise Rejected(t("A Cultivation tile has a color: pick red, green, blue or yellow.")
                           if item == "cultivation" else
                           t("An Exchange tile has a color: pick red, green, blue or yellow."))
        if _holds(board, item, color):
            shade = COLOR_NAMES[color]
            raise Rejected(t("{name} already holds a {color} Cultivation tile: only one from each stack.",
                             name=name, color=shade) if item == "cultivation" else
                           t("{name} already holds a {color} Exchange tile: only one from each stack.",
                             name=name, color=shade))
    elif item == "expansion":
        color = "none"
        if _holds(board, "expansion"):
            raise Rejected(t("{name} already holds an Expansion tile: only one per player.", name=name))
    if state["inventory"]:
        # "Flowers in the Storehouse can be used for Crystallization in the same way as those
        # in the Bag": the player says how many come from each.
        from_storehouse = params["from_storehouse"]
        if from_storehouse > spent:
            raise Rejected(tn("Only {count} Flower is paid: {storehouse} cannot come from the Storehouse.",
                              "Only {count} Flowers are paid: {storehouse} cannot come from the Storehouse.",
                              spent, storehouse=from_storehouse))
        from_bag = spent - from_storehouse
        if from_bag > board["bag"] or from_storehouse > board["storehouse"]:
            raise Rejected(t("{name} has {bag} in the Bag and {storehouse} in the Storehouse: "
                             "{from_bag} from the Bag and {from_storehouse} from the Storehouse do "
                             "not fit.", name=name, bag=board["bag"], storehouse=board["storehouse"],
                             from_bag=from_bag, from_storehouse=from_storehouse))
        board["bag"] -= from_bag
        board["storehouse"] -= from_storehouse
    board["magic"] += params["magic"]
    board["items"].append({"item": item, "color": color, "magic": params["magic"],
                           "spent": spent, "round": state["round"]})
    if item == "expansion":
        board["bag_capacity"] = EXPANDED_BAG_CAPACITY
        if state["inventory"]:
            state["events"].append(t("{name}'s Bag now holds up to {capacity} Flowers.", name=name,
                                     capacity=EXPANDED_BAG_CAPACITY))


def _done_crystallizing(state: dict, params: dict, seat: int) -> None:
    """A returner has crystallized all they wanted (or nothing): the table need not wait."""
    player = params["player"]
    pending = state.get("crystallizing", [])
    if player not in pending:
        raise Rejected(t("{name} has no Crystallization waiting.", name=state["players"][player]))
    pending.remove(player)


def _store(state: dict, params: dict, seat: int) -> None:
    """Pay 1 Flower from the Bag and move 1 more to the Storehouse, in the Preparation Phase."""
    _require_inventory(state)
    _require_preparation(state, "store")
    board = state["boards"][params["player"]]
    if board["bag"] < 2:
        raise Rejected(t("{name} needs 2 Flowers in the Bag to store one: 1 to pay, 1 to store.",
                         name=state["players"][params["player"]]))
    board["bag"] -= 2
    board["storehouse"] += 1


# What belongs to the Preparation Phase alone, said when it is refused: one sentence each,
# before round 2 (round 1 has none) and once a round's Exploration has started.
_PREPARATION_ONLY = {
    "store": lambda round: (
        t("Storing happens in the Preparation Phase, which round 1 does not have: "
          "it comes at the start of round 2.") if round == 1 else
        t("Storing happens in the Preparation Phase, before the first card of a round: "
          "round {round}'s Exploration has started.", round=round)),
    "prepare": lambda round: (
        t("Preparing happens in the Preparation Phase, which round 1 does not have: "
          "it comes at the start of round 2.") if round == 1 else
        t("Preparing happens in the Preparation Phase, before the first card of a round: "
          "round {round}'s Exploration has started.", round=round)),
    "start": lambda round: (
        t("Starting Exploration happens in the Preparation Phase, which round 1 does not have: "
          "it comes at the start of round 2.") if round == 1 else
        t("Starting Exploration happens in the Preparation Phase, before the first card of a "
          "round: round {round}'s Exploration has started.", round=round)),
}


def _require_preparation(state: dict, what: str) -> None:
    """Refuse, with the reason, anything that belongs to the Preparation Phase alone."""
    if state["phase"] == PHASE_PREPARE:
        return
    raise Rejected(_PREPARATION_ONLY[what](state["round"]))


def _done_preparing(state: dict, params: dict, seat: int) -> None:
    """Mark a player done storing; once everyone is, Exploration starts."""
    _require_preparation(state, "prepare")
    player = params["player"]
    prepared = state.setdefault("prepared", [])
    if player in prepared:
        raise Rejected(t("{name} is already done preparing.", name=state["players"][player]))
    prepared.append(player)
    prepared.sort()
    waiting = [s for s in range(_seat_count(state)) if s not in prepared]
    if waiting:
        state["events"].append(t("{name} is done preparing. Waiting for {names}.",
                                 name=state["players"][player], names=join_names(_names(state, waiting))))
    else:
        state["events"].append(t("Everyone is done preparing."))
        _begin_exploration(state)


def _start_exploration(state: dict, params: dict, seat: int) -> None:
    """The leader ends the Preparation Phase for everyone and starts Exploration."""
    named = params["round"]
    require_step(named, state["round"], t("round {round}'s Preparation", round=named), _now_text(state),
                 past=named < state["round"], done=t("is already over"))
    _require_preparation(state, "start")
    if seat != state["leader"]:
        raise Rejected(t("{leader}, the leader, starts Exploration; the others tap Done.",
                         leader=state["players"][state["leader"]]))
    _begin_exploration(state)


def _begin_exploration(state: dict) -> None:
    state["phase"] = PHASE_REVEAL
    state["prepared"] = []
    state["events"].append(t("Exploration: {leader} reveals the first card.",
                             leader=state["players"][state["leader"]]))


def _set_inventory(state: dict, params: dict, seat: int) -> None:
    """Correct a player's Bag and Storehouse counts."""
    _require_inventory(state)
    board = state["boards"][params["player"]]
    if params["bag"] > board["bag_capacity"]:
        raise Rejected(t("{name}'s Bag holds at most {capacity} Flowers.",
                         name=state["players"][params["player"]], capacity=board["bag_capacity"]))
    board["bag"] = params["bag"]
    board["storehouse"] = params["storehouse"]


def _next_round(state: dict, params: dict, seat: int) -> None:
    """Run the End Phase and start the next round with its Preparation Phase."""
    named = params["round"]
    require_step(named, state["round"] + 1, t("starting round {round}", round=named), _now_text(state),
                 past=named <= state["round"], done=t("is already done"))
    if state["phase"] != PHASE_END:
        raise Rejected(t("Exploration is still going on: finish this round's exploration first."))
    seat_count = _seat_count(state)
    state.setdefault("round_scores", []).append(_scores(state))
    # End Phase: revealed cards to the discard, then refill the forest one card at a time.
    refill = len(state["cards"])
    state["discard"] += refill
    state["cards"] = []
    second_run_out = False
    for _ in range(refill):
        if state["draw"] == 0:
            # A pile corrected to 0 runs out here, as one played out does (ruling).
            second_run_out = _run_out(state) or second_run_out
        state["draw"] -= 1
        if state["draw"] == 0:
            second_run_out = _run_out(state) or second_run_out
    state["leader"] = (state["leader"] + 1) % seat_count
    state["round"] += 1
    if second_run_out:
        state["final_round_number"] = state["round"]
    state["final_round"] = state["final_round_number"] == state["round"]
    state["phase"] = PHASE_PREPARE
    state["prepared"] = []
    state["decision"] = 0
    state["in_forest"] = list(range(seat_count))
    state["eliminated"] = []
    state["returns"] = []
    state["picks"] = [None] * seat_count
    state["history"] = []
    state["crystallization_order"] = []
    state["crystallizing"] = []
    for board in state["boards"]:
        board["flowers_by_round"].append(0)
    state["events"].append(t("Round {round}: {leader} leads. Everyone is back in the forest.",
                             round=state["round"], leader=state["players"][state["leader"]]))
    if state["final_round"]:
        state["events"].append(t("Final round!"))
    _preparation(state)


def _run_out(state: dict) -> bool:
    """The draw pile is empty while refilling: the discard is shuffled into a new draw pile.
    True when this is the run-out that makes the next round the final one."""
    state["run_outs"] += 1
    # One message per time (an ordinal is said differently in every language).
    times = state["run_outs"]
    if times == 1:
        line = t("Draw pile ran out (1st time): discard shuffled into a new draw pile.")
    elif times == 2:
        line = t("Draw pile ran out (2nd time): discard shuffled into a new draw pile.")
    else:
        line = t("Draw pile ran out again ({count} times in all): discard shuffled into a new draw pile.",
                 count=times)
    state["events"].append(line)
    state["draw"], state["discard"] = state["discard"], 0
    return state["run_outs"] == RUN_OUTS_FOR_FINAL_ROUND


def _preparation(state: dict) -> None:
    """Give each Cultivation tile's Flower, as far as the Bag has room; then storing is open."""
    for seat, board in enumerate(state["boards"]):
        tiles = len(_tile_colors(board, "cultivation"))
        if not tiles:
            continue
        name = state["players"][seat]
        if not state["inventory"]:
            state["events"].append(t("Preparation: {name} gains 1 Flower per Cultivation tile "
                                     "({tiles}), as far as the Bag has room.", name=name, tiles=tiles))
            continue
        gained = min(tiles, max(0, board["bag_capacity"] - board["bag"]))
        board["bag"] += gained
        if gained < tiles:
            line = tn("Preparation: {name} gains {count} Flower from Cultivation tiles ({more} more "
                      "would not fit in the Bag).",
                      "Preparation: {name} gains {count} Flowers from Cultivation tiles ({more} more "
                      "would not fit in the Bag).", gained, name=name, more=tiles - gained)
        else:
            line = tn("Preparation: {name} gains {count} Flower from Cultivation tiles.",
                      "Preparation: {name} gains {count} Flowers from Cultivation tiles.", gained, name=name)
        state["events"].append(line)
    state["events"].append(t("Preparation: store Flowers if you wish (pay 1 from the Bag, move 1 "
                             "to the Storehouse), then tap Done."))


def _correct_card(state: dict, params: dict, seat: int) -> None:
    """Correct the card now waiting for picks, and check the Witches again."""
    if state["phase"] != PHASE_CHOOSE:
        raise Rejected(t("Only a card still waiting for choices can be corrected."))
    card = state["cards"][-1]
    card["flowers"] = params["flowers"]
    card["witch"] = params["witch"]
    state["events"].append(t("Card {card} corrected: {shows}.", card=len(state["cards"]),
                             shows=card_text(card["flowers"], card["witch"])))
    if witches_revealed(state) >= WITCHES_TO_ELIMINATE:
        # Picks made for this card are dropped unseen; the table layer wipes them from the
        # log and says so, since only it can (a fold no longer knows they were made).
        _second_witch(state)


def _set_draw_pile(state: dict, params: dict, seat: int) -> None:
    """Correct the draw pile; the discard pile holds the rest of the 21."""
    state["draw"] = params["count"]
    state["discard"] = PILE_CARDS - params["count"]


def _set_run_outs(state: dict, params: dict, seat: int) -> None:
    """Correct the run-out count and with it the final round."""
    count = params["count"]
    state["run_outs"] = count
    if count < RUN_OUTS_FOR_FINAL_ROUND:
        state["final_round_number"] = None
    elif state["final_round_number"] is None:
        # Once Exploration is over the round can no longer be the last one: the next is.
        later = 1 if state["phase"] == PHASE_END else 0
        state["final_round_number"] = state["round"] + later
        state["events"].append(t("Final round!") if not later else t("The next round is the final round."))
    state["final_round"] = state["final_round_number"] == state["round"]


def _set_forest_magic(state: dict, params: dict, seat: int) -> None:
    """Correct a player's Forest Magic Tiles."""
    state["boards"][params["player"]]["forest_tiles"] = params["count"]


def _set_magic(state: dict, params: dict, seat: int) -> None:
    """Override a player's logged Magic total."""
    state["boards"][params["player"]]["magic"] = params["magic"]


def _set_final_flowers(state: dict, params: dict, seat: int) -> None:
    """Set the Flowers a player has left, for the tie-break."""
    state["boards"][params["player"]]["final_flowers"] = params["count"]


def _finish(state: dict, params: dict, seat: int) -> None:
    """End the game between rounds, as the players decided: early, so nobody wins."""
    if state["phase"] != PHASE_END:
        raise Rejected(t("The game can be ended only between rounds, once Exploration is over."))
    state["phase"] = PHASE_OVER
    state["ended_early"] = True
    state["events"].append(standings(state)["decided_by"])


def _confirm_tally(state: dict, params: dict, seat: int) -> None:
    """The players confirm the final numbers: the result is announced now."""
    if state["phase"] != PHASE_TALLY:
        raise Rejected(t("The final tally comes after the final round's Exploration."))
    missing = flowers_missing(state)
    if missing:
        leaders = _lead(standings(state)["standings"])
        raise Rejected(t("{names} are tied for the lead on {score} Magic: enter the Flowers left for "
                         "{missing} first, they break the tie.",
                         names=join_names([row["name"] for row in leaders]), score=leaders[0]["score"],
                         missing=join_names(_names(state, missing))))
    state["phase"] = PHASE_OVER
    state["events"].append(t("Final tally confirmed."))
    state["events"].append(standings(state)["decided_by"])


_HANDLERS = {
    "reveal": _reveal,
    "choose": _choose,
    "crystallize": _crystallize,
    "done_crystallizing": _done_crystallizing,
    "store": _store,
    "done_preparing": _done_preparing,
    "start_exploration": _start_exploration,
    "set_inventory": _set_inventory,
    "next_round": _next_round,
    "correct_card": _correct_card,
    "set_draw_pile": _set_draw_pile,
    "set_run_outs": _set_run_outs,
    "set_forest_magic": _set_forest_magic,
    "set_magic": _set_magic,
    "set_final_flowers": _set_final_flowers,
    "finish": _finish,
    "confirm_tally": _confirm_tally,
}


# ----------------------------------------------------------------- scoring


def _lead(rows: list[dict]) -> list[dict]:
    """The rows tied on the highest score, in seat order."""
    top_score = max(row["score"] for row in rows)
    return sorted((row for row in rows if row["score"] == top_score), key=lambda row: row["seat"])


def flowers_missing(state: dict) -> list[int]:
    """Seats tied for the lead whose Flowers left nobody has entered: the tie-break needs them.

    In inventory mode the Bag and Storehouse are tracked, so nothing is missing.
    """
    if state["inventory"]:
        return []
    lead = _lead(_rows(state))
    if len(lead) < 2:
        return []
    return [row["seat"] for row in lead if state["boards"][row["seat"]]["final_flowers"] is None]


def _rows(state: dict) -> list[dict]:
    return [{
        "seat": seat,
        "name": state["players"][seat],
        "magic": board["magic"],
        "forest_tiles": board["forest_tiles"],
        "score": board["magic"] + FOREST_TILE_MAGIC * board["forest_tiles"],
        "flowers": flowers_left(state, seat),
    } for seat, board in enumerate(state["boards"])]


def standings(state: dict) -> dict:
    """Rank the players by Magic (Forest Magic Tiles included); Flowers break a tie for the lead only.

    Players below the lead tied on Magic share a place. A game ended early names no winner.
    """
    rows = _rows(state)
    lead = _lead(rows)
    top_score = lead[0]["score"]
    early = bool(state.get("ended_early"))
    most_flowers = max(row["flowers"] for row in lead)
    for row in rows:
        place = 1 + sum(1 for other in rows if other["score"] > row["score"])
        if row in lead and not early:
            # "If the leading players are tied, the tied player with more Flowers ... wins."
            place += sum(1 for other in lead if other["flowers"] > row["flowers"])
        row["place"] = place
    rows.sort(key=lambda row: (row["place"], row["seat"]))
    lead_names = join_names([row["name"] for row in lead])
    if early:
        values = {"round": state["round"], "names": lead_names, "score": top_score}
        return {"standings": rows, "winners": [],
                "decided_by": (
                    t("Ended early after round {round}: no winner is named, as the rulebook names one "
                      "only after the final round. {names} led with {score} Magic each.", **values)
                    if len(lead) > 1 else
                    t("Ended early after round {round}: no winner is named, as the rulebook names one "
                      "only after the final round. {names} led with {score} Magic.", **values))}
    winners = [row for row in lead if row["flowers"] == most_flowers]
    behind = [row for row in lead if row["flowers"] < most_flowers]
    winner_names = join_names([row["name"] for row in winners])
    values = {"names": lead_names, "winners": winner_names, "score": top_score}
    if len(lead) == 1:
        decided_by = t("{winners} wins with {score} Magic.", **values)
    elif len(winners) == 1:
        others = join_names([str(row["flowers"]) for row in behind])
        decided_by = (t("{names} both have {score} Magic; {winners} wins with more Flowers left "
                        "({most} to {others}).", most=most_flowers, others=others, **values)
                      if len(lead) == 2 else
                      t("{names} all have {score} Magic; {winners} wins with more Flowers left "
                        "({most} to {others}).", most=most_flowers, others=others, **values))
    elif not behind:
        decided_by = tn("{winners} share the victory: {score} Magic and {count} Flower each.",
                        "{winners} share the victory: {score} Magic and {count} Flowers each.",
                        most_flowers, **values)
    else:
        # Two winners with someone behind them: three or more are tied ("all").
        others = join_names([t("{name} has {count}", name=row["name"], count=row["flowers"])
                             for row in behind])
        decided_by = tn("{names} all have {score} Magic; {winners} share the victory with {count} "
                        "Flower left each ({others}).",
                        "{names} all have {score} Magic; {winners} share the victory with {count} "
                        "Flowers left each ({others}).", most_flowers, others=others, **values)
    return {"standings": rows, "winners": sorted(row["seat"] for row in winners),
            "decided_by": decided_by}


def _scores(state: dict) -> list[int]:
    """Each seat's score now: Magic plus the Forest Magic Tiles' Magic."""
    return [board["magic"] + FOREST_TILE_MAGIC * board["forest_tiles"] for board in state["boards"]]


def outcome(state: dict) -> dict | None:
    """The result for the game history: the final standings and the score after each round.

    None until the players have confirmed the final tally (or ended the game early).
    """
    if state.get("phase") != PHASE_OVER:
        return None
    result = standings(state)
    winners = set(result["winners"])
    rows = sorted(result["standings"], key=lambda row: row["seat"])
    # A round's Crystallization ends with the next round's start; the last one is the final tally.
    by_round = [list(scores) for scores in state.get("round_scores", [])][:state["round"] - 1]
    by_round.append(_scores(state))
    return {
        "cooperative": False,
        "won": None,
        "level": None,
        "players": [{"seat": row["seat"], "name": row["name"], "score": row["score"],
                     "place": row["place"], "winner": row["seat"] in winners} for row in rows],
        "rounds": state["round"],
        "score_by_round": by_round,
        "summary": result["decided_by"],
        "ended_early": bool(state.get("ended_early")),
    }


# ----------------------------------------------------------------- view and log


TIMER_STEP = "decision"


def timer_cue(state: dict):
    """The Stay/Return decision a countdown times: one per revealed card while players choose."""
    if state["phase"] != PHASE_CHOOSE:
        return None
    return (f"{state['round']}:{state['decision']}",
            t("Stay or Return? Round {round}, card {card}", round=state["round"], card=state["decision"]))


def view(state: dict, seat: int | None) -> dict:
    """Return what `seat` may see: everything public plus that seat's own pending pick."""
    seat_count = _seat_count(state)
    phase = state["phase"]
    choosing = phase == PHASE_CHOOSE
    in_forest = sorted(state["in_forest"])
    picks = state["picks"]
    is_seat = isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < seat_count
    my_choice = picks[seat] if choosing and is_seat and seat in in_forest else None
    returned = {entry["seat"] for entry in state["returns"]}
    boards = []
    for board_seat, board in enumerate(state["boards"]):
        if board_seat in state["eliminated"]:
            status = "eliminated"
        elif board_seat in returned:
            status = "returned"
        elif board_seat in in_forest:
            status = "in_forest"
        else:
            status = "out"
        boards.append({
            "seat": board_seat,
            "name": state["players"][board_seat],
            "magic": board["magic"],
            "forest_tiles": board["forest_tiles"],
            "score": board["magic"] + FOREST_TILE_MAGIC * board["forest_tiles"],
            "items": [dict(item) for item in board["items"]],
            "cultivation": _tile_colors(board, "cultivation"),
            "exchange": _tile_colors(board, "exchange"),
            "expansion": _holds(board, "expansion"),
            "flowers_by_round": list(board["flowers_by_round"]),
            "flowers_this_round": board["flowers_by_round"][-1],
            "bag": board["bag"] if state["inventory"] else None,
            "storehouse": board["storehouse"] if state["inventory"] else None,
            "bag_capacity": board["bag_capacity"] if state["inventory"] else None,
            "final_flowers": board["final_flowers"],
            "flowers_left": flowers_left(state, board_seat),
            "status": status,
        })
    result = standings(state)
    over = phase == PHASE_OVER
    prepared = sorted(state.get("prepared", [])) if phase == PHASE_PREPARE else []
    return {
        "game": ID,
        "seat": seat if is_seat else None,
        "players": list(state["players"]),
        "inventory": state["inventory"],
        "round": state["round"],
        "leader": state["leader"],
        "phase": phase,
        "final_round": state["final_round"],
        "game_over": over,
        "ended_early": bool(state.get("ended_early")),
        "setup_notes": setup_notes(seat_count),
        "next_leader": (state["leader"] + 1) % seat_count,
        "prepared": prepared,
        "preparing": ([s for s in range(seat_count) if s not in prepared]
                      if phase == PHASE_PREPARE else []),
        "lead_tied": len(_lead(result["standings"])) > 1,
        "flowers_missing": flowers_missing(state) if phase == PHASE_TALLY else [],
        "cards": [dict(card) for card in state["cards"]],
        "flowers_on_display": flowers_on_display(state),
        "witches": witches_revealed(state),
        "forest_face_down": FOREST_SIZE - len(state["cards"]),
        "in_forest": in_forest,
        "waiting": [s for s in in_forest if picks[s] is None] if choosing else [],
        "chosen": [s for s in in_forest if picks[s] is not None] if choosing else [],
        "decision": state["decision"] if choosing else None,
        "my_choice": my_choice,
        "returns": [dict(entry, name=state["players"][entry["seat"]]) for entry in state["returns"]],
        "eliminated": sorted(state["eliminated"]),
        "history": [dict(entry, choices=list(entry["choices"])) for entry in state["history"]],
        "crystallization_order": list(state["crystallization_order"]),
        "crystallizing": list(state.get("crystallizing", [])),
        "draw": state["draw"],
        "discard": state["discard"],
        "run_outs": state["run_outs"],
        "boards": boards,
        "steps": step_values(state),
        "events": list(state["events"]),
        "standings": result["standings"],
        # The result is announced once the tally is confirmed, and not a moment before.
        "winners": result["winners"] if over else [],
        "decided_by": result["decided_by"] if over else None,
    }


def view_for(public: dict, state: dict, seat: int | None) -> dict:
    """`view(state, seat)` from `public`, the view everyone may see (`view(state, None)`):
    only the seat and that seat's own pending pick differ, so the phones of a table need not
    each build the whole view again. `public` is not changed."""
    seat_count = _seat_count(state)
    is_seat = isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < seat_count
    choosing = state["phase"] == PHASE_CHOOSE
    mine = state["picks"][seat] if choosing and is_seat and seat in state["in_forest"] else None
    return {**public, "seat": seat if is_seat else None, "my_choice": mine}


def secret_open(state: dict, seat: int) -> bool:
    """Tell whether `seat` has a Stay/Return pick that is not yet revealed."""
    if state["phase"] != PHASE_CHOOSE:
        return False
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < _seat_count(state):
        return False
    return state["picks"][seat] is not None


# The leader reveals the forest's cards and runs the round's steps.
LEADER_ACTIONS = ("reveal", "start_exploration", "next_round")


def acting_seat(state: dict, action: str, params: dict) -> int | None:
    """Who acts when a phone serving several seats names none: the player an entry is for,
    or the leader for the leader's steps (None: the game does not say)."""
    player = str(params.get("player", "")) if isinstance(params, dict) else ""
    if action != "choose" and player.isdigit():
        return int(player)
    if action in LEADER_ACTIONS:
        return state["leader"]
    return None


def describe(action: str, params: dict, seat: int, players: list[str]) -> str:
    """Write one public log line; a Stay/Return pick never says which."""
    params = params if isinstance(params, dict) else {}
    who = player_name(players, seat)
    if action == "choose":
        # The same words whatever was picked, in every language: the pick stays secret.
        return t("{who} has chosen", who=who)
    target_seat = params.get("player")
    target = player_name(players, target_seat)
    own = target_seat == seat
    if action == "reveal":
        return t("{who} revealed a card: {card}", who=who,
                 card=card_text(params.get("flowers"), params.get("witch")))
    if action == "correct_card":
        flowers = as_int(params.get("flowers"))
        if params.get("witch"):
            return tn("{who} corrected the last card: {count} Flower, Witch",
                      "{who} corrected the last card: {count} Flowers, Witch", flowers, who=who)
        return tn("{who} corrected the last card: {count} Flower, no Witch",
                  "{who} corrected the last card: {count} Flowers, no Witch", flowers, who=who)
    if action == "crystallize":
        thing = _item_phrase(params.get("item"), params.get("color"))
        magic, spent = as_int(params.get("magic")), as_int(params.get("spent"))
        storehouse = as_int(params.get("from_storehouse"))
        if storehouse:
            cost = tn("{magic} Magic, {count} Flower spent ({storehouse} from the Storehouse)",
                      "{magic} Magic, {count} Flowers spent ({storehouse} from the Storehouse)",
                      spent, magic=magic, storehouse=storehouse)
        else:
            cost = tn("{magic} Magic, {count} Flower spent", "{magic} Magic, {count} Flowers spent",
                      spent, magic=magic)
        if own:
            return t("{who} crystallized {thing}: {cost}", who=who, thing=thing, cost=cost)
        return t("{who} logged for {target}: {thing}, {cost}", who=who, target=target, thing=thing,
                 cost=cost)
    if action == "done_crystallizing":
        return (t("{who} is done crystallizing", who=who) if own
                else t("{who}: {target} is done crystallizing", who=who, target=target))
    if action == "store":
        return (t("{who} stored a Flower", who=who) if own
                else t("{who} stored a Flower for {target}", who=who, target=target))
    if action == "set_inventory":
        values = {"who": who, "target": target, "bag": as_int(params.get("bag")),
                  "storehouse": as_int(params.get("storehouse"))}
        return (t("{who} set their own Bag to {bag} and Storehouse to {storehouse}", **values) if own
                else t("{who} set {target}'s Bag to {bag} and Storehouse to {storehouse}", **values))
    if action == "next_round":
        return t("{who} started the next round", who=who)
    if action == "set_draw_pile":
        return tn("{who} set the draw pile to {count} card", "{who} set the draw pile to {count} cards",
                  as_int(params.get("count")), who=who)
    if action == "set_run_outs":
        return t("{who} set the draw pile run-outs to {count}", who=who, count=as_int(params.get("count")))
    if action == "set_forest_magic":
        values = {"who": who, "target": target, "count": as_int(params.get("count"))}
        return (t("{who} set their own Forest Magic Tiles to {count}", **values) if own
                else t("{who} set {target}'s Forest Magic Tiles to {count}", **values))
    if action == "set_magic":
        values = {"who": who, "target": target, "magic": as_int(params.get("magic"))}
        return (t("{who} set their own Magic to {magic}", **values) if own
                else t("{who} set {target}'s Magic to {magic}", **values))
    if action == "set_final_flowers":
        values = {"who": who, "target": target, "count": as_int(params.get("count"))}
        return (t("{who} set their own Flowers left to {count}", **values) if own
                else t("{who} set {target}'s Flowers left to {count}", **values))
    if action == "finish":
        return t("{who} ended the game early", who=who)
    if action == "confirm_tally":
        return t("{who} confirmed the final tally", who=who)
    if action == "done_preparing":
        return (t("{who} is done preparing", who=who) if own
                else t("{who}: {target} is done preparing", who=who, target=target))
    if action == "start_exploration":
        return t("{who} started Exploration", who=who)
    spec = ACTIONS.get(action)
    return t("{who}: {action}", who=who, action=spec.label if spec else action)
