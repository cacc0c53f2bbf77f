"""tools/bundle_report.py (the store bundle's size table and the load trace behind its leave-out lists) and
tools/bundle_filter.py (build.spec's rules), on real files: a bundle-shaped folder, the venv's Qt libraries."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import bundle_filter  # noqa: E402
import bundle_report  # noqa: E402

MB = 2**20


def _file(path: Path, size: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\0" * size)
    return path


def test_the_size_table_counts_each_file_once_by_component_and_links_not_at_all(tmp_path):
    internal = tmp_path / "_internal"
    core = _file(internal / "PySide6/Qt/lib/libQt6Core.so.6", 3 * MB)
    (internal / "libQt6Core.so.6").symlink_to(core)  # PyInstaller's top-level link: no second copy
    _file(internal / "PySide6/Qt/plugins/platforms/libqxcb.so", MB)
    _file(internal / "PySide6/Qt/qml/QtQuick/qmldir", MB)
    _file(internal / "PySide6/Qt/translations/qtbase_zh_CN.qm", MB)
    _file(internal / "cv2/cv2.abi3.so", 2 * MB)
    _file(internal / "opencv_python_headless.libs/libavcodec.so", 2 * MB)
    _file(internal / "models/hand_landmarker.task", MB)
    _file(internal / "libgtk-3.so.0", MB)
    _file(tmp_path / "nailmirror", MB)  # not a PyInstaller executable: no PYZ to split, all of it "other"
    table = bundle_report.sizes(tmp_path)
    assert table["Qt libraries"] == 3.0 and table["Qt plugins"] == 1.0 and table["QML modules"] == 1.0
    assert table["Qt translations"] == 1.0 and table["cv2"] == 4.0 and table["our code and models"] == 1.0
    assert table["other"] == 2.0 and table["total"] == 13.0
    assert list(table)[0] == "cv2"  # largest first


def test_archived_python_counts_with_its_package():
    assert bundle_report.component("PYZ:numpy.linalg") == "numpy"
    assert bundle_report.component("PYZ:matplotlib.pyplot") == "matplotlib"
    assert bundle_report.component("PYZ:nailmirror_desktop.app.kiosk") == "our code and models"
    assert bundle_report.component("PYZ:json.decoder") == "python stdlib"
    assert bundle_report.component("PYZ:segno") == "other"


def test_the_trace_counts_files_opened_and_libraries_loaded_not_failed_opens_or_folder_listings(tmp_path):
    internal = tmp_path / "_internal"
    lib = _file(internal / "PySide6/Qt/lib/libQt6Gui.so.6", 10)
    (internal / "libQt6Gui.so.6").symlink_to(lib)
    qmldir = _file(internal / "PySide6/Qt/qml/QtQuick/qmldir", 10)
    strace = "\n".join([
        f'123 openat(AT_FDCWD, "{qmldir}", O_RDONLY|O_CLOEXEC) = 5',
        f'123 openat(AT_FDCWD, "{internal}/PySide6/Qt/qml/QtQml/qmldir", O_RDONLY) = -1 ENOENT (No such file)',
        f'123 openat(AT_FDCWD, "{internal}/PySide6/Qt/qml", O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_DIRECTORY) = 6',
        '123 openat(AT_FDCWD, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC) = 3',
    ])
    assert bundle_report.opened_files(strace, tmp_path) == {"PySide6/Qt/qml/QtQuick/qmldir"}
    ld_debug = f"  4335:\tcalling init: {internal}/libQt6Gui.so.6\n  4335:\tfile=libQt6Gui.so.6 [0];  needed by x\n"
    assert bundle_report.loaded_libraries(ld_debug, tmp_path) == {"PySide6/Qt/lib/libQt6Gui.so.6"}  # the link's target


@pytest.mark.parametrize(("destination", "kept"), [
    ("PySide6/Qt/plugins/platforms/libqxcb.so", True),
    ("PySide6/Qt/plugins/platforms/libqoffscreen.so", True),
    ("PySide6/Qt/plugins/platforms/libqeglfs.so", False),
    ("PySide6/Qt/plugins/platformthemes/libqgtk3.so", False),
    ("PySide6/Qt/plugins/qmltooling/libqmldbg_debugger.so", False),
    ("PySide6/Qt/plugins/platforminputcontexts/libqtvirtualkeyboardplugin.so", True),
    ("PySide6/Qt/plugins/platforminputcontexts/libibusplatforminputcontextplugin.so", False),
    ("PySide6/Qt/plugins/multimedia/libffmpegmediaplugin.so", True),
    ("PySide6/Qt/qml/QtQuick/VirtualKeyboard/Plugins/Pinyin/libqtvkbpinyinplugin.so", True),
    ("PySide6/Qt/qml/QtQuick/qmldir", True),
    ("PySide6/Qt/qml/QtQuick/Controls/Material/Button.qml", False),
    ("PySide6/Qt/qml/QtQuick3D/qmldir", False),
    ("PySide6/Qt/qml/QtQml/WorkerScript/qmldir", False),
    ("PySide6/Qt/translations/qtbase_zh_CN.qm", True),
    ("PySide6/Qt/translations/qt_en.qm", True),
    ("PySide6/Qt/translations/qtbase_de.qm", False),
    ("PySide6/Qt/translations/designer_zh_CN.qm", False),
    ("PySide6/Qt/lib/libQt6Quick3D.so.6", True),  # libraries are pruned by need, not by these rules
    ("cv2/cv2.abi3.so", True),
])
def test_the_leave_out_rules(destination, kept):
    assert bundle_filter.keep_qt_file(destination) is kept


@pytest.mark.qt  # reads PySide6's own Qt libraries
def test_dependency_libraries_nothing_kept_links_are_pruned():
    """The offscreen platform plugin links QtGui (kept); nothing kept links Quick3D (pruned); libpython and a
    package's own library folder are never pruned."""
    qt = Path(__import__("PySide6").__file__).parent / "Qt"
    binaries = [
        ("PySide6/Qt/plugins/platforms/libqoffscreen.so", str(qt / "plugins/platforms/libqoffscreen.so"), "BINARY"),
        ("PySide6/Qt/lib/libQt6Gui.so.6", str(qt / "lib/libQt6Gui.so.6"), "BINARY"),
        ("PySide6/Qt/lib/libQt6Quick3D.so.6", str(qt / "lib/libQt6Quick3D.so.6"), "BINARY"),
        ("libpython3.12.so.1.0", "/nonexistent/libpython3.12.so.1.0", "BINARY"),
        ("numpy.libs/libscipy_openblas.so", "/nonexistent/libscipy_openblas.so", "BINARY"),
    ]
    kept = {entry[0] for entry in bundle_filter.prune_dependency_libraries(binaries)}
    assert kept == {"PySide6/Qt/plugins/platforms/libqoffscreen.so", "PySide6/Qt/lib/libQt6Gui.so.6",
                    "libpython3.12.so.1.0", "numpy.libs/libscipy_openblas.so"}


@pytest.mark.skipif(shutil.which("strip") is None or shutil.which("readelf") is None, reason="needs binutils")
def test_debug_sections_are_stripped_from_a_copy_and_the_library_still_loads(tmp_path):
    import sysconfig

    libpython = Path(sysconfig.get_config_var("LIBDIR")) / str(sysconfig.get_config_var("LDLIBRARY"))
    if not bundle_filter.has_debug_info(str(libpython)):
        pytest.skip(f"{libpython} carries no debug sections here")
    [(destination, source, _)] = bundle_filter.strip_debug_info([(libpython.name, str(libpython), "BINARY")],
                                                                 tmp_path)
    assert destination == libpython.name and Path(source).parent == tmp_path
    assert Path(source).stat().st_size < libpython.stat().st_size / 2
    assert not bundle_filter.has_debug_info(source)
    symbols = subprocess.run(["readelf", "--dyn-syms", "-W", source], capture_output=True, text=True).stdout
    assert " Py_Initialize" in symbols  # the dynamic symbols stay: it is still the same library
    loads = subprocess.run([sys.executable, "-c", "import ctypes, sys; ctypes.CDLL(sys.argv[1])", source],
                           capture_output=True, text=True, timeout=60)  # its own process: a second libpython
    assert loads.returncode == 0, loads.stderr


def test_pillow_s_padded_libxau_is_built_from_the_system_copy_that_defines_what_its_libxcb_takes():
    libs = Path(sys.prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    pillow_libs = libs / "pillow.libs"
    xau = sorted(pillow_libs.glob("libXau-*.so*"))
    xcb = sorted(pillow_libs.glob("libxcb-*.so*"))
    system = Path("/usr/lib/x86_64-linux-gnu/libXau.so.6")
    if not (xau and xcb and system.exists()):
        pytest.skip("no Pillow wheel libXau/libxcb or no system libXau here")

    def symbols(path: Path, flag: str) -> set[str]:
        listing = subprocess.run(["nm", "-D", flag, str(path)], capture_output=True, text=True, check=True).stdout
        return {line.split()[-1].split("@")[0] for line in listing.splitlines() if line.strip()}

    taken = symbols(xcb[0], "--undefined-only") & symbols(xau[0], "--defined-only")
    assert taken and taken <= symbols(system, "--defined-only")
    binaries = [(f"pillow.libs/{xau[0].name}", str(xau[0]), "BINARY"), ("libXau.so.6", str(system), "BINARY"),
                (f"pillow.libs/{xcb[0].name}", str(xcb[0]), "BINARY")]
    replaced = bundle_filter.replace_pillow_xau(binaries)
    assert replaced[0] == (f"pillow.libs/{xau[0].name}", str(system), "BINARY")
    assert replaced[1:] == binaries[1:]
    assert bundle_filter.replace_pillow_xau(binaries[:1]) == binaries[:1]  # no system copy: nothing changes
