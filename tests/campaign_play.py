"""Drive an Explorers campaign through the JSON API, as a client of /api/campaigns does."""

import json

from companion import store
from companion.dialects import run_text

from .helpers import act

TWO_HEROES = {"name": "Winter", "players": ["Ana", "Ben"], "heroes": ["xylia", "klethor"],
              "first_player": 0, "thorns": "regular"}


def create_campaign(client, **changes):
    resp = client.post("/api/campaigns", json={**TWO_HEROES, **changes})
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()


def start_chapter(client, campaign_id):
    """Start the next chapter and sit at its first seat; return the table's code."""
    resp = client.post(f"/api/campaigns/{campaign_id}/chapters")
    assert resp.status_code == 201, resp.get_json()
    code = resp.get_json()["code"]
    assert client.post(f"/api/tables/{code}/seats/0").status_code == 201
    return code


def ok(resp):
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()


def win_chapter_1(client, code, plants=0):
    """Chapter 1 played to its victory: the ingredients, two potions, the ambush defeated."""
    for counter in ("mushroom_a", "mushroom_b", "mushroom_c", "vials"):
        ok(act(client, code, "quest", {"counter": counter, "value": 2}))
    ok(act(client, code, "set_orbs", {"hero": "xylia", "orbs": 4}))
    if plants:
        ok(act(client, code, "tally", {"kind": "plant", "count": plants}))
    ok(act(client, code, "concoct", {"hero": "xylia"}))
    ok(act(client, code, "concoct", {"hero": "xylia"}))
    ok(act(client, code, "quest", {"counter": "campfire_monsters", "value": 0}))
    assert client.get(f"/api/tables/{code}").get_json()["view"]["game_over"]


def lose_chapter_2(client, code):
    """Chapter 2 lost: the fourth Orb marker is lost."""
    ok(act(client, code, "quest", {"counter": "markers_lost", "value": 4}))
    assert client.get(f"/api/tables/{code}").get_json()["view"]["game_over"]


def end_table(app, code, outcome="won"):
    """A chapter table ended as its rules would end it, written straight into the database
    (for chapters whose play is long and tested with the rules)."""
    with app.app_context():
        from companion.db import get_db
        conn = get_db()
        table = store.get_table(conn, code)
        snapshot = dict(table.snapshot, phase="over",
                        result={"outcome": outcome, "reason": "Done.", "rounds": 3, "threat": None})
        with store.Transaction(conn):
            run_text(conn, "UPDATE game_table SET snapshot = :snapshot WHERE code = :code",
                     {"snapshot": json.dumps(snapshot), "code": code})


def set_campaign(app, campaign_id, **changes):
    with app.app_context():
        from companion.db import get_db
        conn = get_db()
        row = store.get_campaign(conn, campaign_id)
        with store.Transaction(conn):
            store.save_campaign(conn, campaign_id, {**row.state, **changes})


def count_rows(app, query):
    with app.app_context():
        from companion.db import get_db
        return get_db().execute(query).fetchone()[0]
