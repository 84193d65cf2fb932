"""The Wicked Forest read in the pseudo-locale: every phase, panel, refusal and log line a
player reads comes through the catalogs (no bare English besides the players' names).

Only the game's own part of a page is read (its board's templates): the table's
chrome around it is another area's. The steppers' "minus one"/"plus one" come from
companion/web/forms.py, also another area's, and are taken out here."""

import re

from .pseudo import bare_english, board_part
from .helpers import act
from .test_wicked_forest_web import new_table, ok, sit_everyone, view_of

PLAYERS = ["Ana", "Ben", "Cara"]
XA = "lang=en_XA"


def game_part(html: str) -> str:
    return board_part(html, "wicked-forest.css")


def bare(html: str, code: str) -> list[str]:
    html = re.sub(r" (minus|plus) one\"", '"', html)
    return bare_english(html, allowed=PLAYERS + [code])


def check_page(client, code, **query):
    extra = "".join(f"&{k}={v}" for k, v in query.items())
    html = client.get(f"/t/{code}?{XA}{extra}").get_data(as_text=True)
    found = bare(game_part(html), code)
    assert not found, found
    return html


def check_private(client, code, seat):
    html = client.get(f"/t/{code}/view?{XA}&as={seat}", headers={"HX-Request": "true"}).get_data(as_text=True)
    found = bare(game_part(html), code)
    assert not found, found
    return html


def check_text(text: str, code: str):
    assert text, text
    found = bare(f"<p>{text}</p>", code)
    assert not found, found


def check_json(client, code):
    view = client.get(f"/api/tables/{code}?{XA}").get_json()["view"]
    for line in view["events"] + view["setup_notes"] + ([view["decided_by"]] if view.get("decided_by") else []):
        check_text(line, code)
    for entry in client.get(f"/api/tables/{code}/actions?{XA}").get_json()["actions"]:
        check_text(entry["text"], code)


def refused_tap(client, code, fields):
    """A refusal read through the JSON API in the pseudo-locale. (A page's toast carries it in
    an HX-Trigger header that companion/web/pages.py still writes in English: not this area.)"""
    params = {k: v for k, v in fields.items() if k not in ("action", "seat")}
    version = client.get(f"/api/tables/{code}").get_json()["version"]
    body = {"action": fields["action"], "params": params, "seat": int(fields["seat"]), "version": version}
    resp = client.post(f"/api/tables/{code}/actions?{XA}", json=body)
    assert resp.status_code == 400, resp.get_json()
    check_text(resp.get_json()["error"], code)


def test_a_whole_game_reads_in_the_pseudo_locale(client, make_client):
    code = new_table(client, PLAYERS, inventory=True)
    sit_everyone(client, code)
    check_page(client, code)  # round 1: the reveal pad and the setup checklist
    check_json(client, code)

    # Card 1: the phone holding every seat asks to pass it; each player's private screen.
    ok(act(client, code, "reveal", {"flowers": 3, "witch": False}, seat=0))
    check_page(client, code)
    check_private(client, code, 0)
    ok(act(client, code, "choose", {"choice": "stay", "decision": 1}, seat=0))
    check_private(client, code, 0)
    check_page(client, code, show=1)
    onlooker = make_client()
    check_page(onlooker, code)  # a phone with no seat: "the players choose in secret"
    # The log line of a pick is the same in every language and says nothing of which.
    picks = client.get(f"/api/tables/{code}/actions?{XA}").get_json()["actions"]
    assert picks[-1]["text"] == picks[-1]["text"].replace("Stay", "").replace("stay", "")
    ok(act(client, code, "choose", {"choice": "return", "decision": 1}, seat=1))
    ok(act(client, code, "choose", {"choice": "stay", "decision": 1}, seat=2))
    check_page(client, code)  # Ben is asked what he crystallized; the choices panel
    check_json(client, code)

    # Refusals: a Cultivation tile without a color; storing outside the Preparation Phase.
    refused_tap(client, code, {"action": "crystallize", "seat": "0", "player": "1", "item": "cultivation",
                               "color": "none", "magic": "1", "spent": "0"})
    refused_tap(client, code, {"action": "store", "seat": "0", "player": "1"})
    ok(act(client, code, "crystallize", {"player": 1, "magic": 2, "item": "exchange", "color": "blue",
                                         "spent": 2}, seat=1))
    ok(act(client, code, "done_crystallizing", {"player": 1}, seat=1))

    # Two Witches: Ana and Cara are caught; Exploration is over.
    ok(act(client, code, "reveal", {"flowers": 1, "witch": True}, seat=0))
    ok(act(client, code, "choose", {"choice": "stay", "decision": 2}, seat=0))
    ok(act(client, code, "choose", {"choice": "stay", "decision": 2}, seat=2))
    ok(act(client, code, "reveal", {"flowers": 2, "witch": True}, seat=0))
    assert view_of(client, code)["phase"] == "end"
    check_page(client, code)  # Crystallization, "Stop the game here"
    check_json(client, code)

    # Round 2: the Preparation Phase.
    ok(act(client, code, "next_round", {"round": 2}, seat=1))
    ok(act(client, code, "set_inventory", {"player": 1, "bag": 3, "storehouse": 0}, seat=1))
    check_page(client, code)
    ok(act(client, code, "store", {"player": 1}, seat=0))
    ok(act(client, code, "done_preparing", {"player": 0}, seat=0))
    check_page(client, code)
    ok(act(client, code, "start_exploration", {"round": 2}, seat=1))

    # Made the final round; everyone returns on the first card: the final tally, tied.
    ok(act(client, code, "set_run_outs", {"count": 2}, seat=0))
    ok(act(client, code, "reveal", {"flowers": 4, "witch": False}, seat=1))
    for seat in range(3):
        ok(act(client, code, "choose", {"choice": "return", "decision": 1}, seat=seat))
    for seat in view_of(client, code)["crystallizing"]:
        ok(act(client, code, "done_crystallizing", {"player": seat}, seat=0))
    for seat in range(3):
        ok(act(client, code, "set_magic", {"player": seat, "magic": 5}, seat=0))
    assert view_of(client, code)["phase"] == "tally"
    check_page(client, code)
    onlooker_html = onlooker.get(f"/t/{code}?{XA}").get_data(as_text=True)
    assert not bare(game_part(onlooker_html), code)
    refused_tap(client, code, {"action": "reveal", "seat": "1", "card": "2", "flowers": "0", "witch": "0"})
    ok(act(client, code, "confirm_tally", {}, seat=0))
    check_page(client, code)  # the finished screen, the standings and the tie-break
    check_json(client, code)

    log = client.get(f"/t/{code}/log?{XA}").get_data(as_text=True)
    body = log[log.index("<main"):log.index("</main>")] if "<main" in log else log
    lines = re.findall(r"<li[^>]*>(.*?)</li>", body, re.S)
    assert lines
    for line in lines:
        assert not bare(f"<p>{line}</p>", code), line


def test_an_early_end_and_the_options_read_in_the_pseudo_locale(client):
    code = new_table(client, PLAYERS[:2])
    sit_everyone(client, code)
    ok(act(client, code, "reveal", {"flowers": 2, "witch": False}, seat=0))
    ok(act(client, code, "choose", {"choice": "return", "decision": 1}, seat=0))
    ok(act(client, code, "choose", {"choice": "return", "decision": 1}, seat=1))
    ok(act(client, code, "finish", {}, seat=0))
    check_page(client, code)
    check_json(client, code)
    html = client.get(f"/new/wicked-forest?{XA}").get_data(as_text=True)
    start = html.rindex("<fieldset", 0, html.index('name="first_leader"'))
    options = html[start:html.index("</details>", start) + 10]  # templates/wicked-forest/_options.html
    found = [line for line in bare(options, code)]
    # The seat menu's own words ("At random", "Player 1") are templates/table/_macros.html's.
    assert not [line for line in found if not re.fullmatch(r"(At random|Player \d)", line)], found
