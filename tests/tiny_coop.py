"""A tiny co-operative game for the history's tests: the team wins or loses at a level."""

from __future__ import annotations

import copy

from companion.games.base import ActionSpec, Param, Rejected

ID = "tiny-coop"
NAME = "Tiny Team Game"
MIN_PLAYERS = 1
MAX_PLAYERS = 4
RULES_VERSION = 1
OPTIONS = (Param("level", "choice", label="Level", choices=("Easy", "Hard"), default="Easy"),)

ACTIONS = {
    "advance": ActionSpec("advance", (), label="Next round"),
    "end": ActionSpec("end", (Param("won", "bool", label="Won"),), label="End the game"),
}


def prepare_options(raw, players, rng):
    return {"level": OPTIONS[0].parse(raw.get("level"))}


def setup(players, options):
    return {"players": list(players), "level": options["level"], "round": 1, "phase": "play",
            "won": None, "events": []}


def setup_notes(n):
    return []


def apply(state, action, params, seat):
    if state["phase"] == "over":
        raise Rejected("The game is over.")
    new = copy.deepcopy(state)
    if action == "advance":
        new["round"] += 1
        new["events"] = [f"Round {new['round']}."]
    elif action == "end":
        new["phase"] = "over"
        new["won"] = params["won"]
        new["events"] = ["The team wins!" if params["won"] else "The forest wins."]
    return new


def view(state, seat):
    return {"phase": state["phase"], "round": state["round"], "events": state["events"]}


def secret_open(state, seat):
    return False


def describe(action, params, seat, players):
    name = players[seat] if seat is not None else "Someone"
    if action == "advance":
        return f"{name} started the next round."
    return f"{name} ended the game: {'won' if params.get('won') else 'lost'}."


def outcome(state):
    if state["phase"] != "over":
        return None
    return {"cooperative": True, "won": state["won"], "level": state["level"],
            "players": [{"seat": i, "name": n, "score": None, "place": None, "winner": state["won"]}
                        for i, n in enumerate(state["players"])],
            "rounds": state["round"], "score_by_round": None,
            "summary": ("The team beat the forest" if state["won"] else "The forest beat the team")
                       + f" in round {state['round']}."}
