"""Make the project's own demo media: a drawn hand animation and starter nail styles.

    python tools/make_demo_media.py [--out resources/demo] [--check]

Everything is drawn with OpenCV from numbers in this file (no photos, no third-party art), so the project may
ship it. The video shows the backs of both hands, fingers up, nails showing, swaying, turning and spreading their
fingers for a few seconds: 1280×720, 30 fps, mp4v. `--check` runs the VIDEO-mode landmarker over it and prints
the share of frames with a hand (the kiosk's demo and the benchmark need the model to actually see it).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WIDTH, HEIGHT, FPS, SECONDS = 1280, 720, 30, 4
VIDEO_NAME = "hand_demo.mp4"

SKIN = np.array([120, 150, 205], np.float32)  # BGR
SKIN_DARK = np.array([95, 118, 170], np.float32)
NAIL = np.array([170, 180, 228], np.float32)


@dataclass(frozen=True)
class FingerSpec:
    base: tuple[float, float]  # knuckle position in hand units (palm width = 1), y up
    angle: float  # degrees from straight up, positive = towards the thumb side (left)
    lengths: tuple[float, float, float]  # proximal, middle, distal phalanx
    width: float
    curl: float = 6.0  # degrees each joint bends away from the line


# Back of a right hand seen from above: the thumb is on the image's left.
FINGERS = (
    FingerSpec((-0.50, 0.12), 40, (0.42, 0.34, 0.30), 0.25, 8),  # thumb
    FingerSpec((-0.36, 0.98), 8, (0.50, 0.30, 0.24), 0.205),  # index
    FingerSpec((-0.11, 1.03), 1, (0.56, 0.34, 0.25), 0.21),  # middle
    FingerSpec((0.14, 0.98), -6, (0.52, 0.32, 0.24), 0.20),  # ring
    FingerSpec((0.37, 0.86), -14, (0.40, 0.25, 0.21), 0.175),  # pinky
)


def _rotate(vector: np.ndarray, degrees: float) -> np.ndarray:
    theta = math.radians(degrees)
    c, s = math.cos(theta), math.sin(theta)
    return np.array([c * vector[0] - s * vector[1], s * vector[0] + c * vector[1]])


def finger_joints(spec: FingerSpec, spread: float) -> list[np.ndarray]:
    """Joint positions (hand units, y up) from knuckle to tip."""
    points = [np.array(spec.base, float)]
    angle = spec.angle * spread
    for i, length in enumerate(spec.lengths):
        direction = _rotate(np.array([0.0, 1.0]), angle + (spec.curl * (i + 1) if spec.angle > 30 else 0))
        points.append(points[-1] + direction * length)
    return points


class HandPainter:
    """Draws the hand into a frame: `paint(frame, centre_px, scale_px, rotation_deg, spread)`."""

    def __init__(self, frame_shape: tuple[int, int]) -> None:
        self.height, self.width = frame_shape

    def _to_px(self, point: np.ndarray, centre, scale, rotation) -> np.ndarray:
        p = _rotate(np.asarray(point, float), rotation) * scale
        return np.array([centre[0] + p[0], centre[1] - p[1]])

    def paint(self, frame: np.ndarray, centre, scale: float, rotation: float, spread: float) -> None:
        to_px = lambda p: self._to_px(p, centre, scale, rotation)  # noqa: E731
        mask = np.zeros(frame.shape[:2], np.uint8)
        # forearm and palm
        arm = [(-0.45, -0.35), (0.42, -0.35), (0.55, -1.6), (-0.6, -1.6)]
        palm = [(-0.62, 0.05), (-0.55, -0.3), (-0.38, -0.42), (0.36, -0.42), (0.5, -0.25),
                (0.52, 0.55), (0.47, 0.85), (0.26, 1.0), (-0.1, 1.06), (-0.42, 0.98), (-0.55, 0.7)]
        _fill(mask, [to_px(p) for p in arm])
        _fill(mask, [to_px(p) for p in palm])
        fingers = [finger_joints(spec, spread) for spec in FINGERS]
        for spec, joints in zip(FINGERS, fingers, strict=True):
            for i in range(3):
                taper = 1.0 - 0.08 * i
                _capsule(mask, to_px(joints[i]), to_px(joints[i + 1]), spec.width * scale * taper / 2)
        skin = self._shaded_skin(mask, centre, scale, rotation)
        soft = cv2.GaussianBlur(mask, (0, 0), 1.2).astype(np.float32)[..., None] / 255
        frame[:] = np.clip(frame * (1 - soft) + skin * soft, 0, 255).astype(np.uint8)
        for spec, joints in zip(FINGERS, fingers, strict=True):
            self._knuckle_creases(frame, joints, spec, to_px, scale)
            self._nail(frame, joints, spec, to_px, scale)

    def _shaded_skin(self, mask: np.ndarray, centre, scale: float, rotation: float) -> np.ndarray:
        # light from the top left: brighter there, darker towards the edges of the silhouette (rounded volume)
        ys, xs = np.mgrid[0 : self.height, 0 : self.width].astype(np.float32)
        light = 1.0 + 0.12 * ((centre[0] - xs) + (centre[1] - ys)) / max(scale, 1)
        depth = cv2.distanceTransform(mask, cv2.DIST_L2, 3)
        volume = np.clip(depth / (0.08 * scale), 0, 1) ** 0.5
        tone = SKIN_DARK[None, None] + (SKIN - SKIN_DARK)[None, None] * volume[..., None]
        return tone * np.clip(light, 0.8, 1.15)[..., None]

    def _knuckle_creases(self, frame, joints, spec, to_px, scale) -> None:
        for joint in joints[1:3]:
            c = to_px(joint)
            half = spec.width * scale * 0.28
            direction = to_px(joints[-1]) - to_px(joints[0])
            direction /= np.linalg.norm(direction) + 1e-9
            normal = np.array([-direction[1], direction[0]])
            for offset in (-0.05, 0.05):
                shift = direction * offset * scale * 0.3
                a, b = c - normal * half + shift, c + normal * half + shift
                cv2.line(frame, _pt(a), _pt(b), (85, 105, 150), max(1, int(scale * 0.006)), cv2.LINE_AA)

    def _nail(self, frame, joints, spec, to_px, scale) -> None:
        tip, dip = to_px(joints[3]), to_px(joints[2])
        axis = tip - dip
        length = np.linalg.norm(axis)
        direction = axis / (length + 1e-9)
        centre = dip + axis * 0.62
        nail_len = length * 0.62
        nail_w = spec.width * scale * 0.72
        angle = math.degrees(math.atan2(direction[1], direction[0]))
        box = ((float(centre[0]), float(centre[1])), (float(nail_len), float(nail_w)), angle)
        overlay = frame.copy()
        cv2.ellipse(overlay, box, NAIL.tolist(), -1, cv2.LINE_AA)
        cv2.ellipse(overlay, box, (110, 130, 185), max(1, int(scale * 0.005)), cv2.LINE_AA)
        highlight_centre = centre - direction * nail_len * 0.1
        highlight = ((float(highlight_centre[0]), float(highlight_centre[1])),
                     (float(nail_len * 0.45), float(nail_w * 0.18)), angle)
        cv2.ellipse(overlay, highlight, (235, 240, 250), -1, cv2.LINE_AA)
        cv2.addWeighted(overlay, 0.9, frame, 0.1, 0, dst=frame)


def _pt(p) -> tuple[int, int]:
    return int(round(p[0])), int(round(p[1]))


def _fill(mask: np.ndarray, points) -> None:
    cv2.fillPoly(mask, [np.round(np.array(points) * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)


def _capsule(mask: np.ndarray, a, b, radius: float) -> None:
    cv2.line(mask, _pt(a), _pt(b), 255, max(1, int(round(radius * 2))), cv2.LINE_AA)
    for p in (a, b):
        cv2.circle(mask, _pt(p), max(1, int(round(radius))), 255, -1, cv2.LINE_AA)


def background(shape: tuple[int, int]) -> np.ndarray:
    """A soft counter-top: warm grey gradient with faint texture (fixed seed)."""
    height, width = shape
    ys = np.linspace(0, 1, height, dtype=np.float32)[:, None, None]
    top, bottom = np.array([188, 196, 204], np.float32), np.array([140, 150, 160], np.float32)
    image = top * (1 - ys) + bottom * ys
    image = np.broadcast_to(image, (height, width, 3)).copy()
    noise = np.random.default_rng(7).normal(0, 3, (height // 4, width // 4, 1)).astype(np.float32)
    image += cv2.resize(noise, (width, height), interpolation=cv2.INTER_LINEAR)[..., None]
    return np.clip(image, 0, 255).astype(np.uint8)


def demo_frame(index: int, total: int, shape=(HEIGHT, WIDTH), base: np.ndarray | None = None,
               hands: int = 2) -> np.ndarray:
    """Frame `index` of the animation, (H, W, 3) uint8 BGR: the backs of both hands (or the right one alone)."""
    height, width = shape
    t = index / total * 2 * math.pi
    frame = (base if base is not None else background(shape)).copy()
    if hands == 1:
        _paint_hand(frame, t, (0.5, 0.72), 0.22)
        return frame
    _paint_hand(frame, t, (0.68, 0.74), 0.19)  # the right hand
    # the left hand is a right hand painted onto the mirrored frame, with its own phase so they differ
    mirrored = np.ascontiguousarray(frame[:, ::-1])
    _paint_hand(mirrored, t + 1.7, (0.68, 0.74), 0.19)
    frame[:] = mirrored[:, ::-1]
    return frame


def _paint_hand(frame: np.ndarray, t: float, centre_fraction, scale_fraction: float) -> None:
    height, width = frame.shape[:2]
    centre = (width * (centre_fraction[0] + 0.05 * math.sin(t)),
              height * (centre_fraction[1] + 0.03 * math.sin(2 * t)))
    scale = height * (scale_fraction + 0.015 * math.sin(t + 1.0))
    rotation = 14 * math.sin(t)
    spread = 1.0 + 0.35 * math.sin(2 * t)
    painter = HandPainter(frame.shape[:2])
    # a soft shadow under the hand sells the depth and is what a counter-top kiosk sees
    _shadow(frame, painter, (centre[0] + scale * 0.06, centre[1] + scale * 0.05), scale, rotation, spread)
    painter.paint(frame, centre, scale, rotation, spread)


def _shadow(frame, painter, centre, scale, rotation, spread) -> None:
    canvas = np.zeros(frame.shape, np.uint8)
    painter.paint(canvas, centre, scale, rotation, spread)
    mask = cv2.GaussianBlur((canvas.max(axis=2) > 0).astype(np.float32), (0, 0), scale * 0.04)
    frame[:] = np.clip(frame * (1 - 0.25 * mask[..., None]), 0, 255).astype(np.uint8)


def write_video(path: Path, frames: int = FPS * SECONDS) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), FPS, (WIDTH, HEIGHT))
    if not writer.isOpened():
        raise SystemExit(f"cannot write {path}")
    base = background((HEIGHT, WIDTH))
    for index in range(frames):
        writer.write(demo_frame(index, frames, base=base))
    writer.release()


# ---------------------------------------------------------------- styles


def _gradient(size, top_bgr, bottom_bgr) -> np.ndarray:
    width, height = size
    ys = np.linspace(0, 1, height, dtype=np.float32)[:, None, None]
    image = np.array(top_bgr, np.float32) * (1 - ys) + np.array(bottom_bgr, np.float32) * ys
    return np.broadcast_to(image, (height, width, 3)).astype(np.uint8).copy()


def style_rose_gloss() -> dict[str, np.ndarray]:
    """A deep rose gloss with a slightly darker cuticle, and a gold-flake accent on the ring finger."""
    nail = _gradient((96, 144), (95, 60, 205), (70, 40, 170))
    accent = _gradient((96, 144), (120, 190, 230), (60, 140, 200))
    rng = np.random.default_rng(3)
    for _ in range(60):
        x, y = int(rng.integers(0, 96)), int(rng.integers(0, 144))
        cv2.circle(accent, (x, y), int(rng.integers(1, 4)), (170, 225, 250), -1, cv2.LINE_AA)
    return {"nail.png": nail, "accent.png": accent}


def style_french_tip() -> dict[str, np.ndarray]:
    """A French manicure: sheer pink with a white free edge; the tip fades out via PNG alpha."""
    nail = np.zeros((150, 100, 4), np.uint8)
    nail[..., :3] = (190, 195, 240)
    nail[..., 3] = 200
    ys = np.arange(150)[:, None]
    xs = np.arange(100)[None, :]
    smile = 38 + 14 * ((xs - 50) / 50.0) ** 2  # the white tip's curved "smile line"
    tip = ys < smile
    nail[tip] = (250, 250, 252, 255)
    return {"nail.png": nail}


STYLES = {
    "rose_gloss": (style_rose_gloss, {"name": "Rose gloss", "accent_fingers": ["ring"]}),
    "french_tip": (style_french_tip, {"name": "French tip"}),
}


def write_styles(folder: Path) -> None:
    for name, (make, meta) in STYLES.items():
        target = folder / "styles" / name
        target.mkdir(parents=True, exist_ok=True)
        for filename, image in make().items():
            cv2.imwrite(str(target / filename), image)
        (target / "style.json").write_text(json.dumps(meta, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def check_detection(path: Path) -> dict[str, float]:
    """Share of the video's frames where the kiosk's VIDEO-mode landmarker finds ≥1 hand and both hands."""
    from nailmirror_desktop.vision.pipeline import video_tracker_settings
    from nailmirror_desktop.vision.sources.readers import VideoFileSource
    from nailmirror_desktop.vision.tracking.tracker import HandTracker

    one = two = total = 0
    with VideoFileSource(path) as source, HandTracker("video", video_tracker_settings(2)) as tracker:
        while (frame := source.read()) is not None:
            total += 1
            hands = len(tracker.track(frame.image, frame.timestamp_ms))
            one += hands >= 1
            two += hands >= 2
    return {"frames": total, "any_hand": round(one / max(total, 1), 3), "both_hands": round(two / max(total, 1), 3)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "resources" / "demo")
    parser.add_argument("--check", action="store_true", help="measure how often the landmarker sees the hand")
    args = parser.parse_args()
    write_video(args.out / VIDEO_NAME)
    write_styles(args.out)
    print(f"wrote {args.out / VIDEO_NAME} ({(args.out / VIDEO_NAME).stat().st_size:,} bytes) and styles")
    if args.check:
        print(json.dumps(check_detection(args.out / VIDEO_NAME)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
