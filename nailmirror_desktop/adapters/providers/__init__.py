"""Image-provider drivers (OpenAI Images, DashScope Wan, offline) and safe result downloads."""

from __future__ import annotations

from nailmirror_desktop.core.generation.provider_config import ConfigError, ProviderConfig
from nailmirror_desktop.core.generation.provider_port import ImageProvider


def create_provider(name: str, config: ProviderConfig) -> ImageProvider:
    """The driver for `name` ("offline", "openai", "dashscope") configured from `config`."""
    from nailmirror_desktop.adapters.http.client import Timeouts

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


def generation_services(config: ProviderConfig, clock):
    """The STYLE_GENERATION handler's services on this machine: drivers from `config` (one per name, made on
    first use), the artwork maker, a style repository with the Pillow-checked asset store, the engine's clock."""
    from nailmirror_desktop.adapters.pillow_probe import PillowImageProbe
    from nailmirror_desktop.adapters.providers.artwork import make_artwork
    from nailmirror_desktop.core.catalog.assets import AssetStore
    from nailmirror_desktop.core.catalog.repository import StyleRepository
    from nailmirror_desktop.core.generation.flow import GenerationServices

    drivers: dict[str, ImageProvider] = {}

    def provider_for(name: str) -> ImageProvider:
        if name not in drivers:
            drivers[name] = create_provider(name, config)
        return drivers[name]

    store = AssetStore(PillowImageProbe())
    return GenerationServices(
        provider_for=provider_for,
        make_artwork=make_artwork,
        repository_for=lambda conn: StyleRepository(conn, store),
        clock=clock,
        poll=config.poll,
    )


def register_generation(engine, config: ProviderConfig | None = None, *, concurrency: int = 1) -> None:
    """Register the STYLE_GENERATION handler on `engine` (settings from config.json / the environment)."""
    from nailmirror_desktop.core.generation.flow import STYLE_GENERATION, make_generation_handler
    from nailmirror_desktop.core.generation.provider_config import load_provider_config

    config = config or load_provider_config()
    handler = make_generation_handler(generation_services(config, engine.clock))
    engine.register_handler(STYLE_GENERATION, handler, concurrency=concurrency)
