"""ndarray ↔ QImage in one place, so stride and channel-order rules are written once."""

from __future__ import annotations

import numpy as np
from PySide6.QtGui import QImage


def bgr_to_qimage(frame: np.ndarray) -> QImage:
    """(H, W, 3) uint8 BGR → an RGB888 QImage that owns its pixels (safe after `frame` is reused)."""
    if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
        raise ValueError(f"expected (H, W, 3) uint8 BGR, got {frame.shape} {frame.dtype}")
    rgb = np.ascontiguousarray(frame[:, :, ::-1])
    height, width = rgb.shape[:2]
    return QImage(rgb.data, width, height, rgb.strides[0], QImage.Format.Format_RGB888).copy()


def qimage_to_bgr(image: QImage) -> np.ndarray:
    """Any QImage → (H, W, 3) uint8 BGR copy."""
    rgb = image.convertToFormat(QImage.Format.Format_RGB888)
    width, height = rgb.width(), rgb.height()
    buffer = np.frombuffer(rgb.constBits(), dtype=np.uint8, count=rgb.bytesPerLine() * height)
    rows = buffer.reshape(height, rgb.bytesPerLine())[:, : width * 3]
    return rows.reshape(height, width, 3)[:, :, ::-1].copy()
