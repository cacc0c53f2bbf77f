"""The phone's picture (adapters/share/share_image.py): 1080×1350, the painted hands close up before and after,
stacked or side by side by the crop's shape, and the style's words in the CJK font. Written to
test-artifacts/share/ for a person to look at."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from nailmirror_desktop.adapters.share import share_image
from nailmirror_desktop.adapters.share.share_image import SIZE, ShareText, compose, layout_for, share_jpeg
from nailmirror_desktop.vision.paint.framing import Box

ROOT = Path(__file__).resolve().parents[3]
ARTIFACTS = ROOT / "test-artifacts" / "share"
TEXT = ShareText("酒红半月", "款号 NM-FRE-005", "¥128", "指尖魔镜 · 静安店", "上色前", "上色后", "请把这张图给美甲师看")


def frames(box: Box) -> tuple[np.ndarray, np.ndarray]:
    """A 1280×720 room (a gradient) with a pale 'hand' in `box`; the after has red 'nails' on it."""
    gradient = np.linspace(60, 200, 1280, dtype=np.float32)
    before = np.repeat(np.repeat(gradient[None, :, None], 720, 0), 3, 2).astype(np.uint8)
    before[box.top:box.bottom, box.left:box.right] = (150, 180, 230)
    after = before.copy()
    for i in range(5):
        x = box.left + 10 + i * (box.width - 20) // 5
        after[box.top + 10:box.top + 40, x:x + 20] = (40, 30, 200)
    return before, after


def test_a_wide_crop_is_stacked_and_fills_its_panels_with_the_hands():
    box = Box(400, 250, 1000, 450)  # two hands side by side
    before, after = frames(box)
    picture = compose(before, after, box, TEXT)
    assert picture.shape == (SIZE[1], SIZE[0], 3)
    layout = layout_for(box.aspect)
    assert layout.stacked and layout.before.bottom < layout.after.top
    for place in (layout.before, layout.after):
        inner = picture[place.top + 60:place.bottom - 30, place.left + 30:place.right - 30]
        hand = np.array([150, 180, 230])
        assert (np.abs(inner.astype(int) - hand).max(axis=2) < 12).mean() > 0.5, "mostly hand, not room"
    red = (picture[..., 2] > 170) & (picture[..., 1] < 70)
    after_panel = red[layout.after.top:layout.after.bottom, layout.after.left:layout.after.right]
    before_panel = red[layout.before.top:layout.before.bottom, layout.before.left:layout.before.right]
    assert after_panel.sum() > 5 * 400 and before_panel.sum() == 0  # the nails, enlarged, on the after only
    _keep("stacked", picture)


def test_a_tall_crop_goes_side_by_side_before_on_the_left():
    box = Box(560, 60, 760, 660)  # one hand, fingers up
    before, after = frames(box)
    picture = compose(before, after, box, TEXT)
    layout = layout_for(box.aspect)
    assert not layout.stacked and layout.before.right < layout.after.left
    red = ((picture[..., 2] > 170) & (picture[..., 1] < 70))[:layout.before.bottom]  # the photos, not the price
    assert red[:, :layout.before.right].sum() == 0 and red[:, layout.after.left:].sum() > 0
    _keep("side_by_side", picture)


def test_the_words_are_drawn_and_a_missing_price_or_store_leaves_its_line_out():
    if share_image._font_file(False) is None:
        pytest.skip("no CJK font on this machine (fonts-noto-cjk)")
    box = Box(400, 250, 1000, 450)
    before, after = frames(box)
    full = compose(before, after, box, TEXT)
    bare = compose(before, after, box, ShareText("酒红半月", "款号 NM-FRE-005", None, None, "上色前", "上色后", ""))
    info_top = layout_for(box.aspect).after.bottom + 10
    ink = (np.abs(full[info_top:].astype(int) - np.array(share_image.PAPER[::-1])).max(axis=2) > 60)
    assert ink.mean() > 0.01, "the style's words under the photos"
    price_red = (full[info_top:, :, 2] > 150) & (full[info_top:, :, 1] < 90)
    assert price_red.sum() > 300 and ((bare[info_top:, :, 2] > 150) & (bare[info_top:, :, 1] < 90)).sum() == 0


def test_no_painted_nails_the_whole_frame_and_the_file_is_a_jpeg(tmp_path):
    box = Box(400, 250, 1000, 450)
    before, after = frames(box)
    cv2.imwrite(str(tmp_path / "x_before.png"), before)
    cv2.imwrite(str(tmp_path / "x_after.png"), after)
    data = share_jpeg(tmp_path / "x_before.png", tmp_path / "x_after.png", None, TEXT,
                      ROOT / "resources" / "starter_catalog" / "NM-FRE-005" / "preview.png")
    image = Image.open(io.BytesIO(data))
    assert image.format == "JPEG" and image.size == SIZE and not image.info.get("exif")
    assert len(data) < 600_000
    with pytest.raises(OSError):
        share_jpeg(tmp_path / "gone_before.png", tmp_path / "x_after.png", None, TEXT)


def _keep(name: str, picture: np.ndarray) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(ARTIFACTS / f"{name}.png"), picture)


def test_the_nail_shape_and_length_get_a_line_of_their_own():
    if share_image._font_file(False) is None:
        pytest.skip("no CJK font on this machine (fonts-noto-cjk)")
    box = Box(400, 250, 1000, 450)
    before, after = frames(box)
    plain = compose(before, after, box, TEXT)
    shaped = compose(before, after, box, replace(TEXT, form="杏仁形 · 中长"))
    info_top = layout_for(box.aspect).after.bottom + 10
    assert np.abs(shaped[info_top:].astype(int) - plain[info_top:]).max() > 100  # words drawn, the rest moved down
    np.testing.assert_array_equal(shaped[:info_top], plain[:info_top])  # the photos untouched
