"""The kiosk's stylesheet, read the way Qt draws it."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QLabel, QScrollArea, QStyle, QStyleOptionSlider

from nailmirror_desktop.ui.shell import theme


@pytest.mark.parametrize("vertical", [True, False], ids=["vertical", "horizontal"])
def test_scroll_bars_are_a_thumb_without_arrow_boxes(qtbot, vertical):
    """Half-styled scroll bars had their arrow buttons drawn as two small grey boxes, which read as a stray size
    grip beside the AI chips and the style grid."""
    area = QScrollArea()
    qtbot.addWidget(area)
    area.setStyleSheet(theme.STYLESHEET)
    area.setWidget(QLabel("x" * (1 if vertical else 400) + "\n" * (200 if vertical else 1)))
    area.resize(300, 200)
    area.show()
    bar = area.verticalScrollBar() if vertical else area.horizontalScrollBar()
    assert bar.isVisible()
    option = QStyleOptionSlider()
    bar.initStyleOption(option)
    for arrow in (QStyle.SubControl.SC_ScrollBarAddLine, QStyle.SubControl.SC_ScrollBarSubLine):
        rect = bar.style().subControlRect(QStyle.ComplexControl.CC_ScrollBar, option, arrow, bar)
        assert rect.isEmpty(), f"{arrow.name}: {rect}"
    assert min(bar.width(), bar.height()) <= 12  # a thin bar: the cue that there is more, not a control
