"""The draft's sample render (issue #25.12): a style submitted to HQ is painted on the kiosk's bundled sample
hand photo (`resources/demo/sample_hand.jpg`, a frame of the demo video) by the still try-on path, so HQ's
reviewer sees it on a hand beside its flat textures. It runs in the DRAFT_PUSH task (core/sync/tasks.py), never
on the UI thread, and core/sync pushes the draft without it whenever this raises or finds no nail to paint.

It lives in app because it needs vision and the style store's adapters, as app/effect_preview.py does, and
paints with the same compositor the mirror builds. A pipeline is built per render and closed after it: drafts
are a few a day, and no landmarker is left open for a shutdown to close.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from nailmirror_desktop.core.catalog.repository import StyleRepository
from nailmirror_desktop.core.catalog.try_on_assets import try_on_assets
from nailmirror_desktop.core.paths import resources_dir
from nailmirror_desktop.core.sync.drafts import SampleRender

log = logging.getLogger(__name__)

SAMPLE_PHOTO = "demo/sample_hand.jpg"
MAX_WIDTH = 960  # enough to judge a style on a reviewer's screen; a ~100 KB upload
JPEG_QUALITY = 88


def render_sample(repo: StyleRepository, style_id: int, photo: Path | None = None) -> SampleRender | None:
    """The style painted on the sample photo as a JPEG, cropped to the painted hands; None when no nail could be
    painted."""
    import cv2

    from nailmirror_desktop.core.fingers import Finger
    from nailmirror_desktop.ui.tryon.tryon_session import compositor_for, load_style_textures
    from nailmirror_desktop.vision.pipeline import TryOnPipeline
    from nailmirror_desktop.vision.sources.image_io import read_image

    assets = try_on_assets(repo, repo.get(style_id).style_code)
    style = load_style_textures(assets.style_code, assets.name, assets.textures, assets.accent_fingers,
                                design=assets.design)
    accent = frozenset(Finger[name.upper()] for name in assets.accent_fingers if name.upper() in Finger.__members__)
    frame = read_image(photo or resources_dir() / SAMPLE_PHOTO)
    pipeline: Any = TryOnPipeline(compositor_for(style, accent), mirrored=False, max_hands=2)
    try:
        result = pipeline.process_still(frame, want_coverage=False)
    finally:
        pipeline.close()
    if not any(quad.opacity > 0 for quad in result.quads):
        log.warning("sample render of %s painted no nail; the draft goes without it", assets.style_code)
        return None
    image = framed_hands(result)
    height, width = image.shape[:2]
    if width > MAX_WIDTH:
        image = cv2.resize(image, (MAX_WIDTH, round(height * MAX_WIDTH / width)), interpolation=cv2.INTER_AREA)
    ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        return None
    return SampleRender(encoded.tobytes(), "JPEG", int(image.shape[1]), int(image.shape[0]))


def framed_hands(result: Any) -> Any:
    """The painted hands, 4:3, as the take-home card frames them (vision/paint/framing.py): the nails are what
    the reviewer judges, not the wall behind them."""
    from nailmirror_desktop.vision.paint.framing import fit_aspect, painted_hands_box

    height, width = result.frame.shape[:2]
    box = painted_hands_box(result.quads, result.hands, (width, height))
    if box is None:
        return result.frame
    box = fit_aspect(box, 4 / 3, (width, height))
    return result.frame[box.top:box.bottom, box.left:box.right]
