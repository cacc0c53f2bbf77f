"""The style domain (ARCHITECTURE.md §8): styles, their assets, categories, tags, review states and the audit log."""

from nailmirror_desktop.core.catalog.assets import AssetStore, ImageInfo, ImageProbe, StoredBlob
from nailmirror_desktop.core.catalog.content import StyleContent, StyleFolder, read_style_folder
from nailmirror_desktop.core.catalog.errors import IllegalTransition, ImageRejected, StyleError, StyleNotFound
from nailmirror_desktop.core.catalog.records import AssetRecord, AuditEntry, Category, StyleRecord, Tag
from nailmirror_desktop.core.catalog.repository import AssetType, StyleFilter, StyleRepository, StyleSource
from nailmirror_desktop.core.catalog.status import StyleStatus, can_transit, transit

__all__ = [
    "AssetRecord", "AssetStore", "AssetType", "AuditEntry", "Category", "IllegalTransition", "ImageInfo",
    "ImageProbe", "ImageRejected", "StoredBlob", "StyleContent", "StyleError", "StyleFilter", "StyleFolder",
    "StyleNotFound", "StyleRecord", "StyleRepository", "StyleSource", "StyleStatus", "Tag", "can_transit",
    "read_style_folder", "transit",
]
