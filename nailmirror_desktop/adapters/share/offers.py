"""Share offers and the rate limit in front of them. Plain logic with an injected clock.

An offer is one file behind a random token (32 bytes from `secrets`, URL-safe), or a picture made from it (`build`,
called by the server when a phone first asks; the bytes it made are kept in the offer, and go with it). It is good for
`ttl_s` seconds and at most `max_deliveries` whole deliveries (a phone's "save image" fetches the photo again), one
transfer at a time; a transfer cut off midway (the phone's Wi-Fi dropped) is not counted, so the phone can fetch
again. Offering a new file withdraws the older offers, and the idle reset withdraws them all, so a link shown to one
customer never outlives her time at the kiosk. Tokens are compared in constant time and never logged: `log_id` names
an offer in the log without telling anything of its token.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import Enum
from pathlib import Path

TOKEN_BYTES = 32
DEFAULT_TTL_S = 300.0
MAX_DELIVERIES = 3


@dataclass(frozen=True)
class Offer:
    token: str
    path: Path
    content_type: str
    expires_at: float  # on the offers' clock
    deliveries: int = 0  # whole deliveries so far
    sending: bool = False  # a transfer is in progress
    build: Callable[[], bytes] | None = None  # makes the body from `path`; None: the file itself is sent
    body: bytes | None = field(default=None, repr=False)  # what `build` made, for the file as `body_stamp` saw it
    body_stamp: tuple[int, int] | None = None  # (mtime_ns, size) of `path` when `body` was made

    @property
    def log_id(self) -> str:
        """Eight hex digits of the token's SHA-256: ties log lines together, tells nothing of the token."""
        return hashlib.sha256(self.token.encode()).hexdigest()[:8]


class Claim(Enum):
    """What a request for a token gets."""

    OK = "ok"
    UNKNOWN = "unknown"  # never offered (or withdrawn)
    EXPIRED = "expired"
    USED = "used"  # delivered whole max_deliveries times
    BUSY = "busy"  # another transfer of it is in progress


class ShareOffers:
    """Thread-safe: the HTTP server's thread begins and ends transfers while the GUI offers and withdraws."""

    def __init__(self, ttl_s: float = DEFAULT_TTL_S, clock: Callable[[], float] = time.monotonic,
                 max_deliveries: int = MAX_DELIVERIES) -> None:
        self.ttl_s = ttl_s
        self.max_deliveries = max_deliveries
        self._clock = clock
        self._lock = threading.Lock()
        self._offers: dict[str, Offer] = {}

    def offer(self, path: Path, content_type: str = "image/png", build: Callable[[], bytes] | None = None) -> Offer:
        """A new offer for `path` (or for what `build` makes of it); every older offer is withdrawn."""
        offer = Offer(secrets.token_urlsafe(TOKEN_BYTES), Path(path), content_type, self._clock() + self.ttl_s,
                      build=build)
        with self._lock:
            self._offers = {offer.token: offer}
        return offer

    def withdraw_all(self) -> None:
        with self._lock:
            self._offers.clear()

    def peek(self, token: str) -> tuple[Claim, Offer | None]:
        """The state of `token` without using it (for the landing page a phone opens first); a transfer in
        progress does not make the link BUSY here."""
        with self._lock:
            return self._state(token)

    def begin(self, token: str) -> tuple[Claim, Offer | None]:
        """Start a transfer: OK (and BUSY for any other until `end`), or why not."""
        with self._lock:
            claim, offer = self._state(token)
            if claim is Claim.OK and offer is not None:
                if offer.sending:
                    return Claim.BUSY, offer
                self._offers[offer.token] = offer = replace(offer, sending=True)
            return claim, offer

    def end(self, token: str, *, delivered: bool) -> Offer | None:
        """The transfer `begin` started is over; `delivered`: the whole file went out (it counts). None when the
        offer was withdrawn meanwhile."""
        with self._lock:
            offer = self._find(token)
            if offer is None:
                return None
            offer = replace(offer, sending=False, deliveries=offer.deliveries + int(delivered))
            self._offers[offer.token] = offer
            return offer

    def keep_body(self, token: str, stamp: tuple[int, int], body: bytes) -> None:
        """Keep what `build` made for the file as `stamp` saw it; nothing when the offer was withdrawn meanwhile
        (the bytes must not outlive the link)."""
        with self._lock:
            offer = self._find(token)
            if offer is not None:
                self._offers[offer.token] = replace(offer, body=body, body_stamp=stamp)

    def _find(self, token: str) -> Offer | None:
        wanted = token.encode("utf-8", "surrogateescape")  # compare_digest refuses non-ASCII str
        return next((o for t, o in self._offers.items() if hmac.compare_digest(t.encode(), wanted)), None)

    def _state(self, token: str) -> tuple[Claim, Offer | None]:
        offer = self._find(token)
        if offer is None:
            return Claim.UNKNOWN, None
        if offer.deliveries >= self.max_deliveries:
            return Claim.USED, offer
        if self._clock() >= offer.expires_at:
            return Claim.EXPIRED, offer
        return Claim.OK, offer


class RateLimiter:
    """At most `limit` requests per client address in any `window_s` seconds (a sliding window)."""

    def __init__(self, limit: int = 12, window_s: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.window_s = window_s
        self._clock = clock
        self._lock = threading.Lock()
        self._seen: dict[str, deque[float]] = {}

    def allow(self, client: str) -> bool:
        now = self._clock()
        with self._lock:
            times = self._seen.setdefault(client, deque())
            while times and now - times[0] >= self.window_s:
                times.popleft()
            if len(times) >= self.limit:
                return False
            times.append(now)
            if len(self._seen) > 1024:  # a flood of addresses must not grow this without bound
                self._seen = {k: v for k, v in self._seen.items() if v and now - v[-1] < self.window_s}
            return True

    def retry_after_s(self, client: str) -> int:
        with self._lock:
            times = self._seen.get(client)
            if not times:
                return 0
            return max(1, int(self.window_s - (self._clock() - times[0])) + 1)
