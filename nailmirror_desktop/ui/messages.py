"""Codes from core (task states, error codes) turned into words a customer or staff member can act on."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication


def _tr(text: str) -> str:
    return QCoreApplication.translate("Messages", text)


def generation_error_text(code: str | None, error_class: str | None = None) -> str:
    """A friendly sentence for why a generation did not produce a style (task error code and class)."""
    code = (code or "").upper()
    error_class = (error_class or "").upper()
    if error_class == "CONTENT_REJECTED":
        return _tr("We can't make that design. Please describe it differently.")
    if code.startswith("NETWORK") or code in ("DOWNLOAD_INTERRUPTED",):
        return _tr("The design service can't be reached right now. Try a quick-pick style, or ask our staff.")
    if error_class == "CONFIG":
        return _tr("The design service is paused. Please ask our staff.")
    if code == "TOO_MANY_PENDING_TASKS":
        return _tr("Lots of designs are being made right now. Please try again in a minute.")
    if code in ("CONTENT_REJECTED", "MODERATION_BLOCKED", "DATAINSPECTIONFAILED", "PROMPT_REJECTED") or (
        "REJECT" in code or "MODERATION" in code or "INSPECTION" in code
    ):
        return _tr("We can't make that design. Please describe it differently.")
    if code in ("NO_NETWORK", "NETWORK", "CONNECTION_ERROR", "TIMEOUT", "TRANSIENT") or "NETWORK" in code:
        return _tr("The design service can't be reached right now. Try a quick-pick style, or ask our staff.")
    if code in ("CIRCUIT_OPEN", "CONFIG", "INSUFFICIENT_QUOTA", "INVALID_API_KEY") or "QUOTA" in code:
        return _tr("The design service is paused. Please ask our staff.")
    if code in ("EMPTY_PROMPT",):
        return _tr("Tell us a colour or a pattern first.")
    return _tr("Something went wrong making this design. Please try again.")


def task_status_text(status: str) -> str:
    names = {
        "PENDING": _tr("Waiting"),
        "PROCESSING": _tr("Working"),
        "SUCCESS": _tr("Done"),
        "FAILED": _tr("Failed, will retry"),
        "CANCELED": _tr("Canceled"),
        "DEAD": _tr("Dead letter"),
    }
    return names.get(status, status)


def style_status_text(status: str) -> str:
    names = {
        "DRAFT": _tr("Draft"),
        "PENDING_REVIEW": _tr("Pending review"),
        "PUBLISHED": _tr("Published"),
        "REJECTED": _tr("Rejected"),
        "OFF_SHELF": _tr("Off shelf"),
    }
    return names.get(status, status)
