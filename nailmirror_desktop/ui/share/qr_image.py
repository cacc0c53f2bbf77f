"""A QR code as a QImage (segno computes the modules; Qt paints them), dark on white with the quiet zone."""

from __future__ import annotations

import segno
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage, QPainter

QUIET_ZONE = 4  # modules of white around the code: phone cameras need it to find the code


def qr_image(text: str, module_px: int = 8) -> QImage:
    """`text` as a QR code (error correction M), `module_px` pixels per module, on white."""
    code = segno.make(text, error="m", micro=False)
    rows = [list(row) for row in code.matrix_iter(scale=1, border=QUIET_ZONE)]
    side = len(rows) * module_px
    image = QImage(side, side, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    for y, row in enumerate(rows):
        for x, dark in enumerate(row):
            if dark:
                painter.fillRect(x * module_px, y * module_px, module_px, module_px, Qt.GlobalColor.black)
    painter.end()
    return image
