"""The mirror's style overlay: the name leads, large; the code follows, small, once; the language picks the name."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtGui import QImage

from nailmirror_desktop.ui.shell import i18n
from nailmirror_desktop.ui.tryon.mirror_view import MirrorView


@pytest.fixture
def view(qtbot):
    widget = MirrorView()
    qtbot.addWidget(widget)
    widget.resize(1280, 800)
    yield widget
    i18n.install_language("en")


def test_the_name_is_large_and_the_code_small_and_shown_once(view):
    view.set_style("FES-M1MWQS", "奶白贝壳", "Milky white shell")
    i18n.install_language("zh_CN")
    lines = view.style_label_lines()
    assert [text for text, _px in lines] == ["奶白贝壳", "FES-M1MWQS"]
    (_, name_px), (_, code_px) = lines
    assert name_px >= 1.8 * code_px
    texts = [t for t, _ in lines]
    assert texts.count("FES-M1MWQS") == 1 and not any("款号" in t or "Style code" in t for t in texts)


def test_english_shows_the_english_name(view):
    view.set_style("FES-M1MWQS", "奶白贝壳", "Milky white shell")
    i18n.install_language("en")
    assert view.style_label_lines()[0][0] == "Milky white shell"
    view.set_style("FES-M1MWQS", "奶白贝壳", "")  # no English name: the stored name rather than nothing
    assert view.style_label_lines()[0][0] == "奶白贝壳"


def test_a_style_without_a_name_shows_its_code_alone_and_no_style_shows_nothing(view):
    view.set_style("FES-M1MWQS", "", "")
    assert [t for t, _ in view.style_label_lines()] == ["FES-M1MWQS"]
    view.set_style("", "", "")
    assert view.style_label_lines() == []


def test_the_overlay_is_painted_top_left_and_a_long_name_stays_off_the_hand(view):
    blank = QImage(view.size(), QImage.Format.Format_RGB32)
    blank.fill(0)
    view.show_frame(blank)
    view.set_guide_visible(False)
    view.set_style("FES-M1MWQS", "非常非常长的名字" * 10, "")
    image = view.grab().toImage()
    pixels = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.bytesPerLine())
    pixels = pixels[:, : image.width() * 4].reshape(image.height(), image.width(), 4)[:, :, :3]
    painted_columns = np.flatnonzero(pixels.max(axis=(0, 2)) > 20)
    assert painted_columns.size and painted_columns.min() < 60  # the box starts at the left edge
    assert painted_columns.max() < view.width() * 0.75  # elided: the right of the mirror stays clear


def test_the_price_shows_under_the_name_only_when_the_store_set_one(view):
    i18n.install_language("zh_CN")
    view.set_style("FES-M1MWQS", "奶白贝壳", "Milky white shell", (12800, "CNY"))
    assert [t for t, _ in view.style_label_lines()] == ["奶白贝壳", "¥128", "FES-M1MWQS"]
    view.set_style("FES-M1MWQS", "奶白贝壳", "Milky white shell", (12850, "USD"))
    i18n.install_language("en")
    assert [t for t, _ in view.style_label_lines()] == ["Milky white shell", "$128.50", "FES-M1MWQS"]
    view.set_style("FES-M1MWQS", "奶白贝壳", "Milky white shell", None)
    assert [t for t, _ in view.style_label_lines()] == ["Milky white shell", "FES-M1MWQS"]
    assert view.price_text() == ""
