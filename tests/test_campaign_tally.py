"""A won chapter's Monster tally: on the chapter's victory card before its end is confirmed,
and correctable on the campaign page until the next chapter starts.

Rulebook, Campaign Mode: "The Forest Awakens: After each successful chapter, count the number
of Monsters of each type that you defeated in that chapter. The type of Monster that you
defeated most often becomes Enraged for the rest of the campaign."
"""

import random
import re

import pytest

from companion.games import explorers_campaign as rules
from companion.games.base import Rejected

from .campaign_play import create_campaign, ok, start_chapter, win_chapter_1
from .helpers import act


def won_and_confirmed(client, plants=0):
    cid = create_campaign(client)["id"]
    code = start_chapter(client, cid)
    win_chapter_1(client, code, plants=plants)
    assert client.post(f"/campaigns/{cid}/confirm", data={"table": code}).status_code == 303
    return cid, code


def campaign(client, cid):
    return client.get(f"/api/campaigns/{cid}").get_json()


def enraged(client, cid):
    return [m["kind"] for m in campaign(client, cid)["enraged"]]


def test_the_victory_card_holds_the_tally_before_the_end_is_confirmed(client):
    cid = create_campaign(client)["id"]
    code = start_chapter(client, cid)
    win_chapter_1(client, code)
    page = client.get(f"/t/{code}").get_data(as_text=True)
    card = re.search(r'<section class="card now ex-result.*?</section>', page, re.S).group(0)
    assert "Tally every Monster defeated" in card
    for label in ("Mushrooms", "Plants", "Spirits", "Skeletons", "Snakes"):
        assert f'aria-label="{label} of the chapter plus one"' in card
    assert card.index("of the chapter plus one") < card.index("Confirm the end of the chapter")
    # A tap on the card's + counts on the table, which the confirmation then reads.
    ok(act(client, code, "tally", {"kind": "snake", "count": 4}))
    assert client.post(f"/campaigns/{cid}/confirm", data={"table": code}).status_code == 303
    assert "Snakes were defeated most (4)" in client.get(f"/campaigns/{cid}").get_data(as_text=True)


def test_a_recorded_tally_is_corrected_and_drawn_again_until_the_next_chapter_starts(client):
    cid, code = won_and_confirmed(client)
    assert "no Monster was defeated" in client.get(f"/campaigns/{cid}").get_data(as_text=True)
    page = client.get(f"/campaigns/{cid}").get_data(as_text=True)
    assert 'id="camp-retally"' in page and 'name="snake" type="number"' in page
    resp = client.post(f"/campaigns/{cid}/tally",
                       data={"mushroom": "1", "plant": "0", "spirit": "5", "skeleton": "0", "snake": "4"})
    assert resp.status_code == 303
    assert enraged(client, cid) == ["snake"]
    page = client.get(f"/campaigns/{cid}").get_data(as_text=True)
    assert "Snakes were defeated most (4) and become Enraged." in page
    assert "Monster tally corrected: 1 Mushroom, 0 Plants, 5 Spirits, 0 Skeletons and 4 Snakes." in page
    assert 'value="4"' in page  # the form shows the tally as corrected
    # The next chapter has started: the tally is final.
    start_chapter(client, cid)
    assert 'id="camp-retally"' not in client.get(f"/campaigns/{cid}").get_data(as_text=True)
    resp = client.post(f"/campaigns/{cid}/tally",
                       data={"mushroom": "9", "plant": "0", "spirit": "0", "skeleton": "0", "snake": "0"})
    assert resp.status_code == 400 and "until the next one starts" in resp.get_data(as_text=True)
    assert enraged(client, cid) == ["snake"]


@pytest.mark.parametrize("snake", ["", "-1", "100", "two", "3.5"])
def test_a_bad_count_is_refused_and_changes_nothing(client, snake):
    cid, _ = won_and_confirmed(client, plants=2)
    before = campaign(client, cid)
    resp = client.post(f"/campaigns/{cid}/tally",
                       data={"mushroom": "0", "plant": "0", "spirit": "0", "skeleton": "0", "snake": snake})
    assert resp.status_code == 400
    assert "Snakes defeated: a whole number from 0 to 99." in resp.get_data(as_text=True)
    assert campaign(client, cid) == before


def recorded(enraged, draw_type, outcome="won", table=None, **more):
    return {"table": table, "awaiting_discards": False, "finished": False, "enraged": enraged,
            "recorded": {"OLD1": {"chapter": 1, "outcome": "won", "draw": {"type": "plant"}},
                         "LAST": {"chapter": 2, "outcome": outcome,
                                  "draw": {"type": draw_type} if outcome == "won" else None}},
            **more}


def test_only_the_last_won_chapter_is_correctable_and_only_between_chapters():
    assert rules.correctable_chapter(recorded(["plant", "snake"], "snake")) == "LAST"
    assert rules.correctable_chapter(recorded(["plant"], None, outcome="lost")) is None
    assert rules.correctable_chapter(recorded(["plant", "snake"], "snake", table="NEXT")) is None
    assert rules.correctable_chapter(recorded(["plant", "snake"], "snake", awaiting_discards=True)) is None
    assert rules.correctable_chapter(recorded(["plant", "snake"], "snake", finished=True)) is None
    assert rules.correctable_chapter({**recorded([], None), "recorded": {}}) is None
    with pytest.raises(Rejected):
        rules.correct_tally(recorded(["plant", "snake"], "snake", table="NEXT"), {}, random.Random(0))


def test_a_correction_takes_back_only_the_type_its_chapter_made_enraged():
    before = recorded(["plant", "snake"], "snake")
    after, lines = rules.correct_tally(before, {"skeleton": 2, "mushroom": 1}, random.Random(0))
    assert after["enraged"] == ["plant", "skeleton"]
    assert after["recorded"]["LAST"]["draw"]["type"] == "skeleton"
    assert after["recorded"]["LAST"]["monsters"] == {"mushroom": 1, "plant": 0, "spirit": 0,
                                                     "skeleton": 2, "snake": 0}
    assert after["recorded"]["OLD1"] == before["recorded"]["OLD1"]
    assert before["enraged"] == ["plant", "snake"]  # the campaign given is not changed
    assert lines == ["Chapter 2's Monster tally corrected: 1 Mushroom, 0 Plants, 0 Spirits, "
                     "2 Skeletons and 0 Snakes.",
                     "The Forest Awakens: Skeletons were defeated most (2) and become Enraged."]
    # A draw that enraged nothing (all were enraged) takes nothing back.
    full = recorded(list(rules.game.MONSTERS), None)
    full["recorded"]["LAST"]["draw"] = {"type": None}
    assert rules.correct_tally(full, {"snake": 3}, random.Random(0))[0]["enraged"] == list(rules.game.MONSTERS)
