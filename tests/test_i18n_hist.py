"""The history, the stats and the table screen in each phone's language: every text a player
reads comes through the catalogs (checked in the pseudo-locale), dates and numbers are said
the locale's way, exports keep their columns and old English exports still import.

Run `bash scripts/catalogs.sh extract` first: the pseudo-locale is made from the .pot."""

from __future__ import annotations

import copy
import csv
import io
import json
import re

from companion import history
from companion.web import voice

from .history_fixture import stats_export
from .pseudo import bare_english, without_pseudo
from .test_screen_web import create, ok, take

XA = {"lang": "en_XA"}
PLAYERS = ["Anna", "anna", "Ana", "ANNA", "Ben", "cara", "Cara"]
# Proper names stay English in every language; these come from the fixture's data.
GAME_NAMES = ["The Wicked Forest", "Woodland Wizards", "Explorers of the Woodlands", "The Mysterious Forest",
              "Forest Table"]
# An old (version 1) export holds its words as plain English: they read as they are.
OLD_ENGLISH = ["Something happened.", "Easy", "Hard"]
# The pseudo-locale writes dates as English does (its formatting locale is "en").
DATE_WORDS = ["Mon Tue Wed Thu Fri Sat Sun Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec"]
ALLOWED = PLAYERS + GAME_NAMES + OLD_ENGLISH + DATE_WORDS


def _said_game(uid="z"):
    """A version 2 game: its log line, an event and the summary kept as data."""
    game = copy.deepcopy(stats_export()["games"][0])
    game["uid"] = uid
    game["outcome"]["summary"] = {"$t": "{name} wins round {round}.", "v": {"name": "Anna", "round": 3}}
    game["outcome"]["score_by_round"] = [[1, 2, 3], [5, 6, 7], [30, 25, 20]]
    game["log"] = [{"seq": 1, "seat": 0, "action": "x", "params": {}, "at": game["started_at"] + 60,
                    "round": 1, "text": {"$t": "{name}, your turn: roll the 4 dice!", "v": {"name": "Anna"}},
                    "events": [{"$t": "{names} stays.", "pl": "{names} stay.", "n": 2,
                                "v": {"names": {"$names": ["Anna", "Ben"]}}}]}]
    return game


def _import(client, games, version=2, lang=None):
    body = {"format": "forest-table-history", "version": version, "merges": [], "games": games}
    return client.post("/api/history/import", data=json.dumps(body).encode(),
                       content_type="application/json", query_string={"lang": lang} if lang else None)


def _page(client, url, **query):
    resp = client.get(url, query_string={**XA, **query})
    assert resp.status_code == 200, url
    return resp.get_data(as_text=True)


def _bare(html, extra=()):
    """The bare English of a history page's own part (the top bar and the language menu
    around it belong to base.html, checked with the pages around the tables)."""
    main = re.search(r"<main[^>]*>(.*)</main>", html, re.S)
    title = re.search(r"<title>(.*?)</title>", html, re.S)
    own = (title.group(0) if title else "") + (main.group(1) if main else html)
    return bare_english(own, allowed=ALLOWED + list(extra))


def test_every_history_page_reads_in_the_pseudo_locale(client):
    assert _import(client, stats_export()["games"], version=1).status_code == 200  # an old export
    assert _import(client, [_said_game()]).status_code == 200
    ids = [g["id"] for g in client.get("/api/history").get_json()["games"]]
    assert len(ids) == 8
    for url, query in [("/history", {}), ("/history/stats", {}), ("/history/transfer", {}),
                       ("/history", {"player": "Ben"}), ("/history", {"game": "nothing-here"}),
                       ("/history/stats", {"game": "explorers"})]:
        assert _bare(_page(client, url, **query)) == [], (url, query)
    for played_id in ids:
        assert _bare(_page(client, f"/history/{played_id}")) == [], played_id


def test_the_said_game_renders_its_words_in_the_phone_language(client):
    assert _import(client, [_said_game()]).status_code == 200
    (played_id,) = [g["id"] for g in client.get("/api/history").get_json()["games"]]
    english = client.get(f"/history/{played_id}").get_data(as_text=True)
    assert "Anna, your turn: roll the 4 dice!" in english and "Anna and Ben stay." in english
    assert "Anna wins round 3." in english
    pseudo = _page(client, f"/history/{played_id}")
    assert "Anna, your turn" not in pseudo and "[" in pseudo
    # JSON: every Text field in the phone's language (keys and ids stay).
    record = client.get(f"/api/history/{played_id}", query_string=XA).get_json()
    texts = [record["outcome"]["summary"]] + [line["text"] for line in record["log"]]
    texts += [e for line in record["log"] for e in line["events"]]
    for text in texts:
        assert without_pseudo(text).strip(" .,!") in ("", "Anna", "Anna, Ben", "Anna · Ben", "[Anna · Ben]"), text
    listed = client.get("/api/history", query_string=XA).get_json()["games"]
    assert all(not _bare(row["summary"] or "") for row in listed)


def test_dates_durations_and_numbers_follow_the_locale(client):
    assert _import(client, stats_export()["games"], version=1).status_code == 200
    played_id = client.get("/api/history").get_json()["games"][-1]["id"]
    english = client.get(f"/history/{played_id}").get_data(as_text=True)
    german = client.get(f"/history/{played_id}", query_string={"lang": "de"}).get_data(as_text=True)
    # 1700 seconds: "28 min"; the date in each language's own words.
    assert "28 min" in english and re.search(r"\w{3} \d\d \w{3} \d{4}, \d\d:\d\d", english)
    assert re.search(r"\d{1,2}\. \w+\.? \d{4}", german), "a German date: 14. Nov. 2023"
    stats_en = client.get("/history/stats").get_data(as_text=True)
    stats_fr = client.get("/history/stats", query_string={"lang": "fr"}).get_data(as_text=True)
    assert "67%" in stats_en and ("67\u202f%" in stats_fr or "67\xa0%" in stats_fr)
    assert "23.5" in stats_en and "23,5" in stats_fr  # Ben's average at the Wicked Forest


def test_refusals_and_notices_read_in_the_pseudo_locale(client):
    assert _import(client, stats_export()["games"], version=1).status_code == 200
    # A merge the history refuses: the notice on the stats page.
    resp = client.post("/history/names/merge", query_string=XA, data={"alias": "Anna", "person": "anna"})
    assert resp.status_code == 303
    page = _page(client, "/history/stats")
    assert 'role="alert"' in page and _bare(page) == []
    # A merge done, and its undo.
    client.post("/history/names/merge", query_string=XA, data={"alias": "Ana", "person": "Anna"})
    page = _page(client, "/history/stats")
    assert "Ana" in page and _bare(page) == []
    client.post("/history/names/undo", query_string=XA, data={"alias": "Ana"})
    assert _bare(_page(client, "/history/stats")) == []
    # A damaged file, by the form and by the API.
    resp = client.post("/history/import", query_string=XA, content_type="multipart/form-data",
                       data={"file": (io.BytesIO(b"{not json"), "h.json")})
    assert resp.status_code == 400 and _bare(resp.get_data(as_text=True)) == []
    bad = stats_export()
    bad["games"][0]["players"][0]["score"] = "many"
    answer = client.post("/api/history/import", query_string=XA, data=json.dumps(bad),
                         content_type="application/json")
    assert answer.status_code == 400
    error = answer.get_json()["error"]
    assert bare_english(error, allowed=["games", "players", "score"]) == [], error
    # An import said in the phone's language; a page number refused.
    resp = client.post("/history/import", query_string=XA, content_type="multipart/form-data",
                       data={"file": (io.BytesIO(json.dumps(stats_export()).encode()), "h.json")})
    assert resp.status_code == 303
    assert _bare(_page(client, "/history")) == []
    refused = client.get("/api/history", query_string={**XA, "page": "x"})
    assert refused.status_code == 400 and bare_english(refused.get_json()["error"]) == []


def test_exports_keep_their_columns_and_words_as_data_and_old_exports_import(client, make_client):
    assert _import(client, stats_export()["games"], version=1).status_code == 200
    assert _import(client, [_said_game()]).status_code == 200
    data = json.loads(client.get("/history/export.json", query_string=XA).data)
    assert data["version"] == history.EXPORT_VERSION == 2
    said = next(g for g in data["games"] if g["uid"] == "z")
    assert said["log"][0]["text"] == {"$t": "{name}, your turn: roll the 4 dice!", "v": {"name": "Anna"}}
    old = next(g for g in data["games"] if g["uid"] == "a")
    assert old["log"][0]["text"] == "Something happened."
    # Exported in any language, the file is the same data.
    assert json.loads(client.get("/history/export.json").data) == data
    # Another server reads it back as it was (a second round trip changes nothing).
    other = make_client()
    other_app_data = json.dumps(data).encode()
    assert other.post("/api/history/import", data=other_app_data, content_type="application/json").status_code == 200
    # CSV: the header and the data values stay; the summary is in the exporter's language.
    rows = list(csv.reader(io.StringIO(client.get("/history/export.csv", query_string=XA).get_data(as_text=True))))
    assert tuple(rows[0]) == history.CSV_COLUMNS
    summary = rows[0].index("summary")
    said_rows = [r for r in rows[1:] if r[0] == "z"]
    assert said_rows and all(r[summary].startswith("[") for r in said_rows)
    assert {r[rows[0].index("winner")] for r in rows[1:]} <= {"yes", "no", ""}
    english = list(csv.reader(io.StringIO(client.get("/history/export.csv").get_data(as_text=True))))
    assert [r for r in english[1:] if r[0] == "z"][0][summary] == "Anna wins round 3."


def test_an_import_refuses_words_that_are_not_plain_messages(client):
    game = _said_game()
    game["log"][0]["text"] = {"$t": "{name:>999999999}", "v": {"name": "x"}}
    assert _import(client, [game]).status_code == 400
    game = _said_game()
    game["log"][0]["params"] = {"$t": "{a.__class__}", "v": {"a": "x"}}
    assert _import(client, [game]).status_code == 400
    game = _said_game()
    game["log"][0]["text"] = {"$t": "{missing} hole {a}", "v": {"a": "x"}}
    assert _import(client, [game]).status_code == 400
    assert client.get("/api/history").get_json()["games"] == []


# ----------------------------------------------------------------- the table screen


def _screen_parts(client, code):
    page = _page(client, f"/t/{code}/screen")
    part = _page(client, f"/t/{code}/screen/view")
    return page, part


def test_the_screen_page_is_in_the_request_language_and_speaks_it(client):
    code = create(client, "wicked-forest")
    page = client.get(f"/t/{code}/screen", query_string={"lang": "de"}).get_data(as_text=True)
    assert '<html lang="de"' in page and 'data-lang="de"' in page and 'data-speech-lang="de-DE"' in page
    page = client.get(f"/t/{code}/screen", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    assert '<html lang="fr"' in page and 'data-speech-lang="fr-FR"' in page
    said = client.get(f"/t/{code}/screen/say", query_string={"lang": "es"}).get_json()
    assert said["lang"] == "es-ES"
    assert client.get(f"/t/{code}/screen/say").get_json()["lang"] == "en"
    empty = client.get("/screen", query_string=XA).get_data(as_text=True)
    assert bare_english(_game_words_out(client, code, empty), allowed=GAME_NAMES + [code, "Ana", "Ben", "Cara"]) == []


def _game_words_out(client, code, html):
    """`html` without the game's own words (its public view, from its rules: other areas'
    Text, checked by that game's tests; in the merged catalogs they read in the pseudo-locale
    too). Only whole strings of the view are taken out, so the screen's own words are checked."""
    from markupsafe import escape
    view = client.get(f"/api/tables/{code}").get_json()["view"]
    found = []

    def walk(value):
        if isinstance(value, str) and len(value) > 3:
            found.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
    walk(view)
    for text in sorted(found, key=len, reverse=True):
        html = html.replace(str(escape(text)), " ").replace(text, " ")
    return html


def _check_screen(client, code):
    allowed = ["Ana", "Ben", "Cara", code] + GAME_NAMES
    page, part = _screen_parts(client, code)
    assert bare_english(_game_words_out(client, code, page), allowed=allowed) == []
    assert bare_english(_game_words_out(client, code, part), allowed=allowed) == []
    said = client.get(f"/t/{code}/screen/say", query_string=XA).get_json()
    for line in said["lines"]:
        assert bare_english(_game_words_out(client, code, line["text"]), allowed=allowed) == [], line


def test_the_screen_and_its_voice_in_the_pseudo_locale(client):
    """Each game's screen at its first steps: the screen's own words all come through the
    catalogs."""
    for game in ("wicked-forest", "woodland-wizards", "explorers-of-the-woodlands", "mysterious-forest"):
        code = create(client, game)
        for seat in range(3 if game != "mysterious-forest" else 1):
            take(client, code, seat)
        _check_screen(client, code)


def test_the_wicked_forest_screen_through_its_reveal_in_the_pseudo_locale(client):
    code = create(client, "wicked-forest")
    for seat in range(3):
        take(client, code, seat)
    _check_screen(client, code)
    ok(client, code, "reveal", {"flowers": 2, "witch": True}, seat=0)
    _check_screen(client, code)
    ok(client, code, "choose", {"choice": "return", "decision": 1}, seat=0)
    _check_screen(client, code)
    for seat in (1, 2):
        ok(client, code, "choose", {"choice": "stay", "decision": 1}, seat=seat)
    part = _page(client, f"/t/{code}/screen/view")
    assert "data-reveal" in part
    _check_screen(client, code)
    said = client.get(f"/t/{code}/screen/say", query_string=XA).get_json()["lines"]
    assert any("Ana" in line["text"] and "[" in line["text"] for line in said)


def test_spoken_sentences_are_messages_with_brace_holes():
    for key, sentence in voice.SENTENCES.items():
        assert not re.search(r"%\(|%[sd]", sentence.message), key
    line = voice.say("wf.returns", count=2, names="Ana and Ben")
    assert line == "Ana and Ben return." and line.message == "{names} returns."
