"""Every example of docs/api.md's campaign section, run against the app in order: the
request as the doc writes it, the status in its comment, and every field its answer shows
(lists may be cut short in the doc, objects may leave fields out), so the doc cannot drift."""

import json
import re
import shlex
from pathlib import Path

from .campaign_play import lose_chapter_2, ok, win_chapter_1
from .helpers import act

DOC = Path(__file__).resolve().parent.parent / "docs" / "api.md"
SECTION = "## Campaigns (Explorers of the Woodlands)"
BASE = "http://localhost:8000"
# Table codes are drawn at random: the doc's stand-ins, bound to the real ones as they come.
CODES = ("K7QM", "R3DW")


def examples():
    """(heading, command, answer) for each command of the section, in order."""
    text = DOC.read_text()
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    section = text[start:end]
    found, heading = [], None
    for match in re.finditer(r"^### ([^\n]+)$|^```sh\n(.*?)```\n```json\n(.*?)```", section, re.M | re.S):
        if match.group(1):
            heading = match.group(1)
        else:
            found.append((heading, match.group(2), match.group(3)))
    assert len(found) >= 10, "the campaign section's examples were not found"
    return found


def parse_command(command: str):
    """Method, path, JSON body and documented status of a curl command."""
    status = int(re.search(r"^# (\d{3})$", command, re.M).group(1))
    words = shlex.split(re.sub(r"\\\n", " ", re.sub(r"^#.*$", "", command, flags=re.M)))
    assert words[0] == "curl"
    method, body, url = "GET", None, None
    for i, word in enumerate(words):
        if word == "-X":
            method = words[i + 1]
        elif word == "-d":
            body = json.loads(words[i + 1])
        elif word.startswith(BASE):
            url = word[len(BASE):]
    return method, url, body, status


def fits(shown, actual, where="answer"):
    """Every field the doc shows is in the answer with the value shown."""
    if isinstance(shown, dict):
        assert isinstance(actual, dict), f"{where}: an object is documented"
        for key, value in shown.items():
            assert key in actual, f"{where}.{key} is documented but not answered"
            fits(value, actual[key], f"{where}.{key}")
    elif isinstance(shown, list):
        assert isinstance(actual, list) and len(shown) <= len(actual), f"{where}: {actual!r}"
        for i, value in enumerate(shown):
            fits(value, actual[i], f"{where}[{i}]")
    else:
        assert shown == actual, f"{where}: the doc says {shown!r}, the app answers {actual!r}"


class Story:
    """The campaign the examples follow, with what happens between them off the page."""

    def __init__(self, client):
        self.client = client
        self.codes = {}
        self.happened = set()

    def bind(self, text: str) -> str:
        for stand_in, code in self.codes.items():
            text = text.replace(stand_in, code)
        return text

    def before(self, heading):
        client = self.client
        if heading in self.happened:
            return
        self.happened.add(heading)
        if heading == "Read a campaign":
            code = self.codes[CODES[0]]
            _created(client.post(f"/api/tables/{code}/seats/0"))
            ok(act(client, code, "add_loot", {"hero": "xylia", "name": "Healing Potion"}))
            win_chapter_1(client, code, plants=2)
            ok(act(client, code, "tally", {"kind": "snake", "count": 3}))
        if heading == "Restart a lost chapter":
            code = _created(client.post("/api/campaigns/1/chapters"))["code"]
            self.codes[CODES[1]] = code
            _created(client.post(f"/api/tables/{code}/seats/0"))
            lose_chapter_2(client, code)
            assert ok(client.post("/api/campaigns/1/confirm", json={}))["next"] == "discard"


def _created(resp):
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()


def test_the_doc_has_an_example_for_every_campaign_call():
    calls = {(method, re.sub(r"/\d+", "/<id>", url)) for method, url, _, _ in
             (parse_command(command) for _, command, _ in examples())}
    assert calls >= {("POST", "/api/campaigns"), ("GET", "/api/campaigns"),
                     ("GET", "/api/campaigns/<id>"), ("POST", "/api/campaigns/<id>/chapters"),
                     ("POST", "/api/campaigns/<id>/confirm"), ("POST", "/api/campaigns/<id>/restart"),
                     ("POST", "/api/tables")}


def test_every_campaign_example_in_the_doc_answers_as_documented(client):
    story = Story(client)
    for heading, command, answer in examples():
        story.before(heading)
        method, url, body, status = parse_command(story.bind(command))
        # At the doc's address, so that join links come out as the doc shows them.
        resp = client.open(url, method=method, json=body, base_url=BASE, headers={"Origin": BASE})
        actual = resp.get_json()
        assert resp.status_code == status, (command, actual)
        if url.endswith("/chapters") and status == 201:
            story.codes.setdefault(CODES[0], actual["code"])
        shown = json.loads(story.bind(answer))
        fits(shown, actual, f"{method} {url}")
