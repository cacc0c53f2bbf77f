"""The MediaPipe hand-landmarker bundle: where it lives, how it is built, and how it is verified.

The bundle is built reproducibly from the pinned mediapipe 0.10.21 wheel (ARCHITECTURE.md §11): its two TFLite
models, checked by sha256, stored uncompressed in a zip with 64-byte aligned member data (LiteRT otherwise
copies the weights to an aligned buffer with a warning) and fixed timestamps, so two builds are byte-identical.
Nothing is ever downloaded from a model hub.
"""

from __future__ import annotations

import hashlib
import io
import struct
import zipfile
from dataclasses import dataclass
from pathlib import Path

BUNDLE_NAME = "hand_landmarker.task"
BUNDLE_SHA256 = "3c05a595b195902bc153e97a53fb669db9b45ceabccb39902bc0ab3e6db9974c"
# mediapipe 0.10.21 wheel member -> (name inside the .task, sha256 of the member)
MEMBERS: dict[str, tuple[str, str]] = {
    "mediapipe/modules/palm_detection/palm_detection_full.tflite": (
        "hand_detector.tflite",
        "1b14e9422c6ad006cde6581a46c8b90dd573c07ab7f3934b5589e7cea3f89a54",
    ),
    "mediapipe/modules/hand_landmark/hand_landmark_full.tflite": (
        "hand_landmarks_detector.tflite",
        "11c272b891e1a99ab034208e23937a8008388cf11ed2a9d776ed3d01d0ba00e3",
    ),
}
ALIGNMENT = 64
_ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)
_FIX = "run `python tools/build_hand_model.py` (the ./dev script does it for you)"


class HandModelError(RuntimeError):
    """The hand model is missing or not the verified build."""


@dataclass(frozen=True)
class ModelMember:
    name: str
    data: bytes


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_members_from_wheel(wheel: Path) -> list[ModelMember]:
    with zipfile.ZipFile(wheel) as whl:
        return _verified([(src, whl.read(src)) for src in MEMBERS])


def read_members_from_site(package_root: Path) -> list[ModelMember]:
    """Read the models from an installed mediapipe 0.10.21 (`package_root` holds `mediapipe/`)."""
    return _verified([(src, (package_root / src).read_bytes()) for src in MEMBERS])


def _verified(sources: list[tuple[str, bytes]]) -> list[ModelMember]:
    members = []
    for src, data in sources:
        name, expected = MEMBERS[src]
        if _sha256(data) != expected:
            raise HandModelError(f"sha256 mismatch for {src}: not the mediapipe 0.10.21 model")
        members.append(ModelMember(name, data))
    return members


def build_bundle(members: list[ModelMember]) -> bytes:
    """Zip the members uncompressed, each member's data aligned to ALIGNMENT bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as task:
        for member in members:
            info = zipfile.ZipInfo(member.name, date_time=_ZIP_EPOCH)
            info.external_attr = 0o644 << 16
            info.create_system = 3
            header_end = buffer.tell() + 30 + len(member.name.encode())
            pad = (-header_end) % ALIGNMENT
            if 0 < pad < 4:  # an extra field needs 4 bytes of header
                pad += ALIGNMENT
            # 0xD935 is the zipalign padding extra-field id
            info.extra = struct.pack("<HH", 0xD935, pad - 4) + b"\0" * (pad - 4) if pad else b""
            task.writestr(info, member.data)
    return buffer.getvalue()


def verify_bundle(path: Path) -> Path:
    """Return `path` if it is the verified bundle, else raise HandModelError naming the fix."""
    if not path.is_file():
        raise HandModelError(f"hand model not found at {path}; {_FIX}")
    digest = _sha256(path.read_bytes())
    if digest != BUNDLE_SHA256:
        raise HandModelError(
            f"hand model at {path} is corrupt or not the verified build (sha256 {digest[:12]}…); {_FIX}"
        )
    return path


def default_bundle_path() -> Path:
    from nailmirror_desktop.core.paths import models_dir

    return models_dir() / BUNDLE_NAME
