"""Language switching: one QTranslator per language, loaded from resources/translations/*.qm.

Source strings are English; zh_CN is the default kiosk language. Widgets re-read their strings in
`changeEvent(LanguageChange)`, so switching needs no restart.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, QTranslator

from nailmirror_desktop.core.paths import resources_dir

_installed: QTranslator | None = None
_language = "en"


def current_language() -> str:
    return _language


def translations_dir() -> Path:
    return resources_dir() / "translations"


def install_language(language: str) -> bool:
    """Make `language` ('zh_CN' or 'en') current; returns False if its .qm file is missing or unreadable."""
    global _installed, _language
    _language = language
    app = QCoreApplication.instance()
    if app is None:
        raise RuntimeError("install a language once the QApplication exists")
    if _installed is not None:
        app.removeTranslator(_installed)
        _installed = None
    translator = QTranslator(app)
    if not translator.load(f"nailmirror_{language}", str(translations_dir())):
        return language == "en"  # English needs no translator: the source strings are English
    app.installTranslator(translator)
    _installed = translator
    return True
