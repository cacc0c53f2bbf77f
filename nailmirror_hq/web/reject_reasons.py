"""The reasons a reviewer picks from when rejecting a draft, or free text, or both. The store's staff read the
reason on the kiosk, so a picked reason is recorded in the chain's primary language (zh_CN), whatever the
reviewer's page shows; free text is recorded as typed."""

from __future__ import annotations

from nailmirror_hq.web import i18n

MAX_REASON = 500
REASONS = {
    "brand_colours": "Colours do not match the brand palette",
    "image_quality": "Image quality is too low",
    "textures": "Nail textures are incomplete or misaligned",
    "duplicate": "Too similar to an existing style",
    "naming": "Name or tags need work",
    "unsuitable": "Not suitable for our stores",
}


def reason_text(code: str, free_text: str) -> str:
    """The reason to record: the picked one, the free text, or "picked: free text"; "" when neither."""
    free = " ".join(free_text.split())[:MAX_REASON]
    picked = i18n.translations(i18n.DEFAULT).gettext(REASONS[code]) if code in REASONS else ""
    return f"{picked}：{free}" if picked and free else picked or free
