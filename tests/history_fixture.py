"""A hand-made history export for the stats tests, and helpers to play games to the end."""

from __future__ import annotations

import copy

from .helpers import take, with_step

DAY = 86400.0
T0 = 1_700_000_000.0


def _game(uid, game, name, day, players, cooperative=False, won=None, level=None, status="finished"):
    outcome = None
    if status == "finished":
        outcome = {"cooperative": cooperative, "won": won, "level": level,
                   "players": [dict(p) for p in players], "rounds": 3,
                   "score_by_round": None}
    return {"uid": uid, "game": game, "game_name": name, "code": "ABCD", "status": status,
            "started_at": T0 + day * DAY, "ended_at": T0 + day * DAY + 1800, "duration": 1700.0,
            "options": {}, "asked_options": None, "players": [dict(p) for p in players],
            "outcome": outcome,
            "log": [{"seq": 1, "seat": 0, "action": "x", "params": {}, "text": "Something happened.", "events": [],
                     "at": T0 + day * DAY + 60, "round": 1}]}


def _p(seat, name, score=None, place=None, winner=False):
    return {"seat": seat, "name": name, "score": score, "place": place, "winner": winner}


# Anna plays as "Anna" and "anna" (same person by case) and once as "Ana" (a merge away).
STATS_EXPORT = {
    "format": "forest-table-history", "version": 1, "merges": [],
    "games": [
        _game("a", "wicked-forest", "The Wicked Forest", 1,
              [_p(0, "Anna", 30, 1, True), _p(1, "Ben", 25, 2), _p(2, "cara", 20, 3)]),
        _game("b", "wicked-forest", "The Wicked Forest", 2,
              [_p(0, "anna", 18, 2), _p(1, "Ben", 22, 1, True)]),
        _game("c", "woodland-wizards", "Woodland Wizards", 3,
              [_p(0, "Ana", 40, 1, True), _p(1, "Ben", 35, 2)]),
        _game("d", "explorers", "Explorers of the Woodlands", 4,
              [_p(0, "Anna", winner=True), _p(1, "Ben", winner=True)], True, True, "Easy"),
        _game("e", "explorers", "Explorers of the Woodlands", 5,
              [_p(0, "Anna"), _p(1, "Ben")], True, False, "Easy"),
        _game("f", "explorers", "Explorers of the Woodlands", 6,
              [_p(0, "ANNA", winner=True), _p(1, "Ben", winner=True)], True, True, "Hard"),
        _game("g", "wicked-forest", "The Wicked Forest", 7,
              [_p(0, "Anna"), _p(1, "Ben")], status="unfinished"),
    ],
}


def stats_export():
    return copy.deepcopy(STATS_EXPORT)


def api_act(client, code, action, params=None, seat=0):
    table = client.get(f"/api/tables/{code}").get_json()
    resp = client.post(f"/api/tables/{code}/actions",
                       json={"action": action, "params": with_step(table, action, params),
                             "version": table["version"], "seat": seat})
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()


def play_woodland_wizards(client, players=("Ana", "Ben")):
    """Four rounds to the end with one phone holding every seat; Ana wins 9 to 8."""
    resp = client.post("/api/tables", json={"game": "woodland-wizards", "players": list(players),
                                            "options": {"first_player": "0"}})
    code = resp.get_json()["code"]
    for seat in range(len(players)):
        take(client, code, seat)
    for number, (totals, value) in enumerate([([10, 5], 4), ([3, 9], 6), ([7, 2], 5), ([1, 8], 2)]):
        api_act(client, code, "set_phase", {"phase": "scoring"})
        for seat, total in enumerate(totals):
            api_act(client, code, "enter_total", {"player": seat, "total": total})
        view = api_act(client, code, "settle_round")["view"]
        scorer = view["scorers"][0]
        api_act(client, code, "score_creature", {"player": scorer, "value": value, "name": "", "phoenix": False})
        if number < 3:
            api_act(client, code, "next_round", {"round": number + 2})
        else:
            api_act(client, code, "finish")
    return code
