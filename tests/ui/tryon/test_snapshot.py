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


def test_the_still_render_shows_its_progress_then_replaces_the_after(page):
    assert not page.is_rendering() and not page.render_bar.isVisibleTo(page)
    page.slider.setValue(page.slider.maximum())  # the whole image is the after
    page.show_render_progress(0.4)
    assert page.is_rendering() and page.render_bar.isVisibleTo(page) and page.render_label.isVisibleTo(page)
    assert page.render_bar.value() == 40 and page.render_label.text()
    assert after_fraction(page.view) > 0.95  # the live (white) after is on show meanwhile
    page.show_render(flat("black"))  # the render: black where the live after was white
    assert not page.is_rendering() and not page.render_bar.isVisibleTo(page)
    assert after_fraction(page.view) < 0.05


def test_a_render_that_kept_the_live_image_only_ends_the_progress(page):
    page.show_render_progress(0.9)
    page.show_render(None)
    assert not page.is_rendering() and after_fraction(page.view) > 0.3  # the white live after still shows
