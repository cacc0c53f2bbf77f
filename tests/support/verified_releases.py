"""Nail model releases on the kiosk's side for tests: a release offered and verified in the store as the sync would
leave it (core/model_releases/store.py), and model files to offer (tests/support/onnx_models.py)."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from pathlib import Path

from nailmirror_desktop.core.model_releases import store
from nailmirror_desktop.core.paths import models_dir
from tests.support.onnx_models import conv_model, write_model

BUNDLED = models_dir() / "nail_segmenter.onnx"


def offer_verified(conn: sqlite3.Connection, path: Path, release: int, slot: str = "live") -> str:
    """`path` offered as `release` of `slot` and verified (downloaded, size and sha256 checked); its version."""
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    manifest = {"name": "nail_segmenter", "version": f"nail_segmenter-{digest[:12]}", "slot": slot,
                "sha256": digest, "size": path.stat().st_size,
                "inputs": [{"name": "roi", "shape": [-1, 3, 64, 64], "dtype": "float32"}],
                "outputs": [{"name": "logits", "shape": [-1, 1, 64, 64], "dtype": "float32"}],
                "gate_report_id": "gate-1", "created_at": "2026-12-05T02:00:00.000Z"}
    store.record_offered(conn, slot, release, manifest)
    store.mark_verified(conn, slot, release, str(path))
    return str(manifest["version"])


def blind_model(folder: Path) -> Path:
    """Passes every check a file can pass (right shapes, finite) and sees no nail anywhere."""
    return write_model(folder / "blind.onnx", conv_model(bias=-8.0))


def as_good_model(folder: Path) -> Path:
    """The bundled model's bytes under another path: a retrained model exactly as good."""
    folder.mkdir(parents=True, exist_ok=True)
    return Path(shutil.copy(BUNDLED, folder / "retrained.onnx"))
