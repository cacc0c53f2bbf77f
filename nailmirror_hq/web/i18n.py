"""HQ's page translations: gettext catalogs (locale/<lang>/LC_MESSAGES/messages.po) compiled in memory with
Babel at start, so there is no build step. English is the source text; zh_CN is the chain's primary language.

The language: ?lang= (remembered in a cookie), else the cookie, else Accept-Language, else zh_CN.
"""

from __future__ import annotations

import io
from functools import cache
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations

LOCALE_DIR = Path(__file__).parent / "locale"
LANGUAGES = ("zh_CN", "en")
DEFAULT = "zh_CN"


@cache
def translations(lang: str) -> NullTranslations:
    po = LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po"
    if not po.is_file():
        return NullTranslations()
    with open(po, "rb") as handle:
        catalog = read_po(handle, locale=lang)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return Translations(buffer)


def pick(query: str | None, cookie: str | None, accept_language: str | None) -> str:
    for candidate in (query, cookie):
        if candidate in LANGUAGES:
            return str(candidate)
    for part in (accept_language or "").split(","):
        tag = part.split(";")[0].strip().lower()
        if tag.startswith("zh"):
            return "zh_CN"
        if tag.startswith("en"):
            return "en"
    return DEFAULT
