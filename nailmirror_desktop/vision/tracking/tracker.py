"""Hand landmarks from the MediaPipe Tasks HandLandmarker (ARCHITECTURE.md §11).

VIDEO mode for camera and video frames (timestamps must increase; we make them monotonic), IMAGE mode for
stills. Landmarks come back in frame pixels as `HandObservation`s. Use the tracker as a context manager:
an unclosed landmarker raises at interpreter exit.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import cv2
import numpy as np
from numpy.typing import NDArray

from nailmirror_desktop.vision.tracking.hand_model import HandModelError, default_bundle_path, verify_bundle
from nailmirror_desktop.vision.types import HandObservation

if TYPE_CHECKING:
    import mediapipe as mp
    from mediapipe.tasks.python.vision import HandLandmarker, HandLandmarkerResult

Mode = Literal["image", "video"]


@dataclass(frozen=True)
class TrackerSettings:
    """Landmarker thresholds. The defaults are MediaPipe's; the still cascade lowers them as a last resort."""

    max_hands: int = 2
    detection_confidence: float = 0.5
    presence_confidence: float = 0.5
    tracking_confidence: float = 0.5


class HandTracker:
    """One MediaPipe HandLandmarker.

    `detect(frame)` in IMAGE mode, `track(frame, timestamp_ms)` in VIDEO mode. Frames are (H, W, 3) uint8 BGR
    (OpenCV's order) unless `rgb=True` is passed.
    """

    def __init__(
        self,
        mode: Mode = "image",
        settings: TrackerSettings = TrackerSettings(),
        model_path: Path | None = None,
        *,
        bundle_sha256: str | None = None,
    ) -> None:
        """model_path: the bundle (default: the shipped, verified one). bundle_sha256: for another bundle a
        measurement tool built itself (tools/compare_hand_models.py), the digest it must have."""
        if mode not in ("image", "video"):
            raise ValueError(f"mode must be 'image' or 'video', not {mode!r}")
        self.mode = mode
        self.settings = settings
        if bundle_sha256 is None:
            self._model_path = verify_bundle(model_path or default_bundle_path())
        else:
            if model_path is None or hashlib.sha256(model_path.read_bytes()).hexdigest() != bundle_sha256:
                raise HandModelError(f"hand model at {model_path} does not have the sha256 {bundle_sha256[:12]}…")
            self._model_path = model_path
        self._landmarker: HandLandmarker | None = None
        self._last_timestamp_ms = -1

    def __enter__(self) -> HandTracker:
        self.open()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def open(self) -> None:
        if self._landmarker is not None:
            return
        from nailmirror_desktop.vision.tracking import mediapipe_tasks

        mediapipe_tasks.register_package()  # mediapipe's __init__ would import matplotlib: see mediapipe_tasks
        from mediapipe.tasks.python import BaseOptions
        from mediapipe.tasks.python.vision import HandLandmarker, HandLandmarkerOptions, RunningMode

        options = HandLandmarkerOptions(
            # model bytes rather than a path: the bundle may sit inside a frozen build's archive directory
            base_options=BaseOptions(model_asset_buffer=self._model_path.read_bytes()),
            running_mode=RunningMode.VIDEO if self.mode == "video" else RunningMode.IMAGE,
            num_hands=self.settings.max_hands,
            min_hand_detection_confidence=self.settings.detection_confidence,
            min_hand_presence_confidence=self.settings.presence_confidence,
            min_tracking_confidence=self.settings.tracking_confidence,
        )
        self._landmarker = HandLandmarker.create_from_options(options)

    def close(self) -> None:
        if self._landmarker is not None:
            self._landmarker.close()
            self._landmarker = None

    def detect(self, frame: NDArray[np.uint8], *, rgb: bool = False) -> list[HandObservation]:
        """Hands in one still image (IMAGE mode)."""
        if self.mode != "image":
            raise RuntimeError("detect() needs an image-mode tracker; use track() for video")
        result = self._require().detect(_mp_image(frame, rgb))
        return _observations(result, frame.shape)

    def track(self, frame: NDArray[np.uint8], timestamp_ms: int, *, rgb: bool = False) -> list[HandObservation]:
        """Hands in one video frame (VIDEO mode). A timestamp that does not increase is nudged forward by 1 ms,
        because MediaPipe rejects it and a camera clock can repeat."""
        if self.mode != "video":
            raise RuntimeError("track() needs a video-mode tracker; use detect() for stills")
        timestamp_ms = max(int(timestamp_ms), self._last_timestamp_ms + 1)
        self._last_timestamp_ms = timestamp_ms
        result = self._require().detect_for_video(_mp_image(frame, rgb), timestamp_ms)
        return _observations(result, frame.shape)

    def _require(self) -> HandLandmarker:
        if self._landmarker is None:
            raise RuntimeError("HandTracker is closed; use it as a context manager")
        return self._landmarker


def _mp_image(frame: NDArray[np.uint8], rgb: bool) -> mp.Image:
    from nailmirror_desktop.vision.tracking.mediapipe_tasks import framework_image

    mp = framework_image()  # mediapipe.python: mp.Image and mp.ImageFormat, without mediapipe's __init__
    if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
        raise ValueError(f"expected an (H, W, 3) uint8 frame, got {frame.shape} {frame.dtype}")
    # cv2.cvtColor: ~0.5 ms per 1280×720 frame against ~14 ms for numpy's strided copy of frame[:, :, ::-1]
    # (measured at load 4.8 on the shared 2-core machine) — a camera-frame budget of 33 ms cannot spare that
    data = np.ascontiguousarray(frame) if rgb else cv2.cvtColor(frame, cv2.COLOR_BGR2RGB)
    return mp.Image(image_format=mp.ImageFormat.SRGB, data=data)


def _observations(result: HandLandmarkerResult, frame_shape: tuple[int, ...]) -> list[HandObservation]:
    height, width = frame_shape[:2]
    hands = []
    for landmarks, handedness in zip(result.hand_landmarks, result.handedness, strict=True):
        points = np.array([(p.x * width, p.y * height, p.z * width) for p in landmarks], dtype=np.float32)
        best = handedness[0]
        hands.append(HandObservation(points, best.category_name, float(best.score)))
    return hands
