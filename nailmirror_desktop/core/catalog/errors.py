"""Errors of the style domain. Each carries a code (the UI and CLI translate codes, core writes no sentences)."""

from __future__ import annotations


class StyleError(Exception):
    """A request the style domain refused. `code` is stable; `detail` is for logs and developers."""

    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(f"{code}: {detail}" if detail else code)
        self.code = code
        self.detail = detail


class StyleNotFound(StyleError):
    def __init__(self, detail: str = "") -> None:
        super().__init__("STYLE_NOT_FOUND", detail)


class IllegalTransition(StyleError):
    def __init__(self, from_status: str, to_status: str) -> None:
        super().__init__("ILLEGAL_TRANSITION", f"{from_status} -> {to_status}")
        self.from_status = from_status
        self.to_status = to_status


class ImageRejected(StyleError):
    """An image refused before it entered the asset store.

    Codes: IMAGE_EMPTY, IMAGE_TOO_LARGE (bytes), IMAGE_FORMAT_NOT_ALLOWED, IMAGE_TOO_MANY_PIXELS,
    IMAGE_TRUNCATED, IMAGE_CORRUPT.
    """
