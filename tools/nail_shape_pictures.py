"""The documentation's nail shape pictures: one frame of the bundled demo video painted by the still path (as
`nailmirror tryon --image` paints it) in each shape at one length, cropped to the hands.

Run: PYTHONPATH=$PWD .venv/bin/python tools/nail_shape_pictures.py [--out docs/nail_shapes] [--length long]
     [--style resources/demo/styles/rose_gloss] [--frame 40] [--width 560]

Writes <out>/<shape>.jpg for every shape, plus natural.jpg (the nails as found), and prints one line per file.
Only bundled media is used (resources/demo), never the internal photo sets.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("MPLCONFIGDIR", str(ROOT / ".cache" / "matplotlib"))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from nailmirror_desktop.core.nail_form import NATURAL, NailForm, NailLength, NailShape  # noqa: E402
from nailmirror_desktop.vision.paint.style_textures import load_style  # noqa: E402
from nailmirror_desktop.vision.pipeline import TryOnPipeline  # noqa: E402

DEMO_VIDEO = ROOT / "resources" / "demo" / "hand_demo.mp4"
JPEG_QUALITY = 86


def demo_frame(index: int) -> np.ndarray:
    """Frame `index` of the bundled demo video ((H, W, 3) uint8 BGR)."""
    capture = cv2.VideoCapture(str(DEMO_VIDEO))
    frame = None
    for _ in range(index + 1):
        ok, frame = capture.read()
        if not ok:
            raise SystemExit(f"{DEMO_VIDEO}: fewer than {index + 1} frames")
    capture.release()
    assert frame is not None
    return frame


def hands_crop(points: np.ndarray, shape: tuple[int, ...], margin: int = 60) -> tuple[slice, slice]:
    """The rows and columns around `points` ((N, 2) x, y: the hands' landmarks and every painted pixel),
    `margin` px wider (clipped to the frame)."""
    height, width = shape[:2]
    x0, y0 = np.floor(points.min(axis=0)).astype(int) - margin
    x1, y1 = np.ceil(points.max(axis=0)).astype(int) + margin
    return slice(max(0, y0), min(height, y1)), slice(max(0, x0), min(width, x1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "nail_shapes")
    parser.add_argument("--length", choices=[n.value for n in NailLength if n is not NailLength.NATURAL],
                        default=NailLength.LONG.value)
    parser.add_argument("--style", type=Path, default=ROOT / "resources" / "demo" / "styles" / "rose_gloss")
    parser.add_argument("--frame", type=int, default=40)
    parser.add_argument("--width", type=int, default=560)
    args = parser.parse_args()
    frame = demo_frame(args.frame)
    forms = [("natural", NATURAL)] + [(s.value, NailForm(s, NailLength(args.length))) for s in NailShape]
    painted: dict[str, np.ndarray] = {}
    landmarks = []
    with TryOnPipeline(load_style(args.style).compositor()) as pipeline:
        for name, form in forms:
            pipeline.nail_form = form
            result = pipeline.process_still(frame, want_coverage=False)
            painted[name] = result.frame
            landmarks += [hand.landmarks[:, :2] for hand in result.hands]
    changed = np.zeros(frame.shape[:2], bool)
    for image in painted.values():
        changed |= np.any(image != frame, axis=2)
    if not changed.any():
        raise SystemExit("no nails were painted on the demo frame")
    ys, xs = np.nonzero(changed)
    rows, columns = hands_crop(np.vstack([*landmarks, np.stack([xs, ys], axis=1)]), frame.shape)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, image in painted.items():
        crop = image[rows, columns]
        scale = args.width / crop.shape[1]
        small = cv2.resize(crop, (args.width, round(crop.shape[0] * scale)), interpolation=cv2.INTER_AREA)
        path = args.out / f"{name}.jpg"
        cv2.imwrite(str(path), small, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
