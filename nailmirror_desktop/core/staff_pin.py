"""The staff PIN: its salted scrypt hash and the lockout after wrong tries, both kept in data_dir()/config.json so a
restart forgets neither.

There is no default PIN. Until whoever runs the kiosk's operating-system account sets one (`nailmirror staff
set-pin`, which is also the recovery when staff forget it or lock themselves out), the staff door stays shut.
A hash of the PIN published before this change ("2468") counts as no PIN.

Lockout: the first LOCK_AFTER - 1 wrong PINs cost nothing; from the LOCK_AFTER-th on each wrong PIN locks the door
for FIRST_DELAY_S, doubling per further wrong PIN, at most MAX_DELAY_S (30 s, 1, 2, 4, 8, 16, 32 min, then an
hour per try). Only a right PIN or set-pin resets the count. Times are UTC; a clock moved backwards never
shortens a lock: the time left is capped at the lock's full length from now, and the lock is re-anchored there.
"""

from __future__ import annotations

import enum
import functools
import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from nailmirror_desktop.core.clock import Clock, SystemClock
from nailmirror_desktop.core.config import read_config_document, update_config_document

SALT_KEY, HASH_KEY, LOCKOUT_KEY = "staff_pin_salt", "staff_pin_hash", "staff_pin_lockout"
# scrypt cost: ~50 ms on this class of machine, enough that a stolen config.json does not give the PIN away
# by brute force over a 4–8 digit space in seconds (it still would in hours: the PIN is a door, not a vault).
_SCRYPT = {"n": 2**14, "r": 8, "p": 1, "dklen": 32}
RETIRED_DEFAULT_PIN = "2468"  # published in the README until the default was removed: never a valid PIN
LOCK_AFTER = 5
FIRST_DELAY_S = 30.0
MAX_DELAY_S = 3600.0


class PinOutcome(enum.Enum):
    ACCEPTED = "ACCEPTED"
    WRONG = "WRONG"  # wait_s: the lock this wrong PIN started (0 while tries are still free)
    LOCKED = "LOCKED"  # not checked: wait_s is what is left of the lock
    NOT_SET = "NOT_SET"  # no PIN yet: `nailmirror staff set-pin` on the kiosk PC


@dataclass(frozen=True)
class PinAttempt:
    outcome: PinOutcome
    wait_s: float = 0.0


class PinFormatError(ValueError):
    """code: PIN_FORMAT (not 4–8 digits) or PIN_RETIRED (the old published default)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def delay_after(failures: int) -> float:
    """Seconds the door stays locked after the `failures`-th wrong PIN in a row."""
    if failures < LOCK_AFTER:
        return 0.0
    return min(MAX_DELAY_S, FIRST_DELAY_S * 2.0 ** min(failures - LOCK_AFTER, 32))


def hash_pin(pin: str, salt_hex: str) -> str:
    return hashlib.scrypt(pin.encode("utf-8"), salt=bytes.fromhex(salt_hex), **_SCRYPT).hex()


def check_format(pin: str) -> None:
    if not (pin.isascii() and pin.isdigit() and 4 <= len(pin) <= 8):
        raise PinFormatError("PIN_FORMAT")
    if pin == RETIRED_DEFAULT_PIN:
        raise PinFormatError("PIN_RETIRED")


@dataclass(frozen=True)
class _Lockout:
    failures: int = 0
    locked_until: float = 0.0  # UTC epoch seconds

    def to_json(self) -> dict[str, Any]:
        return {"failures": self.failures, "locked_until": _utc_text(self.locked_until)}


class StaffPin:
    """The PIN record and its lockout in one config file (data_dir()/config.json unless `path`). Every call reads
    the file afresh, so a PIN set with the CLI while the kiosk runs counts at once."""

    def __init__(self, path: Path | None = None, clock: Clock | None = None) -> None:
        self._path = path
        self._clock = clock or SystemClock()

    def is_set(self) -> bool:
        return self._record(read_config_document(self._path)) is not None

    def set(self, pin: str) -> None:
        """Store `pin` (4–8 digits; raises PinFormatError) as a fresh salted hash and clear the lockout."""
        check_format(pin)
        salt = secrets.token_hex(16)
        update_config_document({SALT_KEY: salt, HASH_KEY: hash_pin(pin, salt)}, self._path, remove=(LOCKOUT_KEY,))

    def attempt(self, pin: str) -> PinAttempt:
        """Check `pin` unless the door is locked; a wrong one is counted (persisted) and may start a lock."""
        document = read_config_document(self._path)
        record = self._record(document)
        if record is None:
            return PinAttempt(PinOutcome.NOT_SET)
        now = self._clock.now()
        lockout = _lockout_from(document.get(LOCKOUT_KEY))
        if lockout is None:  # unreadable (hand-edited): a fresh lock, stored, rather than an open door
            lockout = _Lockout(LOCK_AFTER, now + delay_after(LOCK_AFTER))
            update_config_document({LOCKOUT_KEY: lockout.to_json()}, self._path)
        left = lockout.locked_until - now
        full = delay_after(lockout.failures)
        if left > full:  # the clock went backwards: the lock restarts from now, never ends early
            lockout = _Lockout(lockout.failures, now + full)
            update_config_document({LOCKOUT_KEY: lockout.to_json()}, self._path)
            left = full
        if left > 0:
            return PinAttempt(PinOutcome.LOCKED, left)
        # Counted as wrong before it is checked, so stopping the kiosk mid-check never gives a free try.
        failures = lockout.failures + 1
        delay = delay_after(failures)
        update_config_document({LOCKOUT_KEY: _Lockout(failures, now + delay).to_json()}, self._path)
        if _matches(record, pin):
            update_config_document({}, self._path, remove=(LOCKOUT_KEY,))
            return PinAttempt(PinOutcome.ACCEPTED)
        return PinAttempt(PinOutcome.WRONG, delay)

    def failures(self) -> int:
        lockout = _lockout_from(read_config_document(self._path).get(LOCKOUT_KEY))
        return LOCK_AFTER if lockout is None else lockout.failures

    @staticmethod
    def _record(document: dict[str, Any]) -> tuple[str, str] | None:
        salt, digest = document.get(SALT_KEY), document.get(HASH_KEY)
        if not (isinstance(salt, str) and isinstance(digest, str) and salt and digest):
            return None
        try:
            bytes.fromhex(salt)
        except ValueError:
            return None
        if _is_retired_default(salt, digest):
            return None
        return salt, digest


@functools.lru_cache(maxsize=8)
def _is_retired_default(salt: str, digest: str) -> bool:
    """Cached: without it every tap on the door would cost a second scrypt (~50 ms) on the GUI thread."""
    return _matches((salt, digest), RETIRED_DEFAULT_PIN)


def _matches(record: tuple[str, str], pin: str) -> bool:
    if not (pin.isascii() and pin.isdigit()):
        return False
    salt, digest = record
    return hmac.compare_digest(hash_pin(pin, salt), digest)


def _lockout_from(raw: object) -> _Lockout | None:
    """The stored lockout; None when it cannot be read (the caller stores a fresh lock: it never unlocks)."""
    if raw is None:
        return _Lockout()
    if not isinstance(raw, dict):
        return None
    try:
        failures = int(raw["failures"])
        until = datetime.fromisoformat(str(raw["locked_until"]).replace("Z", "+00:00"))
    except (KeyError, TypeError, ValueError, OverflowError):
        return None
    if failures < 0:
        return None
    return _Lockout(failures, (until if until.tzinfo else until.replace(tzinfo=UTC)).timestamp())


def _utc_text(epoch_s: float) -> str:
    return datetime.fromtimestamp(epoch_s, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
