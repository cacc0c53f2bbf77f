"""Content-addressed blob stores: `fs` (the default, under the data dir) and `s3` (any S3-compatible store).

Both keep a blob under "ab/cd/<sha256>" and store it only once its bytes hash to its name (`put_verified`).
`open_for(url)` picks the store from NAILMIRROR_HQ_BLOBS ("file:///dir" or "s3://bucket?endpoint=…").
"""

from __future__ import annotations

from pathlib import Path

from nailmirror_hq.blobs.base import BlobStore, PutResult, blob_key
from nailmirror_hq.blobs.fs import FileBlobStore


def open_for(url: str) -> BlobStore:
    if url.startswith("s3://"):
        from nailmirror_hq.blobs.s3 import S3BlobStore  # boto3 is imported only where S3 is configured

        return S3BlobStore.from_url(url)
    if url.startswith("file://"):
        from urllib.parse import unquote, urlparse

        return FileBlobStore(unquote(urlparse(url).path))
    raise ValueError(f"unknown blob store URL {url!r} (file:///DIR or s3://BUCKET?endpoint=URL)")


def open_captures_for(url: str, data_dir: Path) -> BlobStore:
    """The store of consented captures (nailmirror_hq/captures.py), apart from the catalog's blobs: under
    "captures/" in the same bucket, or DIR/captures/ beside the filesystem store. No route serves it to a kiosk,
    and HQ never asks it for a URL."""
    if url.startswith("s3://"):
        from nailmirror_hq.blobs.s3 import S3BlobStore

        return S3BlobStore.from_url(url, prefix="captures/")
    if url.startswith("file://"):
        return FileBlobStore(data_dir / "captures")
    raise ValueError(f"unknown blob store URL {url!r} (file:///DIR or s3://BUCKET?endpoint=URL)")


__all__ = ["BlobStore", "FileBlobStore", "PutResult", "blob_key", "open_captures_for", "open_for"]
