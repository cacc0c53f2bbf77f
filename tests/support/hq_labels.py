"""Captures for the labelling tests: a photo with a proposed mask and nail quads, put through the kiosks' route,
on a (store, day) chosen in or out of the evaluation split."""

from __future__ import annotations

import base64
import hashlib
from datetime import date, timedelta
from typing import Any

from fastapi.testclient import TestClient

from nailmirror_hq import labels, mask_png
from tests.support.hq_fixtures import png

WIDTH, HEIGHT = 120, 90
PROPOSED = (10, 10, 40, 30)  # left, top, right, bottom of the kiosk's proposed nail (exclusive)


def rect_mask(*boxes: tuple[int, int, int, int], width: int = WIDTH, height: int = HEIGHT) -> bytes:
    pixels = bytearray(width * height)
    for left, top, right, bottom in boxes:
        for y in range(top, bottom):
            pixels[y * width + left:y * width + right] = b"\xff" * (right - left)
    return bytes(pixels)


def day_for(store_id: str, evaluation: bool) -> str:
    """A UTC day in December 2026 whose (store, day) is (or is not) in the evaluation split."""
    for n in range(200):
        day = (date(2026, 12, 1) + timedelta(days=n)).isoformat()
        if labels.in_evaluation(store_id, day) == evaluation:
            return day
    raise AssertionError("no such day")


def put_capture(client: TestClient, headers: dict[str, str], code: str, day: str, salt: int = 0) -> bytes:
    image = png(WIDTH, HEIGHT, (190, 150, 140), salt=salt)
    proposal = mask_png.write_mask(rect_mask(PROPOSED), WIDTH, HEIGHT)
    facts: dict[str, Any] = {
        "hands": [], "faces_blurred": 0,
        "nails": [{"finger": "index", "hand": 0, "opacity": 1.0, "corners": [[10, 10], [40, 10], [40, 30], [10, 30]]},
                  {"finger": "middle", "hand": 0, "opacity": 1.0,
                   "corners": [[60, 40], [90, 40], [90, 70], [60, 70]]}],
        "proposed_mask_png_b64": base64.b64encode(proposal).decode()}
    body = {"nm": 1, "code": code, "image_png_b64": base64.b64encode(image).decode(),
            "image_sha256": hashlib.sha256(image).hexdigest(), "taken_at": f"{day}T10:00:00.000Z",
            "consent": {"by": "customer", "at": f"{day}T10:00:00.000Z", "text_version": "v1"},
            "model_version": "nail_segmenter-2ae635817291", "facts": facts}
    answer = client.put(f"/v1/captures/{code}", json=body, headers=headers)
    assert answer.status_code == 201, answer.text
    return image
