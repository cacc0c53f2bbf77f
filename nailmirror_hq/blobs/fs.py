"""Blobs as files under DIR/ab/cd/<sha256>, written through a temp file, fsync and os.replace (as the kiosk's
AssetStore does), so a crash leaves either no file or the whole verified one, never half of it."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from nailmirror_hq.blobs.base import CHUNK, HashMismatch, PutResult, blob_key, sha256_file


class FileBlobStore:
    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)

    def path(self, sha256: str) -> Path:
        return self.root / blob_key(sha256)

    def has(self, sha256: str) -> bool:
        return self.path(sha256).is_file()

    def put_verified(self, sha256: str, source: Path) -> PutResult:
        computed = sha256_file(source)
        if computed != sha256:
            raise HashMismatch(computed)
        target = self.path(sha256)
        if target.is_file():
            return PutResult.EXISTED
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".incoming-")
        try:
            with os.fdopen(fd, "wb") as out, open(source, "rb") as src:
                shutil.copyfileobj(src, out, CHUNK)
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise
        dir_fd = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
        return PutResult.CREATED

    def local_path(self, sha256: str) -> Path | None:
        path = self.path(sha256)
        return path if path.is_file() else None

    def url_for(self, sha256: str, ttl_s: int = 3600) -> str | None:
        return None

    def read_chunks(self, sha256: str) -> Iterator[bytes]:
        with open(self.path(sha256), "rb") as handle:
            while chunk := handle.read(CHUNK):
                yield chunk

    def delete(self, sha256: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.path(sha256).unlink()
