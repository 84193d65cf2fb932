"""One render for every language (companion/web/i18n.py: `deferred`, `recorded`, `spoken_in`,
`call_keys`): a text rendered once with its words marked reads, in each language, exactly
as a render in that language; anything that asks for the language stops it; a call's key
tells apart every call whose answer could differ."""

from __future__ import annotations

import zlib

import pytest
from markupsafe import Markup

from companion import create_app
from companion.games.words import Names, t, tc, tn
from companion.web import i18n

LANGUAGES = ["en", "de", "fr", "es", "en_XA"]

TEMPLATE = """<p>{{ _("Undo") }} · {{ ngettext("%(num)d card", "%(num)d cards", count) }}</p>
<p title="{{ _("Go to %(phase)s", phase=phase|say) }}">{{ event }} {{ names }} {{ plain }}</p>
{% for code, name in languages.items() %}<b{{ language_marker(code) }}>{{ name }}</b>{% endfor %}
{{ pgettext("choice", "Stay") }} {{ _("%(count)s placed: %(ways)s.", count=count, ways=ways|join(", ")) }}"""


@pytest.fixture
def app(tmp_path):
    return create_app({"TESTING": True, "DATABASE": str(tmp_path / "said.sqlite"), "SECRET_KEY": "k",
                       "LAN_ADDRESS": "127.0.0.1"})


def values(count):
    return {"count": count, "phase": tc("phase", "Spell Phase"),
            "event": t("{who} returned", who="Ana <b>"), "names": Names(["Ana", "Ben", "Cara"]),
            "plain": "<i>Eve & co</i>", "ways": [t("Crossroads"), "x<y"]}


@pytest.mark.parametrize("count", [1, 3])
def test_a_text_said_from_its_recording_reads_as_a_render_in_each_language(app, count):
    template = app.jinja_env.from_string(TEMPLATE)
    with app.test_request_context("/"):
        made = i18n.recorded(lambda: template.render(values(count)), strict=True)
    assert made is not None
    text, calls = made
    assert "\x00" in text and len(calls) >= 8
    keys = i18n.call_keys(calls)
    seen = set()
    for language in LANGUAGES:
        with app.test_request_context(f"/?lang={language}"):
            direct = template.render(values(count))
        said = i18n.spoken_in(language, text, calls, keys)
        again = i18n.spoken_in(language, text, calls, keys)  # from what the calls said before
        assert said == direct and again == direct, language
        assert "\x00" not in said
        seen.add(said)
    assert len(seen) == len(LANGUAGES)  # every language reads differently


def test_asking_for_the_language_stops_a_recording(app):
    template = app.jinja_env.from_string("{{ _('Undo') }} {{ current_language() }}")
    with app.test_request_context("/?lang=de"):
        assert i18n.recorded(lambda: template.render()) is None
        with pytest.raises(i18n.LanguageNeeded):
            i18n.recorded(lambda: template.render(), strict=True)
        # and the request's language is back once the recording is over
        assert i18n.current() == "de" and template.render().endswith(" de")


def test_a_deferred_call_outside_a_recording_is_an_ordinary_call():
    calls = []

    @i18n.deferred
    def said(word):
        calls.append(word)
        return word.upper()

    assert said("stay") == "STAY" and calls == ["stay"]


def test_a_calls_key_tells_apart_whatever_could_be_said_differently():
    def key(*args):
        return i18n.call_keys([(str.upper, args, {})])[0]

    assert key(t("Stay")) != key(tc("choice", "Stay"))  # one English, two senses
    assert key("a<b") != key(Markup("a<b"))  # text is escaped, markup is not
    assert key(1) != key(True) and key(1) != key("1")
    assert key(tn("{count} card", "{count} cards", 2)) == key(tn("{count} card", "{count} cards", 2))
    assert key(Names(["Ana, Ben", "Cara"])) != key(Names(["Ana", "Ben", "Cara"]))  # one English
    assert key(["a list"]) is None  # not keyed: made again every time
    # A mark is keyed by the call it stands for, whichever number it has in its text.
    first = [(str.upper, ("x",), {}), (str.lower, ("y",), {})]
    with_marks = i18n.call_keys(first + [(str.title, (Markup(i18n._SAID + "1\x00 z"),), {})])
    other = i18n.call_keys([(str.lower, ("y",), {}), (str.title, (Markup(i18n._SAID + "0\x00 z"),), {})])
    assert with_marks[2] == other[1]
    unkeyed = i18n.call_keys([(str.upper, (["a list"],), {}), (str.title, (Markup(i18n._SAID + "0\x00"),), {})])
    assert unkeyed == [None, None]  # (a mark of a call made again every time)


def test_a_parts_change_is_worked_out_once_for_every_language_and_reads_right_in_each(app, monkeypatch):
    """Two versions of a part recorded for every language: in each language the stream's
    change (view_delta), made from the one change of their canonical texts, puts the new
    text together from the old one; the canonical change is worked out once for all."""
    from companion.web import shared_parts, view_delta
    template = app.jinja_env.from_string(
        '<section><h2>{{ _("Undo") }}</h2><p>🦊 {{ names }}</p></section>'
        '<section><span>{{ ngettext("%(num)d card", "%(num)d cards", count) }}</span>'
        '<span>{{ event }}</span></section><details><summary>{{ pgettext("choice", "Stay") }}</summary>'
        '<p>{{ plain }} 🐺</p></details>')

    def recording(count, names):
        with app.test_request_context("/"):
            made = i18n.recorded(lambda: shared_parts.one_line(template.render(
                {**values(count), "names": Names(names)})), strict=True)
        return shared_parts.Recorded(*made)

    old_recording, new_recording = recording(1, ["Ana", "Bé🦋n"]), recording(3, ["Ana", "Cara"])
    worked = []
    real = view_delta._text_changes
    monkeypatch.setattr(view_delta, "_text_changes", lambda *texts: worked.append(texts) or real(*texts))
    seen = set()
    for language in LANGUAGES:
        old, new = old_recording.spoken_in(language, check=True), new_recording.spoken_in(language, check=True)
        assert old.spoken is not None and new.spoken is not None
        for piece, count, names in ((old, 1, ["Ana", "Bé🦋n"]), (new, 3, ["Ana", "Cara"])):
            with app.test_request_context(f"/?lang={language}"):
                direct = shared_parts.one_line(template.render({**values(count), "names": Names(names)}))
            assert piece.text() == direct and piece.size16() == shared_parts.utf16_length(direct)
        ops = view_delta._piece_changes(old, new)
        assert view_delta.applied(old.text(), ops) == new.text()
        assert any(type(op) is list for op in ops) and any(type(op) is str for op in ops)
        seen.add(new.text())
    assert len(worked) == 1  # the canonical texts' change, for all five languages
    assert len(seen) == len(LANGUAGES)


def test_a_row_of_parts_said_for_several_languages_reads_back_as_they_were(app):
    """What one process keeps for the others (`Spoken.to_store`) gives back each language's
    part, and a row that does not read as one gives none."""
    from companion.web import shared_parts
    template = app.jinja_env.from_string('<p>{{ _("Undo") }} {{ names }} ☕ 🦊</p>')
    with app.test_request_context("/"):
        made = i18n.recorded(lambda: template.render({"names": Names(["Zoë", "🐝"])}), strict=True)
    recording = shared_parts.Recorded(*made)
    said = [recording.spoken_in(language).spoken for language in ("de", "fr", "en")]
    described, deflated, crc, size = shared_parts.Spoken.to_store(said)
    row = shared_parts.Piece.stored(deflated, crc, size)
    assert zlib.crc32(zlib.decompressobj(-zlib.MAX_WBITS).decompress(deflated)) == crc
    back = shared_parts.Spoken.from_store(described, row)
    assert [spoken.language for spoken in back] == ["de", "fr", "en"]
    assert [spoken.text() for spoken in back] == [spoken.text() for spoken in said]
    assert [spoken.size16() for spoken in back] == [spoken.size16() for spoken in said]
    cut = shared_parts.Piece.stored(deflated[:-3], crc, size - 3)
    assert shared_parts.Spoken.from_store(described, cut) == []
    # A row of another form (an older release's, or a newer one's) is not read, nor one whose
    # numbers are cut short.
    shared_parts._ROW_FORM += 1
    try:
        other_form = shared_parts.Spoken.to_store(said)
    finally:
        shared_parts._ROW_FORM -= 1
    assert shared_parts.Spoken.from_store(other_form[0], shared_parts.Piece.stored(*other_form[1:])) == []
    assert shared_parts.Spoken.from_store("de,fr,en,es*x", row) == []  # a language more than it holds


def test_the_cycle_collector_is_paused_only_while_a_part_is_recorded_and_said(tmp_path, monkeypatch):
    """A table read in three languages: while its parts are recorded and said the cycle
    collector is paused, and it runs again after, whether the saying ended well or not; if
    something else had paused it, it stays paused."""
    import gc

    from companion.web import shared_parts

    from .test_two_processes import seated, tap_set_draw_pile, two_processes, view
    first, _ = two_processes(tmp_path)
    code, phones = seated(first)
    for phone, language in zip(phones, ["en", "de", "fr", "en", "de"]):
        phone.set_cookie(i18n.COOKIE, language)
        view(phone, code)
    seen = []
    said_for_all = shared_parts.PartRenderer._said_for_all

    def watched(self, *args):
        seen.append(gc.isenabled())
        return said_for_all(self, *args)
    monkeypatch.setattr(shared_parts.PartRenderer, "_said_for_all", watched)
    assert tap_set_draw_pile(phones[0], code, 17).status_code == 200
    assert seen and not any(seen) and gc.isenabled()

    with pytest.raises(RuntimeError):
        with shared_parts._collector_paused():
            raise RuntimeError("a part that cannot be said")
    assert gc.isenabled()
    gc.disable()
    try:
        with shared_parts._collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
