"""A stream sends each view after its first as its change from the one before: put
together with that one, as the page does, it is exactly the new view."""

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.web import view_delta
from companion.web.shared_parts import Piece

from .test_pushed_views import put_together

# Pieces of markup a view is made of: elements a segment starts at, text with letters from
# beyond the first 65,536 (two UTF-16 units each, as a page counts them), and repeats.
BITS = ['<div class="row">', "</div>", '<span class="n">', "</span>", "<li>", "</li>", "<p>",
        "Ana", "Ben 🍄", "𝄞 Cara", "7", "12", " ", '<input type="hidden" name="version" value="3">',
        '<button class="btn">+</button>', "<section>", "</section>", "é", '<details class="panel">',
        "</details>", "<article>"]
texts = st.lists(st.sampled_from(BITS), max_size=30).map("".join)
# A view: its own text and shared parts, alternating as a rendered view's items do.
views = st.lists(st.tuples(st.booleans(), texts), min_size=1, max_size=6)


def items_of(view):
    return [Piece(text) if shared else text for shared, text in view]


def text_of(items):
    return "".join(item if isinstance(item, str) else str(item.html) for item in items)


def sent_text(event):
    return event if isinstance(event, str) else text_of(event)


@settings(max_examples=300, deadline=None)
@given(st.lists(views, min_size=1, max_size=8), st.data())
def test_each_change_put_together_with_the_view_before_is_the_new_view(sequence, data):
    phones = [view_delta.StreamViews(), view_delta.StreamViews()]
    shown = [None, None]
    for view in sequence:
        items = items_of(view)
        for index, phone in enumerate(phones):
            # A view is sometimes not pushed to a phone (its own tap was answered with it).
            if index and data.draw(st.booleans()):
                continue
            event = phone.event_text(items)
            shown[index] = put_together(shown[index], sent_text(event))
            assert shown[index] == text_of(items)


def test_the_first_view_goes_whole_and_a_small_change_after_it_as_a_change():
    rows = "".join(f'<li><span class="n">{n}</span> Ana 🍄</li>' for n in range(40))
    before = ["<section><h2>Round 1</h2>", Piece(f"<ul>{rows}</ul>"), "</section>"]
    after = ["<section><h2>Round 2</h2>", Piece(f"<ul>{rows.replace('>17<', '>99<')}</ul>"), "</section>"]
    phone = view_delta.StreamViews()
    assert phone.event_text(before) == before
    change = phone.event_text(after)
    assert isinstance(change, str) and change.startswith("~")
    assert put_together(text_of(before), change) == text_of(after)
    assert "+<h2>Round 2</h2>" in change.split("\n") and '+<span class="n">99</span> Ana 🍄</li>' in change.split("\n")
    assert len(change.split("\n")) == 6  # a span, the new heading, a span, the new row, the rest
    assert len(change) < len(text_of(after)) / 10


def test_a_view_of_another_shape_or_mostly_new_goes_whole():
    phone = view_delta.StreamViews()
    phone.event_text(["<p>a</p>", Piece("<p>b</p>")])
    reshaped = [Piece("<p>b</p>"), "<p>a</p>"]
    assert phone.event_text(reshaped) == reshaped
    new = [Piece("<p>b</p>"), "<div>" + "x" * 100 + "</div>"]
    assert phone.event_text(new) == new


def test_a_shared_part_is_compared_once_for_every_phone_that_was_sent_the_same_version():
    old, new = Piece("<li>1</li><li>2</li>"), Piece("<li>1</li><li>3</li>")
    phones = [view_delta.StreamViews() for _ in range(3)]
    for phone in phones:
        phone.event_text(["<ul>", old, "</ul>"])
    changes = [phone.event_text(["<ul>", new, "</ul>"]) for phone in phones]
    assert changes[0] == changes[1] == changes[2] == "~29\n=0,14\n+<li>3</li>\n=24,5"
    assert new.changes[0]() is old


def test_a_text_every_phone_has_is_cut_and_compared_once_for_all(monkeypatch):
    """The text between the shared parts is mostly the same on every phone at one version:
    the phones here share its cut, and its change from the same text before is worked out
    once (a different text, one phone's own, still gets its own change)."""
    rows = "".join(f"<li>{n}</li>" for n in range(12))
    before, after = f"<ul>{rows}</ul>", f"<ul>{rows.replace('<li>5<', '<li>50<')}</ul>"
    phones = [view_delta.StreamViews() for _ in range(3)]
    for phone in phones:
        phone.event_text([before, Piece("<p>x</p>")])
    compared = []
    real_changes = view_delta.changes
    monkeypatch.setattr(view_delta, "changes", lambda *args: compared.append(1) or real_changes(*args))
    own = after.replace("<li>9<", "<li>90<")
    sent = [phone.event_text([text, Piece("<p>x</p>")])
            for phone, text in zip(phones, [after, after, own])]
    assert sent[0] == sent[1] != sent[2]
    assert len(compared) == 2  # once for the text two phones have, once for the third's own
    for text, change in zip([after, after, own], sent):
        assert put_together(before + "<p>x</p>", change) == text + "<p>x</p>"


def test_a_part_keeps_no_earlier_version_of_itself_alive():
    """Each version knows the change from the one before without holding it: a table's
    part through a long game must not keep every version it ever had."""
    import gc
    import weakref
    phone = view_delta.StreamViews()
    parts = [Piece(f"<ul><li>{n}</li><li>x</li></ul>") for n in range(20)]
    for part in parts:
        phone.event_text(["<div>", part, "</div>"])
    first = weakref.ref(parts[0])
    del parts[:-1]
    gc.collect()
    assert first() is None


def test_a_changed_text_whose_words_are_none_in_a_language_sends_nothing_for_it():
    """A part said from a recording (shared_parts.Spoken): where its change is new text
    made of marks alone and this language says nothing for them, the change sends no empty
    text, and the copies around it join as one."""
    from companion.web import shared_parts, view_delta

    def said(canonical_text, words):
        texts, keys = canonical_text.split("\x00")[0::2], canonical_text.split("\x00")[1::2]
        marks = [f"\x00{key}\x00" for key in keys]
        canonical = shared_parts.Canonical(shared_parts.Piece(canonical_text), "here",
                                           shared_parts.layout_of(texts, marks))
        spoken = shared_parts.Spoken("de", canonical, words, check=True)
        return shared_parts.Piece.said(spoken)

    old = said("\x001\x00<div>x</div><p>y</p>", ["A"])
    new = said("\x002\x00<div>x</div><p>y</p>", [""])
    ops = view_delta._piece_changes(old, new)
    assert ops == [[1, len("<div>x</div><p>y</p>")]]
    assert view_delta.applied(old.text(), ops) == new.text() == "<div>x</div><p>y</p>"
    # and where the words are there, they are sent
    newer = said("\x003\x00<div>x</div><p>y</p>", ["Bé"])
    assert view_delta._piece_changes(old, newer) == ["Bé", [1, len("<div>x</div><p>y</p>")]]
