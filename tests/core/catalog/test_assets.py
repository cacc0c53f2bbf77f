"""The content-addressed asset store: dedupe, atomic writes, refusal of bad images, thumbnails made once."""

from __future__ import annotations

import hashlib
import os

import pytest

from nailmirror_desktop.adapters.pillow_probe import PillowImageProbe
from nailmirror_desktop.core.catalog import AssetStore, ImageRejected
from nailmirror_desktop.core.paths import OWNED_MARKER, data_dir
from tests.support.style_fixtures import image_bytes


class CountingProbe(PillowImageProbe):
    """The real probe, counting how often it is asked to make a thumbnail."""

    def __init__(self):
        super().__init__()
        self.thumbnails_made = 0

    def make_thumbnail(self, data, max_side):
        self.thumbnails_made += 1
        return super().make_thumbnail(data, max_side)


def _files(root):
    """The stored files (not the marker that says the kiosk made the folder: core.paths.OWNED_MARKER)."""
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() and p.name != OWNED_MARKER)


def test_store_lives_in_the_data_directory_and_paths_come_from_sha256():
    store = AssetStore(PillowImageProbe())
    assert store.root == data_dir() / "assets"
    data = image_bytes(fmt="JPEG")
    blob = store.put(data)
    sha = hashlib.sha256(data).hexdigest()
    assert blob.sha256 == sha and blob.md5 == hashlib.md5(data).hexdigest() and blob.size == len(data)
    assert blob.relative_path == f"{sha[:2]}/{sha[2:4]}/{sha}.jpg"
    assert store.path_of(blob.relative_path).read_bytes() == data
    assert (blob.width, blob.height, blob.format) == (48, 72, "JPEG")


def test_the_same_image_twice_is_stored_once():
    store = AssetStore(PillowImageProbe())
    data = image_bytes()
    first, second = store.put(data), store.put(bytes(data))
    assert first == second
    assert _files(store.root) == [first.relative_path]
    other = store.put(image_bytes(color=(1, 2, 3, 255)))
    assert other.relative_path != first.relative_path
    assert len(_files(store.root)) == 2


def test_a_second_store_over_the_same_folder_finds_the_file_without_rewriting_it():
    data = image_bytes()
    blob = AssetStore(PillowImageProbe()).put(data)
    path = AssetStore(PillowImageProbe()).path_of(blob.relative_path)
    inode = path.stat().st_ino
    AssetStore(PillowImageProbe()).put(data)
    assert path.stat().st_ino == inode


@pytest.mark.parametrize("bad", [b"", b"junk", image_bytes()[:-20]])
def test_refused_images_leave_nothing_on_disk(bad):
    store = AssetStore(PillowImageProbe())
    with pytest.raises(ImageRejected):
        store.put(bad)
    assert _files(store.root) == []


def test_a_failed_write_leaves_neither_the_file_nor_a_temporary(monkeypatch):
    store = AssetStore(PillowImageProbe())

    def disk_full(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", disk_full)
    with pytest.raises(OSError):
        store.put(image_bytes())
    assert _files(store.root) == []
    monkeypatch.undo()
    blob = store.put(image_bytes())  # and the next try works
    assert _files(store.root) == [blob.relative_path]


def test_a_half_written_file_at_the_target_is_replaced():
    # E.g. copied in by hand or damaged: the size no longer matches, so put() writes the real bytes again.
    store = AssetStore(PillowImageProbe())
    data = image_bytes()
    blob = store.put(data)
    store.path_of(blob.relative_path).write_bytes(data[:10])
    assert not store.verify(blob.relative_path, blob.sha256)
    store.put(data)
    assert store.verify(blob.relative_path, blob.sha256)


def test_thumbnails_are_made_once_and_then_read_back():
    probe = CountingProbe()
    store = AssetStore(probe)
    source = store.put(image_bytes(size=(600, 300)))
    thumb = store.thumbnail(source, 128)
    assert (thumb.width, thumb.height, thumb.format) == (128, 64, "PNG")
    assert store.thumbnail(source, 128) == thumb
    assert AssetStore(probe).thumbnail(source, 128) == thumb  # remembered on disk, not in memory
    assert probe.thumbnails_made == 1
    store.thumbnail(source, 64)  # another size is another thumbnail
    assert probe.thumbnails_made == 2


def test_a_missing_thumbnail_file_is_made_again():
    probe = CountingProbe()
    store = AssetStore(probe)
    source = store.put(image_bytes(size=(600, 300)))
    thumb = store.thumbnail(source, 128)
    store.path_of(thumb.relative_path).unlink()
    assert store.thumbnail(source, 128) == thumb
    assert probe.thumbnails_made == 2
    assert store.verify(thumb.relative_path, thumb.sha256)
