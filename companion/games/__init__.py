"""The registry: game id -> pure rules module."""

from __future__ import annotations

from types import ModuleType

GAMES: dict[str, ModuleType] = {}


def register(module: ModuleType) -> ModuleType:
    GAMES[module.ID] = module
    return module


def get_game(game_id) -> ModuleType | None:
    return GAMES.get(game_id) if isinstance(game_id, str) else None


def _register_builtin() -> None:
    from . import explorers_of_the_woodlands, mysterious_forest, wicked_forest, woodland_wizards

    register(wicked_forest)
    register(woodland_wizards)
    register(explorers_of_the_woodlands)
    register(mysterious_forest)


_register_builtin()
