"""A wheel of each distribution (distributions/*/pyproject.toml) installs alone in a fresh venv and runs there:
what it declares is enough, what it carries is found (migrations, models, the starter catalogs), and it brings
nothing of the others'. Slow, so marked `build`: over a minute on a quiet machine, most of it pip unpacking the
kiosk's Qt and OpenCV wheels (850 MB), many more on a busy disk. pip may use PyPI and the local caches;
nailmirror-protocol comes from the folder of wheels built here."""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.support.hq_servers import free_port, wait_port

pytestmark = pytest.mark.build

ROOT = Path(__file__).resolve().parents[1]
STARTER_STYLES = len(json.loads((ROOT / "resources" / "starter_catalog" / "catalog.json").read_text())["styles"])
MIGRATIONS = sorted(p.name for p in (ROOT / "migrations").glob("*.sql"))


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without what would let the checkout or .venv leak into the fresh venv."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME") and not k.startswith("NAILMIRROR_")}
    return {**env, "PYTHONNOUSERSITE": "1", **extra}


def run(*args: object, cwd: Path, env: dict[str, str] | None = None,
        timeout: float = 120) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=env or clean_env(), capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, f"{args}: exit {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    return done


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheels")
    for name in ("nailmirror-protocol", "nailmirror", "nailmirror-hq"):
        run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", out, ROOT / "distributions" / name,
            cwd=out, timeout=300)
    return out


def fresh_venv_with(wheels: Path, name: str, where: Path) -> Path:
    """A new venv at `where` with the wheel of `name` and what it declares (nothing else); returns its bin/."""
    run(sys.executable, "-m", "venv", where, cwd=where.parent, timeout=600)
    (wheel,) = wheels.glob(f"{name.replace('-', '_')}-*.whl")
    run(where / "bin" / "python", "-m", "pip", "install", "-q", "--disable-pip-version-check",
        "--find-links", wheels, wheel, cwd=where.parent, timeout=1800)
    return where / "bin"


def test_the_protocol_wheel_installs_alone(wheels: Path, tmp_path: Path) -> None:
    bin_dir = fresh_venv_with(wheels, "nailmirror-protocol", tmp_path / "venv")
    probe = run(bin_dir / "python", "-c", "import json, importlib.metadata as m, nailmirror_protocol as p; "
                "print(json.dumps([p.PROTOCOL_VERSION, sorted(d.metadata['Name'] for d in m.distributions())]))",
                cwd=tmp_path)
    assert json.loads(probe.stdout) == [1, ["nailmirror-protocol", "pip"]]


KIOSK_PROBE = """
import importlib.util, json, sys
from nailmirror_desktop.app.services import load_starter_catalog_in_own_connection
from nailmirror_desktop.core import paths
from nailmirror_desktop.vision.tracking.hand_model import default_bundle_path, verify_bundle

verify_bundle(default_bundle_path())
load_starter_catalog_in_own_connection()
print(json.dumps({
    "bundle_root": str(paths.bundle_root()),
    "migrations": sorted(p.name for p in paths.migrations_dir().glob("*.sql")),
    "segmenter": all((paths.models_dir() / f).is_file() for f in ("nail_segmenter.onnx", "nail_segmenter_still.onnx")),
    "translations": sorted(p.name for p in (paths.resources_dir() / "translations").glob("*.qm")),
    "not_installed": [m for m in ("nailmirror_hq", "fastapi", "sqlalchemy", "uvicorn", "mediapipe")
                      if importlib.util.find_spec(m) is None],
}))
"""


def test_the_kiosk_wheel_installs_alone_and_runs(wheels: Path, tmp_path: Path) -> None:
    bin_dir = fresh_venv_with(wheels, "nailmirror", tmp_path / "venv")
    env = clean_env(NAILMIRROR_HOME=str(tmp_path / "home"), QT_QPA_PLATFORM="offscreen")

    assert "export" in run(bin_dir / "nailmirror", "--help", cwd=tmp_path, env=env).stdout
    assert not (bin_dir / "nailmirror-hq").exists()
    found = json.loads(run(bin_dir / "python", "-c", KIOSK_PROBE, cwd=tmp_path, env=env).stdout)
    assert Path(found["bundle_root"]).is_relative_to(tmp_path / "venv")
    assert found["migrations"] == MIGRATIONS
    assert found["segmenter"] and found["translations"] == ["nailmirror_en.qm", "nailmirror_zh_CN.qm"]
    # mediapipe goes in separately, with --no-deps (distributions/nailmirror/pyproject.toml)
    assert found["not_installed"] == ["nailmirror_hq", "fastapi", "sqlalchemy", "uvicorn", "mediapipe"]
    # The database the probe made from the wheel's migrations, with the wheel's starter catalog in it.
    styles = json.loads(run(bin_dir / "nailmirror", "styles", "list", "--source", "CATALOG", "--json",
                            cwd=tmp_path, env=env).stdout)
    assert len(styles) == STARTER_STYLES
    audit = csv.DictReader(io.StringIO(run(bin_dir / "nailmirror", "export", "audit", "--csv", cwd=tmp_path,
                                           env=env).stdout))  # sqlite-utils came with the wheel
    assert {row["actor"] for row in audit} == {"starter_catalog"}


def test_the_hq_wheel_installs_alone_and_serves_on_sqlite(wheels: Path, tmp_path: Path) -> None:
    bin_dir = fresh_venv_with(wheels, "nailmirror-hq", tmp_path / "venv")
    data = tmp_path / "hq"

    assert "serve" in run(bin_dir / "nailmirror-hq", "--help", cwd=tmp_path).stdout
    assert not (bin_dir / "nailmirror").exists()
    kiosk_side = run(bin_dir / "python", "-c", "import importlib.util as u; "
                     "print([m for m in ('nailmirror_desktop', 'PySide6', 'cv2', 'sqlite_utils') if u.find_spec(m)])",
                     cwd=tmp_path)
    assert kiosk_side.stdout.strip() == "[]"
    port = free_port()
    server = subprocess.Popen([bin_dir / "nailmirror-hq", "--data", data, "serve", "--port", str(port)],
                              cwd=tmp_path, env=clean_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True)
    try:
        assert wait_port(port, 60), f"HQ did not listen on port {port}"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as answer:
            assert json.loads(answer.read())["status"] == "ok"
    finally:
        server.send_signal(signal.SIGINT)
        server.communicate(timeout=30)
    assert (data / "hq.sqlite3").is_file()
    # The starter catalog HQ loaded at its first start came from the wheel's package data.
    styles = json.loads(run(bin_dir / "nailmirror-hq", "--data", data, "--json", "styles", "list",
                            cwd=tmp_path).stdout)
    assert len(styles) == STARTER_STYLES
