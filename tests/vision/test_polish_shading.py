"""How polish takes the light, through the compositor on synthetic nails whose truth is known: an opaque crème
hides the lunula and a jelly does not, matte has no specular, chrome / cat-eye / glitter differ measurably,
the French tip sits at the free edge and the half-moon at the cuticle, the edge is anti-aliased."""

from __future__ import annotations

import cv2
import numpy as np

from nailmirror_desktop.vision.nails.nail_refiner import NailMask
from nailmirror_desktop.vision.nails.warp import Roi
from nailmirror_desktop.vision.paint.compositor import Compositor, coverage_mask
from nailmirror_desktop.vision.paint.polish import Band, NailLook, finish_named, look_for_finish
from nailmirror_desktop.vision.types import Finger, NailQuad

FLAT = np.zeros((8, 8, 3), np.uint8)  # unused by laid-out looks; the compositor wants a texture
ROSE = (90, 60, 200)  # BGR
# an upright nail: free edge at the top (y 200), cuticle at the bottom (y 300), 60 px wide
X0, X1, Y_TIP, Y_BASE = 300, 360, 200, 300
UPRIGHT = np.array([[X0, Y_TIP], [X1, Y_TIP], [X1, Y_BASE], [X0, Y_BASE]], np.float32)


def _quad(corners=UPRIGHT) -> NailQuad:
    return NailQuad(Finger.INDEX, np.asarray(corners, np.float32), 0)


def _bare_nail(lunula: float = 0.0, highlight: float = 0.0) -> np.ndarray:
    """A 480×640 frame: skin, a pink nail plate in UPRIGHT, optionally a whiter lunula at its base and a
    bright specular line down its middle."""
    frame = np.zeros((480, 640, 3), np.float32)
    frame[:] = (140, 160, 205)
    frame[Y_TIP:Y_BASE, X0:X1] = (165, 172, 215)
    if lunula:
        moon = np.zeros((480, 640), np.float32)
        cv2.ellipse(moon, ((X0 + X1) // 2, Y_BASE), (24, 26), 0, 0, 360, 1.0, -1)
        moon = cv2.GaussianBlur(moon, (0, 0), 2.0)[..., None]
        frame += moon * lunula
    if highlight:
        cv2.line(frame, (322, 225), (324, 270), (255, 255, 255), 3)
    rng = np.random.default_rng(1)
    frame += rng.normal(0, 2, frame.shape).astype(np.float32)
    return np.clip(frame, 0, 255).astype(np.uint8)


def _paint(frame: np.ndarray, look: NailLook, quads: list[NailQuad] | None = None,
           masks: list[NailMask | None] | None = None) -> tuple[np.ndarray, np.ndarray]:
    result = Compositor(FLAT, look=look).composite(frame, quads or [_quad()], want_coverage=True, masks=masks)
    assert result.coverage is not None
    return result.frame, result.coverage


def _luma(image: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float64)


# regions of the nail at the same distance from its axis (so curvature and streak do not differ), one over
# the lunula and one mid-nail
LUNULA = (slice(285, 295), slice(335, 345))
MID_NAIL = (slice(240, 250), slice(335, 345))


def test_an_opaque_creme_hides_the_lunula_and_a_jelly_does_not():
    frame = _bare_nail(lunula=60.0)
    bare = _luma(frame)
    assert bare[LUNULA].mean() - bare[MID_NAIL].mean() > 40  # the scene has a lunula

    creme, _ = _paint(frame, look_for_finish("gloss", ROSE))
    jelly, _ = _paint(frame, look_for_finish("jelly", ROSE))
    creme_gap = abs(_luma(creme)[LUNULA].mean() - _luma(creme)[MID_NAIL].mean())
    jelly_gap = _luma(jelly)[LUNULA].mean() - _luma(jelly)[MID_NAIL].mean()
    assert creme_gap < 6, creme_gap
    assert jelly_gap > 15, jelly_gap


def test_an_opaque_creme_hides_the_nails_own_colour():
    # the same polish on a pink and on a green nail of the same brightness comes out the same colour
    pink, green = _bare_nail(), _bare_nail()
    green[Y_TIP:Y_BASE, X0:X1] = (120, 185, 140)
    painted_pink, cover = _paint(pink, look_for_finish("gloss", ROSE))
    painted_green, _ = _paint(green, look_for_finish("gloss", ROSE))
    inside = cover > 0
    difference = np.abs(painted_pink[inside].astype(float) - painted_green[inside].astype(float)).mean(axis=0)
    assert difference.max() < 8, difference


def test_matte_has_no_specular_and_gloss_has():
    frame = _bare_nail(highlight=1.0)
    matte, cover = _paint(frame, look_for_finish("matte", ROSE))
    gloss, _ = _paint(frame, look_for_finish("gloss", ROSE))
    inner = cv2.erode(cover, np.ones((5, 5), np.uint8)) > 0

    def peak(image: np.ndarray) -> float:
        luma = _luma(image)[inner]
        return float(np.percentile(luma, 99.5) - np.median(luma))

    assert peak(matte) < 12, peak(matte)
    assert peak(gloss) > 40, peak(gloss)


def test_chrome_cat_eye_and_glitter_differ_measurably():
    frame = _bare_nail()
    renders = {name: _paint(frame, look_for_finish(name, ROSE))[0]
               for name in ("gloss", "chrome", "cat_eye", "glitter")}
    cover = coverage_mask([_quad()], frame.shape)
    inner = cv2.erode(cover, np.ones((5, 5), np.uint8)) > 0
    rows = slice(230, 270)

    def across(image: np.ndarray) -> np.ndarray:  # mean luma of each column across the middle of the nail
        return _luma(image)[rows, X0 + 4:X1 - 4].mean(axis=0)

    def grain(image: np.ndarray) -> float:  # fine detail: mean |Laplacian| inside the nail
        return float(np.abs(cv2.Laplacian(_luma(image), cv2.CV_64F))[inner].mean())

    # chrome: a mirror, bright and dark bands across the nail — far more contrast across than a crème
    assert np.ptp(across(renders["chrome"])) > 1.5 * np.ptp(across(renders["gloss"]))
    # cat-eye: a dark base with one bright line — darker overall, its brightest column far above its median
    cat = across(renders["cat_eye"])
    assert np.median(cat) < np.median(across(renders["gloss"])) - 25
    assert cat.max() > np.median(cat) + 40
    # glitter: sparkles, many times the fine detail of a crème
    assert grain(renders["glitter"]) > 3 * grain(renders["gloss"])
    names = ["gloss", "chrome", "cat_eye"]  # (glitter's sparkles are sparse: its grain tells it apart)
    for i, first in enumerate(names):
        for second in names[i + 1:]:
            gap = np.abs(renders[first][inner].astype(float) - renders[second][inner].astype(float)).mean()
            assert gap > 8, (first, second, gap)


def _rows_with(image: np.ndarray, cover: np.ndarray, test) -> np.ndarray:
    """The frame rows where most covered pixels of the nail's centre columns pass `test` (a BGR → bool)."""
    centre = slice(X0 + 15, X1 - 15)
    hits = test(image[:, centre].astype(int)) & (cover[:, centre] > 0)
    counted = (cover[:, centre] > 0).sum(axis=1)
    return np.nonzero((counted > 0) & (hits.sum(axis=1) > 0.6 * np.maximum(counted, 1)))[0]


def _white(bgr: np.ndarray) -> np.ndarray:
    return (bgr.min(axis=-1) > 200) & (bgr.max(axis=-1) - bgr.min(axis=-1) < 40)


def _burgundy(bgr: np.ndarray) -> np.ndarray:
    return (bgr[..., 2] > bgr[..., 1] + 30) & (bgr.sum(axis=-1) < 300)


def _short_mask() -> NailMask:
    """A mask of the lower two thirds of UPRIGHT only (the found nail stops short of the quad's top)."""
    roi = Roi(X0 - 2, Y_TIP - 2, X1 + 2, Y_BASE + 2)
    alpha = np.zeros((roi.height, roi.width), np.float32)
    cv2.ellipse(alpha, (30 + 2, 100 + 2 - 34), (28, 34), 0, 180, 360, 1.0, -1)
    alpha[100 + 2 - 34:100 + 2 - 4, 2 + 2:60] = 1.0
    cv2.ellipse(alpha, (30 + 2, 100 + 2 - 4), (27, 4), 0, 0, 180, 1.0, -1)
    return NailMask(_quad(), roi, alpha, True)


def test_french_tip_sits_at_the_free_edge_of_what_is_painted():
    french = NailLook(finish_named("gloss"), (170, 185, 236), tip=Band((245, 247, 250), 0.2))
    for masks in (None, [_short_mask()]):
        image, cover = _paint(_bare_nail(), french, masks=masks)
        painted_rows = np.nonzero(cover[:, (X0 + X1) // 2])[0]
        top, bottom = painted_rows.min(), painted_rows.max()
        white = _rows_with(image, cover, _white)
        assert len(white) > 0
        length = bottom - top
        assert white.min() <= top + 3, (white.min(), top)  # the tip starts at the painted free edge …
        assert white.max() < top + 0.35 * length  # … and stays within its third of the nail
        assert not len(_rows_with(image, cover, _white)[_rows_with(image, cover, _white) > top + 0.5 * length])


def test_half_moon_sits_at_the_cuticle_of_what_is_painted():
    moon = NailLook(finish_named("gloss"), (180, 188, 232), moon=Band((40, 18, 112), 0.3))
    for masks in (None, [_short_mask()]):
        image, cover = _paint(_bare_nail(), moon, masks=masks)
        painted_rows = np.nonzero(cover[:, (X0 + X1) // 2])[0]
        top, bottom = painted_rows.min(), painted_rows.max()
        length = bottom - top
        dark = _rows_with(image, cover, _burgundy)
        assert len(dark) > 0
        assert dark.max() >= bottom - 3  # the moon sits on the cuticle …
        assert dark.min() > top + 0.55 * length  # … and rises less than half the nail towards the tip


def test_the_edge_is_anti_aliased_and_follows_the_mask():
    grey = np.full((480, 640, 3), 128, np.uint8)
    look = look_for_finish("matte", (0, 0, 230))
    hard = (_short_mask().alpha >= 0.5).astype(np.float32)  # a segmenter's 0/1 mask
    hard_mask = NailMask(_quad(), _short_mask().roi, hard, True)
    for masks in (None, [hard_mask]):
        image, cover = _paint(grey, look, masks=masks)
        redness = image[..., 2].astype(float) - image[..., 1].astype(float)
        full = np.median(redness[cover > 0])
        fraction = redness / full
        edge = cv2.dilate(cover, np.ones((3, 3), np.uint8)) - cv2.erode(cover, np.ones((3, 3), np.uint8)) > 0
        partial = (fraction > 0.1) & (fraction < 0.85)
        # in-between pixels exist, and only along the outline: an anti-aliased edge, not a staircase
        assert partial.sum() > 0.3 * edge.sum(), (partial.sum(), edge.sum())
        assert not (partial & ~cv2.dilate(edge.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)).any()
        # what the coverage says is what is painted: at least half-way inside, less than half-way outside
        assert fraction[cover > 0].min() > 0.4
        assert fraction[cover == 0].max() < 0.6


def _upright_at(x0: int, width: int = 60, y_tip: int = Y_TIP, length: int = 100) -> np.ndarray:
    return np.array([[x0, y_tip], [x0 + width, y_tip], [x0 + width, y_tip + length], [x0, y_tip + length]],
                    np.float32)


def _brightest_column(image: np.ndarray, x0: int, width: int = 60) -> float:
    """Where across the nail (0…1) the middle rows are brightest."""
    luma = _luma(image)[230:270, x0 + 3:x0 + width - 3].mean(axis=0)
    return (3 + float(np.argmax(luma))) / width


def test_the_highlight_and_the_cat_eye_band_move_with_the_finger():
    frame = np.zeros((480, 640, 3), np.uint8)
    frame[:] = (165, 172, 215)  # the nail's colour everywhere: only the paint's light differs
    for finish in ("gloss", "cat_eye"):
        places = []
        for x0 in (40, 540):  # the same nail on the left and on the right of the mirror
            painted, _ = _paint(frame, look_for_finish(finish, ROSE), [_quad(_upright_at(x0))])
            places.append(_brightest_column(painted, x0))
        assert places[0] - places[1] > 0.08, (finish, places)
    # turned: a nail leaning right has its cat-eye band slanted, a nail leaning left the other way
    from nailmirror_desktop.vision.paint.polish_shading import nail_lean

    assert nail_lean(_upright_at(290), 640) == 0.0
    turned = cv2.transform(_upright_at(290)[None], cv2.getRotationMatrix2D((320, 250), -30, 1.0))[0]
    assert nail_lean(turned, 640) > 0.3


def test_a_cat_eye_band_and_glitter_show_no_pixel_steps_on_a_large_nail():
    frame = np.zeros((480, 640, 3), np.uint8)
    frame[:] = (165, 172, 215)
    big = _quad(np.array([[170, 40], [470, 40], [470, 440], [170, 440]], np.float32))  # 300 × 400 px
    inner = cv2.erode(coverage_mask([big], frame.shape), np.ones((9, 9), np.uint8)) > 0

    def steps(image: np.ndarray) -> float:  # pixels where the luma jumps by a step, not a gradient
        luma = _luma(image)
        jump = np.maximum(np.abs(np.diff(luma, axis=0))[:, :-1], np.abs(np.diff(luma, axis=1))[:-1])
        return float((jump[inner[:-1, :-1]] > 6).mean())

    gloss, _ = _paint(frame, look_for_finish("gloss", ROSE), [big])
    cat, _ = _paint(frame, look_for_finish("cat_eye", ROSE), [big])
    assert steps(cat) <= steps(gloss) + 0.01, (steps(cat), steps(gloss))
    glitter, _ = _paint(frame, look_for_finish("glitter", ROSE), [big])
    luma = _luma(glitter)
    flakes = (luma - cv2.medianBlur(luma.astype(np.uint8), 15)) > 25
    count, _, stats, _ = cv2.connectedComponentsWithStats(flakes.astype(np.uint8) & inner.astype(np.uint8))
    boxes = stats[1:count]
    assert len(boxes) > 20
    # round flakes: a square cell filled edge to edge would fill its bounding box; a disc fills ~π/4 of it
    fill = boxes[:, cv2.CC_STAT_AREA] / (boxes[:, cv2.CC_STAT_WIDTH] * boxes[:, cv2.CC_STAT_HEIGHT])
    assert np.median(fill[boxes[:, cv2.CC_STAT_AREA] > 30]) < 0.9
