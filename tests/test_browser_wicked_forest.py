"""The Wicked Forest with three phones, and with one phone passed around."""

import json
import re

import pytest

from .browser import browser, caught_up, live_server, phones, shot, tap  # noqa: F401  (fixtures)
from .test_browser_table import create_wicked_forest, join

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect


def choose(page, which):
    page.get_by_role("button", name=re.compile("Stay" if which == "stay" else "Return")).click()
    # Both buttons now look alike; the choice itself is behind a tap, in small text.
    expect(page.locator(".choice-pad.choice-made")).to_have_count(1)
    peek = page.locator(".peek")
    peek.locator("summary").click()
    expect(peek.locator(".mine-note")).to_contain_text("You chose " + ("Stay" if which == "stay" else "Return"))
    peek.locator("summary").click()


def assert_no_trace_of_choices(page, base, code):
    """Nothing this phone can read tells what anyone else picked."""
    html = page.content()
    assert page.locator(".pick").count() == 0
    assert page.locator(".choice.picked").count() == 0
    view = page.context.request.get(f"{base}/api/tables/{code}").json()["view"]
    text = json.dumps(view)
    assert view["my_choice"] is None
    assert '"stay"' not in text and '"return"' not in text
    partial = page.context.request.get(f"{base}/t/{code}/view", headers={"HX-Request": "true"}).text()
    assert "picked" not in partial and 'class="pick' not in partial and "picked" not in html
    log = page.context.request.get(f"{base}/api/tables/{code}/actions").text()
    assert "return" not in log.lower().replace("returned", "") and "stay" not in log.lower()


def test_three_phones_play_two_rounds(live_server, phones):
    ana, ben, cara = phones(3)
    code = create_wicked_forest(ana, live_server, ["Ana", "Ben", "Cara"], leader="0")
    ana.get_by_role("button", name="I am Ana").click()
    expect(ana.locator(".seat-chip.mine")).to_contain_text("Ana")
    join(ben, live_server, code, "Ben")
    join(cara, live_server, code, "Cara")
    everyone = (ana, ben, cara)

    # Round 1, card 1: 3 Flowers. Every phone in the forest is asked.
    ana.get_by_role("button", name="3 Flowers, no Witch").click()
    for page in everyone:
        expect(page.get_by_role("button", name=re.compile("Return"))).to_be_visible()

    # Ana picks, changes her mind, picks again: the others see only that she has chosen.
    choose(ana, "stay")
    choose(ana, "return")
    for page in (ben, cara):
        expect(page.locator(".waiting")).to_contain_text("Waiting for Ben, Cara")
        expect(page.locator(".waiting")).to_contain_text("Chosen: Ana")
        assert_no_trace_of_choices(page, live_server, code)
    shot(ben, "10-choose-waiting")
    shot(ana, "10b-choice-in-alike-buttons")
    choose(ben, "stay")
    assert_no_trace_of_choices(cara, live_server, code)
    cara.get_by_role("button", name=re.compile("Stay")).click()

    # The reveal reaches every phone at once, with the rules applied.
    for page in everyone:
        expect(page.locator(".reveals")).to_contain_text("Ana: 🏠 Return")
        expect(page.locator(".reveals")).to_contain_text("Ben: ✊ Stay")
        expect(page.locator(".events")).to_contain_text("Ana gains 3 Flowers.")
    shot(cara, "11-after-reveal")

    # Ana, back home, is asked what she crystallized; she took nothing.
    expect(ana.locator("[data-primary] h2")).to_have_text("Ana, what did you crystallize?")
    tap(ana, "Ana is done crystallizing")
    caught_up(everyone, live_server, code)  # Ben reveals card 2 once his phone shows her done

    # Card 2 shows the Witch; Ben and Cara stay; card 3 is the second Witch.
    ben.get_by_role("button", name="Witch and 1 Flower").click()
    expect(cara.get_by_role("button", name=re.compile("Stay"))).to_be_visible()
    expect(ana.locator("[data-primary]")).to_contain_text("out of the forest")
    choose(ben, "stay")
    cara.get_by_role("button", name=re.compile("Stay")).click()
    expect(ana.locator(".forest h2")).to_have_text("Forest: 2 of 9 revealed")
    expect(ana.locator(".events")).to_contain_text("Ben and Cara stay")
    cara.get_by_role("button", name="Witch and 0 Flowers").click()
    for page in everyone:
        expect(page.locator(".events")).to_contain_text("Second Witch!")
        expect(page.locator(".player").nth(1)).to_contain_text("eliminated")
        expect(page.locator(".player").nth(2)).to_contain_text("eliminated")
    shot(ana, "12-second-witch")

    # Round 2: the leader passes to Ben; one card, everyone returns together.
    cara.get_by_role("button", name="Start round 2").click()
    for page in everyone:
        expect(page.locator(".wf-stats")).to_contain_text("Ben")
        expect(page.locator(".wf-stats .stat").first).to_contain_text("2")
    # Its Preparation Phase: Ana is done; Ben, the leader, starts Exploration for everyone.
    expect(ana.locator("[data-primary]")).to_contain_text("Round 2: Preparation")
    ana.get_by_role("button", name="Ana: done preparing").click()
    expect(ben.locator("[data-primary] .waiting")).to_contain_text("Done: Ana")
    ben.get_by_role("button", name="Start Exploration now").click()
    ben.get_by_role("button", name="2 Flowers, no Witch").click()
    choose(ana, "return")
    choose(ben, "return")
    cara.get_by_role("button", name=re.compile("Return")).click()
    for page in everyone:
        expect(page.locator(".events")).to_contain_text("gain 1 Flower each")
        expect(page.locator(".events")).to_contain_text("Forest Magic Tile")
    expect(ana.locator(".player").first).to_contain_text("1 Forest Magic")
    expect(ana.locator(".deck")).to_contain_text("21")


def test_one_phone_passed_around(live_server, phones):
    (table,) = phones(1)
    create_wicked_forest(table, live_server, ["Ana", "Ben"], leader="1")
    table.get_by_role("button", name=re.compile("every free seat")).click()
    expect(table.locator(".seat-chip.mine")).to_have_count(2)
    table.get_by_role("button", name="4 Flowers, no Witch").click()
    # A cover screen: nothing private shows until the phone is handed to a player.
    expect(table.get_by_role("button", name=re.compile("Hand the phone to Ana"))).to_be_visible()
    assert table.locator(".choice").count() == 0
    shot(table, "13-pass-the-phone-cover")
    table.get_by_role("button", name=re.compile("Hand the phone to Ana")).click()
    expect(table.locator("[data-primary] h2")).to_have_text("Ana: Stay or Return?")
    table.get_by_role("button", name=re.compile("Return")).click()
    # Ana hides her choice herself; then the cover, where it is not left for Ben to see.
    expect(table.locator(".peek summary")).to_contain_text("Your choice is in")
    shot(table, "14-pass-the-phone-choice-in")
    table.get_by_role("button", name=re.compile("Done: hide my choice")).click()
    # Back on the list, Ana's seat opens only a new choice, never the old one.
    table.get_by_role("button", name=re.compile("Ana has chosen ✓")).click()
    expect(table.locator("[data-primary] h2")).to_have_text("Ana has chosen. Choose again?")
    assert "You chose" not in table.locator("#view").inner_text()
    shot(table, "15-pass-the-phone-choose-again")
    table.get_by_role("button", name=re.compile("Back: keep the hidden choice")).click()
    expect(table.get_by_role("button", name=re.compile("Hand the phone to Ben"))).to_be_visible()
    assert table.locator(".choice.picked").count() == 0
    assert "Ana has chosen" in table.locator("[data-primary]").inner_text()
    table.get_by_role("button", name=re.compile("Hand the phone to Ben")).click()
    table.get_by_role("button", name=re.compile("Stay")).click()
    expect(table.locator(".events")).to_contain_text("Ana gains 4 Flowers.")
