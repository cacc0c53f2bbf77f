"""Language switching: the kiosk's own catalog (resources/translations/*.qm) and Qt's for the same language.

Source strings are English; zh_CN is the default kiosk language. Widgets re-read their strings in
`changeEvent(LanguageChange)`, so switching needs no restart. Qt's catalog (qt_<lang>.qm from Qt's translations
folder; the store build keeps it, tools/bundle_filter.py) translates what Qt itself draws: the buttons of a message
box, a text field's context menu, the keyboard's key names — without it a Chinese kiosk showed an English "OK".
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QTranslator

from nailmirror_desktop.core.paths import resources_dir

_installed: list[QTranslator] = []
_language = "en"


def current_language() -> str:
    return _language


def translations_dir() -> Path:
    return resources_dir() / "translations"


def install_language(language: str) -> bool:
    """Make `language` ('zh_CN' or 'en') current; returns False if the kiosk's .qm file is missing or unreadable
    (Qt's own catalog missing only leaves Qt's few built-in words in English)."""
    global _language
    _language = language
    app = QCoreApplication.instance()
    if app is None:
        raise RuntimeError("install a language once the QApplication exists")
    for translator in _installed:
        app.removeTranslator(translator)
    _installed.clear()
    qt_catalog = QTranslator(app)
    qt_folder = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    if language != "en" and qt_catalog.load(f"qt_{language}", qt_folder):
        app.installTranslator(qt_catalog)
        _installed.append(qt_catalog)
    translator = QTranslator(app)
    if not translator.load(f"nailmirror_{language}", str(translations_dir())):
        return language == "en"  # English needs no translator: the source strings are English
    app.installTranslator(translator)  # installed last, so it is asked first: the kiosk's words win
    _installed.append(translator)
    return True
