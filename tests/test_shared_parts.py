"""Parts of a table view that every seated phone sees alike are rendered once per version
(companion/web/shared_parts.py): every phone must still see exactly what a render for it
alone would show, on every path, through any sequence of moves, undos and seat changes."""

from __future__ import annotations

import gzip
import re
import tempfile
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test
from jinja2 import ChoiceLoader, DictLoader, UndefinedError

from companion import create_app, store, tables
from companion.db import get_db
from companion.games import get_game
from companion.web import i18n, shared_parts
from companion.web.limits import limiter

from .campaign_play import run_text
from .test_fuzz_api import OPTIONS, PROGRESS, valid_value
from .test_pushed_views import views_in
from .test_secrecy import normalise
from .test_serving import StreamReader

HX = {"HX-Request": "true"}
ORIGIN = {"Origin": "http://localhost"}
NAMES = ["Ana", "Ben", "Cara", "Dan"]
GAMES_WITH_PARTS = ["wicked-forest", "woodland-wizards", "mysterious-forest", "explorers-of-the-woodlands"]


def make_app(tmp_path):
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "parts.sqlite"), "SECRET_KEY": "parts",
                       "LAN_ADDRESS": "127.0.0.1", "STREAM_POLL_SECONDS": 0.02,
                       "STREAM_KEEPALIVE_SECONDS": 0.1, "STREAM_MAX_SECONDS": 5.0,
                       "CODE_GUESS_LIMIT": "100000 per minute"})
    limiter.reset()
    return app


def seated_table(app, game="wicked-forest", players=NAMES):
    phones = [app.test_client() for _ in players]
    reply = phones[0].post("/api/tables", headers=ORIGIN,
                           json={"game": game, "players": list(players), "options": OPTIONS[game]})
    assert reply.status_code == 201, reply.get_data(as_text=True)
    code = reply.get_json()["code"]
    for seat, phone in enumerate(phones):
        assert phone.post(f"/api/tables/{code}/seats/{seat}", headers=ORIGIN).status_code == 201
    return code, phones


def fetched(phone, code, **query):
    resp = phone.get(f"/t/{code}/view", headers=HX, query_string=query)
    assert resp.status_code == 200
    return resp.get_data(as_text=True)


def form_of(html, action):
    """The first form posting `action`, whole."""
    found = re.search(r'<form [^>]*>(?:(?!</form>).)*name="action" value="%s"(?:(?!</form>).)*</form>'
                      % re.escape(action), html, re.S)
    assert found, f"no {action} form"
    return found.group(0)


def version_of(phone, code):
    return phone.get(f"/api/tables/{code}").get_json()["version"]


def post_move(phone, code, action, params):
    return phone.post(f"/api/tables/{code}/actions", headers=ORIGIN,
                      json={"action": action, "params": params, "version": version_of(phone, code)})


def test_a_shared_part_is_rendered_once_per_version_for_every_seated_phone(tmp_path):
    app = make_app(tmp_path)
    code, phones = seated_table(app)
    cache = shared_parts.cache_of(app)
    cache.clear()
    before = cache.renders
    for phone in phones:
        fetched(phone, code)
    per_version = cache.renders - before
    assert per_version >= 2  # the Wicked Forest has two: the table at a glance, the panels
    assert post_move(phones[1], code, "set_draw_pile", {"count": 20}).status_code == 200
    for phone in phones:
        fetched(phone, code)
    assert cache.renders - before == 2 * per_version
    # A phone watching (no seat) sees the parts without their forms: rendered apart.
    watcher = app.test_client()
    html = fetched(watcher, code)
    assert cache.renders - before == 3 * per_version
    assert "set_draw_pile" not in html and "Draw pile" in html


def test_a_shared_part_is_rendered_once_per_version_for_all_the_languages_in_use(tmp_path):
    """A table of four phones in three languages: each part is rendered once per version for
    every language at once (its words marked), each phone gets it in its own, and a
    one-language table renders it once in that language, as before."""
    app = make_app(tmp_path)
    code, phones = seated_table(app)
    for phone, language in zip(phones, ["de", "fr", "de", "es"]):
        phone.set_cookie(i18n.COOKIE, language)
    cache = shared_parts.cache_of(app)
    cache.clear()
    before, recorded = cache.renders, cache.recorded
    pages = [fetched(phone, code) for phone in phones]
    per_language = (cache.renders - before) // 3
    assert per_language >= 2 and cache.renders - before == 3 * per_language
    # The first phone's language rendered as usual; the second language on, once for all.
    assert cache.recorded - recorded == per_language
    glance = {code_: i18n.language(code_).gettext("The table at a glance") for code_ in ("de", "fr", "es")}
    assert len(set(glance.values())) == 3 and "The table at a glance" not in glance.values()
    for page, language in zip(pages, ["de", "fr", "de", "es"]):
        assert glance[language] in page and "\x00" not in page
        assert all(glance[other] not in page for other in glance if other != language)
    assert post_move(phones[1], code, "set_draw_pile", {"count": 20}).status_code == 200
    moved = [fetched(phone, code) for phone in phones]
    assert cache.renders - before == 6 * per_language
    assert cache.recorded - recorded == 2 * per_language  # once this version, for all three
    # What each phone got is what a server whose every table reads that one language renders.
    cache.check = False  # (not held against a render here: compared below instead)
    for phone, page in zip(phones, moved):
        assert normalise(page) == normalise(_rendered_alone(app, code, phone))
    # One language: rendered in it, never marked.
    single = make_app(tmp_path / "single")
    code2, phones2 = seated_table(single)
    cache2 = shared_parts.cache_of(single)
    for phone in phones2:
        phone.set_cookie(i18n.COOKIE, "fr")
        fetched(phone, code2)
    assert cache2.recorded == 0 and cache2.renders >= 2


def _rendered_alone(app, code, phone):
    """The phone's view of `code` rendered as if no other language were in use: the part
    cache emptied, the table's languages forgotten, the parts kept in the database dropped."""
    cache = shared_parts.cache_of(app)
    cache.clear()
    cache.languages.clear()
    with app.app_context():
        conn = get_db()
        with store.Transaction(conn):
            run_text(conn, "DELETE FROM shared_part", {})
    renders, recorded = cache.renders, cache.recorded
    html = fetched(phone, code)
    assert cache.renders > renders and cache.recorded == recorded
    return html


def test_shared_forms_carry_no_seat_and_act_for_the_phones_seat(tmp_path):
    app = make_app(tmp_path)
    code, phones = seated_table(app)
    html = fetched(phones[2], code)
    form = form_of(html, "set_magic")
    assert 'name="seat"' not in form and 'name="rid" value=""' in form
    reply = phones[2].post(f"/t/{code}/act", headers=HX, data={
        "action": "set_magic", "player": "1", "magic": "4", "version": str(version_of(phones[2], code)),
        "rid": "tapped-once"})
    assert reply.status_code == 200
    with app.app_context():
        conn = get_db()
        last = store.live_actions(conn, tables.load(conn, code).id)[-1]
    assert (last.name, last.seat, last.request_id) == ("set_magic", 2, "tapped-once")


def test_a_passed_phones_private_screen_acts_for_the_player_holding_it(tmp_path):
    app = make_app(tmp_path)
    host = app.test_client()
    code = host.post("/api/tables", headers=ORIGIN, json={"game": "wicked-forest", "players": NAMES,
                                                          "options": OPTIONS["wicked-forest"]}).get_json()["code"]
    for seat in range(len(NAMES)):
        assert host.post(f"/api/tables/{code}/seats/{seat}", headers=ORIGIN).status_code == 201
    # Card 1 revealed: while the players choose, "Last card entered wrong?" is a shared form.
    assert post_move(host, code, "reveal", {"card": 1, "flowers": 2, "witch": 0}).status_code == 200
    private = form_of(fetched(host, code, **{"as": 2}), "correct_card")
    assert '<input type="hidden" name="seat" value="2">' in private
    # The list every player sees on the passed phone acts for its first seat, as before.
    assert 'name="seat"' not in form_of(fetched(host, code), "correct_card")


def test_a_shared_part_cannot_read_what_tells_phones_apart(tmp_path):
    app = make_app(tmp_path)
    code, phones = seated_table(app)
    app.jinja_env.loader = ChoiceLoader([DictLoader({
        "test/_leaky.html": "{% if held %}mine{% endif %}",
        "test/_me.html": "{{ me }}",
        "test/_asks.html": "{{ request.path }}",
        "test/_state.html": "{{ table.snapshot }}",
        "test/_fine.html": "{% if seated %}{{ v.round }} {{ table.code }}{% endif %}",
    }), app.jinja_env.loader])
    with app.test_request_context(f"/t/{code}/view"):
        table = tables.load(get_db(), code)
        part = shared_parts.PartRenderer(table, get_game(table.game), seated=True, act_url="/act")
        assert part("test/_fine.html") == f"1 {code}"
        for leaky in ("test/_leaky.html", "test/_me.html", "test/_asks.html"):
            with pytest.raises(UndefinedError):
                part(leaky)
        assert part("test/_state.html") == ""  # the state, with its unrevealed picks, is not there


def test_a_pushed_view_with_shared_parts_is_the_view_the_phone_would_fetch(tmp_path):
    app = make_app(tmp_path)
    code, phones = seated_table(app)
    ben = phones[1]
    version = version_of(ben, code)
    plain = StreamReader(ben.get(f"/t/{code}/events?v={version}&views=1"))
    zipped = ben.get(f"/t/{code}/events?v={version}&views=1", headers={"Accept-Encoding": "gzip"},
                     buffered=False)
    try:
        plain.until(r"retry: \d+")
        assert post_move(phones[0], code, "set_draw_pile", {"count": 20}).status_code == 200
        text = plain.until(rf"event: update\ndata: {version + 1}\n\n")
        pushed = views_in(text)
        assert len(pushed) == 1
        assert normalise(pushed[0]) == normalise(fetched(ben, code))
        chunks = []
        for chunk in zipped.response:
            chunks.append(chunk if isinstance(chunk, bytes) else chunk.encode())
            if len(chunks) >= 3:  # the header, the retry line, then the change
                break
        inflated = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(b"".join(chunks)).decode()
        assert [normalise(v) for v in views_in(inflated)] == [normalise(fetched(ben, code))]
    finally:
        plain.close()
        zipped.close()


def test_a_gzip_stream_of_shared_parts_checks_out_whole(tmp_path):
    app = make_app(tmp_path)
    app.config["STREAM_MAX_SECONDS"] = 0.5
    code, phones = seated_table(app)
    resp = phones[1].get(f"/t/{code}/events?v=0&views=1", headers={"Accept-Encoding": "gzip"})
    assert post_move(phones[0], code, "set_draw_pile", {"count": 20}).status_code == 200
    data = b"".join(c if isinstance(c, bytes) else c.encode() for c in resp.response)  # ends by itself
    resp.close()
    text = gzip.decompress(data).decode()  # checksum and length of everything sent agree
    assert [normalise(v) for v in views_in(text)][-1] == normalise(fetched(phones[1], code))


# The machine's phones read in these, in turn (the watcher in the last): a part is then
# rendered once for every language, and each phone's words put in (checked, under test,
# against a render in its language as well).
MACHINE_LANGUAGES = ["en", "de", "fr", "en_XA", "es"]


class SharedPartsMachine(RuleBasedStateMachine):
    """Moves of every kind, undos, seats freed and taken by another phone; after each step
    every phone's view, with the parts shared, is the view rendered for it from nothing.
    The phones read in several languages."""

    game_id = "wicked-forest"

    def __init__(self):
        super().__init__()
        self.app = None

    @initialize()
    def setup(self):
        self.folder = tempfile.mkdtemp(prefix="parts-")
        self.app = make_app(Path(self.folder))
        self.game = get_game(self.game_id)
        self.code, self.phones = seated_table(self.app, self.game_id, NAMES[:self.game.MIN_PLAYERS + 1]
                                              if self.game.MAX_PLAYERS < len(NAMES) else NAMES)
        self.watcher = self.app.test_client()
        self.host = self.phones[0]
        for index, phone in enumerate(self.phones):
            phone.set_cookie(i18n.COOKIE, MACHINE_LANGUAGES[index % 4])
        self.watcher.set_cookie(i18n.COOKIE, MACHINE_LANGUAGES[4])

    def _state(self):
        return self.host.get(f"/api/tables/{self.code}").get_json()

    @rule(data=st.data())
    def any_move(self, data):
        actions = sorted(tables.all_actions(self.game))
        name = data.draw(st.sampled_from(actions))
        spec = tables.all_actions(self.game)[name]
        params = {p.name: data.draw(valid_value(p, len(self.phones))) for p in spec.params}
        seat = data.draw(st.integers(0, len(self.phones) - 1))
        post_move(self.phones[seat], self.code, name, params)

    @rule(data=st.data())
    def a_move_that_progresses(self, data):
        phase = self._state()["view"].get("phase")
        names = PROGRESS.get(self.game_id, {}).get(phase)
        if not names:
            return
        name = data.draw(st.sampled_from(names))
        spec = tables.all_actions(self.game)[name]
        params = {p.name: data.draw(valid_value(p, len(self.phones))) for p in spec.params}
        step = self._state()["view"].get("steps", {}).get(name)
        if step is not None:
            for p in spec.params:
                if p.kind == "int" and p.name in ("card", "round", "decision", "boost_round", "player"):
                    params[p.name] = step
        post_move(self.phones[data.draw(st.integers(0, len(self.phones) - 1))], self.code, name, params)

    @rule()
    def undo(self):
        self.host.post(f"/api/tables/{self.code}/undo", headers=ORIGIN,
                       json={"version": version_of(self.host, self.code)})

    @rule(seat=st.integers(0, 3))
    def seat_freed_and_taken_by_another_phone(self, seat):
        seat = seat % len(self.phones)
        if seat == 0:
            return  # the host keeps its seat
        self.host.delete(f"/api/tables/{self.code}/seats/{seat}", headers=ORIGIN)
        phone = self.app.test_client()
        phone.set_cookie(i18n.COOKIE, MACHINE_LANGUAGES[(seat + 1) % 4])  # another language
        if phone.post(f"/api/tables/{self.code}/seats/{seat}", headers=ORIGIN).status_code == 201:
            self.phones[seat] = phone

    @invariant()
    def every_phone_sees_what_a_render_for_it_alone_shows(self):
        if self.app is None:
            return
        everyone = self.phones + [self.watcher]
        # With the parts the last step's reads left behind (an older version, maybe)...
        shared = [normalise(fetched(p, self.code)) for p in everyone]
        alone = [normalise(_rendered_alone(self.app, self.code, p)) for p in everyone]
        assert shared == alone
        assert shared_parts.cache_of(self.app).recorded > 0  # (the parts were said from one render)
        for p in everyone:  # ...and the next step starts from parts of this version
            fetched(p, self.code)


@pytest.mark.parametrize("game_id", GAMES_WITH_PARTS)
def test_views_with_shared_parts_match_views_rendered_alone(game_id):
    machine = type(f"Parts_{game_id}", (SharedPartsMachine,), {"game_id": game_id})
    run_state_machine_as_test(machine, settings=settings(
        max_examples=6, stateful_step_count=12, deadline=None, derandomize=True,
        suppress_health_check=list(HealthCheck)))


@pytest.mark.parametrize("size", [0, 1, 700, 70_000, 200_001])
def test_a_parts_checksum_after_any_prefix_is_the_checksum_of_the_whole(size):
    """A part's compressed copy goes into every phone's stream after whatever that stream sent
    before: the gzip checksum must come out as if the whole text had been read."""
    text = ("<p>🌸 línea\n" * (size // 12 + 1))[:size]
    piece = shared_parts.Piece(text)
    sent = "retry: 1500\n\nevent: view\ndata: ".encode()
    crc, length = piece.crc_after(zlib.crc32(sent))
    whole = sent + piece.sse().encode()
    assert crc == zlib.crc32(whole) and length == len(whole) - len(sent)
    assert zlib.decompressobj(-zlib.MAX_WBITS).decompress(piece.deflated()) == piece.sse().encode()


def test_a_gzipped_fragment_is_put_together_from_its_parts_and_reads_as_the_plain_one(tmp_path):
    app = make_app(tmp_path)
    code, phones = seated_table(app)
    ben = phones[1]
    plain = ben.get(f"/t/{code}/view", headers=HX)
    assert "Content-Encoding" not in plain.headers
    zipped = ben.get(f"/t/{code}/view", headers={**HX, "Accept-Encoding": "gzip, deflate"})
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in zipped.headers["Vary"] and "Cookie" in zipped.headers["Vary"]
    assert normalise(gzip.decompress(zipped.get_data()).decode()) == normalise(plain.get_data(as_text=True))
    # The answer to a tap too, with its toast header kept.
    answer = ben.post(f"/t/{code}/act", headers={**HX, "Accept-Encoding": "gzip"}, data={
        "action": "set_draw_pile", "count": "20", "version": str(version_of(ben, code)), "rid": "zip-1"})
    assert answer.headers["Content-Encoding"] == "gzip"
    shown = gzip.decompress(answer.get_data()).decode()
    assert 'data-version="1"' in shown and normalise(shown) == normalise(fetched(ben, code))
    # A client offering brotli (over HTTPS) is left to the compressor that speaks it.
    brotli = ben.get(f"/t/{code}/view", headers={**HX, "Accept-Encoding": "br, gzip"})
    assert brotli.headers.get("Content-Encoding") == "br"


def test_the_part_cache_keeps_the_newest_version_of_the_parts_used_last():
    cache = shared_parts.PartCache(limit=2)
    cache.put("a", 1, "a at 1")
    assert cache.get("a", 1) == "a at 1" and cache.get("a", 2) is None  # another version: render again
    cache.put("a", 2, "a at 2")
    assert cache.get("a", 1) is None and cache.get("a", 2) == "a at 2"
    cache.put("b", 1, "b")
    assert cache.get("a", 2) == "a at 2"  # a used last: b is the oldest now
    cache.put("c", 1, "c")
    assert cache.get("b", 1) is None and cache.get("a", 2) == "a at 2" and cache.get("c", 1) == "c"
    cache.clear()
    assert cache.get("a", 2) is None


def test_a_part_is_one_line_so_one_compressed_copy_serves_a_body_and_an_event():
    piece = shared_parts.Piece('<ul>\n  <li title="a\r\nb">1</li>\r\n\t<li>2</li>\n</ul>\n')
    assert piece.html == '<ul> <li title="a b">1</li> <li>2</li> </ul>'
    assert piece.sse() == piece.html  # no line break: it stands on one `data:` line as it is
    assert zlib.decompressobj(-zlib.MAX_WBITS).decompress(piece.deflated()) == piece.html.encode()
    assert shared_parts.one_line("<b>x</b> <i>y</i>") == "<b>x</b> <i>y</i>"


def test_no_shared_part_holds_text_whose_line_breaks_matter():
    # Making a part one line is safe only where HTML reads a line break as a space.
    templates = Path(__file__).resolve().parent.parent / "templates"
    parts = sorted(templates.glob("*/_shared_*.html"))
    assert len(parts) >= 8
    for part in parts:
        text = part.read_text().lower()
        for tag in ("<pre", "<textarea", "<script", "<style"):
            assert tag not in text, f"{part.name} holds {tag}>: its line breaks would be lost"
