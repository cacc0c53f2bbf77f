"""English style names composed offline from the curated glossary (resources/glossary/style_terms.json): every
starter style gets one, never pinyin; an unknown term leaves the name untranslated and is listed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from nailmirror_desktop.core.catalog.english_names import (
    KINDS,
    compose_english,
    default_glossary_path,
    glossary_gaps,
    load_glossary,
)
from tests.support.style_fixtures import repository

ROOT = Path(__file__).resolve().parents[3]
STARTER = json.loads((ROOT / "resources/starter_catalog/catalog.json").read_text(encoding="utf-8"))["styles"]
_CONNECTORS = {"and", "no."}


def glossary_english_words() -> set[str]:
    data = json.loads(default_glossary_path().read_text(encoding="utf-8"))
    return {word.lower() for kind in KINDS for english in data[kind].values() for word in english.split()}


@pytest.mark.parametrize("style", STARTER, ids=[s["code"] for s in STARTER])
def test_every_starter_style_gets_an_english_name_from_the_glossary_not_pinyin(style):
    composed = compose_english(style["name_zh"])
    assert composed.missing == () and composed.english, style["name_zh"]
    assert composed.english.isascii() and composed.english[0].isupper()
    # every word is the glossary's English (curated, never pinyin), or a connector the composer adds
    assert set(composed.english.lower().split()) <= glossary_english_words() | _CONNECTORS, composed.english


def test_terms_are_read_longest_first_and_colours_are_joined():
    assert compose_english("黑金线条").english == "Black and Gold Lines"
    assert compose_english("豆沙金箔").english == "Dusty Rose Gold Foil"
    assert compose_english("金色金箔").english == "Gold Foil"  # the foil says gold already
    assert compose_english("深酒红猫眼 2号").english == "Dark Burgundy Cat Eye No. 2"


def test_an_unknown_term_or_a_latin_word_in_a_chinese_name_leaves_no_english():
    assert compose_english("奶白某某花").english == "" and compose_english("奶白某某花").missing == ("某某",)
    hong = compose_english("hong猫眼")
    assert hong.english == "" and hong.missing == ("hong",)  # pinyin is never shown as English
    assert compose_english("Rose glow").english == "Rose glow"  # named in Latin letters by staff: kept


def test_the_glossary_has_only_english_values_and_chinese_or_ascii_keys():
    glossary = load_glossary()
    for term, (english, _kind) in glossary.terms.items():
        assert english.isascii() and re.fullmatch(r"[A-Za-z][A-Za-z .\-']*", english), (term, english)
        assert not term.isascii() or term == term.lower()


def test_a_new_style_without_an_english_name_gets_one_and_a_given_one_is_kept():
    repo = repository()
    composed = repo.create_style("酒红猫眼", "MANUAL", actor="test")
    given = repo.create_style("酒红猫眼", "MANUAL", actor="test", name_en="Wine Velvet")
    unknown = repo.create_style("奶白某某花", "MANUAL", actor="test")
    assert (composed.name_en, given.name_en, unknown.name_en) == ("Burgundy Cat Eye", "Wine Velvet", "")
    assert repo.ensure_tag("maoyan", "猫眼").name_en == "Cat Eye"
    gaps = glossary_gaps(repo.style_names())
    assert [(g.term, g.untranslated) for g in gaps] == [("某某", (unknown.style_code,))]
