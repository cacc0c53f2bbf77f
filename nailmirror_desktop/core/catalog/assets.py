"""Content-addressed, immutable asset store on disk (`data_dir()/assets`).

A file's path is derived from the sha256 of its bytes: `ab/cd/<sha256>.<ext>`, so the same image imported twice
is stored once, a path never changes meaning, and sync can fetch and verify blobs by hash
(ARCHITECTURE.md §8). md5 is computed too because the style_asset table dedupes on `file_md5`
(ARCHITECTURE.md §8) and central stores often only know md5 ETags.

Images are checked before they are accepted by an injected `ImageProbe` (core has no cv2; the implementation is
`adapters.pillow_probe.PillowImageProbe`). Writes are atomic: bytes go to a temporary file in the same folder,
are fsynced, then `os.replace`d into place, so a crash leaves either no file or the whole file, never half of one.
Thumbnails are made once per (source, size) and remembered in a small reference file.

Garbage: an interrupted write leaves a temporary (`.tmp-*.part`), and an import that failed after storing its
images leaves blobs no style_asset row points at. Both are collected at start-up once older than
ASSET_GARBAGE_MIN_AGE_S, which spares a write in progress in another process (StyleRepository.collect_garbage
decides which blobs are unreferenced, under the database's write lock; see there). `put` of an image already
stored makes the file young again, so an import reusing an old leftover is covered by the age guard too.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from nailmirror_desktop.core.catalog.errors import StyleError
from nailmirror_desktop.core.paths import data_dir, private_dir

log = logging.getLogger(__name__)

EXTENSIONS = {"PNG": "png", "JPEG": "jpg", "WEBP": "webp"}
DEFAULT_THUMBNAIL_SIDE = 256
ASSET_GARBAGE_MIN_AGE_S = 3_600  # garbage younger than this may be a write or an import still in progress
_TEMPORARY_PREFIX, _TEMPORARY_SUFFIX = ".tmp-", ".part"
_BLOB_PATH = re.compile(r"^([0-9a-f]{2})/([0-9a-f]{2})/(\1\2[0-9a-f]{60})\.(png|jpg|webp)$")


@dataclass(frozen=True)
class ImageInfo:
    """What the probe found: pixel size and the format from the file's magic bytes (PNG, JPEG or WEBP)."""

    width: int
    height: int
    format: str


class ImageProbe(Protocol):
    def probe(self, data: bytes) -> ImageInfo:
        """Check and fully decode `data`; raise ImageRejected if it is not an acceptable image."""

    def make_thumbnail(self, data: bytes, max_side: int) -> bytes:
        """A PNG no larger than max_side × max_side with the same aspect ratio (alpha kept)."""

    def to_png(self, data: bytes) -> bytes:
        """The same image re-encoded as PNG (alpha kept)."""


@dataclass(frozen=True)
class StoredBlob:
    """An image in the store. `relative_path` is relative to the store root (what style_asset.storage_path keeps)."""

    sha256: str
    md5: str
    size: int
    relative_path: str
    width: int
    height: int
    format: str


@dataclass(frozen=True)
class AssetCollection:
    """What one collection deleted: temporaries of interrupted writes and unreferenced blobs (counts, bytes);
    `failed` counts files that could not be deleted (logged, left for the next start)."""

    temporaries: int = 0
    temporary_bytes: int = 0
    blobs: int = 0
    blob_bytes: int = 0
    failed: int = 0


@dataclass(frozen=True)
class GarbageCandidates:
    """Files old enough to collect, as paths relative to the store root: temporaries, and blobs (which are
    garbage only if no row points at them)."""

    temporaries: tuple[str, ...]
    blobs: tuple[str, ...]


class AssetStore:
    def __init__(self, probe: ImageProbe, root: Path | None = None) -> None:
        self.probe = probe
        self.root = root or data_dir() / "assets"
        private_dir(self.root)  # owner-only, like the rest of the data directory

    def put(self, data: bytes) -> StoredBlob:
        """Check the image and store it once; return where it is. Raises ImageRejected."""
        info = self.probe.probe(data)
        sha256 = hashlib.sha256(data).hexdigest()
        relative = blob_relative_path(sha256, info.format)
        target = self.root / relative
        if _has_bytes(target, len(data)):
            _touch(target)  # young again: the collector's age guard now covers the import about to record it
        else:
            _atomic_write(target, data)
        return StoredBlob(
            sha256=sha256,
            md5=hashlib.md5(data).hexdigest(),
            size=len(data),
            relative_path=relative,
            width=info.width,
            height=info.height,
            format=info.format,
        )

    def put_file(self, path: Path) -> StoredBlob:
        return self.put(Path(path).read_bytes())

    def path_of(self, relative_path: str) -> Path:
        return self.root / relative_path

    def read(self, relative_path: str) -> bytes:
        return self.path_of(relative_path).read_bytes()

    def verify(self, blob_relative_path: str, sha256: str) -> bool:
        """True when the stored file still hashes to `sha256` (sync uses this before showing a style)."""
        path = self.path_of(blob_relative_path)
        return path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == sha256

    def thumbnail(self, source: StoredBlob, max_side: int = DEFAULT_THUMBNAIL_SIDE, *,
                  source_bytes: bytes | None = None) -> StoredBlob:
        """The thumbnail of a stored image, made the first time and read back afterwards. `source_bytes`: the
        image's bytes when the caller has them (no read back from disk)."""
        reference = self.root / "thumbs" / f"{source.sha256}-{max_side}.ref"
        if reference.is_file():
            cached = self._blob_from_reference(reference.read_text(encoding="ascii").strip())
            if cached is not None:
                return cached
        data = self.read(source.relative_path) if source_bytes is None else source_bytes
        thumb = self.put(self.probe.make_thumbnail(data, max_side))
        # A cache entry: atomic, but not worth two fsyncs (a lost one only means the thumbnail is made again).
        _atomic_write(reference, thumb.relative_path.encode("ascii"), durable=False)
        return thumb

    def garbage_candidates(self, now_s: float, min_age_s: float = ASSET_GARBAGE_MIN_AGE_S) -> GarbageCandidates:
        """Temporaries and blob files last written more than `min_age_s` before `now_s` (epoch seconds). Files
        the store did not name (anything else under its root) are never candidates."""
        temporaries, blobs = [], []
        for relative, mtime_s in self._files():
            if now_s - mtime_s < min_age_s:
                continue
            name = relative.rsplit("/", 1)[-1]
            if name.startswith(_TEMPORARY_PREFIX) and name.endswith(_TEMPORARY_SUFFIX):
                temporaries.append(relative)
            elif _BLOB_PATH.match(relative):
                blobs.append(relative)
        return GarbageCandidates(tuple(temporaries), tuple(blobs))

    def remove_if_old(self, relative_path: str, cutoff_s: float) -> int | None:
        """Delete the file if it was last written before `cutoff_s` (looked at again now: it may have been
        reused since it was listed). Its size, or None if it was kept or is gone; OSError if it cannot be."""
        path = self.path_of(relative_path)
        try:
            stat = path.stat()
            if stat.st_mtime >= cutoff_s:
                return None
            path.unlink()
        except FileNotFoundError:
            return None
        return stat.st_size

    def _files(self) -> Iterator[tuple[str, float]]:
        for folder, _, names in os.walk(self.root):
            for name in names:
                path = Path(folder) / name
                try:
                    stat = path.lstat()
                except FileNotFoundError:
                    continue
                if path.is_symlink():
                    continue
                yield path.relative_to(self.root).as_posix(), stat.st_mtime

    def _blob_from_reference(self, relative_path: str) -> StoredBlob | None:
        path = self.path_of(relative_path)
        if not path.is_file():
            return None
        data = path.read_bytes()
        sha256 = hashlib.sha256(data).hexdigest()
        if not relative_path.endswith(sha256 + path.suffix):
            return None  # damaged: make it again
        info = self.probe.probe(data)
        return StoredBlob(sha256, hashlib.md5(data).hexdigest(), len(data), relative_path, info.width,
                          info.height, info.format)


_SHA256 = re.compile(r"[0-9a-f]{64}")


def blob_relative_path(sha256: str, image_format: str) -> str:
    # A name from elsewhere (HQ's feed) must never lead out of the store's folders: 64 lower-case hex or nothing.
    if not isinstance(sha256, str) or not _SHA256.fullmatch(sha256):
        raise StyleError("BAD_SHA256", str(sha256)[:70])
    try:
        extension = EXTENSIONS[image_format]
    except KeyError:
        raise StyleError("IMAGE_FORMAT_NOT_ALLOWED", image_format) from None
    return f"{sha256[:2]}/{sha256[2:4]}/{sha256}.{extension}"


def _has_bytes(path: Path, size: int) -> bool:
    # Content-addressed: a file at the right path with the right size is the right file (written atomically).
    try:
        return path.stat().st_size == size
    except FileNotFoundError:
        return False


def _touch(path: Path) -> None:
    try:
        os.utime(path)
    except OSError as exc:  # a read-only store still serves its blobs
        log.debug("could not touch %s: %s", path, exc)


def _make_private_dirs(folder: Path) -> None:
    """Create `folder` and its missing parents 0700 whatever the umask (the store's ab/cd/ folders; the root is a
    marked private_dir)."""
    missing: list[Path] = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for path in reversed(missing):
        try:
            path.mkdir(mode=0o700)
        except FileExistsError:  # another writer made it just now
            continue
        os.chmod(path, 0o700)  # mkdir's mode is masked by the umask


def _atomic_write(target: Path, data: bytes, *, durable: bool = True) -> None:
    _make_private_dirs(target.parent)
    # mkstemp makes the file 0600, whatever the umask: blobs are owner-only like the rest of the data directory
    descriptor, temporary = tempfile.mkstemp(dir=target.parent, prefix=_TEMPORARY_PREFIX, suffix=_TEMPORARY_SUFFIX)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    if durable:
        _fsync_directory(target.parent)


def _fsync_directory(folder: Path) -> None:
    # Makes the rename itself durable on POSIX; Windows cannot open a directory for fsync, and NTFS journals it.
    if os.name != "posix":
        return
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
