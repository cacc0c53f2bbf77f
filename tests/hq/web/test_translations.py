"""Every text the review page shows has its zh_CN and English translation: the messages Babel extracts from the
templates, and the reject reasons (recorded in zh_CN, so a missing one would reach the stores in English)."""

from __future__ import annotations

from pathlib import Path

import pytest
from babel.messages.extract import extract_from_file
from babel.messages.pofile import read_po

from nailmirror_hq.web import i18n, reject_reasons

TEMPLATES = Path(i18n.__file__).parent / "templates"


def _messages() -> set[str]:
    found: set[str] = set(reject_reasons.REASONS.values())
    for template in TEMPLATES.glob("*.html"):
        for _, message, _, _ in extract_from_file("jinja2.ext.babel_extract", str(template),
                                                  options={"extensions": "jinja2.ext.i18n"}):
            found.update(m for m in (message if isinstance(message, tuple) else (message,)) if m)
    return found


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_every_page_text_is_translated(lang: str) -> None:
    with open(i18n.LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po", "rb") as handle:
        catalog = read_po(handle, locale=lang)
    messages = _messages()
    assert len(messages) > 100
    missing = sorted(m for m in messages if m not in catalog or not catalog[m].string)
    assert not missing, missing


def test_a_picked_reason_is_recorded_in_chinese() -> None:
    assert reject_reasons.reason_text("brand_colours", "") == "颜色与品牌色不符"
    assert reject_reasons.reason_text("", "  偏  荧光 ") == "偏 荧光"
    assert reject_reasons.reason_text("nonsense", "") == ""
