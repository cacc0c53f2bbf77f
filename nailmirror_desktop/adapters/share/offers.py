"""One-time share offers and the rate limit in front of them. Plain logic with an injected clock.

An offer is one file behind a random token (32 bytes from `secrets`, URL-safe): it is good for `ttl_s`
seconds or one download, whichever comes first. Offering a new file withdraws the older offers, so a link
shown to one customer never outlives the next customer's snapshot. Tokens are compared in constant time.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import Enum
from pathlib import Path

TOKEN_BYTES = 32
DEFAULT_TTL_S = 300.0


@dataclass(frozen=True)
class Offer:
    token: str
    path: Path
    content_type: str
    expires_at: float  # on the offers' clock
    downloaded: bool = False


class Claim(Enum):
    """What a request for a token gets."""

    OK = "ok"
    UNKNOWN = "unknown"  # never offered (or withdrawn)
    EXPIRED = "expired"
    USED = "used"  # already downloaded once


class ShareOffers:
    """Thread-safe: the HTTP server's threads claim while the GUI offers and withdraws."""

    def __init__(self, ttl_s: float = DEFAULT_TTL_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl_s = ttl_s
        self._clock = clock
        self._lock = threading.Lock()
        self._offers: dict[str, Offer] = {}

    def offer(self, path: Path, content_type: str = "image/png") -> Offer:
        """A new one-time offer for `path`; every older offer is withdrawn."""
        offer = Offer(secrets.token_urlsafe(TOKEN_BYTES), Path(path), content_type, self._clock() + self.ttl_s)
        with self._lock:
            self._offers = {offer.token: offer}
        return offer

    def withdraw_all(self) -> None:
        with self._lock:
            self._offers.clear()

    def peek(self, token: str) -> tuple[Claim, Offer | None]:
        """The state of `token` without using it up (for the landing page a phone opens first)."""
        with self._lock:
            return self._state(token)

    def claim(self, token: str) -> tuple[Claim, Offer | None]:
        """Use the offer up: OK once, USED after; EXPIRED past its time; UNKNOWN otherwise."""
        with self._lock:
            claim, offer = self._state(token)
            if claim is Claim.OK and offer is not None:
                self._offers[offer.token] = replace(offer, downloaded=True)
            return claim, offer

    def _state(self, token: str) -> tuple[Claim, Offer | None]:
        offer = next((o for t, o in self._offers.items() if hmac.compare_digest(t, token)), None)
        if offer is None:
            return Claim.UNKNOWN, None
        if offer.downloaded:
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
