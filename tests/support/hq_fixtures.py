"""Test data for HQ: real PNG files (stdlib zlib), style folders in the kiosk's format, enrolled kiosks."""

from __future__ import annotations

import hashlib
import json
import struct
import uuid
import zlib
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from nailmirror_hq import db, stores
from nailmirror_hq.service import HQ


def png(width: int = 8, height: int = 12, rgb: tuple[int, int, int] = (200, 30, 40), salt: int = 0) -> bytes:
    """A real PNG; `salt` changes one pixel so two images of the same size differ."""
    rows = []
    for y in range(height):
        row = bytearray(b"\x00")
        for x in range(width):
            pixel = (rgb[0], rgb[1], (rgb[2] + salt) % 256) if (x, y) == (0, 0) else rgb
            row += bytes(pixel)
        rows.append(bytes(row))
    raw = b"".join(rows)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def style_folder(root: Path, name: str = "测试款", salt: int = 0, accent: bool = True) -> Path:
    folder = root / f"style-{salt}"
    folder.mkdir(parents=True)
    (folder / "nail.png").write_bytes(png(salt=salt))
    if accent:
        (folder / "accent.png").write_bytes(png(rgb=(20, 80, 50), salt=salt))
    (folder / "preview.png").write_bytes(png(32, 24, (240, 230, 220), salt=salt))
    meta: dict[str, Any] = {"name": name, "design": {"finish": "gloss"}, "seed": 7}
    if accent:
        meta["accent_fingers"] = ["ring"]
    (folder / "style.json").write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")
    return folder


def add_store(hq: HQ, name: str = "SH-0012", channel: str = "all") -> tuple[str, str]:
    with db.write(hq.engine) as conn:
        found, code = stores.add_store(conn, name, channel, "test")
    return found.id, code


def enroll(client: TestClient, code: str, kiosk_name: str = "front desk") -> dict[str, str]:
    """Enroll through the API; the headers a kiosk then sends."""
    answer = client.post("/v1/enroll", json={"nm": 1, "code": code, "kiosk_name": kiosk_name, "app_version": "0.1.0"})
    assert answer.status_code == 201, answer.text
    return {"Authorization": f"Bearer {answer.json()['token']}", "NM-Protocol": "1"}


def new_kiosk(hq: HQ, client: TestClient, name: str = "SH-0012", channel: str = "all") -> tuple[str, dict[str, str]]:
    store_id, code = add_store(hq, name, channel)
    return store_id, enroll(client, code)


def upload(client: TestClient, headers: dict[str, str], data: bytes) -> str:
    answer = client.put(f"/v1/blobs/{sha(data)}", content=data, headers={**headers, "Content-Type": "image/png"})
    assert answer.status_code in (200, 201), answer.text
    return sha(data)


def draft_body(client: TestClient, headers: dict[str, str], salt: int = 0, name: str = "奶白贝壳猫眼",
               style_code: str | None = None) -> dict[str, Any]:
    """A draft revision body whose blobs are already uploaded."""
    nail, ai = png(salt=salt), png(16, 16, (10, 10, 10), salt=salt)
    upload(client, headers, nail)
    upload(client, headers, ai)
    body: dict[str, Any] = {
        "nm": 1, "source": "AI", "parent_id": None, "name": {"zh": name, "en": ""}, "category": "french",
        "tags": ["shell"], "accent_fingers": [], "prompt": "奶白色底，无名指跳色酒红猫眼",
        "design": {"base": "milky_white"}, "provider": "offline",
        "assets": [{"type": "NAIL_TEXTURE", "slot": "nail", "sha256": sha(nail), "size": len(nail), "format": "PNG",
                    "width": 8, "height": 12},
                   {"type": "AI_DRAFT", "slot": "", "sha256": sha(ai), "size": len(ai), "format": "PNG",
                    "width": 16, "height": 16}]}
    if style_code:
        body["style_code"] = style_code
    return body


def new_draft_id() -> str:
    return str(uuid.uuid4())


class Ticks:
    """The clock HQ's throttles count in (create_app's `ticks`), moved only by the test: nothing sleeps."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds
