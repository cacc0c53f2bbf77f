"""Faces in consented captures (vision/privacy/): the detector is OpenCV's own Haar cascades, found by path and
carried into the store bundle; a real face (matplotlib's sample portrait: the only face photo on a build
machine) is found and blurred until the detector no longer finds it; a capture whose hands crop holds a face
is kept blurred; hand photos are not mistaken for faces (but for one of the 52)."""

from __future__ import annotations

from pathlib import Path

import cv2
import matplotlib
import numpy as np
import pytest

from nailmirror_desktop.vision.paint.compositor import Compositor
from nailmirror_desktop.vision.pipeline import TryOnPipeline
from nailmirror_desktop.vision.privacy.capture import PreparedCapture, Refused, prepare_capture
from nailmirror_desktop.vision.privacy.faces import CASCADES, FaceFinder, blur_faces, cascade_paths

ROOT = Path(__file__).resolve().parents[2]
PORTRAIT = Path(matplotlib.__file__).parent / "mpl-data" / "sample_data" / "grace_hopper.jpg"
HAND = "4c484f8c-e402-11e8-97db-0242ac1c0002.jpg"


def _portrait() -> np.ndarray:
    image = cv2.imread(str(PORTRAIT))
    assert image is not None, PORTRAIT
    return image


def test_the_face_detector_is_found_by_path_and_the_store_bundle_carries_it() -> None:
    for path in cascade_paths():
        assert path.is_file() and path.stat().st_size > 100_000, path
    spec = (ROOT / "build.spec").read_text(encoding="utf-8")
    assert all(f'"{name}"' in spec for name in CASCADES) and '"cv2/data"' in spec
    FaceFinder()  # loads both


@pytest.mark.slow
def test_a_real_face_is_found_and_blurred_until_it_is_not() -> None:
    finder, portrait = FaceFinder(), _portrait()
    faces = finder.find(portrait)
    assert len(faces) == 1
    face = faces[0]
    assert (face.right - face.left) > 150  # her whole face, not a patch of it
    blurred = blur_faces(portrait, faces)
    assert finder.find(blurred) == []
    grown_top = face.top - (face.bottom - face.top) // 4 - 1
    outside = (slice(0, grown_top), slice(None))  # above the face and the quarter it is grown by: untouched
    assert np.array_equal(blurred[outside], portrait[outside])


@pytest.mark.slow
@pytest.mark.soak  # 52 photos, both cascades, profiles both ways: about a minute on a loaded 2-core box
def test_hand_photos_are_not_taken_for_faces(nails_eval_dir: Path) -> None:
    finder = FaceFinder()
    flagged = [p.name for p in sorted((nails_eval_dir / "images").iterdir())
               if finder.find(cv2.imread(str(p)))]
    assert len(flagged) <= 1, flagged  # measured: 1 of 52 (a knuckle seen as a profile), blurred, not dropped


@pytest.mark.slow
def test_a_capture_with_a_face_in_its_hands_crop_is_kept_with_the_face_blurred(nails_eval_dir: Path) -> None:
    frame = cv2.imread(str(nails_eval_dir / "images" / HAND))
    with TryOnPipeline(Compositor(), mirrored=False, max_hands=2) as pipeline:
        result = pipeline.process_still(frame, want_coverage=False)
    plain = prepare_capture(frame, result, FaceFinder())
    assert isinstance(plain, PreparedCapture) and plain.faces_blurred == 0
    # A face behind her hand: the portrait pasted into the lower part of the hands crop.
    crop = plain.facts["crop"]
    side = min(crop["width"], crop["height"]) * 2 // 3
    face = cv2.resize(_portrait()[60:380, 110:430], (side, side), interpolation=cv2.INTER_AREA)
    top, left = crop["top"] + crop["height"] - side, crop["left"]
    with_face = frame.copy()
    with_face[top:top + side, left:left + side] = face
    finder = FaceFinder()
    assert finder.find(with_face[crop["top"]:crop["top"] + crop["height"],
                                 crop["left"]:crop["left"] + crop["width"]]), "the pasted face must be seen"
    kept = prepare_capture(with_face, result, finder)
    assert isinstance(kept, PreparedCapture) and kept.faces_blurred >= 1
    assert kept.facts["faces_blurred"] == kept.faces_blurred
    image = cv2.imdecode(np.frombuffer(kept.png, np.uint8), cv2.IMREAD_COLOR)
    assert image.shape[:2] == (crop["height"], crop["width"])
    assert finder.find(image) == []  # what is kept shows no face
    assert b"eXIf" not in kept.png  # pixels only, no metadata chunk


@pytest.mark.slow
def test_a_still_without_hands_keeps_nothing() -> None:
    blank = np.full((240, 320, 3), 90, np.uint8)
    with TryOnPipeline(Compositor(), mirrored=False, max_hands=2) as pipeline:
        result = pipeline.process_still(blank, want_coverage=False)
    assert prepare_capture(blank, result, FaceFinder()) == Refused("no_hands")
