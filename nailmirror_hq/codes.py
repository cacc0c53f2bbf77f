"""Style codes, the same way the kiosk makes them (nailmirror_desktop/core/catalog/codes.py; read, not imported:
HQ never imports the kiosk). A starter style gets the same stable code at HQ as on every kiosk, so the feed's
style_code of a pre-installed style matches the row the kiosk already has."""

from __future__ import annotations

import hashlib
import re
import secrets

CROCKFORD_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
RANDOM_CHARS = 6


def code_prefix(category_code: str | None, source: str) -> str:
    letters = re.sub(r"[^A-Za-z]", "", category_code or "").upper()
    if len(letters) >= 2:
        return letters[:3]
    return {"AI": "AI", "MANUAL": "MA", "CATALOG": "CA"}.get(source, "NM")


def new_style_code(prefix: str) -> str:
    return prefix + "-" + "".join(CROCKFORD_ALPHABET[secrets.randbelow(32)] for _ in range(RANDOM_CHARS))


def stable_style_code(prefix: str, key: str) -> str:
    digest = int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "big")
    return prefix + "-" + "".join(CROCKFORD_ALPHABET[(digest >> (5 * i)) & 31] for i in range(RANDOM_CHARS))


def new_enroll_code() -> str:
    """"7Q4K-M2XD": 40 random bits, typed by staff, so Crockford base32 (no I, L, O, U to misread)."""
    body = "".join(CROCKFORD_ALPHABET[secrets.randbelow(32)] for _ in range(8))
    return f"{body[:4]}-{body[4:]}"


def normalise_enroll_code(text: str) -> str:
    """What staff type → the canonical code: case, spaces and dashes do not matter; O→0, I/L→1 as Crockford."""
    cleaned = re.sub(r"[\s-]", "", text.upper()).translate(str.maketrans("OIL", "011"))
    return f"{cleaned[:4]}-{cleaned[4:]}" if len(cleaned) == 8 else cleaned
