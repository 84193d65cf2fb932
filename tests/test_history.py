"""The game history: recording, stats, merges, rematch, abandoned tables, export and import."""

from __future__ import annotations

import csv
import io
import json
import random
import re

import pytest

from companion import create_app, history, store, tables
from companion.db import get_db
from companion.games import GAMES, register
from companion.games.words import from_data

from . import tiny_coop
from .helpers import create_tiny, take
from .history_fixture import api_act, play_woodland_wizards, stats_export

HOUR = 3600.0


@pytest.fixture
def coop():
    register(tiny_coop)
    yield tiny_coop
    GAMES.pop(tiny_coop.ID, None)


def import_json(client, data):
    body = json.dumps(data).encode() if not isinstance(data, bytes) else data
    return client.post("/api/history/import", data=body, content_type="application/json")


def export(client) -> dict:
    resp = client.get("/history/export.json")
    assert resp.status_code == 200
    return json.loads(resp.data)


def history_ids(client, **query) -> list[int]:
    return [g["id"] for g in client.get("/api/history", query_string=query).get_json()["games"]]


def person(stats, name):
    return next(p for p in stats["people"] if p["name"].casefold() == name.casefold())


def game_row(p, game):
    return next(g for g in p["games"] if g["game"] == game)


# ----------------------------------------------------------------- stats


def test_stats_match_hand_computed_figures(client):
    assert import_json(client, stats_export()).get_json() == {"added": 7, "skipped": 0, "merges": 0}
    stats = client.get("/api/history/stats").get_json()
    # The unfinished game g does not count: 6 finished games.
    assert stats["games"] == 6
    anna = person(stats, "Anna")
    # Anna/anna/ANNA match by case: games a, b, d, e, f; wins a, d, f.
    assert (anna["played"], anna["wins"], anna["win_rate"]) == (5, 3, 60)
    assert set(anna["spellings"]) == {"anna", "Anna", "ANNA"}
    wicked = game_row(anna, "wicked-forest")
    assert (wicked["played"], wicked["wins"], wicked["win_rate"], wicked["average"], wicked["best"]) == (2, 1, 50, 24.0, 30)
    explorers = game_row(anna, "explorers")
    assert (explorers["played"], explorers["wins"], explorers["win_rate"], explorers["average"]) == (3, 2, 67, None)
    ana = person(stats, "Ana")
    assert (ana["played"], ana["wins"]) == (1, 1)
    ben = person(stats, "Ben")
    # Ben: a, b, c, d, e, f; wins b, d, f.
    assert (ben["played"], ben["wins"], ben["win_rate"]) == (6, 3, 50)
    ben_wicked = game_row(ben, "wicked-forest")
    assert (ben_wicked["average"], ben_wicked["best"]) == (23.5, 25)
    # Team games per level: Easy won 1 of 2, Hard won 1 of 1.
    assert [(c["level"], c["played"], c["won"], c["win_rate"]) for c in stats["coop"]] == [
        ("Easy", 2, 1, 50), ("Hard", 1, 1, 100)]
    # The people are ordered by wins, then games: Ben 3 of 6, Anna 3 of 5, Ana 1, cara 0.
    assert [p["name"] for p in stats["people"]][:2] == ["Ben", "Anna"]


def test_merge_adds_up_and_undo_restores(client):
    import_json(client, stats_export())
    resp = client.post("/history/names/merge", data={"alias": "Ana", "person": "Anna"})
    assert resp.status_code == 303
    stats = client.get("/api/history/stats").get_json()
    anna = person(stats, "Anna")
    assert (anna["played"], anna["wins"], anna["win_rate"]) == (6, 4, 67)
    assert game_row(anna, "woodland-wizards")["best"] == 40
    assert not any(p["name"] == "Ana" for p in stats["people"])
    # The merge is shown, and the player filter finds Ana's game under Anna.
    page = client.get("/history/stats").get_data(as_text=True)
    assert "“Ana” counts as <b>Anna</b>" in page
    assert len(history_ids(client, player="anna")) == 7
    # Merging back the other way would make a loop: refused, nothing changed.
    client.post("/history/names/merge", data={"alias": "Anna", "person": "Ana"})
    assert "merge the other way round" in client.get("/history/stats").get_data(as_text=True)
    assert person(client.get("/api/history/stats").get_json(), "Anna")["played"] == 6
    # Undo: Ana is her own person again.
    client.post("/history/names/undo", data={"alias": "Ana"})
    stats = client.get("/api/history/stats").get_json()
    assert person(stats, "Anna")["played"] == 5
    assert person(stats, "Ana")["played"] == 1


def test_merge_refusals_are_clear(app, client):
    import_json(client, stats_export())
    with app.app_context():
        conn = get_db()
        with pytest.raises(history.HistoryError, match="whatever their capitals"):
            history.merge_names(conn, "anna", "ANNA", 0)
        with pytest.raises(history.HistoryError, match="type a name"):
            history.merge_names(conn, "  ", "Ben", 0)
        history.merge_names(conn, "Ana", "Anna", 0)
        with pytest.raises(history.HistoryError, match="undo that merge first"):
            history.merge_names(conn, "ana", "Ben", 0)
        with pytest.raises(history.HistoryError, match="does not exist"):
            history.undo_merge(conn, "Zed")


def test_filters_by_game_and_player_newest_first(client):
    import_json(client, stats_export())
    everything = client.get("/api/history").get_json()["games"]
    assert [g["uid"] for g in everything] == ["g", "f", "e", "d", "c", "b", "a"]
    wicked = client.get("/api/history", query_string={"game": "wicked-forest"}).get_json()["games"]
    assert [g["uid"] for g in wicked] == ["g", "b", "a"]
    cara = client.get("/api/history", query_string={"player": "CARA"}).get_json()["games"]
    assert [g["uid"] for g in cara] == ["a"]
    page = client.get("/history", query_string={"game": "wicked-forest", "player": "Ben"}).get_data(as_text=True)
    assert page.count('class="history-item') == 3
    assert "Unfinished" in page


# ----------------------------------------------------------------- recording real tables


def test_finished_table_is_recorded_with_rounds_scores_and_duration(client):
    code = play_woodland_wizards(client)
    (played_id,) = history_ids(client)
    record = client.get(f"/api/history/{played_id}").get_json()
    assert record["status"] == "finished"
    assert record["outcome"]["score_by_round"] == [[4, 0], [4, 6], [9, 6], [9, 8]]
    assert [(s["name"], s["score"], s["place"], bool(s["winner"])) for s in record["ranking"]] == [
        ("Ana", 9, 1, True), ("Ben", 8, 2, False)]
    assert record["duration"] is not None and record["duration"] >= 0
    # Each action knows its round: the four rounds appear in order.
    assert sorted({line["round"] for line in record["log"]}) == [1, 2, 3, 4]
    page = client.get(f"/history/{played_id}").get_data(as_text=True)
    assert page.count("<summary>Round ") == 4
    assert '<svg class="chart"' in page and "Score after each round" in page
    assert " style=" not in page  # the page's CSP allows no inline style
    # The finished table links to its history entry.
    resp = client.get(f"/history/table/{code}")
    assert resp.status_code == 302 and resp.headers["Location"].endswith(f"/history/{played_id}")
    assert "In the history" in client.get(f"/t/{code}").get_data(as_text=True)


def test_the_ending_says_one_sentence_on_the_table_in_the_history_and_the_exports(client):
    code = play_woodland_wizards(client)
    (played_id,) = history_ids(client)
    sentence = client.get(f"/api/history/{played_id}").get_json()["outcome"]["summary"]
    assert sentence.startswith("Ana wins")
    # The why too (the lead, or the tie-break that decided it), not only the winner.
    assert sentence == "Ana wins with 9 points. 1 point ahead of Ben (8)."
    assert sentence == client.get(f"/api/tables/{code}").get_json()["view"]["result"]["sentence"]
    escaped = sentence.replace("'", "&#39;")
    table = client.get(f"/t/{code}").get_data(as_text=True)
    # Said once on the table: the board's first card gives the verdict and its why, and the
    # card under the board offers the rematch without repeating them.
    why = "1 point ahead of Ben (8)."
    assert table.count(why) == 1 and table.index(why) < table.index("Rematch")
    assert 'class="ending"' not in table
    assert escaped in client.get(f"/history/{played_id}").get_data(as_text=True)
    # (the JSON export keeps it as data, said again in each reader's language)
    assert from_data(export(client)["games"][0]["outcome"]["summary"]) == sentence
    rows = list(csv.DictReader(io.StringIO(client.get("/history/export.csv").get_data(as_text=True))))
    assert {row["summary"] for row in rows} == {sentence}


def test_a_cooperative_ending_says_the_same_sentence_in_the_history(client, coop):
    resp = client.post("/api/tables", json={"game": "tiny-coop", "players": ["Ana", "Ben"],
                                            "options": {"level": "Easy"}})
    code = resp.get_json()["code"]
    take(client, code, 0)
    api_act(client, code, "advance")
    api_act(client, code, "end", {"won": True})
    (played_id,) = history_ids(client)
    sentence = client.get(f"/api/history/{played_id}").get_json()["outcome"]["summary"]
    assert sentence == "The team beat the forest in round 2."
    assert sentence in client.get(f"/history/{played_id}").get_data(as_text=True)
    assert sentence in client.get(f"/t/{code}").get_data(as_text=True)


def test_correction_after_the_end_rerecords_and_reopening_removes(client):
    code = play_woodland_wizards(client)
    (played_id,) = history_ids(client)
    uid = client.get(f"/api/history/{played_id}").get_json()["uid"]
    api_act(client, code, "set_adjustment", {"player": 1, "amount": 3})
    record = client.get(f"/api/history/{history_ids(client)[0]}").get_json()
    assert record["uid"] == uid
    assert [s["score"] for s in sorted(record["seats"], key=lambda s: s["seat"])] == [9, 11]
    # Undo back past the end: the game is going on again, so it leaves the history.
    for _ in range(2):
        version = client.get(f"/api/tables/{code}").get_json()["version"]
        assert client.post(f"/api/tables/{code}/undo", json={"version": version}).status_code == 200
    assert history_ids(client) == []


def test_cooperative_game_end_to_end(client, coop):
    for level, won in (("Easy", True), ("Easy", False), ("Hard", True)):
        resp = client.post("/api/tables", json={"game": "tiny-coop", "players": ["Ana", "Ben"],
                                                "options": {"level": level}})
        code = resp.get_json()["code"]
        take(client, code, 0)
        api_act(client, code, "advance")
        api_act(client, code, "end", {"won": won})
    stats = client.get("/api/history/stats").get_json()
    assert [(c["level"], c["played"], c["won"], c["win_rate"]) for c in stats["coop"]] == [
        ("Easy", 2, 1, 50), ("Hard", 1, 1, 100)]
    assert (person(stats, "Ben")["played"], person(stats, "Ben")["wins"]) == (3, 2)
    page = client.get("/history").get_data(as_text=True)
    assert page.count("The team won") == 2 and page.count("The forest won") == 1


def test_game_without_outcome_is_listed_without_scores(client, coop, monkeypatch):
    monkeypatch.delattr(tiny_coop, "outcome")
    code = client.post("/api/tables", json={"game": "tiny-coop", "players": ["Ana"], "options": {}}).get_json()["code"]
    take(client, code, 0)
    api_act(client, code, "end", {"won": True})
    (played_id,) = history_ids(client)
    page = client.get(f"/history/{played_id}").get_data(as_text=True)
    assert "does not report scores" in page
    assert client.get("/api/history/stats").get_json()["games"] == 0


# ----------------------------------------------------------------- abandoned tables


def test_abandoned_table_is_archived_after_the_configured_time(app, client, monkeypatch):
    app.config["ABANDON_AFTER_HOURS"] = 5
    code = create_tiny(client)
    take(client, code, 0)
    api_act(client, code, "add", {"amount": 2})
    empty = create_tiny(client, ("Dan",))  # never played: not a game
    with app.app_context():
        last = store.get_table(get_db(), code).updated_at
    monkeypatch.setattr(history, "now", lambda: last + 5 * HOUR - 1)
    assert history_ids(client) == []
    monkeypatch.setattr(history, "now", lambda: last + 5 * HOUR + 1)
    client.get("/")  # the home page archives too
    games = client.get("/api/history").get_json()["games"]
    assert [(g["code"], g["status"]) for g in games] == [(code, "unfinished")]
    assert empty not in [g["code"] for g in games]
    # Archived, the table gives its code back for a new table; unfinished games never count
    # in the stats.
    assert client.get(f"/api/tables/{code}").status_code == 404
    assert client.get("/api/history/stats").get_json()["games"] == 0
    page = client.get(f"/history/{games[0]['id']}").get_data(as_text=True)
    assert "Unfinished" in page and "Ana added 2." in page


def test_archive_command_uses_the_same_rule(app, client, monkeypatch):
    code = create_tiny(client)
    take(client, code, 0)
    api_act(client, code, "add", {"amount": 1})
    monkeypatch.setattr(history, "now", lambda: 4e9)
    result = app.test_cli_runner().invoke(args=["archive-tables"])
    assert "archived 1 abandoned" in result.output
    assert [g["code"] for g in client.get("/api/history").get_json()["games"]] == [code]


def _archived_mid_choice(tmp_path, pick, monkeypatch):
    """A Wicked Forest table abandoned while Ana's pick is still secret: what the history shows."""
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / f"{pick}.sqlite"), "SECRET_KEY": "k",
                      "CODE_GUESS_LIMIT": "100000 per minute"})
    client = app.test_client()
    code = client.post("/api/tables", json={"game": "wicked-forest", "players": ["Ana", "Ben"],
                                            "options": {"first_leader": "0"}}).get_json()["code"]
    take(client, code, 0)
    api_act(client, code, "reveal", {"flowers": 3, "witch": False})
    api_act(client, code, "choose", {"choice": pick, "decision": 1}, seat=0)
    monkeypatch.setattr(history, "now", lambda: 4e9)
    (played_id,) = history_ids(client)
    seen = [client.get(url).get_data(as_text=True)
            for url in ("/history/export.json", "/history/export.csv", f"/history/{played_id}",
                        f"/api/history/{played_id}", "/history", "/history/stats")]
    # Times, codes and ids differ between any two runs; the picks must not.
    return [re.sub(r"[0-9a-f]{32}|\b[0-9][0-9.:TZ-]*\b|" + code, "#", text) for text in seen]


def test_archived_history_reads_the_same_whatever_the_secret_pick(tmp_path, monkeypatch):
    assert _archived_mid_choice(tmp_path, "stay", monkeypatch) == _archived_mid_choice(tmp_path, "return", monkeypatch)


def test_unrevealed_secret_pick_never_leaves_an_archived_table(app, client, monkeypatch):
    resp = client.post("/api/tables", json={"game": "wicked-forest", "players": ["Ana", "Ben"],
                                            "options": {"first_leader": "0"}})
    code = resp.get_json()["code"]
    take(client, code, 0)
    take(client, code, 1)
    api_act(client, code, "reveal", {"flowers": 3, "witch": False})
    api_act(client, code, "choose", {"choice": "return", "decision": 1}, seat=0)
    monkeypatch.setattr(history, "now", lambda: 4e9)
    data = export(client)
    (game,) = data["games"]
    choose = [line for line in game["log"] if line["action"] == "choose"]
    assert choose and all(line["params"] is None for line in choose)
    assert "return" not in json.dumps(choose).lower()
    csv_text = client.get("/history/export.csv").get_data(as_text=True)
    assert "return" not in csv_text.lower()


# ----------------------------------------------------------------- rematch


class FixedRandom(random.Random):
    """A random source whose randrange gives a set seat (codes still vary)."""

    seat = 0

    def randrange(self, *args, **kwargs):
        return FixedRandom.seat


def test_rematch_same_players_options_drawn_again_and_tapper_is_host(client, make_client, monkeypatch):
    monkeypatch.setattr(tables.random, "SystemRandom", FixedRandom)
    FixedRandom.seat = 0
    resp = client.post("/api/tables", json={"game": "wicked-forest", "players": ["Ana", "Ben", "Cara"],
                                            "options": {"first_leader": "random", "inventory": "1"}})
    code = resp.get_json()["code"]
    take(client, code, 0)
    assert resp.get_json()["view"]["leader"] == 0
    api_act(client, code, "reveal", {"flowers": 1, "witch": False})
    api_act(client, code, "choose", {"choice": "return", "decision": 1}, seat=0)
    for seat in (1, 2):
        take(client, code, seat)
        api_act(client, code, "choose", {"choice": "return", "decision": 1}, seat=seat)
    api_act(client, code, "finish")
    # Another phone taps Rematch on the result screen.
    other = make_client()
    FixedRandom.seat = 2
    resp = other.post(f"/t/{code}/rematch")
    assert resp.status_code == 303
    new_code = re.search(r"/join/([A-Z0-9]+)", resp.headers["Location"]).group(1)
    assert new_code != code
    fresh = other.get(f"/api/tables/{new_code}").get_json()
    assert fresh["players"] == ["Ana", "Ben", "Cara"]
    assert fresh["version"] == 0
    assert fresh["view"]["leader"] == 2  # the random first leader was drawn again
    assert fresh["view"]["inventory"] is True
    # The tapping phone is the new table's host: it may free a seat, the first phone may not.
    take(client, new_code, 1)
    assert client.delete(f"/api/tables/{new_code}/seats/1").status_code == 403
    assert other.delete(f"/api/tables/{new_code}/seats/1").status_code == 200


def test_rematch_refused_before_the_end_and_for_unknown_games(client):
    code = create_tiny(client)
    take(client, code, 0)
    resp = client.post(f"/t/{code}/rematch")
    assert resp.status_code == 303 and resp.headers["Location"].endswith(f"/t/{code}")
    data = stats_export()
    import_json(client, data)
    explorers = [g["id"] for g in client.get("/api/history", query_string={"game": "explorers"}).get_json()["games"]]
    resp = client.post(f"/history/{explorers[0]}/rematch")
    assert resp.status_code == 303
    assert "not installed on this server" in client.get(resp.headers["Location"]).get_data(as_text=True)
    assert client.post("/history/99999/rematch").status_code == 404


# ----------------------------------------------------------------- export and import


def test_csv_has_the_documented_columns_one_row_per_player(client):
    import_json(client, stats_export())
    client.post("/history/names/merge", data={"alias": "Ana", "person": "Anna"})
    resp = client.get("/history/export.csv")
    assert resp.mimetype == "text/csv"
    assert "attachment" in resp.headers["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(resp.get_data(as_text=True))))
    assert tuple(rows[0].keys()) == history.CSV_COLUMNS
    assert len(rows) == 3 + 2 + 2 + 2 + 2 + 2 + 2
    first = rows[0]
    assert first == {"game_uid": "a", "game": "wicked-forest", "game_name": "The Wicked Forest",
                     "status": "finished", "started_at": "2023-11-15T22:13:20Z",
                     "ended_at": "2023-11-15T22:43:20Z", "duration_seconds": "1700", "rounds": "3",
                     "cooperative": "no", "team_won": "", "level": "", "seat": "1", "player": "Anna",
                     "person": "Anna", "score": "30", "place": "1", "winner": "yes", "summary": ""}
    ana = next(r for r in rows if r["player"] == "Ana")
    assert ana["person"] == "Anna"
    coop_row = next(r for r in rows if r["game_uid"] == "e")
    assert (coop_row["cooperative"], coop_row["team_won"], coop_row["level"]) == ("yes", "no", "Easy")
    unfinished = next(r for r in rows if r["game_uid"] == "g")
    assert (unfinished["status"], unfinished["winner"], unfinished["score"]) == ("unfinished", "", "")
    # Every documented column is named in docs/api.md.
    with open("docs/api.md", encoding="utf-8") as handle:
        docs = handle.read()
    assert all(f"`{column}`" in docs for column in history.CSV_COLUMNS)


def test_csv_cells_that_look_like_formulas_stay_text(client):
    data = stats_export()
    data["games"][0]["players"][2]["name"] = "=SUM(A1)"
    data["games"][0]["outcome"]["players"][2]["name"] = "=SUM(A1)"
    import_json(client, data)
    text = client.get("/history/export.csv").get_data(as_text=True)
    assert "'=SUM(A1)" in text


def test_json_round_trip_is_identical(client, tmp_path, coop):
    play_woodland_wizards(client)
    code = client.post("/api/tables", json={"game": "tiny-coop", "players": ["Ana", "Cara"],
                                            "options": {"level": "Hard"}}).get_json()["code"]
    take(client, code, 0)
    api_act(client, code, "end", {"won": True})
    import_json(client, stats_export())
    client.post("/history/names/merge", data={"alias": "Ana", "person": "Anna"})
    first = client.get("/history/export.json").get_data()

    other_app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "other.sqlite"),
                            "SECRET_KEY": "other", "CODE_GUESS_LIMIT": "100000 per minute"})
    other = other_app.test_client()
    assert export(other)["games"] == []
    resp = other.post("/history/import", data={"file": (io.BytesIO(first), "history.json")},
                      content_type="multipart/form-data")
    assert resp.status_code == 303
    assert "Imported 9 games" in other.get("/history").get_data(as_text=True)
    second = other.get("/history/export.json").get_data()
    assert second == first
    # The stats travel too: the merge came along.
    # Anna 5 as Anna, 1 as Ana in the fixture; Ana 2 at real tables.
    assert person(other.get("/api/history/stats").get_json(), "Anna")["played"] == 8
    # Importing again recognises every game and changes nothing.
    assert import_json(other, first).get_json() == {"added": 0, "skipped": 9, "merges": 0}
    assert other.get("/history/export.json").get_data() == first
    # The imported games are no tables here: no code of theirs opens a table.
    for game in json.loads(first)["games"]:
        assert other.get(f"/api/tables/{game['code']}").status_code == 404


def _valid():
    return stats_export()


def _bad_name(data):
    data["games"][1]["players"][0]["name"] = 5
    return data


def _nan(data):
    return json.dumps(data).replace('"duration": 1700.0', '"duration": NaN', 1).encode()


def _second_of_two_broken(data):
    data["games"][6]["log"][0]["seq"] = "one"
    return data


def _outcome_seat_out_of_range(data):
    data["games"][0]["outcome"]["players"][0]["seat"] = 7
    return data


def _coop_without_result(data):
    data["games"][3]["outcome"]["won"] = None
    return data


def _unfinished_with_result(data):
    data["games"][0]["status"] = "unfinished"
    return data


def _bad_uid(data):
    data["games"][0]["uid"] = "../../etc"
    return data


MALFORMED = [
    ("not json", b"{this is not json", "not valid JSON"),
    ("binary", b"\xff\xfe\x00\x00", "not a text file"),
    ("wrong format", b'{"format": "something else", "games": []}', "not a Forest Table history export"),
    ("wrong version", json.dumps(dict(_valid(), version=99)).encode(), "version 99"),
    ("a list", b"[1, 2, 3]", "not a Forest Table history export"),
    ("games not a list", json.dumps(dict(_valid(), games={"a": 1})).encode(), "games: a list is expected"),
    ("name not text", _bad_name(_valid()), "games[1].players[0].name: text is expected"),
    ("NaN", _nan(_valid()), "not a number"),
    ("broken last game", _second_of_two_broken(_valid()), "games[6].log[0].seq"),
    ("seat out of range", _outcome_seat_out_of_range(_valid()), "games[0].outcome.players[0].seat"),
    ("co-op without result", _coop_without_result(_valid()), "games[3].outcome.won"),
    ("unfinished with result", _unfinished_with_result(_valid()), "an unfinished game has no result"),
    ("odd uid", _bad_uid(_valid()), "games[0].uid: unexpected characters"),
    ("empty", b"", "Choose a history file"),
]


@pytest.mark.parametrize("label, body, message", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_import_is_refused_and_changes_nothing(client, label, body, message):
    play_woodland_wizards(client)
    client.post("/history/names/merge", data={"alias": "Ana", "person": "Anna"})
    before = client.get("/history/export.json").get_data()
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    resp = import_json(client, raw)
    assert resp.status_code == 400
    error = resp.get_json()["error"]
    assert message in error
    if raw:
        assert "Nothing was changed" in error
    page = client.post("/history/import", data={"file": (io.BytesIO(raw), "h.json")},
                       content_type="multipart/form-data")
    assert page.status_code == 400 and message.split(":")[0] in page.get_data(as_text=True)
    assert client.get("/history/export.json").get_data() == before


def test_import_is_bounded_to_five_megabytes(client):
    before = client.get("/history/export.json").get_data()
    big = b'{"format": "forest-table-history", "pad": "' + b"x" * (5 * 1024 * 1024) + b'"}'
    resp = client.post("/history/import", data={"file": (io.BytesIO(big), "h.json")},
                       content_type="multipart/form-data")
    assert resp.status_code in (400, 413)
    assert resp.status_code < 500
    # A file a little over the ordinary 64 KB limit is fine on this route.
    data = stats_export()
    data["games"][0]["log"] *= 800
    for seq, line in enumerate(data["games"][0]["log"]):
        line["seq"] = seq
    body = json.dumps(data).encode()
    assert 64 * 1024 < len(body) < 5 * 1024 * 1024
    assert import_json(client, body).get_json()["added"] == 7
    assert client.get("/history/export.json").get_data() != before
    # Everywhere else the 64 KB limit still holds.
    assert client.post("/api/tables", data=body, content_type="application/json").status_code == 413


def test_import_cannot_touch_live_tables(client):
    code = create_tiny(client)
    take(client, code, 0)
    api_act(client, code, "add", {"amount": 3})
    before = client.get(f"/api/tables/{code}").get_json()
    data = stats_export()
    for game in data["games"]:
        game["code"] = code
        game["table_id"] = 1
        game["seats"] = [{"seat": 0, "token_hash": "forged"}]
    assert import_json(client, data).get_json()["added"] == 7
    after = client.get(f"/api/tables/{code}").get_json()
    for key in ("version", "players", "seats", "my_seats", "view"):
        assert after[key] == before[key]
    assert client.get(f"/history/table/{code}").status_code == 302
    assert client.get(f"/history/table/{code}").headers["Location"].endswith("/history")


def test_history_writes_from_other_sites_are_refused(client):
    code = play_woodland_wizards(client)
    (played_id,) = history_ids(client)
    before = client.get("/history/export.json").get_data()
    evil = {"Origin": "http://evil.example"}
    attempts = [
        client.post("/history/names/merge", data={"alias": "Ana", "person": "Ben"}, headers=evil),
        client.post(f"/history/{played_id}/rematch", headers=evil),
        client.post(f"/t/{code}/rematch", headers=evil),
        client.post("/api/history/import", data=json.dumps(stats_export()), content_type="application/json",
                    headers=evil),
    ]
    assert [r.status_code for r in attempts] == [403] * 4
    assert client.get("/history/export.json").get_data() == before
    assert client.get("/api/history").get_json()["games"][0]["id"] == played_id
