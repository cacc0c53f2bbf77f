"""tools/openblas_shim.c: cv2's BLAS/LAPACK through numpy's OpenBLAS gives the answers the wheel's own library
gives, routine by routine, and the store build ships it in place of the wheel's copy (tools/bundle_filter.py).

The shim is built here with gcc and loaded into a fresh interpreter with LD_PRELOAD (a loaded library of that
soname satisfies cv2's need for it); the wheel's library must then be absent from the process, and the shim's own
call counter must move for each operation — OpenCV keeps small matrices off LAPACK (below 100 rows for LU and
Cholesky, 25 for SVD), so the sizes here are large enough to reach it, and 300 rows passes the shim's 256-entry
stack buffer for pivots."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import bundle_filter  # noqa: E402
import openblas_shim  # noqa: E402

pytestmark = pytest.mark.build  # compiles the shim: ./dev builds

# Each operation: its cv2 call on a fixed, well-conditioned problem; the script prints every result as a list and,
# under the shim, the counter before and after each.
OPERATIONS = r"""
import ctypes, json
import numpy as np, cv2
rng = np.random.default_rng(7)
def spd(n, t):
    a = rng.standard_normal((n, n)); return (a @ a.T + n * np.eye(n)).astype(t)
def general(m, n, t):
    return (rng.standard_normal((m, n)) + 3 * np.eye(m, n)).astype(t)
ops = {}
for t, name in ((np.float32, "f32"), (np.float64, "f64")):
    for n in (120, 300):
        a, b = general(n, n, t), rng.standard_normal((n, 2)).astype(t)
        ops[f"solve_lu_{name}_{n}"] = lambda a=a, b=b: cv2.solve(a, b, flags=cv2.DECOMP_LU)[1]
        ops[f"det_{name}_{n}"] = lambda a=a: np.array([cv2.determinant(a / 2)])
        ops[f"solve_cholesky_{name}_{n}"] = lambda a=spd(n, t), b=b: cv2.solve(a, b, flags=cv2.DECOMP_CHOLESKY)[1]
        ops[f"solve_qr_{name}_{n}"] = lambda a=general(n + 40, n, t), b=rng.standard_normal((n + 40, 2)).astype(t): \
            cv2.solve(a, b, flags=cv2.DECOMP_QR)[1]
        ops[f"svd_{name}_{n}"] = lambda a=general(n, n - 20, t): cv2.SVDecomp(a)[0]
        ops[f"invert_svd_{name}_{n}"] = lambda a=a: cv2.invert(a, flags=cv2.DECOMP_SVD)[1]
        ops[f"gemm_{name}_{n}"] = lambda a=a, b=general(n, n, t): cv2.gemm(a, b, 1.0, None, 0.0)
    c = (rng.standard_normal((200, 200, 2))).astype(t)
    ops[f"gemm_complex_{name}"] = lambda c=c: cv2.gemm(c, c, 1.0, None, 0.0)
try:
    shim = ctypes.CDLL(None).nailmirror_shim_calls
    shim.restype = ctypes.c_ulong
except AttributeError:
    shim = None
out = {}
for key, op in ops.items():
    before = shim() if shim else 0
    value = np.asarray(op(), dtype=np.float64)
    out[key] = {"value": value.ravel().tolist(), "calls": (shim() - before) if shim else None}
libraries = sorted({line.split()[-1] for line in open("/proc/self/maps") if "openblas" in line})
print(json.dumps({"ops": out, "libraries": libraries}))
"""


def _run(env_extra: dict[str, str]) -> dict:
    env = dict(os.environ, **env_extra)
    done = subprocess.run([sys.executable, "-c", OPERATIONS], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def shim(tmp_path_factory):
    soname = openblas_shim.cv2_openblas_soname(openblas_shim.cv2_library())
    numpy_lib = openblas_shim.numpy_openblas()
    built = openblas_shim.build(tmp_path_factory.mktemp("shim"), soname, numpy_lib, rpath=str(numpy_lib.parent))
    return built, soname


def test_every_routine_cv2_links_answers_as_the_wheel_s_own_openblas_does(shim):
    built, soname = shim
    wheel = _run({})
    shimmed = _run({"LD_PRELOAD": str(built)})
    assert any(soname in path for path in wheel["libraries"])  # the reference run used the wheel's library
    assert str(built) in shimmed["libraries"]
    assert not any(soname in path and path != str(built) for path in shimmed["libraries"])  # and not here
    for key, reference in wheel["ops"].items():
        got = shimmed["ops"][key]
        assert got["calls"] and got["calls"] > 0, f"{key} did not go through the shim"
        tolerance = 2e-3 if "f32" in key else 1e-8
        np.testing.assert_allclose(got["value"], reference["value"], rtol=tolerance, atol=tolerance, err_msg=key)


def test_the_shim_exports_exactly_the_routines_cv2_takes_from_openblas(shim):
    built, soname = shim
    wheel_lib = Path(openblas_shim.cv2_library()).parent.parent / "opencv_python_headless.libs" / soname

    def symbols(path: Path, flag: str) -> set[str]:
        listing = subprocess.run(["nm", "-D", flag, str(path)], capture_output=True, text=True, check=True).stdout
        return {line.split()[-1].split("@")[0] for line in listing.splitlines() if line.strip()}

    wanted = symbols(openblas_shim.cv2_library(), "--undefined-only") & symbols(wheel_lib, "--defined-only")
    assert len(wanted) >= 19
    assert wanted <= symbols(built, "--defined-only")


def test_the_bundle_takes_the_shim_and_leaves_out_what_only_the_wheel_s_library_needed(shim):
    built, soname = shim
    libs = Path(openblas_shim.cv2_library()).parent.parent / "opencv_python_headless.libs"
    cv2_so = openblas_shim.cv2_library()
    binaries = [("cv2/" + cv2_so.name, str(cv2_so), "EXTENSION")]
    binaries += [(f"opencv_python_headless.libs/{p.name}", str(p), "BINARY") for p in sorted(libs.iterdir())]
    kept = bundle_filter.replace_opencv_libraries(binaries, {soname: built})
    names = {d.rsplit("/", 1)[-1]: s for d, s, _ in kept}
    assert names[soname] == str(built)
    assert not any(n.startswith(("libgfortran", "libquadmath")) for n in names)  # only OpenBLAS needed them
    assert any(n.startswith("libavcodec") for n in names)  # cv2's video stays
    before = sum(Path(s).stat().st_size for _, s, _ in binaries)
    after = sum(Path(s).stat().st_size for _, s, _ in kept)
    assert before - after > 30 * 2**20
