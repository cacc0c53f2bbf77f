"""What one image costs, in credits, per provider and model (KioskConfig.credit_prices).

Keys are "provider/model" (wins) or "provider"; a paid provider without an entry costs DEFAULT_PRICE per image.
The offline generator renders on this machine and is always free, whatever the table says.
"""

from __future__ import annotations

from collections.abc import Mapping

DEFAULT_PRICE = 1
FREE_PROVIDERS = frozenset({"offline"})


def price_per_image(provider: str, model: str | None, prices: Mapping[str, int]) -> int:
    if provider in FREE_PROVIDERS:
        return 0
    if model and f"{provider}/{model}" in prices:
        return max(0, int(prices[f"{provider}/{model}"]))
    return max(0, int(prices.get(provider, DEFAULT_PRICE)))
