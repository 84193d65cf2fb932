"""Which language a phone reads: its browser's at first, then its own choice from a language
menu, kept in its cookie and for it alone; hostile choices change nothing."""

from __future__ import annotations

import re

import pytest

from companion import create_app
from companion.web import i18n
from companion.web.limits import limiter

ORIGIN = {"Origin": "http://localhost"}


@pytest.fixture
def app(tmp_path):
    made = create_app({"TESTING": True, "DATABASE": str(tmp_path / "lang.sqlite"), "SECRET_KEY": "lang",
                       "LAN_ADDRESS": "127.0.0.1"})
    limiter.reset()
    return made


def page_language(resp) -> str:
    return re.search(r'<html lang="([^"]+)"', resp.get_data(as_text=True)).group(1)


@pytest.mark.parametrize("header, expected", [
    ("de-AT,de;q=0.9,en;q=0.5", "de"), ("fr-CA;q=0.9", "fr"), ("es-MX", "es"), ("zh-CN,ja;q=0.8", "en"),
    ("en-GB", "en"), ("", "en"), ("pt-BR,es;q=0.4", "es")])
def test_a_first_visit_reads_the_browsers_language(app, header, expected):
    resp = app.test_client().get("/", headers={"Accept-Language": header})
    assert resp.status_code == 200 and page_language(resp) == expected


def test_the_menu_keeps_a_choice_for_this_phone_only(app):
    ana, ben = app.test_client(), app.test_client()
    chosen = ana.post("/language", data={"lang": "de", "next": "/history?game=x"}, headers=ORIGIN)
    assert chosen.status_code == 303 and chosen.headers["Location"].endswith("/history?game=x")
    cookie = ana.get_cookie(i18n.COOKIE)
    assert cookie.value == "de" and cookie.http_only
    assert page_language(ana.get("/", headers={"Accept-Language": "fr"})) == "de"  # the choice wins
    assert page_language(ben.get("/")) == "en"
    menu = ana.get("/").get_data(as_text=True)
    assert re.search(r'value="de"[^>]*aria-current="true"', menu)
    assert i18n.PSEUDO not in menu  # the pseudo-locale is never offered


@pytest.mark.parametrize("target", ["//evil.example/x", "http://evil.example/", "/\\evil.example", "", "javascript:1",
                                    "/" + "a" * 400])
def test_the_menu_goes_back_only_to_a_page_of_this_site(app, target):
    resp = app.test_client().post("/language", data={"lang": "fr", "next": target}, headers=ORIGIN)
    assert resp.status_code == 303 and resp.headers["Location"] in ("/", "http://localhost/")


@pytest.mark.parametrize("asked", ["xx", "de\u202e", "fr' onload='x", "en_XA_Z", "", "DE"])
def test_a_language_nobody_offers_changes_nothing(app, asked):
    phone = app.test_client()
    resp = phone.post("/language", data={"lang": asked, "next": "/"}, headers=ORIGIN)
    assert resp.status_code in (303, 400)
    cookie = phone.get_cookie(i18n.COOKIE)
    assert cookie is None or cookie.value in i18n.LANGUAGES
    assert page_language(phone.get("/")) in i18n.LANGUAGES


def test_a_forged_cookie_or_query_is_read_as_english(app):
    phone = app.test_client()
    phone.set_cookie(i18n.COOKIE, "<script>")
    assert page_language(phone.get("/?lang=%3Cb%3E")) == "en"
    assert page_language(phone.get("/?lang=fr")) == "fr"


def test_the_menu_is_a_write_of_this_site(app):
    resp = app.test_client().post("/language", data={"lang": "de"}, headers={"Origin": "http://evil.example"})
    assert resp.status_code == 403


def test_the_json_api_answers_in_its_requests_language_and_keeps_its_keys(app):
    phone = app.test_client()
    english = phone.get("/api/games").get_json()
    german = phone.get("/api/games?lang=de").get_json()
    french = phone.get("/api/games", headers={"Accept-Language": "fr"}).get_json()
    for other in (german, french):
        assert [sorted(g) for g in other] == [sorted(g) for g in english]  # the same keys
        assert [g["id"] for g in other] == [g["id"] for g in english]
        assert other != english  # the sentences are its own
