"""The main card conducts the game: every step the rules ask of a phone comes to its main card,
in the first screen of a 390x844 phone, after another phone's move arrives; and every game
screen passes axe-core (no serious or moderate finding) in both themes."""

import re

import pytest

from .browser import FIRST_SCREEN, assert_in_first_screen, browser, live_server, phones, tap  # noqa: F401
from .test_browser_table import create_wicked_forest, join
from .walk import axe

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect


def assert_axe_clean(page, name):
    """axe-core finds nothing serious or moderate on this screen, dark and light, panels open
    (every phase of every game is put through it in tests/test_browser_walk.py)."""
    axe(page, name)


def post_json(page, base, path, body=None):
    resp = page.context.request.post(base + path, headers={"Origin": base}, data=body or {})
    assert resp.ok, resp.text()
    return resp.json()


def test_a_returner_is_asked_on_the_main_card_and_the_eliminated_never_are(live_server, phones):
    ana, ben, cleo = phones(3)
    code = create_wicked_forest(ana, live_server, ["Ana", "Ben", "Cleo"], leader="0")
    ana.get_by_role("button", name="I am Ana").click()
    join(ben, live_server, code, "Ben")
    join(cleo, live_server, code, "Cleo")
    ana.get_by_role("button", name="3 Flowers, no Witch").click()
    for page, pick in ((ana, "Stay"), (ben, "Stay"), (cleo, "Return")):
        page.get_by_role("button", name=re.compile(pick)).click()

    # The reveal arrives on Cleo's phone: her Crystallization is the next thing to do.
    ask = cleo.locator("[data-primary] h2")
    expect(ask).to_have_text("Cleo, what did you crystallize?")
    for target in (ask, cleo.get_by_role("button", name="Magic Crystal Card"),
                   cleo.get_by_role("button", name="Cleo is done crystallizing")):
        assert_in_first_screen(cleo, target)
    expect(ana.locator("[data-primary]")).to_contain_text("Cleo crystallizes first")
    assert_axe_clean(cleo, "a returner's Crystallization")
    cleo.get_by_role("spinbutton", name="Magic on it").fill("3")
    cleo.get_by_role("spinbutton", name="Flowers paid").fill("2")
    tap(cleo, "Magic Crystal Card")  # her answer in before the next tap, which names its version
    expect(ben.locator(".player").nth(2)).to_contain_text("3")
    expect(ask).to_have_text("Cleo, what did you crystallize?")  # more than one card may be taken
    cleo.get_by_role("button", name="Cleo is done crystallizing").click()
    expect(cleo.locator("[data-primary] h2")).to_have_text("Reveal card 2: tap what it shows")
    expect(ana.locator(".wf-crystallizing")).to_have_count(0)

    # The second Witch eliminates Ana and Ben: the correction panel's Who is Cleo, never them.
    ana.get_by_role("button", name="Witch and 0 Flowers").click()
    for page in (ana, ben):
        page.get_by_role("button", name=re.compile("Stay")).click()
    ana.get_by_role("button", name="Witch and 1 Flower").click()
    expect(ana.locator(".player").first).to_contain_text("eliminated")
    expect(ana.locator("#wf-crystal-player")).to_have_value("2")


def test_the_turn_card_holds_the_fights_and_a_boss_named_without_its_track_says_so(live_server, phones):
    ana, ben = phones(2)
    ana.goto(live_server + "/new/explorers-of-the-woodlands")
    for i, (name, hero) in enumerate((("Ana", "xylia"), ("Ben", "klethor")), start=1):
        ana.get_by_label(f"Player {i}", exact=True).fill(name)
        ana.get_by_label(f"Player {i}'s Hero").select_option(hero)
    ana.get_by_role("button", name="Create the table").click()
    code = ana.locator(".code-big").first.inner_text().strip()
    ana.get_by_role("button", name="I am Ana").click()
    join(ben, live_server, code, "Ben")
    ana.get_by_role("button", name=re.compile("^Ana placed a tile")).click()
    ben.get_by_role("button", name=re.compile("^Ben placed a tile")).click()
    expect(ana.locator("[data-primary] .turn-big")).to_contain_text("Ana · Xylia")

    # The Boss named with no track length: the answer says what is missing and how to fill it.
    ben.locator("#ex-boss > summary").click()
    ben.get_by_label("Which Boss").select_option("grimnor")
    ben.get_by_role("button", name="Reveal the Boss").click()
    expect(ben.get_by_role("alert")).to_contain_text(
        "Threat track length missing: type how many spaces the Boss's threat track has")
    expect(ben.locator("#ex-boss summary")).to_contain_text("Boss: hidden")
    ben.get_by_label("Spaces on the threat track").fill("8")
    ben.get_by_role("button", name="Reveal the Boss").click()

    # On Ana's turn card, after Ben's move arrives: a Monster defeated, then the Boss.
    boss_down = ana.get_by_role("button", name=re.compile("Boss defeated Grimnor"))
    expect(boss_down).to_be_visible()
    mushroom = ana.get_by_role("button", name="Defeated a Mushroom")
    assert_in_first_screen(ana, mushroom)
    assert_in_first_screen(ana, boss_down)
    assert_axe_clean(ana, "a Hero's turn with the Boss out")
    mushroom.click()
    expect(ben.locator("#ex-monsters summary b")).to_have_text("1")
    boss_down.click()
    expect(ben.locator("[data-primary] .ex-result-title")).to_have_text("🏆 Victory!")


def test_a_chapters_tally_is_on_its_victory_card_and_correctable_until_the_next_starts(live_server, phones):
    ana, ben = phones(2)
    ana.goto(live_server + "/")
    campaign = post_json(ana, live_server, "/api/campaigns", {
        "name": "Tally Woods", "players": ["Ana", "Ben"], "heroes": ["xylia", "klethor"],
        "first_player": 0, "thorns": "regular"})["id"]
    code = post_json(ana, live_server, f"/api/campaigns/{campaign}/chapters")["code"]
    ana.goto(f"{live_server}/t/{code}")
    ana.get_by_role("button", name="I am Ana").click() if "/t/" not in ana.url else None
    join(ana, live_server, code, "Ana")
    join(ben, live_server, code, "Ben")
    base = f"{live_server}/api/tables/{code}"

    def act(action, params):
        version = ana.context.request.get(base).json()["version"]
        post_json(ana, live_server, f"/api/tables/{code}/actions",
                  {"action": action, "params": params, "version": version})

    for counter in ("mushroom_a", "mushroom_b", "mushroom_c", "vials"):
        act("quest", {"counter": counter, "value": 2})
    act("set_orbs", {"hero": "xylia", "orbs": 4})
    act("concoct", {"hero": "xylia"})
    act("concoct", {"hero": "xylia"})
    act("quest", {"counter": "campfire_monsters", "value": 0})

    # Victory: the tally is on the card, before the confirmation, on both phones.
    snake = ben.get_by_role("button", name="Snakes of the chapter plus one")
    expect(snake).to_be_visible()
    confirm = ana.get_by_role("button", name="Confirm the end of the chapter")
    for page, target in ((ben, snake), (ana, confirm)):
        assert_in_first_screen(page, target)
    assert_axe_clean(ana, "a chapter's victory card")
    snake.click()
    expect(ana.locator(".camp-tally-type", has_text="Snake").locator(".step-value")).to_have_text("1")
    confirm.click()
    expect(ana.locator(".camp-awakens-last")).to_contain_text("Snakes were defeated most (1)")

    # Found wrong after the confirmation: corrected on the campaign page, drawn again.
    ana.locator("#camp-retally > summary").click()
    ana.get_by_label("Plant").fill("3")
    ana.get_by_role("button", name="Save the tally and draw again").click()
    expect(ana.locator(".camp-awakens-last")).to_contain_text("Plants were defeated most (3)")
    assert_axe_clean(ana, "the campaign page with the tally to correct")
    ana.get_by_role("button", name=re.compile("Start chapter 2")).click()
    ana.goto(f"{live_server}/campaigns/{campaign}")
    expect(ana.locator("#camp-retally")).to_have_count(0)


@pytest.mark.parametrize("game", ["wicked-forest", "woodland-wizards", "explorers-of-the-woodlands",
                                  "mysterious-forest"])
def test_create_the_table_is_in_the_first_screen_of_every_new_table_form(live_server, phones, game):
    (page,) = phones(1)
    page.goto(f"{live_server}/new/{game}")
    assert_in_first_screen(page, page.get_by_role("button", name="Create the table"))
    for box in page.locator("main input[type=checkbox]").all():
        size = box.bounding_box()
        assert size["width"] >= 24 and size["height"] >= 24, size
    assert page.evaluate("() => document.documentElement.scrollHeight") > 0
    assert FIRST_SCREEN == 844
