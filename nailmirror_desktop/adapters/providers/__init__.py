"""Image-provider drivers (OpenAI Images, DashScope Wan, offline) and safe result downloads (ARCHITECTURE.md §9).

The STYLE_GENERATION handler's services are wired in the composition root (app.services), not here.
"""

from __future__ import annotations

from nailmirror_desktop.core.generation.provider_config import ConfigError, ProviderConfig
from nailmirror_desktop.core.generation.provider_port import ImageProvider


def create_provider(name: str, config: ProviderConfig) -> ImageProvider:
    """The driver for `name` ("offline", "openai", "dashscope") configured from `config`."""
    from nailmirror_desktop.adapters.http.client import Timeouts

    timeouts = Timeouts(config.connect_timeout_s, config.read_timeout_s, config.total_timeout_s)
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

