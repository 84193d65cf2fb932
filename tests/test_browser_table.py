"""Phones in a real browser: create, join by code, live updates over SSE, reload, undo."""

import re

import pytest

from .browser import Watch, browser, live_server, phones, shot  # noqa: F401  (fixtures)

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect


def create_wicked_forest(page, base, players, leader="0"):
    page.goto(base + "/")
    page.get_by_role("link", name=re.compile("The Wicked Forest")).click()
    for i, name in enumerate(players):
        page.get_by_label(f"Player {i + 1}", exact=True).fill(name)
    page.get_by_label("First leader").select_option(leader)
    page.get_by_role("button", name="Create the table").click()
    code = page.locator(".code-big").first.inner_text().strip()
    return code


def join(page, base, code, name):
    page.goto(base + "/")
    page.get_by_label("Table code").fill(code.lower())
    page.get_by_role("button", name="Join", exact=True).click()
    page.get_by_role("button", name=f"I am {name}").click()
    expect(page.locator(".seat-chip.mine")).to_contain_text(name)


def ana_and_ben_seated(ana, ben, base):
    """A Wicked Forest table of three, Ana's and Ben's phones seated; its code."""
    code = create_wicked_forest(ana, base, ["Ana", "Ben", "Cara"])
    ana.get_by_role("button", name="I am Ana").click()
    expect(ana.locator(".seat-chip.mine")).to_contain_text("Ana")
    join(ben, base, code, "Ben")
    return code


def test_create_join_live_update_reload_and_undo(live_server, phones):
    ana, ben = phones(2)
    code = create_wicked_forest(ana, live_server, ["Ana", "Ben", "Cara"])
    assert re.fullmatch(r"[A-Z0-9]{4}", code) and not set(code) & set("0O1IL")
    expect(ana.locator("img.qr")).to_be_visible()
    shot(ana, "01-join-page-with-qr")
    ana.get_by_role("button", name="I am Ana").click()
    expect(ana.locator(".seat-chip.mine")).to_contain_text("Ana")
    join(ben, live_server, code, "Ben")
    shot(ben, "02-ben-seated")

    # Ana reveals a card; Ben's phone shows it without reloading (pushed over SSE).
    ana.get_by_role("button", name="3 Flowers, no Witch").click()
    expect(ana.locator(".forest h2")).to_have_text("Forest: 1 of 9 revealed")
    expect(ben.locator(".forest h2")).to_have_text("Forest: 1 of 9 revealed", timeout=5000)
    expect(ben.get_by_role("button", name=re.compile("Stay"))).to_be_visible()

    # A reload keeps Ben in his seat.
    ben.reload()
    expect(ben.locator(".seat-chip.mine")).to_contain_text("Ben")
    expect(ben.locator(".forest h2")).to_have_text("Forest: 1 of 9 revealed")

    # Undo from Ben's phone restores the previous state on both phones.
    ben.get_by_role("button", name=re.compile("Undo")).click()
    expect(ben.locator(".forest h2")).to_have_text("Forest: 0 of 9 revealed")
    expect(ana.locator(".forest h2")).to_have_text("Forest: 0 of 9 revealed", timeout=5000)
    shot(ana, "03-after-undo")


def test_stream_drop_is_followed_by_a_full_resync(live_server, phones):
    ana, ben = phones(2)
    code = create_wicked_forest(ana, live_server, ["Ana", "Ben"])
    ana.get_by_role("button", name="I am Ana").click()
    expect(ana.locator(".seat-chip.mine")).to_contain_text("Ana")
    join(ben, live_server, code, "Ben")
    # Ben's phone goes to the background: its stream is cut and updates are missed.
    ben.context.set_offline(True)
    ana.get_by_role("button", name="2 Flowers, no Witch").click()
    expect(ana.locator(".forest h2")).to_have_text("Forest: 1 of 9 revealed")
    ben.wait_for_timeout(700)
    ben.context.set_offline(False)
    # Coming back: the stream reconnects and the whole view is fetched again.
    expect(ben.locator(".forest h2")).to_have_text("Forest: 1 of 9 revealed", timeout=10000)


def test_another_phones_move_arrives_as_a_pushed_view_with_no_fetch(live_server, phones):
    ana, ben = phones(2)
    code = ana_and_ben_seated(ana, ben, live_server)
    watch = Watch(ben)
    fetches = []
    ben.on("request", lambda r: f"/t/{code}/view" in r.url and fetches.append(r.url))
    # Ben has the More sheet and its Last moves open: a pushed view keeps them open.
    ben.locator("#more > summary").click()
    ben.locator("#more-moves > summary").click()
    expect(ben.locator("#more-moves")).to_have_attribute("open", "")

    ana.get_by_role("button", name="3 Flowers, no Witch").click()
    expect(ben.locator(".forest h2")).to_have_text("Forest: 1 of 9 revealed", timeout=5000)
    expect(ben.locator("#more-moves .log")).to_contain_text("3")
    assert fetches == []  # the view came in the stream
    expect(ben.locator("#more")).to_have_attribute("open", "")
    expect(ben.locator("#more-moves")).to_have_attribute("open", "")
    # Ben's own tap still answers with his view, and Ana's phone is pushed it.
    ben.get_by_role("button", name=re.compile("Stay")).first.click()
    expect(ben.locator("#view .view")).to_have_attribute("data-version", "2")
    expect(ana.locator("#view .view")).to_have_attribute("data-version", "2", timeout=5000)
    expect(ana.get_by_text("Ben has chosen. Waiting for Ana and Cara.")).to_be_visible()
    shot(ben, "04-pushed-view-with-more-open")
    watch.assert_clean()


def test_views_after_the_first_arrive_as_changes_and_the_page_puts_them_together(live_server, phones):
    """After its first view the stream sends what changed: Ben's page puts each together
    from the one before, shows it with no fetch, and a reload shows the same."""
    ana, ben = phones(2)
    code = ana_and_ben_seated(ana, ben, live_server)
    watch = Watch(ben)
    fetches, changes = [], []
    ben.on("request", lambda r: f"/t/{code}/view" in r.url and fetches.append(r.url))
    ben.on("console", lambda m: m.text.startswith("change") and changes.append(m.text))
    # Count the changes the page is sent (the first view comes whole, the others as changes).
    ben.evaluate("""() => document.addEventListener("htmx:sseBeforeMessage", (e) => {
        if (e.detail.type === "view") console.log(e.detail.data.charAt(0) === "<" ? "whole" : "change");
    }, true)""")
    ben.locator("#wf-piles > summary").click()
    ana.locator("#wf-piles > summary").click()
    pile = int(ben.locator("#wf-piles .step-value").first.inner_text())
    for version in (1, 2, 3):
        ana.get_by_role("button", name="Draw pile minus one").click()
        expect(ana.locator("#view .view")).to_have_attribute("data-version", str(version))
        expect(ben.locator("#view .view")).to_have_attribute("data-version", str(version), timeout=5000)
        expect(ben.locator("#wf-piles .step-value").first).to_have_text(str(pile - version))
    assert fetches == []  # each view came in the stream, put together on the page
    assert changes == ["change"] * 3  # each view after the first on the stream
    expect(ben.locator("#wf-piles")).to_have_attribute("open", "")
    def shown():  # the table clock runs meanwhile
        return re.sub(r"\d+:\d\d", "<time>", ben.locator("#view").inner_text())
    pushed = shown()
    watch.assert_clean()
    ben.reload()  # (it cuts the stream: no longer watched)
    ben.locator("#wf-piles > summary").click()
    assert shown() == pushed


def test_a_change_the_page_cannot_put_together_opens_the_stream_anew(live_server, phones):
    """A change that does not fit the view the page kept is not shown: the view is fetched,
    and the stream is opened again, so the changes after it fit again."""
    ana, ben = phones(2)
    code = ana_and_ben_seated(ana, ben, live_server)
    ana.locator("#wf-piles > summary").click()
    fetches = []
    ben.on("request", lambda r: f"/t/{code}/view" in r.url and fetches.append(r.url))
    # A change whose span lies beyond the view the page holds: the stream is opened anew.
    with ben.expect_request(lambda r: f"/t/{code}/events" in r.url, timeout=5000):
        ben.evaluate("""() => document.getElementById("view").dispatchEvent(new CustomEvent(
            "htmx:sseBeforeMessage", {bubbles: true, cancelable: true,
                                      detail: {type: "view", data: "~5\\n=99999,5"}}))""")
    expect(ben.locator("#view .view")).to_have_attribute("data-version", "0")
    for version in (1, 2, 3):
        ana.get_by_role("button", name="Draw pile minus one").click()
        expect(ana.locator("#view .view")).to_have_attribute("data-version", str(version))
        expect(ben.locator("#view .view")).to_have_attribute("data-version", str(version), timeout=5000)
    assert fetches == []  # every view came in the new stream, whole then as changes


def test_a_tap_on_a_form_every_phone_shares_sends_a_request_id_of_this_phone(live_server, phones):
    """The correction panels are rendered once for every phone and carry no request id: the
    page gives the tapped form its own, a fresh one on each phone."""
    ana, ben = phones(2)
    code = ana_and_ben_seated(ana, ben, live_server)
    sent = {"ana": [], "ben": []}
    for who, page in (("ana", ana), ("ben", ben)):
        page.on("request", lambda r, who=who: r.method == "POST" and "/act" in r.url
                and sent[who].append(re.search(r"(?:^|&)rid=([^&]*)", r.post_data or "").group(1)))
    watches = [Watch(ana), Watch(ben)]
    for page, version in ((ana, "1"), (ben, "2")):
        page.locator("#wf-piles > summary").click()
        page.get_by_role("button", name="Draw pile minus one").click()
        expect(page.locator("#view .view")).to_have_attribute("data-version", version)
        expect(page.locator("#wf-piles")).to_have_attribute("open", "")
    assert len(sent["ana"]) == len(sent["ben"]) == 1
    assert sent["ana"][0] and sent["ben"][0] and sent["ana"][0] != sent["ben"][0]
    # The pushed view brought Ana the form anew, with no id until it is tapped.
    expect(ana.locator("#view .view")).to_have_attribute("data-version", "2", timeout=5000)
    assert ana.locator("#wf-piles form input[name=rid]").first.get_attribute("value") == ""
    for watch in watches:
        watch.assert_clean()


def test_each_phone_sees_its_own_board_marked_in_the_players_panel_every_phone_shares(live_server, phones):
    ana, ben = phones(2)
    code = ana_and_ben_seated(ana, ben, live_server)
    for page, mine in ((ana, "Ana"), (ben, "Ben")):
        page.locator("#wf-players > summary").click()
        boards = page.locator("#wf-players article.player")
        expect(boards).to_have_count(3)
        marked = [boards.nth(i).evaluate("el => getComputedStyle(el).borderLeftWidth") == "4px"
                  for i in range(3)]
        names = [boards.nth(i).locator("header b").first.inner_text() for i in range(3)]
        assert [n for n, m in zip(names, marked) if m] == [mine]
