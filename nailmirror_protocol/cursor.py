"""Feed and inbox cursors: "<epoch>.<seq>".

The epoch names one history of HQ's feed; a restore from backup or a rebuilt log starts a new one, so a kiosk's
cursor from the old history is refused (410 epoch_changed) instead of silently skipping changes. `seq` counts
changes within a channel (the catalog feed) or a store (the inbox); seq 0 means "before the first change".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Letters, digits, '_' and '-' only: no '.', so the cursor splits unambiguously at its one dot.
EPOCH_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
MAX_SEQ = 2**63 - 1


class CursorError(ValueError):
    """The text is not a cursor (answered as 400 bad_cursor, never as a reset)."""


@dataclass(frozen=True, order=True)
class Cursor:
    epoch: str
    seq: int

    def __post_init__(self) -> None:
        if not EPOCH_PATTERN.match(self.epoch):
            raise CursorError(f"bad epoch {self.epoch!r}")
        if isinstance(self.seq, bool) or not isinstance(self.seq, int) or not 0 <= self.seq <= MAX_SEQ:
            raise CursorError(f"bad seq {self.seq!r}")

    def __str__(self) -> str:
        return format_cursor(self.epoch, self.seq)


def format_cursor(epoch: str, seq: int) -> str:
    Cursor(epoch, seq)  # validates
    return f"{epoch}.{seq}"


def parse_cursor(text: str) -> Cursor:
    """"e3.1046" → Cursor("e3", 1046); CursorError for anything else (also for signs, spaces, leading '+')."""
    if not isinstance(text, str) or text.count(".") != 1:
        raise CursorError(f"not a cursor: {text!r}")
    epoch, _, digits = text.partition(".")
    if not digits.isascii() or not digits.isdigit() or len(digits) > 19:
        raise CursorError(f"not a cursor: {text!r}")
    return Cursor(epoch, int(digits))
