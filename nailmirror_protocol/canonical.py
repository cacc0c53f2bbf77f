"""Canonical JSON (sorted keys, no whitespace, UTF-8) and the hashes built on it.

- `body_sha256`: HQ compares draft revisions by it, so a replay of the same revision (201, then 200) is told
  apart from a different body under the same id+rev (409) whatever the key order or spacing the kiosk used.
- `catalog_digest`: sha256 over "<id>:<version>\\n" lines sorted by id, over the live HQ-owned styles of a
  channel. HQ sends it in the feed's last page and in the snapshot; the kiosk computes the same over its rows
  and resyncs on a mismatch.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any


def canonical_json(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()


def body_sha256(value: Any) -> str:
    return hashlib.sha256(canonical_json(value)).hexdigest()


def catalog_digest(pairs: Iterable[tuple[str, int]]) -> str:
    """"sha256:<hex>" of the (id, version) pairs; the order they come in does not matter."""
    digest = hashlib.sha256()
    for entity_id, version in sorted(pairs):
        digest.update(f"{entity_id}:{version}\n".encode())
    return f"sha256:{digest.hexdigest()}"


def is_sha256_hex(text: object) -> bool:
    return isinstance(text, str) and len(text) == 64 and all(c in "0123456789abcdef" for c in text)
