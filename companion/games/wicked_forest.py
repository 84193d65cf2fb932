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
from .words import as_int, join_names, player_name, plural

ID = "wicked-forest"
NAME = "The Wicked Forest"
MIN_PLAYERS = 2
MAX_PLAYERS = 5
RULES_VERSION = 2  # 2: the Preparation Phase and the confirmed final tally are steps
# The board's first card says who won and why: the table page does not say it a second time.
BOARD_SHOWS_ENDING = True
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
    "card": "Magic Crystal Card",
    "cultivation": "Cultivation tile",
    "exchange": "Exchange tile",
    "expansion": "Expansion tile",
}

PHASE_PREPARE = "prepare"  # rounds 2+: Cultivation gains, then storing
PHASE_REVEAL = "reveal"
PHASE_CHOOSE = "choose"
PHASE_END = "end"
PHASE_TALLY = "tally"  # the final round's returners crystallize, then the players confirm
PHASE_OVER = "over"

OPTIONS = (
    Param("first_leader", "text", label="First leader", default="random"),
    Param("inventory", "bool", label="Inventory mode", default=False),
)

_PLAYER = Param("player", "seat", label="Player")
_FLOWERS = Param("flowers", "int", label="Flowers", min=0, max=4)
_WITCH = Param("witch", "bool", label="Witch", default=False)

ACTIONS: dict[str, ActionSpec] = {
    "reveal": ActionSpec("reveal", (Param("card", "int", label="Forest card", min=1,
                                          max=FOREST_SIZE), _FLOWERS, _WITCH),
                         label="Reveal a card", step="card"),
    "choose": ActionSpec(
        "choose",
        (Param("choice", "choice", label="Choice", choices=("stay", "return")),
         Param("decision", "int", label="Card", min=0, max=FOREST_SIZE)),
        secret=True, label="Stay or Return"),
    "crystallize": ActionSpec(
        "crystallize",
        (_PLAYER,
         Param("magic", "int", label="Magic", min=0, max=20),
         Param("item", "choice", label="Item", choices=ITEMS),
         Param("color", "choice", label="Color", choices=COLORS + ("none",), default="none"),
         Param("spent", "int", label="Flowers spent", min=0, max=20, default=0),
         # The player pays from the Bag or the Storehouse as they like: how many from the latter.
         Param("from_storehouse", "int", label="Flowers from the Storehouse", min=0, max=20,
               default=0)),
        label="Log Crystallization"),
    "done_crystallizing": ActionSpec("done_crystallizing", (_PLAYER,),
                                     label="Done crystallizing"),
    "store": ActionSpec("store", (_PLAYER,), label="Store a Flower"),
    "done_preparing": ActionSpec("done_preparing", (_PLAYER,), label="Done preparing"),
    "start_exploration": ActionSpec(
        "start_exploration",
        (Param("round", "int", label="Round whose Exploration starts", min=2, max=999),),
        label="Start Exploration", step="round"),
    "set_inventory": ActionSpec(
        "set_inventory",
        (_PLAYER,
         Param("bag", "int", label="Bag", min=0, max=EXPANDED_BAG_CAPACITY),
         Param("storehouse", "int", label="Storehouse", min=0, max=99)),
        label="Correct Bag and Storehouse"),
    "next_round": ActionSpec("next_round", (Param("round", "int", label="Round it starts", min=2,
                                                  max=999),),
                             label="Start the next round", step="round"),
    "correct_card": ActionSpec("correct_card", (_FLOWERS, _WITCH), label="Correct the last card"),
    "set_draw_pile": ActionSpec(
        "set_draw_pile",
        (Param("count", "int", label="Cards in the draw pile", min=0, max=PILE_CARDS),),
        label="Correct the draw pile"),
    "set_run_outs": ActionSpec(
        "set_run_outs",
        (Param("count", "int", label="Run-outs", min=0, max=RUN_OUTS_FOR_FINAL_ROUND),),
        label="Correct the run-out count"),
    "set_forest_magic": ActionSpec(
        "set_forest_magic",
        (_PLAYER, Param("count", "int", label="Forest Magic Tiles", min=0, max=MAX_FOREST_TILES)),
        label="Correct Forest Magic Tiles"),
    "set_magic": ActionSpec(
        "set_magic",
        (_PLAYER, Param("magic", "int", label="Magic", min=0, max=200)),
        label="Correct Magic"),
    "set_final_flowers": ActionSpec(
        "set_final_flowers",
        (_PLAYER, Param("count", "int", label="Flowers left", min=0, max=99)),
        label="Flowers left on the board"),
    "finish": ActionSpec("finish", (), label="End the game now"),
    "confirm_tally": ActionSpec("confirm_tally", (), label="Confirm the final tally"),
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
    text = plural(as_int(flowers), "Flower")
    return text + ", Witch" if witch else text


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
        raise Rejected("That seat is not at this table.")


def _require_inventory(state: dict) -> None:
    if not state["inventory"]:
        raise Rejected("Inventory mode is off at this table: keep Flowers on the real board.")


# ----------------------------------------------------------------- options and setup


def prepare_options(raw: dict, players: list[str], rng: random.Random) -> dict:
    """Check the setup options and settle a random first leader to a seat."""
    check_player_count(len(players), NAME, MIN_PLAYERS, MAX_PLAYERS)
    values = parse_params(OPTIONS, raw, len(players))
    first_leader = settle_seat(values["first_leader"], players, rng, "First leader")
    return {"first_leader": first_leader, "inventory": bool(values["inventory"])}


def setup(players: list[str], options: dict) -> dict:
    """Start round 1: everyone in the forest, 9 cards face down, 21 in the draw pile."""
    check_player_count(len(players), NAME, MIN_PLAYERS, MAX_PLAYERS)
    leader = options.get("first_leader")
    if isinstance(leader, bool) or not isinstance(leader, int) or not 0 <= leader < len(players):
        raise Rejected("The first leader must be one of the seats.")
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
        "events": [f"Round 1: {players[leader]} leads. Everyone is in the forest."],
    }


def tiles_to_box(n_players: int) -> str:
    """Say which Ability Crystal Tiles go back in the box for this many players."""
    check_player_count(n_players, NAME, MIN_PLAYERS, MAX_PLAYERS)
    unused = list(range(n_players + 1, TILE_NUMBERS + 1))
    stacks = f"each of the {TILE_STACKS} Ability Crystal Tile stacks"
    if not unused:
        return (f"With {n_players} players every Ability Crystal Tile is used: "
                "none go back in the box.")
    label = "tile" if len(unused) == 1 else "tiles"
    numbers = join_names([str(number) for number in unused])
    return (f"Put {label} {numbers} of {stacks} back in the box "
            f"({len(unused) * TILE_STACKS} tiles).")


def setup_notes(n_players: int) -> list[str]:
    """List the setup steps for this many players, with the tiles that go back in the box."""
    tiles_line = tiles_to_box(n_players)
    return [
        f"Shuffle the {DECK_SIZE} Exploration Cards face down as the draw pile.",
        f"Lay {FOREST_SIZE} cards face down as the forest; {PILE_CARDS} stay in the draw pile.",
        "Put the Flower tokens and the Forest Magic Tiles nearby as the Supply.",
        tiles_line,
        "Stack each kind of Ability Crystal Tile face up by color, tile 1 on top.",
        "Sort the Magic Crystal Cards by color, each stack with the smallest Magic on top.",
        "Each player takes a Villager pawn, the Player board of its color and a Summary Card.",
        "Give the Leader marker to the first leader.",
    ]


# ----------------------------------------------------------------- apply


def apply(state: dict, action: str, params: dict, seat: int) -> dict:
    """Return the state after `seat` takes `action`; raise Rejected and change nothing."""
    _, parsed = check_action(ACTIONS, action, params if params is not None else {},
                             _seat_count(state))
    _require_seat(state, seat)
    if state["phase"] == PHASE_OVER:
        raise Rejected("The game is over: undo the last move to change the tally.")
    if state["phase"] == PHASE_TALLY and action not in _TALLY_ACTIONS:
        raise Rejected("The final round's Exploration is over: finish Crystallization, "
                       "then confirm the final tally.")
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
        return f"it is now round {state['round']}'s Preparation Phase"
    if state["phase"] == PHASE_REVEAL:
        return f"it is now round {state['round']}, card {len(state['cards']) + 1} to reveal"
    if state["phase"] == PHASE_CHOOSE:
        return (f"it is now round {state['round']}, card {state['decision']} waiting for "
                "Stay or Return")
    return f"round {state['round']}'s exploration is over: start the next round"


def _reveal(state: dict, params: dict, seat: int) -> None:
    """Turn a forest card face up, then eliminate, return everyone, or ask for picks."""
    named, number = params["card"], len(state["cards"]) + 1
    if named < number:
        require_step(named, None, f"card {named}", _now_text(state), done="is already revealed")
    if state["phase"] == PHASE_CHOOSE:
        raise Rejected("Everyone in the forest must choose Stay or Return before the next card.")
    if state["phase"] == PHASE_END:
        raise Rejected("Exploration is over for this round: start the next round first.")
    if state["phase"] == PHASE_PREPARE:
        raise Rejected(f"Round {state['round']} is still in its Preparation Phase: "
                       f"{state['players'][state['leader']]} starts Exploration first.")
    require_step(named, number, f"card {named}", _now_text(state), past=False)
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
        state["events"].append(f"Card {number}: {join_names(_names(state, state['in_forest']))}, "
                               "choose Stay or Return.")


def _second_witch(state: dict) -> None:
    """Eliminate everyone still in the forest and end Exploration."""
    caught = sorted(state["in_forest"])
    state["eliminated"] = sorted(state["eliminated"] + caught)
    state["in_forest"] = []
    state["picks"] = [None] * _seat_count(state)
    verbs = "is eliminated and gains" if len(caught) == 1 else "are eliminated and gain"
    state["events"].append(f"Second Witch! {join_names(_names(state, caught))} {verbs} nothing "
                           "this round.")
    _end_exploration(state)


def _last_card_revealed(state: dict) -> None:
    """Bring everyone left home safely together, each with a Forest Magic Tile."""
    returners = sorted(state["in_forest"])
    verb = "returns" if len(returners) == 1 else "return"
    state["events"].append(f"All {FOREST_SIZE} forest cards are revealed: "
                           f"{join_names(_names(state, returners))} {verb} safely.")
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
        state["events"].append(f"{names[0]} gains {plural(total, 'Flower')}.")
    elif total == 0:
        state["events"].append(f"No Flowers are on display: {join_names(names)} gain nothing.")
    else:
        line = (f"{plural(total, 'Flower')} shared by {len(returners)}: "
                f"{join_names(names)} gain {plural(each, 'Flower')} each")
        if discarded:
            line += f" ({discarded} discarded)"
        elif total < len(returners):
            line += " (at least 1 each)"
        state["events"].append(line + ".")
    order = crystallization_order(returners, state["leader"], _seat_count(state))
    state["crystallization_order"] = order
    # Each returner is asked what they crystallized until they say they are done.
    pending = state.setdefault("crystallizing", [])
    pending.extend(seat for seat in order if seat not in pending)
    if len(order) > 1:
        state["events"].append(f"Crystallization order: {', '.join(_names(state, order))}.")
    for seat in order:
        board = state["boards"][seat]
        board["flowers_by_round"][-1] += each
        state["returns"].append({"seat": seat, "reveal": reveal_number, "flowers": each,
                                 "forest_tile": False})
        if state["inventory"]:
            kept = min(each, max(0, board["bag_capacity"] - board["bag"]))
            board["bag"] += kept
            if each > kept:
                state["events"].append(
                    f"{state['players'][seat]}'s Bag holds only {board['bag_capacity']}: "
                    f"{plural(each - kept, 'Flower')} {'goes' if each - kept == 1 else 'go'} back "
                    "to the Supply.")


def _award_forest_tiles(state: dict, seats: list[int]) -> None:
    """Give each of `seats` a Forest Magic Tile."""
    for seat in seats:
        state["boards"][seat]["forest_tiles"] += 1
    for entry in state["returns"]:
        if entry["seat"] in seats:
            entry["forest_tile"] = True
    names = _names(state, sorted(seats))
    if len(names) == 1:
        state["events"].append(f"{names[0]} gains a Forest Magic Tile ({FOREST_TILE_MAGIC} Magic).")
    else:
        state["events"].append(f"{join_names(names)} each gain a Forest Magic Tile "
                               f"({FOREST_TILE_MAGIC} Magic).")


def _end_exploration(state: dict) -> None:
    """Close this round's Exploration; the final round's ends the game."""
    state["picks"] = [None] * _seat_count(state)
    if state["final_round"]:
        # The result waits for the returners' Crystallization and the players' word.
        state["phase"] = PHASE_TALLY
        state["events"].append("The final round's Exploration is over: the game ends once the "
                               "returners have crystallized and the players confirm the tally.")
    else:
        state["phase"] = PHASE_END
        state["events"].append("Exploration is over for this round. "
                               "Finish Crystallization, then start the next round.")


def _choose(state: dict, params: dict, seat: int) -> None:
    """Record a secret pick; open all hands once the last one is in."""
    decision = params["decision"]
    current = len(state["cards"])
    phase = state["phase"]
    if phase == PHASE_END:
        raise Rejected("Exploration is over for this round: there is nothing to choose.")
    if phase == PHASE_PREPARE:
        raise Rejected("Exploration has not started yet: wait for the first card.")
    if phase != PHASE_CHOOSE or decision != current:
        if decision > current or current == 0:
            if phase == PHASE_CHOOSE:
                raise Rejected(f"Card {decision} has not been revealed yet.")
            raise Rejected("Wait for the next card to be revealed before choosing.")
        raise Rejected("That choice was for an earlier card.")
    if seat not in state["in_forest"]:
        if seat in state["eliminated"]:
            raise Rejected("The Witch caught you this round: you choose again next round.")
        raise Rejected("You have already returned from the forest this round.")
    state["picks"][seat] = params["choice"]
    waiting = [s for s in state["in_forest"] if state["picks"][s] is None]
    if waiting:
        # The same words whatever was picked: the pick stays secret.
        state["events"].append(f"{state['players'][seat]} has chosen. "
                               f"Waiting for {join_names(_names(state, waiting))}.")
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
    parts = []
    if returners:
        parts.append(f"{join_names(_names(state, returners))} {'returns' if len(returners) == 1 else 'return'}")
    if stayers:
        parts.append(f"{join_names(_names(state, stayers))} {'stays' if len(stayers) == 1 else 'stay'}")
    state["events"].append(f"Reveal {number}: {', '.join(parts)}.")
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
        state["events"].append(f"{state['players'][state['leader']]} reveals the next card.")


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
            raise Rejected(f"A {ITEM_NAMES[item]} has a color: pick red, green, blue or yellow.")
        if _holds(board, item, color):
            raise Rejected(f"{name} already holds a {color} {ITEM_NAMES[item]}: "
                           "only one from each stack.")
    elif item == "expansion":
        color = "none"
        if _holds(board, "expansion"):
            raise Rejected(f"{name} already holds an Expansion tile: only one per player.")
    if state["inventory"]:
        # "Flowers in the Storehouse can be used for Crystallization in the same way as those
        # in the Bag": the player says how many come from each.
        from_storehouse = params["from_storehouse"]
        if from_storehouse > spent:
            raise Rejected(f"Only {plural(spent, 'Flower')} {'is' if spent == 1 else 'are'} paid: "
                           f"{from_storehouse} cannot come from the Storehouse.")
        from_bag = spent - from_storehouse
        if from_bag > board["bag"] or from_storehouse > board["storehouse"]:
            raise Rejected(f"{name} has {board['bag']} in the Bag and {board['storehouse']} in the "
                           f"Storehouse: {from_bag} from the Bag and {from_storehouse} from the "
                           "Storehouse do not fit.")
        board["bag"] -= from_bag
        board["storehouse"] -= from_storehouse
    board["magic"] += params["magic"]
    board["items"].append({"item": item, "color": color, "magic": params["magic"],
                           "spent": spent, "round": state["round"]})
    if item == "expansion":
        board["bag_capacity"] = EXPANDED_BAG_CAPACITY
        if state["inventory"]:
            state["events"].append(f"{name}'s Bag now holds up to {EXPANDED_BAG_CAPACITY} Flowers.")


def _done_crystallizing(state: dict, params: dict, seat: int) -> None:
    """A returner has crystallized all they wanted (or nothing): the table need not wait."""
    player = params["player"]
    pending = state.get("crystallizing", [])
    if player not in pending:
        raise Rejected(f"{state['players'][player]} has no Crystallization waiting.")
    pending.remove(player)


def _store(state: dict, params: dict, seat: int) -> None:
    """Pay 1 Flower from the Bag and move 1 more to the Storehouse, in the Preparation Phase."""
    _require_inventory(state)
    _require_preparation(state, "Storing")
    board = state["boards"][params["player"]]
    if board["bag"] < 2:
        raise Rejected(f"{state['players'][params['player']]} needs 2 Flowers in the Bag to store "
                       "one: 1 to pay, 1 to store.")
    board["bag"] -= 2
    board["storehouse"] += 1


def _require_preparation(state: dict, what: str) -> None:
    """Refuse, with the reason, anything that belongs to the Preparation Phase alone."""
    if state["phase"] == PHASE_PREPARE:
        return
    if state["round"] == 1:
        raise Rejected(f"{what} happens in the Preparation Phase, which round 1 does not have: "
                       "it comes at the start of round 2.")
    raise Rejected(f"{what} happens in the Preparation Phase, before the first card of a round: "
                   f"round {state['round']}'s Exploration has started.")


def _done_preparing(state: dict, params: dict, seat: int) -> None:
    """Mark a player done storing; once everyone is, Exploration starts."""
    _require_preparation(state, "Preparing")
    player = params["player"]
    prepared = state.setdefault("prepared", [])
    if player in prepared:
        raise Rejected(f"{state['players'][player]} is already done preparing.")
    prepared.append(player)
    prepared.sort()
    waiting = [s for s in range(_seat_count(state)) if s not in prepared]
    if waiting:
        state["events"].append(f"{state['players'][player]} is done preparing. "
                               f"Waiting for {join_names(_names(state, waiting))}.")
    else:
        state["events"].append("Everyone is done preparing.")
        _begin_exploration(state)


def _start_exploration(state: dict, params: dict, seat: int) -> None:
    """The leader ends the Preparation Phase for everyone and starts Exploration."""
    named = params["round"]
    require_step(named, state["round"], f"round {named}'s Preparation", _now_text(state),
                 past=named < state["round"], done="is already over")
    _require_preparation(state, "Starting Exploration")
    if seat != state["leader"]:
        raise Rejected(f"{state['players'][state['leader']]}, the leader, starts Exploration; "
                       "the others tap Done.")
    _begin_exploration(state)


def _begin_exploration(state: dict) -> None:
    state["phase"] = PHASE_REVEAL
    state["prepared"] = []
    state["events"].append(f"Exploration: {state['players'][state['leader']]} reveals the first "
                           "card.")


def _set_inventory(state: dict, params: dict, seat: int) -> None:
    """Correct a player's Bag and Storehouse counts."""
    _require_inventory(state)
    board = state["boards"][params["player"]]
    if params["bag"] > board["bag_capacity"]:
        raise Rejected(f"{state['players'][params['player']]}'s Bag holds at most "
                       f"{board['bag_capacity']} Flowers.")
    board["bag"] = params["bag"]
    board["storehouse"] = params["storehouse"]


def _next_round(state: dict, params: dict, seat: int) -> None:
    """Run the End Phase and start the next round with its Preparation Phase."""
    named = params["round"]
    require_step(named, state["round"] + 1, f"starting round {named}", _now_text(state),
                 past=named <= state["round"], done="is already done")
    if state["phase"] != PHASE_END:
        raise Rejected("Exploration is still going on: finish this round's exploration first.")
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
    state["events"].append(f"Round {state['round']}: {state['players'][state['leader']]} leads. "
                           "Everyone is back in the forest.")
    if state["final_round"]:
        state["events"].append("Final round!")
    _preparation(state)


def _run_out(state: dict) -> bool:
    """The draw pile is empty while refilling: the discard is shuffled into a new draw pile.
    True when this is the run-out that makes the next round the final one."""
    state["run_outs"] += 1
    state["events"].append(f"Draw pile ran out ({_ordinal(state['run_outs'])} time): "
                           "discard shuffled into a new draw pile.")
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
            state["events"].append(f"Preparation: {name} gains 1 Flower per Cultivation tile "
                                   f"({tiles}), as far as the Bag has room.")
            continue
        gained = min(tiles, max(0, board["bag_capacity"] - board["bag"]))
        board["bag"] += gained
        line = f"Preparation: {name} gains {plural(gained, 'Flower')} from Cultivation tiles"
        if gained < tiles:
            line += f" ({tiles - gained} more would not fit in the Bag)"
        state["events"].append(line + ".")
    state["events"].append("Preparation: store Flowers if you wish (pay 1 from the Bag, move 1 "
                           "to the Storehouse), then tap Done.")


def _correct_card(state: dict, params: dict, seat: int) -> None:
    """Correct the card now waiting for picks, and check the Witches again."""
    if state["phase"] != PHASE_CHOOSE:
        raise Rejected("Only a card still waiting for choices can be corrected.")
    card = state["cards"][-1]
    card["flowers"] = params["flowers"]
    card["witch"] = params["witch"]
    state["events"].append(f"Card {len(state['cards'])} corrected: "
                           f"{card_text(card['flowers'], card['witch'])}.")
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
        state["events"].append("Final round!" if not later else "The next round is the final round.")
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
        raise Rejected("The game can be ended only between rounds, once Exploration is over.")
    state["phase"] = PHASE_OVER
    state["ended_early"] = True
    state["events"].append(standings(state)["decided_by"])


def _confirm_tally(state: dict, params: dict, seat: int) -> None:
    """The players confirm the final numbers: the result is announced now."""
    if state["phase"] != PHASE_TALLY:
        raise Rejected("The final tally comes after the final round's Exploration.")
    missing = flowers_missing(state)
    if missing:
        leaders = _lead(standings(state)["standings"])
        raise Rejected(f"{join_names([row['name'] for row in leaders])} are tied for the lead on "
                       f"{leaders[0]['score']} Magic: enter the Flowers left for "
                       f"{join_names(_names(state, missing))} first, they break the tie.")
    state["phase"] = PHASE_OVER
    state["events"].append("Final tally confirmed.")
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
        each = " each" if len(lead) > 1 else ""
        return {"standings": rows, "winners": [],
                "decided_by": (f"Ended early after round {state['round']}: no winner is named, "
                               "as the rulebook names one only after the final round. "
                               f"{lead_names} led with {top_score} Magic{each}.")}
    winners = [row for row in lead if row["flowers"] == most_flowers]
    behind = [row for row in lead if row["flowers"] < most_flowers]
    winner_names = join_names([row["name"] for row in winners])
    if len(lead) == 1:
        decided_by = f"{winner_names} wins with {top_score} Magic."
    else:
        everyone_tied = "both" if len(lead) == 2 else "all"
        tied = f"{lead_names} {everyone_tied} have {top_score} Magic"
        if len(winners) == 1:
            others = join_names([str(row["flowers"]) for row in behind])
            decided_by = f"{tied}; {winner_names} wins with more Flowers left ({most_flowers} to {others})."
        elif not behind:
            decided_by = (f"{winner_names} share the victory: {top_score} Magic and "
                          f"{plural(most_flowers, 'Flower')} each.")
        else:
            others = join_names([f"{row['name']} has {row['flowers']}" for row in behind])
            decided_by = (f"{tied}; {winner_names} share the victory with "
                          f"{plural(most_flowers, 'Flower')} left each ({others}).")
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
    return f"{state['round']}:{state['decision']}", f"Stay or Return? Round {state['round']}, card {state['decision']}"


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
        return f"{who} has chosen"
    target_seat = params.get("player")
    target = player_name(players, target_seat)
    whose = "their own" if target_seat == seat else f"{target}'s"
    if action == "reveal":
        return f"{who} revealed a card: {card_text(params.get('flowers'), params.get('witch'))}"
    if action == "correct_card":
        witch = "Witch" if params.get("witch") else "no Witch"
        return (f"{who} corrected the last card: "
                f"{plural(as_int(params.get('flowers')), 'Flower')}, {witch}")
    if action == "crystallize":
        item = params.get("item")
        color = params.get("color")
        shade = f"{color} " if color in COLORS and item != "expansion" else ""
        thing = f"{shade}{ITEM_NAMES.get(item, 'item')}"
        article = "an" if thing[:1].lower() in "aeiou" else "a"
        cost = (f"{as_int(params.get('magic'))} Magic, "
                f"{plural(as_int(params.get('spent')), 'Flower')} spent")
        if as_int(params.get("from_storehouse")):
            cost += f" ({as_int(params.get('from_storehouse'))} from the Storehouse)"
        if target_seat == seat:
            return f"{who} crystallized {article} {thing}: {cost}"
        return f"{who} logged for {target}: {article} {thing}, {cost}"
    if action == "done_crystallizing":
        return (f"{who} is done crystallizing" if target_seat == seat
                else f"{who}: {target} is done crystallizing")
    if action == "store":
        return f"{who} stored a Flower" + ("" if target_seat == seat else f" for {target}")
    if action == "set_inventory":
        return (f"{who} set {whose} Bag to {as_int(params.get('bag'))} "
                f"and Storehouse to {as_int(params.get('storehouse'))}")
    if action == "next_round":
        return f"{who} started the next round"
    if action == "set_draw_pile":
        return f"{who} set the draw pile to {plural(as_int(params.get('count')), 'card')}"
    if action == "set_run_outs":
        return f"{who} set the draw pile run-outs to {as_int(params.get('count'))}"
    if action == "set_forest_magic":
        return f"{who} set {whose} Forest Magic Tiles to {as_int(params.get('count'))}"
    if action == "set_magic":
        return f"{who} set {whose} Magic to {as_int(params.get('magic'))}"
    if action == "set_final_flowers":
        return f"{who} set {whose} Flowers left to {as_int(params.get('count'))}"
    if action == "finish":
        return f"{who} ended the game early"
    if action == "confirm_tally":
        return f"{who} confirmed the final tally"
    if action == "done_preparing":
        return f"{who}: {target} is done preparing" if target_seat != seat else f"{who} is done preparing"
    if action == "start_exploration":
        return f"{who} started Exploration"
    spec = ACTIONS.get(action)
    return f"{who}: {spec.label if spec else action}"
