"""Shared test setup: a private data directory per test, offscreen Qt, and the real photos in ../shared/data
(NAILMIRROR_SHARED_DATA=DIR reads them from elsewhere)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("NAILMIRROR_SHARED_DATA") or ROOT.parent / "shared" / "data")
NAILS_EVAL = SHARED_DATA / "nails_eval"

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("MPLCONFIGDIR", str(ROOT / ".cache" / "matplotlib"))
os.environ.setdefault("NAILMIRROR_RETRY_BASE_S", "0.01")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--fuzz", action="store_true", default=False,
                     help="run the property-based tests (tests/fuzz) long: many more examples, no time cap")


def pytest_configure(config: pytest.Config) -> None:
    # Property-based tests (tests/fuzz/) run a bounded number of examples in the normal suite so CI stays fast;
    # `--fuzz` runs them long. The quick profile is derandomized so a CI run is repeatable; the long one explores.
    from hypothesis import HealthCheck, settings

    settings.register_profile("quick", max_examples=60, deadline=None, derandomize=True,
                              suppress_health_check=[HealthCheck.too_slow])
    settings.register_profile("fuzz", max_examples=5000, deadline=None,
                              suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile("fuzz" if config.getoption("--fuzz") else "quick")


@pytest.fixture(autouse=True)
def nailmirror_home(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "nailmirror-home"
    home.mkdir()
    monkeypatch.setenv("NAILMIRROR_HOME", str(home))
    return home


@pytest.fixture(scope="session")
def nails_eval_dir() -> Path:
    """The internal evaluation photos (images/ and masks/), which live beside the checkout, not in it. Without
    them the test is skipped, except under CI (CI=true), which always has them: there a missing folder fails."""
    if not (NAILS_EVAL / "images").is_dir():
        reason = f"needs the internal photos in {NAILS_EVAL} (../shared/data beside the checkout)"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"CI: {reason}")
        pytest.skip(reason)
    return NAILS_EVAL
