"""Four phones at one Wicked Forest table, each reading it in its own language.

Ana's phone asks for English, Ben's German, Cara's French; Dan's browser asks for German
too, and Dan picks Español in the language menu mid-game. They play a card, choose Stay or
Return in secret and see the reveal: every phone says `<html lang>` in its language, shows
the table in it, and each view pushed after another phone's tap arrives in it.

Nothing here is translated by hand: what a phone should show is the app's own English
looked up in the app's own catalogs (`said`), so the test follows the catalogs. A language
whose catalog leaves a checked message in English fails the test at the end, naming the
message: a German, French or Spanish phone showing English is what this test is against.
"""

from __future__ import annotations

import re
from functools import lru_cache

import pytest

from companion.web import i18n

from .browser import PHONE, browser, live_server, tap  # noqa: F401  (fixtures)
from .test_browser_table import create_wicked_forest

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect

# Each phone's browser language (Accept-Language) and the player on it; Dan's browser says
# German like Ben's, and Dan switches to Spanish in the language menu.
BROWSERS = {"Ana": "en-US", "Ben": "de-DE", "Cara": "fr-FR", "Dan": "de-DE"}
SWITCH_TO = "es"


# --- the app's English, said in a language by the app's catalogs -------------------------

_HOLE = re.compile(r"(\{\w+\}|%\(\w+\)[sd]|%%)")


@lru_cache(maxsize=None)
def _messages():
    """Every message id of the catalogs (the template and each language's own), as
    (context, singular, plural or None)."""
    from babel.messages.pofile import read_po

    found = {}
    files = [i18n.TEMPLATE] + [i18n.CATALOGS / code / "LC_MESSAGES" / "messages.po"
                               for code in i18n.LANGUAGES if code != "en"]
    for path in files:
        if not path.exists():
            continue
        with path.open("rb") as file:
            for message in read_po(file):
                if not message.id:
                    continue
                singular, plural = (message.id if isinstance(message.id, tuple) else (message.id, None))
                found[(message.context, singular, plural)] = True
    return list(found)


def _pattern(message: str):
    """A message id as a regex over its English (holes as groups); None when it has no word
    of its own (a bare "{a}: {b}" would match any text)."""
    # A template's message is %-formatted (`%(name)s`, a literal % written %%); a Text's
    # has {holes}.
    percent = "%(" in message or ("%%" in message and "{" not in message)
    parts = _HOLE.split(message)
    literal = "".join(parts[::2])
    if not re.search(r"[^\W\d_]", literal):
        return None
    regex, holes = "", []
    for index, part in enumerate(parts):
        if index % 2 == 0:
            regex += re.escape(part)
        elif part == "%%":
            regex += "%" if percent else re.escape(part)
        else:
            name = part.strip("{}") if part.startswith("{") else part[2:-2]
            group = f"h{len(holes)}"
            holes.append(name)
            if part.endswith(")d"):
                regex += rf"(?P<{group}>-?\d+)"
            elif percent and part.startswith("{"):
                regex += re.escape(part)
                holes.pop()
            else:
                regex += rf"(?P<{group}>.+?)"
    return re.compile(regex, re.S), holes, len(literal), percent


@lru_cache(maxsize=None)
def _patterns():
    made = []
    for context, singular, plural in _messages():
        for form, is_plural in ((singular, False), (plural, True)):
            if form is None:
                continue
            compiled = _pattern(form)
            if compiled:
                made.append((compiled, context, singular, plural, is_plural))
    return made


@lru_cache(maxsize=None)
def _said(code: str, english: str) -> str:
    if code == "en":
        return english
    best = None
    for (regex, holes, weight, percent), context, singular, plural, is_plural in _patterns():
        match = regex.fullmatch(english)
        if match and (best is None or weight > best[0]):
            best = (weight, match, holes, percent, context, singular, plural, is_plural)
    if best is None:
        return english
    _, match, holes, percent, context, singular, plural, is_plural = best
    values = {name: match.group(f"h{index}") for index, name in enumerate(holes)}
    lang = i18n.language(code)
    if plural is None:
        pattern = lang.pgettext(context, singular) if context else lang.gettext(singular)
    else:
        count = next((int(values[k]) for k in ("count", "num") if k in values
                      and re.fullmatch(r"-?\d+", values[k])), 2 if is_plural else 1)
        pattern = (lang.npgettext(context, singular, plural, count) if context
                   else lang.ngettext(singular, plural, count))
    # A value is a player's name, a number, or words of their own (said again).
    filled = {name: (lang.number(int(value)) if re.fullmatch(r"-?\d+", value) else _said(code, value))
              for name, value in values.items()}
    if percent:
        for name, value in values.items():
            if re.fullmatch(r"-?\d+", value):
                filled[name] = int(value)
    try:
        if percent:
            return pattern % filled
        return pattern.format(**filled)
    except (KeyError, IndexError, ValueError, TypeError):
        return english


UNTRANSLATED: list[tuple[str, str]] = []


def said(code: str, english: str) -> str:
    """`english` (a text the app shows in English) as the app says it in `code`, from its
    catalogs; a language other than English that says it the same way is noted."""
    text = _said(code, english)
    if code != "en" and text == english and (code, english) not in UNTRANSLATED:
        UNTRANSLATED.append((code, english))
    return text


# --- phones ------------------------------------------------------------------------------

@pytest.fixture
def phone_in(browser):  # noqa: F811
    """phone_in(locale): a phone whose browser asks for `locale` (Accept-Language)."""
    made = []

    def make(locale):
        context = browser.new_context(**PHONE, locale=locale)
        context.set_default_timeout(10_000)
        made.append(context)
        return context.new_page()

    yield make
    for context in made:
        context.close()


def shows(page, code, locator, english):
    """`locator` on `page` reads `english` as `code` says it (and not in English, where
    that differs)."""
    text = said(code, english)
    expect(page.locator(locator)).to_contain_text(text)
    if text != english:
        expect(page.locator(locator)).not_to_contain_text(english)


def choice_button(page, code, which):
    """The Stay or Return button, named as the phone's language says it."""
    return page.get_by_role("button", name=re.compile(re.escape(said(code, which))))


def test_four_phones_four_languages(live_server, phone_in):
    UNTRANSLATED.clear()
    pages = {name: phone_in(locale) for name, locale in BROWSERS.items()}
    lang = {name: i18n.known(locale) for name, locale in BROWSERS.items()}
    ana = pages["Ana"]
    assert lang["Ana"] == "en"
    # The server's first page builds its assets, slow on a busy machine: not a tap's wait.
    ana.context.request.get(live_server + "/", timeout=60_000)

    code = create_wicked_forest(ana, live_server, list(BROWSERS), leader="0")
    ana.get_by_role("button", name="I am Ana").click()
    expect(ana.locator(".seat-chip.mine")).to_contain_text("Ana")
    for name in ("Ben", "Cara", "Dan"):
        page = pages[name]
        page.goto(f"{live_server}/join/{code}")
        expect(page.locator("html")).to_have_attribute("lang", lang[name])
        page.get_by_role("button", name=said(lang[name], f"I am {name}")).click()
        expect(page.locator(".seat-chip.mine")).to_contain_text(name)

    def each_phone_reads(locator, english=None):
        """Every phone shows Ana's English at `locator` (or `english`) in its own language."""
        english = english or ana.locator(locator).first.inner_text().strip()
        for name, page in pages.items():
            shows(page, lang[name], locator, english)

    for name, page in pages.items():
        expect(page.locator("html")).to_have_attribute("lang", lang[name])
    each_phone_reads(".forest h2")

    # Dan's phone switches to Spanish through its language menu; no other phone changes.
    dan = pages["Dan"]
    menu = dan.locator("form.language-menu")
    assert menu.count() >= 1, "no language menu on the table page (templates/_language_menu.html)"
    if not menu.first.is_visible():
        dan.locator("details:has(form.language-menu) > summary").first.click()
    menu.first.get_by_role("button", name=i18n.LANGUAGES[SWITCH_TO], exact=True).click()
    lang["Dan"] = SWITCH_TO
    expect(dan.locator("html")).to_have_attribute("lang", SWITCH_TO)
    expect(dan.locator(".seat-chip.mine")).to_contain_text("Dan")
    expect(dan.locator("form.language-menu legend").first).to_have_text(said(SWITCH_TO, "Language"))
    expect(dan.locator("form.language-menu [aria-current=true]").first).to_have_attribute("lang", SWITCH_TO)
    for name, page in pages.items():
        expect(page.locator("html")).to_have_attribute("lang", lang[name])
    each_phone_reads(".forest h2")

    # Ana reveals a card: the new view reaches every phone, each in its own language.
    ana.get_by_role("button", name="3 Flowers, no Witch").click()
    expect(ana.locator(".forest h2")).to_have_text(re.compile(r"\b1\b"))
    each_phone_reads(".forest h2")
    for name, page in pages.items():
        shows(page, lang[name], "[data-primary] h2", f"{name}: Stay or Return?")
        expect(choice_button(page, lang[name], "Return")).to_be_visible()

    # Each phone's secret choice: Ana returns home, the others stay in the forest.
    tap(ana, re.compile(re.escape(said("en", "Return"))))
    for name in ("Ben", "Cara", "Dan"):
        shows(pages[name], lang[name], "[data-primary] .waiting", "Chosen: Ana")
    for name in ("Ben", "Cara"):
        page = pages[name]
        tap(page, re.compile(re.escape(said(lang[name], "Stay"))))
        expect(page.locator(".choice-pad.choice-made")).to_have_count(1)
    tap(dan, re.compile(re.escape(said(lang["Dan"], "Stay"))))

    # The reveal, pushed to every phone after Dan's tap, in each phone's language.
    expect(ana.locator(".events")).to_contain_text("Ana gains 3 Flowers.")
    for name, page in pages.items():
        shows(page, lang[name], ".events", "Ana gains 3 Flowers.")
        expect(page.locator(".reveals")).to_contain_text(said(lang[name], "Return"))
        expect(page.locator(".reveals")).to_contain_text(said(lang[name], "Stay"))
        expect(page.locator("html")).to_have_attribute("lang", lang[name])
    each_phone_reads(".forest h2")

    # Every text checked above differs from its English in German, French and Spanish.
    assert not UNTRANSLATED, "shown in English where the catalogs should translate it:\n" + "\n".join(
        f"  {code}: {english!r}" for code, english in UNTRANSLATED)
