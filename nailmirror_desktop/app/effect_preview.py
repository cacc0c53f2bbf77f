"""The EFFECT_PREVIEW handler (core/tryon/effect_preview.py says what the task is): renders a snapshot's frozen raw
frame again by the still path and writes it over the saved "after", unless it paints fewer nails than the live
frame did. It lives in app because it needs vision (the still pipeline) and the style store's adapters.

One renderer per kiosk, registered with the engine like STYLE_GENERATION; the engine runs one preview at a time
(concurrency 1), so its pipeline (landmarkers, segmenter: loaded on the first snapshot, then kept) is used by one
thread at a time. The lock is for `close()`: shutting down waits for a render in progress instead of closing the
landmarker under it.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from typing import Any

from nailmirror_desktop.core.catalog.assets import AssetStore
from nailmirror_desktop.core.catalog.errors import StyleError
from nailmirror_desktop.core.catalog.repository import StyleRepository
from nailmirror_desktop.core.catalog.try_on_assets import try_on_assets
from nailmirror_desktop.core.fingers import Finger
from nailmirror_desktop.core.paths import write_private_file
from nailmirror_desktop.core.tasks import ErrorClass, TaskContext, TaskEngine, TaskError
from nailmirror_desktop.core.tryon.effect_preview import (
    EFFECT_PREVIEW,
    PreviewRequest,
    PreviewRequestError,
    PreviewResult,
    collect_leftover_frames,
    keeps_live,
    remove_frame,
)

log = logging.getLogger(__name__)


class EffectPreviewRenderer:
    """The handler (call it with a TaskContext) and the still pipeline it keeps between snapshots."""

    def __init__(self, *, mirrored: bool, max_hands: int = 2, active: Any = None) -> None:
        self.mirrored = mirrored  # as the live pipeline: the frozen frame is the mirrored one the customer saw
        self.max_hands = max_hands
        self.active = active  # the kiosk's ActiveSegmenters: the release the mirror runs renders the photo too
        self._pipeline: Any = None
        self._lock = threading.Lock()
        self._closed = False

    def __call__(self, ctx: TaskContext) -> dict[str, Any]:
        try:
            request = PreviewRequest.from_payload(ctx.payload)
        except PreviewRequestError as exc:
            raise TaskError(exc.code, str(exc), ErrorClass.INVALID_REQUEST) from None
        try:
            return self._render(ctx, request).to_result()
        finally:
            remove_frame(request.frame)  # whatever the outcome: the one attempt is over (MAX_ATTEMPTS)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._pipeline is not None:
                self._pipeline.close()
                self._pipeline = None

    def _render(self, ctx: TaskContext, request: PreviewRequest) -> PreviewResult:
        from nailmirror_desktop.vision.sources.image_io import ImageReadError, read_image

        ctx.report_progress(0.05)
        try:
            frame = read_image(request.frame)
        except ImageReadError as exc:
            raise TaskError(f"FRAME_{exc.code}", str(exc), ErrorClass.INVALID_REQUEST) from None
        compositor = self._compositor(ctx, request)
        ctx.report_progress(0.15)
        with self._lock:
            if self._closed:
                raise TaskError("SHUTTING_DOWN", "the kiosk is closing", ErrorClass.TRANSIENT)
            pipeline = self._still_pipeline()
            pipeline.compositor = compositor
            pipeline.nail_form = request.form  # the shape and length the live frame showed
            result = pipeline.process_still(frame, want_coverage=False)
        nails = sum(1 for quad in result.quads if quad.opacity > 0)
        ctx.report_progress(0.9)
        if keeps_live(nails, request.live_nails):
            log.info("still render of %s painted %d nail(s), the live frame %d: the live image is kept",
                     ctx.task_no, nails, request.live_nails)
            return PreviewResult(None, nails, request.live_nails)
        _write_png(request.after, result.frame, ctx.task_no)
        return PreviewResult(request.after, nails, request.live_nails)

    def _compositor(self, ctx: TaskContext, request: PreviewRequest) -> Any:
        """The style with the accent the customer had on, decoded from the style store (this thread's
        connection); the same compositor the mirror built (ui/tryon/tryon_session.compositor_for)."""
        from nailmirror_desktop.adapters.pillow_probe import PillowImageProbe
        from nailmirror_desktop.ui.tryon.tryon_session import compositor_for, load_style_textures

        repository = StyleRepository(ctx.connection, AssetStore(PillowImageProbe()))
        try:
            assets = try_on_assets(repository, request.style_code)
        except StyleError as exc:
            raise TaskError(exc.code, str(exc), ErrorClass.INVALID_REQUEST) from None
        from nailmirror_desktop.vision.sources.image_io import ImageReadError

        try:
            style = load_style_textures(assets.style_code, assets.name, assets.textures, assets.accent_fingers)
        except ImageReadError as exc:  # a classified error: the engine logs one line, not a traceback
            raise TaskError(f"TEXTURE_{exc.code}", str(exc), ErrorClass.INVALID_REQUEST) from None
        accent = frozenset(Finger[name.upper()] for name in request.accent if name.upper() in Finger.__members__)
        return compositor_for(style, accent)

    def _still_pipeline(self) -> Any:
        if self._pipeline is None:
            from nailmirror_desktop.vision.paint.compositor import Compositor
            from nailmirror_desktop.vision.pipeline import TryOnPipeline

            self._pipeline = TryOnPipeline(Compositor(), mirrored=self.mirrored, max_hands=self.max_hands,
                                           active=self.active)
        return self._pipeline


def _write_png(target: Path, image: Any, task_no: str) -> None:
    """Encode (H, W, 3) uint8 BGR as PNG over `target`, renamed into place: a reader never sees half a photo."""
    import cv2

    ok, encoded = cv2.imencode(".png", image)
    if not ok:
        raise TaskError("RENDER_ENCODE_FAILED", "the render could not be encoded", ErrorClass.INVALID_REQUEST)
    partial = target.with_name(f"{target.stem}.{task_no}.part")  # the retention purge sweeps a stale one
    write_private_file(partial, encoded.tobytes())
    if not target.exists():  # staff deleted the snapshot while it rendered: it must not come back
        os.remove(partial)
        raise TaskError("SNAPSHOT_DELETED", "the snapshot was deleted during the render", ErrorClass.INVALID_REQUEST)
    os.replace(partial, target)


def register_effect_preview(engine: TaskEngine, *, mirrored: bool, max_hands: int = 2,
                            active: Any = None) -> EffectPreviewRenderer:
    """Register the EFFECT_PREVIEW handler on the kiosk's engine, after clearing what an earlier run left
    (collect_leftover_frames). Close the returned renderer after the executor has shut down."""
    collect_leftover_frames(engine)
    renderer = EffectPreviewRenderer(mirrored=mirrored, max_hands=max_hands, active=active)
    engine.register_handler(EFFECT_PREVIEW, renderer, concurrency=1)
    return renderer
