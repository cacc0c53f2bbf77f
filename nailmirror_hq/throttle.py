"""Throttles for the two doors anyone can knock on: the review login (by account and by address) and kiosk
enrollment (by address).

A `Throttle` counts failures per key. The first `free` failures cost nothing; each one after them locks the key
for `first_s`, doubled with every further failure up to `max_s`. A key with no failure for `forget_s` starts
afresh, and a success clears it. While a key is locked its door answers 429 with Retry-After *before* checking
anything (the right password included), so a locked try costs neither a password hash nor HQ's writer.

The counts live in this process's memory, not in the database: counting a wrong guess must not take HQ's single
writer (sparing the writer is what the enrollment throttle is for), and locks this short need no durability.
So a restart forgets them, and with several HQ processes behind a load balancer each process counts on its own:
a guesser spread over N processes gets about N times the free tries before the delays start, and the delays then
grow in each process alike. At most `max_keys` keys are kept (the least recently failed are dropped first), so a
flood of made-up names or addresses cannot grow HQ's memory without bound.
"""

from __future__ import annotations

import logging
import math
import threading
from collections import OrderedDict
from dataclasses import dataclass

from starlette.requests import HTTPConnection

from nailmirror_hq import clock

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Policy:
    free: int  # failures allowed before the first lock
    first_s: float  # the first lock; each further failure doubles it
    max_s: float
    forget_s: float  # no failure for this long: the key starts afresh


# A reviewer mistyping gets five tries; a guesser gets locked out for 1, 2, 4 … 900 s after every further miss.
LOGIN_ACCOUNT = Policy(free=5, first_s=1.0, max_s=900.0, forget_s=3600.0)
# One office (or one proxy) is several reviewers: more room per address, then the same growth.
LOGIN_ADDRESS = Policy(free=20, first_s=1.0, max_s=900.0, forget_s=3600.0)
# Staff type a code once per PC: ten misses from one address is a mistake repeated or a guesser.
ENROLL_ADDRESS = Policy(free=10, first_s=1.0, max_s=900.0, forget_s=3600.0)


@dataclass
class _Count:
    failures: int
    last_failure: float
    locked_until: float


class Throttle:
    def __init__(self, policy: Policy, ticks: clock.Ticks = clock.monotonic, max_keys: int = 10_000) -> None:
        self.policy = policy
        self._ticks = ticks
        self._max_keys = max_keys
        self._counts: OrderedDict[str, _Count] = OrderedDict()
        self._lock = threading.Lock()

    def _current(self, key: str, now: float) -> _Count | None:
        count = self._counts.get(key)
        if count is not None and now >= count.locked_until and now - count.last_failure >= self.policy.forget_s:
            del self._counts[key]
            return None
        return count

    def retry_after(self, key: str) -> float:
        """Seconds until `key` may try again; 0.0 when it may now."""
        with self._lock:
            now = self._ticks()
            count = self._current(key, now)
            return max(0.0, count.locked_until - now) if count else 0.0

    def failed(self, key: str) -> float:
        """Count a failure of `key`; the lock it now has, in seconds (0.0 while its free failures last)."""
        with self._lock:
            now = self._ticks()
            count = self._current(key, now) or _Count(0, now, now)
            count.failures += 1
            count.last_failure = now
            over = count.failures - self.policy.free
            lock = min(self.policy.max_s, self.policy.first_s * 2 ** min(over - 1, 60)) if over > 0 else 0.0
            count.locked_until = max(count.locked_until, now + lock)
            self._counts[key] = count
            self._counts.move_to_end(key)
            while len(self._counts) > self._max_keys:
                self._counts.popitem(last=False)
            return lock

    def succeeded(self, key: str) -> None:
        with self._lock:
            self._counts.pop(key, None)


def client_address(request: HTTPConnection) -> str:
    """The caller's address: the peer, or behind a reverse proxy on this machine the X-Forwarded-For client
    uvicorn already put in its place (its --forwarded-allow-ips, 127.0.0.1 by default)."""
    return request.client.host if request.client else "unknown"


def retry_after_header(seconds: float) -> int:
    """Retry-After in whole seconds, never 0 (a client told 0 would knock again at once)."""
    return max(1, math.ceil(seconds))


class Doors:
    """This process's throttles (one per HQ app: `create_app` makes it with the clock it is given)."""

    def __init__(self, ticks: clock.Ticks = clock.monotonic) -> None:
        self.login_account = Throttle(LOGIN_ACCOUNT, ticks)
        self.login_address = Throttle(LOGIN_ADDRESS, ticks)
        self.enroll_address = Throttle(ENROLL_ADDRESS, ticks)

    @staticmethod
    def _account(name: str) -> str:
        return name.strip().casefold()[:200]

    def login_wait(self, name: str, address: str) -> float:
        return max(self.login_account.retry_after(self._account(name)), self.login_address.retry_after(address))

    def login_failed(self, name: str, address: str) -> float:
        return max(self.login_account.failed(self._account(name)), self.login_address.failed(address))

    def login_succeeded(self, name: str) -> None:
        # The address keeps its count: one good account must not buy an address fresh guesses at the others.
        self.login_account.succeeded(self._account(name))
