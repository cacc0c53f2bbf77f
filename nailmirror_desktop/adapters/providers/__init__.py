"""Image-provider drivers (OpenAI Images, DashScope Wan, offline) and safe result downloads."""

from __future__ import annotations

from nailmirror_desktop.core.providers.config import ConfigError, ProviderConfig
from nailmirror_desktop.core.providers.port import ImageProvider


def create_provider(name: str, config: ProviderConfig) -> ImageProvider:
    """The driver for `name` ("offline", "openai", "dashscope") configured from `config`."""
    from nailmirror_desktop.adapters.providers.http import Timeouts

    timeouts = Timeouts(config.connect_timeout_s, config.read_timeout_s)
    if name == "offline":
        from nailmirror_desktop.adapters.providers.offline import OfflineProvider

        return OfflineProvider()
    if name == "openai":
        from nailmirror_desktop.adapters.providers.openai_images import OpenAIImagesProvider

        return OpenAIImagesProvider(config.openai, timeouts=timeouts, max_bytes=config.max_download_bytes)
    if name == "dashscope":
        from nailmirror_desktop.adapters.providers.dashscope_wan import DashScopeWanProvider

        return DashScopeWanProvider(config.dashscope, timeouts=timeouts, max_bytes=config.max_download_bytes)
    raise ConfigError("provider_unknown", f"unknown provider {name!r}")
