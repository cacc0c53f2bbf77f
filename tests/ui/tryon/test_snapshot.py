"""The before/after page: the slider moves the way its labels say, and the first split shows the paint."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QImage

from nailmirror_desktop.ui.tryon.snapshot import SnapshotPage, _fit, default_split


def flat(colour: str) -> QImage:
    image = QImage(400, 300, QImage.Format.Format_RGB32)
    image.fill(QColor(colour))
    return image


@pytest.fixture
def page(qtbot):
    page = SnapshotPage()
    qtbot.addWidget(page)
    page.resize(900, 700)
    page.show()
    page.show_pair(flat("black"), flat("white"), "test")  # before black, after white
    return page


def after_fraction(view) -> float:
    """How much of the view's middle row, inside the fitted image, shows the (white) after image."""
    image = view.grab().toImage().convertToFormat(QImage.Format.Format_Grayscale8)
    pixels = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.bytesPerLine())
    target = _fit(flat("black"), QRectF(view.rect()))
    row = pixels[image.height() // 2, int(target.left()) + 2 : int(target.right()) - 2]
    return float((row > 200).mean())


def test_towards_after_shows_more_after_and_each_end_shows_one_whole_image(page):
    assert page.before_label.text().startswith("◀") and page.after_label.text().endswith("▶")
    page.slider.setValue(page.slider.maximum())  # pushed to "After ▶"
    assert after_fraction(page.view) > 0.97
    page.slider.setValue(page.slider.minimum())  # pushed to "◀ Before"
    assert after_fraction(page.view) < 0.03
    page.slider.setValue(70)
    assert 0.62 < after_fraction(page.view) < 0.78


def test_the_first_split_puts_every_painted_nail_on_the_after_side(page):
    page.show_pair(flat("black"), flat("white"), "test", paint_span=(0.62, 0.88))
    assert page.slider.value() == 93 and page.view.split() == pytest.approx(0.93)
    page.show_pair(flat("black"), flat("white"), "test", paint_span=(0.1, 0.3))  # on the left: half-way is enough
    assert page.slider.value() == 50


def test_default_split_bounds():
    assert default_split(None) == 0.5
    assert default_split((0.0, 0.2)) == 0.5
    assert default_split((0.5, 0.99)) == 1.0
