"""Random action sequences through the JSON API, for every registered game.

Whatever is sent: no 500, a refusal changes nothing, the stored snapshot is always the fold
of the live log, the game's invariants hold, and undo walks the table back to its start
(or, by design, stops at a pick still secret: only its owner may change it).
"""

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from companion import create_app, store, tables, timers
from companion.games import GAMES, explorers_of_the_woodlands, mysterious_forest, wicked_forest
from companion.web.limits import limiter

PLAYERS = ["Ana", "Ben", "Cara"]
OPTIONS = {"wicked-forest": {"first_leader": "0"}, "woodland-wizards": {"first_player": "0"},
           "explorers-of-the-woodlands": {"first_player": "0", "hero_1": "xylia", "hero_2": "klethor",
                                          "hero_3": "bethras", "enraged_bosses": True},
           "mysterious-forest": {"first_player": "0", "guess_variant": True, "backpack_size": 12},
           "tiny": {}}
UNKNOWN_ACTIONS = ["", "explode", "REVEAL", "_undo", "__class__", "choose ", 5, None, ["reveal"],
                   {"action": "reveal"}]
GARBAGE = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-10**6, max_value=10**6),
    st.integers(min_value=10**18, max_value=10**30), st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12), st.sampled_from(["1", " 2 ", "1.5", "yes", "stay", "<b>", "\x00", "٣"]),
    st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
# Actions that fit each phase, drawn often so that sequences get past the first round.
PROGRESS = {
    "wicked-forest": {"reveal": ["reveal"], "choose": ["choose"],
                      "end": ["next_round", "next_round", "crystallize", "finish"],
                      "prepare": ["done_preparing", "start_exploration", "store"],
                      "tally": ["confirm_tally", "set_final_flowers", "crystallize"]},
    "woodland-wizards": {"wandering": ["next_phase"], "contest": ["next_phase"],
                         "boost": ["boost", "pass_boost", "next_boost_round"],
                         "scoring": ["enter_total", "enter_total", "settle_round"],
                         "scoring settled": ["score_creature", "score_creature", "next_phase", "finish"],
                         "cleanup": ["next_round", "next_phase"]},
    "explorers-of-the-woodlands": {"growth": ["place_tile", "place_tile", "start_adventure"],
                                   "adventure": ["end_turn", "end_turn", "end_round", "reveal_boss",
                                                 "threat_up", "set_hp", "first_aid"]},
    "mysterious-forest": {"setup": ["tick", "change_setup", "start_scouting"], "scouting": ["done_looking"],
                          "packing": ["pack", "pack", "change_roll"],
                          "expedition": ["cross", "cross", "wanderer", "use_loki", "return_loki",
                                         "use_token", "return_token", "lay_guess", "beat_queen", "fail"]},
}
SEATS = [None, 0, 1, 2, 3, -1, "0", True, 1.0, [0]]

ACCEPTED = {}  # accepted steps by action, to show how far the sequences got
tried = {"steps": 0, "accepted": 0, "refused": 0, "undos": 0, "back_to_start": 0, "examples": 0,
         "deepest_round": 0}


@pytest.fixture(scope="module")
def fuzz_app(tmp_path_factory):
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path_factory.mktemp("fuzz") / "fuzz.sqlite"),
                      "SECRET_KEY": "test-key", "LAN_ADDRESS": "192.168.1.20",
                      "CODE_GUESS_LIMIT": "100000 per minute"})
    limiter.reset()
    return app


def valid_value(param, n_players):
    """A value inside the declared range: the game gets to make moves, not only refuse."""
    if param.kind == "seat":
        return st.integers(0, n_players - 1)
    if param.kind == "int":
        return st.integers(param.min if param.min is not None else -5, param.max if param.max is not None else 50)
    if param.kind == "choice":
        return st.sampled_from(param.choices)
    if param.kind == "bool":
        return st.booleans()
    return st.text(alphabet="abc XYZ", max_size=8)


def bad_value(param):
    """Out of range or of the wrong type."""
    options = [GARBAGE]
    if param.min is not None:
        options.append(st.integers(param.min - 1000, param.min - 1))
    if param.max is not None:
        options.append(st.integers(param.max + 1, param.max + 1000))
    return st.one_of(*options)


def useful_players(view):
    """The players a Woodland Wizards step is waiting for, if any."""
    if view.get("pending_creatures"):
        return view["pending_creatures"]
    if view.get("phase") == "scoring" and not view.get("settled"):
        return [seat for seat, total in enumerate(view["totals"]) if total is None]
    return view.get("waiting_for_boosts") or []


def draw_params(data, rng, spec, view, n_players, hostile):
    if spec is None or (hostile and rng.random() < 0.3):
        # Not an object at all, or a bag of unknown keys.
        return data.draw(st.one_of(GARBAGE, st.dictionaries(st.text(max_size=5), GARBAGE, max_size=3)))
    params = {}
    for param in spec.params:
        roll = rng.random()
        if roll < 0.04:
            continue  # missing
        if roll < (0.5 if hostile else 0.1):
            params[param.name] = data.draw(bad_value(param))
        elif param.name == "decision" and roll < 0.9:
            params[param.name] = view.get("decision")  # the card waiting for picks
        elif param.name == timers.STAMP and roll < 0.9:
            params[param.name] = view.get("clock_stamp")  # the clock state the page shows
        elif param.name == "card" and roll < 0.9:
            params[param.name] = view.get("current_card")  # the Path card in play
        elif param.kind == "seat" and roll < 0.7 and useful_players(view):
            params[param.name] = data.draw(st.sampled_from(useful_players(view)))
        else:
            params[param.name] = data.draw(valid_value(param, n_players))
    if rng.random() < 0.1:
        params[data.draw(st.text(max_size=5))] = data.draw(GARBAGE)
    return params


def check_invariants(game_id, state):
    if game_id == "wicked-forest":
        assert state["draw"] + state["discard"] == wicked_forest.PILE_CARDS
        assert 0 <= state["draw"] and 0 <= state["discard"]
        face_down = wicked_forest.FOREST_SIZE - len(state["cards"])
        assert face_down >= 0 and face_down + len(state["cards"]) == wicked_forest.FOREST_SIZE
        returned = {entry["seat"] for entry in state["returns"]}
        assert not returned & set(state["eliminated"]), "a player both eliminated and returned"
        assert not set(state["in_forest"]) & (returned | set(state["eliminated"]))
    elif game_id == "woodland-wizards":
        phoenixes = sum(card["phoenix"] for board in state["boards"] for card in board["cards"])
        assert phoenixes <= 1, "more than one Golden Phoenix"
        assert 1 <= state["round"] <= 4
    elif game_id == "explorers-of-the-woodlands":
        for hero in state["heroes"]:
            assert 0 <= hero["hp"] <= explorers_of_the_woodlands.MAX_HP
            assert 0 <= hero["orbs"] <= explorers_of_the_woodlands.MAX_ORBS
            assert hero["hp"] > 0 or not (hero["poison"] or hero["thorns"]), "knocked down with a marker"
        assert state["stack"] + explorers_of_the_woodlands.tiles_placed(state) == state["stack_total"]
        boss = state["boss"]
        assert not boss["track"] or boss["threat"] <= boss["track"]
        assert (state["phase"] == "over") == (state["result"] is not None)
    elif game_id == "mysterious-forest":
        final = len(mysterious_forest.path_kinds(state["level"])) - 1
        assert 0 <= state["jonas"] <= final
        assert 0 <= state["scouted"] <= final
        assert 0 <= state["wanderer_tokens"] <= mysterious_forest.WANDERER_TOKENS
        assert mysterious_forest.backpack_filled(state) <= state["backpack_size"]
        assert mysterious_forest.loki_in_backpack(state) >= 0
        assert mysterious_forest.loki_packed(state) <= mysterious_forest.LOKI_TOKENS
        assert (state["phase"] == "over") == (state["result"] is not None)


class Table:
    """The test's own look at the database, beside the app's."""

    def __init__(self, app, code):
        self.conn = store.connect(app.config["DATABASE"])
        self.code = code

    def row(self):
        return store.get_table(self.conn, self.code)

    def live(self):
        return store.live_actions(self.conn, self.row().id)

    def check_fold(self, game):
        row = self.row()
        folded = tables.fold(game, row.players, row.options, self.live())
        assert row.snapshot == folded, "the snapshot is not the fold of the live log"
        return row


def run_sequence(app, game_id, data):
    game = GAMES[game_id]
    n = len(PLAYERS)
    host, p0, rest, stranger = (app.test_client() for _ in range(4))
    resp = host.post("/api/tables", json={"game": game_id, "players": PLAYERS,
                                          "options": OPTIONS[game_id]})
    assert resp.status_code == 201
    code = resp.get_json()["code"]
    p0.post(f"/api/tables/{code}/seats/0")
    for seat in range(1, n):
        rest.post(f"/api/tables/{code}/seats/{seat}")  # one phone passed around the others
    phones = [p0, rest, stranger, host]
    table = Table(app, code)
    start_view = host.get(f"/api/tables/{code}").get_json()["view"]
    start_state = table.row().snapshot
    used_ids = ["r0"]
    # Hypothesis leans to the ends of every range; the odds of each kind of step come from
    # a seeded generator instead, while the values themselves stay Hypothesis's.
    rng = data.draw(st.randoms(use_true_random=True), label="odds")

    for _ in range(data.draw(st.integers(1, 120), label="steps")):
        before = table.row()
        live_before = len(table.live())
        view = {**game.view(before.snapshot, None), "clock_stamp": timers.stamp(before.snapshot.get("_clock"))}
        # Most steps come from a seated phone with the version it saw, so the game moves on;
        # the others are hostile in every field at once.
        hostile = rng.random() < 0.25
        if hostile:
            phone = data.draw(st.sampled_from(phones))
            version = data.draw(st.sampled_from([before.version, before.version - 1, before.version + 1,
                                                 None, "x", True, 2.5]))
            seat = data.draw(st.sampled_from(SEATS))
            name = data.draw(st.sampled_from(list(tables.all_actions(game)) + UNKNOWN_ACTIONS))
        else:
            phone = data.draw(st.sampled_from([p0, rest]))
            stale = rng.random() < 0.05
            version = before.version - 1 if stale else before.version
            seat = data.draw(st.sampled_from([None, 0] if phone is p0 else [None] + list(range(1, n))))
            phase = f"{view.get('phase')}{' settled' if view.get('settled') else ''}"
            fitting = PROGRESS.get(game_id, {}).get(phase)
            if fitting and rng.random() < 0.7:
                name = data.draw(st.sampled_from(fitting))
            else:
                name = data.draw(st.sampled_from(list(tables.all_actions(game))))
        request_id = rng.choice([None] * 6 + ["fresh"] * 3 + ["again"])
        if request_id == "fresh":
            request_id = f"r{len(used_ids)}"
            used_ids.append(request_id)
        elif request_id == "again":
            request_id = data.draw(st.sampled_from(used_ids))
        if rng.random() < (0.2 if hostile else 0.03):
            tried["undos"] += 1
            resp = phone.post(f"/api/tables/{code}/undo", json={"version": version, "request_id": request_id})
            change = -1
        else:
            spec = tables.all_actions(game).get(name) if isinstance(name, str) else None
            body = {"action": name, "params": draw_params(data, rng, spec, view, n, hostile), "version": version,
                    "seat": seat, "request_id": request_id}
            resp = phone.post(f"/api/tables/{code}/actions", json=body)
            change = 1
        tried["steps"] += 1
        assert resp.status_code < 500, resp.get_data(as_text=True)
        after = table.check_fold(game)
        check_invariants(game_id, after.snapshot)
        tried["deepest_round"] = max(tried["deepest_round"], after.snapshot.get("round", 0))
        answer = resp.get_json()
        if resp.status_code != 200 or answer.get("repeated"):
            tried["refused"] += 1
            assert "error" in answer or answer.get("repeated")
            assert after.version == before.version and after.snapshot == before.snapshot
            if "view" in answer:
                assert answer["version"] == before.version
        else:
            tried["accepted"] += 1
            key = body["action"] if change == 1 else "undo"
            ACCEPTED[key] = ACCEPTED.get(key, 0) + 1
            assert after.version == before.version + 1
            assert answer["version"] == after.version
            if change == 1:
                live = table.live()
                assert live[-1].name == body["action"]
                # A change of mind, or a decision ended unseen, wipes unrevealed picks from the log.
                wiped = live_before + 1 - len(live)
                assert wiped >= 0
                if wiped:
                    assert any(game.secret_open(before.snapshot, s) for s in range(n))
            else:
                # Undoing the pick that revealed a round takes back the picks it revealed.
                taken_back = live_before - len(table.live())
                assert taken_back >= 1
                if taken_back > 1:
                    assert not any(game.secret_open(after.snapshot, s) for s in range(n))

    # Walk back to the start. A pick still secret stops the walk: only its owner may change it.
    for _ in range(len(table.live()) + 1):
        row = table.row()
        resp = p0.post(f"/api/tables/{code}/undo", json={"version": row.version})
        if resp.status_code != 200:
            break
        table.check_fold(game)
    error = resp.get_json()["error"]
    if "Nothing to undo" in error:
        assert host.get(f"/api/tables/{code}").get_json()["view"] == start_view
        assert table.row().snapshot == start_state
        tried["back_to_start"] += 1
    else:
        assert "stays secret" in error, error
        last = table.live()[-1]
        assert game.ACTIONS[last.name].secret and game.secret_open(table.row().snapshot, last.seat)
    tried["examples"] += 1
    table.conn.close()


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_random_action_sequences(fuzz_app, game_id):
    tried["deepest_round"] = 0
    counts_before = dict(tried)

    # No shrinking: on these long sequences it runs for minutes; the failing steps print anyway.
    @settings(max_examples=25, deadline=None, derandomize=True, database=None,
              phases=[Phase.explicit, Phase.generate],
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(data=st.data())
    def sequences(data):
        run_sequence(fuzz_app, game_id, data)

    sequences()
    done = {k: tried[k] - counts_before[k] for k in tried}
    print(f"\n[{game_id}] {done['steps']} inputs tried in {done['examples']} sequences: "
          f"{done['accepted']} accepted, {done['refused']} refused, {done['undos']} undos; "
          f"{done['back_to_start']} sequences undone back to the start; "
          f"deepest round {tried['deepest_round']}")
    print(f"  accepted: {dict(sorted(ACCEPTED.items()))}")
    ACCEPTED.clear()
    assert done["accepted"] > 0 and done["refused"] > 0
