"""Build models/hand_landmarker.task from the pinned mediapipe 0.10.21 wheel, reproducibly.

Usage: python tools/build_hand_model.py [--wheel PATH] [--out PATH]
Without --wheel the models are read from the installed mediapipe 0.10.21 package (the same bytes as the
wheel; each member is sha256-checked either way). The result is checked against the known bundle sha256.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nailmirror_desktop.vision.tracking import hand_model  # noqa: E402


def installed_mediapipe_root() -> Path:
    spec = importlib.util.find_spec("mediapipe")
    if spec is None or spec.origin is None:
        raise SystemExit("mediapipe is not installed; pass --wheel mediapipe-0.10.21-…whl")
    return Path(spec.origin).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheel", type=Path)
    parser.add_argument("--out", type=Path, default=ROOT / "models" / hand_model.BUNDLE_NAME)
    args = parser.parse_args()
    if args.wheel:
        members = hand_model.read_members_from_wheel(args.wheel)
    else:
        members = hand_model.read_members_from_site(installed_mediapipe_root())
    data = hand_model.build_bundle(members)
    tmp = args.out.with_suffix(".tmp")
    tmp.write_bytes(data)
    tmp.replace(args.out)
    hand_model.verify_bundle(args.out)
    print(f"built {args.out} ({len(data)} bytes), sha256 verified")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
