"""The table clock on two phones: the decision countdown, a pause seen everywhere, time up."""

import re

import pytest

from .browser import browser, live_server, phones, shot  # noqa: F401  (fixtures)
from .helpers import with_step
from .test_browser_table import join

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect


def seconds_shown(page):
    minutes, seconds = page.locator(".countdown .cd-time").inner_text().split(":")
    return int(minutes) * 60 + int(seconds)


def post_action(page, base, code, action, params):
    """What a phone's form does, through the JSON API with the phone's own cookies."""
    table = page.request.get(f"{base}/api/tables/{code}").json()
    resp = page.request.post(f"{base}/api/tables/{code}/actions",
                             data={"action": action, "params": with_step(table, action, params),
                                   "version": table["version"]},
                             headers={"Origin": base})
    assert resp.ok, resp.text()


def test_two_phones_share_the_countdown_and_the_pause(live_server, phones):
    ana, ben = phones(2)
    ana.goto(live_server + "/")
    ana.get_by_role("link", name=re.compile("The Wicked Forest")).click()
    for i, name in enumerate(["Ana", "Ben"]):
        ana.get_by_label(f"Player {i + 1}", exact=True).fill(name)
    ana.get_by_label("First leader").select_option("0")
    ana.locator("label", has_text="30 s").click()
    ana.get_by_role("button", name="Create the table").click()
    code = ana.locator(".code-big").first.inner_text().strip()
    ana.get_by_role("button", name="I am Ana").click()
    join(ben, live_server, code, "Ben")

    # The card is revealed: the decision countdown runs on both phones.
    ana.get_by_role("button", name="2 Flowers, no Witch").click()
    for page in (ana, ben):
        expect(page.locator(".countdown")).to_contain_text("Stay or Return?")
        # Under 0:30 (the first figure shown may be 0:31, the page's clock a little behind
        # the server's), and moving down from there.
        expect(page.locator(".countdown .cd-time")).to_have_text(re.compile(r"^0:[0-2]\d$"), timeout=4000)
        assert 20 <= seconds_shown(page) < 30

    # Ben pauses: Ana's phone says so and its countdown stands still.
    ben.get_by_role("button", name="⏸ Pause").click()
    expect(ana.locator(".paused-banner")).to_be_visible()
    frozen = ana.locator(".countdown .cd-time").inner_text()
    ana.wait_for_timeout(1500)
    expect(ana.locator(".countdown .cd-time")).to_have_text(frozen)
    expect(ana.locator(".countdown")).to_have_class(re.compile("still"))
    shot(ben, "30-timer-paused")

    # Ana resumes; the pause is gone from Ben's phone and the time moves on.
    ana.get_by_role("button", name="▶ Resume").click()
    expect(ben.locator(".paused-banner")).to_have_count(0)
    expect(ben.locator(".countdown .cd-time")).not_to_have_text(frozen, timeout=4000)

    # A short countdown for the test's sake: when it ends, both phones signal it, and the
    # players who have not chosen are pointed out. Nobody's choice is made for them.
    ben.get_by_role("button", name="✊ Stay").click()
    post_action(ana, live_server, code, "timer_set", {"mode": "turn", "seconds": 5})
    for page in (ana, ben):
        expect(page.locator(".time-up-banner")).to_be_visible(timeout=10000)
        expect(page.locator(".countdown .cd-time")).to_have_text("0:00")
    expect(ana.locator(".waiting .still-choosing")).to_have_text("Ana")
    expect(ana.locator(".view.time-up .waiting .still-choosing")).to_be_visible()
    expect(ana.locator(".waiting")).to_contain_text("Chosen: Ben")
    shot(ana, "31-timer-time-up")
    ben.reload()
    expect(ben.locator(".time-up-banner")).to_be_visible()
    expect(ben.locator(".peek summary")).to_contain_text("Your choice is in")


def test_the_clock_writes_only_what_changed(live_server, phones):
    """The clock counts four times a second; each of its texts is written when it changes
    and not again in between (every write costs a slow phone a style, layout and paint)."""
    (ana,) = phones(1)
    ana.goto(live_server + "/")
    ana.get_by_role("link", name=re.compile("The Wicked Forest")).click()
    for i, name in enumerate(["Ana", "Ben"]):
        ana.get_by_label(f"Player {i + 1}", exact=True).fill(name)
    ana.get_by_label("First leader").select_option("0")
    ana.locator("label", has_text="30 s").click()
    ana.get_by_role("button", name="Create the table").click()
    ana.get_by_role("button", name="I am Ana").click()
    ana.get_by_role("button", name="2 Flowers, no Witch").click()
    expect(ana.locator(".countdown .cd-time")).not_to_have_text("0:30", timeout=4000)
    assert ana.locator("#view [data-sound-toggle]").count() == 1

    # Every write to the countdown's digits or the sound switch, and the text it left.
    ana.evaluate("""() => {
      const digits = document.querySelector("#view .cd-time");
      const sound = document.querySelector("#view [data-sound-toggle]");
      window.__writes = {digits: [], sound: 0};
      new MutationObserver((records) => {
        for (const record of records) {
          if (digits.contains(record.target)) window.__writes.digits.push(digits.textContent);
          else if (sound.contains(record.target)) window.__writes.sound += 1;
        }
      }).observe(document.getElementById("view"), {subtree: true, childList: true, characterData: true});
    }""")
    # Three new seconds shown: twelve ticks or so.
    ana.wait_for_function("() => new Set(window.__writes.digits).size >= 3", timeout=10000)
    writes = ana.evaluate("() => window.__writes")
    # One write per second shown (a text node set is one record), none for the same text.
    shown = writes["digits"]
    assert all(a != b for a, b in zip(shown, shown[1:])), shown
    assert writes["sound"] == 0
