"""Each game played to its end by taps on three or four phones at 390x844, every phase of it,
in the pseudo-locale (every message bracketed, accented and a third longer than English):
after every live update the phone whose step it is has it in its first screen, focus is on no
control the player did not touch, no request failed and nothing was logged as an error, no
text a player reads is English that skipped the catalogs, and nothing is wider than the phone
or cut off; each phase's screen passes axe-core in both themes (tests/walk.py). The controls
are found by their English, as the pseudo-locale shows it (`tests/pseudo.say`)."""

import re

import pytest

from .board_checks import open_panel
from companion.web import i18n

from .browser import browser, live_server, phones, shot  # noqa: F401  (fixtures)
from .pseudo import say
from .walk import Walk, axe

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect


@pytest.fixture
def phones_in_pseudo(phones, live_server):
    """phones(n), each reading the app in the pseudo-locale (its language cookie set)."""
    def make(n):
        pages = phones(n)
        for page in pages:
            page.context.add_cookies([{"name": i18n.COOKIE, "value": i18n.PSEUDO, "url": live_server}])
        return pages
    return make


def create_wicked_forest(page, base, players, leader="0"):
    page.goto(base + "/")
    page.get_by_role("link", name=re.compile("The Wicked Forest")).click()
    for i, name in enumerate(players):
        page.get_by_label(say(f"Player {i + 1}", exact=True)).fill(name)
    page.get_by_label(say("First leader")).select_option(leader)
    page.get_by_role("button", name=say("Create the table")).click()
    return page.locator(".code-big").first.inner_text().strip()


def join(page, base, code, name):
    page.goto(base + "/")
    page.get_by_label(say("Table code")).fill(code.lower())
    page.get_by_role("button", name=say("Join", exact=True)).click()
    page.get_by_role("button", name=say(f"I am {name}")).click()
    expect(page.locator(".seat-chip.mine")).to_contain_text(name)


def card(page):
    return page.locator("[data-primary]")


def holder(pages, name, start=0):
    """The phone, taking turns from `start`, whose main card offers the button `name`."""
    for i in range(len(pages)):
        page = pages[(start + i) % len(pages)]
        if card(page).get_by_role("button", name=say(name)).count():
            return page
    return None


def after_game_pages(walk, page, code):
    """The finished game's history entry, the stats and the More sheet's clock: axe-clean."""
    page.goto(f"{walk.base}/history/table/{code}")
    expect(page.locator("main")).to_be_visible()
    axe(page, f"{walk.prefix}: the game in the history")
    walk.assert_translated(page)
    page.goto(f"{walk.base}/history/stats")
    axe(page, f"{walk.prefix}: the stats")
    walk.assert_translated(page)
    page.goto(f"{walk.base}/t/{code}/log")
    walk.assert_translated(page)


def test_the_wicked_forest_walked_to_its_final_tally(live_server, phones_in_pseudo):
    ana, ben, cara = everyone = phones_in_pseudo(3)
    code = create_wicked_forest(ana, live_server, ["Ana", "Ben", "Cara"], leader="0")
    ana.get_by_role("button", name=say("I am Ana")).click()
    join(ben, live_server, code, "Ben")
    join(cara, live_server, code, "Cara")
    walk = Walk(live_server, everyone, ["Ana", "Ben", "Cara"], "walk-wf")
    walk.arrived()
    # The More sheet (seats, last moves, the clock and its countdown setting, the language
    # menu) opened, read and closed again, as a player glances at it.
    more = ana.locator("details.more > summary")
    more.click()
    expect(ana.locator("details.more .sheet")).to_be_visible()
    walk.assert_translated(ana)
    more.click()

    # Round 1: a card, the secret choices, a returner's Crystallization on her main card.
    walk.tap(ana, "3 Flowers, no Witch")
    walk.tap(ana, re.compile("Stay"))
    walk.tap(ben, re.compile("Stay"))
    walk.tap(cara, re.compile("Return"))
    expect(card(cara).locator("h2")).to_have_text(say("Cara, what did you crystallize?", exact=True))
    shot(cara, "walk-wf-01-crystallization-on-the-main-card")
    cara.get_by_role("spinbutton", name=say("Magic on it")).fill("3")
    walk.tap(cara, "Magic Crystal Card")
    walk.tap(cara, "Cara is done crystallizing")
    walk.tap(ben, "Witch and 0 Flowers")
    walk.tap(ana, re.compile("Return"))
    walk.tap(ben, re.compile("Stay"))
    walk.tap(ana, "Ana is done crystallizing")
    walk.tap(ben, "Witch and 1 Flower")  # the second Witch: Ben is out, the round's End Phase
    expect(card(ana).locator("h2")).to_have_text(say("Exploration is over: Crystallization", exact=True))

    # The draw pile has run out twice (corrected in its panel): round 2 is the final round.
    ana.locator("#wf-piles > summary").click()
    for _ in range(2):
        walk.tap(ana, "Run-outs plus one")
    walk.tap(cara, "Start round 2")
    for page in everyone:
        expect(page.locator(".wf-final")).to_contain_text(say("Final round"))
    walk.tap(ana, "Ana: done preparing")
    walk.tap(cara, "Cara: done preparing")
    walk.tap(ben, "Start Exploration now")
    walk.tap(ana, "2 Flowers, no Witch")
    for page in everyone:
        walk.tap(page, re.compile("Return"))

    # The final tally: the returners crystallize, then the players confirm it.
    expect(card(ben).locator("h2")).to_contain_text(say("what did you crystallize?"))
    for page, name in ((ana, "Ana"), (ben, "Ben"), (cara, "Cara")):
        walk.tap(page, f"{name} is done crystallizing")
    expect(card(ben).locator("h2")).to_have_text(say("Final tally: check, then confirm", exact=True))
    walk.tap(ben, "Confirm the final tally")
    for page in everyone:
        expect(card(page).locator("h2")).to_contain_text(say("Cara wins"))
        walk.in_first_screen(page, card(page).get_by_role("button", name=say(re.compile("^Rematch"))))
    shot(ana, "walk-wf-02-finished-with-rematch")
    walk.finish()

    # Rematch: Ana's tap makes the table; Ben's phone offers his seat there in its first screen.
    ana.get_by_role("button", name=say(re.compile("^Rematch"))).click()
    expect(ana).to_have_url(re.compile(r"/t/(?!" + code + r")[A-Z0-9]+$"))
    expect(ben.get_by_role("button", name=say(re.compile("Join the rematch as Ben")))).to_be_visible()
    walk.check(ben)
    after_game_pages(walk, cara, code)


def explorers_table(base, pages, names, heroes):
    """The first phone creates an Explorers table by its form and sits; the others join."""
    host = pages[0]
    host.goto(base + "/new/explorers-of-the-woodlands")
    for i, (name, hero) in enumerate(zip(names, heroes), start=1):
        host.get_by_label(say(f"Player {i}", exact=True)).fill(name)
        host.get_by_label(say(f"Player {i}'s Hero")).select_option(hero)
    host.get_by_role("button", name=say("Create the table")).click()
    code = host.locator(".code-big").first.inner_text().strip()
    host.get_by_role("button", name=say(f"I am {names[0]}")).click()
    for page, name in zip(pages[1:], names[1:]):
        join(page, base, code, name)
    return code


def growth(walk, pages, names):
    for page, name in zip(pages, names):
        walk.tap(page, re.compile(f"^{name} placed a tile"))


def test_explorers_walked_to_the_boss_defeated(live_server, phones_in_pseudo):
    ana, ben, cara = everyone = phones_in_pseudo(3)
    names = ["Ana", "Ben", "Cara"]
    code = explorers_table(live_server, everyone, names, ["xylia", "klethor", "shavi"])
    walk = Walk(live_server, everyone, names, "walk-ex")
    walk.arrived()
    growth(walk, everyone, names)

    # Xylia's turn: her turn card's taps; the Boss revealed from its panel.
    walk.tap(ana, re.compile("^🧭 High-Risk Movement"))
    walk.tap(ana, "Xylia Concentration off")
    ana.locator("#ex-boss > summary").click()
    ana.get_by_label(say("Which Boss")).select_option("grimnor")
    ana.get_by_label(say("Spaces on the threat track")).fill("9")
    walk.tap(ana, "Reveal the Boss")
    walk.tap(ana, re.compile("^End turn"))
    # Klethor fights on his turn card, with the Boss out.
    expect(card(ben).get_by_role("button", name=say(re.compile("Boss defeated Grimnor")))).to_be_visible()
    shot(ben, "walk-ex-01-monster-and-boss-on-the-turn-card")
    walk.tap(ben, "Defeated a Mushroom")
    walk.tap(ben, re.compile("^End turn"))
    walk.tap(cara, re.compile("^End turn"))
    expect(card(ana)).to_contain_text(say("Round 1 is played"))
    walk.tap(ana, re.compile("^End round"))
    growth(walk, everyone, names)
    walk.tap(ana, re.compile("Boss defeated Grimnor"))
    for page in everyone:
        expect(card(page).locator(".ex-result-title")).to_have_text(say("🏆 Victory!", exact=True))
    shot(cara, "walk-ex-02-victory")
    walk.finish()
    after_game_pages(walk, cara, code)


def test_the_mysterious_forest_walked_from_setup_to_the_queen(live_server, phones_in_pseudo):
    ana, ben, cara = everyone = phones_in_pseudo(3)
    names = ["Ana", "Ben", "Cara"]
    ana.goto(live_server + "/new/mysterious-forest")
    for i, name in enumerate(names):
        ana.get_by_label(say(f"Player {i + 1}", exact=True)).fill(name)
    ana.get_by_label(say("First player")).select_option("0")
    ana.get_by_role("button", name=say("Create the table")).click()
    code = ana.locator(".code-big").first.inner_text().strip()
    ana.get_by_role("button", name=say("I am Ana")).click()
    join(ben, live_server, code, "Ben")
    join(cara, live_server, code, "Cara")
    walk = Walk(live_server, everyone, names, "walk-mf")
    walk.arrived()

    # Setup: a step ticked on the main card, then on to the Path.
    walk.tap(ben, re.compile("^Step 1:"))
    walk.tap(cara, re.compile("^Start looking at the Path"))
    # Scouting: each player in turn looks at a card on their own phone.
    for turn in range(8):
        walk.tap(everyone[turn % 3], re.compile("^Done looking"))
    # Packing: rolls in turn until the Backpack is full.
    turn = 0
    while holder(everyone, re.compile("^2 Equipment")):
        walk.tap(holder(everyone, re.compile("^2 Equipment"), turn), re.compile("^2 Equipment"))
        turn += 1
        assert turn < 12, walk.walked
    # The expedition: cards covered, the Wanderer passed by, the Queen beaten.
    seen = 0
    while not holder(everyone, re.compile("^We beat the Queen")):
        name = re.compile("^(All covered|No thanks, walk on)")
        walk.tap(holder(everyone, name, seen), name)
        seen += 1
        assert seen < 20, walk.walked
    walk.tap(ben, re.compile("^We beat the Queen"))
    for page in everyone:
        expect(card(page).locator("h2")).to_have_text(say("You did it!", exact=True))
        walk.in_first_screen(page, card(page).get_by_role("button", name=say(re.compile("Play again"))))
    walk.finish()
    after_game_pages(walk, ana, code)


def test_woodland_wizards_walked_through_four_rounds(live_server, phones_in_pseudo):
    ana, ben, cara = everyone = phones_in_pseudo(3)
    names = ["Ana", "Ben", "Cara"]
    ana.goto(live_server + "/new/woodland-wizards")
    for i, name in enumerate(names):
        ana.get_by_label(say(f"Player {i + 1}", exact=True)).fill(name)
    ana.get_by_label(say("First starting player")).select_option("0")
    ana.get_by_role("button", name=say("Create the table")).click()
    code = ana.locator(".code-big").first.inner_text().strip()
    ana.get_by_role("button", name=say("I am Ana")).click()
    join(ben, live_server, code, "Ben")
    join(cara, live_server, code, "Cara")
    walk = Walk(live_server, everyone, names, "walk-ww")
    walk.arrived()
    for round_ in range(4):
        # Wandering: from the starting player round the table.
        for step in range(3):
            page = next(p for p in everyone
                        if card(p).get_by_role("button", name=say(re.compile("drew and played: "))).count())
            walk.tap(page, re.compile("drew and played: "))
        walk.tap(everyone[round_ % 3], re.compile("^Next: Boost"))
        if round_ in (0, 3):  # a boost and a second Boost round; the middle rounds all pass at once
            walk.tap(ana, re.compile("^Ana boosts"))
            for page, name in ((ben, "Ben"), (cara, "Cara")):
                walk.tap(page, re.compile(f"^{name} passes"))
            walk.tap(ben, re.compile("^Next Boost round"))
            walk.tap(ana, re.compile("^Ana passes"))
        else:
            for page, name in zip(everyone, names):
                walk.tap(page, re.compile(f"^{name} passes"))
        # Scoring: each phone types its own total; the round ranked; creatures scored.
        for page, total in zip(everyone, (3 + round_, 5, 7 - round_)):
            page.locator("[data-primary] .total-row.me .sum-input").fill(str(total))
            walk.tap(page, re.compile("^(Save|Change)"), within=card(page).locator(".total-row.me"))
        walk.tap(cara, re.compile("^Rank the round"))
        while True:
            form = next((p for p in everyone if card(p).locator("form.creature").count()), None)
            if form is None:
                break
            creature = card(form).locator("form.creature").first
            creature.get_by_label(say(re.compile("creature value"))).fill("4")
            walk.tap(form, re.compile("^Add to"), within=creature)
        nxt = re.compile("^(Clean up and start round|Final scores)")
        page = next(p for p in everyone if card(p).get_by_role("button", name=say(nxt)).count())
        walk.tap(page, nxt)
    for page in everyone:
        expect(card(page).locator(".ww-verdict")).to_contain_text(say("wins"))
    shot(ben, "walk-ww-01-final")
    walk.finish()
    after_game_pages(walk, ben, code)


def test_a_campaign_chapter_walked_to_its_victory_and_the_next_chapter(live_server, phones_in_pseudo):
    ana, ben, cara = everyone = phones_in_pseudo(3)
    names = ["Ana", "Ben", "Cara"]
    ana.goto(live_server + "/campaigns")
    ana.get_by_label(say("Campaign name")).fill("Walk Woods")
    for i, (name, hero) in enumerate(zip(names, ("xylia", "klethor", "shavi")), start=1):
        ana.get_by_label(say(f"Player {i}", exact=True)).fill(name)
        ana.get_by_label(say(f"Player {i}'s Hero")).select_option(hero)
    ana.get_by_role("button", name=say("Begin the campaign")).click()
    campaign = ana.url
    axe(ana, "walk-camp: a new campaign's page")
    ana.get_by_role("button", name=say(re.compile("Start chapter 1"))).click()
    code = ana.locator(".code-big").first.inner_text().strip()
    ana.get_by_role("button", name=say("I am Ana")).click()
    join(ben, live_server, code, "Ben")
    join(cara, live_server, code, "Cara")
    walk = Walk(live_server, everyone, names, "walk-camp", allowed=["Walk Woods"])
    walk.arrived()
    growth(walk, everyone, names)

    # Xylia's turn: a Snake on her turn card; the chapter's quest from its panel.
    walk.tap(ana, "Defeated a Snake")
    open_panel(ben, "ex-chapter")
    for colour in "ABC":
        for _ in range(2):
            walk.tap(ben, f"Mushrooms, colour {colour} plus one")
    for _ in range(2):
        walk.tap(ben, "Empty vials plus one")
    open_panel(ana, "ex-hero-xylia")
    for _ in range(4):
        walk.tap(ana, "Xylia orbs plus one")
    open_panel(cara, "ex-chapter")
    for _ in range(2):
        walk.tap(cara, "Xylia concocts a potion")
    # The ambush: its Monsters defeated one by one, then the victory card with its tally.
    campfire = cara.get_by_role("button", name=say("Monsters on the Campfire minus one"))
    while campfire.count():
        walk.tap(cara, "Monsters on the Campfire minus one")
    for page in everyone:
        expect(card(page).locator(".ex-result-title")).to_have_text(say("🏆 Victory!", exact=True))
    walk.tap(ben, "Snakes of the chapter plus one")
    shot(ben, "walk-camp-01-tally-on-the-victory-card")
    walk.finish()

    # Confirmed: the campaign page; chapter 2 started there; the others go on in one tap.
    ana.get_by_role("button", name=say("Confirm the end of the chapter")).click()
    expect(ana.locator(".camp-awakens-last")).to_contain_text(say("Snakes were defeated most"))
    axe(ana, "walk-camp: the campaign page after chapter 1")
    walk.assert_translated(ana)
    ana.get_by_role("button", name=say(re.compile("Start chapter 2"))).click()
    for page, name in ((ben, "Ben"), (cara, "Cara")):
        go_on = card(page).get_by_role("button", name=say(re.compile(f"Go on to chapter 2 as {name}")))
        walk.in_first_screen(page, go_on)
    go_on.click()
    expect(cara.locator(".quest-title")).to_have_text(say("Tree of Life (part 1)", exact=True))
    ana.goto(campaign)
    axe(ana, "walk-camp: the campaign page during chapter 2")
    walk.assert_translated(ana)
