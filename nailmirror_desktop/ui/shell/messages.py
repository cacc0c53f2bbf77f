"""Codes from core (task states, error codes) turned into words a customer or staff member can act on."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

# Every string is a literal QCoreApplication.translate("Messages", …) call so pyside6-lupdate finds it.


def generation_error_text(code: str | None, error_class: str | None = None) -> str:
    """A friendly sentence for why a generation did not produce a style (task error code and class)."""
    code = (code or "").upper()
    error_class = (error_class or "").upper()
    own = _own_sentence(code)
    if own is not None:
        return own
    credit = _credit_refusal_sentence(code)
    if credit is not None:
        return credit
    if error_class == "CONTENT_REJECTED":
        return QCoreApplication.translate("Messages", "We can't make that design. Please describe it differently.")
    if code.startswith("NETWORK") or code in ("DOWNLOAD_INTERRUPTED",):
        return QCoreApplication.translate(
            "Messages", "The design service can't be reached right now. Try a quick-pick style, or ask our staff.")
    if error_class == "CONFIG":
        return QCoreApplication.translate("Messages", "The design service is paused. Please ask our staff.")
    if code == "TOO_MANY_PENDING_TASKS":
        return QCoreApplication.translate(
            "Messages", "Lots of designs are being made right now. Please try again in a minute.")
    if code in ("CONTENT_REJECTED", "MODERATION_BLOCKED", "DATAINSPECTIONFAILED", "PROMPT_REJECTED") or (
        "REJECT" in code or "MODERATION" in code or "INSPECTION" in code
    ):
        return QCoreApplication.translate("Messages", "We can't make that design. Please describe it differently.")
    if code in ("NO_NETWORK", "NETWORK", "CONNECTION_ERROR", "TIMEOUT", "TRANSIENT") or "NETWORK" in code:
        return QCoreApplication.translate(
            "Messages", "The design service can't be reached right now. Try a quick-pick style, or ask our staff.")
    if code in ("CIRCUIT_OPEN", "CONFIG", "INSUFFICIENT_QUOTA", "INVALID_API_KEY") or "QUOTA" in code:
        return QCoreApplication.translate("Messages", "The design service is paused. Please ask our staff.")
    if code in ("EMPTY_PROMPT",):
        return QCoreApplication.translate("Messages", "Tell us a colour or a pattern first.")
    return QCoreApplication.translate("Messages", "Something went wrong making this design. Please try again.")


def _own_sentence(code: str) -> str | None:
    """Codes whose cause the customer should hear exactly, whatever their error class (before the class
    rules: OUTCOME_UNKNOWN and INVALID_RESPONSE are INVALID_REQUEST, and "try again" is wrong for the first)."""
    if code == "STORAGE_FULL":
        return QCoreApplication.translate(
            "Messages", "The kiosk's storage is full, so no new design can be saved. Please ask our staff.")
    if code == "INVALID_RESPONSE":
        return QCoreApplication.translate(
            "Messages", "The design service sent back something we could not use. Please try again.")
    if code == "OUTCOME_UNKNOWN":
        return QCoreApplication.translate(
            "Messages", "We lost contact while your design was being made. So you are not charged twice, we did "
                        "not ask again: please ask our staff before trying again.")
    if code == "WAIT_TIMEOUT":
        return QCoreApplication.translate(
            "Messages", "Your design took too long and was stopped. Please try again, or try a quick pick.")
    return None


def task_status_text(status: str) -> str:
    names = {
        "PENDING": QCoreApplication.translate("Messages", "Waiting"),
        "PROCESSING": QCoreApplication.translate("Messages", "Working"),
        "SUCCESS": QCoreApplication.translate("Messages", "Done"),
        "FAILED": QCoreApplication.translate("Messages", "Failed, will retry"),
        "CANCELED": QCoreApplication.translate("Messages", "Canceled"),
        "DEAD": QCoreApplication.translate("Messages", "Dead letter"),
    }
    return names.get(status, status)


def style_status_text(status: str) -> str:
    names = {
        "DRAFT": QCoreApplication.translate("Messages", "Draft"),
        "PENDING_REVIEW": QCoreApplication.translate("Messages", "Pending review"),
        "PUBLISHED": QCoreApplication.translate("Messages", "Published"),
        "REJECTED": QCoreApplication.translate("Messages", "Rejected"),
        "OFF_SHELF": QCoreApplication.translate("Messages", "Off shelf"),
    }
    return names.get(status, status)


def _credit_refusal_sentence(code: str) -> str | None:
    """Credit refusals (core/credits): the generation was never queued; say what the customer can do instead."""
    if code == "INSUFFICIENT_CREDITS":
        return QCoreApplication.translate(
            "Messages", "AI design is not available right now. Try a quick-pick style, or ask our staff.")
    if code == "DAILY_CAP_REACHED":
        return QCoreApplication.translate(
            "Messages", "We have made all the AI designs we can today. Try a quick-pick style, or come back tomorrow.")
    if code == "SESSION_CAP_REACHED":
        return QCoreApplication.translate(
            "Messages", "You have made the most AI designs for one visit. Try on the ones you made, or pick a style.")
    return None


def provider_text(provider: str) -> str:
    """An image provider as staff know it (the config's id, e.g. "dashscope", stays in config.json)."""
    names = {
        "offline": QCoreApplication.translate("Messages", "Offline designer (on this kiosk, free)"),
        "openai": QCoreApplication.translate("Messages", "OpenAI image generation (online, paid)"),
        "dashscope": QCoreApplication.translate("Messages", "Alibaba Cloud Tongyi Wanxiang (online, paid)"),
    }
    return names.get(provider, provider)


def provider_model_text(provider: str, model: str | None) -> str:
    """A paid provider with the model its price is for: "OpenAI … · gpt-image-1"."""
    names = {
        "openai": QCoreApplication.translate("Messages", "OpenAI"),
        "dashscope": QCoreApplication.translate("Messages", "Tongyi Wanxiang"),
        "offline": QCoreApplication.translate("Messages", "Offline designer"),
    }
    name = names.get(provider, provider)
    return f"{name} · {model}" if model else name
