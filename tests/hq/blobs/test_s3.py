"""The S3 blob store against a real S3-compatible server (SeaweedFS on 127.0.0.1), with HQ on PostgreSQL."""

from __future__ import annotations

import http.client
import urllib.parse
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from nailmirror_hq.api.app import create_app
from nailmirror_hq.blobs.base import HashMismatch, PutResult
from nailmirror_hq.blobs.s3 import S3BlobStore
from nailmirror_hq.service import HQ
from tests.support.hq_fixtures import new_kiosk, png, sha


@pytest.mark.slow
def test_put_is_verified_and_a_repeat_counts_as_existing(hq_s3: HQ, tmp_path: Path) -> None:
    store = hq_s3.blobs
    assert isinstance(store, S3BlobStore)
    data = png(salt=3)
    path = tmp_path / "blob"
    path.write_bytes(data)
    assert not store.has(sha(data))
    with pytest.raises(HashMismatch):
        store.put_verified("0" * 64, path)
    assert store.put_verified(sha(data), path) is PutResult.CREATED
    assert store.put_verified(sha(data), path) is PutResult.EXISTED  # If-None-Match: * → 412
    assert store.has(sha(data)) and b"".join(store.read_chunks(sha(data))) == data


def test_the_store_itself_refuses_a_wrong_checksum(hq_s3: HQ) -> None:
    store = hq_s3.blobs
    assert isinstance(store, S3BlobStore)
    import base64

    from botocore.exceptions import ClientError

    with pytest.raises(ClientError) as caught:  # bytes damaged between HQ and the store: BadDigest
        store.client.put_object(Bucket=store.bucket, Key=store.key("f" * 64), Body=b"damaged",
                                ChecksumSHA256=base64.b64encode(bytes(32)).decode())
    assert caught.value.response["Error"]["Code"] in ("BadDigest", "InvalidDigest", "XAmzContentSHA256Mismatch")


def test_blob_get_redirects_to_a_presigned_url_that_honours_range(hq_s3: HQ) -> None:
    client = TestClient(create_app(hq_s3))
    _, headers = new_kiosk(hq_s3, client)
    data = png(120, 80, salt=4)
    assert client.put(f"/v1/blobs/{sha(data)}", content=data, headers=headers).status_code == 201
    answer = client.get(f"/v1/blobs/{sha(data)}", headers=headers, follow_redirects=False)
    assert answer.status_code == 307
    location = urllib.parse.urlsplit(answer.headers["location"])
    conn = http.client.HTTPConnection(location.hostname, location.port, timeout=10)
    conn.request("GET", f"{location.path}?{location.query}", headers={"Range": "bytes=100-"})  # no token sent
    got = conn.getresponse()
    assert got.status == 206 and got.read() == data[100:]
    conn.close()
