"""Build tools/openblas_shim.c: cv2's BLAS/LAPACK served by numpy's OpenBLAS, for the store bundle (#13.10).

    .venv/bin/python tools/openblas_shim.py OUT_DIR     build it for this .venv's cv2 and numpy; print its path

build.spec calls `bundle_shim()` and ships the result in place of opencv-python-headless's own OpenBLAS (37 MB,
with its libgfortran and libquadmath, 40 MB in all). Names are read from the installed wheels (their hashes change
with each release): the soname cv2 needs (readelf), numpy's library in numpy.libs. The shim finds numpy's library
at run time through its RPATH, $ORIGIN/../numpy.libs — the layout both the wheels and the bundle have. Needs gcc
(Debian's, which ./dev setup installs with the build tools).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bundle_filter import needed_libraries

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "openblas_shim.c"
BUNDLE_RPATH = "$ORIGIN/../numpy.libs"


def cv2_library() -> Path:
    import cv2

    found = sorted(Path(cv2.__file__).parent.glob("cv2*.so"))
    if not found:
        raise FileNotFoundError(f"no cv2 extension next to {cv2.__file__}")
    return found[0]


def cv2_openblas_soname(cv2_so: Path) -> str:
    names = [name for name in needed_libraries(cv2_so) if "openblas" in name]
    if len(names) != 1:
        raise RuntimeError(f"{cv2_so.name} needs {names or 'no'} OpenBLAS: this shim fits one")
    return names[0]


def numpy_openblas() -> Path:
    import numpy

    found = sorted((Path(numpy.__file__).parent.parent / "numpy.libs").glob("libscipy_openblas64_*.so"))
    if len(found) != 1:
        raise FileNotFoundError(f"numpy.libs holds {len(found)} ILP64 OpenBLAS libraries, not one")
    return found[0]


def build(out_dir: Path, soname: str, numpy_lib: Path, rpath: str = BUNDLE_RPATH) -> Path:
    """Compile the shim as OUT_DIR/SONAME, linked to numpy_lib by its file name and found through `rpath`."""
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / soname
    subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-Wall", "-Wextra", "-Werror", "-o", str(target),
                    f"-Wl,-soname,{soname}", str(SOURCE), f"-L{numpy_lib.parent}", f"-l:{numpy_lib.name}",
                    f"-Wl,-rpath,{rpath}"], check=True)
    return target


def bundle_shim(out_dir: Path) -> tuple[Path, str]:
    """(the built shim, the soname it replaces) for this environment's cv2 and numpy."""
    soname = cv2_openblas_soname(cv2_library())
    return build(out_dir, soname, numpy_openblas()), soname


if __name__ == "__main__":
    shim, _soname = bundle_shim(Path(sys.argv[1]))
    print(shim)
