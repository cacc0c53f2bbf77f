"""The build hook the three distributions share: it puts files from the checkout into the wheel.

The packages stay where they are (nailmirror_desktop/, nailmirror_hq/, nailmirror_protocol/ at the repository
root, beside each other); each distribution's pyproject.toml in distributions/<name>/ names what its wheel holds in
`[tool.hatch.build.hooks.custom.include]`: a path relative to the repository root → where it goes in the wheel.
A regular wheel gets them through hatchling's `force_include`. An editable install gets none of them: the
pyproject's `dev-mode-dirs` puts the repository root on sys.path instead, so the checkout's files are the ones that
run. Sdists are refused: the files lie outside the distribution's folder, and a wheel built from an unpacked sdist
would not find them; build wheels from the checkout (`python -m build --wheel distributions/<name>`).
"""

from __future__ import annotations

import os
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

REPOSITORY_ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


class CheckoutFilesHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            raise RuntimeError(f"{self.target_name}: only wheels are built from this checkout "
                               "(python -m build --wheel distributions/<name>)")
        if version == "editable":
            return
        include: dict[str, str] = self.config.get("include", {})
        for source, target in include.items():
            path = os.path.join(REPOSITORY_ROOT, source)
            if not os.path.exists(path):
                raise FileNotFoundError(f"{source} is missing from the checkout ({path}); run ./dev setup first")
            build_data["force_include"][path] = target
        for source in self.config.get("require", []):
            if not os.path.isfile(os.path.join(REPOSITORY_ROOT, source)):
                raise FileNotFoundError(f"{source} is missing from the checkout: run ./dev setup first "
                                        "(it builds it), then build the wheel again")
