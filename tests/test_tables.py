"""The table layer: the log, versions, undo, seats, with the tiny game."""

import random

import pytest

from companion import store, tables
from companion.dialects import run_text

from .helpers import act, create_tiny, take


def new_table(conn, players=("Ana", "Ben", "Cara")):
    code, host = tables.create_table(conn, "tiny", list(players), {"start": "2"}, random.Random(1))
    return code, host


def test_code_is_readable_and_unique(conn):
    codes = {new_table(conn)[0] for _ in range(50)}
    assert len(codes) == 50
    for code in codes:
        assert len(code) == tables.CODE_LENGTH
        assert not set(code) & set("0O1IL")


def test_player_names_are_checked(conn):
    with pytest.raises(tables.TableError, match="same name"):
        tables.create_table(conn, "tiny", ["Ana", "ana"], {})
    with pytest.raises(tables.TableError, match="1 to 4 players"):
        tables.create_table(conn, "tiny", ["A", "B", "C", "D", "E"], {})
    with pytest.raises(tables.TableError, match="Unknown game"):
        tables.create_table(conn, "chess", ["A"], {})
    with pytest.raises(tables.TableError):
        tables.create_table(conn, "tiny", ["Ana"], {"start": "eleven"})


def test_action_bumps_version_and_state_is_fold_of_log(conn):
    code, _ = new_table(conn)
    seat, _ = tables.take_seat(conn, code, 0)
    tables.apply_action(conn, code, [0], 0, "add", {"amount": "3"}, 0)
    out = tables.apply_action(conn, code, [0], 0, "add", {"amount": 4}, 1)
    assert out.version == 2
    table = tables.load(conn, code)
    assert table.snapshot["count"] == 9
    from companion.games import get_game
    refolded = tables.fold(get_game("tiny"), table.players, table.options, store.live_actions(conn, table.id))
    assert refolded == table.snapshot


def test_stale_write_is_refused_and_changes_nothing(conn):
    code, _ = new_table(conn)
    tables.apply_action(conn, code, [0], 0, "add", {"amount": 1}, 0)
    with pytest.raises(tables.Stale):
        tables.apply_action(conn, code, [0], 0, "add", {"amount": 1}, 0)
    table = tables.load(conn, code)
    assert table.version == 1 and table.snapshot["count"] == 3


def test_same_request_id_applies_once(conn):
    code, _ = new_table(conn)
    first = tables.apply_action(conn, code, [0], 0, "add", {"amount": 2}, 0, "tap-1")
    again = tables.apply_action(conn, code, [0], 0, "add", {"amount": 2}, 0, "tap-1")
    assert again.repeated and not first.repeated
    assert tables.load(conn, code).snapshot["count"] == 4


def test_a_request_id_used_by_another_phone_is_refused_not_taken_for_a_retry(conn):
    code, _ = new_table(conn)
    tables.take_seat(conn, code, 0)
    tables.take_seat(conn, code, 1)
    tables.apply_action(conn, code, [0], 0, "add", {"amount": 2}, 0, "same-1")
    with pytest.raises(tables.ReusedRequestId, match="another phone") as refused:
        tables.apply_action(conn, code, [1], 1, "add", {"amount": 2}, 1, "same-1")
    assert refused.value.status == 409
    table = tables.load(conn, code)
    assert table.snapshot["count"] == 4 and table.version == 1


def test_a_request_id_reused_with_other_values_is_refused(conn):
    code, _ = new_table(conn)
    tables.take_seat(conn, code, 0)
    tables.apply_action(conn, code, [0], 0, "add", {"amount": 1}, 0, "tap-1")
    for action, params in (("add", {"amount": 4}), ("pick", {"color": "red"})):
        with pytest.raises(tables.ReusedRequestId, match="different request"):
            tables.apply_action(conn, code, [0], 0, action, params, 1, "tap-1")
    with pytest.raises(tables.ReusedRequestId, match="different request"):
        tables.undo(conn, code, [0], 1, "tap-1")
    table = tables.load(conn, code)
    assert table.snapshot["count"] == 3 and table.version == 1
    # The same request again is a retry: applied once, answered as repeated.
    assert tables.apply_action(conn, code, [0], 0, "add", {"amount": "1"}, 0, "tap-1").repeated


def test_a_retried_undo_from_another_phone_is_refused(conn):
    code, _ = new_table(conn)
    tables.take_seat(conn, code, 0)
    tables.take_seat(conn, code, 1)
    tables.apply_action(conn, code, [0], 0, "add", {"amount": 1}, 0)
    tables.apply_action(conn, code, [0], 0, "add", {"amount": 2}, 1)
    tables.undo(conn, code, [0], 2, "undo-1")
    with pytest.raises(tables.ReusedRequestId, match="another phone"):
        tables.undo(conn, code, [1], 3, "undo-1")
    assert tables.undo(conn, code, [0], 3, "undo-1").repeated
    assert tables.load(conn, code).snapshot["count"] == 3


def test_a_withdrawn_pick_keeps_no_trace_of_its_value_but_its_retry_is_still_known(conn):
    code, _ = new_table(conn)
    tables.take_seat(conn, code, 0)
    tables.apply_action(conn, code, [0], 0, "pick", {"color": "red"}, 0, "pick-1")
    tables.apply_action(conn, code, [0], 0, "pick", {"color": "blue"}, 1, "pick-2")  # a change of mind
    table = tables.load(conn, code)
    keys = {row["request_id"]: row["request_key"] for row in run_text(
        conn, "SELECT request_id, request_key FROM action WHERE table_id = :id", {"id": table.id})}
    assert keys["pick-1"].endswith("|pick|" + store.REQUEST_KEY_WITHDRAWN)
    assert not keys["pick-2"].endswith(store.REQUEST_KEY_WITHDRAWN)
    # The late retry of the withdrawn pick is still that request: not applied again.
    assert tables.apply_action(conn, code, [0], 0, "pick", {"color": "red"}, 1, "pick-1").repeated
    assert tables.load(conn, code).snapshot["picks"][0] == "blue"


def test_a_request_id_may_be_a_json_integer_the_same_as_its_text(make_client):
    phone, other = make_client(), make_client()
    code = create_tiny(phone)
    take(phone, code, 0)
    take(other, code, 1)
    first = act(phone, code, "add", {"amount": 2}, seat=0, request_id=7)
    assert first.status_code == 200 and first.get_json()["repeated"] is False
    again = act(phone, code, "add", {"amount": 2}, version=0, seat=0, request_id="7")
    assert again.status_code == 200 and again.get_json()["repeated"] is True
    for client, params, seat in ((phone, {"amount": 3}, 0), (other, {"amount": 2}, 1)):
        refused = act(client, code, "add", params, seat=seat, request_id=7)
        assert refused.status_code == 409 and "request id was already used" in refused.get_json()["error"]
    for bad in (True, 2.5, [7], "x" * 65):
        resp = act(phone, code, "add", {"amount": 1}, seat=0, request_id=bad)
        assert resp.status_code == 400 and "request id" in resp.get_json()["error"]
    assert phone.get(f"/api/tables/{code}").get_json()["version"] == 1


def test_secret_pick_is_accepted_against_an_old_version(conn):
    code, _ = new_table(conn)
    tables.apply_action(conn, code, [0], 0, "add", {"amount": 1}, 0)
    out = tables.apply_action(conn, code, [1], 1, "pick", {"color": "red"}, 0)
    assert out.version == 2


def test_rules_refusal_and_bad_params_change_nothing(conn):
    code, _ = new_table(conn)
    for params in ({"amount": "9"}, {"amount": "x"}, {}, {"amount": True}):
        with pytest.raises(tables.TableError):
            tables.apply_action(conn, code, [0], 0, "add", params, 0)
    with pytest.raises(tables.TableError, match="does not exist"):
        tables.apply_action(conn, code, [0], 0, "explode", {}, 0)
    assert tables.load(conn, code).version == 0


def test_seat_must_be_held(conn):
    code, _ = new_table(conn)
    with pytest.raises(tables.Forbidden):
        tables.apply_action(conn, code, [], None, "add", {"amount": 1}, 0)
    with pytest.raises(tables.Forbidden):
        tables.apply_action(conn, code, [0], 2, "add", {"amount": 1}, 0)


def test_undo_is_exact_and_steps_back_repeatedly(conn):
    code, _ = new_table(conn)
    states = [tables.load(conn, code).snapshot]
    for version, amount in enumerate([1, 2, 3]):
        tables.apply_action(conn, code, [0], 0, "add", {"amount": amount}, version)
        states.append(tables.load(conn, code).snapshot)
    version = 3
    for expected in reversed(states[:-1]):
        out = tables.undo(conn, code, [1], version)
        version = out.version
        assert tables.load(conn, code).snapshot == expected
    with pytest.raises(tables.TableError, match="Nothing to undo"):
        tables.undo(conn, code, [1], version)


def test_undo_never_removes_an_unrevealed_pick(conn):
    code, _ = new_table(conn)
    tables.apply_action(conn, code, [0], 0, "pick", {"color": "blue"}, 0)
    with pytest.raises(tables.TableError, match="secret"):
        tables.undo(conn, code, [1], 1)
    assert tables.load(conn, code).snapshot["picks"][0] == "blue"


def test_undo_after_reveal_takes_back_the_whole_round_of_picks(conn):
    code, _ = new_table(conn, players=("Ana", "Ben"))
    tables.apply_action(conn, code, [0], 0, "add", {"amount": 1}, 0)
    tables.apply_action(conn, code, [0], 0, "pick", {"color": "blue"}, 1)
    tables.apply_action(conn, code, [0], 0, "pick", {"color": "red"}, 2)  # Ana changed her mind
    tables.apply_action(conn, code, [1], 1, "pick", {"color": "red"}, 3)
    assert tables.load(conn, code).snapshot["revealed"] == ["red", "red"]
    out = tables.undo(conn, code, [0], 4)
    assert "choices it revealed are undone too" in out.events[0]
    state = tables.load(conn, code).snapshot
    # Nobody's pick is left pending (they were all seen at the reveal), so undo goes on.
    assert state["revealed"] == [] and state["picks"] == [None, None] and state["count"] == 3
    tables.undo(conn, code, [0], out.version)
    assert tables.load(conn, code).snapshot["count"] == 2


def test_retried_undo_applies_once(conn):
    code, _ = new_table(conn)
    tables.apply_action(conn, code, [0], 0, "add", {"amount": 1}, 0)
    tables.apply_action(conn, code, [0], 0, "add", {"amount": 2}, 1)
    tables.undo(conn, code, [0], 2, "undo-1")
    again = tables.undo(conn, code, [0], 3, "undo-1")
    assert again.repeated
    assert tables.load(conn, code).snapshot["count"] == 3


def test_seats_take_free_and_old_token_stops_working(conn):
    code, host = new_table(conn)
    seat, token = tables.take_seat(conn, code, 1)
    table = tables.load(conn, code)
    assert tables.seats_held(conn, table, [token]) == [1]
    with pytest.raises(tables.TableError, match="already taken"):
        tables.take_seat(conn, code, 1)
    with pytest.raises(tables.Forbidden):
        tables.free_seat(conn, code, "not-the-host", 1)
    tables.free_seat(conn, code, host, 1)
    assert tables.seats_held(conn, table, [token]) == []
    _, token2 = tables.take_seat(conn, code, 1)
    assert token2 != token and tables.seats_held(conn, table, [token2]) == [1]


def test_log_never_shows_a_secret_pick(conn):
    code, _ = new_table(conn)
    tables.apply_action(conn, code, [0], 0, "pick", {"color": "blue"}, 0)
    lines = tables.log_lines(conn, tables.load(conn, code))
    assert lines[0]["text"] == "Ana has chosen."
    assert "blue" not in repr(lines)


def test_commuting_entry_is_accepted_against_an_old_version(conn):
    from companion.games import get_game
    game = get_game("woodland-wizards")
    assert game.ACTIONS["enter_total"].commutes and not game.ACTIONS["settle_round"].commutes
    code, _ = tables.create_table(conn, "woodland-wizards", ["Ana", "Ben"], {"first_player": "0"})
    tables.apply_action(conn, code, [0], 0, "set_phase", {"phase": "scoring"}, 0)
    tables.apply_action(conn, code, [0], 0, "enter_total", {"player": 0, "total": 7}, 1)
    # Ben's phone still shows version 1: his total is taken all the same.
    tables.apply_action(conn, code, [1], 1, "enter_total", {"player": 1, "total": 9}, 1)
    assert tables.load(conn, code).snapshot["totals"] == [7, 9]
    with pytest.raises(tables.Stale):
        tables.apply_action(conn, code, [1], 1, "settle_round", {}, 1)


def test_the_undo_button_and_undo_agree_on_what_is_undone(conn):
    code, _ = new_table(conn, players=("Ana", "Ben"))
    table = tables.load(conn, code)
    assert tables.undo_preview(conn, table, []).refusal == "Take a seat at this table first."
    plan = tables.undo_preview(conn, table, [0])
    assert plan.label == "Nothing to undo yet" and plan.refusal.startswith("Nothing to undo")
    tables.apply_action(conn, code, [0], 0, "add", {"amount": 3}, 0)
    plan = tables.undo_preview(conn, tables.load(conn, code), [0])
    assert plan.refusal is None and plan.label == "Ana added 3."
    assert tables.undo(conn, code, [0], 1).events == ["Undone: Ana added 3."]


def test_the_undo_button_is_not_offered_for_an_unrevealed_pick(conn):
    code, _ = new_table(conn, players=("Ana", "Ben"))
    tables.apply_action(conn, code, [1], 1, "pick", {"color": "blue"}, 0)
    plan = tables.undo_preview(conn, tables.load(conn, code), [0])
    assert plan.label == "Ben's choice stays secret"
    with pytest.raises(tables.TableError) as refused:
        tables.undo(conn, code, [0], 1)
    assert refused.value.message == plan.refusal


def test_undoing_a_reveal_tells_every_phone_in_a_public_line(conn):
    code, _ = new_table(conn, players=("Ana", "Ben"))
    tables.apply_action(conn, code, [0], 0, "pick", {"color": "blue"}, 0)
    tables.apply_action(conn, code, [1], 1, "pick", {"color": "red"}, 1)
    plan = tables.undo_preview(conn, tables.load(conn, code), [0])
    assert plan.label == "The reveal: everyone chooses again"
    tables.undo(conn, code, [0], 2)
    table = tables.load(conn, code)
    assert table.snapshot["events"] == [tables.REVEAL_UNDONE_LINE]
    log = tables.log_lines(conn, table)
    assert log[0]["text"] == tables.REVEAL_UNDONE_LINE
    assert not any("blue" in line["text"] or "red" in line["text"] for line in log)
    # The public line is no move: the next undo has nothing of the game to take back.
    assert tables.undo_preview(conn, table, [0]).refusal.startswith("Nothing to undo")


def test_undoing_past_an_undone_reveal_takes_its_line_away(conn):
    code, _ = new_table(conn, players=("Ana", "Ben"))
    start = tables.load(conn, code).snapshot
    tables.apply_action(conn, code, [0], 0, "add", {"amount": 1}, 0)
    tables.apply_action(conn, code, [0], 0, "pick", {"color": "blue"}, 1)
    tables.apply_action(conn, code, [1], 1, "pick", {"color": "red"}, 2)
    out = tables.undo(conn, code, [0], 3)
    tables.undo(conn, code, [0], out.version)
    table = tables.load(conn, code)
    assert {k: v for k, v in table.snapshot.items() if k != "_clock"} == {
        k: v for k, v in start.items() if k != "_clock"}
    assert tables.log_lines(conn, table) == []


def test_a_long_run_of_table_lines_does_not_hide_the_last_move_from_the_button(conn):
    code, host = new_table(conn, players=("Ana", "Ben"))
    tables.take_seat(conn, code, 0)
    tables.apply_action(conn, code, [0], 0, "add", {"amount": 2}, 0)
    for _ in range(10):  # each frees a seat whose pick is open: a table line, not a move
        version = tables.load(conn, code).version
        tables.take_seat(conn, code, 1)
        tables.apply_action(conn, code, [1], 1, "pick", {"color": "red"}, version)
        tables.free_seat(conn, code, host, 1)
    plan = tables.undo_preview(conn, tables.load(conn, code), [0])
    assert plan.label == "Ana added 2."


def test_kept_parts_named_stale_go_unless_kept_again_at_the_newest_stamp(conn):
    table = tables.load(conn, new_table(conn)[0])
    blob = (b"\x00", 0, 1)
    store.put_shared_parts(conn, table.id, "s|0", [("a|seated|en", *blob), ("a|seated|de*p.1", *blob),
                                                  ("b|seated|en", *blob)])
    store.put_shared_parts(conn, table.id, "s|1", [("a|seated|fr*q.2", *blob)])  # another process
    store.put_shared_parts(conn, table.id, "s|1", [("a|seated|de,en,fr*p.1", *blob)],
                           stale=["a|seated|en", "a|seated|de*p.1", "a|seated|fr*q.2"])
    kept = run_text(conn, "SELECT part, stamp FROM shared_part WHERE table_id = :t ORDER BY part",
                    {"t": table.id}).fetchall()
    # the row the other process kept at this stamp stays, as does the part not written now
    assert [tuple(row) for row in kept] == [("a|seated|de,en,fr*p.1", "s|1"), ("a|seated|fr*q.2", "s|1"),
                                            ("b|seated|en", "s|0")]
