"""The picture a customer takes home on her phone: her painted hands close up, before and after, with the style's
name, code and price and the store, as one 1080×1350 JPEG.

Why this shape: 4:5 portrait is the tallest picture a phone's photo feed (WeChat Moments, Xiaohongshu, Instagram)
shows whole, and it fills a phone held upright; 1080 px across is what those feeds keep, so nothing is scaled
again on the way. JPEG: a phone saves and posts it as it is (a PNG of a camera frame is 1–2 MB, this ~200 kB).

Layout: the two crops (vision/paint/framing.py: the painted nails and their fingers with a margin) stacked one
above the other when the hands lie side by side (a wide crop), side by side when the crop is tall; "before"
first (top or left), as the kiosk's before/after page reads. Under them the style's picture and its words.
Every word is handed in already translated (ShareText, by the UI in the kiosk's language): Qt stays in ui/.
Text is drawn with Pillow in the CJK font the kiosk itself uses (Noto Sans CJK on Linux, Microsoft YaHei on
Windows, PingFang on macOS); without one the words are left out rather than drawn as empty boxes.
"""

from __future__ import annotations

import io
import logging
import math
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from nailmirror_desktop.vision.paint.framing import Box, fit_aspect
from nailmirror_desktop.vision.sources.image_io import read_image

log = logging.getLogger(__name__)

SIZE = (1080, 1350)  # width, height (see the module's docstring)
JPEG_QUALITY = 88
MARGIN = 40
GAP = 16
INFO_HEIGHT = 300
THUMB = 220  # the style's own picture, square
MAX_ENLARGE = 2.5  # a crop is never enlarged more than this: past it a camera frame's nails turn to mush
RADIUS = 24

PAPER = (247, 241, 244)  # the style card's colours (ui/shell/theme.py, QFrame#styleCard)
INK = (42, 31, 39)
MUTED = (122, 106, 116)
PRICE = (178, 58, 102)
LETTERBOX = (23, 20, 26)

_FONT_FILES = (  # (path, wanted family): the first that opens wins
    ("/usr/share/fonts/opentype/noto/NotoSansCJK-{weight}.ttc", "Noto Sans CJK SC"),
    ("/usr/share/fonts/noto-cjk/NotoSansCJK-{weight}.ttc", "Noto Sans CJK SC"),
    ("/usr/share/fonts/google-noto-cjk/NotoSansCJK-{weight}.ttc", "Noto Sans CJK SC"),
    ("C:/Windows/Fonts/msyh{bold}.ttc", "Microsoft YaHei"),
    ("/System/Library/Fonts/PingFang.ttc", "PingFang SC"),
)


@dataclass(frozen=True)
class ShareText:
    """The words on the picture, as the customer reads them (translated by the caller). `price`, `store`: None
    or empty leaves that line out."""

    name: str
    code_line: str
    price: str | None
    store: str | None
    before: str
    after: str
    staff_line: str
    form: str | None = None  # her nail shape and length in words ("杏仁形 · 中长"); None: natural nails


@dataclass(frozen=True)
class Layout:
    stacked: bool  # before above after; else side by side
    before: Box  # where each crop goes on the picture
    after: Box


def layout_for(content_aspect: float) -> Layout:
    """Stacked or side by side, whichever panel shape is nearer the crop's own (so the crop grows least)."""
    width, height = SIZE
    photo_w, photo_h = width - 2 * MARGIN, height - 2 * MARGIN - INFO_HEIGHT - GAP
    half_h, half_w = (photo_h - GAP) // 2, (photo_w - GAP) // 2
    stacked = (Box(MARGIN, MARGIN, MARGIN + photo_w, MARGIN + half_h),
               Box(MARGIN, MARGIN + half_h + GAP, MARGIN + photo_w, MARGIN + 2 * half_h + GAP))
    side = (Box(MARGIN, MARGIN, MARGIN + half_w, MARGIN + photo_h),
            Box(MARGIN + half_w + GAP, MARGIN, MARGIN + 2 * half_w + GAP, MARGIN + photo_h))
    aspect = max(content_aspect, 1e-3)
    use_stacked = abs(math.log(aspect / stacked[0].aspect)) <= abs(math.log(aspect / side[0].aspect))
    before, after = stacked if use_stacked else side
    return Layout(use_stacked, before, after)


def compose(before: np.ndarray, after: np.ndarray, hands_box: Box | None, text: ShareText,
            style_image: np.ndarray | None = None) -> np.ndarray:
    """The share picture ((1350, 1080, 3) uint8 BGR) from the snapshot's two frames ((H, W, 3) uint8 BGR, the same
    size), the painted hands' box in them (None: the whole frame) and the style's picture (BGR or BGRA)."""
    if before.shape != after.shape or before.ndim != 3:
        raise ValueError("the before and after frames differ in size")
    frame_h, frame_w = before.shape[:2]
    content = hands_box or Box(0, 0, frame_w, frame_h)
    layout = layout_for(content.aspect)
    panel = layout.before
    crop = fit_aspect(content, panel.aspect, (frame_w, frame_h), min_height=math.ceil(panel.height / MAX_ENLARGE))
    canvas = Image.new("RGB", SIZE, PAPER)
    draw = ImageDraw.Draw(canvas)
    for frame, place, label in ((before, layout.before, text.before), (after, layout.after, text.after)):
        _paste_rounded(canvas, _fitted(frame[crop.top:crop.bottom, crop.left:crop.right], place), place)
        _label(draw, place, label)
    _info(canvas, draw, text, style_image, top=max(layout.before.bottom, layout.after.bottom) + GAP)
    return cv2.cvtColor(np.asarray(canvas), cv2.COLOR_RGB2BGR)


def share_jpeg(before_path: Path, after_path: Path, hands_box: tuple[int, int, int, int] | None, text: ShareText,
               style_image_path: Path | None = None) -> bytes:
    """`compose` over the snapshot's files, as JPEG bytes. Raises OSError (a file gone or unreadable: the
    caller answers the phone that the link ended) or ValueError (frames that do not match)."""
    try:
        before, after = read_image(before_path), read_image(after_path)
    except Exception as exc:  # ImageReadError and whatever a half-written file raises: the snapshot is unusable
        raise OSError(f"snapshot unreadable: {exc}") from None
    style_image = None
    if style_image_path is not None:
        try:
            style_image = read_image(style_image_path, keep_alpha=True)
        except Exception as exc:  # the picture is a nicety: the hands and the words still go
            log.warning("share picture without the style's picture: %s", exc)
    box = Box.from_tuple(hands_box) if hands_box is not None else None
    return encode_jpeg(compose(before, after, box, text, style_image))


def encode_jpeg(image: np.ndarray) -> bytes:
    """(H, W, 3) uint8 BGR as a baseline JPEG with no metadata."""
    buffer = io.BytesIO()
    Image.fromarray(cv2.cvtColor(image, cv2.COLOR_BGR2RGB)).save(buffer, "JPEG", quality=JPEG_QUALITY,
                                                                 optimize=True)
    return buffer.getvalue()


# --- drawing ------------------------------------------------------------------------------------------------
def _fitted(crop: np.ndarray, place: Box) -> Image.Image:
    """`crop` scaled to fit `place` whole, on the letterbox colour where its shape differs."""
    height, width = crop.shape[:2]
    scale = min(place.width / width, place.height / height)
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    interpolation = cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC
    scaled = cv2.cvtColor(cv2.resize(crop, size, interpolation=interpolation), cv2.COLOR_BGR2RGB)
    panel = Image.new("RGB", (place.width, place.height), LETTERBOX)
    panel.paste(Image.fromarray(scaled), ((place.width - size[0]) // 2, (place.height - size[1]) // 2))
    return panel


def _paste_rounded(canvas: Image.Image, image: Image.Image, place: Box) -> None:
    mask = Image.new("L", image.size, 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, image.width - 1, image.height - 1), RADIUS, fill=255)
    canvas.paste(image, (place.left, place.top), mask)


def _label(draw: ImageDraw.ImageDraw, place: Box, label: str) -> None:
    font = _font(30, bold=True)
    if font is None or not label:
        return
    left, top, right, bottom = draw.textbbox((0, 0), label, font=font)
    # bottom left: fingertips point up, so the nails are mostly in a crop's upper part
    x, y = place.left + 16, place.bottom - 16 - (bottom - top + 20)
    draw.rounded_rectangle((x, y, x + right - left + 32, y + bottom - top + 20), 22, fill=(23, 20, 26))
    draw.text((x + 16 - left, y + 10 - top), label, font=font, fill=(255, 255, 255))


def _info(canvas: Image.Image, draw: ImageDraw.ImageDraw, text: ShareText, style_image: np.ndarray | None,
          top: int) -> None:
    x = MARGIN
    if style_image is not None:
        canvas.paste(_thumbnail(style_image), (MARGIN, top + 8), _round_mask(THUMB))
        x = MARGIN + THUMB + 32
    width = SIZE[0] - MARGIN - x
    lines = [(text.name, 50, True, INK), (text.form or "", 32, True, INK), (text.code_line, 32, False, INK),
             (text.price or "", 44, True, PRICE),
             (text.store or "", 30, False, MUTED), (text.staff_line, 26, False, MUTED)]
    y = top + 4
    for words, size, bold, colour in lines:
        font = _font(size, bold=bold)
        if not words or font is None:
            continue
        shown = _fit_width(draw, words, font, width)
        draw.text((x, y), shown, font=font, fill=colour)
        y += round(size * 1.32)


def _thumbnail(style_image: np.ndarray) -> Image.Image:
    """The style's picture cut to a square (its middle) on the paper colour, THUMB px."""
    image = style_image
    if image.ndim == 3 and image.shape[2] == 4:  # a transparent PNG: onto the paper
        alpha = image[:, :, 3:4].astype(np.float32) / 255.0
        paper = np.array(PAPER[::-1], np.float32)
        image = (image[:, :, :3] * alpha + paper * (1 - alpha)).astype(np.uint8)
    height, width = image.shape[:2]
    side = min(height, width)
    top, left = (height - side) // 2, (width - side) // 2
    square = cv2.resize(image[top:top + side, left:left + side], (THUMB, THUMB), interpolation=cv2.INTER_AREA)
    return Image.fromarray(cv2.cvtColor(square, cv2.COLOR_BGR2RGB))


def _round_mask(side: int) -> Image.Image:
    mask = Image.new("L", (side, side), 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, side - 1, side - 1), RADIUS, fill=255)
    return mask


def _fit_width(draw: ImageDraw.ImageDraw, words: str, font: ImageFont.FreeTypeFont, width: int) -> str:
    """`words`, cut with an ellipsis where they would run past `width` pixels."""
    if draw.textlength(words, font=font) <= width:
        return words
    while words and draw.textlength(words + "…", font=font) > width:
        words = words[:-1]
    return words + "…"


@lru_cache(maxsize=16)
def _font(size: int, *, bold: bool) -> ImageFont.FreeTypeFont | None:
    path_index = _font_file(bold)
    if path_index is None:
        return None
    return ImageFont.truetype(path_index[0], size, index=path_index[1])


@lru_cache(maxsize=2)
def _font_file(bold: bool) -> tuple[str, int] | None:
    """(file, face index) of the CJK sans face, bold or regular; None (logged) when this machine has none."""
    candidates = [(pattern.format(weight="Bold" if bold else "Regular", bold="bd" if bold else ""), family)
                  for pattern, family in _FONT_FILES]
    matched = _fontconfig_match("Noto Sans CJK SC:bold" if bold else "Noto Sans CJK SC")
    if matched:
        candidates.append((matched, "Noto Sans CJK SC"))
    for path, family in candidates:
        if not Path(path).is_file():
            continue
        index = _face_index(path, family)
        if index is not None:
            return path, index
    log.warning("no CJK font found: the share picture goes without its words")
    return None


def _face_index(path: str, family: str) -> int | None:
    """The face of a font collection whose family is `family` (the SC face of a .ttc holding JP, KR, SC…)."""
    for index in range(12):
        try:
            name = ImageFont.truetype(path, 12, index=index).getname()[0] or ""
        except OSError:
            break
        if name.startswith(family):
            return index
    return None


def _fontconfig_match(pattern: str) -> str | None:
    try:
        found = subprocess.run(["fc-match", "-f", "%{file}", pattern], capture_output=True, text=True,  # noqa: S607
                               timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return found.stdout.strip() or None
