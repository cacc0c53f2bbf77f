"""The blob store interface and what both implementations share."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from enum import StrEnum
from pathlib import Path
from typing import Protocol

CHUNK = 1024 * 1024


class PutResult(StrEnum):
    CREATED = "created"
    EXISTED = "existed"


class HashMismatch(Exception):
    def __init__(self, computed: str) -> None:
        super().__init__(f"bytes hash to {computed}")
        self.computed = computed


def blob_key(sha256: str) -> str:
    return f"{sha256[:2]}/{sha256[2:4]}/{sha256}"


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


class BlobStore(Protocol):
    def has(self, sha256: str) -> bool: ...

    def put_verified(self, sha256: str, source: Path) -> PutResult:
        """Store the file at `source` as `sha256`; HashMismatch if its bytes do not hash to it."""
        ...

    def local_path(self, sha256: str) -> Path | None:
        """A file HQ can serve itself (filesystem store); None when clients are redirected (`url_for`)."""
        ...

    def url_for(self, sha256: str, ttl_s: int = 3600) -> str | None:
        """A URL the client may fetch directly (presigned S3 / CDN), or None."""
        ...

    def read_chunks(self, sha256: str) -> Iterator[bytes]: ...

    def delete(self, sha256: str) -> None: ...
