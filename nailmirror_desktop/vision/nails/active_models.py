"""Which nail segmenter each path runs now (issue #27 §7): the holder every pipeline of the kiosk shares.

The live mirror, the snapshot's still render and the consented captures each own a TryOnPipeline with the bundled
segmenter. A verified release is installed here by the model switcher (core/model_releases/switch.py) at an idle
moment: one attribute assignment, so a paint stage reads the old segmenter or the new one for a whole frame,
never half of each. `live` None: every pipeline runs its own bundled segmenter. The still path runs the "still"
slot's release when one is active, else the live one (the same model the customer saw on the mirror).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nailmirror_desktop.vision.nails.nail_segmenter import NailSegmenter


class ActiveSegmenters:
    def __init__(self) -> None:
        self.live: NailSegmenter | None = None
        self.still: NailSegmenter | None = None

    def for_video(self) -> NailSegmenter | None:
        return self.live

    def for_still(self) -> NailSegmenter | None:
        still = self.still
        return still if still is not None else self.live
