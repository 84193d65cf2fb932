"""Small helpers for driving the app like a phone does."""

import re


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
    body = {"action": action, "params": params or {},
            "version": version_of(client, code) if version is None else version}
    if seat is not None:
        body["seat"] = seat
    if request_id:
        body["request_id"] = request_id
    return client.post(f"/api/tables/{code}/actions", json=body)


def hx_post(client, url, data):
    return client.post(url, data=data, headers={"HX-Request": "true"})


def hidden(html, name):
    """The value of the first hidden input called `name` in a page."""
    match = re.search(rf'name="{name}" value="([^"]*)"', html)
    return match.group(1) if match else None
