"""The three distributions (distributions/*/pyproject.toml) against the code and requirements/*.txt, without
building anything: every module a package imports is declared by its distribution, each declared range holds the
exact pin ./dev installs, and the kiosk declares nothing of HQ's (tests/test_wheels.py builds and installs them)."""

from __future__ import annotations

import ast
import sys
import tomllib
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
DISTRIBUTIONS = {"nailmirror": "nailmirror_desktop", "nailmirror-hq": "nailmirror_hq",
                 "nailmirror-protocol": "nailmirror_protocol"}
REQUIREMENTS = {"nailmirror": "app.txt", "nailmirror-hq": "hq.txt"}
OURS = set(DISTRIBUTIONS.values())
# The distribution a top-level module comes from, where the module's name is not the distribution's.
# shiboken6 is PySide6's own runtime, released with it in lockstep (PySide6-Essentials pins it exactly).
PROVIDED_BY = {"PySide6": "PySide6-Essentials", "shiboken6": "PySide6-Essentials", "cv2": "opencv-python-headless",
               "PIL": "pillow", "argon2": "argon2-cffi"}
# Imported but deliberately undeclared: its own pins would pull numpy<2 and a Qt5 OpenCV (requirements/mediapipe.txt,
# installed with --no-deps; distributions/nailmirror/pyproject.toml says how a wheel install gets it).
UNDECLARED = {"nailmirror": {"mediapipe"}}
HQ_STACK = {"fastapi", "starlette", "sqlalchemy", "alembic", "uvicorn", "psycopg", "boto3", "botocore"}


@cache
def project(name: str) -> dict[str, Any]:
    return tomllib.loads((ROOT / "distributions" / name / "pyproject.toml").read_text())["project"]


def declared(name: str) -> dict[str, Requirement]:
    return {canonicalize_name(r.name): r for r in map(Requirement, project(name)["dependencies"])}


def pins(file: str) -> dict[str, str]:
    found = {}
    for line in (ROOT / "requirements" / file).read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            requirement = Requirement(line)
            (spec,) = requirement.specifier
            assert spec.operator == "==", f"{file}: {line} is not an exact pin"
            found[canonicalize_name(requirement.name)] = spec.version
    return found


def imported_top_level_modules(package: str) -> set[str]:
    names = set()
    for path in (ROOT / package).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return {n for n in names if n not in sys.stdlib_module_names and n not in OURS}


def test_the_three_share_one_version_and_the_protocol_is_pinned_to_it() -> None:
    version = project("nailmirror-protocol")["version"]
    for name in ("nailmirror", "nailmirror-hq"):
        assert project(name)["version"] == version
        assert str(declared(name)["nailmirror-protocol"].specifier) == f"=={version}"
    assert project("nailmirror-protocol")["dependencies"] == []


@pytest.mark.parametrize("name", ["nailmirror", "nailmirror-hq"])
def test_every_module_a_package_imports_is_declared(name: str) -> None:
    names = {canonicalize_name(PROVIDED_BY.get(m, m)) for m in imported_top_level_modules(DISTRIBUTIONS[name])}
    missing = names - set(declared(name)) - {canonicalize_name(m) for m in UNDECLARED.get(name, ())}
    assert not missing, f"{name} imports {sorted(missing)} without declaring them"


def test_the_protocol_imports_nothing_outside_the_standard_library() -> None:
    assert imported_top_level_modules("nailmirror_protocol") == set()


@pytest.mark.parametrize("name", ["nailmirror", "nailmirror-hq"])
def test_each_declared_range_holds_the_pin_dev_installs(name: str) -> None:
    pinned = pins(REQUIREMENTS[name])
    for key, requirement in declared(name).items():
        if key == "nailmirror-protocol":
            continue
        assert key in pinned, f"{name} declares {requirement}, which requirements/{REQUIREMENTS[name]} does not pin"
        assert requirement.specifier.contains(pinned[key]), f"{requirement} excludes the pin {pinned[key]}"


def test_the_kiosk_declares_every_pin_of_app_txt_and_none_of_hqs_stack() -> None:
    kiosk = set(declared("nailmirror"))
    assert set(pins("app.txt")) <= kiosk
    assert not kiosk & HQ_STACK
    # Shared on purpose: the protocol, and cryptography (HQ signs model releases, the kiosk checks them).
    assert not kiosk & (set(declared("nailmirror-hq")) - {"nailmirror-protocol", "cryptography"})


def test_each_command_comes_from_its_own_distribution() -> None:
    assert project("nailmirror")["scripts"] == {"nailmirror": "nailmirror_desktop.cli:main"}
    assert project("nailmirror-hq")["scripts"] == {"nailmirror-hq": "nailmirror_hq.cli:main"}
    assert "scripts" not in project("nailmirror-protocol")
