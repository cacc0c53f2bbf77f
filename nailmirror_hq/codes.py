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


ENROLL_CODE_GROUPS = 4  # of 4 characters: 80 random bits


def new_enroll_code() -> str:
    """"7Q4K-M2XD-9RTB-C3PF": 80 random bits, typed by staff, so Crockford base32 (no I, L, O, U to misread).
    80 bits, not fewer, because HQ keeps only the code's sha256: a copy of HQ's database must not give the codes
    back by trying every code within their 24 h (all 2^40 sha256s are minutes of one GPU). Codes of 8
    characters (40 bits), issued before, still enroll until they expire; no new ones are made."""
    body = "".join(CROCKFORD_ALPHABET[secrets.randbelow(32)] for _ in range(4 * ENROLL_CODE_GROUPS))
    return "-".join(body[i:i + 4] for i in range(0, len(body), 4))


def normalise_enroll_code(text: str) -> str:
    """What staff type → the canonical code: case, spaces and dashes do not matter; O→0, I/L→1 as Crockford."""
    cleaned = re.sub(r"[\s-]", "", text.upper()).translate(str.maketrans("OIL", "011"))
    if len(cleaned) in (8, 4 * ENROLL_CODE_GROUPS):
        return "-".join(cleaned[i:i + 4] for i in range(0, len(cleaned), 4))
    return cleaned
