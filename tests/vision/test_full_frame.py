"""The full-frame nail model: the still path's fallback where no hand is found (vision/nails/full_frame.py)."""

import hashlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from nailmirror_desktop.core.model_version import FULL_FRAME_SHA256
from nailmirror_desktop.vision.nails import full_frame
from nailmirror_desktop.vision.nails.full_frame import (
    FullFrameModel,
    FullFrameModelError,
    letterbox_transform,
    nails_from_probability,
    oriented_quad,
)
from nailmirror_desktop.vision.nails.nail_refiner import NailMask
from nailmirror_desktop.vision.nails.warp import Roi
from nailmirror_desktop.vision.paint.style_textures import load_style
from nailmirror_desktop.vision.pipeline import TryOnPipeline
from nailmirror_desktop.vision.types import Finger, NailQuad

MODEL = full_frame.default_model_path()
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
# A fingertip close-up cut from a nails_eval photo by tools/make_closeups.py (its crop box x0, y0, x1, y1): three
# nails, no palm, and the still detector finds no hand in it. The shipped model saw it in training: this checks the
# path paints, the model card's figures are the out-of-sample ones.
CLOSEUP_SOURCE = "d61d6de4-db67-11e8-9658-0242ac1c0002.jpg"
CLOSEUP_BOX = (189, 0, 706, 425)
HAND_PHOTO = "2C29D473-CCB4-458C-926B-99D0042161E6.jpg"


def _finger_image(tip_up: bool = True) -> tuple[np.ndarray, NailMask]:
    """A skin finger entering from the bottom edge (or, rotated, from the right) with a pale nail near its end,
    on a dark table; the nail's mask as the model's would be."""
    image = np.full((200, 200, 3), (40, 45, 50), np.uint8)
    cv2.rectangle(image, (80, 60), (120, 199), (130, 160, 205), -1)
    cv2.ellipse(image, (100, 60), (20, 20), 0, 180, 360, (130, 160, 205), -1)
    nail = np.zeros((200, 200), np.uint8)
    cv2.ellipse(nail, ((100, 72), (28, 40), 0), 255, -1)
    image[nail > 0] = (190, 200, 230)
    if not tip_up:
        image, nail = np.ascontiguousarray(np.rot90(image)), np.ascontiguousarray(np.rot90(nail))
    ys, xs = np.nonzero(nail)
    roi = Roi(int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)
    alpha = (nail[roi.slices] > 0).astype(np.float32)
    return image, NailMask(NailQuad(Finger.MIDDLE, np.zeros((4, 2), np.float32), 0), roi, alpha, True)


def test_shipped_model_is_the_verified_build():
    assert full_frame.verify_model(MODEL) == MODEL


def test_missing_model_is_one_line_naming_the_fix(tmp_path):
    with pytest.raises(FullFrameModelError) as caught:
        FullFrameModel(tmp_path / "nail_full_frame.onnx")
    assert "\n" not in str(caught.value)
    assert "not found" in str(caught.value) and "train_full_frame_model.py" in str(caught.value)


def test_corrupt_model_is_one_line_and_refused_before_onnxruntime_sees_it(tmp_path):
    bad = tmp_path / "nail_full_frame.onnx"
    data = MODEL.read_bytes()
    bad.write_bytes(data[: len(data) // 2])
    with pytest.raises(FullFrameModelError) as caught:
        FullFrameModel(bad)
    assert "\n" not in str(caught.value)
    assert "corrupt or not the verified build" in str(caught.value) and "git checkout" in str(caught.value)


def test_a_file_that_is_not_onnx_gets_the_same_clear_error(tmp_path):
    junk = tmp_path / "nail_full_frame.onnx"
    junk.write_bytes(b"this is not an onnx graph")
    with pytest.raises(FullFrameModelError, match="cannot be loaded.*git checkout"):
        FullFrameModel(junk, expected_sha256=hashlib.sha256(junk.read_bytes()).hexdigest())


def test_model_card_names_the_shipped_checksum():
    card = (ROOT / "models" / "NAIL_SEGMENTER_CARD.md").read_text(encoding="utf-8")
    assert "## Full-frame fallback" in card and FULL_FRAME_SHA256 in card


def test_the_letterbox_maps_the_photo_edges_onto_the_grid_edges():
    for shape in ((100, 200, 3), (300, 120, 3), (96, 96, 3)):
        x0, y0, width, height, to_frame = letterbox_transform(shape, 96)
        h, w = shape[:2]
        first = to_frame @ [x0 - 0.5, y0 - 0.5, 1.0]
        last = to_frame @ [x0 + width - 0.5, y0 + height - 0.5, 1.0]
        assert np.allclose(first[:2], [-0.5, -0.5]) and np.allclose(last[:2], [w - 0.5, h - 0.5])


def test_the_quad_lies_along_the_nail_with_its_tip_away_from_the_finger():
    image, mask = _finger_image(tip_up=True)
    quad = oriented_quad(mask, image)
    assert quad is not None
    tip_y, base_y = quad.corners[:2, 1].mean(), quad.corners[2:, 1].mean()
    assert tip_y < base_y - 20  # tip edge above the cuticle edge: the finger comes from below
    # the rotated finger comes from the right: its tip points left
    image, mask = _finger_image(tip_up=False)
    quad = oriented_quad(mask, image)
    assert quad is not None
    assert quad.corners[:2, 0].mean() < quad.corners[2:, 0].mean() - 20


def test_each_component_of_the_map_becomes_one_painted_nail_where_it_is():
    image = np.full((200, 300, 3), (130, 160, 205), np.uint8)  # skin all round: each is on a finger
    prob = np.zeros((96, 96), np.float32)
    prob[30:40, 20:28] = 0.95  # grid pixels; the photo is letterboxed with rows 16..79 on it
    prob[50:62, 60:70] = 0.9
    prob[70, 90] = 0.99  # a speck: no nail
    quads, masks = nails_from_probability(prob, image, 0.5)
    assert len(quads) == len(masks) == 2
    _, _, _, _, to_frame = letterbox_transform(image.shape, 96)
    for (gx, gy), mask in zip(((23.5, 34.5), (64.5, 55.5)), masks, strict=True):
        x, y, _ = to_frame @ [gx, gy, 1.0]
        assert mask is not None and mask.alpha[int(y) - mask.roi.y0, int(x) - mask.roi.x0] >= 0.5


# --- real photos (../shared/data) --------------------------------------------------------------------------------

def _closeup(nails_eval_dir: Path) -> tuple[np.ndarray, np.ndarray]:
    x0, y0, x1, y1 = CLOSEUP_BOX
    image = cv2.imread(str(nails_eval_dir / "images" / CLOSEUP_SOURCE), cv2.IMREAD_COLOR)
    truth = cv2.imread(str(nails_eval_dir / "masks" / f"{Path(CLOSEUP_SOURCE).stem}.png"), cv2.IMREAD_GRAYSCALE)
    return np.ascontiguousarray(image[y0:y1, x0:x1]), truth[y0:y1, x0:x1]


@pytest.fixture(scope="module")
def style():
    return load_style(ROOT / "resources" / "demo" / "styles" / "french_tip")


@pytest.mark.slow
def test_a_close_up_with_no_palm_is_painted_where_its_nails_are(nails_eval_dir, style):
    image, truth = _closeup(nails_eval_dir)
    with TryOnPipeline(style.compositor()) as pipeline:
        result = pipeline.process_still(image)
        without = TryOnPipeline(style.compositor(), full_frame=False)
        bare = without.process_still(image)
        without.close()
    assert result.hands == [] and result.coverage is not None
    assert bare.quads == [] and not np.any(bare.coverage)  # without the fallback nothing is painted
    painted, nails = result.coverage > 0, truth > 0
    assert len(result.quads) >= 2
    assert np.count_nonzero(painted & nails) / np.count_nonzero(painted) >= 0.7  # the paint is on nails
    count, labels = cv2.connectedComponents(nails.astype(np.uint8))
    covered = [np.count_nonzero(painted[labels == k]) / np.count_nonzero(labels == k) for k in range(1, count)]
    assert sum(c >= 0.5 for c in covered) >= 2  # most of its nails are painted
    ARTIFACTS.mkdir(exist_ok=True)
    cv2.imwrite(str(ARTIFACTS / "full_frame_closeup.png"), np.hstack([image, result.frame]))


@pytest.mark.slow
def test_a_photo_with_a_hand_never_runs_the_fallback(nails_eval_dir, tmp_path, style):
    corrupt = tmp_path / "nail_full_frame.onnx"
    corrupt.write_bytes(MODEL.read_bytes()[:1000])
    photo = cv2.imread(str(nails_eval_dir / "images" / HAND_PHOTO), cv2.IMREAD_COLOR)
    with TryOnPipeline(style.compositor(), full_frame_path=corrupt) as pipeline:
        result = pipeline.process_still(photo)  # the corrupt fallback would raise if it were opened
        assert result.hands and any(q.opacity > 0 for q in result.quads)
        close_up, _ = _closeup(nails_eval_dir)
        with pytest.raises(FullFrameModelError):  # ...as it does on the close-up, where no hand is found
            pipeline.process_still(close_up)


def test_a_nail_shaped_blob_with_no_finger_past_either_end_is_not_painted():
    image = np.full((200, 300, 3), (150, 150, 150), np.uint8)  # a grey counter-top: no skin anywhere
    prob = np.zeros((96, 96), np.float32)
    prob[30:42, 40:50] = 0.95
    assert nails_from_probability(prob, image, 0.5) == ([], [])


@pytest.mark.slow
def test_eval_scores_what_the_still_path_paints_on_a_close_up(nails_eval_dir):
    from nailmirror_desktop.vision.evaluation.photos import landmark_painter
    from nailmirror_desktop.vision.tracking.still_detection import StillHandDetector

    image, truth = _closeup(nails_eval_dir)
    with StillHandDetector() as detector:
        painted, detected = landmark_painter(detector)(image)
        bare, found = landmark_painter(detector, full_frame=False)(image)
    assert detected and np.count_nonzero((painted > 0) & (truth > 0)) > 0.5 * np.count_nonzero(painted)
    assert not found and not bare.any()


@pytest.mark.slow
def test_video_frames_with_no_hand_tracked_are_painted_by_the_checked_fallback(nails_eval_dir, style):
    image, truth = _closeup(nails_eval_dir)
    frames = [image.copy() for _ in range(6)]  # a fingertip close-up held under the camera
    with TryOnPipeline(style.compositor()) as pipeline:  # the product's default: on in video
        results = [pipeline.process_video_frame(frame, 33 * i, want_coverage=True) for i, frame in enumerate(frames)]
    with TryOnPipeline(style.compositor(), video_full_frame=False) as pipeline:
        bare = [pipeline.process_video_frame(frame, 33 * i, want_coverage=True) for i, frame in enumerate(frames)]
    no_hand = [i for i, result in enumerate(results) if not result.hands]
    assert no_hand  # the landmarkers hold no hand on a close-up with no palm
    nails = truth > 0
    for i in no_hand:
        painted = results[i].coverage > 0
        assert len(results[i].quads) >= 2 and all(q.opacity > 0 for q in results[i].quads)
        assert np.count_nonzero(painted & nails) / np.count_nonzero(painted) >= 0.7  # on the nails
        if not bare[i].hands:
            assert not bare[i].coverage.any()  # without the fallback that frame is bare


class _CountingModel(FullFrameModel):
    """The real bundled model, noting each frame it is asked to look at."""

    def __init__(self) -> None:
        super().__init__()
        self.looked = 0

    def nails(self, image):
        self.looked += 1
        return super().nails(image)


@pytest.mark.slow
def test_video_asks_the_full_frame_model_only_where_nails_may_be_missing(nails_eval_dir, style):
    from nailmirror_desktop.vision.nails.nail_tracks import HOLD_FRAMES
    from nailmirror_desktop.vision.pipeline import FINGERS

    photo = cv2.imread(str(nails_eval_dir / "images" / HAND_PHOTO), cv2.IMREAD_COLOR)
    counter = np.full_like(photo, (40, 45, 50))  # the hand leaves: an empty counter
    model = _CountingModel()
    looked, helds = [], []
    with TryOnPipeline(style.compositor(), full_frame_model=model) as pipeline:
        for i, frame in enumerate([photo] * 6 + [counter] * (HOLD_FRAMES + 4)):
            before = model.looked
            result = pipeline.process_video_frame(frame.copy(), 33 * i, want_coverage=True)
            looked.append(model.looked > before)
            on_hands = sum(1 for q in result.quads if q.opacity > 0 and q.hand_index < len(result.hands))
            if result.hands:  # a hand: only while it paints fewer nails than it has fingers
                assert looked[-1] == (on_hands < FINGERS * len(result.hands)), i
            else:  # no hand: while fewer nails than a hand's are held (none: the fallback alone paints)
                assert looked[-1] == (result.held < FINGERS), i
            helds.append(result.held)
    assert helds[6] >= FINGERS and not looked[6]  # the hands left: their nails held, no look
    assert looked[-1] and helds[-1] == 0  # then the counter looked at
    assert not result.quads and not result.coverage.any()  # and nothing found on it


@pytest.mark.slow
def test_a_broken_full_frame_model_is_turned_off_with_one_warning_and_the_mirror_goes_on(
        nails_eval_dir, tmp_path, style, caplog):
    corrupt = tmp_path / "nail_full_frame.onnx"
    corrupt.write_bytes(MODEL.read_bytes()[:1000])
    photo = cv2.imread(str(nails_eval_dir / "images" / HAND_PHOTO), cv2.IMREAD_COLOR)
    counter = np.full_like(photo, (40, 45, 50))
    frames = [counter] * 3 + [photo] * 4 + [counter] * 3
    with TryOnPipeline(style.compositor(), full_frame_path=corrupt) as pipeline, caplog.at_level("WARNING"):
        results = [pipeline.process_video_frame(frame.copy(), 33 * i, want_coverage=True)
                   for i, frame in enumerate(frames)]
    assert caplog.text.count("the full-frame fallback is off for video") == 1
    assert not results[2].coverage.any()  # the empty counter: nothing, and no error
    assert results[6].hands and any(q.opacity > 0 for q in results[6].quads)  # the hand's own nails still painted


def _proposal(image: np.ndarray, mask: NailMask) -> tuple[NailQuad, NailMask]:
    quad = oriented_quad(mask, image)
    assert quad is not None
    return quad, NailMask(quad, mask.roi, mask.alpha, mask.refined)


def test_the_check_keeps_a_nail_both_models_outline_alike_and_paints_the_segmenters_mask():
    from nailmirror_desktop.vision.nails.full_frame_check import AGREEMENT, agreement, checked_nails
    from nailmirror_desktop.vision.nails.nail_segmenter import bundled_segmenter

    segmenter = bundled_segmenter()
    for tip_up in (True, False):
        image, nail = _finger_image(tip_up)
        quad, proposal = _proposal(image, nail)
        quads, masks = checked_nails(image, [quad], [proposal], segmenter)
        assert quads == [quad] and masks[0] is not None
        assert masks[0] is not proposal and agreement(proposal, masks[0]) >= AGREEMENT  # the segmenter's own mask


def test_the_check_drops_an_outline_the_segmenter_does_not_draw_unless_it_painted_that_nail_the_frame_before():
    from nailmirror_desktop.vision.nails.full_frame_check import agreement, checked_nails
    from nailmirror_desktop.vision.nails.nail_segmenter import bundled_segmenter

    segmenter = bundled_segmenter()
    image, nail = _finger_image()
    whole_quad, whole = _proposal(image, nail)
    _, before = checked_nails(image, [whole_quad], [whole], segmenter)  # the nail as the last frame painted it
    # the full-frame model's outline is a sliver along the nail's side: the segmenter, asked there, draws the whole
    # nail, and the two outlines do not agree
    sliver = np.zeros_like(nail.alpha)
    sliver[:, : max(3, nail.alpha.shape[1] // 5)] = nail.alpha[:, : max(3, nail.alpha.shape[1] // 5)]
    quad, proposal = _proposal(image, NailMask(nail.quad, nail.roi, sliver, True))
    assert checked_nails(image, [quad], [proposal], segmenter) == ([], [])
    # the same sliver while that nail was painted on the last video frame: it stays painted
    held_quads, held_masks = checked_nails(image, [quad], [proposal], segmenter, held=[m for m in before if m])
    assert held_quads == [quad] and held_masks[0] is not None
    assert agreement(held_masks[0], before[0]) > 0.5


def test_a_nail_the_model_stops_proposing_is_carried_a_few_frames_while_the_segmenter_still_finds_it():
    from nailmirror_desktop.vision.nails.full_frame_check import (
        CARRY_FRAMES,
        FallbackNail,
        carried_nails,
        checked_nails,
    )
    from nailmirror_desktop.vision.nails.nail_segmenter import bundled_segmenter

    segmenter = bundled_segmenter()
    image, nail = _finger_image()
    quad, proposal = _proposal(image, nail)
    _, masks = checked_nails(image, [quad], [proposal], segmenter)
    before = [FallbackNail(masks[0])]  # painted last frame; this frame the full-frame model proposes nothing
    carried = carried_nails(image, before, [], segmenter)
    assert len(carried) == 1 and carried[0].unproposed == 1
    # not past CARRY_FRAMES frames with no proposal, and not where this frame's checked nails already paint it
    assert carried_nails(image, [FallbackNail(masks[0], CARRY_FRAMES)], [], segmenter) == []
    assert carried_nails(image, before, masks, segmenter) == []
    # the finger left: nothing is found where the nail was, and nothing is carried
    empty = np.full_like(image, (40, 45, 50))
    assert carried_nails(empty, before, [], segmenter) == []
