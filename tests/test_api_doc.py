"""Every example of docs/api.md outside its campaign section (which tests/test_api_doc_campaigns.py
runs), run against the app in the doc's order: each request as the doc writes it answers with
the status the doc gives (or a success), and every answer the doc shows, with or without its
request, has that shape: each field the doc shows is answered, with a value of the same kind
(objects and lists looked into; a refusal's `error` and `param` word for word). The doc's
`...` leaves fields out, and a list may be cut short, so the doc cannot drift from the app."""

import json
import re

from .campaign_play import ok
from .helpers import act, with_step
from .test_api_doc_campaigns import BASE, SECTION, parse_command

from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "api.md"
STAND_IN = "K7QM"  # the doc's table code, bound to the real one as the table is made


def blocks():
    """(heading, language, text) of every code block outside the campaign section, in order."""
    text = DOC.read_text()
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    text = text[:start] + text[end:]
    found, heading, last_end = [], None, -1
    for match in re.finditer(r"^#{2,3} ([^\n]+)$|^```(\w+)\n(.*?)```", text, re.M | re.S):
        if match.group(1):
            heading = match.group(1)
        else:
            # A JSON block right after a command is that command's answer.
            follows = text[last_end:match.start()].strip() == ""
            found.append((heading if not follows else f"{heading} (answer)", match.group(2),
                          match.group(3)))
            last_end = match.end()
    return found


def doc_json(text: str) -> list:
    """The answers a JSON block shows: one, or one a line; `...` stands for what is left out,
    a block may show one field (`"clock": {...}`), and a set of names (`{"uid", "game"}`) is
    an object whose fields the doc only names."""
    text = text.strip()
    if text.startswith('"'):
        text = "{" + text + "}"
    text = re.sub(r"\{\.\.\.\}", "{}", text)
    text = re.sub(r",\s*\.\.\.\s*(?=[}\]])", "", text)
    text = _named_fields(text)
    try:
        return [json.loads(text)]
    except json.JSONDecodeError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def _named_fields(text: str) -> str:
    """A string alone in an object (a name, with no value after it) becomes a field of any
    value: `{"uid", "game"}` reads `{"uid": "<any>", "game": "<any>"}`."""
    out, stack, i = [], [], 0
    while i < len(text):
        char = text[i]
        if char == '"':
            end = i + 1
            while text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            token = text[i:end + 1]
            rest = text[end + 1:].lstrip()
            before = "".join(out).rstrip()
            if stack and stack[-1] == "{" and before.endswith(("{", ",")) and rest[:1] in (",", "}"):
                token += ': "<any>"'
            out.append(token)
            i = end + 1
            continue
        if char in "{[":
            stack.append(char)
        elif char in "}]":
            stack.pop()
        out.append(char)
        i += 1
    return "".join(out)


def kind(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    return type(value).__name__


def same_shape(shown, actual, where="answer", exact=("error", "param")):
    """Every field the doc shows is answered, with a value of the same kind."""
    if shown == "<any>":
        return
    if isinstance(shown, dict):
        assert isinstance(actual, dict), f"{where}: an object is documented, {actual!r} answered"
        for key, value in shown.items():
            assert key in actual, f"{where}.{key} is documented but not answered"
            if key in exact:
                assert actual[key] == value, f"{where}.{key}: the doc says {value!r}, not {actual[key]!r}"
            else:
                same_shape(value, actual[key], f"{where}.{key}")
    elif isinstance(shown, list):
        assert isinstance(actual, list), f"{where}: a list is documented, {actual!r} answered"
        assert len(actual) >= min(len(shown), 1), f"{where}: the doc shows items, none answered"
        for i, value in enumerate(shown[:len(actual)]):
            same_shape(value, actual[i], f"{where}[{i}]")
    else:
        assert kind(shown) == kind(actual), (
            f"{where}: the doc shows {shown!r}, the app answers {actual!r}")


# ----------------------------------------------------------------- the story the doc tells


class Story:
    """Runs the doc's requests and makes what the answers shown alone need."""

    def __init__(self, client):
        self.client = client
        self.code = None
        self.last = None

    def send(self, method, url, body=None):
        resp = self.client.open(url, method=method, json=body, base_url=BASE,
                                headers={"Origin": BASE})
        return resp

    def run(self, command):
        command = command if "# " in command else command + "\n# 200\n"
        method, url, body, status = parse_command(command.replace("$T", self.code or STAND_IN))
        resp = self.send(method, url, body)
        answer = resp.get_json()
        if method == "POST" and url == "/api/tables":
            assert resp.status_code == 201, answer
            self.code = answer["code"]
        elif method == "POST" and url.endswith("/seats/0"):
            assert resp.status_code == 201, answer
        else:
            assert resp.status_code == status, (command, answer)
        self.last = answer
        return answer

    def before(self, command: str) -> str:
        """What happens off the page before a request: the seat the doc frees is taken first,
        and a stale example sends the version the table has by then."""
        if "/seats/2" in command and "DELETE" in command:
            other = self.client.application.test_client()
            other.post(f"/api/tables/{self.code}/seats/2", base_url=BASE, headers={"Origin": BASE})
        if '"action": "choose"' in command:
            command = command.replace('"version": 1', f'"version": {self.version()}')
        if "/undo" in command:
            command = command.replace('"version": 2', f'"version": {self.version()}')
        return command

    def version(self):
        return self.client.get(f"/api/tables/{self.code}").get_json()["version"]

    # --- the answers the doc shows without their request

    def answer_for(self, heading, index):
        client = self.client
        if heading == "The result":
            finished_explorers(client)  # a team game for the stats, before the one shown
            return {"result": finished_woodland_wizards(client)["result"]}
        if heading == "Apply an action":  # the refusals: a stale version, a parameter
            if index == 0:
                resp = act(client, self.code, "set_draw_pile", {"count": 5}, version=0, seat=0)
                assert resp.status_code == 409
            else:
                resp = act(client, self.code, "correct_card", {"flowers": 7, "witch": False}, seat=0)
                resp = resp if resp.get_json().get("param") else act(
                    client, self.code, "reveal", {"flowers": 7, "witch": False}, seat=0)
                assert resp.status_code == 400
            return resp.get_json()
        if heading == "Action parameters":
            code = explorers_table(client)
            params = [{"hp": 3}, {"hero": "robin", "hp": 3}, {"hero": "xylia", "hp": "three"}][index]
            resp = act(client, code, "set_hp", params, seat=0)
            assert resp.status_code == 400
            return resp.get_json()
        if heading == "Name the step":
            code = explorers_table(client)
            ok(act(client, code, "place_tile", {"kind": "growth"}, seat=0))
            ok(act(client, code, "place_tile", {"kind": "growth"}, seat=0))
            ok(act(client, code, "end_turn", {"hero": "xylia"}, seat=0))
            resp = act(client, code, "end_turn", {"hero": "xylia"}, seat=0)
            assert resp.status_code == 400
            return resp.get_json()
        if heading == "The table clock":
            ok(act(client, self.code, "timer_set", {"mode": "turn", "seconds": 30}, seat=0))
            return {"clock": client.get(f"/api/tables/{self.code}").get_json()["clock"]}
        if heading == "The table screen":  # the lines said aloud at the table's moment now
            return client.get(f"/t/{self.code}/screen/say").get_json()
        if heading == "List past games":
            return client.get("/api/history").get_json()
        if heading == "One game":
            games = client.get("/api/history").get_json()["games"]
            played = next(g for g in games if g["game"] == "woodland-wizards")
            return client.get(f"/api/history/{played['id']}").get_json()["outcome"]
        if heading == "Stats":
            return client.get("/api/history/stats").get_json()
        if heading == "Export":
            client.post("/history/names/merge", data={"alias": "Ana", "person": "Anna"},
                        base_url=BASE, headers={"Origin": BASE})
            return client.get("/history/export.json").get_json()
        if heading == "Import":
            body = client.get("/history/export.json").get_data()
            resp = client.post("/api/history/import", data=body, base_url=BASE,
                               headers={"Origin": BASE, "Content-Type": "application/json"})
            assert resp.status_code == 200, resp.get_json()
            return resp.get_json()
        raise AssertionError(f"docs/api.md shows an answer under {heading!r} this test cannot ask for")


def explorers_table(client, players=("Ana", "Ben")):
    resp = client.post("/api/tables", json={"game": "explorers-of-the-woodlands",
                                            "players": list(players),
                                            "options": {"first_player": "0", "hero_1": "xylia",
                                                        "hero_2": "klethor"}})
    assert resp.status_code == 201, resp.get_json()
    code = resp.get_json()["code"]
    client.post(f"/api/tables/{code}/seats/0")
    return code


def finished_explorers(client):
    code = explorers_table(client, ("Dan", "Eve"))  # the stats' first person is Ana
    ok(act(client, code, "reveal_boss", {"boss": "grimnor", "track": 12, "cause": "tile"}, seat=0))
    return ok(act(client, code, "defeat_boss", {}, seat=0))["view"]


def finished_woodland_wizards(client):
    resp = client.post("/api/tables", json={"game": "woodland-wizards", "players": ["Ana", "Ben"],
                                            "options": {"first_player": "0"}})
    code = resp.get_json()["code"]
    client.post(f"/api/tables/{code}/seats/0")
    for number in range(1, 5):
        ok(act(client, code, "set_phase", {"phase": "scoring"}, seat=0))
        ok(act(client, code, "enter_total", {"player": 0, "total": 8}, seat=0))
        ok(act(client, code, "enter_total", {"player": 1, "total": 1}, seat=0))
        ok(act(client, code, "settle_round", {}, seat=0))
        ok(act(client, code, "score_creature", {"player": 0, "value": 2, "name": "", "phoenix": False},
               seat=0))
        if number < 4:
            ok(act(client, code, "next_round", {"round": number + 1}, seat=0))
    return ok(act(client, code, "finish", {}, seat=0))["view"]


def test_the_doc_parses_and_shows_every_call_outside_the_campaigns():
    calls = {(method, re.sub(r"/[A-Z0-9]{4}(?=/|\?|$)", "/<code>", url.split("?")[0]))
             for method, url, _, _ in (parse_command(text + "\n# 200\n" if "# " not in text else text)
                                       for _, lang, text in blocks() if lang == "sh")}
    assert calls >= {("GET", "/api/games"), ("POST", "/api/tables"),
                     ("POST", "/api/tables/$T/seats/0"), ("DELETE", "/api/tables/$T/seats/2"),
                     ("GET", "/api/tables/$T"), ("POST", "/api/tables/$T/actions"),
                     ("GET", "/api/tables/$T/actions"), ("POST", "/api/tables/$T/undo")}
    for _, lang, text in blocks():
        if lang == "json":  # every answer the doc shows can be read
            assert doc_json(text), text


def test_every_example_in_the_doc_answers_as_documented(client):
    story = Story(client)
    answered = {}  # the answer of the request just before a JSON block, if any
    for heading, lang, text in blocks():
        if lang == "sh":
            answered = {"answer": story.run(story.before(text))}
            continue
        follows = heading.endswith(" (answer)")
        heading = heading.removesuffix(" (answer)")
        for index, shown in enumerate(doc_json(text.replace(STAND_IN, story.code or STAND_IN))):
            actual = answered.pop("answer") if follows and index == 0 else None
            if actual is None:
                actual = story.answer_for(heading, index)
            same_shape(shown, actual, heading)
        answered = {}


def test_same_shape_refuses_a_missing_field_a_different_kind_and_another_sentence():
    import pytest
    with pytest.raises(AssertionError, match="documented but not answered"):
        same_shape({"a": 1}, {})
    with pytest.raises(AssertionError, match="the doc shows"):
        same_shape({"a": 1}, {"a": "1"})
    with pytest.raises(AssertionError, match="the doc says"):
        same_shape({"error": "x"}, {"error": "y"})
    with pytest.raises(AssertionError, match="a list is documented"):
        same_shape([1], {})
    same_shape({"a": [1, 2]}, {"a": [3], "b": 2})
    assert doc_json('{"a": {...}, ...}') == [{"a": {}}]
    assert doc_json('"clock": {"x": 1}') == [{"clock": {"x": 1}}]
    assert doc_json('{"games": [{"uid", "game"}]}') == [{"games": [{"uid": "<any>", "game": "<any>"}]}]
    assert doc_json('{"a": 1}\n{"b": 2}') == [{"a": 1}, {"b": 2}]


def test_the_wicked_forest_tally_and_the_end_are_as_the_doc_says(client):
    """The doc's sentences on the Wicked Forest's tally and on corrections after the end hold:
    during the tally the view's `result` is null and it has no winners of its own; once the
    tally is confirmed a correction is refused (undo is the way back)."""
    doc = " ".join(DOC.read_text().split())
    assert "the view's `result` is `null` until then" in doc
    assert "(the view has no `winners` or `decided_by` of its own" in doc
    assert "The Wicked Forest takes its corrections during the tally, before `confirm_tally`" in doc
    assert "changes the result at once." not in doc.split("## Apply an action")[0].split(
        "Once a game is over")[0]
    resp = client.post("/api/tables", json={"game": "wicked-forest", "players": ["Ana", "Ben"],
                                            "options": {"first_leader": "0"}})
    code = resp.get_json()["code"]
    client.post(f"/join/{code}", data={"seat": "all"})
    ok(act(client, code, "set_run_outs", {"count": 2}, seat=0))
    ok(act(client, code, "reveal", {"flowers": 2, "witch": False}, seat=0))
    for seat in (0, 1):
        ok(act(client, code, "choose", {"choice": "return", "decision": 1}, seat=seat))
    view = ok(act(client, code, "set_magic", {"player": 1, "magic": 5}, seat=0))["view"]
    assert view["phase"] == "tally" and view["result"] is None
    assert "winners" not in view and "decided_by" not in view
    view = ok(act(client, code, "confirm_tally", {}, seat=0))["view"]
    assert view["result"]["winners"] == [1]
    resp = act(client, code, "set_magic", {"player": 0, "magic": 9}, seat=0)
    assert resp.status_code == 400 and "undo" in resp.get_json()["error"]
