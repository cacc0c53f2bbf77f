"""Blob GETs with resume: bytes land in `<parts_dir>/<sha256>.part` as they arrive (flushed per chunk), so a
reset mid-blob keeps what came; the next attempt asks `Range: bytes=<have>-` with `If-Range: "<sha256>"`.
206 appends, 200 (HQ ignored the range, or the blob changed) starts over, 416 drops the part and starts over.

A write the disk refuses (ENOSPC, EDQUOT, EFBIG) is Fault.DISK_FULL, not a network fault: the part keeps what
was written and the fetch resumes from there once there is room.

A 307 to another host (S3/CDN presigned URLs) is followed by hand, one hop, and the kiosk's token is not sent
there.

HQ's answer is trusted for nothing: bytes are hashed as they arrive and never written past the size the feed
declared (an answer running past it is cut off and dropped, so a hostile HQ costs at most that size in disk and
memory); a complete part that does not hash to its name is dropped. The `sha256` given must be 64 lower-case
hex digits, whoever calls: it names the part file. The running attempt's StopSignal (`sync now --timeout`)
cuts a download at once.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import os
import socket
import ssl
import time
import urllib.parse
from pathlib import Path
from typing import Any

from nailmirror_desktop.adapters.http.client import DeadlineGuard, Timeouts, open_connection
from nailmirror_desktop.core.generation.provider_port import ProviderError, StopSignal, current_stop
from nailmirror_desktop.core.sync.errors import STORAGE_ERRNOS, Fault, SyncError, disk_full
from nailmirror_protocol.canonical import is_sha256_hex

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
    """The blob's bytes, hashed as they arrive and never more than `size` of them (HQ's declared size): an
    answer running past it is cut off and dropped (HASH_MISMATCH, code blob_oversize), bytes that do not hash to
    `sha256` are dropped (HASH_MISMATCH). `sha256` must be 64 lower-case hex digits (it names the part file);
    anything else is refused before a path is built. The running attempt's StopSignal (`sync now --timeout`)
    cuts a download at once; what arrived stays in the part."""
    if not is_sha256_hex(sha256):
        raise SyncError(Fault.INVALID, "bad_sha256", f"not a blob name: {str(sha256)[:70]!r}")
    if isinstance(size, bool) or not isinstance(size, int) or not 0 < size <= BLOB_MAX_BYTES:
        raise SyncError(Fault.INVALID, "blob_too_large", f"blob {sha256[:12]}… declares {size!r} bytes")
    try:
        parts_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        if exc.errno in STORAGE_ERRNOS:
            raise disk_full(exc, f"blob {sha256[:12]}…") from None
        raise
    part = parts_dir / f"{sha256}.part"
    origin = urllib.parse.urlsplit(url).netloc
    for _hop in range(MAX_REDIRECTS + 1):
        have = part.stat().st_size if part.exists() else 0
        if have > size:  # longer than the blob can be: not its bytes
            part.unlink()
            have = 0
        if have == size:
            # The whole blob is here from an earlier attempt (cut after the last byte): verify it, fetch nothing.
            return _verified(part, sha256, _hash_of(part))
        send = dict(headers) if urllib.parse.urlsplit(url).netloc == origin else {
            k: v for k, v in headers.items() if k.lower() not in ("authorization",)}
        if have:
            send["Range"] = f"bytes={have}-"
            send["If-Range"] = f'"{sha256}"'
        status, location, digest = _get_into(url, send, part, have, size, timeouts)
        if status in (200, 206) and digest is not None:
            return _verified(part, sha256, digest)
        if status == 416:
            part.unlink(missing_ok=True)
            continue
        if status in (301, 302, 303, 307, 308) and location:
            url = urllib.parse.urljoin(url, location)
            continue
        raise _status_fault(status, sha256)
    raise SyncError(Fault.OFFLINE, "too_many_redirects", f"blob {sha256[:12]}…: more than {MAX_REDIRECTS} redirect")


def _hash_of(part: Path) -> str:
    digest = hashlib.sha256()
    with open(part, "rb") as source:
        while chunk := source.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _verified(part: Path, sha256: str, digest: str) -> bytes:
    """The complete part's bytes if they hash to `sha256` (the part then goes); else the part goes and
    HASH_MISMATCH (the next attempt starts from 0)."""
    if digest != sha256:
        part.unlink(missing_ok=True)
        raise SyncError(Fault.HASH_MISMATCH, "hash_mismatch", f"blob {sha256[:12]}… hashed otherwise")
    data = part.read_bytes()
    part.unlink()
    return data


def _oversize(part: Path, sha256: str, size: int) -> SyncError:
    part.unlink(missing_ok=True)
    return SyncError(Fault.HASH_MISMATCH, "blob_oversize",
                     f"blob {sha256[:12]}…: HQ sent more than the {size} bytes its feed declared; dropped")


def _status_fault(status: int, sha256: str) -> SyncError:
    if status == 401:
        return SyncError(Fault.REVOKED, "token_revoked", "HQ refused this kiosk's token")
    if status == 404:
        return SyncError(Fault.NOT_FOUND, "not_found", f"HQ has no blob {sha256[:12]}…")
    if status == 426:
        return SyncError(Fault.UPGRADE_REQUIRED, "upgrade_required", "HQ needs a newer kiosk")
    return SyncError(Fault.OFFLINE, f"http_{status}", f"blob {sha256[:12]}…: HQ answered {status}")


def _get_into(url: str, headers: dict[str, str], part: Path, have: int, size: int,
              timeouts: Timeouts) -> tuple[int, str | None, str | None]:
    """One GET; a 2xx body is written into `part` (appended for 206), hashed as it arrives, and never past
    `size` bytes in all. Returns (status, Location, the complete part's sha256 for a 2xx)."""
    parts = urllib.parse.urlsplit(url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    try:
        conn = open_connection(parts, timeouts)
    except ProviderError as exc:
        raise SyncError(Fault.INVALID, exc.code, exc.message) from None
    stop = current_stop()
    guard = DeadlineGuard(conn, stop)
    response: http.client.HTTPResponse | None = None
    try:
        _connect(conn, guard, str(parts.hostname), timeouts, stop)
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
                return status, response.getheader("Location"), None
            if status == 206 and not (response.getheader("Content-Range") or "").startswith(f"bytes {have}-"):
                mode = "wb"  # not the range we asked for: never splice bytes from elsewhere into the part
                part.unlink(missing_ok=True)
            digest, written = _stream(response, part, have if mode == "ab" else 0, size)
            if guard.why == "stopped":
                raise _stopped(stop)
            if response.length or written < size:  # declared bytes never came: a cut; keep the part
                raise SyncError(Fault.OFFLINE, "network_interrupted", "the blob was cut short; will resume")
            return status, None, digest.hexdigest()
        except (OSError, http.client.HTTPException) as exc:
            if guard.why == "stopped":
                raise _stopped(stop) from None
            raise _cut_short(exc, bool(guard.why), str(parts.hostname), part) from None
    finally:
        guard.close()
        if response is not None:
            response.close()  # an answer left part-read (oversize, cut) holds the socket otherwise
        conn.close()


def _connect(conn: http.client.HTTPConnection, guard: DeadlineGuard, host: str, timeouts: Timeouts,
             stop: StopSignal | None) -> None:
    guard.arm(time.monotonic() + timeouts.connect_s)
    try:
        conn.connect()
    except (OSError, ssl.SSLError) as exc:
        if guard.why == "stopped":
            raise _stopped(stop) from None
        if any(sign in str(exc) for sign in CLOCK_SIGNS):
            raise SyncError(Fault.CLOCK, "clock_or_certificate",
                            f"{host}'s TLS certificate is not valid at this kiosk's time: check the kiosk's clock"
                            ) from None
        if UNTRUSTED_SIGN in str(exc):
            raise untrusted(host, str(exc)) from None
        raise SyncError(Fault.OFFLINE, "network_unreachable", f"connect to {host}: {exc}") from None
    if guard.why == "stopped":
        raise _stopped(stop)
    guard.watch(conn.sock)


def _stream(response: http.client.HTTPResponse, part: Path, start: int, size: int) -> tuple[Any, int]:
    """The body into `part` from byte `start` (appended when start > 0), hashed from byte 0 as it goes; an
    answer declared or running past `size` is dropped (HASH_MISMATCH blob_oversize) with the part. Returns the
    running sha256 and the bytes the part now holds."""
    sha256 = part.name.removesuffix(".part")
    if response.length is not None and start + response.length > size:
        raise _oversize(part, sha256, size)  # declared too long: not one byte of it is read
    digest = hashlib.sha256()
    if start:
        with open(part, "rb") as source:
            while chunk := source.read(CHUNK):
                digest.update(chunk)
    written = start
    with open(part, "ab" if start else "wb") as out:
        while chunk := response.read(CHUNK):
            if written + len(chunk) > size:
                out.close()  # before the unlink: Windows cannot remove an open file
                raise _oversize(part, sha256, size)
            out.write(chunk)
            out.flush()  # what arrived survives a reset (and, after fsync at close, a power cut)
            digest.update(chunk)
            written += len(chunk)
        os.fsync(out.fileno())
    return digest, written


def _stopped(stop: StopSignal | None) -> SyncError:
    """The caller's StopSignal (a `sync now --timeout` running out) cut the download; the part keeps what came."""
    code = (stop.code if stop is not None else "") or "stopped"
    reason = (stop.reason if stop is not None else "") or "stopped"
    return SyncError(Fault.OFFLINE, code, f"blob download stopped: {reason}; will resume")


def _cut_short(exc: OSError | http.client.HTTPException, deadline_hit: bool, host: str, part: Path) -> SyncError:
    """Why a GET stopped part-way: the disk refused a write (DISK_FULL, what arrived stays in the part), or the
    network failed (OFFLINE; the next attempt resumes)."""
    if isinstance(exc, OSError) and exc.errno in STORAGE_ERRNOS:
        return disk_full(exc, f"blob {part.name[:12]}…")
    code = "network_timeout" if isinstance(exc, socket.timeout) or deadline_hit else "network_interrupted"
    return SyncError(Fault.OFFLINE, code, f"GET {host}: {type(exc).__name__}; will resume")
