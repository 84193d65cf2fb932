"""The table clock: the game's running time and one shared countdown.

Pure arithmetic on server timestamps (seconds since the epoch, taken when an action is
stored), so every phone computes the same time, a phone that joins late or wakes up shows
the right figure, and folding the log again gives the same clock.

The clock lives in the table state under "_clock", beside the game's own keys; games never
read it. Three kinds of countdown:
- off: only the game's running time is kept;
- free: a countdown of any length, started, paused, resumed and reset by hand;
- turn: a countdown that starts afresh whenever the game's timed step changes (whose turn it
  is, the card being memorised, the Stay/Return decision): the game names that step with
  `timer_cue(state) -> (key, label) | None`. Between timed steps it rests.

Pause stops everything, the running time included, so a game's recorded duration leaves the
pauses out. The countdown never chooses anything for anyone: when it ends, the phones signal.
"""

from __future__ import annotations

from .games.base import ActionSpec, Param, Rejected
from .games.words import Text, t, tc

MODES = ("off", "free", "turn")
MIN_SECONDS = 5
MAX_SECONDS = 3600
SECONDS_PRESETS = (30, 60, 90, 120, 180, 300)

_SECONDS = Param("seconds", "int", label=t("Seconds"), min=MIN_SECONDS, max=MAX_SECONDS)
# The clock state a tap acts on: the count of clock actions so far ("taps" in the clock,
# "stamp" in its view). Like a game's step, it makes a double tap, or two phones tapping
# Reset at once, apply once: the second names a clock state that is gone.
STAMP = "clock"
_STAMP = Param(STAMP, "int", label=t("Clock"), min=0, max=10**9)

# Timer taps from two phones at once must not refuse each other as stale when the game
# moved on meanwhile; each one is checked against the clock state it names.
ACTIONS: dict[str, ActionSpec] = {
    "timer_set": ActionSpec(
        "timer_set", (Param("mode", "choice", label=t("Timer"), choices=MODES), _SECONDS, _STAMP),
        label=t("Set the timer"), commutes=True, step=STAMP),
    "timer_start": ActionSpec("timer_start", (_STAMP,), label=t("Start the countdown"), commutes=True, step=STAMP),
    "timer_reset": ActionSpec("timer_reset", (_STAMP,), label=t("Reset the countdown"), commutes=True, step=STAMP),
    "timer_pause": ActionSpec("timer_pause", (_STAMP,), label=tc("clock", "Pause"), commutes=True, step=STAMP),
    "timer_resume": ActionSpec("timer_resume", (_STAMP,), label=tc("clock", "Resume"), commutes=True, step=STAMP),
}

CLOCK_MOVED_ON = t("That tap was for the clock as it was before someone else's tap (or this "
                   "phone's first one) changed it: nothing was changed. Here it is as it is now.")

# The countdown's words for each game's timed step (its TIMER_STEP): one whole sentence each,
# as each language says "for each turn" its own way. A step not listed reads as a turn.
_FOR_EACH = {
    "turn": t("Countdown: {length} for each turn."),
    "card": t("Countdown: {length} for each card."),
    "phase": t("Countdown: {length} for each phase."),
    "decision": t("Countdown: {length} for each decision."),
}
_SET_FOR_EACH = {
    "turn": t("{name} set a countdown of {length} for each turn."),
    "card": t("{name} set a countdown of {length} for each card."),
    "phase": t("{name} set a countdown of {length} for each phase."),
    "decision": t("{name} set a countdown of {length} for each decision."),
}
# The setting as the new-table form and the More sheet say it.
SETUP_LABELS = {
    "turn": t("Countdown for each turn"),
    "card": t("Countdown for each card"),
    "phase": t("Countdown for each phase"),
    "decision": t("Countdown for each decision"),
}
EACH_STEP = {
    "turn": t("Each turn"),
    "card": t("Each card"),
    "phase": t("Each phase"),
    "decision": t("Each decision"),
}
SECONDS_EACH = {
    "turn": t("{seconds} s each turn"),
    "card": t("{seconds} s each card"),
    "phase": t("{seconds} s each phase"),
    "decision": t("{seconds} s each decision"),
}


def _said(table: dict, step: str, **values):
    message = table.get(step, table["turn"])
    return Text(message.message, values)


def setup_label(step) -> str:
    return SETUP_LABELS.get(step, SETUP_LABELS["turn"])


def each_step(step) -> str:
    return EACH_STEP.get(step, EACH_STEP["turn"])


def seconds_each(step, seconds) -> str:
    return _said(SECONDS_EACH, step, seconds=seconds)


def stamp(clock: dict | None) -> int:
    """The clock state a tap names: how many clock actions the table has taken."""
    return (clock or {}).get("taps", 0)



def parse_setting(raw_seconds) -> dict:
    """The setup form's countdown field: blank or 0 means no countdown."""
    if raw_seconds in (None, "", "0", 0):
        return {"mode": "off", "seconds": 60}
    seconds = _SECONDS.parse(raw_seconds)
    return {"mode": "turn", "seconds": seconds}


def new(options: dict) -> dict:
    setting = options.get("timer") or {}
    return {
        # The running time starts with the first move, not while phones are still joining.
        "started_at": None,
        "paused_since": None,
        "paused_total": 0.0,
        "ended_at": None,
        "mode": setting.get("mode", "off"),
        "seconds": setting.get("seconds", 60),
        # Countdown: `used` seconds counted up to `since`; it counts on from `since` while running.
        "running": False,
        "used": 0.0,
        "since": None,
        "run_id": None,
        "cue": None,
        "cue_label": "",
        "taps": 0,
    }


def _paused(clock) -> bool:
    return clock["paused_since"] is not None


def _settle(clock: dict, at: float) -> None:
    """Bring the countdown's used time up to `at`."""
    if clock["running"] and not _paused(clock) and clock["since"] is not None:
        clock["used"] += max(0.0, at - clock["since"])
    clock["since"] = at


def _restart(clock: dict, at: float, running: bool) -> None:
    clock["used"] = 0.0
    clock["since"] = at
    clock["running"] = running
    clock["run_id"] = f"{at:.3f}" if running else None


def apply(clock: dict, action: str, params: dict, at: float, cue, game_over: bool,
          step: str = "turn") -> tuple[dict, str]:
    """A timer action; return the new clock and what happened, in words.

    `cue` is the game's timed step now (or None), `step` the word for it ("turn", "card").
    """
    clock = dict(clock)
    if game_over and action != "timer_set":
        raise Rejected(t("The game is over: its time is recorded."))
    clock["taps"] = stamp(clock) + 1
    if clock["started_at"] is None:
        clock["started_at"] = at
    if action == "timer_set":
        _settle(clock, at)
        clock["mode"], clock["seconds"] = params["mode"], params["seconds"]
        if clock["mode"] == "turn":
            _follow_cue(clock, cue, at, force=True)
            return clock, _said(_FOR_EACH, step, length=_length(clock["seconds"]))
        _restart(clock, at, running=False)
        clock["cue"], clock["cue_label"] = None, ""
        if clock["mode"] == "free":
            return clock, t("Countdown set to {length}.", length=_length(clock["seconds"]))
        return clock, t("Countdown off.")
    if action == "timer_pause":
        if _paused(clock):
            raise Rejected(t("The clock is already paused."))
        _settle(clock, at)
        clock["paused_since"] = at
        return clock, t("Paused.")
    if action == "timer_resume":
        if not _paused(clock):
            raise Rejected(t("The clock is not paused."))
        clock["paused_total"] += max(0.0, at - clock["paused_since"])
        clock["paused_since"] = None
        clock["since"] = at
        return clock, t("Resumed.")
    if clock["mode"] == "off":
        raise Rejected(t("No countdown is set; choose one first."))
    if action == "timer_start":
        if clock["mode"] == "turn" and clock["cue"] is None:
            raise Rejected(t("The countdown starts by itself at the next turn."))
        if clock["running"] and _remaining(clock, at) > 0:
            raise Rejected(t("The countdown is already running."))
        _restart(clock, at, running=True)
        return clock, t("Countdown started: {length}.", length=_length(clock["seconds"]))
    if action == "timer_reset":
        _restart(clock, at, running=clock["mode"] == "turn" and clock["cue"] is not None)
        return clock, t("Countdown reset.")
    raise Rejected(t("That action does not exist in this game."))


def _follow_cue(clock: dict, cue, at: float, force: bool = False) -> None:
    key, label = cue if cue else (None, "")
    if force or key != clock["cue"]:
        clock["cue"], clock["cue_label"] = key, label
        _restart(clock, at, running=key is not None)


def after_game_action(clock: dict, cue, game_over: bool, at: float) -> dict:
    """Keep the clock in step with the game: a new turn restarts a turn countdown; the end stops all."""
    clock = dict(clock)
    if clock["started_at"] is None:
        clock["started_at"] = at
    if game_over:
        if clock["ended_at"] is None:
            _settle(clock, at)
            clock["ended_at"] = at
            clock["running"] = False
        return clock
    if clock["ended_at"] is not None:
        # A correction reopened the game: the time spent on the result screen is a pause.
        clock["paused_total"] += max(0.0, at - clock["ended_at"])
        clock["ended_at"] = None
    if clock["mode"] == "turn":
        _settle(clock, at)
        _follow_cue(clock, cue, at)
    return clock


def _remaining(clock: dict, now: float) -> float:
    used = clock["used"]
    if clock["running"] and not _paused(clock) and clock["since"] is not None:
        used += max(0.0, now - clock["since"])
    return clock["seconds"] - used


def elapsed(clock: dict, now: float) -> float | None:
    """The game's running time, pauses left out; frozen once the game is over."""
    if clock.get("started_at") is None:
        return None
    end = clock["ended_at"] if clock["ended_at"] is not None else now
    if clock["paused_since"] is not None and clock["ended_at"] is None:
        end = clock["paused_since"]
    return max(0.0, end - clock["started_at"] - clock["paused_total"])


def view(clock: dict | None, now: float) -> dict:
    """What every phone shows; the same for every seat."""
    if clock is None:
        return {"mode": "off", "stamp": 0, "elapsed": None, "paused": False, "over": False,
                "countdown": None}
    countdown = None
    active = clock["mode"] == "free" or (clock["mode"] == "turn" and clock["cue"] is not None)
    if clock["mode"] != "off" and active and clock["ended_at"] is None:
        remaining = _remaining(clock, now)
        countdown = {
            "seconds": clock["seconds"],
            "remaining": max(0.0, remaining),
            "running": clock["running"] and not _paused(clock) and remaining > 0,
            "started": clock["running"],
            "time_up": clock["running"] and remaining <= 0,
            "run_id": clock["run_id"],
            "label": clock["cue_label"] if clock["mode"] == "turn" else t("Countdown"),
        }
    return {
        "mode": clock["mode"],
        "seconds": clock["seconds"],
        "stamp": stamp(clock),
        "elapsed": elapsed(clock, now),
        "paused": _paused(clock),
        "over": clock["ended_at"] is not None,
        "countdown": countdown,
    }


def _length(seconds: int) -> str:
    minutes, secs = divmod(int(seconds), 60)
    if not minutes:
        return t("{seconds} s", seconds=secs)
    if not secs:
        return t("{minutes} min", minutes=minutes)
    padded = "%02d" % secs
    return t("{minutes} min {seconds} s", minutes=minutes, seconds=padded)


def clock_text(seconds: float | None) -> str:
    """1:02:03 or 4:05, for the running time and the countdown."""
    if seconds is None:
        return ""
    total = int(seconds)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"



def describe(action: str, params: dict, name: str, step: str = "turn") -> str:
    if action == "timer_set":
        mode = params.get("mode")
        if mode == "off":
            return t("{name} turned the countdown off.", name=name)
        length = _length(params.get("seconds", 0))
        if mode == "turn":
            return _said(_SET_FOR_EACH, step, name=name, length=length)
        return t("{name} set a countdown of {length}.", name=name, length=length)
    if action == "timer_start":
        return t("{name} started the countdown.", name=name)
    if action == "timer_reset":
        return t("{name} reset the countdown.", name=name)
    if action == "timer_pause":
        return t("{name} paused the clock.", name=name)
    if action == "timer_resume":
        return t("{name} resumed the clock.", name=name)
    return t("{name}: {action}.", name=name, action=action)
