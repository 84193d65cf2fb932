"""The games' words as data: a Text reads as its English, renders in another language from its
parts, and survives storing, copying and hostile stored data."""

from __future__ import annotations

import copy
import json
import pickle

from hypothesis import given
from hypothesis import strategies as st

from companion.games.words import Names, Text, from_data, join_names, t, tc, tn, to_data


class Shouting:
    """A made-up language: every message upper-cased, lists joined with '+', numbers bracketed."""

    english = False

    def gettext(self, message):
        return message.upper().replace("{WHO}", "{who}").replace("{COUNT}", "{count}").replace("{WHAT}", "{what}")

    def ngettext(self, singular, plural, count):
        return self.gettext(singular if count == 1 else plural) + "!"

    def pgettext(self, context, message):
        return f"{context}:{self.gettext(message)}"

    def npgettext(self, context, singular, plural, count):
        return f"{context}:{self.ngettext(singular, plural, count)}"

    def names(self, items):
        return "+".join(items)

    def number(self, value):
        return f"<{value}>"


def test_a_text_is_its_english_and_renders_from_its_parts_in_another_language():
    flowers = tn("{count} Flower", "{count} Flowers", 3)
    said = t("{who} share {what}", who=join_names(["Ana", "Ben"]), what=flowers)
    assert said == "Ana and Ben share 3 Flowers" and isinstance(said, str)
    assert said.render(None) == said.render(type("En", (), {"english": True})()) == "Ana and Ben share 3 Flowers"
    assert said.render(Shouting()) == "Ana+Ben SHARE <3> FLOWERS!"
    assert tn("{count} Flower", "{count} Flowers", 1) == "1 Flower"
    assert tc("choice", "Stay").render(Shouting()) == "choice:STAY"


def test_nobody_and_one_name():
    assert join_names([]) == "nobody" and isinstance(join_names([]), Text)
    assert join_names(["Ana"]) == "Ana" and join_names(["Ana"]).render(Shouting()) == "Ana"


def test_a_text_kept_as_data_comes_back_whole():
    said = t("{who} gains {what}", who=join_names(["Ana", "Ben", "Cara"]),
             what=tn("{count} Flower", "{count} Flowers", 2))
    back = from_data(json.loads(json.dumps(to_data({"events": [said, "plain"], "n": 3}))))
    assert back == {"events": [said, "plain"], "n": 3}
    assert type(back["events"][0]) is Text and back["events"][0].render(Shouting()) == said.render(Shouting())
    for copied in (copy.deepcopy(said), pickle.loads(pickle.dumps(said)), copy.copy(said)):
        assert copied == said and copied.render(Shouting()) == said.render(Shouting())
    names = Names(["Ana", "Ben"])
    assert pickle.loads(pickle.dumps(names)).render(Shouting()) == "Ana+Ben"


def test_stored_data_with_a_format_spec_is_read_as_plain_text():
    hostile = {"$t": "{x:>999999999}", "v": {"x": 1}}
    assert from_data(hostile) == "{x:>999999999}" and type(from_data(hostile)) is str
    assert from_data({"$t": "{who} won", "pl": "{who:>99999999}", "n": 2, "v": {"who": "A"}}) == "{who} won"
    # a message missing its value is kept as its id, never an error
    assert from_data({"$t": "{who} won"}) == "{who} won"


def test_a_broken_translation_falls_back_to_english():
    class Broken(Shouting):
        def gettext(self, message):
            return "{nope}"
    assert t("{who} won", who="Ana").render(Broken()) == "Ana won"


@given(st.recursive(st.one_of(st.text(max_size=8), st.integers(), st.booleans(), st.none()),
                    lambda inner: st.one_of(st.lists(inner, max_size=4),
                                            st.dictionaries(st.text(max_size=5), inner, max_size=4)),
                    max_leaves=12))
def test_plain_json_data_is_unchanged_by_the_round_trip(data):
    # (a dict that looks like a stored Text is the one exception, and no state holds such keys)
    if "$t" not in json.dumps(data) and "$names" not in json.dumps(data):
        assert from_data(to_data(data)) == data
