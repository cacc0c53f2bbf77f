"""Nail extensions: the geometry stage (shape, length, width, foreshortening, clipping) and how the compositor
paints it (texture continued, shadow, natural free edge hidden, coverage the natural nail only)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from nailmirror_desktop.core.nail_form import LENGTH_MULTIPLES, NailForm, NailLength, NailShape, parse_form
from nailmirror_desktop.vision.nails.extension import Capsule, extend_nail, foreshortening
from nailmirror_desktop.vision.nails.nail_refiner import NailMask
from nailmirror_desktop.vision.nails.warp import Roi
from nailmirror_desktop.vision.paint.compositor import Compositor
from nailmirror_desktop.vision.types import Finger, NailQuad

UP = np.array([0.0, -1.0])
SHAPE = (320, 400, 3)


def _nail(x: int = 200, y: int = 200, width: int = 30, length: int = 50, scale: float = 1.0) -> NailMask:
    """A nail pointing up the image: straight sides, a rounded free edge at `y`, its cuticle `length` below."""
    width, length = round(width * scale), round(length * scale)
    roi = Roi(x - width, y - 5, x + width, y + length + 5)
    alpha = np.zeros((roi.height, roi.width), np.float32)
    half = width // 2
    cx = x - roi.x0
    cv2.ellipse(alpha, (cx, 5 + half), (half, half), 0, 180, 360, 1.0, -1)
    alpha[5 + half:5 + length, cx - half:cx + half] = 1.0
    corners = np.array([[x - half, y], [x + half, y], [x + half, y + length], [x - half, y + length]], np.float32)
    return NailMask(NailQuad(Finger.MIDDLE, corners, 0, 1.0), roi, alpha, True)


def _in_frame(values: np.ndarray, roi: Roi, shape=SHAPE) -> np.ndarray:
    out = np.zeros(shape[:2], np.float32)
    out[roi.slices] = values
    return out


@pytest.mark.parametrize("length", [n for n in NailLength if n is not NailLength.NATURAL])
@pytest.mark.parametrize("shape", list(NailShape))
def test_the_tip_lies_a_multiple_of_the_nails_length_past_its_free_edge(shape, length):
    mask = _nail()
    extension = extend_nail(mask, UP, NailForm(shape, length), SHAPE)
    assert extension is not None
    reach = 200.0 - extension.tip[1]
    assert reach == pytest.approx(LENGTH_MULTIPLES[length] * 50, abs=1.5)
    painted = _in_frame(extension.alpha, extension.roi) >= 0.5
    rows = np.nonzero(painted.any(axis=1))[0]
    assert rows.min() == pytest.approx(extension.tip[1], abs=2.0)  # painted up to its tip, no further


def test_natural_length_extends_nothing():
    assert extend_nail(_nail(), UP, NailForm(NailShape.STILETTO, NailLength.NATURAL), SHAPE) is None


def test_the_extension_scales_with_the_nail():
    form = NailForm(NailShape.ALMOND, NailLength.LONG)
    small = extend_nail(_nail(scale=1.0), UP, form, SHAPE)
    big = extend_nail(_nail(y=150, scale=2.0), UP, form, SHAPE)
    assert small is not None and big is not None
    ratio = float((big.alpha >= 0.5).sum()) / float((small.alpha >= 0.5).sum())
    assert ratio == pytest.approx(4.0, rel=0.12)


def _widths_near_tip(shape: NailShape) -> tuple[float, float]:
    """The painted width (px) a tenth and a half of the extension's length below its tip."""
    extension = extend_nail(_nail(), UP, NailForm(shape, NailLength.EXTRA_LONG), SHAPE)
    assert extension is not None
    painted = _in_frame(extension.alpha, extension.roi) >= 0.5
    tip_y = extension.tip[1]
    return (float(painted[round(tip_y + 6)].sum()), float(painted[round(tip_y + 30)].sum()))


def test_each_tip_shape_closes_the_nail_its_own_way():
    widths = {shape: _widths_near_tip(shape) for shape in NailShape}
    # near the tip: square keeps its width, stiletto comes to a point, coffin keeps a flat end between them
    assert widths[NailShape.SQUARE][0] >= 28
    assert widths[NailShape.STILETTO][0] <= 12
    assert widths[NailShape.STILETTO][0] < widths[NailShape.ALMOND][0] < widths[NailShape.ROUND][0]
    assert widths[NailShape.ROUND][0] < widths[NailShape.SQUOVAL][0] <= widths[NailShape.SQUARE][0]
    assert 12 <= widths[NailShape.COFFIN][0] <= 22
    # further down the sides run on at the nail's width for the short caps
    assert widths[NailShape.SQUARE][1] == pytest.approx(31, abs=2.5)
    assert widths[NailShape.ROUND][1] == pytest.approx(31, abs=2.5)


def test_a_foreshortened_finger_shortens_the_tip_cap():
    form = NailForm(NailShape.STILETTO, NailLength.EXTRA_LONG)
    facing = extend_nail(_nail(), UP, form, SHAPE)
    tilted = extend_nail(_nail(), UP, form, SHAPE, foreshortened=0.5)
    assert facing is not None and tilted is not None
    # the cap is shorter, so more of the extension keeps the nail's width: more area
    assert (tilted.alpha >= 0.5).sum() > 1.1 * (facing.alpha >= 0.5).sum()


def test_foreshortening_reads_the_distal_bones_depth():
    landmarks = np.zeros((21, 3))
    landmarks[11] = (100, 100, 0)
    landmarks[12] = (100, 80, 0)
    assert foreshortening(landmarks, Finger.MIDDLE) == pytest.approx(1.0)
    landmarks[12] = (100, 90, -10 * np.sqrt(3))  # the bone tilted 60° towards the camera
    assert foreshortening(landmarks, Finger.MIDDLE) == pytest.approx(0.5)


def test_another_finger_in_the_way_cuts_the_extension():
    form = NailForm(NailShape.SQUARE, NailLength.EXTRA_LONG)
    neighbour = Capsule(0, Finger.RING, np.array([[120.0, 175.0], [280.0, 175.0]]), 6.0)
    free = extend_nail(_nail(), UP, form, SHAPE)
    cut = extend_nail(_nail(), UP, form, SHAPE, others=[neighbour])
    assert free is not None and cut is not None
    free_alpha = _in_frame(free.alpha, free.roi)
    cut_alpha = _in_frame(cut.alpha, cut.roi)
    assert free_alpha[175, 190:210].min() > 0.9
    assert cut_alpha[172:179, 190:210].max() < 0.05
    np.testing.assert_array_equal(cut_alpha[185:], free_alpha[185:])  # away from the finger nothing changes


def test_an_extension_running_out_of_the_frame_is_clipped_to_it():
    mask = _nail(y=30)
    extension = extend_nail(mask, UP, NailForm(NailShape.ROUND, NailLength.EXTRA_LONG), SHAPE)
    assert extension is not None
    assert extension.roi.y0 == 0 and extension.alpha.shape == (extension.roi.height, extension.roi.width)
    assert extension.alpha[0].max() > 0.9  # it reaches the top edge and stops there


def test_parse_form_names_the_bad_word():
    assert parse_form("almond", "medium") == NailForm(NailShape.ALMOND, NailLength.MEDIUM)
    assert parse_form(None, None) == NailForm()
    with pytest.raises(ValueError, match="'oval'"):
        parse_form("oval", None)
    with pytest.raises(ValueError, match="'huge'"):
        parse_form(None, "huge")


# --- the compositor -----------------------------------------------------------------------------------------


def _scene() -> np.ndarray:
    frame = np.zeros(SHAPE, np.uint8)
    frame[:] = (120, 150, 190)
    return frame


def _stripes() -> np.ndarray:
    texture = np.zeros((64, 40, 3), np.uint8)
    texture[:] = (40, 40, 200)
    for row in range(0, 64, 16):
        texture[row:row + 8] = (220, 220, 250)
    return texture


def _paint(form: NailForm, texture: np.ndarray | None = None):
    mask = _nail()
    extension = extend_nail(mask, UP, form, SHAPE)
    compositor = Compositor(_stripes() if texture is None else texture)
    return compositor.composite(_scene(), [mask.quad], masks=[mask], extensions=[extension],
                                want_coverage=True), extension


def test_every_length_keeps_the_natural_nails_coverage():
    natural, _ = _paint(NailForm())
    assert natural.coverage is not None and natural.coverage.any()
    for shape in NailShape:
        for length in NailLength:
            painted, extension = _paint(NailForm(shape, length))
            np.testing.assert_array_equal(painted.coverage, natural.coverage)
            if extension is not None:  # and it did paint past the nail
                assert np.any(painted.frame[int(extension.tip[1]) + 3] != natural.frame[int(extension.tip[1]) + 3])


def test_the_pattern_keeps_its_period_across_the_free_edge():
    painted, extension = _paint(NailForm(NailShape.SQUARE, NailLength.EXTRA_LONG))
    assert extension is not None
    column = painted.frame[:, 200].astype(np.float32).mean(axis=1)
    bright = column > 150.0
    starts = [y for y in range(int(extension.tip[1]) + 4, 250) if bright[y] and not bright[y - 1]]
    periods = np.diff(starts)
    # the texture's 16-row period maps onto the nail's 50 px, so stripes repeat every 50·16/64 = 12.5 px, above the
    # free edge (y < 200) as below it
    assert len(starts) >= 6
    assert any(y < 195 for y in starts) and any(y > 205 for y in starts)
    assert periods.min() >= 11 and periods.max() <= 14


def test_the_natural_free_edge_is_hidden_under_the_extension():
    natural, _ = _paint(NailForm(), np.full((40, 30, 3), (40, 40, 200), np.uint8))
    long, _ = _paint(NailForm(NailShape.SQUARE, NailLength.LONG), np.full((40, 30, 3), (40, 40, 200), np.uint8))
    # the rounded free edge's corners (skin beside the nail's tip) are painted once extended
    corner = (slice(200, 206), slice(186, 189))
    assert natural.frame[corner][..., 2].mean() > 150  # bare skin in the natural paint
    assert long.frame[corner][..., 0].mean() < 100 and long.frame[corner][..., 2].mean() > 120  # polish


def test_a_soft_shadow_falls_below_the_extension_only():
    painted, extension = _paint(NailForm(NailShape.STILETTO, NailLength.EXTRA_LONG),
                                np.full((40, 30, 3), (40, 40, 200), np.uint8))
    assert extension is not None
    scene = _scene().astype(np.int32)
    darker = (scene - painted.frame.astype(np.int32)).sum(axis=2)
    outside = _in_frame(extension.alpha, extension.roi) < 0.05
    shaded = darker[outside & (_in_frame(extension.shadow, extension.roi) > 0.1)]
    assert shaded.size > 20 and shaded.min() > 0  # darkened, not painted
    assert np.all(painted.frame[:, :150] == _scene()[:, :150])  # far from the nail nothing changes


# --- the pipeline, on the demo video's hands ----------------------------------------------------------------


@pytest.mark.slow
def test_on_the_demo_hands_every_painted_nail_is_extended_and_coverage_stays_natural():
    from nailmirror_desktop.core.paths import resources_dir
    from nailmirror_desktop.vision.pipeline import TryOnPipeline
    from nailmirror_desktop.vision.sources.readers import VideoFileSource

    with VideoFileSource(resources_dir() / "demo" / "hand_demo.mp4") as source:
        frame = source.read()
    assert frame is not None
    with TryOnPipeline(Compositor(_stripes())) as pipeline:
        tracked = pipeline.track_video_frame(frame.image, 0)
        assert len(tracked.hands) == 2
        results = {}
        for length in NailLength:
            pipeline.reset_tracking()
            pipeline.nail_form = NailForm(NailShape.ALMOND, length)
            results[length] = pipeline.paint_video_frame(tracked, want_coverage=True)
    natural = results[NailLength.NATURAL]
    assert natural.extensions is None and natural.coverage is not None
    painted = [i for i, quad in enumerate(natural.quads) if quad.opacity > 0]
    assert {natural.quads[i].hand_index for i in painted} == {0, 1}
    for length, result in results.items():
        np.testing.assert_array_equal(result.coverage, natural.coverage)
        if length is NailLength.NATURAL:
            continue
        assert result.extensions is not None
        for i in painted:
            extension = result.extensions[i]
            assert extension is not None, (length, natural.quads[i].finger, natural.quads[i].hand_index)
        assert np.count_nonzero(np.any(result.frame != natural.frame, axis=2)) > 0


def _blocked_everywhere(capsules: list[Capsule], roi: Roi) -> np.ndarray:
    """What `_blocked` paints when it skips nothing: every capsule drawn, however far from the ROI."""
    canvas = np.zeros((roi.height, roi.width), np.uint8)
    for capsule in capsules:
        local = np.round((capsule.points - (roi.x0 + 0.5, roi.y0 + 0.5)) * 16.0).astype(np.int32)
        for start, end in zip(local[:-1], local[1:], strict=True):
            cv2.line(canvas, (int(start[0]), int(start[1])), (int(end[0]), int(end[1])), 255,
                     max(1, round(2.0 * capsule.radius)), lineType=cv2.LINE_AA, shift=4)
    return np.asarray(canvas, np.float32) * np.float32(1.0 / 255.0)


def test_skipping_the_capsules_beyond_the_roi_paints_the_same_pixels():
    """_blocked skips a finger by its capsule's box (made once per frame): exactly the pixels of drawing all."""
    from nailmirror_desktop.vision.nails.extension import _blocked

    roi = Roi(100, 80, 160, 170)
    capsules = []
    for offset in np.linspace(-12.0, 12.0, 49):  # fingers grazing every side of the ROI, inside and outside it
        for radius in (3.0, 6.5):
            capsules.append(Capsule(0, Finger.RING, np.array([[roi.x0 - radius + offset, 60.0],
                                                              [roi.x0 - radius + offset, 190.0]]), radius))
            capsules.append(Capsule(0, Finger.RING, np.array([[80.0, roi.y1 + radius + offset],
                                                              [180.0, roi.y1 + radius + offset]]), radius))
            capsules.append(Capsule(1, Finger.INDEX, np.array([[roi.x1 + radius + offset, 40.0],
                                                               [roi.x1 + radius + offset + 5.0, 120.0],
                                                               [roi.x1 + radius + offset + 9.0, 200.0]]), radius))
    for capsule in capsules:
        expected = _blocked_everywhere([capsule], roi)
        np.testing.assert_array_equal(_blocked([capsule], roi), expected)
    assert capsules[0].reach == (roi.x0 - 12.0 - 6.0 - 2.0, 55.0, roi.x0 - 12.0 + 2.0, 195.0)
