"""The gate's rule (model_gate.py) on per-photo scores: better by more than the paired bootstrap's noise, and no
bucket worse beyond its own noise."""

from __future__ import annotations

from typing import Any

import pytest

from nailmirror_hq import model_gate


def _scores(ious: list[float], tones: list[str] | None = None) -> dict[str, Any]:
    tones = tones or ["I-II"] * len(ious)
    return {"per_photo": [{"name": f"p{i}.png", "iou": iou, "detected": True, "skin_tone": tone, "nail_kind": "bare"}
                          for i, (iou, tone) in enumerate(zip(ious, tones, strict=True))]}


BASE = [0.40, 0.55, 0.30, 0.62, 0.48, 0.51, 0.35, 0.44]


def test_a_clear_gain_on_every_photo_passes() -> None:
    verdict = model_gate.judge(_scores([b + 0.10 for b in BASE]), _scores(BASE))
    assert verdict.passed and verdict.reasons == [] and verdict.difference == pytest.approx(0.10)
    assert verdict.noise["method"] == "paired_bootstrap" and verdict.noise["photos"] == len(BASE)
    assert verdict.noise["half_width"] == pytest.approx(0.0, abs=1e-9)  # the same gain everywhere: no spread


def test_a_gain_smaller_than_the_noise_fails() -> None:
    # +0.02 on average, but photo to photo it swings ±0.2: the bootstrap interval straddles zero
    swings = [0.22, -0.18, 0.20, -0.17, 0.21, -0.19, 0.18, -0.11]
    verdict = model_gate.judge(_scores([b + s for b, s in zip(BASE, swings, strict=True)]), _scores(BASE))
    assert not verdict.passed and verdict.noise["half_width"] > verdict.difference > 0
    assert [r.split(":")[0] for r in verdict.reasons] == ["not_better_than_noise"]


def test_a_worse_model_fails() -> None:
    verdict = model_gate.judge(_scores([b - 0.05 for b in BASE]), _scores(BASE))
    assert not verdict.passed and verdict.difference < 0
    assert verdict.reasons[0].startswith("not_better_than_noise")


def test_a_bucket_that_regresses_beyond_its_noise_fails_a_model_better_overall() -> None:
    tones = ["I-II"] * 6 + ["V-VI"] * 2
    candidate = [b + 0.25 for b in BASE[:6]] + [b - 0.15 for b in BASE[6:]]
    verdict = model_gate.judge(_scores(candidate, tones), _scores(BASE, tones))
    assert verdict.difference > verdict.noise["half_width"]  # better overall, beyond the noise
    assert not verdict.passed
    assert [r.split(":")[0] for r in verdict.reasons] == ["bucket_regressed"]
    assert "skin_tone=V-VI" in verdict.reasons[0]
    assert verdict.bucket_differences["skin_tone"]["V-VI"] == pytest.approx(-0.15)
    # the bucket's allowance is never below the overall noise
    assert verdict.noise["buckets"]["skin_tone"]["V-VI"] >= verdict.noise["half_width"]


def test_too_few_photos_never_pass_and_different_photos_are_refused() -> None:
    verdict = model_gate.judge(_scores([0.9, 0.9]), _scores([0.1, 0.1]))
    assert not verdict.passed and verdict.reasons[0].startswith("evaluation_set_too_small")
    with pytest.raises(ValueError, match="different photos"):
        model_gate.judge(_scores([0.9, 0.9, 0.9]), _scores([0.1, 0.1]))


def test_the_same_scores_give_the_same_noise() -> None:
    differences = [0.1, -0.05, 0.2, 0.0, 0.07]
    assert model_gate.bootstrap_half_width(differences) == model_gate.bootstrap_half_width(differences)
    assert model_gate.bootstrap_half_width([0.3]) == 0.0


def test_a_reseed_of_the_same_recipe_is_noise_even_when_the_photos_agree() -> None:
    # the candidate beats the baseline by 0.04 on every photo (no bootstrap spread at all), but its own recipe
    # with another seed lands 0.05 away: a gain a rerun alone could make is not a gain
    candidate = [b + 0.04 for b in BASE]
    twin = [c - 0.05 for c in candidate]
    verdict = model_gate.judge(_scores(candidate), _scores(BASE), _scores(twin))
    assert not verdict.passed and verdict.reasons[0].startswith("not_better_than_noise")
    assert verdict.noise["seed_spread"] == pytest.approx(0.05) and verdict.noise["half_width"] == pytest.approx(0.05)
    clearer = [b + 0.08 for b in BASE]
    assert model_gate.judge(_scores(clearer), _scores(BASE), _scores([c - 0.05 for c in clearer])).passed
