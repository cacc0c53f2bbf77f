"""The kiosk's typed config (core.config): defaults, clamping, and sharing config.json with the providers' section
and the staff PIN's keys (core.staff_pin)."""

from __future__ import annotations

import json
import stat

from nailmirror_desktop.core.config import (
    config_path,
    load_config,
    read_config_document,
    save_config,
    update_config_document,
)
from nailmirror_desktop.core.generation.provider_config import load_provider_config


def test_defaults_come_without_a_staff_pin():
    """Before: a missing file gave a config hashing the published default PIN 2468."""
    config = load_config()
    assert config.language == "zh_CN" and config.camera == "auto" and config.resolution == (1280, 720)
    assert config.hands_tracked == 2  # both hands at camera rate: the mirror overlaps tracking and painting
    assert not any("pin" in name for name in vars(config))
    save_config(config)
    assert not any("pin" in key for key in json.loads(config_path().read_text()))


def test_other_modules_keys_are_updated_atomically_and_kept_by_a_settings_save():
    save_config(load_config())
    update_config_document({"staff_pin_hash": "ab" * 32, "gone": 1})
    update_config_document({}, remove=("gone",))
    save_config(load_config().with_changes(idle_timeout_s=30))
    document = read_config_document()
    assert document["staff_pin_hash"] == "ab" * 32 and "gone" not in document and document["idle_timeout_s"] == 30
    assert stat.S_IMODE(config_path().stat().st_mode) == 0o600


def test_a_saved_config_keeps_its_hands_setting_when_the_default_changes():
    """The default became 2 hands; a kiosk whose saved config says 1 (its first start wrote the old default,
    or staff chose it) keeps tracking one."""
    config_path().write_text(json.dumps({"hands_tracked": 1}))
    assert load_config().hands_tracked == 1
    config_path().write_text(json.dumps({"idle_timeout_s": 60}))  # a file that does not say: the default
    assert load_config().hands_tracked == 2


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


def test_credit_settings_have_defaults_and_hand_edited_values_are_clamped(monkeypatch):
    monkeypatch.setenv("TZ", "Asia/Shanghai")  # the store PC's own zone is the default
    defaults = load_config()
    assert (defaults.credits_session_cap, defaults.store_time_zone, defaults.credit_prices) == (3, "Asia/Shanghai", {})
    config_path().write_text(json.dumps({
        "credits_daily_cap": -5, "credits_session_cap": 10**9, "store_time_zone": "Mars/Olympus",
        "credit_prices": {"openai": 2, "dashscope": "two", "openai/gpt-image-1": 5000, "": 1, "x": True},
        "store_id": "  ", "credits_low_balance": 3}))
    config = load_config()
    assert (config.credits_daily_cap, config.credits_session_cap, config.credits_low_balance) == (0, 1000, 3)
    assert config.store_time_zone == "Asia/Shanghai" and config.store_id == "local"  # unknown: the OS's zone
    assert config.credit_prices == {"openai": 2, "openai/gpt-image-1": 1000}
    save_config(config.with_changes(store_time_zone="Europe/Paris"))
    assert load_config().store_time_zone == "Europe/Paris" and load_config().credit_prices == config.credit_prices


def test_sending_to_a_phone_is_off_by_default_and_its_port_is_clamped():
    assert load_config().share_to_phone is False  # privacy first: nothing leaves the kiosk unless staff allow it
    config_path().write_text(json.dumps({"share_to_phone": True, "share_port": 80}), encoding="utf-8")
    config = load_config()
    assert config.share_to_phone is True and config.share_port == 1024
    save_config(config.with_changes(share_port=99999))
    assert load_config().share_port == 65535
    assert config.share_address == ""  # the kiosk's own address on its network
    save_config(config.with_changes(share_address=" 192.168.31.20 "))
    assert load_config().share_address == "192.168.31.20"
    assert config.with_changes(share_address="kiosk.local").share_address == ""  # an address, not a name


def test_the_store_name_is_one_short_line_and_empty_by_default():
    assert load_config().store_name == ""  # unknown: the take-home card and the phone's picture leave it out
    config_path().write_text(json.dumps({"store_name": "  指尖魔镜\n ·  静安店 "}), encoding="utf-8")
    assert load_config().store_name == "指尖魔镜 · 静安店"
    assert len(load_config().with_changes(store_name="店" * 500).store_name) == 60
    assert load_config().with_changes(store_name=42).store_name == ""  # a hand-edited mistake


def test_the_store_time_zone_defaults_to_the_operating_system_s(monkeypatch):
    from nailmirror_desktop.core.config import known_time_zone, system_time_zone

    monkeypatch.setenv("TZ", "Europe/Berlin")
    assert load_config().store_time_zone == "Europe/Berlin" == system_time_zone()
    monkeypatch.setenv("TZ", ":America/New_York")  # the POSIX form with a colon
    assert system_time_zone() == "America/New_York"
    monkeypatch.setenv("TZ", "../../etc/passwd")  # never a path: the next source (/etc/localtime) says
    assert known_time_zone(system_time_zone()) and system_time_zone() != "../../etc/passwd"
    save_config(load_config().with_changes(store_time_zone="Asia/Tokyo"))
    assert load_config().store_time_zone == "Asia/Tokyo"  # chosen: the OS no longer decides


def test_a_pc_on_plain_utc_counts_as_unset_and_the_stores_zone_is_taken(monkeypatch, tmp_path):
    """Before: a PC that still said UTC (as fresh images do) gave a Chinese salon UTC days for its daily cap."""
    from nailmirror_desktop.core.config import FALLBACK_TIME_ZONE, system_time_zone

    for said in ("UTC", ":Etc/UTC", "Etc/Universal"):
        monkeypatch.setenv("TZ", said)
        assert system_time_zone() == FALLBACK_TIME_ZONE == "Asia/Shanghai"
    assert load_config().store_time_zone == "Asia/Shanghai"
    monkeypatch.setenv("TZ", "Europe/London")  # UTC+0 in winter, but a zone someone chose
    assert system_time_zone() == "Europe/London"


def test_demo_video_is_a_path_or_empty():
    from nailmirror_desktop.core.config import KioskConfig, validated

    assert validated(KioskConfig()).demo_video == ""
    assert validated(KioskConfig(demo_video="/srv/clip.mp4")).demo_video == "/srv/clip.mp4"
    assert validated(KioskConfig(demo_video=42)).demo_video == ""  # type: ignore[arg-type]  # a hand-edited file
