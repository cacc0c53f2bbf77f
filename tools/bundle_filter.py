"""build.spec's leave-out rules for the store bundle: which Qt plugins, QML modules and translations it keeps,
which dependency libraries are still needed once those are gone, and stripping debug sections.

The evidence behind every rule is `tools/bundle_report.py trace` (what a smoke-test run of the built kiosk
opens and loads: strace + LD_DEBUG=files); ARCHITECTURE.md's store build section has the figures. Entries are
PyInstaller TOC tuples (destination name, source path, typecode); destinations are relative to _internal/.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

QT = "PySide6/Qt/"

# Plugin folders kept, with the files kept in each (None: all). Everything else under plugins/ is left out:
# qmltooling (the QML debugger), platformthemes (gtk3 and the portal theme: the kiosk draws its own theme, and
# libqgtk3 alone pulled in ~20 MB of GTK, cairo and pango), generic (evdev input for eglfs), egldeviceintegrations,
# networkinformation, tls (the kiosk's HTTP is Python's, not QtNetwork's) and the other input contexts.
QT_PLUGINS: dict[str, frozenset[str] | None] = {
    # offscreen: the smoke test and timed runs; xcb and wayland: the store PC's screen (X11 with or without a
    # window manager, or a Wayland kiosk compositor)
    "platforms": frozenset({"libqxcb.so", "libqwayland.so", "libqoffscreen.so"}),
    "xcbglintegrations": None,
    "wayland-decoration-client": None,
    "wayland-graphics-integration-client": None,
    "wayland-shell-integration": None,
    "platforminputcontexts": frozenset({"libqtvirtualkeyboardplugin.so"}),  # QT_IM_MODULE=qtvirtualkeyboard
    # Qt loads every image plugin it has when it first reads an image (trace), but reads only style images (the
    # catalog stores PNG, JPEG and WebP: pillow_probe), snapshots (PNG/JPEG) and SVG icons; TIFF alone was 1 MB.
    "imageformats": frozenset({"libqjpeg.so", "libqwebp.so", "libqsvg.so"}),
    "iconengines": None,
    "multimedia": None,  # Qt Multimedia's FFmpeg backend: the camera list outside Linux (build.spec)
}

# QML module folders kept (the keyboard's InputPanel and what its qmldir files import; trace: nothing else opened).
# The VirtualKeyboard's Hangul/OpenWNN/TCIme/Thai plugins stay: its Plugins qmldir imports them all and the
# trace shows them loaded.
QML_KEPT = ("QtQuick/VirtualKeyboard/", "QtQuick/Layouts/", "QtQuick/Window/", "Qt/labs/folderlistmodel/")
QML_TOP_FILES = ("QtQuick/", "QtQml/")  # the files directly in these folders (qmldir, plugin, qmltypes)

# Qt's own translations: only the kiosk's two languages, and only the catalogs of modules it uses.
QT_TRANSLATIONS = ("qt_", "qtbase_", "qtdeclarative_", "qtmultimedia_", "qtvirtualkeyboard_")
LANGUAGES = ("zh_CN", "en")


def keep_qt_file(destination: str) -> bool:
    """Whether a file under PySide6/Qt/ (plugins, qml, translations) stays in the bundle; other files always do."""
    path = destination.replace("\\", "/")
    if path.startswith(QT + "plugins/"):
        parts = PurePosixPath(path[len(QT + "plugins/"):]).parts
        if len(parts) < 2 or parts[0] not in QT_PLUGINS:
            return False
        kept = QT_PLUGINS[parts[0]]
        return kept is None or parts[-1] in kept
    if path.startswith(QT + "qml/"):
        inside = path[len(QT + "qml/"):]
        if inside.startswith(QML_KEPT):
            return True
        folder, _, name = inside.rpartition("/")
        return bool(name) and f"{folder}/" in QML_TOP_FILES
    if path.startswith(QT + "translations/"):
        name = path.rsplit("/", 1)[-1]
        return any(name == f"{catalog}{language}.qm" for catalog in QT_TRANSLATIONS for language in LANGUAGES)
    return True


def _is_dependency_library(destination: str) -> bool:
    """A shared library PyInstaller collected because something links it: at the top of _internal/ (system
    libraries, libQt6* links) or in PySide6/Qt/lib. Package-private folders (numpy.libs …) are left alone."""
    path = destination.replace("\\", "/")
    folder, _, name = path.rpartition("/")
    if folder not in ("", QT + "lib"):
        return False
    return name.startswith("lib") and (".so" in name) and not name.startswith("libpython")


def prune_dependency_libraries(binaries: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """Drop dependency libraries no kept binary needs any more (the Qt libraries of the plugins and QML modules
    left out: Quick3D, WebEngine's friends, GTK …). Needs are the link-time closure (ldd) of every other binary."""
    from PyInstaller.depend import bindepend

    roots = [entry for entry in binaries if not _is_dependency_library(entry[0])]
    needed: set[str] = set()
    for _, source, _ in roots:
        needed.update(name for name, _ in bindepend.get_imports(source))
    kept = []
    for entry in binaries:
        name = entry[0].replace("\\", "/").rsplit("/", 1)[-1]
        if not _is_dependency_library(entry[0]) or name in needed:
            kept.append(entry)
    return kept


def _dynamic_section(library: Path) -> str:
    return subprocess.run(["readelf", "-d", str(library)], capture_output=True, text=True, check=True).stdout


def soname(library: Path) -> str:
    """A shared library's DT_SONAME (its file name when it has none)."""
    found = re.search(r"\(SONAME\)\s+Library soname: \[([^\]]+)\]", _dynamic_section(library))
    return found[1] if found else library.name


def has_debug_info(path: str) -> bool:
    try:
        sections = subprocess.run(["readelf", "-S", "-W", path], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return " .debug_info " in sections.stdout


def strip_debug_info(binaries: Iterable[tuple[str, str, str]], folder: Path) -> list[tuple[str, str, str]]:
    """Binaries that carry DWARF debug sections (CPython's libpython and extension modules: 30 MB → 7.6 MB for
    libpython) are replaced by a copy with `strip --strip-debug` (symbols stay, so tracebacks from native code
    still name functions). Without binutils the binaries go in as they are."""
    strip = shutil.which("strip")
    if strip is None or shutil.which("readelf") is None:
        print("bundle_filter: no strip/readelf (binutils): debug sections stay in", file=sys.stderr)
        return list(binaries)
    result = []
    for destination, source, typecode in binaries:
        if has_debug_info(source):
            target = folder / destination
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
            if subprocess.run([strip, "--strip-debug", str(target)], capture_output=True).returncode == 0:
                source = str(target)
        result.append((destination, source, typecode))
    return result


def _swap_source(binaries: list[tuple[str, str, str]], destination: str,
                 source: Path) -> list[tuple[str, str, str]] | None:
    """`binaries` with the entry at `destination` built from `source` instead; None when there is no such entry."""
    if not any(_posix(d) == destination for d, _, _ in binaries):
        print(f"bundle_filter: no {destination} in the bundle: kept as it is", file=sys.stderr)
        return None
    return [(d, str(source), t) if _posix(d) == destination else (d, s, t) for d, s, t in binaries]


def _posix(destination: str) -> str:
    return destination.replace("\\", "/")


def replace_icu_data(binaries: list[tuple[str, str, str]], cut: Path) -> list[tuple[str, str, str]]:
    """Qt's libicudata replaced by the zh/en cut (tools/icu_data_cut.py); unchanged when the bundle has none."""
    return _swap_source(binaries, QT + "lib/" + cut.name, cut) or binaries


def replace_pillow_xau(binaries: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """Pillow's copy of libXau (2.1 MB for 8 kB of code: the segment auditwheel's patchelf added sits 2 MiB into
    the file) built from the system's libXau.so.6, which the bundle ships anyway for Qt's xcb platform: the same
    soname, and it defines every symbol Pillow's libxcb takes from it (tests/tools/test_bundle_tools.py checks).
    Unchanged when either is missing."""
    system = [s for d, s, _ in binaries if _posix(d) == "libXau.so.6"]
    pillows = [_posix(d) for d, _, _ in binaries if re.fullmatch(r"pillow\.libs/libXau-[0-9a-f]+\.so\.6(\..*)?",
                                                                     _posix(d))]
    if not system or len(pillows) != 1:
        return binaries
    return _swap_source(binaries, pillows[0], Path(system[0])) or binaries
