"""Per-provider circuit breakers. A config/account error (bad key, no quota) opens the provider's breaker:
its tasks are not claimed until a cool-down passes; then one probe task may run. Success closes the breaker;
another config error reopens it with a doubled cool-down. State is per engine (process): a restart starts
closed, which is also when a fixed configuration takes effect.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class BreakerState(StrEnum):
    CLOSED = "CLOSED"
    OPEN = "OPEN"
    HALF_OPEN = "HALF_OPEN"  # cool-down over; one probe allowed


@dataclass
class _Breaker:
    state: BreakerState = BreakerState.CLOSED
    open_until_s: float = 0.0
    trips: int = 0
    probe_in_flight: bool = False
    last_error_code: str | None = None


class BreakerBoard:
    def __init__(self, cooldown_s: float, cooldown_max_s: float) -> None:
        self._cooldown_s = cooldown_s
        self._cooldown_max_s = cooldown_max_s
        self._breakers: dict[str, _Breaker] = {}
        self._lock = threading.Lock()

    @property
    def any_tripped(self) -> bool:
        """Cheap check for the claim path: with every breaker closed there is nothing to filter."""
        return bool(self._breakers)

    def blocked(self, now_s: float) -> list[str]:
        """Providers none of whose tasks may be claimed now (open, or half-open with its probe running)."""
        with self._lock:
            names = list(self._breakers)
        if not names:
            return []
        return sorted(name for name in names if not self.may_claim(name, now_s))

    def may_claim(self, provider: str, now_s: float) -> bool:
        """True if a task for `provider` may be claimed now (does not reserve the probe; see `on_claimed`)."""
        with self._lock:
            breaker = self._breakers.get(provider)
            if breaker is None or breaker.state is BreakerState.CLOSED:
                return True
            if breaker.state is BreakerState.OPEN and now_s < breaker.open_until_s:
                return False
            return not breaker.probe_in_flight

    def on_claimed(self, provider: str, now_s: float) -> None:
        with self._lock:
            breaker = self._breakers.get(provider)
            if breaker is None or breaker.state is BreakerState.CLOSED:
                return
            breaker.state = BreakerState.HALF_OPEN
            breaker.probe_in_flight = True

    def on_config_error(self, provider: str, now_s: float, code: str) -> float:
        """Open (or reopen) the breaker; returns when it may be probed (UTC epoch seconds)."""
        with self._lock:
            breaker = self._breakers.setdefault(provider, _Breaker())
            breaker.trips += 1
            cooldown = min(self._cooldown_max_s, self._cooldown_s * 2 ** (breaker.trips - 1))
            breaker.state = BreakerState.OPEN
            breaker.open_until_s = now_s + cooldown
            breaker.probe_in_flight = False
            breaker.last_error_code = code
            return breaker.open_until_s

    def on_success(self, provider: str) -> None:
        with self._lock:
            self._breakers.pop(provider, None)

    def on_other_outcome(self, provider: str) -> None:
        """The probe ended without a config error and without success: let another probe run."""
        with self._lock:
            breaker = self._breakers.get(provider)
            if breaker is not None and breaker.state is BreakerState.HALF_OPEN:
                breaker.probe_in_flight = False

    def reopens_at(self, provider: str) -> float | None:
        with self._lock:
            breaker = self._breakers.get(provider)
            return breaker.open_until_s if breaker and breaker.state is BreakerState.OPEN else None

    def snapshot(self) -> dict[str, dict[str, Any]]:
        with self._lock:
            return {
                name: {"state": b.state.value, "open_until_s": b.open_until_s, "trips": b.trips,
                       "last_error_code": b.last_error_code}
                for name, b in self._breakers.items()
            }
