"""Small pieces of English shared by the games' messages and log lines."""

from __future__ import annotations


def join_names(words) -> str:
    """Join names as 'Ana', 'Ana and Ben', 'Ana, Ben and Cara'."""
    words = list(words)
    if not words:
        return "nobody"
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " and " + words[-1]


def plural(count: int, word: str, many: str | None = None) -> str:
    """Say '1 Flower' or '3 Flowers' ('many' for irregular plurals)."""
    return f"{count} {noun(count, word, many)}"


def noun(count: int, word: str, many: str | None = None) -> str:
    """The word alone, as `count` of it is said: 'win' for 1, 'wins' otherwise."""
    return word if count == 1 else many or word + "s"


def player_name(players: list[str], seat) -> str:
    """A seat's name for a log line; a seat out of range (an old or forged row) is 'Someone'."""
    if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(players):
        return players[seat]
    return "Someone"


def as_int(value, fallback: int = 0) -> int:
    """A logged parameter as a number, for describing rows whatever they hold."""
    try:
        return int(value)
    except (TypeError, ValueError):
        return fallback
