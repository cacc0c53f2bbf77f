"""Which nail segmenter each path runs now (issue #27 §7): the holder every pipeline of the kiosk shares.

The live mirror, the snapshot's still render and the consented captures each own a TryOnPipeline with the bundled
segmenter. A verified release is installed here by the model switcher (core/model_releases/switch.py) at an idle
moment: one attribute assignment, so a paint stage reads the old segmenter or the new one for a whole frame,
never half of each. None: every pipeline runs its own bundled build of that slot (the live mirror's 32-inside one,
the stills' 64-inside one); a live release never replaces the stills' larger bundled build.
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
        return self.still
