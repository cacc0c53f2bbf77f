"""The staff pages' controls under a finger, with the kiosk's theme on real widgets: drop-down rows a finger can
hit, a wheel passing over a closed drop-down changes nothing, a ticked box shows its tick (#22.7)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QColor, QWheelEvent
from PySide6.QtWidgets import QApplication, QCheckBox, QStyle, QStyleOptionButton

from nailmirror_desktop.ui.shell import theme
from nailmirror_desktop.ui.staff.touch_controls import TouchComboBox

pytestmark = pytest.mark.qt


@pytest.fixture(autouse=True)
def themed(qtbot):
    theme.apply_theme(QApplication.instance())  # as the kiosk does at start
    yield
    QApplication.instance().setStyleSheet("")


def combo(qtbot, items=("中文", "English", "日本語")) -> TouchComboBox:
    box = TouchComboBox()
    qtbot.addWidget(box)
    for i, text in enumerate(items):
        box.addItem(text, i)
    box.show()
    return box


def test_an_open_drop_down_has_rows_a_finger_can_hit(qtbot):
    """Before: QComboBox's own list ignored the theme's row height and drew rows of ~37 px."""
    box = combo(qtbot)
    box.showPopup()
    qtbot.waitUntil(box.view().isVisible, timeout=2000)
    heights = [box.view().visualRect(box.model().index(row, 0)).height() for row in range(box.count())]
    box.hidePopup()
    assert min(heights) >= theme.LIST_ROW_PX >= 56 and box.height() >= 48


def wheel(box: TouchComboBox, notches: int) -> None:
    centre = QPointF(box.rect().center())
    event = QWheelEvent(centre, QPointF(box.mapToGlobal(QPoint(centre.toPoint()))), QPoint(0, 0),
                        QPoint(0, -120 * notches), Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(box, event)


def test_a_wheel_over_a_closed_drop_down_leaves_its_value(qtbot):
    """Before: scrolling the settings page past the Language drop-down switched the language."""
    box = combo(qtbot)
    box.setFocus()
    changed = []
    box.currentIndexChanged.connect(changed.append)
    wheel(box, 1)
    wheel(box, 2)
    assert box.currentIndex() == 0 and not changed
    assert box.focusPolicy() == Qt.FocusPolicy.StrongFocus  # a wheel passing by does not take the focus either


def tick_pixels(box: QCheckBox) -> int:
    """Pixels of the tick's dark ink inside the indicator (its rounded corners left out: the page shows through
    them), from the box rendered as on screen."""
    option = QStyleOptionButton()
    option.initFrom(box)
    area = box.style().subElementRect(QStyle.SubElement.SE_CheckBoxIndicator, option, box).adjusted(6, 6, -6, -6)
    image = box.grab().toImage()
    ink = QColor("#1b1218")
    return sum(1 for x in range(area.left(), area.right()) for y in range(area.top(), area.bottom())
               if max(abs(QColor(image.pixel(x, y)).red() - ink.red()),
                      abs(QColor(image.pixel(x, y)).green() - ink.green()),
                      abs(QColor(image.pixel(x, y)).blue() - ink.blue())) < 24)


def test_a_ticked_box_shows_its_tick(qtbot):
    """Before: the theme's indicator had a background and no image, so a ticked box was a plain pink square."""
    box = QCheckBox("发到手机")
    qtbot.addWidget(box)
    box.resize(300, 60)
    box.show()
    assert tick_pixels(box) == 0
    box.setChecked(True)
    assert tick_pixels(box) >= 40
