"""The before/after page: before on the left of the line, after on its right, each side named, the grip on the
line, and the first split shows the paint."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtTest import QTest

from nailmirror_desktop.ui.shell import theme
from nailmirror_desktop.ui.tryon.snapshot import HANDLE_RADIUS, SnapshotPage, default_split


def flat(colour: str) -> QImage:
    image = QImage(400, 300, QImage.Format.Format_RGB32)
    image.fill(QColor(colour))
    return image


@pytest.fixture
def page(qtbot):
    page = SnapshotPage()
    qtbot.addWidget(page)
    page.setStyleSheet(theme.STYLESHEET)
    page.resize(1200, 700)  # wider than the 4:3 image: it is pillarboxed, as on the kiosk's 16:9 screen
    page.show()
    page.show_pair(flat("black"), flat("white"), "test")  # before black, after white
    return page


def middle_row(view) -> np.ndarray:
    """The view's grey levels along its middle row, inside the drawn image (the grip's row: its top edge)."""
    image = view.grab().toImage().convertToFormat(QImage.Format.Format_Grayscale8)
    pixels = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.bytesPerLine())
    target = view.image_rect()
    y = round(target.top() + target.height() * 0.25)  # above the grip, below the badges
    return pixels[y, int(target.left()) + 2 : int(target.right()) - 2].copy()  # the QImage goes with this frame


def after_fraction(view) -> float:
    """How much of the image's width shows the (white) after image."""
    return float((middle_row(view) > 200).mean())


def test_before_is_left_of_the_line_after_right_and_each_end_shows_one_whole_image(page):
    view = page.view
    view.set_split(0.3)
    row = middle_row(view)
    line = round(view.split_x() - view.image_rect().left()) - 2
    assert (row[: line - 4] < 50).all() and (row[line + 4 :] > 200).all()  # black before | white after
    view.set_split(1.0)  # dragged to the right end: all before
    assert after_fraction(view) < 0.03
    view.set_split(0.0)  # to the left end: all after
    assert after_fraction(view) > 0.97


def test_the_sides_are_named_by_badges_on_the_image_in_its_top_corners(page):
    view, target = page.view, page.view.image_rect()
    before, after = view.before_badge, view.after_badge
    assert (before.text(), after.text()) == ("Before", "After") and before.isVisible() and after.isVisible()
    assert "▶" not in after.text() and "◀" not in before.text()  # names of the sides, not directions
    assert target.contains(QPointF(before.geometry().topLeft())) and target.contains(QPointF(after.geometry()
                                                                                            .topRight()))
    assert before.geometry().center().x() < target.center().x() < after.geometry().center().x()
    assert before.geometry().top() < target.top() + target.height() * 0.2
    assert page.hint.text()  # how it works, in words


def test_the_grip_is_on_the_line_and_a_drag_moves_both_within_the_image(page, qtbot):
    view = page.view
    target = view.image_rect()
    assert target.left() > 100  # pillarboxed: the letterbox bars are wide
    grip = view.handle_center()
    assert grip.x() == pytest.approx(view.split_x()) and target.top() < grip.y() < target.bottom()
    assert HANDLE_RADIUS * 2 >= 64  # a fingertip's target
    start = QPoint(round(grip.x()), round(grip.y()))
    goal = QPoint(round(target.left() + target.width() * 0.8), start.y())
    QTest.mousePress(view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    QTest.mouseMove(view, goal)
    QTest.mouseRelease(view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, goal)
    assert view.split() == pytest.approx(0.8, abs=0.01)
    assert view.handle_center().x() == pytest.approx(goal.x(), abs=1.5)  # the grip came with the finger
    QTest.mouseClick(view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(5, start.y()))
    assert view.split() == 0.0 and view.split_x() == pytest.approx(target.left())  # held to the image's edge


def test_the_first_split_puts_every_painted_nail_on_the_after_side(page):
    page.show_pair(flat("black"), flat("white"), "test", paint_span=(0.12, 0.38))
    assert page.view.split() == pytest.approx(0.07)
    page.show_pair(flat("black"), flat("white"), "test", paint_span=(0.7, 0.9))  # on the right: half-way will do
    assert page.view.split() == 0.5


def test_default_split_bounds():
    assert default_split(None) == 0.5
    assert default_split((0.8, 0.95)) == 0.5
    assert default_split((0.01, 0.5)) == 0.0


def test_the_still_render_shows_its_progress_then_replaces_the_after(page):
    assert not page.is_rendering() and not page.render_bar.isVisibleTo(page)
    page.view.set_split(0.0)  # the whole image is the after
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


def test_the_idle_reset_hides_the_badges_with_the_images(page):
    page.clear()
    assert not page.view.has_images() and not page.view.before_badge.isVisible()
