"""Blobs in an S3-compatible bucket under "blobs/ab/cd/<sha256>".

PUT sends ChecksumSHA256, so the store itself refuses bytes damaged between HQ and it (400 BadDigest), and
If-None-Match: *, so an existing object is not rewritten (412 counts as "already there"). Both were verified
on SeaweedFS; a store that ignores If-None-Match is harmless, since a second PUT writes the same bytes.
GETs are redirected to a presigned URL (or NAILMIRROR_HQ_BLOBS' `public_base`, a CDN in front of the bucket).
Never keyed on the S3 ETag: for multipart uploads it is not a hash of the object.

URL: s3://BUCKET?endpoint=http://127.0.0.1:18333&region=us-east-1[&public_base=https://cdn.example/b]
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

from nailmirror_hq.blobs.base import HashMismatch, PutResult, blob_key, sha256_file

PREFIX = "blobs/"


class S3BlobStore:
    def __init__(self, bucket: str, endpoint: str | None, region: str, public_base: str | None = None,
                 prefix: str = PREFIX) -> None:
        self.bucket = bucket
        self.prefix = prefix
        self.public_base = public_base.rstrip("/") if public_base else None
        self.client: Any = boto3.client(
            "s3", endpoint_url=endpoint, region_name=region,
            config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 3, "mode": "standard"},
                          request_checksum_calculation="when_required"))

    @classmethod
    def from_url(cls, url: str, prefix: str = PREFIX) -> S3BlobStore:
        parsed = urlparse(url)
        query = {key: values[-1] for key, values in parse_qs(parsed.query).items()}
        if not parsed.netloc:
            raise ValueError(f"no bucket in {url!r}")
        # A prefix other than blobs/ (captures/) is never put behind the public CDN base: only presigned URLs.
        public = query.get("public_base") if prefix == PREFIX else None
        return cls(parsed.netloc, query.get("endpoint"), query.get("region", "us-east-1"), public, prefix)

    def key(self, sha256: str) -> str:
        return self.prefix + blob_key(sha256)

    def ensure_bucket(self) -> None:
        try:
            self.client.head_bucket(Bucket=self.bucket)
        except ClientError:
            self.client.create_bucket(Bucket=self.bucket)

    def has(self, sha256: str) -> bool:
        try:
            self.client.head_object(Bucket=self.bucket, Key=self.key(sha256))
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in ("404", "NoSuchKey", "NotFound"):
                return False
            raise
        return True

    def put_verified(self, sha256: str, source: Path) -> PutResult:
        computed = sha256_file(source)
        if computed != sha256:
            raise HashMismatch(computed)
        checksum = base64.b64encode(bytes.fromhex(sha256)).decode()
        try:
            with open(source, "rb") as body:
                self.client.put_object(Bucket=self.bucket, Key=self.key(sha256), Body=body,
                                       ChecksumSHA256=checksum, IfNoneMatch="*")
        except ClientError as exc:
            code = exc.response.get("Error", {}).get("Code")
            if code in ("PreconditionFailed", "412", "ConditionalRequestConflict"):
                return PutResult.EXISTED
            if code in ("BadDigest", "XAmzContentSHA256Mismatch", "InvalidDigest"):
                raise HashMismatch(computed) from None
            raise
        return PutResult.CREATED

    def local_path(self, sha256: str) -> Path | None:
        return None

    def url_for(self, sha256: str, ttl_s: int = 3600) -> str | None:
        if self.public_base:
            return f"{self.public_base}/{blob_key(sha256)}"
        url: str = self.client.generate_presigned_url(
            "get_object", Params={"Bucket": self.bucket, "Key": self.key(sha256)}, ExpiresIn=ttl_s)
        return url

    def read_chunks(self, sha256: str) -> Iterator[bytes]:
        body = self.client.get_object(Bucket=self.bucket, Key=self.key(sha256))["Body"]
        yield from body.iter_chunks(1024 * 1024)

    def delete(self, sha256: str) -> None:
        self.client.delete_object(Bucket=self.bucket, Key=self.key(sha256))
