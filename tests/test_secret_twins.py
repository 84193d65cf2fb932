"""Twin tables: an unrevealed pick is known to its owner's phone alone, on every path.

Two apps play the same game in lockstep, request for request, at the same (fake) time and
under the same table code. The only difference: the Stay/Return picks of some seats are
flipped in the second twin for as long as they stay unrevealed. Random sequences mix every
action of the game, corrections, early ends, undo, seats freed and taken again by another
phone, a phone passed around, the clock jumping a day ahead (the table archived as
unfinished), a rematch with every seat moving to the new table, and reads of every page, fragment, JSON answer, log, stream, history and
export. After every step, everything a phone that does not own a diverging pick can read
must be byte-identical between the twins; and each twin's stored state is the fold of its
live log.

The phones read in different languages (German, French, Spanish, English and the
pseudo-locale, each phone its own, the same in both twins): a translation must never tell a
pick either, by a grammatical form or by its length.

Before every pick that would open the hands, both twins first set the diverging picks to the
same value (a change of mind in the second twin), so the reveals, and everything after them,
agree.
"""

from __future__ import annotations

import os
import re
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import (RuleBasedStateMachine, initialize, invariant, precondition,
                                 rule, run_state_machine_as_test)

from companion import create_app, live, store, tables
from companion.games import GAMES, get_game
from companion.web import i18n, pages
from companion.web.limits import limiter

from .helpers import name_step
from .test_fuzz_api import OPTIONS, PROGRESS, valid_value
from .test_secrecy import normalise, read_stream

CODE = "TWNX"
NEXT_CODE = "TWNY"  # the rematch's table
NAMES = ["Ana", "Ben", "Cara", "Dan", "Eli"]
FLIP = {"stay": "return", "return": "stay"}
ORIGIN = {"Origin": "http://localhost"}
HX = {"HX-Request": "true"}
# Each new phone's language, in turn: the same phone reads the same language in both twins.
LANGUAGES = ["de", "fr", "es", "en", "en_XA"]
FIGURES = {"languages": set(), "steps": 0, "reads": 0, "compared": 0, "routes": set(), "observers": 0,
           "withdrawn": 0, "dropped": 0, "examples": 0, "changes": 0, "rematches": 0}


class FakeClock:
    """One wall clock for both twins: it moves only when a step says so."""

    def __init__(self):
        self.now = 1_800_000_000.0

    def __call__(self):
        return self.now


CLOCK = FakeClock()


def make_app(path: Path):
    return create_app({"TESTING": True, "DATABASE": str(path), "SECRET_KEY": "twin-key",
                       "LAN_ADDRESS": "192.168.1.20", "STREAM_POLL_SECONDS": 0.01,
                       "STREAM_MAX_SECONDS": 0.0, "CODE_GUESS_LIMIT": "100000 per minute"})


def answer(resp) -> str:
    body = resp.get_data(as_text=True)
    # A history entry's id is random: drawn once per record, whatever was picked.
    body = re.sub(r"\b[0-9a-f]{32}\b", "<UID>", body)
    # The toast an htmx answer asks for (HX-Trigger) is read by everyone at the table too.
    shown = " ".join(normalise(resp.headers.get(h, "")) for h in ("Location", "HX-Trigger", "HX-Reswap"))
    return f"{resp.status_code} {resp.mimetype} {shown}\n{normalise(body)}"


class Twin:
    """One app with its phones: `phones[name]` is a test client with its own cookies."""

    def __init__(self, path: Path):
        self.app = make_app(path)
        limiter.reset()
        self.phones = {}

    def phone(self, name):
        if name not in self.phones:
            client = self.app.test_client()
            client.set_cookie(i18n.COOKIE, LANGUAGES[len(self.phones) % len(LANGUAGES)])
            self.phones[name] = client
        return self.phones[name]

    def table(self):
        """The table row and its live log, found by its first id: an archived table gives its
        code back, and a table never played is deleted after a while (then: None, [])."""
        conn = store.connect(self.app.config["DATABASE"])
        try:
            found = conn.execute("SELECT code FROM game_table ORDER BY id LIMIT 1").fetchone()
            row = store.get_table(conn, found["code"]) if found else None
            return row, (store.live_actions(conn, row.id) if row else [])
        finally:
            conn.close()


class TwinTables(RuleBasedStateMachine):
    game_id = "wicked-forest"

    def __init__(self):
        super().__init__()
        self.dir = Path(tempfile.mkdtemp(prefix="twins-"))
        self.game = get_game(self.game_id)
        self.secret = [name for name, spec in self.game.ACTIONS.items() if spec.secret]
        self.moves = sorted(name for name in tables.all_actions(self.game) if name not in self.secret)
        self.twins = [Twin(self.dir / "a.sqlite"), Twin(self.dir / "b.sqlite")]
        self.owner = {}  # seat -> phone name
        self.truth = {}  # seat -> the pick the first twin holds, while unrevealed
        self.diverged = set()  # seats whose unrevealed pick differs between the twins
        self.phone_count = 0
        self.archived = False
        self.rematched = False
        self.rules_run = 0
        self.streams = {}  # (twin, phone) -> (its cookie, its open stream's renderer)
        FIGURES["examples"] += 1

    # ------------------------------------------------------------------ helpers

    def both(self, call):
        """Run the same request in both twins; return both responses."""
        return [call(twin) for twin in self.twins]

    def same_status(self, responses):
        assert responses[0].status_code == responses[1].status_code, (
            [r.get_data(as_text=True)[:300] for r in responses])
        assert all(r.status_code < 500 for r in responses)
        return responses[0].status_code

    def view(self):
        row, _ = self.twins[0].table()
        return (self.game.view(row.snapshot, None) if row else {}), row

    def compare(self, label, first, second):
        FIGURES["compared"] += 1
        assert not first.startswith("500 "), f"{label} broke: {first[:500]}"
        assert first == second, f"a phone can tell the hidden picks apart through {label}"

    def observer_phones(self):
        """Phones that may not see any diverging pick (see `owned_views`)."""
        return [name for name in self.twins[0].phones if not self.owned_views(name)]

    def passed_around(self, name):
        return sum(1 for owner in self.owner.values() if owner == name) > 1

    def owned_views(self, name):
        """A phone's own picks show on its own screen: such a phone is no observer, unless it
        is passed around, where the common screens must not tell either."""
        return name in {self.owner[s] for s in self.diverged} and not self.passed_around(name)

    def act(self, seat, action, params, flipped_params=None, html=False):
        """The phone holding `seat` sends an action in both twins (the second may differ)."""
        name = self.owner[seat]

        def send(twin, p):
            phone = twin.phone(name)
            row, _ = twin.table()
            version = row.version if row else 0
            if row:
                p = name_step(self.game, row.snapshot, action, p)  # as the page's hidden field does
            if html:
                form = {"action": action, "version": str(version), "rid": f"r{FIGURES['steps']}",
                        "seat": str(seat), **{k: str(v).lower() if isinstance(v, bool) else str(v)
                                              for k, v in p.items()}}
                if name == "shared":
                    form["as"] = str(seat)
                return phone.post(f"/t/{CODE}/act", data=form, headers={**HX, **ORIGIN})
            return phone.post(f"/api/tables/{CODE}/actions", headers=ORIGIN, json={
                "action": action, "params": p, "version": version, "seat": seat,
                "request_id": f"r{FIGURES['steps']}"})

        FIGURES["steps"] += 1
        first = send(self.twins[0], params)
        second = send(self.twins[1], flipped_params if flipped_params is not None else params)
        status = self.same_status([first, second])
        self.after_write()
        # The answer goes to the acting seat: it may show that seat's own pick. A phone passed
        # around shows a pick only in the answer to that very pick (flipped: not compared).
        passed_on = self.passed_around(name)
        if flipped_params is None and (passed_on or (not self.owned_views(name) and seat not in self.diverged)):
            self.compare(f"the answer to {action}", answer(first), answer(second))
        return status, first

    def after_write(self):
        """Which unrevealed picks remain: a seat's pick gone unseen is no longer diverged."""
        row, _ = self.twins[0].table()
        for seat in list(self.truth):
            if row is None or not self.game.secret_open(row.snapshot, seat):
                self.truth.pop(seat)
                self.diverged.discard(seat)

    # ------------------------------------------------------------------ setup

    @initialize(data=st.data())
    def sit_down(self, data):
        CLOCK.now = 1_800_000_000.0
        low, high = self.game.MIN_PLAYERS, min(self.game.MAX_PLAYERS, len(NAMES))
        n = data.draw(st.integers(max(low, 2), min(high, 5)), label="players")
        self.players = NAMES[:n]
        shared = data.draw(st.sets(st.integers(0, n - 1), max_size=n), label="seats on one phone")
        if len(shared) == 1:
            shared = set()
        self.flippable = data.draw(st.sets(st.integers(0, n - 1), min_size=1), label="flipped seats")

        def create(twin):
            return twin.phone("host").post("/api/tables", headers=ORIGIN, json={
                "game": self.game_id, "players": self.players, "options": OPTIONS[self.game_id]})
        assert self.same_status(self.both(create)) == 201
        for seat in range(n):
            self.owner[seat] = "shared" if seat in shared else f"phone{seat}"
        for seat in range(n):
            name = self.owner[seat]
            self.both(lambda twin: twin.phone(name).post(f"/api/tables/{CODE}/seats/{seat}", headers=ORIGIN))
        self.both(lambda twin: twin.phone("watcher"))
        if self.secret and data.draw(st.integers(0, 3), label="start at card 2, a Witch out") > 0:
            # Most sequences start one card deep, where a second Witch can end a decision.
            leader = self.view()[0]["leader"]
            self.act(leader, "reveal", {"flowers": 2, "witch": True})
            for seat in range(n):
                self.act(seat, "choose", {"decision": 1, "choice": "stay"})
            self.act(leader, "reveal", {"flowers": 1, "witch": False})
            assert self.view()[0]["phase"] == "choose"
            # Everyone but the last player has chosen card 2 (flipped where drawn so).
            for seat in range(n - 1):
                choice = data.draw(st.sampled_from(["stay", "return"]), label="early pick")
                flipped = {"decision": 2, "choice": FLIP[choice]} if seat in self.flippable else None
                self.act(seat, "choose", {"decision": 2, "choice": choice}, flipped)
                self.truth[seat] = choice
                if flipped:
                    self.diverged.add(seat)

    # ------------------------------------------------------------------ moves

    @rule(data=st.data())
    def move(self, data):
        """Any action but a pick, mostly one that fits the phase, with values in range."""
        v, row = self.view()
        phase = v.get("phase", "")
        if v.get("settled"):
            phase += " settled"
        likely = PROGRESS.get(self.game_id, {}).get(phase, [])
        action = data.draw(st.sampled_from(likely) if likely and data.draw(st.booleans()) else
                           st.sampled_from(self.moves), label="action")
        if action in self.secret:
            return
        spec = tables.all_actions(self.game)[action]
        params = {}
        for param in spec.params:
            if param.name == "decision":
                params[param.name] = v.get("decision")
            elif param.name == getattr(spec, "step", None) and data.draw(st.booleans(), label="named step"):
                continue  # named from the table, as a phone's form does; else drawn, maybe stale
            else:
                params[param.name] = data.draw(valid_value(param, len(self.players)), label=param.name)
        seat = data.draw(st.integers(0, len(self.players) - 1), label="seat")
        open_before = set(self.truth)
        status, _ = self.act(seat, action, params, html=data.draw(st.booleans(), label="html"))
        self.after_write()
        if status == 200:
            FIGURES["dropped"] += len(open_before - set(self.truth))

    @rule(data=st.data())
    def move_again(self, data):
        """Moves drawn twice as often as the other steps, so sequences get somewhere."""
        self.move(data)

    @precondition(lambda self: self.secret)
    @rule(data=st.data())
    def pick(self, data):
        self.make_pick(data)

    # Drawn twice as often as other steps, so most sequences reach reveals and changes of mind.
    @precondition(lambda self: self.secret)
    @rule(data=st.data())
    def pick_again(self, data):
        self.make_pick(data)

    def make_pick(self, data):
        """A secret pick, flipped in the second twin when it will not open the hands."""
        v, row = self.view()
        if v.get("phase") != "choose":
            return
        in_forest = v["in_forest"]
        seat = data.draw(st.sampled_from(in_forest), label="picking seat")
        choice = data.draw(st.sampled_from(["stay", "return"]), label="choice")
        html = data.draw(st.booleans(), label="html")
        waiting = [s for s in in_forest if not self.game.secret_open(row.snapshot, s)]
        opens_hands = waiting == [seat]
        decision = {"decision": v["decision"]}
        if opens_hands:
            # Both twins first agree on every pick, so the reveal shows the same hands.
            for other in sorted(self.diverged):
                self.act(other, "choose", {**decision, "choice": self.truth[other]},
                         {**decision, "choice": self.truth[other]})
                self.diverged.discard(other)
            self.act(seat, "choose", {**decision, "choice": choice}, html=html)
        elif seat in self.flippable:
            self.act(seat, "choose", {**decision, "choice": choice},
                     {**decision, "choice": FLIP[choice]}, html=html)
            self.truth[seat] = choice
            self.diverged.add(seat)
        else:
            self.act(seat, "choose", {**decision, "choice": choice}, html=html)
            self.truth[seat] = choice
        self.after_write()

    @precondition(lambda self: "reveal" in self.moves and self.secret)
    @rule(data=st.data())
    def reveal_card(self, data):
        """The next forest card, often enough that sequences reach the later cards."""
        v, _ = self.view()
        if v.get("phase") != "reveal":
            return
        self.act(v["leader"], "reveal", {"flowers": data.draw(st.integers(0, 4), label="flowers"),
                                         "witch": data.draw(st.booleans(), label="witch")})
        self.after_write()

    @precondition(lambda self: "correct_card" in self.moves)
    @rule(data=st.data())
    def correct_last_card(self, data):
        """A correction while picks wait: a second Witch ends the decision unseen."""
        v, _ = self.view()
        if v.get("phase") != "choose":
            return
        # A Witch on the last card ends the decision when another Witch is already out.
        earlier_witch = any(card["witch"] for card in v["cards"][:-1])
        witch = earlier_witch or data.draw(st.booleans(), label="witch")
        seat = data.draw(st.integers(0, len(self.players) - 1), label="correcting seat")
        open_before = set(self.truth)
        status, _ = self.act(seat, "correct_card", {"flowers": data.draw(st.integers(0, 4)), "witch": witch})
        self.after_write()
        if status == 200:
            FIGURES["dropped"] += len(open_before - set(self.truth))

    @rule(data=st.data())
    def undo(self, data):
        seat = data.draw(st.integers(0, len(self.players) - 1), label="undoing seat")
        name = self.owner[seat]
        html = data.draw(st.booleans(), label="html")

        def send(twin):
            row, _ = twin.table()
            version = row.version if row else 0
            if html:
                return twin.phone(name).post(f"/t/{CODE}/undo", headers={**HX, **ORIGIN},
                                             data={"version": str(version)})
            return twin.phone(name).post(f"/api/tables/{CODE}/undo", headers=ORIGIN,
                                         json={"version": version})
        responses = self.both(send)
        self.same_status(responses)
        if not self.owned_views(name):
            self.compare("the answer to undo", *[answer(r) for r in responses])
        self.after_write()
        # Undo never brings back a pick that was withdrawn or dropped.
        row, _ = self.twins[0].table()
        assert row is None or all(not self.game.secret_open(row.snapshot, s) or s in self.truth
                   for s in range(len(self.players)))

    @rule(data=st.data())
    def free_and_take_again(self, data):
        """The host frees a seat; another phone (or the same one, again) takes it."""
        if self.truth and data.draw(st.booleans(), label="a seat with a pick"):
            seat = data.draw(st.sampled_from(sorted(self.truth)), label="freed seat")
        else:
            seat = data.draw(st.integers(0, len(self.players) - 1), label="freed seat")
        html = data.draw(st.booleans(), label="html")
        had_pick = seat in self.truth

        def free(twin):
            host = twin.phone("host")
            if html:
                return host.post(f"/t/{CODE}/free", headers=ORIGIN, data={"seat": str(seat)})
            return host.delete(f"/api/tables/{CODE}/seats/{seat}", headers=ORIGIN)
        responses = self.both(free)
        status = self.same_status(responses)
        self.compare("the answer to freeing a seat", *[answer(r) for r in responses])
        self.after_write()
        if status >= 400:
            return  # the table was archived: its code is gone
        assert seat not in self.truth
        if had_pick:
            FIGURES["withdrawn"] += 1
            _, log = self.twins[0].table()
            assert log[-1].name == tables.SEAT_FREED
        if data.draw(st.booleans(), label="a new phone takes it"):
            self.phone_count += 1
            self.owner[seat] = f"new{self.phone_count}"
        name = self.owner[seat]
        if name == "shared":
            # Retake by the passed phone: it asks for every free seat at once.
            responses = self.both(lambda twin: twin.phone(name).post(
                f"/join/{CODE}", headers=ORIGIN, data={"seat": "all"}))
        else:
            responses = self.both(lambda twin: twin.phone(name).post(
                f"/api/tables/{CODE}/seats/{seat}", headers=ORIGIN))
        self.same_status(responses)
        # The phone that takes the seat starts with no pick, and sees none.
        resp = self.twins[0].phone(name).get(f"/api/tables/{CODE}?seat={seat}")
        assert resp.status_code != 200 or resp.get_json()["view"].get("my_choice") is None
        self.compare("the new holder's view", *[
            answer(t.phone(name).get(f"/api/tables/{CODE}?seat={seat}")) for t in self.twins])

    # Late in a sequence: after it the table's code is gone and every move is refused.
    @rule(data=st.data())
    def free_again(self, data):
        """Seats freed twice as often, so more of them still hold a pick when it happens."""
        self.free_and_take_again(data)

    def play_to_the_end(self):
        """The Wicked Forest played on to its end the shortest way: every diverged pick agreed,
        everyone returns, the game ended between rounds. Other games end by their own moves."""
        for _ in range(12):
            v, row = self.view()
            if row is None or tables.is_over(self.game, row.snapshot) or self.game_id != "wicked-forest":
                return
            if v["phase"] == "reveal":
                self.act(v["leader"], "reveal", {"flowers": 1, "witch": False})
            elif v["phase"] == "choose":
                decision = {"decision": v["decision"]}
                for seat in sorted(self.diverged):
                    self.act(seat, "choose", {**decision, "choice": self.truth[seat]},
                             {**decision, "choice": self.truth[seat]})
                    self.diverged.discard(seat)
                for seat in v["in_forest"]:
                    if not self.game.secret_open(row.snapshot, seat):
                        self.act(seat, "choose", {**decision, "choice": "return"})
            elif v["phase"] == "end":
                self.act(0, "finish", {})
            else:
                return  # a step this shortcut does not take (a tally, a crystallization)
            self.after_write()

    # Late in a sequence, like a day passing: after it the table takes no more moves.
    @precondition(lambda self: not self.rematched and self.rules_run >= 15)
    @rule(data=st.data())
    def rematch(self, data):
        """The game over, one phone taps Rematch and every phone takes the seats kept for it:
        each seat moves to the new table with no pick, and every phone, owner or not, reads
        the finished table and the new one alike in both twins."""
        self.play_to_the_end()
        _, row = self.view()
        if row is None or not tables.is_over(self.game, row.snapshot):
            return
        self.rematched = True
        FIGURES["rematches"] += 1
        phones = sorted(set(self.owner.values())) + ["watcher"]
        first = data.draw(st.sampled_from(phones), label="rematch tapper")
        for name in [first] + [p for p in phones if p != first]:
            url = f"/t/{CODE}/rematch" if name == first else f"/t/{CODE}/next"
            self.compare(f"the finished table read by {name}",
                         *[answer(t.phone(name).get(f"/t/{CODE}/view", headers=HX)) for t in self.twins])
            responses = self.both(lambda twin: twin.phone(name).post(url, headers=ORIGIN))
            self.same_status(responses)
            self.compare(f"the answer to {url} by {name}", *[answer(r) for r in responses])
        for name in phones:
            for url, headers in ((f"/t/{NEXT_CODE}/view", HX), (f"/api/tables/{NEXT_CODE}", {}),
                                 (f"/join/{NEXT_CODE}", {}), (f"/t/{CODE}/view", HX)):
                self.compare(f"{url} read by {name} after the rematch",
                             *[answer(t.phone(name).get(url, headers=headers)) for t in self.twins])
        for seat, name in self.owner.items():
            for twin in self.twins:
                resp = twin.phone(name).get(f"/api/tables/{NEXT_CODE}?seat={seat}")
                assert resp.status_code == 200, resp.get_json()  # the seat moved with its phone
                assert resp.get_json()["view"].get("my_choice") is None

    @precondition(lambda self: not self.archived and self.rules_run >= 15)
    @rule()
    def a_day_passes(self):
        """Nobody plays for a day: the table is archived as unfinished when a page is read."""
        self.archived = True
        CLOCK.now += 25 * 3600
        self.compare("the home page", *[answer(t.phone("watcher").get("/")) for t in self.twins])

    @rule()
    def time_passes(self):
        CLOCK.now += 7.0

    # ------------------------------------------------------------------ reads

    def urls(self, twin, name):
        """Every GET route a phone can read about this table, filled in."""
        played = [g["id"] for g in twin.phone("watcher").get("/api/history").get_json()["games"]]
        n = len(self.players)
        for rule_ in twin.app.url_map.iter_rules():
            if "GET" not in rule_.methods or rule_.endpoint in ("static", "assets.vendor"):
                continue
            url = rule_.rule.replace("<code>", CODE).replace("<game_id>", self.game_id)
            if "<int:played_id>" in url:
                urls = [url.replace("<int:played_id>", str(p)) for p in played]
            elif "<int:campaign_id>" in url:
                continue  # no campaign at these tables
            else:
                urls = [url]
            for u in urls:
                yield rule_, u, {}
                if rule_.endpoint in ("pages.table_page", "pages.table_view"):
                    yield rule_, u, HX
                if rule_.endpoint == "pages.table_view":
                    for seat in range(n):
                        yield rule_, f"{u}?as={seat}", HX
                if rule_.endpoint == "api.read":
                    for seat in range(n):
                        yield rule_, f"{u}?seat={seat}", {}
                if rule_.endpoint == "pages.join_by_code":
                    yield rule_, f"{u}?code={CODE.lower()}", {}

    @rule(data=st.data())
    def read_everything(self, data):
        """An observer reads every route in both twins: the answers must be the same."""
        observers = self.observer_phones()
        FIGURES["observers"] = max(FIGURES["observers"], len(observers))
        for name in [data.draw(st.sampled_from(observers), label="reader")]:
            passed = self.passed_around(name)
            listing = [list(self.urls(twin, name)) for twin in self.twins]
            assert [u for _, u, _ in listing[0]] == [u for _, u, _ in listing[1]]
            for (rule_, url, headers), (_, _, _) in zip(*listing):
                if rule_.endpoint == "pages.table_view" and "?as=" in url and not passed:
                    continue
                FIGURES["routes"].add(rule_.rule)
                FIGURES["reads"] += 2
                if rule_.endpoint == "pages.events":
                    # As a page's stream asks: with the views pushed to this phone; and as the
                    # table screen's asks: the versions alone.
                    got = [read_stream(t.phone(name), url + "?v=0&views=1") + read_stream(t.phone(name), url + "?v=0")
                           for t in self.twins]
                else:
                    got = [answer(t.phone(name).get(url, headers=headers)) for t in self.twins]
                self.compare(f"{url} {headers} read by {name}", *got)

    @invariant()
    def glance(self):
        """The cheap reads after every step: the fragment and the JSON every observer polls,
        and the view its page's open stream pushes (after the first, as a change)."""
        if not self.owner:
            return
        self.rules_run += 1
        for name in self.observer_phones():
            # The table screen reads its live part and its spoken lines like any observer.
            reads = [(f"/t/{CODE}/view", HX), (f"/api/tables/{CODE}", {}), (f"/api/tables/{CODE}/actions", {}),
                     (f"/t/{CODE}/screen/view", {}), (f"/t/{CODE}/screen/say", {})]
            if self.passed_around(name):
                # Whoever holds the passed phone asks for each seat's view, as it may any time.
                reads += [(f"/api/tables/{CODE}?seat={s}", {}) for s, owner in sorted(self.owner.items())
                          if owner == name]
            for url, headers in reads:
                self.compare(f"{url} read by {name}",
                             *[answer(t.phone(name).get(url, headers=headers)) for t in self.twins])
            self.compare(f"the view event pushed to {name}", *[self.pushed(t, name) for t in self.twins])

    def pushed(self, twin, name):
        """The `view` event the page's open stream sends this phone now, as the stream makes
        it: whole at first, then as its change from the one it sent before. The stream keeps
        the cookie it opened with; the page opens it again when the cookie changes."""
        cookie = twin.phone(name).get_cookie("forest_table")
        cookie = cookie.value if cookie else ""
        language = twin.phone(name).get_cookie(i18n.COOKIE).value
        FIGURES["languages"].add(language)
        opened = self.streams.get((id(twin), name))
        if opened is None or opened[0] != cookie:
            with twin.app.test_request_context(
                    f"/t/{CODE}/events?views=1", headers={"Cookie": f"forest_table={cookie}; {i18n.COOKIE}={language}"}):
                opened = self.streams[(id(twin), name)] = (cookie, pages._view_pusher(CODE))
        event = normalise(live.chunk_text(live.view_event(opened[1]())))
        FIGURES["changes"] += event.startswith("event: view\ndata: ~")
        return event

    @invariant()
    def state_is_the_fold_of_the_log(self):
        if not self.owner:
            return
        for twin in self.twins:
            row, live = twin.table()
            if row is None:
                continue
            assert tables.fold(self.game, row.players, row.options, live) == row.snapshot
            # The log holds no value of a pick that is withdrawn or was dropped unseen.
            assert all(r.name != tables.WITHDRAWN for r in live)

    def teardown(self):
        for twin in self.twins:
            twin.phones.clear()


@pytest.fixture
def fake_clock(monkeypatch):
    monkeypatch.setattr(time, "time", CLOCK)
    monkeypatch.setattr(tables, "_free_code",
                        lambda conn: NEXT_CODE if store.code_exists(conn, CODE) else CODE)
    yield CLOCK


EXAMPLES = {"wicked-forest": 10}  # (10 sequences withdraw, drop and rematch: the asserts below)


@pytest.mark.parametrize("game_id", sorted(g for g in GAMES if g in OPTIONS and g != "tiny"))
def test_twin_tables(fake_clock, game_id):
    machine = type(f"Twin_{game_id}", (TwinTables,), {"game_id": game_id})
    for key in ("steps", "reads", "compared", "observers", "withdrawn", "dropped", "examples", "changes",
                "rematches"):
        FIGURES[key] = 0
    FIGURES["routes"] = set()
    FIGURES["languages"] = set()
    run_state_machine_as_test(machine, settings=settings(
        max_examples=int(os.environ.get("TWIN_EXAMPLES", EXAMPLES.get(game_id, 5))), stateful_step_count=25, deadline=None,
        derandomize=True, database=None,
        # No shrinking: it takes minutes on these sequences; the failing steps print anyway.
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]))
    print(f"\n[{game_id}] {FIGURES['examples']} sequences, {FIGURES['steps']} actions, "
          f"{FIGURES['reads']} reads of {len(FIGURES['routes'])} routes by up to "
          f"{FIGURES['observers']} observer phones, {FIGURES['compared']} answers compared; "
          f"{FIGURES['withdrawn']} picks withdrawn by a freed seat, {FIGURES['dropped']} dropped unseen; "
          f"{FIGURES['changes']} pushed views compared as changes; {FIGURES['rematches']} rematches; "
          f"observers reading in {sorted(FIGURES['languages'])}")
    assert FIGURES["compared"] > 0 and FIGURES["changes"] > 0
    assert len(FIGURES["languages"]) >= 3
    if game_id == "wicked-forest":
        assert FIGURES["withdrawn"] > 0 and FIGURES["dropped"] > 0 and FIGURES["rematches"] > 0
