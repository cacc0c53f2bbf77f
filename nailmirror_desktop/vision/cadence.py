"""The live path's cadence: on a slower PC, lower the work per frame before the mirror drops frames.

The mirror pulls the newest frame when a stage is free (ARCHITECTURE.md §3), so a pipeline slower than the camera
shows fewer frames: on one core, two hands, the segmenter on every frame and the hand re-detection's views do not
fit in a camera frame. What a customer notices is the shown rate (a mirror under ~20 FPS stutters), much less a
mask carried a frame or two (the nail tracks shift it as the nail moves) or a second hand found a little later.

`CadenceGovernor` watches the source time between painted frames (the paint stage knows each frame's source
timestamp: a frame skipped is time passed unpainted) and steps through LEVELS: each level runs the segmenter
every n-th frame and the hand re-detection's search every m-th. Shown rate under RAISE_BELOW_FPS for a while: one
level up; over LOWER_ABOVE_FPS for longer: one level down, and a level that had to be left again soon after is not
retried for a while (no see-saw between a level that fits and one that does not). A pipeline that paints every
frame (a fast PC) never leaves level 0; the CLI and eval do not use it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CadenceLevel:
    """segment_every: the segmenter runs on every n-th frame; search_every: the re-detection's search cadence."""

    segment_every: int
    search_every: int


LEVELS = (CadenceLevel(1, 3), CadenceLevel(2, 3), CadenceLevel(3, 6), CadenceLevel(4, 12))
RAISE_BELOW_FPS = 22.0  # the target is 20 shown: act before it is reached
LOWER_ABOVE_FPS = 28.5
SMOOTHING = 0.1  # of each new interval in the running mean of the intervals between painted frames
RAISE_AFTER = 10  # painted frames under RAISE_BELOW_FPS before a level up
LOWER_AFTER = 90  # painted frames over LOWER_ABOVE_FPS before a level down
RETRY_AFTER = 600  # painted frames before a level that was too slow is tried again
PAUSE_MS = 300.0  # a longer gap between painted frames is a pause (a snapshot, staff pages), not a slow frame


class CadenceGovernor:
    """`observe(interval_ms)` once per painted frame (source milliseconds since the last painted one); `level` is
    the cadence to run at. Not thread-safe: the paint stage owns it."""

    def __init__(self, levels: tuple[CadenceLevel, ...] = LEVELS) -> None:
        self.levels = levels
        self.index = 0
        self._mean_ms = 1000.0 / LOWER_ABOVE_FPS
        self._slow = self._fast = 0
        self._too_slow_at: dict[int, int] = {}  # level index → painted frame when it was left for being slow
        self._frames = 0

    @property
    def level(self) -> CadenceLevel:
        return self.levels[self.index]

    @property
    def shown_fps(self) -> float:
        """The running estimate of the shown rate, frames per second."""
        return 1000.0 / self._mean_ms

    def reset(self) -> None:
        """The source restarted: the rate is measured afresh (the level is kept: the PC is the same)."""
        self._mean_ms, self._slow, self._fast = 1000.0 / LOWER_ABOVE_FPS, 0, 0

    def observe(self, interval_ms: float) -> CadenceLevel:
        if not 0.0 < interval_ms <= PAUSE_MS:
            return self.level
        self._frames += 1
        self._mean_ms += SMOOTHING * (interval_ms - self._mean_ms)
        fps = self.shown_fps
        self._slow = self._slow + 1 if fps < RAISE_BELOW_FPS else 0
        self._fast = self._fast + 1 if fps > LOWER_ABOVE_FPS else 0
        if self._slow >= RAISE_AFTER and self.index + 1 < len(self.levels):
            self._too_slow_at[self.index] = self._frames
            self._step(+1)
        elif self._fast >= LOWER_AFTER and self.index > 0:
            left = self._too_slow_at.get(self.index - 1)
            if left is None or self._frames - left >= RETRY_AFTER:
                self._step(-1)
        return self.level

    def _step(self, direction: int) -> None:
        self.index += direction
        self._slow = self._fast = 0
        # the new level is judged on its own frames: the mean starts between the two thresholds
        self._mean_ms = 2000.0 / (RAISE_BELOW_FPS + LOWER_ABOVE_FPS)
