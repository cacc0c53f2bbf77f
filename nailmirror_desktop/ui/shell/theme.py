"""The kiosk's look: one stylesheet and one font, applied once at start-up.

Touch first: every control is at least 48 px tall (the main actions 64 px), text is large, and the palette is
a calm dark room so the customer's hand is the brightest thing on screen. Scroll bars are a thin thumb only:
half-styled, Qt drew their arrow buttons as two small grey boxes that read as a stray size grip.
"""

from __future__ import annotations

from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import QApplication

ACCENT = "#e8739a"
BACKGROUND = "#17141a"
PANEL = "#221d26"
TEXT = "#f4eef6"
MUTED = "#a79fb0"

_CJK_FAMILIES = ("Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "Microsoft YaHei", "PingFang SC")

STYLESHEET = f"""
QWidget {{ background: {BACKGROUND}; color: {TEXT}; font-size: 20px; }}
QFrame#panel, QWidget#panel {{ background: {PANEL}; border-radius: 18px; }}
QLabel#title {{ font-size: 30px; font-weight: 600; }}
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
QLineEdit, QPlainTextEdit, QComboBox, QSpinBox {{
    background: #2d2733; border: 2px solid #3f3547; border-radius: 12px; padding: 8px 12px; min-height: 48px;
}}
QComboBox::drop-down {{ width: 48px; border: none; }}
QComboBox QAbstractItemView::item {{ min-height: 48px; }}
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
QFrame#styleCard {{ background: #f7f1f4; border-radius: 18px; min-width: 340px; }}
QFrame#styleCard QLabel {{ background: transparent; color: #2a1f27; }}
QFrame#styleCard QLabel#muted {{ color: #7a6a74; }}
QLabel#cardName {{ font-size: 34px; font-weight: 700; }}
QLabel#cardCode {{ font-size: 24px; font-weight: 600; letter-spacing: 1px; }}
QLabel#cardPrice {{ font-size: 28px; color: #b23a66; }}
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


def apply_theme(app: QApplication) -> None:
    app.setFont(cjk_font())
    app.setStyleSheet(STYLESHEET)
