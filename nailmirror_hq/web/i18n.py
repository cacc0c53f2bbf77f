"""HQ's page translations: gettext catalogs (locale/<lang>/LC_MESSAGES/messages.po) compiled in memory with
Babel at start, so there is no build step. English is the source text; zh_CN is the chain's primary language.

The language: ?lang= (remembered in a cookie), else the cookie, else Accept-Language, else zh_CN.

Status codes are msgids too: a page shows `_(code)` (`pgettext("style", code)` for a style's, since a style's
WITHDRAWN is "taken down" and a draft's "withdrawn"), and STATUSES lists every one a page may show, so
tests/hq/web/test_wording.py fails when one has no real English or Chinese words. In Chinese a kiosk is 终端,
everywhere (the kiosk's own .ts says the same).
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
KIOSK_TERM_ZH = "终端"  # the one Chinese word for a kiosk (issue #25 point 14), not 自助机, 门店机 or 设备

# msgctxt → the status codes shown under it ("" none): drafts' review states, stores', the credit ledger's kinds,
# states and parked grants', and the roles (shown on the 403 page); "label": the labelling page's codes.
STATUSES: dict[str, tuple[str, ...]] = {
    "": ("PENDING_REVIEW", "APPROVED", "REJECTED", "WITHDRAWN", "ACTIVE", "REVOKED", "GRANT", "CHARGE",
         "CONFIRMED", "REFUNDED", "PARKED", "ACCEPTED", "content_reviewer", "content_editor", "ops_admin",
         "labeller", "trainer"),
    "style": ("UNPUBLISHED", "PUBLISHED", "OFF_SHELF", "WITHDRAWN"),
    # the labelling page: decisions, rejection reasons, skin tones, nail kinds (labels.py) and the kiosk's fingers
    "label": ("accepted", "skipped", "rejected", "not_usable", "privacy", "I-II", "III-IV", "V-VI", "bare",
              "polished", "long", "decorated", "thumb", "index", "middle", "ring", "pinky"),
}


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
