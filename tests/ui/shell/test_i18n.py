"""Chinese is the default; every string the UI marks for translation has a Chinese translation; switching works."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from PySide6.QtCore import QCoreApplication

from nailmirror_desktop.ui.shell import i18n
from nailmirror_desktop.ui.shell.messages import generation_error_text
from nailmirror_desktop.ui.tryon.mirror_view import MirrorView
from tests.support.ui_support import ROOT

TRANSLATIONS = ROOT / "resources" / "translations"


def test_every_marked_string_has_a_finished_chinese_translation():
    root = ET.parse(TRANSLATIONS / "nailmirror_zh_CN.ts").getroot()
    messages = list(root.iter("message"))
    assert len(messages) > 80
    unfinished = [m.find("source").text for m in messages
                  if m.find("translation").get("type") == "unfinished" or not (m.find("translation").text or "")]
    assert unfinished == []
    assert (TRANSLATIONS / "nailmirror_zh_CN.qm").stat().st_size > 1000


def test_language_switch_retranslates_live_widgets(qtbot):
    view = MirrorView()
    qtbot.addWidget(view)
    try:
        assert i18n.install_language("zh_CN")
        qtbot.waitUntil(lambda: view.guide_text() == "把双手平放在框内", timeout=2000)
        assert "一分钟" in generation_error_text("TOO_MANY_PENDING_TASKS")
        assert i18n.install_language("en")
        qtbot.waitUntil(lambda: view.guide_text() == "Place both hands flat inside the outlines", timeout=2000)
        assert "minute" in generation_error_text("TOO_MANY_PENDING_TASKS")
    finally:
        i18n.install_language("en")


def test_what_qt_draws_itself_follows_the_language(qtbot):
    """A message box's buttons and a text field's menu come from Qt's own catalog, installed with ours."""
    try:
        assert i18n.install_language("zh_CN")
        assert QCoreApplication.translate("QPlatformTheme", "Cancel") == "取消"
        assert QCoreApplication.translate("QLineEdit", "&Paste").startswith("粘贴")
        assert "一分钟" in generation_error_text("TOO_MANY_PENDING_TASKS")  # ours still answer
        assert i18n.install_language("en")
        assert QCoreApplication.translate("QPlatformTheme", "Cancel") == "Cancel"
    finally:
        i18n.install_language("en")
