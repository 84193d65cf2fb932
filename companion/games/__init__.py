"""The registry: game id -> pure rules module."""

from __future__ import annotations

from types import ModuleType

GAMES: dict[str, ModuleType] = {}


def register(module: ModuleType) -> ModuleType:
    GAMES[module.ID] = module
    return module


def get_game(game_id) -> ModuleType | None:
    return GAMES.get(game_id) if isinstance(game_id, str) else None


# What each game's own view says of the ending in its own words; the JSON view gives the one
# shape of `game_result` instead, so a client reads every game's ending the same way.
OWN_RESULT_KEYS = ("result", "standings", "winners", "decided_by", "final", "final_is_preview",
                   "verdict")


def game_result(game: ModuleType, state: dict) -> dict | None:
    """The ending in one shape for every game, or None while the game is not over.

    places: every player by place (1 first; equal places are shared; a co-operative team
    shares place 1 when it wins and has no place when it loses); scores: each seat's score
    (None where the game keeps none); winners: the winning seats; sentence: who won and why.
    """
    ending = game.outcome(state) if hasattr(game, "outcome") else None
    if ending is None:
        return None
    players = sorted(ending["players"], key=lambda row: row["seat"])
    cooperative = ending["cooperative"]
    places = []
    for row in players:
        place = row["place"]
        if cooperative:
            place = 1 if ending["won"] else None
        places.append({"place": place, "seat": row["seat"], "name": row["name"],
                       "score": row["score"]})
    places.sort(key=lambda row: (row["place"] is None, row["place"] or 0, row["seat"]))
    return {
        "places": places,
        "scores": [row["score"] for row in players],
        "winners": [row["seat"] for row in players if row["winner"]],
        "sentence": ending.get("summary") or "",
        "cooperative": cooperative,
        "ended_early": bool(ending.get("ended_early")),
    }


# The keys of a seat's view that hold that seat's own unrevealed pick.
OWN_PICK_KEYS = ("my_choice",)


def json_view(game: ModuleType, state: dict, seat, own_pick: bool = True) -> dict:
    """What a seat may see, as the JSON API gives it: the game's view with its ending in the
    shape every game shares. Without `own_pick` the seat's unrevealed pick is left out (a
    phone passed around shows it only in the answer to that very pick)."""
    view = game.view(state, seat)
    if not own_pick:
        for key in OWN_PICK_KEYS:
            if key in view:
                view[key] = None
    for key in OWN_RESULT_KEYS:
        view.pop(key, None)
    view["result"] = game_result(game, state)
    return view


def _register_builtin() -> None:
    from . import explorers_of_the_woodlands, mysterious_forest, wicked_forest, woodland_wizards
    from . import explorers_campaign  # noqa: F401 (the chapters, a layer set into the classic game)

    register(wicked_forest)
    register(woodland_wizards)
    register(explorers_of_the_woodlands)
    register(mysterious_forest)


_register_builtin()
