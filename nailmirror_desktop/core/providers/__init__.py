"""The provider port (what generation needs from an image provider), its error classes, and its settings."""

from nailmirror_desktop.core.providers.port import (
    AsyncImageProvider,
    GenerationRequest,
    ImageFailure,
    ImageProvider,
    PollResult,
    PollStatus,
    ProviderError,
    ProviderErrorClass,
    ProviderImage,
    ProviderResult,
    SyncImageProvider,
)

__all__ = [
    "AsyncImageProvider",
    "GenerationRequest",
    "ImageFailure",
    "ImageProvider",
    "PollResult",
    "PollStatus",
    "ProviderError",
    "ProviderErrorClass",
    "ProviderImage",
    "ProviderResult",
    "SyncImageProvider",
]
