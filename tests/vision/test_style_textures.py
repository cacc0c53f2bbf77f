"""Loading try-on styles: single textures, style folders with accents and per-finger files, bad files."""

from __future__ import annotations

import json
import struct
import zlib

import cv2
import numpy as np
import pytest

from nailmirror_desktop.core.paths import resources_dir
from nailmirror_desktop.vision.paint.style_textures import StyleError, load_style
from nailmirror_desktop.vision.sources.image_io import ImageReadError, read_image
from nailmirror_desktop.vision.types import Finger


def _png(path, colour, size=(20, 30), alpha=None):
    image = np.zeros((size[1], size[0], 4 if alpha is not None else 3), np.uint8)
    image[..., :3] = colour
    if alpha is not None:
        image[..., 3] = alpha
    assert cv2.imwrite(str(path), image)
    return path


def _bomb_png(path, width=60_000, height=60_000):
    """A tiny, valid-looking PNG whose header declares width×height pixels."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    body = zlib.compress(b"\0" * 1000)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", body) + chunk(b"IEND", b""))
    return path


def test_single_texture_is_every_nail(tmp_path):
    style = load_style(_png(tmp_path / "red.png", (0, 0, 255)))
    assert style.name == "red" and not style.per_finger
    for finger in Finger:
        assert style.texture_for(finger)[0, 0].tolist() == [0, 0, 255]


def test_folder_accent_defaults_to_the_ring_finger(tmp_path):
    _png(tmp_path / "nail.png", (255, 0, 0))
    _png(tmp_path / "accent.png", (0, 255, 0))
    style = load_style(tmp_path)
    assert set(style.per_finger) == {Finger.RING}
    assert style.texture_for(Finger.RING)[0, 0].tolist() == [0, 255, 0]
    assert style.texture_for(Finger.INDEX)[0, 0].tolist() == [255, 0, 0]
    assert style.name == tmp_path.name


def test_folder_with_style_json_and_per_finger_overrides(tmp_path):
    _png(tmp_path / "nail.png", (255, 0, 0))
    _png(tmp_path / "accent.png", (0, 255, 0), alpha=128)
    _png(tmp_path / "thumb.png", (0, 0, 255), size=(40, 10))
    _png(tmp_path / "index.png", (9, 9, 9))
    (tmp_path / "style.json").write_text(json.dumps({"name": "春日樱花", "accent_fingers": ["ring", "Index"]}))
    style = load_style(tmp_path)
    assert style.name == "春日樱花"
    assert style.texture_for(Finger.RING).shape == (30, 20, 4)  # accent keeps its alpha
    assert style.texture_for(Finger.INDEX)[0, 0].tolist() == [9, 9, 9]  # a finger file beats the accent
    assert style.texture_for(Finger.THUMB).shape == (10, 40, 3)
    assert style.texture_for(Finger.PINKY)[0, 0].tolist() == [255, 0, 0]
    compositor = style.compositor()
    assert compositor.texture_for(Finger.RING) is not compositor.texture_for(Finger.MIDDLE)


def test_folder_of_five_finger_files_needs_no_nail_png(tmp_path):
    for i, finger in enumerate(("thumb", "index", "middle", "ring", "pinky")):
        _png(tmp_path / f"{finger}.png", (i * 40, 0, 0))
    style = load_style(tmp_path)
    assert style.default is None
    assert [style.texture_for(f)[0, 0, 0] for f in Finger] == [0, 40, 80, 120, 160]


@pytest.mark.parametrize(
    "setup, code",
    [
        (lambda d: None, "STYLE_INCOMPLETE"),
        (lambda d: _png(d / "thumb.png", (1, 2, 3)), "STYLE_INCOMPLETE"),
        (lambda d: (_png(d / "nail.png", (1, 2, 3)), (d / "style.json").write_text("{not json")), "STYLE_META_INVALID"),
        (lambda d: (_png(d / "nail.png", (1, 2, 3)), (d / "style.json").write_text("[1]")), "STYLE_META_INVALID"),
        (lambda d: (_png(d / "nail.png", (1, 2, 3)), _png(d / "accent.png", (1, 1, 1)),
                    (d / "style.json").write_text('{"accent_fingers": ["toe"]}')), "STYLE_META_INVALID"),
        (lambda d: (_png(d / "nail.png", (1, 2, 3)), (d / "style.json").write_text('{"accent_fingers": ["ring"]}')),
         "STYLE_ACCENT_MISSING"),
    ],
)
def test_bad_style_folders_say_what_is_wrong(tmp_path, setup, code):
    setup(tmp_path)
    with pytest.raises(StyleError) as error:
        load_style(tmp_path)
    assert error.value.code == code
    assert "\n" not in str(error.value) and str(tmp_path) in str(error.value)


def test_missing_style(tmp_path):
    with pytest.raises(StyleError) as error:
        load_style(tmp_path / "nope")
    assert error.value.code == "STYLE_NOT_FOUND"


def _noisy_png_bytes() -> bytes:
    image = np.random.default_rng(0).integers(0, 255, (64, 64, 3), np.uint8)
    return cv2.imencode(".png", image)[1].tobytes()


def test_bad_texture_files_name_the_file(tmp_path):
    data = _noisy_png_bytes()
    damaged = bytearray(data)
    start = damaged.find(b"IDAT") + 40
    damaged[start : start + 30] = b"\xff" * 30  # scrambled compressed pixels
    cases = {
        "empty.png": (b"", "TEXTURE_EMPTY"),
        "truncated.png": (data[: len(data) // 2], "TEXTURE_TRUNCATED"),
        "scrambled.png": (bytes(damaged), "TEXTURE_CORRUPT"),
        "text.png": (b"hello, I am not an image", "TEXTURE_NOT_AN_IMAGE"),
    }
    for name, (content, code) in cases.items():
        (tmp_path / name).write_bytes(content)
        with pytest.raises(StyleError) as error:
            load_style(tmp_path / name)
        assert error.value.code == code, name
        assert name in str(error.value)
    with pytest.raises(StyleError) as huge:
        load_style(_bomb_png(tmp_path / "bomb.png"))
    assert huge.value.code == "TEXTURE_TOO_MANY_PIXELS"


def test_a_bad_file_inside_a_folder_names_it(tmp_path):
    _png(tmp_path / "nail.png", (1, 2, 3))
    (tmp_path / "accent.png").write_bytes(b"")
    with pytest.raises(StyleError) as error:
        load_style(tmp_path)
    assert error.value.code == "TEXTURE_EMPTY" and "accent.png" in str(error.value)


def test_truncated_jpeg_is_refused_not_padded_with_grey(tmp_path):
    image = np.random.default_rng(0).integers(0, 255, (200, 200, 3), np.uint8)
    ok, encoded = cv2.imencode(".jpg", image)
    path = tmp_path / "cut.jpg"
    path.write_bytes(encoded.tobytes()[: len(encoded) * 2 // 3])
    with pytest.raises(ImageReadError) as error:
        read_image(path)
    assert error.value.code == "TRUNCATED"


def test_png_alpha_and_palette_images_read(tmp_path):
    path = _png(tmp_path / "a.png", (10, 20, 30), alpha=77)
    assert read_image(path, keep_alpha=True)[0, 0].tolist() == [10, 20, 30, 77]
    assert read_image(path).shape == (30, 20, 3)
    from PIL import Image

    Image.new("P", (8, 6), 0).save(tmp_path / "p.png")
    assert read_image(tmp_path / "p.png").shape == (6, 8, 3)


def test_the_shipped_demo_styles_load():
    folder = resources_dir() / "demo" / "styles"
    names = sorted(p.name for p in folder.iterdir() if p.is_dir())
    assert len(names) >= 2
    for name in names:
        style = load_style(folder / name)
        assert style.default is not None and style.name
    rose = load_style(folder / "rose_gloss")
    assert set(rose.per_finger) == {Finger.RING}
    french = load_style(folder / "french_tip")
    assert french.default.shape[2] == 4 and french.default[..., 3].min() < 255
