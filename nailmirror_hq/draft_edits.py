"""What a reviewer may change in a draft before approving it (issue #25.12): the names, category, tags, price
guidance and channels of the style it publishes. The revision itself stays as the store sent it (immutable,
drafts.py); the edits go into the published body and the approval's audit entry.

`parse` reads the review page's form and refuses bad input with an `EditError` whose code the page words in one
line; what is checked against the database (a channel that does not exist) is refused by catalog.set_status.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from nailmirror_hq.catalog import REFERENCE_CODE as CODE
from nailmirror_protocol.shapes import StyleBody

MAX_NAME = 40
MAX_TAGS = 12
MAX_PRICE_MINOR = 10_000_000  # ¥100 000: anything above is a typo
FIELDS = ("name_zh", "name_en", "category", "tags", "price", "channels")


class EditError(ValueError):
    """A refused edit: `code` (for the page's words) and the field it concerns."""

    def __init__(self, code: str, field: str) -> None:
        super().__init__(f"{field}: {code}")
        self.code = code
        self.field = field


@dataclass(frozen=True)
class DraftEdits:
    name_zh: str
    name_en: str
    category: str | None
    tags: tuple[str, ...]
    price_guidance_minor: int | None
    channels: tuple[str, ...] | None  # None: where the style already goes (every channel if new)

    def apply(self, body: StyleBody) -> StyleBody:
        edited: dict[str, Any] = {**body, "name": {"zh": self.name_zh, "en": self.name_en},
                                  "category": self.category, "tags": list(self.tags)}
        edited["price_guidance_minor"] = self.price_guidance_minor
        return edited  # type: ignore[return-value]

    def audit_detail(self) -> dict[str, Any]:
        return {"name": {"zh": self.name_zh, "en": self.name_en}, "category": self.category,
                "tags": list(self.tags), "price_guidance_minor": self.price_guidance_minor}


def submitted(form: dict[str, str]) -> bool:
    """Did the form carry the edit fields (the "edit and approve" form), or is it a plain approve?"""
    return "name_zh" in form


def parse(form: dict[str, str]) -> DraftEdits:
    zh, en = form.get("name_zh", "").strip(), form.get("name_en", "").strip()
    if not zh:
        raise EditError("name_required", "name_zh")
    if len(zh) > MAX_NAME or len(en) > MAX_NAME:
        raise EditError("name_too_long", "name_zh" if len(zh) > MAX_NAME else "name_en")
    category = form.get("category", "").strip() or None
    if category is not None and not CODE.match(category):
        raise EditError("bad_code", "category")
    tags = tuple(dict.fromkeys(t.strip() for t in re.split(r"[,，\s]+", form.get("tags", "")) if t.strip()))
    if len(tags) > MAX_TAGS:
        raise EditError("too_many_tags", "tags")
    if any(not CODE.match(t) for t in tags):
        raise EditError("bad_code", "tags")
    return DraftEdits(zh, en, category, tags, parse_price(form.get("price", "")), parse_channels(form))


def parse_price(text: str) -> int | None:
    """"128" or "128.5" yuan → minor units; empty → no guidance."""
    text = text.strip().lstrip("¥￥").strip()
    if not text:
        return None
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise EditError("bad_price", "price") from None
    minor = value * 100
    if not value.is_finite() or minor != minor.to_integral_value() or minor < 0 or minor > MAX_PRICE_MINOR:
        raise EditError("bad_price", "price")
    return int(minor)


def parse_channels(form: dict[str, str]) -> tuple[str, ...] | None:
    """"north, south": those channels; "*": every channel; empty: where it goes now (the approve default)."""
    wanted = form.get("channels", "").strip()
    if not wanted:
        return None
    if wanted == "*":
        return ()
    return tuple(dict.fromkeys(c.strip() for c in re.split(r"[,，\s]+", wanted) if c.strip()))


def price_text(minor: int | None) -> str:
    if minor is None:
        return ""
    return f"{minor // 100}" if minor % 100 == 0 else f"{minor / 100:.2f}"
