"""The table clock: arithmetic on server timestamps with an injected clock, never a real sleep."""

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion import store, tables, timers
from companion.games import get_game
from companion.games.base import Rejected

from .helpers import name_step


def free_clock(seconds=60):
    clock = timers.new({"timer": {"mode": "free", "seconds": seconds}})
    return timers.after_game_action(clock, None, False, 100.0)  # the first move starts the game's time


def act(clock, action, at, params=None, cue=None, over=False):
    clock, _ = timers.apply(clock, action, params or {}, at, cue, over)
    return clock


def remaining(clock, now):
    return timers.view(clock, now)["countdown"]["remaining"]


def test_countdown_counts_from_the_server_time_of_start():
    clock = act(free_clock(60), "timer_start", 100.0)
    assert remaining(clock, 100.0) == 60
    assert remaining(clock, 130.5) == pytest.approx(29.5)
    view = timers.view(clock, 161.0)
    assert view["countdown"]["remaining"] == 0 and view["countdown"]["time_up"]
    assert not view["countdown"]["running"]


def test_pause_and_resume_stop_the_countdown_and_the_game_time():
    clock = act(free_clock(60), "timer_start", 100.0)
    clock = act(clock, "timer_pause", 140.0)
    for now in (140.0, 200.0, 999.0):
        view = timers.view(clock, now)
        assert view["paused"] and view["countdown"]["remaining"] == pytest.approx(20)
        assert view["elapsed"] == pytest.approx(40)
    clock = act(clock, "timer_resume", 300.0)
    assert remaining(clock, 310.0) == pytest.approx(10)
    assert timers.view(clock, 310.0)["elapsed"] == pytest.approx(50)
    assert timers.view(clock, 325.0)["countdown"]["time_up"]


def test_a_phone_joining_mid_countdown_sees_the_same_time_as_the_others():
    clock = act(free_clock(90), "timer_start", 1000.0)
    clock = act(clock, "timer_pause", 1010.0)
    clock = act(clock, "timer_resume", 1050.0)
    # Whoever asks at the same moment gets the same answer: the state holds no phone's time.
    early_phone = timers.view(clock, 1075.0)
    late_phone = timers.view(dict(clock), 1075.0)
    assert early_phone == late_phone
    assert early_phone["countdown"]["remaining"] == pytest.approx(90 - 10 - 25)


def test_reset_and_start_again():
    clock = act(free_clock(30), "timer_start", 100.0)
    clock = act(clock, "timer_reset", 120.0)
    view = timers.view(clock, 500.0)["countdown"]
    assert view["remaining"] == 30 and not view["running"] and not view["started"]
    clock = act(clock, "timer_start", 500.0)
    assert remaining(clock, 505.0) == pytest.approx(25)
    with pytest.raises(Rejected, match="already running"):
        act(clock, "timer_start", 506.0)
    # Once the time is up the same button starts a new countdown.
    clock = act(clock, "timer_start", 600.0)
    assert remaining(clock, 601.0) == pytest.approx(29)


def test_turn_countdown_restarts_whenever_the_turn_changes():
    clock = timers.new({"timer": {"mode": "turn", "seconds": 45}})
    clock = timers.after_game_action(clock, ("r1:ana", "Ana's turn"), False, 100.0)
    assert remaining(clock, 120.0) == pytest.approx(25)
    # A move inside the same turn does not give more time.
    clock = timers.after_game_action(clock, ("r1:ana", "Ana's turn"), False, 130.0)
    assert remaining(clock, 140.0) == pytest.approx(5)
    clock = timers.after_game_action(clock, ("r1:ben", "Ben's turn"), False, 150.0)
    view = timers.view(clock, 160.0)["countdown"]
    assert view["remaining"] == pytest.approx(35) and view["label"] == "Ben's turn"
    # Between timed steps there is no countdown to show.
    clock = timers.after_game_action(clock, None, False, 170.0)
    assert timers.view(clock, 171.0)["countdown"] is None


def test_a_turn_that_changes_during_a_pause_starts_full_once_resumed():
    clock = timers.new({"timer": {"mode": "turn", "seconds": 60}})
    clock = timers.after_game_action(clock, ("1", "Turn 1"), False, 0.0)
    clock = act(clock, "timer_pause", 10.0)
    clock = timers.after_game_action(clock, ("2", "Turn 2"), False, 20.0)
    assert remaining(clock, 100.0) == 60
    clock = act(clock, "timer_resume", 100.0)
    assert remaining(clock, 115.0) == pytest.approx(45)


def test_game_time_leaves_pauses_out_and_stops_at_the_end():
    clock = timers.after_game_action(timers.new({}), None, False, 1000.0)
    clock = act(clock, "timer_pause", 1600.0)
    clock = act(clock, "timer_resume", 2200.0)     # a ten-minute break
    clock = timers.after_game_action(clock, None, True, 4000.0)
    for now in (4000.0, 9999.0):
        view = timers.view(clock, now)
        assert view["over"] and view["elapsed"] == pytest.approx(3000 - 600)
    with pytest.raises(Rejected, match="over"):
        act(clock, "timer_pause", 4100.0, over=True)


def test_a_correction_that_reopens_the_game_does_not_count_the_result_screen():
    clock = timers.after_game_action(timers.new({}), None, False, 0.0)
    clock = timers.after_game_action(clock, None, True, 100.0)
    clock = timers.after_game_action(clock, None, False, 400.0)
    assert timers.view(clock, 410.0)["elapsed"] == pytest.approx(110)


def test_refusals_say_why():
    clock = timers.after_game_action(timers.new({}), None, False, 0.0)
    with pytest.raises(Rejected, match="No countdown"):
        act(clock, "timer_start", 1.0)
    with pytest.raises(Rejected, match="not paused"):
        act(clock, "timer_resume", 1.0)
    paused = act(clock, "timer_pause", 1.0)
    with pytest.raises(Rejected, match="already paused"):
        act(paused, "timer_pause", 2.0)
    turn = timers.new({"timer": {"mode": "turn", "seconds": 30}})
    with pytest.raises(Rejected, match="next turn"):
        act(turn, "timer_start", 1.0)


def test_clock_text():
    assert timers.clock_text(0) == "0:00"
    assert timers.clock_text(65.9) == "1:05"
    assert timers.clock_text(3725) == "1:02:05"
    assert timers.clock_text(None) == ""


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["timer_start", "timer_reset", "timer_pause", "timer_resume",
                                           "move", "next", "set"]),
                          st.floats(0, 50)), max_size=30),
       st.integers(5, 600))
def test_the_clock_never_goes_backwards_or_below_zero(steps, seconds):
    clock = timers.new({"timer": {"mode": "turn", "seconds": seconds}})
    now, turn, last_elapsed = 0.0, 0, 0.0
    for action, gap in steps:
        now += gap
        try:
            if action == "move":
                clock = timers.after_game_action(clock, (str(turn), "Turn"), False, now)
            elif action == "next":
                turn += 1
                clock = timers.after_game_action(clock, (str(turn), "Turn"), False, now)
            elif action == "set":
                clock = act(clock, "timer_set", now, {"mode": "free", "seconds": seconds})
            else:
                clock = act(clock, action, now, cue=(str(turn), "Turn"))
        except Rejected:
            pass
        view = timers.view(clock, now)
        if view["elapsed"] is not None:
            assert view["elapsed"] >= last_elapsed - 1e-9
            last_elapsed = view["elapsed"]
        if view["countdown"]:
            assert 0 <= view["countdown"]["remaining"] <= seconds


# ---------------------------------------------------------------- through the table layer


@pytest.fixture
def server_time(monkeypatch):
    """The server's clock, moved by the test."""
    now = {"t": 1_000_000.0}
    monkeypatch.setattr(tables.time, "time", lambda: now["t"])
    return now


def clock_of(conn, code, now):
    return timers.view(tables.load(conn, code).snapshot["_clock"], now)


def test_wicked_forest_decision_countdown_follows_the_reveals(conn, server_time):
    code, _ = tables.create_table(conn, "wicked-forest", ["Ana", "Ben"],
                                  {"first_leader": "0", "timer_seconds": "30"}, random.Random(1))
    assert clock_of(conn, code, server_time["t"])["countdown"] is None   # nothing to decide yet
    tables.apply_action(conn, code, [0, 1], 0, "reveal", {"card": 1, "flowers": 2}, 0)
    server_time["t"] += 12
    clock = clock_of(conn, code, server_time["t"])
    assert clock["countdown"]["remaining"] == pytest.approx(18)
    assert "card 1" in clock["countdown"]["label"]
    # A secret pick is a move within the same decision: no extra time, and the clock says nothing of it.
    tables.apply_action(conn, code, [0, 1], 0, "choose", {"choice": "stay", "decision": 1}, 1)
    tables.apply_action(conn, code, [0, 1], 1, "choose", {"choice": "stay", "decision": 1}, 2)
    server_time["t"] += 3
    tables.apply_action(conn, code, [0, 1], 0, "reveal", {"card": 2, "flowers": 1}, 3)
    server_time["t"] += 5
    clock = clock_of(conn, code, server_time["t"])
    assert clock["countdown"]["remaining"] == pytest.approx(25) and "card 2" in clock["countdown"]["label"]


def test_timer_actions_are_logged_undoable_and_refold_exactly(conn, server_time):
    code, _ = tables.create_table(conn, "woodland-wizards", ["Ana", "Ben"], {"first_player": "0"},
                                  random.Random(1))
    out = tables.apply_action(conn, code, [0], 0, "timer_set", {"mode": "free", "seconds": "60", "clock": 0}, 0)
    assert out.events == ["Countdown set to 1 min."]
    tables.apply_action(conn, code, [0], 0, "timer_start", {"clock": 1}, 1)
    server_time["t"] += 20
    tables.apply_action(conn, code, [1], 1, "timer_pause", {"clock": 2}, 2)
    server_time["t"] += 100
    assert clock_of(conn, code, server_time["t"])["countdown"]["remaining"] == pytest.approx(40)
    table = tables.load(conn, code)
    assert tables.fold(get_game(table.game), table.players, table.options,
                       store.live_actions(conn, table.id)) == table.snapshot
    lines = [line["text"] for line in tables.log_lines(conn, table)]
    assert lines[0] == "Ben paused the clock." and lines[2] == "Ana set a countdown of 1 min."
    tables.undo(conn, code, [0], 3)
    clock = clock_of(conn, code, server_time["t"])
    assert not clock["paused"] and clock["countdown"]["time_up"]
    assert clock["stamp"] == 2  # the undone pause is no longer a state of the clock
    # A phone that missed a move of the game still pauses: it names the clock as it is.
    tables.apply_action(conn, code, [0], 0, "timer_pause", {"clock": 2}, 1)
    # The other phone's tap meant for the same clock state is not applied a second time.
    with pytest.raises(tables.Stale, match="nothing was changed"):
        tables.apply_action(conn, code, [1], 1, "timer_pause", {"clock": 2}, 1)


def test_bad_timer_input_changes_nothing(conn, server_time):
    code, _ = tables.create_table(conn, "woodland-wizards", ["Ana", "Ben"], {"first_player": "0"},
                                  random.Random(1))
    for params in ({"mode": "free", "seconds": "2"}, {"mode": "free", "seconds": "99999"},
                   {"mode": "sometimes", "seconds": "60"}, {"mode": "free"}, {"seconds": "x"},
                   {"mode": "free", "seconds": "60"}, {"mode": "free", "seconds": "60", "clock": "-1"}):
        with pytest.raises(tables.TableError):
            tables.apply_action(conn, code, [0], 0, "timer_set", params, 0)
    with pytest.raises(tables.TableError):
        tables.create_table(conn, "woodland-wizards", ["Ana", "Ben"], {"timer_seconds": "-5"})
    assert tables.load(conn, code).version == 0


def test_recorded_duration_leaves_pauses_out(conn, server_time):
    code, _ = tables.create_table(conn, "wicked-forest", ["Ana", "Ben"], {"first_leader": "0"},
                                  random.Random(1))
    witch = {"flowers": 0, "witch": True}
    steps = ((0, "reveal", {"card": 1, **witch}, 0), (0, "choose", {"choice": "stay", "decision": 1}, 60),
             (1, "choose", {"choice": "stay", "decision": 1}, 0), (0, "reveal", {"card": 2, **witch}, 240),
             (0, "timer_pause", {"clock": 0}, 0), (1, "timer_resume", {"clock": 1}, 900), (0, "finish", {}, 1200))
    version = 0
    for seat, action, params, gap in steps:
        server_time["t"] += gap
        version = tables.apply_action(conn, code, [0, 1], seat, action, params, version).version
    clock = clock_of(conn, code, server_time["t"] + 5000)
    assert clock["over"] and clock["elapsed"] == pytest.approx(60 + 240 + 1200)


def test_explorers_turn_timer_follows_the_turn_order(conn, server_time):
    code, _ = tables.create_table(conn, "explorers-of-the-woodlands", ["Ana", "Ben"],
                                  {"hero_1": "xylia", "hero_2": "klethor", "timer_seconds": "60"},
                                  random.Random(1))
    table = tables.load(conn, code)
    game = get_game(table.game)
    labels = []
    # Walk the game forward with whatever the rules offer until two turns have gone by.
    version = 0
    for _ in range(40):
        clock = clock_of(conn, code, server_time["t"])
        if clock["countdown"] and clock["countdown"]["label"] not in labels:
            labels.append(clock["countdown"]["label"])
            assert clock["countdown"]["remaining"] == 60
        if len(labels) == 2:
            break
        state = tables.load(conn, code).snapshot
        action = "end_turn" if state["phase"] == "adventure" else None
        if action is None:
            action = next(name for name in ("place_tile", "start_adventure")
                          if name in game.ACTIONS and _accepted(game, state, name))
        server_time["t"] += 7
        params = name_step(game, state, action, {})
        version = tables.apply_action(conn, code, [0, 1], 0, action, params, version).version
    assert labels == ["Xylia's turn (Ana), round 1", "Klethor's turn (Ben), round 1"]


def _accepted(game, state, name):
    try:
        game.apply(state, name, name_step(game, state, name, {}), 0)
    except Exception:
        return False
    return True


def test_three_parallel_reset_taps_give_one_log_line_and_one_undo(client, make_client):
    """Three phones tap the countdown's Reset at once, each with its own request id: each
    form names the clock state it was shown, so the first tap resets and the others are
    refused; one line in the log, and one undo takes the reset back."""
    from .helpers import hidden, take

    resp = client.post("/api/tables", json={"game": "woodland-wizards", "players": ["Ana", "Ben", "Cara"],
                                            "options": {"first_player": "0"}})
    code = resp.get_json()["code"]
    phones = [client, make_client(), make_client()]
    for seat, phone in enumerate(phones):
        take(phone, code, seat)
    version = resp.get_json()["version"]
    for action, params in (("timer_set", {"mode": "free", "seconds": 60}), ("timer_start", {})):
        stamp = client.get(f"/api/tables/{code}").get_json()["clock"]["stamp"]
        version = client.post(f"/api/tables/{code}/actions", json={
            "action": action, "params": {**params, "clock": stamp}, "version": version}).get_json()["version"]
    # Every phone's page shows the same Reset form, naming the same clock state.
    pages = [phone.get(f"/t/{code}").get_data(as_text=True) for phone in phones]
    forms = [re.search(r'<form[^>]*>(?:(?!</form>).)*name="action" value="timer_reset".*?</form>', page, re.S).group(0)
             for page in pages]
    stamps = {hidden(form, "clock") for form in forms}
    assert stamps == {"2"}
    answers = [phone.post(f"/t/{code}/act", headers={"HX-Request": "true"}, data={
        "action": "timer_reset", "clock": hidden(form, "clock"), "version": str(version),
        "seat": str(seat), "rid": f"reset-{seat}"}) for seat, (phone, form) in enumerate(zip(phones, forms))]
    assert all(resp.status_code == 200 for resp in answers)
    log = client.get(f"/api/tables/{code}/actions").get_json()["actions"]
    assert [line["action"] for line in log].count("timer_reset") == 1
    assert client.get(f"/api/tables/{code}").get_json()["version"] == version + 1
    undone = client.post(f"/api/tables/{code}/undo", json={"version": version + 1}).get_json()
    assert "Undone: Ana reset the countdown" in undone["events"][0]
    log = client.get(f"/api/tables/{code}/actions").get_json()["actions"]
    assert [line["action"] for line in log] == ["timer_set", "timer_start"]


def test_the_stamp_counts_clock_actions_and_a_clock_from_before_it_is_at_zero():
    clock = free_clock(60)
    assert timers.stamp(clock) == 0 and timers.view(clock, 100.0)["stamp"] == 0
    clock = act(clock, "timer_start", 101.0)
    clock = act(clock, "timer_pause", 102.0)
    assert timers.stamp(clock) == 2 and timers.view(clock, 103.0)["stamp"] == 2
    # A game action moves the clock but is no tap on it.
    assert timers.stamp(timers.after_game_action(clock, None, False, 104.0)) == 2
    older = {key: value for key, value in clock.items() if key != "taps"}  # stored before stamps
    assert timers.stamp(older) == 0 and timers.stamp(None) == 0
    assert timers.stamp(act(older, "timer_resume", 105.0)) == 1
