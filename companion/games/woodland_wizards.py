"""Woodland Wizards: four rounds of Wandering, Contest, Boost, Scoring and Clean-up.

The phones keep the bookkeeping the table finds fiddly: the phase checklist, whose turn it
is to draw and play in the Wandering phase, who has passed in the Boost phase, the round
totals and their ranking (with the tie rule), who scores a Contest Creature, the starting
player, the scored cards, the single Golden Phoenix and the final ranking with its five
tie-breaks. The real cards stay the authority for everything else: totals are entered by the
players, never computed from card effects.

Seats 0..N-1 sit clockwise; the player to the left of seat i is seat (i + 1) % N.

Rulings where the rulebook leaves a gap:
- The game ends with the explicit "finish" action (or "next_phase" from round 4's Scoring
  phase), never by itself, so end-of-game card effects can be entered first. Scored cards
  and adjustments stay editable once the game is over.
- Correcting a total after the round is settled keeps the settled ranking: once the winner
  is determined, later changes do not move it. A mistaken ranking is fixed by undoing.
- In a Boost round each player who has not passed plays one boost or passes; the next
  Boost round starts once everyone has done one of the two.
- The Wandering phase ends by itself once every player has drawn and played; "next_phase"
  (or a jump to another phase) still moves on at once, for a table that does not tap each turn.
- Only one Golden Phoenix is in the game, so marking a second card is refused; to move it, the
  card that holds it is corrected (unmarked or removed) first.
"""

from __future__ import annotations

import json
import random

from .base import (ActionSpec, Param, Rejected, check_action, check_player_count, parse_params,
                   require_step, settle_seat)
from .words import as_int, join_names, player_name, t, tc, tn, tnc

ID = "woodland-wizards"
NAME = "Woodland Wizards"
MIN_PLAYERS = 2
MAX_PLAYERS = 12
RULES_VERSION = 1
# The board's first card says who won and why: the table page does not say it a second time.
BOARD_SHOWS_ENDING = True

ROUNDS = 4
HAND_SIZE = 5
BOOST_ROUNDS = 3
TWO_DECKS_FROM = 7
DEFAULT_SCORERS_7_PLUS = 3

PHASE_WANDERING = "wandering"
PHASE_CONTEST = "contest"
PHASE_BOOST = "boost"
PHASE_SCORING = "scoring"
PHASE_CLEANUP = "cleanup"
PHASE_OVER = "over"
PHASES = (PHASE_WANDERING, PHASE_CONTEST, PHASE_BOOST, PHASE_SCORING, PHASE_CLEANUP)
PHASE_LABELS = {
    PHASE_WANDERING: tc("phase", "Wandering"),
    PHASE_CONTEST: tc("phase", "Contest"),
    PHASE_BOOST: tc("phase", "Boost"),
    PHASE_SCORING: tc("phase", "Scoring"),
    PHASE_CLEANUP: tc("phase", "Clean-up"),
}
GAME_OVER_LABEL = t("Game over")
# Each phase named in a sentence is its own message (a phase's name is a compound word in
# German, takes its own article in French and Spanish).
_PHASE_ALREADY = {
    PHASE_WANDERING: t("It is already the Wandering phase."),
    PHASE_CONTEST: t("It is already the Contest phase."),
    PHASE_BOOST: t("It is already the Boost phase."),
    PHASE_SCORING: t("It is already the Scoring phase."),
    PHASE_CLEANUP: t("It is already the Clean-up phase."),
}
_PHASE_STEP = {  # what a step-advancing action names, in "That was for {step}, ..."
    PHASE_WANDERING: t("the Wandering phase"),
    PHASE_CONTEST: t("the Contest phase"),
    PHASE_BOOST: t("the Boost phase"),
    PHASE_SCORING: t("the Scoring phase"),
    PHASE_CLEANUP: t("the Clean-up phase"),
}

OPTIONS = (
    Param("first_player", "text", label=t("First starting player"), default="random"),
    Param("scorers_7_plus", "int", label=t("Scorers per round with 7-12 players"),
          min=1, max=6, default=DEFAULT_SCORERS_7_PLUS),
)

_PLAYER = Param("player", "seat", label=t("Player"))
_TOTAL = Param("total", "int", label=t("Round total"), min=0, max=999)
_VALUE = Param("value", "int", label=t("Card value"), min=0, max=99)
_CARD_NAME = Param("name", "text", label=t("Card name"), optional=True, default="", max_length=40)
_PHOENIX = Param("phoenix", "bool", label=t("Golden Phoenix"), default=False)
_INDEX = Param("index", "int", label=t("Card number"), min=0, max=99)
# What the step-advancing actions name, so that a second tap cannot end the next step too.
_BOOST_ROUND = Param("boost_round", "int", label=t("Boost round"), min=1, max=BOOST_ROUNDS)
_TURN_PLAYER = Param("player", "seat", label=t("Player whose turn ends"))

ACTIONS: dict[str, ActionSpec] = {
    "set_phase": ActionSpec(
        "set_phase", (Param("phase", "choice", label=t("Phase"), choices=PHASES),),
        label=t("Go to a phase")),
    "next_phase": ActionSpec("next_phase", (Param("phase", "choice", label=t("Phase it ends"),
                                                  choices=PHASES),),
                             label=t("Next phase"), step="phase"),
    "end_wandering_turn": ActionSpec("end_wandering_turn", (_TURN_PLAYER,),
                                     label=t("Drew and played a card"), step="player"),
    "set_wandering_turn": ActionSpec("set_wandering_turn", (_PLAYER,),
                                     label=t("Correct whose turn it is")),
    "boost": ActionSpec("boost", (_PLAYER, _BOOST_ROUND), label=t("Play a boost"), step="boost_round"),
    "pass_boost": ActionSpec("pass_boost", (_PLAYER, _BOOST_ROUND), label=t("Pass"),
                             step="boost_round"),
    "next_boost_round": ActionSpec("next_boost_round", (_BOOST_ROUND,), label=t("Next Boost round"),
                                   step="boost_round"),
    # Every phone types its own total at the same moment: these must not refuse each other.
    "enter_total": ActionSpec("enter_total", (_PLAYER, _TOTAL), label=t("Enter a round total"),
                              commutes=True),
    "set_total": ActionSpec("set_total", (_PLAYER, _TOTAL), label=t("Correct a round total"),
                            commutes=True),
    "settle_round": ActionSpec("settle_round", (), label=t("Rank the round")),
    "score_creature": ActionSpec(
        "score_creature", (_PLAYER, _VALUE, _CARD_NAME, _PHOENIX),
        label=t("Score the Contest Creature")),
    "next_round": ActionSpec("next_round", (Param("round", "int", label=t("Round it starts"), min=2,
                                                  max=ROUNDS),),
                             label=t("Clean up and start the next round"), step="round"),
    "finish": ActionSpec("finish", (), label=t("End the game")),
    "add_card": ActionSpec("add_card", (_PLAYER, _VALUE, _CARD_NAME, _PHOENIX),
                           label=t("Add a scored card")),
    "edit_card": ActionSpec("edit_card", (_PLAYER, _INDEX, _VALUE, _CARD_NAME, _PHOENIX),
                            label=t("Change a scored card")),
    "remove_card": ActionSpec("remove_card", (_PLAYER, _INDEX), label=t("Remove a scored card")),
    "set_adjustment": ActionSpec(
        "set_adjustment",
        (_PLAYER, Param("amount", "int", label=t("End-of-game adjustment"), min=-99, max=99)),
        label=t("End-of-game adjustment")),
}

# Card effects may exchange scored cards even after the end, so the tally stays editable.
_ALLOWED_WHEN_OVER = ("add_card", "edit_card", "remove_card", "set_adjustment")

# ----------------------------------------------------------------- small utilities


def _seat_count(state: dict) -> int:
    return len(state["players"])


def _names(state: dict, seats) -> list[str]:
    return [state["players"][s] for s in seats]


def _require_seat(state: dict, seat) -> None:
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < _seat_count(state):
        raise Rejected(t("That seat is not at this table."))


def turn_distance(seat: int, starting_seat: int, seat_count: int) -> int:
    """Count the steps clockwise from the starting player to `seat`."""
    return (seat - starting_seat) % seat_count


def left_of(seat: int, seat_count: int) -> int:
    """Return the seat to the left (clockwise) of `seat`."""
    return (seat + 1) % seat_count


def scorer_count(seat_count: int, scorers_7_plus: int = DEFAULT_SCORERS_7_PLUS) -> int:
    """Say how many players score their Contest Creature each round at this table."""
    if seat_count <= 3:
        return 1
    if seat_count <= 5:
        return 2
    if seat_count == 6:
        return 3
    return scorers_7_plus


def _scorer_words(count: int) -> str:
    return tn("{count} scorer", "{count} scorers", count)


def _card(value: int, name: str, phoenix: bool) -> dict:
    return {"value": value, "name": name or "", "phoenix": bool(phoenix)}


def _card_kind(card: dict) -> str:
    """Which way a scored card is said: by its name, as the Golden Phoenix, or by its value.

    Each sentence that names a card is a message per kind ("Ben scores Owl (5).", "Ben scores
    the Golden Phoenix (8).", "Ben scores a card worth 5."): the article and the case differ
    between languages.
    """
    if card["name"]:
        return "named"
    return "phoenix" if card["phoenix"] else "plain"


def _card_said(card: dict, messages: dict, **values):
    """The message of `messages` for this card's kind, with the card's name and value."""
    return t(messages[_card_kind(card)].message, card=card["name"], value=card["value"], **values)


def phoenix_holder(state: dict) -> int | None:
    """Return the seat holding the Golden Phoenix among scored cards, or None."""
    for seat, board in enumerate(state["boards"]):
        if any(card["phoenix"] for card in board["cards"]):
            return seat
    return None


def _require_phoenix_free(state: dict, player: int, skip_index: int | None = None) -> None:
    """Refuse a second Golden Phoenix: even with two decks there is only one."""
    for seat, board in enumerate(state["boards"]):
        for index, card in enumerate(board["cards"]):
            if card["phoenix"] and not (seat == player and index == skip_index):
                holder = state["players"][seat]
                raise Rejected(t("{holder} already holds the Golden Phoenix: there is only "
                                 "one in the game. To move it, first unmark or remove it in "
                                 "{holder}'s scored cards.", holder=holder))


def _require_card(state: dict, player: int, index: int) -> None:
    cards = state["boards"][player]["cards"]
    if index >= len(cards):
        name = state["players"][player]
        if not cards:
            raise Rejected(t("{name} has no scored cards.", name=name))
        raise Rejected(tn("{name} has {count} scored card: choose a number from 0 to {last}.",
                          "{name} has {count} scored cards: choose a number from 0 to {last}.",
                          len(cards), name=name, last=len(cards) - 1))


def _pending_creatures(state: dict) -> list[int]:
    """List the scorers who still have to add their Contest Creature, in ranking order."""
    if not state["settled"]:
        return []
    return [s for s in state["scorers"] if s not in state["creatures_logged"]]


# ----------------------------------------------------------------- options and setup


def prepare_options(raw: dict, players: list[str], rng: random.Random) -> dict:
    """Check the setup options and settle a random first starting player to a seat."""
    check_player_count(len(players), NAME, MIN_PLAYERS, MAX_PLAYERS)
    values = parse_params(OPTIONS, raw if raw is not None else {}, len(players))
    first_player = settle_seat(values["first_player"], players, rng, t("First starting player"))
    return {"first_player": first_player, "scorers_7_plus": values["scorers_7_plus"]}


def setup(players: list[str], options: dict) -> dict:
    """Start round 1 in the Wandering phase with the chosen starting player."""
    check_player_count(len(players), NAME, MIN_PLAYERS, MAX_PLAYERS)
    first = options.get("first_player")
    if isinstance(first, bool) or not isinstance(first, int) or not 0 <= first < len(players):
        raise Rejected(t("The first starting player must be one of the seats."))
    scorers_7_plus = options.get("scorers_7_plus", DEFAULT_SCORERS_7_PLUS)
    if (isinstance(scorers_7_plus, bool) or not isinstance(scorers_7_plus, int)
            or not 1 <= scorers_7_plus <= 6):
        raise Rejected(t("Scorers per round with 7-12 players: choose 1 to 6."))
    seat_count = len(players)
    state = {
        "rules_version": RULES_VERSION,
        "players": list(players),
        "scorers_7_plus": scorers_7_plus,
        "round": 1,
        "phase": PHASE_WANDERING,
        "starting_player": first,
        "wandering_turn": 0,  # how many players have drawn and played this round
        "boost_round": 1,
        "passed": [False] * seat_count,
        "boosts": [0] * seat_count,
        "totals": [None] * seat_count,
        "settled": False,
        "round_result": [],  # [{seat, total, place, scorer}] frozen when the round is settled
        "scorers": [],
        "round_winner": None,
        "next_starting_player": None,
        "creatures_logged": [],
        "boards": [{"cards": [], "adjustment": 0} for _ in players],
        "round_scores": [],  # each seat's score at the end of each finished round
        "events": [],
    }
    state["events"].append(t("Round 1: {name} is the starting player. Wandering phase: {name} "
                             "draws a card, then plays a card; then the next player in turn order.",
                             name=players[first]))
    return state


def setup_notes(n_players: int) -> list[str]:
    """List the setup steps for this many players."""
    check_player_count(n_players, NAME, MIN_PLAYERS, MAX_PLAYERS)
    notes = []
    if n_players >= TWO_DECKS_FROM:
        notes.append(t("Take two decks, remove one Golden Phoenix and shuffle the rest together: "
                       "there is still only one Golden Phoenix in the game."))
    else:
        notes.append(t("Shuffle the deck."))
    notes += [
        t("Place the deck face down in the middle of the table."),
        t("Turn over the top card next to it to start the discard pile."),
        tn("Deal {count} card to each player.", "Deal {count} cards to each player.", HAND_SIZE),
    ]
    if n_players >= TWO_DECKS_FROM:
        notes.append(t("With {players} players the number of scorers per round is a setup "
                       "option ({default} unless changed).", players=n_players,
                       default=DEFAULT_SCORERS_7_PLUS))
    else:
        count = scorer_count(n_players)
        notes.append(tn("With {players} players, {count} scorer per round adds their Contest "
                        "Creature to their scored cards.",
                        "With {players} players, {count} scorers per round add their Contest "
                        "Creature to their scored cards.", count, players=n_players))
    notes.append(tn("Play {count} round; play goes clockwise from the starting player.",
                    "Play {count} rounds; play goes clockwise from the starting player.", ROUNDS))
    return notes


# ----------------------------------------------------------------- rankings


def round_ranking(totals, starting_seat: int, scorer_count: int) -> list[dict]:
    """Rank a round: higher total first, equal totals by turn order from the starting player.

    Returns [{seat, total, place, scorer}] best first; places are 1..N with no shared place.
    """
    seat_count = len(totals)
    if any(total is None for total in totals):
        raise ValueError("every total is needed")
    order = sorted(range(seat_count),
                   key=lambda seat: (-totals[seat], turn_distance(seat, starting_seat, seat_count)))
    return [{"seat": seat, "total": totals[seat], "place": index + 1, "scorer": index < scorer_count}
            for index, seat in enumerate(order)]


def _round_tie_sentences(rows: list[dict], starting_seat: int, players: list[str]) -> list[str]:
    """Explain each group of equal totals in words."""
    sentences = []
    starter = players[starting_seat]
    groups: dict[int, list[int]] = {}
    for row in rows:
        groups.setdefault(row["total"], []).append(row["seat"])
    for total, seats in groups.items():
        if len(seats) < 2:
            continue
        names = [players[s] for s in seats]
        if len(seats) == 2:
            if seats[0] == starting_seat:
                sentences.append(t("{first} and {second} both have {total}; {first} is the "
                                   "starting player, so {first} ranks higher.",
                                   first=names[0], second=names[1], total=total))
            else:
                sentences.append(t("{first} and {second} both have {total}; {first} is closer "
                                   "to the starting player {starter}, so {first} ranks higher.",
                                   first=names[0], second=names[1], total=total, starter=starter))
        else:
            # The order is the players' names alone, best first: no word of any language.
            sentences.append(t("{names} all have {total}; the closer to the starting player "
                               "{starter} in turn order, the higher: {order}.",
                               names=join_names(names), total=total, starter=starter,
                               order=", ".join(names)))
    return sentences


def _final_keys(entry: dict) -> dict:
    """Work out the score and each tie-break value of one player."""
    values = [int(card["value"]) for card in entry.get("cards", [])]
    highest = max(values) if values else None
    return {
        "score": sum(values) + int(entry.get("adjustment", 0) or 0),
        "phoenix": any(card.get("phoenix") for card in entry.get("cards", [])),
        "cards": len(values),
        "highest": highest,
        "highest_count": values.count(highest) if values else 0,
    }


def _beats_sentence(upper: dict, lower: dict, starter: str) -> str:
    """Say which tie-break step puts `upper` ahead of `lower`, both on the same score.

    One whole message per step (and per way the step is decided), so each language says the
    comparison its own way; the number of scored cards (the same for both from step 3 on)
    is a counted phrase of its own, said "with 3 scored cards".
    """
    a, b = upper["name"], lower["name"]
    both = {"winner": a, "loser": b, "score": upper["score"]}
    if upper["phoenix"] != lower["phoenix"]:
        return t("{winner} beats {loser}: both {score}, {winner} holds the Golden Phoenix.", **both)
    if upper["cards"] != lower["cards"]:
        return tn("{winner} beats {loser}: both {score}, {count} scored card to {other}.",
                  "{winner} beats {loser}: both {score}, {count} scored cards to {other}.",
                  upper["cards"], other=lower["cards"], **both)
    cards = tnc("with", "{count} scored card", "{count} scored cards", upper["cards"])
    if upper["highest"] != lower["highest"]:
        return t("{winner} beats {loser}: both {score} with {cards}, highest card {highest} to "
                 "{other}.", cards=cards, highest=upper["highest"], other=lower["highest"], **both)
    if upper["highest_count"] != lower["highest_count"]:
        return tn("{winner} beats {loser}: both {score} with {cards} and highest card {highest}, "
                  "{count} card of {highest} to {other}.",
                  "{winner} beats {loser}: both {score} with {cards} and highest card {highest}, "
                  "{count} cards of {highest} to {other}.",
                  upper["highest_count"], cards=cards, highest=upper["highest"],
                  other=lower["highest_count"], **both)
    first = upper["distance"] == 0
    if not upper["cards"]:
        if first:
            return t("{winner} beats {loser}: both {score}, no scored cards each; {winner} is "
                     "the starting player, first in turn order.", **both)
        return t("{winner} beats {loser}: both {score}, no scored cards each; {winner} sits "
                 "earlier in turn order from the starting player {starter}.", starter=starter, **both)
    if first:
        return tn("{winner} beats {loser}: both {score} with {cards}, highest card {highest} "
                  "({count} of them); {winner} is the starting player, first in turn order.",
                  "{winner} beats {loser}: both {score} with {cards}, highest card {highest} "
                  "({count} of them); {winner} is the starting player, first in turn order.",
                  upper["highest_count"], cards=cards, highest=upper["highest"], **both)
    return tn("{winner} beats {loser}: both {score} with {cards}, highest card {highest} "
              "({count} of them); {winner} sits earlier in turn order from the starting player "
              "{starter}.",
              "{winner} beats {loser}: both {score} with {cards}, highest card {highest} "
              "({count} of them); {winner} sits earlier in turn order from the starting player "
              "{starter}.",
              upper["highest_count"], cards=cards, highest=upper["highest"], starter=starter,
              **both)


def final_ranking(players_data, starting_seat: int) -> list[dict]:
    """Rank the game: score, then Golden Phoenix, most cards, highest card, most of it, seat order.

    players_data: [{seat, name, cards: [{value, name, phoenix}], adjustment}] for every seat
    0..N-1 in any order; starting_seat: the starting player of the last round.
    Returns [{seat, name, score, place, reason}] best first; places are 1..N, never shared.
    """
    entries = list(players_data)
    seat_count = len(entries)
    rows = []
    for entry in entries:
        keys = _final_keys(entry)
        seat = int(entry["seat"])
        rows.append(dict(keys, seat=seat, name=str(entry.get("name", f"Seat {seat}")),
                         distance=turn_distance(seat, starting_seat, seat_count)))
    rows.sort(key=lambda row: (-row["score"], not row["phoenix"], -row["cards"],
                               -(row["highest"] if row["highest"] is not None else -1),
                               -row["highest_count"], row["distance"], row["seat"]))
    names_by_seat = {row["seat"]: row["name"] for row in rows}
    starter = names_by_seat.get(starting_seat, f"Seat {starting_seat}")
    result = []
    for index, row in enumerate(rows):
        tied_above = index > 0 and rows[index - 1]["score"] == row["score"]
        tied_below = [other["name"] for other in rows[index + 1:] if other["score"] == row["score"]]
        if tied_above:
            reason = _beats_sentence(rows[index - 1], row, starter)
        elif tied_below:
            reason = tn("{count} point, tied with {others}; the tie-breaks put {name} first.",
                        "{count} points, tied with {others}; the tie-breaks put {name} first.",
                        row["score"], others=join_names(tied_below), name=row["name"])
        else:
            reason = tn("{count} point.", "{count} points.", row["score"])
        result.append({"seat": row["seat"], "name": row["name"], "score": row["score"],
                       "place": index + 1, "reason": reason})
    return result


def _final_for_state(state: dict) -> list[dict]:
    data = [{"seat": seat, "name": state["players"][seat], "cards": board["cards"],
             "adjustment": board["adjustment"]} for seat, board in enumerate(state["boards"])]
    return final_ranking(data, state["starting_player"])


def verdict(ranking: list[dict]) -> dict:
    """Who wins and why: the tie-break that decided it, or the lead; and `ties`, the step that
    decided every other place among equal scores, best place first (always shown, for every
    tied group, not just first place)."""
    first, second = ranking[0], ranking[1]
    if second["score"] == first["score"]:
        why = second["reason"]
    else:
        why = tn("{count} point ahead of {name} ({score}).",
                 "{count} points ahead of {name} ({score}).",
                 first["score"] - second["score"], name=second["name"], score=second["score"])
    ties = [row["reason"] for above, row in zip(ranking[1:], ranking[2:])
            if above["score"] == row["score"]]
    return {"winner": first["name"], "score": first["score"],
            "headline": tn("{name} wins with {count} point.", "{name} wins with {count} points.",
                           first["score"], name=first["name"]),
            "why": why, "ties": ties}


def _sentences(sentences: list) -> str:
    """Whole sentences one after another, as one text (each stays its own message)."""
    said = sentences[-1]
    for sentence in reversed(sentences[:-1]):
        said = tc("sentences in a row", "{sentence} {following}", sentence=sentence, following=said)
    return said


def outcome(state: dict) -> dict | None:
    """The result for the game history: the final ranking and the score after each round."""
    if state.get("phase") != PHASE_OVER:
        return None
    ranking = _final_for_state(state)
    result = verdict(ranking)
    by_round = [list(scores) for scores in state.get("round_scores", [])][:state["round"] - 1]
    by_round.append([_final_keys(board)["score"] for board in state["boards"]])
    return {
        "cooperative": False,
        "won": None,
        "level": None,
        "players": [{"seat": row["seat"], "name": row["name"], "score": row["score"],
                     "place": row["place"], "winner": row["place"] == 1}
                    for row in sorted(ranking, key=lambda row: row["seat"])],
        "rounds": state["round"],
        "score_by_round": by_round,
        # The one sentence shown on the table, in the history and in the export: who and why.
        "summary": _sentences([result["headline"], result["why"], *result["ties"]]),
    }


# ----------------------------------------------------------------- apply


def apply(state: dict, action: str, params: dict, seat: int) -> dict:
    """Return the state after `seat` takes `action`; raise Rejected and change nothing."""
    _, parsed = check_action(ACTIONS, action, params if params is not None else {},
                             _seat_count(state))
    _require_seat(state, seat)
    if state["phase"] == PHASE_OVER and action not in _ALLOWED_WHEN_OVER:
        raise Rejected(t("The game is over."))
    # The state is plain JSON by contract, so a JSON round trip is a fast deep copy.
    new_state = json.loads(json.dumps(state))
    new_state["events"] = []
    new_state.setdefault("wandering_turn", 0)  # a table started before turns were tracked
    _HANDLERS[action](new_state, parsed, seat)
    return new_state


def _enter_phase(state: dict, phase: str) -> None:
    """Move to `phase` and say what happens in it."""
    state["phase"] = phase
    starter = state["players"][state["starting_player"]]
    if phase == PHASE_WANDERING:
        state["events"].append(t("Wandering phase: from {starter} in turn order, each player "
                                 "draws a card and plays a card.", starter=starter))
        if wandering_seat(state) is not None:
            state["events"].append(t("Now: {name}'s turn to draw and play.",
                                     name=state["players"][wandering_seat(state)]))
    elif phase == PHASE_CONTEST:
        state["events"].append(t("Contest phase: everyone plays a Contest Creature face down; "
                                 "reveal them together."))
    elif phase == PHASE_BOOST:
        state["events"].append(t("Boost phase, Boost round {number}: boost or pass.",
                                 number=state["boost_round"]))
    elif phase == PHASE_SCORING:
        state["events"].append(t("Scoring phase: enter each player's round total."))
    elif phase == PHASE_CLEANUP:
        state["events"].append(t("Clean-up phase: discard the cards in play except scored cards, "
                                 "then start the next round."))


def _set_phase(state: dict, params: dict, seat: int) -> None:
    """Jump to any phase of the checklist; clean-up does not exist in the last round."""
    phase = params["phase"]
    if phase == PHASE_CLEANUP and state["round"] == ROUNDS:
        raise Rejected(t("There is no Clean-up phase in the last round: finish the game instead."))
    if phase == state["phase"]:
        raise Rejected(_PHASE_ALREADY[phase])
    _enter_phase(state, phase)


def step_values(state: dict) -> dict:
    """What each step-advancing action must name now: the phase, Boost round or round."""
    boosting = state["boost_round"] if state["phase"] == PHASE_BOOST else None
    return {"next_phase": state["phase"] if state["phase"] in PHASES else None,
            "end_wandering_turn": wandering_seat(state),
            "boost": boosting, "pass_boost": boosting, "next_boost_round": boosting,
            "next_round": state["round"] + 1 if state["round"] < ROUNDS else None}


_NOW = {
    PHASE_WANDERING: t("it is now round {round}, the Wandering phase"),
    PHASE_CONTEST: t("it is now round {round}, the Contest phase"),
    PHASE_BOOST: t("it is now round {round}, the Boost phase, Boost round {boost_round}"),
    PHASE_SCORING: t("it is now round {round}, the Scoring phase"),
    PHASE_CLEANUP: t("it is now round {round}, the Clean-up phase"),
    PHASE_OVER: t("the game is over"),
}


def _now_text(state: dict) -> str:
    """Where the table is, for a refusal of an action meant for a step already gone by: a
    whole clause per phase."""
    turn = wandering_seat(state)
    if turn is not None:
        return t("it is now round {round}, the Wandering phase, {name}'s turn to draw and play",
                 round=state["round"], name=state["players"][turn])
    return t(_NOW[state["phase"]].message, round=state["round"], boost_round=state["boost_round"])


def _require_boost_round(state: dict, params: dict) -> None:
    named = params["boost_round"]
    require_step(named, state["boost_round"], t("Boost round {number}", number=named), _now_text(state),
                 past=named < state["boost_round"])


def _next_phase(state: dict, params: dict, seat: int) -> None:
    """Advance one step; Scoring moves on only once the round is settled."""
    phase = state["phase"]
    named = params["phase"]
    require_step(named, phase, _PHASE_STEP[named], _now_text(state),
                 past=PHASES.index(named) < PHASES.index(phase))
    if phase in (PHASE_WANDERING, PHASE_CONTEST, PHASE_BOOST):
        _enter_phase(state, PHASES[PHASES.index(phase) + 1])
    elif phase == PHASE_SCORING:
        if not state["settled"]:
            raise Rejected(t("Settle the round first: enter every total, then rank the round."))
        if state["round"] == ROUNDS:
            _finish(state, params, seat)
        else:
            _enter_phase(state, PHASE_CLEANUP)
    else:
        _next_round(state, {"round": state["round"] + 1}, seat)


def wandering_order(state: dict) -> list[int]:
    """The seats in the order they draw and play: from the starting player, clockwise."""
    seat_count = _seat_count(state)
    return [(state["starting_player"] + step) % seat_count for step in range(seat_count)]


def wandering_seat(state: dict) -> int | None:
    """Whose turn it is to draw and play, or None outside the Wandering phase or once all have."""
    turn = state.get("wandering_turn", 0)
    if state["phase"] != PHASE_WANDERING or turn >= _seat_count(state):
        return None
    return wandering_order(state)[turn]


def _end_wandering_turn(state: dict, params: dict, seat: int) -> None:
    """One player has drawn a card and played one: the next player in turn order goes."""
    named = params["player"]
    named_text = t("{name}'s turn", name=state["players"][named])
    current = wandering_seat(state)
    if current is None:
        # Every turn of this round's Wandering phase is behind the table (or it was skipped).
        require_step(named, None, named_text, _now_text(state))
    order = wandering_order(state)
    require_step(named, current, named_text, _now_text(state),
                 past=order.index(named) < state["wandering_turn"])
    state["wandering_turn"] += 1
    following = wandering_seat(state)
    if following is None:
        state["events"].append(t("Everyone has drawn and played a card: the Wandering phase ends."))
        _enter_phase(state, PHASE_CONTEST)
        return
    state["events"].append(t("{name}'s turn: draw a card, then play a card.",
                             name=state["players"][following]))


def _set_wandering_turn(state: dict, params: dict, seat: int) -> None:
    """Correct whose turn it is in the Wandering phase (a turn tapped for the wrong player)."""
    if state["phase"] != PHASE_WANDERING:
        raise Rejected(t("Turns to draw and play are taken in the Wandering phase."))
    player = params["player"]
    name = state["players"][player]
    if player == wandering_seat(state):
        raise Rejected(t("It is already {name}'s turn to draw and play.", name=name))
    state["wandering_turn"] = wandering_order(state).index(player)
    state["events"].append(t("Corrected: it is {name}'s turn to draw and play a card.", name=name))


def _require_boost_phase(state: dict) -> None:
    if state["phase"] != PHASE_BOOST:
        raise Rejected(t("Boosts are played only in the Boost phase."))


def _acted_this_boost_round(state: dict, player: int) -> bool:
    # A player still in plays one boost per Boost round, so the count tells who has acted.
    return state["boosts"][player] >= state["boost_round"]


def _waiting_for_boosts(state: dict) -> list[int]:
    return [s for s in range(_seat_count(state))
            if not state["passed"][s] and not _acted_this_boost_round(state, s)]


def _boost(state: dict, params: dict, seat: int) -> None:
    """Record a boost card played face down this Boost round."""
    _require_boost_phase(state)
    _require_boost_round(state, params)
    player = params["player"]
    name = state["players"][player]
    if state["passed"][player]:
        raise Rejected(t("{name} has passed: no more boosts for {name} this round.", name=name))
    if _acted_this_boost_round(state, player):
        raise Rejected(t("{name} has already played a boost in Boost round {number}.",
                         name=name, number=state["boost_round"]))
    state["boosts"][player] += 1
    _say_who_is_waiting(state)


def _pass_boost(state: dict, params: dict, seat: int) -> None:
    """Record a pass, which lasts for the rest of this round's Boost phase."""
    _require_boost_phase(state)
    _require_boost_round(state, params)
    player = params["player"]
    name = state["players"][player]
    if state["passed"][player]:
        raise Rejected(t("{name} has already passed.", name=name))
    if _acted_this_boost_round(state, player):
        raise Rejected(t("{name} has already played a boost in Boost round {number}; pass in "
                         "the next Boost round.", name=name, number=state["boost_round"]))
    state["passed"][player] = True
    if all(state["passed"]):
        state["events"].append(t("Everyone has passed: the Boost phase ends."))
        _enter_phase(state, PHASE_SCORING)
        return
    _say_who_is_waiting(state)


def _say_who_is_waiting(state: dict) -> None:
    waiting = _waiting_for_boosts(state)
    if waiting:
        state["events"].append(t("Waiting for {names} to boost or pass.",
                                 names=join_names(_names(state, waiting))))
    else:
        state["events"].append(t("Everyone has boosted or passed: turn the boosts face up."))


def _next_boost_round(state: dict, params: dict, seat: int) -> None:
    """Start the next Boost round, or end the Boost phase after the third."""
    _require_boost_phase(state)
    _require_boost_round(state, params)
    waiting = _waiting_for_boosts(state)
    if waiting:
        raise Rejected(tn("{names} must boost or pass first.", "{names} must boost or pass first.",
                          len(waiting), names=join_names(_names(state, waiting))))
    if state["boost_round"] >= BOOST_ROUNDS:
        state["events"].append(tn("{count} Boost round is over: the Boost phase ends.",
                                  "{count} Boost rounds are over: the Boost phase ends.",
                                  BOOST_ROUNDS))
        _enter_phase(state, PHASE_SCORING)
        return
    state["boost_round"] += 1
    still_in = [s for s in range(_seat_count(state)) if not state["passed"][s]]
    state["events"].append(tn("Boost round {number}: {names} may boost or pass.",
                              "Boost round {number}: {names} may boost or pass.",
                              len(still_in), number=state["boost_round"],
                              names=join_names(_names(state, still_in))))


def _enter_total(state: dict, params: dict, seat: int) -> None:
    """Record a player's round total in the Scoring phase."""
    player = params["player"]
    name = state["players"][player]
    if state["phase"] != PHASE_SCORING:
        raise Rejected(t("Round totals are entered in the Scoring phase."))
    if state["settled"]:
        raise Rejected(t("The round is already settled."))
    if state["totals"][player] is not None:
        raise Rejected(t("{name}'s total is already entered; correct it instead.", name=name))
    state["totals"][player] = params["total"]
    missing = [s for s, total in enumerate(state["totals"]) if total is None]
    if missing:
        state["events"].append(t("Still missing: {names}.", names=join_names(_names(state, missing))))
    else:
        state["events"].append(t("Every total is in: rank the round."))


def _set_total(state: dict, params: dict, seat: int) -> None:
    """Correct an entered total; a settled ranking stays as it is."""
    player = params["player"]
    name = state["players"][player]
    if state["totals"][player] is None:
        raise Rejected(t("{name} has no total yet: enter it first.", name=name))
    state["totals"][player] = params["total"]
    if state["settled"]:
        state["events"].append(t("The round is already settled: its ranking and scorers stay "
                                 "as they were (undo the ranking to redo it)."))


def _settle_round(state: dict, params: dict, seat: int) -> None:
    """Rank the round, pick the scorers and the next starting player."""
    if state["phase"] != PHASE_SCORING:
        raise Rejected(t("The round is ranked in the Scoring phase."))
    if state["settled"]:
        raise Rejected(t("The round is already settled."))
    missing = [s for s, total in enumerate(state["totals"]) if total is None]
    if missing:
        raise Rejected(t("Missing totals: {names}.", names=join_names(_names(state, missing))))
    players = state["players"]
    seat_count = _seat_count(state)
    count = scorer_count(seat_count, state["scorers_7_plus"])
    rows = round_ranking(state["totals"], state["starting_player"], count)
    winner = rows[0]["seat"]
    state["settled"] = True
    state["round_result"] = rows
    state["scorers"] = [row["seat"] for row in rows if row["scorer"]]
    state["round_winner"] = winner
    state["creatures_logged"] = []
    # The ranking itself is names and numbers, best first: no word of any language.
    state["events"].append(t("Round {round} ranking: {ranking}.", round=state["round"],
                             ranking=", ".join(f"{players[row['seat']]} {row['total']}"
                                               for row in rows)))
    state["events"] += _round_tie_sentences(rows, state["starting_player"], players)
    others = [players[s] for s in state["scorers"][1:]]
    if others:
        # Two scorers or more here, so "scorers" is always many; the verb agrees with `others`.
        state["events"].append(tn(
            "{winner} wins the round; {others} also scores ({scorers} scorers with {players} "
            "players). Each scorer adds their Contest Creature to their scored cards.",
            "{winner} wins the round; {others} also score ({scorers} scorers with {players} "
            "players). Each scorer adds their Contest Creature to their scored cards.",
            len(others), winner=players[winner], others=join_names(others), scorers=count,
            players=seat_count))
    else:
        state["events"].append(t("{name} wins the round and adds their Contest Creature to "
                                 "their scored cards.", name=players[winner]))
    if state["round"] < ROUNDS:
        following = left_of(winner, seat_count)
        state["next_starting_player"] = following
        state["events"].append(t("{name}, to the left of {winner}, will be the starting player "
                                 "of round {round}.", name=players[following],
                                 winner=players[winner], round=state["round"] + 1))
    else:
        state["next_starting_player"] = None
        state["events"].append(t("This is the last round: once the creatures are scored, "
                                 "apply end-of-game effects and end the game."))


_SCORES = {
    "named": t("{name} scores {card} ({value})."),
    "phoenix": t("{name} scores the Golden Phoenix ({value})."),
    "plain": t("{name} scores a card worth {value}."),
}


def _score_creature(state: dict, params: dict, seat: int) -> None:
    """Add a scorer's Contest Creature to their scored cards."""
    player = params["player"]
    name = state["players"][player]
    if not state["settled"]:
        raise Rejected(t("Rank the round first: then the scorers add their Contest Creature."))
    if player not in state["scorers"]:
        raise Rejected(t("{name} is not a scorer this round.", name=name))
    if player in state["creatures_logged"]:
        raise Rejected(t("{name} has already scored a Contest Creature this round.", name=name))
    if params["phoenix"]:
        _require_phoenix_free(state, player)
    card = _card(params["value"], params["name"], params["phoenix"])
    state["boards"][player]["cards"].append(card)
    state["creatures_logged"].append(player)
    state["events"].append(_card_said(card, _SCORES, name=name))
    pending = _pending_creatures(state)
    if pending:
        state["events"].append(t("Still to score a creature: {names}.",
                                 names=join_names(_names(state, pending))))
    elif state["round"] == ROUNDS:
        state["events"].append(t("Every creature is scored: apply end-of-game effects, "
                                 "then end the game."))
    else:
        state["events"].append(t("Every creature is scored: clean up and start the next round."))


def _require_creatures_logged(state: dict) -> None:
    if not state["settled"]:
        raise Rejected(t("Rank the round first."))
    pending = _pending_creatures(state)
    if pending:
        raise Rejected(tn("{names} must first score their Contest Creature.",
                          "{names} must first score their Contest Creatures.",
                          len(pending), names=join_names(_names(state, pending))))


def _next_round(state: dict, params: dict, seat: int) -> None:
    """Run the Clean-up phase and start the next round."""
    named = params["round"]
    # The last round has no next one: any round named then has already started.
    require_step(named, step_values(state)["next_round"], t("starting round {round}", round=named),
                 _now_text(state), past=named <= state["round"], done=t("is already done"))
    _require_creatures_logged(state)
    seat_count = _seat_count(state)
    players = state["players"]
    winner = state["round_winner"]
    state.setdefault("round_scores", []).append(
        [_final_keys(board)["score"] for board in state["boards"]])
    state["events"].append(tn("Clean-up: discard the cards in play except scored cards; each "
                              "player may discard cards from hand; shuffle the discard pile into "
                              "the deck, flip one card to start the discard pile, and draw back "
                              "to {count} card.",
                              "Clean-up: discard the cards in play except scored cards; each "
                              "player may discard cards from hand; shuffle the discard pile into "
                              "the deck, flip one card to start the discard pile, and draw back "
                              "to {count} cards.", HAND_SIZE))
    state["round"] += 1
    state["starting_player"] = left_of(winner, seat_count)
    state["phase"] = PHASE_WANDERING
    state["wandering_turn"] = 0
    state["boost_round"] = 1
    state["passed"] = [False] * seat_count
    state["boosts"] = [0] * seat_count
    state["totals"] = [None] * seat_count
    state["settled"] = False
    state["round_result"] = []
    state["scorers"] = []
    state["round_winner"] = None
    state["next_starting_player"] = None
    state["creatures_logged"] = []
    state["events"].append(t("Round {round}: {name} is the starting player (to the left of "
                             "{winner}, who won the round).", round=state["round"],
                             name=players[state["starting_player"]], winner=players[winner]))
    if state["round"] == ROUNDS:
        state["events"].append(t("Last round: no Clean-up after it."))


def _finish(state: dict, params: dict, seat: int) -> None:
    """End the game after the last round's Scoring phase and announce the ranking."""
    if state["round"] != ROUNDS:
        raise Rejected(t("The game ends after round {last}; this is round {round}.",
                         last=ROUNDS, round=state["round"]))
    _require_creatures_logged(state)
    state["phase"] = PHASE_OVER
    state["events"].append(t("The game is over."))
    _announce_final(state)


def _announce_final(state: dict) -> None:
    ranking = _final_for_state(state)
    state["events"].append(verdict(ranking)["headline"])
    for above, row in zip(ranking, ranking[1:]):
        if above["score"] == row["score"]:
            state["events"].append(row["reason"])


def _say_phoenix_moves(state: dict, holder_before: int | None) -> None:
    """Say where the Golden Phoenix went when a correction moved it: it is tie-break 1."""
    holder = phoenix_holder(state)
    if holder == holder_before:
        return
    if holder is None:
        state["events"].append(t("Nobody holds the Golden Phoenix now."))
    else:
        state["events"].append(t("{name} holds the Golden Phoenix now: it breaks a tie for the "
                                 "same score first.", name=state["players"][holder]))


def _add_card(state: dict, params: dict, seat: int) -> None:
    """Add a scored card as a correction or a card effect."""
    player = params["player"]
    if params["phoenix"]:
        _require_phoenix_free(state, player)
    holder_before = phoenix_holder(state)
    card = _card(params["value"], params["name"], params["phoenix"])
    state["boards"][player]["cards"].append(card)
    _say_phoenix_moves(state, holder_before)


def _edit_card(state: dict, params: dict, seat: int) -> None:
    """Change one scored card, marking it as the Golden Phoenix or unmarking it."""
    player, index = params["player"], params["index"]
    _require_card(state, player, index)
    if params["phoenix"]:
        _require_phoenix_free(state, player, skip_index=index)
    holder_before = phoenix_holder(state)
    state["boards"][player]["cards"][index] = _card(params["value"], params["name"],
                                                     params["phoenix"])
    _say_phoenix_moves(state, holder_before)


def _remove_card(state: dict, params: dict, seat: int) -> None:
    """Remove one scored card."""
    player, index = params["player"], params["index"]
    _require_card(state, player, index)
    holder_before = phoenix_holder(state)
    del state["boards"][player]["cards"][index]
    _say_phoenix_moves(state, holder_before)


def _set_adjustment(state: dict, params: dict, seat: int) -> None:
    """Set a player's end-of-game effect adjustment."""
    state["boards"][params["player"]]["adjustment"] = params["amount"]


_HANDLERS = {
    "set_phase": _set_phase,
    "next_phase": _next_phase,
    "end_wandering_turn": _end_wandering_turn,
    "set_wandering_turn": _set_wandering_turn,
    "boost": _boost,
    "pass_boost": _pass_boost,
    "next_boost_round": _next_boost_round,
    "enter_total": _enter_total,
    "set_total": _set_total,
    "settle_round": _settle_round,
    "score_creature": _score_creature,
    "next_round": _next_round,
    "finish": _finish,
    "add_card": _add_card,
    "edit_card": _edit_card,
    "remove_card": _remove_card,
    "set_adjustment": _set_adjustment,
}


# ----------------------------------------------------------------- view and log


WANDERING_RULE = t("Only a Spell's effect happens now; any other card is discarded with no effect.")
TIMER_STEP = "phase"
_TIMED_PHASES = (PHASE_WANDERING, PHASE_CONTEST, PHASE_BOOST)


def timer_cue(state: dict):
    """A countdown per playing phase, and afresh for every Boost round."""
    phase = state["phase"]
    if phase not in _TIMED_PHASES:
        return None
    turn_seat = wandering_seat(state)
    if turn_seat is not None:
        # A countdown afresh for each player's turn, as for each Boost round.
        return (f"{state['round']}:{phase}:{state['wandering_turn']}",
                t("Round {round} · Wandering: {name}'s turn", round=state["round"],
                  name=state["players"][turn_seat]))
    if phase == PHASE_BOOST:
        return (f"{state['round']}:{phase}:{state['boost_round']}",
                t("Round {round} · Boost round {number}", round=state["round"],
                  number=state["boost_round"]))
    return f"{state['round']}:{phase}", t("Round {round} · {phase}", round=state["round"],
                                          phase=PHASE_LABELS[phase])


def _phase_hint(state: dict) -> str:
    """What the table does in this phase, in one line for the screen."""
    starter = state["players"][state["starting_player"]]
    phase = state["phase"]
    if phase == PHASE_WANDERING:
        return t("From {starter}, in turn order: draw a card, then play a card.", starter=starter)
    return {
        PHASE_CONTEST: t("Everyone plays a Contest Creature face down; reveal them together."),
        PHASE_BOOST: t("Each player still in plays one boost face down, or passes."),
        PHASE_SCORING: t("Enter each player's round total."),
        PHASE_CLEANUP: t("Discard the cards in play except scored cards, then start the next round."),
        PHASE_OVER: t("The game is over."),
    }[phase]


def view(state: dict, seat: int | None) -> dict:
    """Return what `seat` may see: the whole game is public."""
    players = state["players"]
    seat_count = _seat_count(state)
    is_seat = isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < seat_count
    count = scorer_count(seat_count, state["scorers_7_plus"])
    last_round = state["round"] == ROUNDS
    phases = [{"name": phase, "label": PHASE_LABELS[phase], "current": phase == state["phase"],
               "applicable": not (phase == PHASE_CLEANUP and last_round)} for phase in PHASES]
    boards = []
    for board_seat, board in enumerate(state["boards"]):
        card_sum = sum(card["value"] for card in board["cards"])
        boards.append({
            "seat": board_seat,
            "name": players[board_seat],
            "cards": [dict(card) for card in board["cards"]],
            "card_count": len(board["cards"]),
            "card_sum": card_sum,
            "adjustment": board["adjustment"],
            "score": card_sum + board["adjustment"],
        })
    round_rows = [dict(row, name=players[row["seat"]]) for row in state["round_result"]]
    game_over = state["phase"] == PHASE_OVER
    final = _final_for_state(state)
    return {
        "game": ID,
        "seat": seat if is_seat else None,
        "players": list(players),
        "round": state["round"],
        "rounds": ROUNDS,
        "phase": state["phase"],
        "phase_label": PHASE_LABELS.get(state["phase"], GAME_OVER_LABEL),
        "phases": phases,
        "starting_player": state["starting_player"],
        "next_starting_player": state["next_starting_player"],
        # The Wandering phase's turns: the order, how many have drawn and played, whose turn.
        "wandering_order": wandering_order(state),
        "wandering_turn": state.get("wandering_turn", 0),
        "wandering_seat": wandering_seat(state),
        "wandering_rule": WANDERING_RULE,
        "boost_round": state["boost_round"],
        "boost_rounds": BOOST_ROUNDS,
        "passed": list(state["passed"]),
        "boosts": list(state["boosts"]),
        "waiting_for_boosts": _waiting_for_boosts(state) if state["phase"] == PHASE_BOOST else [],
        # Who has played a boost in the Boost round under way (the screen's "played this round").
        "boosted_this_round": ([s for s in range(seat_count) if not state["passed"][s]
                                and _acted_this_boost_round(state, s)]
                               if state["phase"] == PHASE_BOOST else []),
        "totals": list(state["totals"]),
        "missing_totals": [s for s, total in enumerate(state["totals"]) if total is None],
        "phase_hint": _phase_hint(state),
        "settled": state["settled"],
        "round_ranking": round_rows,
        # Why equal totals ranked as they did; the ranking was made from the round's own start.
        "round_ties": _round_tie_sentences(round_rows, state["starting_player"], players),
        "scorers": list(state["scorers"]),
        "scorer_count": count,
        "scorer_positions": _scorer_words(count),
        "round_winner": state["round_winner"],
        "pending_creatures": _pending_creatures(state),
        "boards": boards,
        "phoenix_holder": phoenix_holder(state),
        "game_over": game_over,
        "final": final,
        # The ranking as the scores stand now, with why equal scores rank as they do; once the
        # game is over the same ranking is its result.
        "ranking": final,
        "verdict": verdict(final) if game_over else None,
        "final_is_preview": not game_over,
        "two_decks": seat_count >= TWO_DECKS_FROM,
        "setup_notes": setup_notes(seat_count),
        "steps": step_values(state),
        "events": list(state["events"]),
    }


def secret_open(state: dict, seat: int) -> bool:
    """Tell whether `seat` has an unrevealed secret: never, in this game."""
    return False


# The log's lines that name a card: one message per card kind and per whose card it is.
_LOG_SCORED = {
    "named": t("{who} scored {card} ({value})"),
    "phoenix": t("{who} scored the Golden Phoenix ({value})"),
    "plain": t("{who} scored a card worth {value}"),
}
_LOG_SCORED_FOR = {
    "named": t("{who} scored {card} ({value}) for {target}"),
    "phoenix": t("{who} scored the Golden Phoenix ({value}) for {target}"),
    "plain": t("{who} scored a card worth {value} for {target}"),
}
_LOG_ADDED = {
    "named": t("{who} added {card} ({value}) to their own scored cards"),
    "phoenix": t("{who} added the Golden Phoenix ({value}) to their own scored cards"),
    "plain": t("{who} added a card worth {value} to their own scored cards"),
}
_LOG_ADDED_FOR = {
    "named": t("{who} added {card} ({value}) to {target}'s scored cards"),
    "phoenix": t("{who} added the Golden Phoenix ({value}) to {target}'s scored cards"),
    "plain": t("{who} added a card worth {value} to {target}'s scored cards"),
}
_LOG_CHANGED = {
    "named": t("{who} changed their own scored card {number} to {card} ({value})"),
    "phoenix": t("{who} changed their own scored card {number} to the Golden Phoenix ({value})"),
    "plain": t("{who} changed their own scored card {number} to a card worth {value}"),
}
_LOG_CHANGED_FOR = {
    "named": t("{who} changed {target}'s scored card {number} to {card} ({value})"),
    "phoenix": t("{who} changed {target}'s scored card {number} to the Golden Phoenix ({value})"),
    "plain": t("{who} changed {target}'s scored card {number} to a card worth {value}"),
}
_LOG_PHASE = {
    PHASE_WANDERING: t("{who} moved to the Wandering phase"),
    PHASE_CONTEST: t("{who} moved to the Contest phase"),
    PHASE_BOOST: t("{who} moved to the Boost phase"),
    PHASE_SCORING: t("{who} moved to the Scoring phase"),
    PHASE_CLEANUP: t("{who} moved to the Clean-up phase"),
}


def describe(action: str, params: dict, seat: int, players: list[str]) -> str:
    """Write one public log line: a whole message per action, per card kind, and per whether
    the player acted for themselves or for someone else."""
    params = params if isinstance(params, dict) else {}
    who = player_name(players, seat)
    target_seat = params.get("player")
    target = player_name(players, target_seat)
    own = target_seat == seat
    card = _card(as_int(params.get("value")), str(params.get("name") or ""),
                 bool(params.get("phoenix")))
    if action == "set_phase":
        line = _LOG_PHASE.get(params.get("phase")) if isinstance(params.get("phase"), str) else None
        return t(line.message, who=who) if line else t("{who} moved to another phase", who=who)
    if action == "next_phase":
        return t("{who} moved on to the next phase", who=who)
    if action == "end_wandering_turn":
        if own:
            return t("{who} drew and played a card", who=who)
        return t("{who} logged {target}'s turn: drew and played a card", who=who, target=target)
    if action == "set_wandering_turn":
        return t("{who} corrected the turn: {target} draws and plays now", who=who, target=target)
    if action == "boost":
        if own:
            return t("{who} logged a boost", who=who)
        return t("{who} logged a boost for {target}", who=who, target=target)
    if action == "pass_boost":
        if own:
            return t("{who} passed", who=who)
        return t("{who} logged a pass for {target}", who=who, target=target)
    if action == "next_boost_round":
        return t("{who} started the next Boost round", who=who)
    if action == "enter_total":
        total = as_int(params.get("total"))
        if own:
            return t("{who} entered their own round total: {total}", who=who, total=total)
        return t("{who} entered {target}'s round total: {total}", who=who, target=target,
                 total=total)
    if action == "set_total":
        total = as_int(params.get("total"))
        if own:
            return t("{who} corrected their own round total to {total}", who=who, total=total)
        return t("{who} corrected {target}'s round total to {total}", who=who, target=target,
                 total=total)
    if action == "settle_round":
        return t("{who} ranked the round", who=who)
    if action == "score_creature":
        return _card_said(card, _LOG_SCORED if own else _LOG_SCORED_FOR, who=who, target=target)
    if action == "next_round":
        return t("{who} cleaned up and started the next round", who=who)
    if action == "finish":
        return t("{who} ended the game", who=who)
    if action == "add_card":
        return _card_said(card, _LOG_ADDED if own else _LOG_ADDED_FOR, who=who, target=target)
    number = as_int(params.get("index")) + 1
    if action == "edit_card":
        return _card_said(card, _LOG_CHANGED if own else _LOG_CHANGED_FOR, who=who,
                          target=target, number=number)
    if action == "remove_card":
        if own:
            return t("{who} removed their own scored card {number}", who=who, number=number)
        return t("{who} removed {target}'s scored card {number}", who=who, target=target,
                 number=number)
    if action == "set_adjustment":
        # A signed amount ("+3", "-2") is a number with its sign, the same in every language.
        amount = f"{as_int(params.get('amount')):+d}"
        if own:
            return t("{who} set their own end-of-game adjustment to {amount}", who=who,
                     amount=amount)
        return t("{who} set {target}'s end-of-game adjustment to {amount}", who=who,
                 target=target, amount=amount)
    spec = ACTIONS.get(action)
    return t("{who}: {action}", who=who, action=spec.label if spec else action)
