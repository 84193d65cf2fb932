"""Small helpers for driving the app like a phone does."""

import re

from companion import timers
from companion.games import get_game


def create_tiny(client, players=("Ana", "Ben", "Cara")):
    resp = client.post("/api/tables", json={"game": "tiny", "players": list(players), "options": {}})
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()["code"]


def take(client, code, seat):
    resp = client.post(f"/api/tables/{code}/seats/{seat}")
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()


def version_of(client, code):
    return client.get(f"/api/tables/{code}").get_json()["version"]


def act(client, code, action, params=None, version=None, seat=None, request_id=None):
    """Post an action; the turn or step it ends is named from the view, as a phone's form does."""
    table = client.get(f"/api/tables/{code}").get_json()
    body = {"action": action, "params": with_step(table, action, params),
            "version": table["version"] if version is None else version}
    if seat is not None:
        body["seat"] = seat
    if request_id is not None:
        body["request_id"] = request_id
    return client.post(f"/api/tables/{code}/actions", json=body)


def with_step(table, action, params):
    """The params with the turn or step the action ends named from the table's JSON view."""
    params = {} if params is None else params
    if not isinstance(params, dict):
        return params  # malformed on purpose: sent as it is
    params = dict(params)
    if action in timers.ACTIONS and timers.STAMP not in params:
        params[timers.STAMP] = table.get("clock", {}).get("stamp")  # as the page's hidden field
        return params
    game = get_game(table.get("game"))
    spec = game.ACTIONS.get(action) if game else None
    steps = table.get("view", {}).get("steps", {})
    if spec and spec.step and spec.step not in params and action in steps:
        params[spec.step] = steps[action]
    return params


def hx_post(client, url, data):
    return client.post(url, data=data, headers={"HX-Request": "true"})


def shown_version(html):
    """The version a view shows (`data-version`): the page sends it with each form."""
    return re.search(r'data-version="(\d+)"', html).group(1)


def hidden(html, name):
    """The value of the first hidden input called `name` in a page."""
    match = re.search(rf'name="{name}" value="([^"]*)"', html)
    return match.group(1) if match else None


def name_step(game, state, action, params):
    """Name the turn or step an action ends, from the state, as a phone's hidden field does.

    A value given explicitly (a stale one, in the tests of the refusal) is kept.
    """
    if action in timers.ACTIONS and timers.STAMP not in params:
        return {**params, timers.STAMP: timers.stamp(state.get("_clock"))}
    spec = game.ACTIONS.get(action)
    if spec is None or not spec.step or spec.step in params:
        return params
    return {**params, spec.step: game.step_values(state).get(action)}


def toast(resp):
    """The notice an htmx answer asks the page to show as a toast, or None."""
    import json

    trigger = resp.headers.get("HX-Trigger")
    return json.loads(trigger)["forest-notice"]["message"] if trigger else None


def kept_in_place(resp):
    """An htmx answer that changes nothing on the screen (a refused tap)."""
    return resp.status_code == 200 and resp.headers.get("HX-Reswap") == "none"
