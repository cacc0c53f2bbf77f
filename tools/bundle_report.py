"""What the store bundle (dist/nailmirror, PyInstaller onedir) is made of, and which of its files the kiosk loads.

    .venv/bin/python tools/bundle_report.py sizes [BUNDLE]            size table per component (MB), JSON
    .venv/bin/python tools/bundle_report.py trace [BUNDLE] [--out F]  run the smoke test's kiosk under strace and
                                                                      list the bundle files it opened / never opened

`sizes` counts every regular file once (PyInstaller links the top-level libQt6*.so.6 to PySide6/Qt/lib: a link
is not a copy) and splits the Python archive inside the executable (PYZ) by top-level package, so numpy's or
matplotlib's Python code counts with its package. `trace` is the evidence behind build.spec's leave-out lists:
a file the kiosk never opens through a whole smoke run (demo video, hands, paint, the keyboard typing pinyin)
is a candidate to leave out; the list of never-opened files is printed per component with its size.
benchmarks/startup.py prints the size table in its JSON line.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MB = 2**20

# (component, file path prefixes under _internal/, top-level Python packages in the PYZ); the first match wins.
COMPONENTS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("Qt plugins", ("PySide6/Qt/plugins/",), ()),
    ("QML modules", ("PySide6/Qt/qml/",), ()),
    ("Qt translations", ("PySide6/Qt/translations/",), ()),
    ("Qt libraries", ("PySide6/Qt/lib/", "libQt6", "libicu"), ()),
    ("PySide6 bindings", ("PySide6/", "shiboken6/"), ("PySide6", "shiboken6")),
    ("mediapipe", ("mediapipe/", "mediapipe.libs/"), ("mediapipe", "google", "absl")),
    ("cv2", ("cv2/", "opencv_python_headless.libs/"), ("cv2",)),
    ("onnxruntime", ("onnxruntime/", "onnxruntime.libs/"), ("onnxruntime",)),
    ("numpy", ("numpy/", "numpy.libs/"), ("numpy",)),
    ("matplotlib", ("matplotlib/", "matplotlib.libs/", "kiwisolver/", "contourpy/", "fontTools/"),
     ("matplotlib", "mpl_toolkits", "kiwisolver", "contourpy", "fontTools", "pyparsing", "cycler", "dateutil")),
    ("our code and models", ("models/", "resources/", "migrations/"),
     ("nailmirror_desktop", "nailmirror_protocol")),
    ("python stdlib", ("python3.12/", "base_library.zip", "libpython3"), ()),
)


def component(relative: str) -> str:
    """The component of a bundle file (path relative to _internal/) or of "PYZ:<module>" (archived Python)."""
    if relative.startswith("PYZ:"):
        top = relative[len("PYZ:"):].split(".")[0]
        for label, _, packages in COMPONENTS:
            if top in packages:
                return label
        return "python stdlib" if top in sys.stdlib_module_names else "other"
    for label, prefixes, _ in COMPONENTS:
        if relative.startswith(prefixes):
            return label
    return "other"


def internal_dir(bundle: Path) -> Path:
    return bundle / "_internal" if (bundle / "_internal").is_dir() else bundle


def bundle_files(bundle: Path) -> dict[str, int]:
    """Regular files under the bundle (links excluded: they cost no space), path relative to _internal/."""
    base = internal_dir(bundle)
    files = {}
    for path in base.rglob("*"):
        if path.is_file() and not path.is_symlink():
            files[path.relative_to(base).as_posix()] = path.stat().st_size
    return files


def pyz_members(executable: Path) -> dict[str, int]:
    """Compressed size of each module in the executable's PYZ archive, as "PYZ:<module>"; {} if it cannot be
    read (another PyInstaller, or no PyInstaller in this environment)."""
    try:
        from PyInstaller.archive.readers import CArchiveReader
    except ImportError:
        return {}
    try:
        archive = CArchiveReader(str(executable))
        pyz = next(name for name in archive.toc if name.endswith(".pyz"))
        reader = archive.open_embedded_archive(pyz)
    except Exception as exc:  # noqa: BLE001 - ArchiveReadError & co.: not a PyInstaller executable (or another version)
        print(f"bundle_report: cannot read the PYZ in {executable}: {exc}", file=sys.stderr)
        return {}
    members = {}
    for name, entry in reader.toc.items():
        size = entry[2] if isinstance(entry, tuple) and len(entry) > 2 else 0  # (typecode, offset, length)
        members[f"PYZ:{name}"] = int(size)
    return members


def sizes(bundle: Path) -> dict[str, float]:
    """MB per component, largest first, then "total" (the whole folder, executable included)."""
    table: dict[str, float] = defaultdict(float)
    files = bundle_files(bundle)
    for relative, size in files.items():
        table[component(relative)] += size
    executable = bundle / "nailmirror"
    if executable.is_file():
        members = pyz_members(executable)
        for relative, size in members.items():
            table[component(relative)] += size
        table["other"] += max(0, executable.stat().st_size - sum(members.values()))  # bootloader, PYZ index
    total = sum(table.values())
    ordered = {k: round(v / MB, 1) for k, v in sorted(table.items(), key=lambda kv: -kv[1])}
    ordered["total"] = round(total / MB, 1)
    return ordered


def duplicates(bundle: Path, min_bytes: int = 100_000) -> list[list[str]]:
    """Groups of files with the same content (same size, same sha256) above min_bytes."""
    base = internal_dir(bundle)
    by_size: dict[int, list[str]] = defaultdict(list)
    for relative, size in bundle_files(bundle).items():
        if size >= min_bytes:
            by_size[size].append(relative)
    groups = []
    for same_size in by_size.values():
        if len(same_size) < 2:
            continue
        by_hash: dict[str, list[str]] = defaultdict(list)
        for relative in same_size:
            by_hash[hashlib.sha256((base / relative).read_bytes()).hexdigest()].append(relative)
        groups += [sorted(g) for g in by_hash.values() if len(g) > 1]
    return groups


OPENED = re.compile(r'open(?:at)?\((?:AT_FDCWD|\d+), "([^"]+)", ([A-Z_|]+)[^)]*\) = \d+')


LOADED = re.compile(r"calling (?:init|fini): (\S+)")  # LD_DEBUG=files: every object mapped, by its path


def _relative(path: str, base: Path) -> str | None:
    try:
        return Path(os.path.normpath(path)).resolve().relative_to(base).as_posix()
    except (OSError, ValueError):
        return None


def opened_files(strace_log: str, bundle: Path) -> set[str]:
    """Bundle files (relative to _internal/, links resolved) that the traced run opened successfully; directory
    listings are not loads. Qt opens every plugin of a folder to read its metadata: for shared objects use
    loaded_libraries (what the dynamic loader mapped)."""
    base = internal_dir(bundle).resolve()
    seen = set()
    for match in OPENED.finditer(strace_log):
        if "O_DIRECTORY" not in match.group(2) and (relative := _relative(match.group(1), base)) is not None:
            seen.add(relative)
    return seen


def loaded_libraries(ld_debug_log: str, bundle: Path) -> set[str]:
    """Bundle shared objects the dynamic loader loaded (LD_DEBUG=files): link-time needs and dlopen alike."""
    base = internal_dir(bundle).resolve()
    return {r for m in LOADED.finditer(ld_debug_log) if (r := _relative(m.group(1), base)) is not None}


def is_shared_object(relative: str) -> bool:
    name = relative.rsplit("/", 1)[-1]
    return name.endswith(".so") or ".so." in name


def trace(bundle: Path, seconds: float) -> dict[str, object]:
    """Run the bundle as the smoke test does (demo, keyboard check) under strace; what it opened and what not."""
    with tempfile.TemporaryDirectory() as home:
        log = Path(home) / "strace.log"
        env = {"LD_DEBUG": "files", "LD_DEBUG_OUTPUT": str(Path(home) / "ld"),  # loads, by path
               "HOME": home, "PATH": "/usr/bin:/bin", "QT_QPA_PLATFORM": "offscreen",
               "NAILMIRROR_HOME": str(Path(home) / "data"), "MPLCONFIGDIR": str(Path(home) / "mpl")}
        command = ["strace", "-f", "-qq", "-e", "trace=open,openat", "-o", str(log), str(bundle / "nailmirror"),
                   "kiosk", "--demo", "--windowed", "--quit-after", str(seconds), "--check-keyboard"]
        completed = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
        report = [line for line in completed.stdout.splitlines() if line.startswith('{"frames_painted"')]
        if completed.returncode != 0 or not report:
            raise SystemExit(f"bundle_report: the traced run failed ({completed.returncode}): "
                             f"{completed.stderr[-1500:]}")
        opened = opened_files(log.read_text(errors="replace"), bundle)
        ld_log = "".join(p.read_text(errors="replace") for p in Path(home).glob("ld.*"))
        loaded = loaded_libraries(ld_log, bundle)
    # a shared object counts as used when the loader loaded it; any other file when it was opened
    files = bundle_files(bundle)
    opened = {f for f in opened if not is_shared_object(f)} | loaded
    unused: dict[str, dict[str, int]] = defaultdict(dict)
    for relative, size in files.items():
        if relative not in opened:
            unused[component(relative)][relative] = size
    return {
        "run": json.loads(report[-1]),
        "opened": sorted(opened & files.keys()),
        "never_opened_mb": {k: round(sum(v.values()) / MB, 1) for k, v in sorted(unused.items())},
        "never_opened": {k: sorted(v) for k, v in sorted(unused.items())},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("sizes", "trace", "duplicates"))
    parser.add_argument("bundle", type=Path, nargs="?", default=ROOT / "dist" / "nailmirror")
    parser.add_argument("--seconds", type=float, default=12.0, help="trace: how long the kiosk runs")
    parser.add_argument("--out", type=Path, help="trace: write the full JSON here (stdout gets the summary)")
    args = parser.parse_args(argv)
    if not (args.bundle / "nailmirror").is_file():
        print(f"bundle_report: no bundle at {args.bundle}: run tools/build_store.sh first", file=sys.stderr)
        return 2
    if args.command == "sizes":
        print(json.dumps(sizes(args.bundle)))
    elif args.command == "duplicates":
        print(json.dumps(duplicates(args.bundle), indent=1))
    else:
        result = trace(args.bundle, args.seconds)
        if args.out is not None:
            args.out.write_text(json.dumps(result, indent=1))
        print(json.dumps({"run": result["run"], "never_opened_mb": result["never_opened_mb"]}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
