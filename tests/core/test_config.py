"""The kiosk's typed config (core.config): defaults, clamping, the hashed PIN, and sharing config.json with the
providers' section."""

from __future__ import annotations

import json
import stat

import pytest

from nailmirror_desktop.core.config import (
    DEFAULT_PIN,
    KioskConfig,
    config_path,
    load_config,
    pin_matches,
    save_config,
    with_pin,
)
from nailmirror_desktop.core.generation.provider_config import load_provider_config


def test_defaults_come_with_a_hashed_default_pin():
    config = load_config()
    assert config.language == "zh_CN" and config.camera == "auto" and config.resolution == (1280, 720)
    assert config.hands_tracked == 1  # camera rate on a 2-core store PC; two hands is a staff setting
    assert pin_matches(config, DEFAULT_PIN) and not pin_matches(config, "1357")
    assert DEFAULT_PIN not in config.staff_pin_hash


def test_a_new_pin_replaces_the_old_and_salts_differ():
    first = with_pin(KioskConfig(), "908172")
    second = with_pin(KioskConfig(), "908172")
    assert pin_matches(first, "908172") and not pin_matches(first, DEFAULT_PIN)
    assert first.staff_pin_salt != second.staff_pin_salt and first.staff_pin_hash != second.staff_pin_hash
    with pytest.raises(ValueError):
        with_pin(KioskConfig(), "12ab")


def test_hand_edited_values_are_clamped_not_fatal():
    config_path().write_text(json.dumps({"idle_timeout_s": 1, "language": "fr", "camera": "usb",
                                         "resolution": [99999, 10], "hands_tracked": 7, "unknown_key": 1}))
    config = load_config()
    assert config.idle_timeout_s == 10 and config.language == "zh_CN" and config.camera == "auto"
    assert config.resolution == (3840, 120)
    assert config.hands_tracked == 2


def test_saving_keeps_the_providers_section_and_is_owner_only():
    config_path().write_text(json.dumps({"providers": {"default": "dashscope", "dashscope": {"api_key": "sk-x"}}}))
    save_config(load_config().with_changes(idle_timeout_s=120, mirror=False))
    document = json.loads(config_path().read_text())
    assert document["providers"]["default"] == "dashscope" and document["idle_timeout_s"] == 120
    assert load_provider_config().default_provider == "dashscope"
    assert load_config().mirror is False
    assert stat.S_IMODE(config_path().stat().st_mode) == 0o600
