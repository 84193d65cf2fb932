"""A tiny game for the table layer's own tests: a shared counter and a secret pick."""

from __future__ import annotations

import copy

from companion.games.base import ActionSpec, Param, Rejected

ID = "tiny"
NAME = "Tiny Test Game"
MIN_PLAYERS = 1
MAX_PLAYERS = 4
RULES_VERSION = 1
OPTIONS = (Param("start", "int", label="Start", min=0, max=10, default=0),)

ACTIONS = {
    "add": ActionSpec("add", (Param("amount", "int", label="Amount", min=1, max=5),), label="Add"),
    "pick": ActionSpec("pick", (Param("color", "choice", label="Color", choices=("red", "blue")),),
                       secret=True, label="Pick"),
}


def prepare_options(raw, players, rng):
    try:
        start = OPTIONS[0].parse(raw.get("start"))
    except Rejected:
        raise
    return {"start": start}


def setup(players, options):
    return {"players": list(players), "count": options["start"], "picks": [None] * len(players),
            "revealed": [], "events": []}


def setup_notes(n):
    return [f"{n} players."]


def apply(state, action, params, seat):
    new = copy.deepcopy(state)
    if action == "add":
        if new["count"] + params["amount"] > 20:
            raise Rejected("The counter stops at 20.")
        new["count"] += params["amount"]
        new["events"] = [f"Counter is now {new['count']}."]
    elif action == "pick":
        new["picks"][seat] = params["color"]
        new["events"] = []
        if all(p is not None for p in new["picks"]):
            new["revealed"] = list(new["picks"])
            new["picks"] = [None] * len(new["picks"])
            new["events"] = ["Picks revealed."]
    else:
        raise Rejected("Unknown action.")
    return new


def view(state, seat):
    return {
        "phase": "play",
        "count": state["count"],
        "chosen": [i for i, p in enumerate(state["picks"]) if p is not None],
        "revealed": state["revealed"],
        "my_pick": state["picks"][seat] if seat is not None else None,
        "events": state["events"],
    }


def secret_open(state, seat):
    return seat is not None and state["picks"][seat] is not None


def describe(action, params, seat, players):
    name = players[seat] if seat is not None else "Someone"
    if action == "add":
        return f"{name} added {params['amount']}."
    if action == "pick":
        return f"{name} has chosen."
    return action
