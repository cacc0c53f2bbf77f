"""The five fingers, one vocabulary for every flow: try-on paints them, designs name accents by them, and the
offline renderer writes one texture file per finger."""

from __future__ import annotations

from enum import IntEnum


class Finger(IntEnum):
    THUMB = 0
    INDEX = 1
    MIDDLE = 2
    RING = 3
    PINKY = 4
