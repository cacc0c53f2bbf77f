"""Credits per image: per provider and model from the settings, 1 by default, offline free."""

from __future__ import annotations

from nailmirror_desktop.core.credits.pricing import price_per_image


def test_a_paid_provider_costs_one_credit_per_image_unless_configured():
    assert price_per_image("openai", "gpt-image-1", {}) == 1
    assert price_per_image("dashscope", None, {"openai": 3}) == 1


def test_a_model_price_wins_over_the_provider_price():
    prices = {"openai": 2, "openai/gpt-image-1": 5}
    assert price_per_image("openai", "gpt-image-1", prices) == 5
    assert price_per_image("openai", "dall-e-3", prices) == 2


def test_the_offline_generator_is_free_whatever_the_table_says():
    assert price_per_image("offline", None, {"offline": 9}) == 0
