"""The kiosk's look: one stylesheet and one font, applied once at start-up.

Touch first: every control is at least 48 px tall (the main actions 64 px), text is large, and the palette is
a calm dark room so the customer's hand is the brightest thing on screen. Scroll bars are a thin thumb only:
half-styled, Qt drew their arrow buttons as two small grey boxes that read as a stray size grip.
"""

from __future__ import annotations

from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import QApplication

from nailmirror_desktop.core.paths import resources_dir

ACCENT = "#e8739a"
BACKGROUND = "#17141a"
PANEL = "#221d26"
TEXT = "#f4eef6"
MUTED = "#a79fb0"
# A row of an open drop-down is a finger's target. Qt applies it only with a styled view: ui/staff/
# touch_controls.py's TouchComboBox gives each drop-down one.
LIST_ROW_PX = 56
TICK_IMAGE = ("theme", "tick.svg")
ARROW_IMAGE = ("theme", "chevron_down.svg")

_CJK_FAMILIES = ("Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "Microsoft YaHei", "PingFang SC")

STYLESHEET = f"""
QWidget {{ background: {BACKGROUND}; color: {TEXT}; font-size: 20px; }}
QFrame#panel, QWidget#panel {{ background: {PANEL}; border-radius: 18px; }}
QLabel#title {{ font-size: 30px; font-weight: 600; }}
QLabel#currentName {{ font-size: 22px; font-weight: 600; }}
QLabel#muted {{ color: {MUTED}; font-size: 17px; }}
QLabel#styleCode {{ font-size: 40px; font-weight: 700; color: {ACCENT}; }}
QPushButton {{
    background: #3a3140; border: none; border-radius: 14px; padding: 10px 22px; min-height: 48px;
}}
QPushButton:pressed {{ background: #5a4a62; }}
QPushButton:checked {{ background: {ACCENT}; color: #1b1218; }}
QPushButton:disabled {{ color: #6d6575; }}
QPushButton#primary {{ background: {ACCENT}; color: #1b1218; font-weight: 600; }}
QPushButton#chip {{ border-radius: 22px; padding: 6px 16px; min-height: 36px; font-size: 18px; }}
QPushButton#chip:checked {{ background: {ACCENT}; }}
QPushButton#fingerChip {{ border-radius: 16px; padding: 4px 2px; font-size: 17px; }}
QListView#styleList {{ font-size: 16px; }}
QPushButton#ghost {{ background: transparent; color: {MUTED}; }}
QPushButton#danger {{ background: #b23a48; color: {TEXT}; font-weight: 600; }}
QPushButton#quietDanger {{ background: transparent; color: #f08a96; border: 2px solid #b23a48; padding: 8px 20px; }}
QLineEdit, QPlainTextEdit, QComboBox, QSpinBox {{
    background: #2d2733; border: 2px solid #3f3547; border-radius: 12px; padding: 8px 12px; min-height: 48px;
}}
QComboBox::drop-down {{ width: 48px; border: none; }}
QComboBox:disabled {{ color: #6d6575; background: transparent; }}
QComboBox QAbstractItemView {{ background: #2d2733; border: 2px solid #3f3547; outline: none; }}
QComboBox QAbstractItemView::item {{ min-height: {LIST_ROW_PX}px; padding: 0 16px; }}
QComboBox QAbstractItemView::item:selected {{ background: #4a3a50; }}
QPushButton#stepButton {{ font-size: 28px; padding: 0; }}
QAbstractSpinBox QLineEdit {{ background: transparent; border: none; padding: 0; min-height: 0; }}
QLineEdit:focus, QPlainTextEdit:focus {{ border-color: {ACCENT}; }}
QListView, QTableView, QTreeView {{ background: {PANEL}; border: none; border-radius: 14px; }}
QListView::item:selected {{ background: #4a3a50; border-radius: 12px; }}
QTabBar::tab {{ background: transparent; color: {MUTED}; padding: 12px 22px; min-height: 48px; font-size: 20px; }}
QTabBar::tab:selected {{ color: {TEXT}; border-bottom: 4px solid {ACCENT}; }}
QTabWidget::pane {{ border: none; }}
QProgressBar {{ background: #2d2733; border-radius: 8px; min-height: 16px; max-height: 16px; text-align: center; }}
QProgressBar::chunk {{ background: {ACCENT}; border-radius: 8px; }}
QSlider::groove:horizontal {{ height: 10px; background: #3a3140; border-radius: 5px; }}
QSlider::handle:horizontal {{ background: {ACCENT}; width: 44px; margin: -17px 0; border-radius: 22px; }}
QLabel#compareBadge {{ background: rgba(23, 20, 26, 200); color: {TEXT}; border-radius: 16px;
    padding: 6px 18px; font-size: 24px; font-weight: 600; }}
QCheckBox {{ spacing: 12px; min-height: 48px; }}
QCheckBox::indicator {{ width: 34px; height: 34px; border-radius: 8px; background: #2d2733;
    border: 2px solid #3f3547; }}
QCheckBox::indicator:checked {{ background: {ACCENT}; border-color: {ACCENT}; }}
QHeaderView::section {{ background: {PANEL}; color: {MUTED}; border: none; padding: 6px; }}
QWidget#scrim {{ background: rgba(10, 8, 12, 190); }}
QFrame#noPinCard {{ background: {PANEL}; border: 2px solid #3f3547; border-radius: 24px; }}
QFrame#noPinCard QLabel {{ background: transparent; }}
QLabel#command {{ font-family: monospace; font-size: 26px; color: {ACCENT}; background: #2d2733;
    border-radius: 12px; padding: 12px 18px; }}
QFrame#styleCard {{ background: #f7f1f4; border-radius: 18px; min-width: 580px; }}
QFrame#styleCard QLabel {{ background: transparent; color: #2a1f27; }}
QFrame#styleCard QLabel#muted {{ color: #7a6a74; }}
QFrame#styleCard QLabel#cardStaffLine {{ color: #b23a66; font-size: 22px; font-weight: 600; }}
QLabel#cardName {{ font-size: 34px; font-weight: 700; }}
QLabel#cardCode {{ font-size: 24px; font-weight: 600; letter-spacing: 1px; }}
QFrame#styleCard QLabel#cardPrice {{ font-size: 30px; font-weight: 700; color: #b23a66; }}
QScrollBar:vertical {{ width: 10px; background: transparent; }}
QScrollBar::handle:vertical {{ background: #4a4150; border-radius: 5px; min-height: 40px; }}
QScrollBar:horizontal {{ height: 10px; background: transparent; }}
QScrollBar::handle:horizontal {{ background: #4a4150; border-radius: 5px; min-width: 40px; }}
QScrollBar::add-line, QScrollBar::sub-line {{ width: 0; height: 0; border: none; background: none; }}
QScrollBar::add-page, QScrollBar::sub-page {{ background: none; }}
QAbstractScrollArea::corner {{ background: transparent; border: none; }}
"""


def cjk_font(point_size: int = 14) -> QFont:
    """The first installed CJK sans family, so Chinese never falls back to boxes or a serif."""
    installed = set(QFontDatabase.families())
    family = next((f for f in _CJK_FAMILIES if f in installed), QApplication.font().family())
    font = QFont(family)
    font.setPointSize(point_size)
    return font


def image_rules() -> str:
    """The checked box's tick and the drop-down's arrow. A style sheet that styles ::indicator or ::drop-down
    draws no tick or arrow of its own (a ticked box was only a pink square, a drop-down looked like a text
    field); the images are files (resources/theme/), as style sheets need."""
    tick, arrow = (resources_dir().joinpath(*name).as_posix() for name in (TICK_IMAGE, ARROW_IMAGE))
    return (f"QCheckBox::indicator:checked {{ image: url({tick}); }}\n"
            f"QComboBox::down-arrow {{ image: url({arrow}); width: 28px; height: 28px; }}\n")


def apply_theme(app: QApplication) -> None:
    app.setFont(cjk_font())
    app.setStyleSheet(STYLESHEET + image_rules())
