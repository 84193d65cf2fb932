"""What every game module provides, and the small typed vocabulary for its actions.

A game module is pure: no Flask, no SQL, no I/O. The table layer drives it:

    ID, NAME, MIN_PLAYERS, MAX_PLAYERS   identity and player range
    OPTIONS: tuple[Param, ...]           setup options, validated like action params
    prepare_options(raw, players, rng) -> dict
                                         validate options and settle any random choice
                                         (e.g. a random first leader) so that setup is
                                         deterministic and the log can be refolded
    setup(players, options) -> state     the state at the table's start (JSON-able dict)
    ACTIONS: dict[str, ActionSpec]       what a seat may do
    apply(state, action, params, seat) -> state
                                         the new state; the old one is never mutated;
                                         raises Rejected(reason) and changes nothing
    view(state, seat) -> dict            what that seat may see (seat None: a phone with
                                         no seat, or a shared screen); secrets of other
                                         seats are stripped here and nowhere else
    secret_open(state, seat) -> bool     True while `seat` has a secret pick that is not
                                         yet revealed (undo must not cross it)
    step_values(state) -> dict           for each action that ends a turn or advances a step
                                         (its ActionSpec has `step`): the value that parameter
                                         must name now; the view shows it as "steps"
    describe(action, params, seat, players) -> str
                                         one public log line; a secret action never says
                                         what was chosen

Optional, for the game history (a module without it is listed without scores):

    outcome(state) -> dict | None        None while the game is not over, else:
        {"cooperative": bool,
         "won": bool | None,             co-operative games: did the team win
         "level": str | None,            co-operative games: difficulty or chapter played
         "players": [{"seat": int, "name": str, "score": int | None,
                      "place": int | None, "winner": bool}, ...]   in seat order
         "rounds": int,                  rounds played
         "score_by_round": [[each seat's score after round 1], ...] | None,
         "summary": str,                 optional: one sentence saying who won and why
         "ended_early": bool}            optional: the players stopped before the rules' end
        In a co-operative game every player's "winner" is the team's "won".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .words import t, tn


class Rejected(Exception):
    """An action or option the rules refuse; the message is shown to the players.

    A refusal of one parameter's value also names that parameter (`param`) and says what is
    wrong without the label (`detail`), so the JSON API can name the parameter its client sent
    where a page names the field its player sees.
    """

    def __init__(self, reason: str, param: str | None = None, detail: str | None = None):
        super().__init__(reason)
        self.reason = reason
        self.param = param
        self.detail = detail


class StepOver(Rejected):
    """An action meant for a turn or step other than the current one (a double tap)."""


@dataclass(frozen=True)
class Param:
    """One typed parameter of an action or a setup option."""

    name: str
    kind: str  # "int", "bool", "choice", "seat", "text"
    label: str = ""
    min: int | None = None
    max: int | None = None
    choices: tuple[str, ...] = ()
    default: Any = None
    optional: bool = False
    max_length: int = 40

    def parse(self, raw: Any, players: int | None = None) -> Any:
        """Turn a raw form or JSON value into a checked Python value, or raise Rejected."""
        label = self.label or self.name
        if raw is None or raw == "":
            if self.optional or self.default is not None:
                return self.default
            if self.kind == "bool":
                return False
            raise self._refusal(label, t("a value is needed."))
        if self.kind == "bool":
            if isinstance(raw, bool):
                return raw
            text = str(raw).strip().lower()
            if text in ("1", "true", "on", "yes"):
                return True
            if text in ("0", "false", "off", "no"):
                return False
            raise self._refusal(label, t("yes or no expected."))
        if self.kind in ("int", "seat"):
            if isinstance(raw, bool):
                raise self._refusal(label, t("a whole number is expected."))
            try:
                value = int(str(raw).strip())
            except (TypeError, ValueError):
                raise self._refusal(label, t("a whole number is expected.")) from None
            low = 0 if self.kind == "seat" else self.min
            high = (players - 1) if (self.kind == "seat" and players) else self.max
            if low is not None and value < low:
                raise self._refusal(label, t("{value} is below the lowest allowed, {low}.", value=value, low=low))
            if high is not None and value > high:
                raise self._refusal(label, t("{value} is above the highest allowed, {high}.", value=value, high=high))
            return value
        if self.kind == "choice":
            value = str(raw).strip()
            if value not in self.choices:
                raise self._refusal(label, t("choose one of {choices}.", choices=", ".join(self.choices)))
            return value
        if self.kind == "text":
            if not isinstance(raw, (str, int)):
                raise self._refusal(label, t("text expected."))
            value = " ".join(str(raw).split())
            if len(value) > self.max_length:
                raise self._refusal(label, tn("at most {count} character.", "at most {count} characters.", self.max_length))
            return value
        raise self._refusal(label, t("unknown kind of value."))

    def _refusal(self, label: str, detail: str) -> Rejected:
        return Rejected(t("{label}: {detail}", label=label, detail=detail), param=self.name, detail=detail)


@dataclass(frozen=True)
class ActionSpec:
    """An action a seat may take.

    secret: a hidden pick; it commutes with other writes, so the table layer accepts it
    even when sent against an older version, and the log never shows its parameters.
    commutes: a public write that sets one player's own value (e.g. a round total typed
    on each phone at once); like a secret pick it is accepted against an older version,
    and `apply` still checks it against the current state.
    step: the parameter that names the turn or step this action ends or advances (a Hero,
    a card number, a round); the rules refuse it once that step is over, so a second tap
    meant for the same step cannot end the next one too.
    """

    name: str
    params: tuple[Param, ...] = ()
    secret: bool = False
    label: str = ""
    commutes: bool = False
    step: str = ""

    @property
    def any_version(self) -> bool:
        return self.secret or self.commutes


def parse_params(spec_params: tuple[Param, ...], raw: dict, players: int | None = None) -> dict:
    """Check every declared parameter of `raw`; unknown keys are ignored."""
    if not isinstance(raw, dict):
        raise Rejected(t("Parameters must be given as named values."))
    return {p.name: p.parse(raw.get(p.name), players) for p in spec_params}


def check_action(actions: dict[str, ActionSpec], action: Any, raw: dict, players: int) -> tuple[ActionSpec, dict]:
    """Find the action's spec and parse its parameters, or raise Rejected."""
    if not isinstance(action, str) or action not in actions:
        raise Rejected(t("That action does not exist in this game."))
    spec = actions[action]
    return spec, parse_params(spec.params, raw, players)


def require_step(named, current, named_text: str, now_text: str, *, past: bool = True,
                 done: str | None = None) -> None:
    """Refuse an action that names a turn or step other than the current one.

    `past` says whether the named step has gone by (a double tap, a phone a step behind)
    rather than not come yet; `now_text` is a whole clause saying where the table is now.
    """
    if named == current:
        return
    if past:
        if done is None:
            raise StepOver(t("That was for {named}, which is already over; {now}.", named=named_text, now=now_text))
        raise StepOver(t("That was for {named}, which {done}; {now}.", named=named_text, done=done, now=now_text))
    raise StepOver(t("That is for {named}, which has not come yet; {now}.", named=named_text, now=now_text))


def settle_seat(raw, players: list[str], rng, label: str) -> int:
    """A setup choice of seat ("random" or a seat number), settled now so the log refolds the same."""
    text = str(raw).strip().lower()
    last = len(players) - 1
    if text == "random":
        return rng.randrange(len(players))
    try:
        seat = int(text)
    except ValueError:
        raise Rejected(t("{label}: choose random or a seat number from 0 to {last}.", label=label, last=last)) from None
    if not 0 <= seat <= last:
        raise Rejected(t("{label}: there is no seat {seat}; choose random or a seat number from 0 to {last}.",
                         label=label, seat=seat, last=last))
    return seat


def check_player_count(count: int, game_name: str, low: int, high: int) -> None:
    """Refuse a table outside the game's player range."""
    if not low <= count <= high:
        raise Rejected(t("{game} is for {low} to {high} players; {count} given.",
                         game=game_name, low=low, high=high, count=count))
