"""Readable style codes that do not reveal how many styles exist.

A code is a short prefix (from the category, or the source for uncategorised styles) and random Crockford
base32 characters: `FR-7KQ2MX`. Random, not sequential, so a customer seeing two codes learns nothing about
volume; Crockford's alphabet leaves out I, L, O and U so codes read aloud or typed by staff are not confused.
Uniqueness is the database's job (style.style_code UNIQUE); `insert_with_fresh_code` retries on collision.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import sqlite3
from collections.abc import Callable

from nailmirror_desktop.core.catalog.errors import StyleError

CROCKFORD_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
RANDOM_CHARS = 6  # 32**6 ≈ 1.07e9 codes per prefix: collisions stay rare for any store's catalog
MAX_ATTEMPTS = 8
CODE_PATTERN = re.compile(r"^[A-Z]{2,3}-[0-9A-HJKMNP-TV-Z]{6}$")



def code_prefix(category_code: str | None, source: str) -> str:
    """Two or three letters: the category's leading letters (`french` → `FRE`), else the source (`AI`, `MA`, `CA`)."""
    letters = re.sub(r"[^A-Za-z]", "", category_code or "").upper()
    if len(letters) >= 2:
        return letters[:3]
    return {"AI": "AI", "MANUAL": "MA", "CATALOG": "CA"}.get(source, "NM")


def new_style_code(prefix: str, randbelow: Callable[[int], int] = secrets.randbelow) -> str:
    body = "".join(CROCKFORD_ALPHABET[randbelow(32)] for _ in range(RANDOM_CHARS))
    return f"{prefix}-{body}"


def is_style_code(text: str) -> bool:
    return bool(CODE_PATTERN.match(text.strip().upper()))


def stable_style_code(prefix: str, key: str) -> str:
    """The same code for the same key on every kiosk (starter catalog styles), still revealing no count."""
    digest = int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "big")
    body = "".join(CROCKFORD_ALPHABET[(digest >> (5 * i)) & 31] for i in range(RANDOM_CHARS))
    return f"{prefix}-{body}"


def insert_with_fresh_code[T](
    insert: Callable[[str], T],
    prefix: str,
    randbelow: Callable[[int], int] = secrets.randbelow,
    first_code: str | None = None,
) -> T:
    """Call `insert(code)` (first with `first_code` if given) until it does not hit the style_code constraint."""
    candidates = [first_code] if first_code else []
    for attempt in range(MAX_ATTEMPTS):
        code = candidates[attempt] if attempt < len(candidates) else new_style_code(prefix, randbelow)
        try:
            return insert(code)
        except sqlite3.IntegrityError as exc:
            if "style.style_code" not in str(exc):
                raise
    raise StyleError("STYLE_CODE_EXHAUSTED", f"{MAX_ATTEMPTS} collisions for prefix {prefix}")
