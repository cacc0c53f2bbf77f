"""Provider settings from config.json and the environment; keys stay masked; classification helpers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nailmirror_desktop.core.generation.provider_config import (
    ConfigError,
    PollSettings,
    Secret,
    load_provider_config,
    save_provider_config,
)


def test_defaults_are_offline_without_keys(nailmirror_home):
    config = load_provider_config(environ={})
    assert config.default_provider == "offline"
    assert not config.openai.api_key and not config.dashscope.api_key
    assert config.dashscope.base_url == "https://dashscope.aliyuncs.com"


def test_file_then_environment(nailmirror_home):
    (nailmirror_home / "config.json").write_text(json.dumps({
        "language": "en",  # the kiosk's own settings share the file
        "providers": {"default": "openai", "openai": {"api_key": "sk-file", "model": "gpt-image-1-mini"},
                      "poll": {"initial_s": 0.5}},
    }))
    config = load_provider_config(environ={"NAILMIRROR_PROVIDER": "dashscope",
                                           "NAILMIRROR_DASHSCOPE_BASE_URL": "http://127.0.0.1:9",
                                           "NAILMIRROR_DASHSCOPE_API_KEY": "sk-env"})
    assert config.default_provider == "dashscope"
    assert config.openai.api_key.reveal() == "sk-file" and config.openai.model == "gpt-image-1-mini"
    assert config.dashscope.api_key.reveal() == "sk-env" and config.dashscope.base_url == "http://127.0.0.1:9"
    assert config.poll.initial_s == 0.5


def test_keys_are_masked_everywhere(nailmirror_home):
    config = load_provider_config(environ={"NAILMIRROR_OPENAI_API_KEY": "sk-very-secret"})
    assert "sk-very-secret" not in repr(config) and "sk-very-secret" not in str(config)
    with pytest.raises(TypeError):
        import pickle

        pickle.dumps(Secret("sk-very-secret"))
    with pytest.raises(TypeError):
        json.dumps({"key": config.openai.api_key})


def test_unknown_provider_is_refused(nailmirror_home):
    with pytest.raises(ConfigError) as caught:
        load_provider_config(environ={"NAILMIRROR_PROVIDER": "midjourney"})
    assert caught.value.code == "provider_unknown"


def test_poll_intervals_grow_to_a_cap():
    waits = PollSettings(initial_s=2, growth=1.5, max_s=10).intervals()
    assert [next(waits) for _ in range(7)] == [2, 3, 4.5, 6.75, 10, 10, 10]


def test_saving_keeps_the_kiosk_settings_and_round_trips(nailmirror_home):
    from dataclasses import replace

    from nailmirror_desktop.core.generation.provider_config import RemoteProviderSettings, save_provider_config

    path = nailmirror_home / "config.json"
    path.write_text(json.dumps({"language": "en", "idle_timeout_s": 120}))
    config = replace(load_provider_config(environ={}), default_provider="dashscope",
                     dashscope=RemoteProviderSettings("https://dashscope-intl.aliyuncs.com", Secret("sk-saved"),
                                                      "wan2.2-t2i-flash"))
    save_provider_config(config)

    document = json.loads(path.read_text())
    assert document["language"] == "en" and document["idle_timeout_s"] == 120
    assert path.stat().st_mode & 0o077 == 0  # keys inside: owner only
    again = load_provider_config(environ={})
    assert again == config and again.dashscope.api_key.reveal() == "sk-saved"


@pytest.mark.parametrize("url", ["ftp://api.openai.com", "https://", "https://api.openai.com?x=1",
                                 "https://user:pw@api.openai.com", "https://api.openai.com:99999",
                                 "https://api.openai.com/v1 x", "https://[::1"])
def test_a_base_url_that_is_not_plain_http_s_is_refused(url):
    with pytest.raises(ConfigError) as caught:
        load_provider_config(Path("/nonexistent/config.json"), {"NAILMIRROR_OPENAI_BASE_URL": url})
    assert caught.value.code == "config_invalid"


def test_the_total_timeout_round_trips_and_defaults_to_none(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"providers": {"timeouts": {"connect_s": 2, "read_s": 5, "total_s": 6}}}))
    config = load_provider_config(path, {})
    assert (config.connect_timeout_s, config.read_timeout_s, config.total_timeout_s) == (2.0, 5.0, 6.0)
    save_provider_config(config, path)
    assert load_provider_config(path, {}).total_timeout_s == 6.0
    assert load_provider_config(tmp_path / "none.json", {}).total_timeout_s is None


def test_keys_are_saved_owner_only_even_over_a_leftover_temporary_file(tmp_path):
    """A crash between writing the temporary file and renaming it leaves it behind; the next save reuses the name,
    and O_CREAT keeps an existing file's mode (0644 under the usual umask), which the rename would carry over."""
    path = tmp_path / "config.json"
    leftover = path.with_name(path.name + ".providers.tmp")
    leftover.write_text("{}")
    leftover.chmod(0o644)
    save_provider_config(load_provider_config(path, {}), path)
    assert path.stat().st_mode & 0o777 == 0o600
