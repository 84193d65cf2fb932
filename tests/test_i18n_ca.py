"""The Explorers campaign in the pseudo-locale: every page and fragment of the campaign and of
a chapter's panel reads through the catalogs (no English left outside the brackets).

Run `bash scripts/catalogs.sh extract` first: the pseudo-locale is built from the .pot.
The Explorers game module's own words (Monster labels, Enraged effects, the Thorns cards, the
table page around the chapter panel) are converted by its own helper: while they are still
plain English they are taken out of the page before the check, so this test stays strict on
the campaign's words and becomes strict on theirs once they are Text.
"""

import re

import pytest

from companion import store
from companion.db import get_db
from companion.games import explorers_of_the_woodlands as explorers
from companion.games.words import Text
from companion.web.i18n import pseudo

from .campaign_play import create_campaign, end_table, lose_chapter_2, ok, start_chapter, win_chapter_1
from .helpers import act, with_step
from .pseudo import bare_english

XA = "lang=en_XA"
PLAYERS = ["Ana", "Ben"]
HEROES = [explorers.HERO_LABELS[h] for h in explorers.HEROES]


def _theirs() -> list[str]:
    """The game module's words still plain English (not this area's to translate)."""
    found = []
    for table in (explorers.MONSTER_LABELS, explorers.ENRAGED_MONSTERS, explorers.THORNS_LABELS):
        found += [value for value in table.values() if not isinstance(value, Text)]
    return sorted(found, key=len, reverse=True)


# The stepper's own words (companion/web/forms.py, the shared forms' area).
SHARED = ["minus one", "plus one"]


def bare(html: str, *codes) -> list[str]:
    for words in _theirs() + SHARED:
        html = html.replace(words, "")
    return bare_english(html, allowed=PLAYERS + HEROES + list(codes) + ["Winter"])


def page(client, url) -> str:
    joiner = "&" if "?" in url else "?"
    resp = client.get(f"{url}{joiner}{XA}")
    assert resp.status_code == 200, url
    return resp.get_data(as_text=True)


def main(html: str) -> str:
    """The page's own part (the frame around it, base.html, is the shared pages' area), and
    its title (this area's)."""
    title = re.search(r"<title>.*?</title>", html, re.S)
    return (title.group(0) if title else "") + html.split('<main class="page">', 1)[1].split("</main>", 1)[0]


def chapter_parts(html: str) -> str:
    """The chapter's panel and its strip on a table page (the rest is the game module's)."""
    panel = re.search(r'<details class="panel ex-panel quest hero-quest" id="ex-chapter".*?</details>', html, re.S)
    strip = re.search(r'<section class="quest ex-chapter-strip".*?</section>', html, re.S)
    assert panel and strip
    return panel.group(0) + strip.group(0)


def act_xa(client, code, action, params):
    """An action posted by a phone reading the pseudo-locale: its answer, events and all."""
    table = client.get(f"/api/tables/{code}").get_json()
    return client.post(f"/api/tables/{code}/actions?{XA}", json={
        "action": action, "params": with_step(table, action, params), "version": table["version"]})


def campaign_at_chapter(app, client, chapter):
    made = create_campaign(client)
    with app.app_context():
        conn = get_db()
        row = store.get_campaign(conn, made["id"])
        store.save_campaign(conn, made["id"], {**row.state, "chapter": chapter})
    return made["id"]


# The fields of a JSON answer that hold words a player reads (the rest are ids and data).
READ = ("text", "title", "goal", "log", "error", "label", "events")


def no_english_in(data, *codes):
    """Every word-holding string of a JSON answer read in the pseudo-locale."""
    texts = []

    def walk(value, key=None):
        if isinstance(value, dict):
            for name, item in value.items():
                walk(item, name)
        elif isinstance(value, list):
            for item in value:
                walk(item, key)
        elif isinstance(value, str) and key in READ:
            texts.append(value)

    walk(data)
    return bare("".join(f"<p>{text}</p>" for text in texts), *codes)


def test_the_list_and_a_refused_campaign_read_in_the_phones_language(client):
    assert bare(main(page(client, "/campaigns"))) == []
    refused = client.post(f"/campaigns?{XA}", data={"name": "", "player0": "Ana", "player1": "Ben",
                                                    "hero_1": "xylia", "hero_2": "klethor"})
    assert refused.status_code == 400
    html = main(refused.get_data(as_text=True))
    assert 'role="alert"' in html
    assert bare(html) == []
    made = create_campaign(client)
    listed = main(page(client, "/campaigns"))
    assert bare(listed) == []
    # A Text inside a message is said in the phone's language too, not left English inside it.
    assert pseudo("Mushrooms for the Elder") in listed
    assert bare(main(page(client, f"/campaigns/{made['id']}"))) == []


def test_a_campaign_played_won_lost_and_restarted_reads_in_the_phones_language(app, client):
    made = create_campaign(client)
    cid = made["id"]
    code = start_chapter(client, cid)
    assert bare(main(page(client, f"/campaigns/{cid}")), code) == []
    assert bare(chapter_parts(page(client, f"/t/{code}")), code) == []
    # Refused by the rules: a potion without ingredients; the notice is the campaign's words.
    refused = act(client, code, "concoct", {"hero": "xylia"})
    assert refused.status_code == 400
    assert refused.get_json()["error"] == "A potion needs 3 different colours of mushrooms: none of colour A, colour B and colour C yet."
    xa = client.post(f"/api/tables/{code}/actions?{XA}", json={
        "action": "concoct", "params": {"hero": "xylia"},
        "version": client.get(f"/api/tables/{code}").get_json()["version"]})
    assert no_english_in({"error": xa.get_json()["error"]}) == []
    # Confirming before the end is refused, on the campaign page.
    early = client.post(f"/campaigns/{cid}/confirm?{XA}", data={"table": code})
    assert early.status_code == 400 and bare(main(early.get_data(as_text=True)), code) == []
    win_chapter_1(client, code, plants=3)
    assert bare(chapter_parts(page(client, f"/t/{code}")), code) == []
    assert bare(main(page(client, f"/campaigns/{cid}")), code) == []  # confirm_end
    assert client.post(f"/campaigns/{cid}/confirm", data={"table": code}).status_code == 303
    html = main(page(client, f"/campaigns/{cid}"))  # the tally correctable, The Forest Awakens said
    assert 'id="camp-retally"' in html and bare(html, code) == []
    # A bad correction is refused; a good one draws again.
    bad = client.post(f"/campaigns/{cid}/tally?{XA}", data={"mushroom": "x"})
    assert bad.status_code == 400 and bare(main(bad.get_data(as_text=True)), code) == []
    counts = {"mushroom": "1", "plant": "0", "spirit": "0", "skeleton": "2", "snake": "0"}
    assert client.post(f"/campaigns/{cid}/tally", data=counts).status_code == 303
    # Chapter 2, lost: the discards, then the restart.
    code2 = start_chapter(client, cid)
    assert bare(chapter_parts(page(client, f"/t/{code2}")), code, code2) == []
    act(client, code2, "add_loot", {"hero": "xylia", "card": "Bow"})
    lose_chapter_2(client, code2)
    assert client.post(f"/campaigns/{cid}/confirm", data={"table": code2}).status_code == 303
    html = main(page(client, f"/campaigns/{cid}"))
    assert "camp-discards" in html and bare(html, code, code2, "Bow") == []
    assert client.post(f"/campaigns/{cid}/restart", data={"discard_xylia": "0"}).status_code == 303
    html = main(page(client, f"/campaigns/{cid}"))
    assert bare(html, code, code2, "Bow") == []
    history = html.split('id="camp-history"')[1]
    assert history.count("<li>") >= 6
    # The JSON read: the log, the chapters and The Forest Awakens, each in the phone's language.
    data = ok(client.get(f"/api/campaigns/{cid}?{XA}"))
    assert len(data["log"]) >= 6
    assert no_english_in(data, code, code2, "Bow") == []
    # A refusal of the JSON API, in the phone's language.
    refused = client.post(f"/api/campaigns/{cid}/restart?{XA}", json={"discards": {"xylia": 0}})
    assert refused.status_code == 400 and no_english_in(refused.get_json()) == []


@pytest.mark.parametrize("chapter", [2, 3, 4, 5])
def test_every_chapters_panel_reads_in_the_phones_language(app, client, chapter):
    cid = campaign_at_chapter(app, client, chapter)
    code = start_chapter(client, cid)
    assert bare(chapter_parts(page(client, f"/t/{code}")), code) == []
    steps = {2: [("quest", {"counter": "markers_carried", "value": 1}),
                 ("quest", {"counter": "vortex_monsters", "value": 1})],
             3: [],
             4: [("quest", {"counter": "campsites_found", "value": 3}),
                 ("quest", {"counter": "campsites_empty", "value": 1})],
             5: [("quest", {"counter": "corrupted", "value": 5}),
                 ("quest", {"counter": "corrupted_spaces", "value": 2}),
                 ("quest", {"counter": "totems", "value": 1})]}[chapter]
    for action, params in steps:
        answer = act_xa(client, code, action, params)
        assert answer.status_code == 200, answer.get_json()
        # The events this action said (the campaign's lines), in the phone's language.
        assert no_english_in({"events": answer.get_json()["events"]}, code) == []
        assert bare(chapter_parts(page(client, f"/t/{code}")), code) == []
    # A refusal: a counter past its most, said in the pseudo-locale.
    high = {2: ("markers_lost", 9), 3: ("mushroom_a", 1), 4: ("campsites_found", 9),
            5: ("totems", 9)}[chapter]
    xa = client.post(f"/api/tables/{code}/actions?{XA}", json={
        "action": "quest", "params": {"counter": high[0], "value": high[1]},
        "version": client.get(f"/api/tables/{code}").get_json()["version"]})
    assert xa.status_code == 400 and no_english_in({"error": xa.get_json()["error"]}) == []
    end_table(app, code)
    assert bare(main(page(client, f"/campaigns/{cid}")), code) == []
