"""The translation catalogs hold every message the code and templates say, in every language.

The messages are extracted again from the code and templates (as `scripts/catalogs.sh
extract` does) and compared with the committed template `messages.pot`; each language's
catalog must translate every one of them, keep every hole (`{name}`, `%(name)s`) its
message has, and fill without error.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from companion.web import i18n

ROOT = Path(__file__).resolve().parent.parent
LANGUAGES = [code for code in i18n.LANGUAGES if code != "en"]
_HOLE = re.compile(r"\{[^{}]*\}|%\([^)]*\)[sd]")
# A plural form may leave the number out ("eine Blume" for one): these holes are its count.
_COUNT_HOLES = {"{count}", "%(num)d", "%(num)s", "%(count)d", "%(count)s"}


def _read(path: Path):
    with path.open("rb") as file:
        return read_po(file)


def _key(message):
    return (message.context, message.id)


@pytest.fixture(scope="module")
def extracted(tmp_path_factory):
    pot = tmp_path_factory.mktemp("catalogs") / "messages.pot"
    subprocess.run(["bash", str(ROOT / "scripts" / "catalogs.sh"), "extract"], cwd=ROOT, check=True,
                   env={**os.environ, "POT": str(pot)})
    return {_key(m): m for m in _read(pot) if m.id}


@pytest.fixture(scope="module")
def template():
    return {_key(m): m for m in _read(i18n.TEMPLATE) if m.id}


def test_the_committed_template_holds_exactly_what_the_code_and_templates_say(extracted, template):
    missing = sorted(str(k[1]) for k in extracted.keys() - template.keys())
    stale = sorted(str(k[1]) for k in template.keys() - extracted.keys())
    assert not missing and not stale, (
        f"run `bash scripts/catalogs.sh update` and translate: {len(missing)} messages missing from "
        f"messages.pot (first: {missing[:5]}), {len(stale)} no longer said (first: {stale[:5]})")
    for key, message in extracted.items():
        assert template[key].id == message.id, f"the plural of {key[1]!r} changed"


def _holes(text: str) -> set[str]:
    return set(_HOLE.findall(text))


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_message_is_translated_with_its_holes_kept(code, template):
    catalog = {_key(m): m for m in _read(i18n.CATALOGS / code / "LC_MESSAGES" / "messages.po") if m.id}
    untranslated, broken = [], []
    for key, wanted in template.items():
        message = catalog.get(key)
        strings = (message.string if isinstance(message.string, tuple) else (message.string,)) if message else ()
        if message is None or message.fuzzy or not all(strings):
            untranslated.append(str(key[1]))
            continue
        ids = wanted.id if isinstance(wanted.id, tuple) else (wanted.id,)
        needed = set().union(*(_holes(i) for i in ids))
        for string in strings:
            holes = _holes(string)
            allowed_missing = _COUNT_HOLES if len(ids) > 1 else set()
            if holes - needed or (needed - holes) - allowed_missing:
                broken.append(f"{key[1]!r} -> {string!r}")
            elif "{" in "".join(ids):
                try:
                    string.format(**{h.strip("{}"): "x" for h in holes if h.startswith("{")})
                except (KeyError, IndexError, ValueError) as exc:
                    broken.append(f"{key[1]!r} -> {string!r}: {exc}")
    assert not untranslated, f"{code}: {len(untranslated)} messages untranslated, first: {untranslated[:8]}"
    assert not broken, f"{code}: holes not kept in {len(broken)}: {broken[:8]}"


@pytest.mark.parametrize("code", LANGUAGES)
def test_each_catalog_says_its_own_plural_rule(code):
    catalog = _read(i18n.CATALOGS / code / "LC_MESSAGES" / "messages.po")
    # Babel's rule for the language (French and Spanish have a third form, for millions)
    assert str(catalog.locale) == code and catalog.num_plurals == Catalog(locale=code).num_plurals
    assert all(len(m.string) == catalog.num_plurals for m in catalog if m.id and m.pluralizable)


def test_the_pseudo_locale_wraps_every_message_and_keeps_its_holes():
    said = i18n.pseudo("{who} gains {count} Flowers <b>now</b> %(name)s")
    assert said.startswith("[") and said.endswith("]")
    assert "{who}" in said and "{count}" in said and "<b>" in said and "</b>" in said and "%(name)s" in said
    assert "gains" not in said and len(said) > len("{who} gains {count} Flowers <b>now</b> %(name)s")


@pytest.mark.parametrize("code", LANGUAGES)
def test_each_catalog_passes_the_checks_pybabel_compile_makes(code):
    """The install step compiles the catalogs with pybabel, which refuses a translation whose
    %-placeholders do not match its message's (a message merely holding a '%' counts too)."""
    catalog = _read(i18n.CATALOGS / code / "LC_MESSAGES" / "messages.po")
    problems = [(message.id, [str(e) for e in errors]) for message, errors in catalog.check()]
    assert problems == []
