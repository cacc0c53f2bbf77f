"""Blob GETs with resume: bytes land in `<parts_dir>/<sha256>.part` as they arrive (flushed per chunk), so a
reset mid-blob keeps what came; the next attempt asks `Range: bytes=<have>-` with `If-Range: "<sha256>"`.
206 appends, 200 (HQ ignored the range, or the blob changed) starts over, 416 drops the part and starts over.

A write the disk refuses (ENOSPC, EDQUOT, EFBIG) is Fault.DISK_FULL, not a network fault: the part keeps what
was written and the fetch resumes from there once there is room.

A 307 to another host (S3/CDN presigned URLs) is followed by hand, one hop, and the kiosk's token is not sent
there. The caller verifies the sha256 of what this returns; a part that completes is removed only after that
(core/sync/tasks.py stores it and the part is removed here first thing on the next fetch of a stored blob).
"""

from __future__ import annotations

import contextlib
import http.client
import os
import socket
import ssl
import time
import urllib.parse
from pathlib import Path

from nailmirror_desktop.adapters.http.client import DeadlineGuard, Timeouts, open_connection
from nailmirror_desktop.core.generation.provider_port import ProviderError
from nailmirror_desktop.core.sync.errors import STORAGE_ERRNOS, Fault, SyncError, disk_full

CHUNK = 64 * 1024
MAX_REDIRECTS = 1
BLOB_MAX_BYTES = 64 * 1024 * 1024
# OpenSSL's words for a certificate outside its validity: by this kiosk's clock, usually a wrong clock.
CLOCK_SIGNS = ("certificate is not yet valid", "certificate has expired")
UNTRUSTED_SIGN = "CERTIFICATE_VERIFY_FAILED"  # any other refusal of HQ's certificate: not trusted, or another host's


def untrusted(host: str, detail: str) -> SyncError:
    """HQ's certificate did not verify (and not for the clock): a proxy intercepting HTTPS (a captive portal, a
    filtering firewall) or a wrong certificate at HQ. Nothing was sent; tried again on the network backoff, as
    a portal clears once someone logs in."""
    return SyncError(Fault.OFFLINE, "tls_untrusted",
                     f"{host}'s TLS certificate is not trusted by this kiosk (an HTTPS-intercepting proxy, or a wrong"
                     f" certificate at HQ); nothing was sent ({detail[-120:]})")


def fetch_resumable(url: str, sha256: str, size: int, *, headers: dict[str, str], parts_dir: Path,
                    timeouts: Timeouts) -> bytes:
    try:
        parts_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        if exc.errno in STORAGE_ERRNOS:
            raise disk_full(exc, f"blob {sha256[:12]}…") from None
        raise
    part = parts_dir / f"{sha256}.part"
    if size > BLOB_MAX_BYTES:
        raise SyncError(Fault.INVALID, "blob_too_large", f"blob {sha256[:12]}… declares {size} bytes")
    origin = urllib.parse.urlsplit(url).netloc
    for _hop in range(MAX_REDIRECTS + 1):
        have = part.stat().st_size if part.exists() else 0
        if have >= size > 0:
            # The whole blob is here from an earlier attempt (cut after the last byte): verify it, fetch nothing.
            data = part.read_bytes()
            part.unlink()
            return data
        send = dict(headers) if urllib.parse.urlsplit(url).netloc == origin else {
            k: v for k, v in headers.items() if k.lower() not in ("authorization",)}
        if have:
            send["Range"] = f"bytes={have}-"
            send["If-Range"] = f'"{sha256}"'
        status, location = _get_into(url, send, part, have, timeouts)
        if status in (200, 206):
            data = part.read_bytes()
            part.unlink()
            return data
        if status == 416:
            part.unlink(missing_ok=True)
            continue
        if status in (301, 302, 303, 307, 308) and location:
            url = urllib.parse.urljoin(url, location)
            continue
        raise _status_fault(status, sha256)
    raise SyncError(Fault.OFFLINE, "too_many_redirects", f"blob {sha256[:12]}…: more than {MAX_REDIRECTS} redirect")


def _status_fault(status: int, sha256: str) -> SyncError:
    if status == 401:
        return SyncError(Fault.REVOKED, "token_revoked", "HQ refused this kiosk's token")
    if status == 404:
        return SyncError(Fault.NOT_FOUND, "not_found", f"HQ has no blob {sha256[:12]}…")
    if status == 426:
        return SyncError(Fault.UPGRADE_REQUIRED, "upgrade_required", "HQ needs a newer kiosk")
    return SyncError(Fault.OFFLINE, f"http_{status}", f"blob {sha256[:12]}…: HQ answered {status}")


def _get_into(url: str, headers: dict[str, str], part: Path, have: int,
              timeouts: Timeouts) -> tuple[int, str | None]:
    """One GET; a 2xx body is written into `part` (appended for 206). Returns (status, Location)."""
    parts = urllib.parse.urlsplit(url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    try:
        conn = open_connection(parts, timeouts)
    except ProviderError as exc:
        raise SyncError(Fault.INVALID, exc.code, exc.message) from None
    guard = DeadlineGuard(conn, None)
    try:
        guard.arm(time.monotonic() + timeouts.connect_s)
        try:
            conn.connect()
        except (OSError, ssl.SSLError) as exc:
            if any(sign in str(exc) for sign in CLOCK_SIGNS):
                raise SyncError(Fault.CLOCK, "clock_or_certificate",
                                f"{parts.hostname}'s TLS certificate is not valid at this kiosk's time: check the"
                                " kiosk's clock") from None
            if UNTRUSTED_SIGN in str(exc):
                raise untrusted(str(parts.hostname), str(exc)) from None
            raise SyncError(Fault.OFFLINE, "network_unreachable", f"connect to {parts.hostname}: {exc}") from None
        guard.watch(conn.sock)
        # A blob may take longer than one JSON answer: the deadline is read_s per megabyte, at least read_s.
        guard.arm(time.monotonic() + timeouts.read_s * 4)
        conn.sock.settimeout(timeouts.read_s)
        try:
            conn.request("GET", path, headers=headers)
            response = conn.getresponse()
            status = response.status
            if status == 206:
                mode = "ab"
            elif status == 200:
                mode = "wb"  # HQ sent the whole blob (no range, or If-Range did not match): start over
            else:
                with contextlib.suppress(OSError, http.client.HTTPException):
                    response.read(64 * 1024)
                return status, response.getheader("Location")
            if status == 206 and not (response.getheader("Content-Range") or "").startswith(f"bytes {have}-"):
                mode = "wb"  # not the range we asked for: never splice bytes from elsewhere into the part
                part.unlink(missing_ok=True)
            with open(part, mode) as out:
                while True:
                    chunk = response.read(CHUNK)
                    if not chunk:
                        break
                    out.write(chunk)
                    out.flush()  # what arrived survives a reset (and, after fsync at close, a power cut)
                os.fsync(out.fileno())
            if response.length:  # declared bytes never came: a cut; keep the part for the next attempt
                raise SyncError(Fault.OFFLINE, "network_interrupted", "the blob was cut short; will resume")
            return status, None
        except (OSError, http.client.HTTPException) as exc:
            raise _cut_short(exc, bool(guard.why), str(parts.hostname), part) from None
    finally:
        guard.close()
        conn.close()


def _cut_short(exc: OSError | http.client.HTTPException, deadline_hit: bool, host: str, part: Path) -> SyncError:
    """Why a GET stopped part-way: the disk refused a write (DISK_FULL, what arrived stays in the part), or the
    network failed (OFFLINE; the next attempt resumes)."""
    if isinstance(exc, OSError) and exc.errno in STORAGE_ERRNOS:
        return disk_full(exc, f"blob {part.name[:12]}…")
    code = "network_timeout" if isinstance(exc, socket.timeout) or deadline_hit else "network_interrupted"
    return SyncError(Fault.OFFLINE, code, f"GET {host}: {type(exc).__name__}; will resume")
