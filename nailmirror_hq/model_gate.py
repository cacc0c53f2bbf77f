"""The gate (issue #27 §4): is a candidate better than the current model by more than the noise, everywhere?

Both models are scored on the same evaluation photos (tools/score_nail_model.py: the product's still path). The
gate's metric is each photo's IoU with a missed hand as 0, compared photo by photo (paired: the photos are the
same, so their difficulty cancels). The noise is the larger of two measured spreads:

  - the evaluation set's: a paired bootstrap resamples the photos with replacement BOOTSTRAP_RESAMPLES times (a
    fixed seed: the same scores give the same verdict) and takes the half-width of the mean difference's central
    95 % interval — how far the verdict moves when the photos are a little different;
  - the training's: the candidate's recipe is trained again with the next seed on the same data (its "twin") and
    scored on the same photos; the gap between the two runs' mean IoU is what a rerun alone changes. Measured on
    tiny runs, the bootstrap alone let a mere reseed of one recipe pass, so it is not noise enough by itself.

A candidate passes when
  - the set has at least MIN_PHOTOS photos (on fewer, the bootstrap cannot see any spread);
  - its mean IoU beats the baseline's by more than the noise;
  - no bucket (a skin tone, a nail kind) loses more than its own noise: the larger of its photos' bootstrap
    half-width and its twin gap, never less than the overall noise (a bucket of one or two photos has no spread
    of its own).

Everything else (recall, precision, boundary F1, per bucket) is kept in the report for people; the verdict reads
only the IoU, the product's one accuracy figure.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 27
INTERVAL = 0.95
MIN_PHOTOS = 3
METRIC = "mean_iou"  # per photo: IoU, a missed hand 0 (vision/evaluation/photos.py)


@dataclass(frozen=True)
class Verdict:
    passed: bool
    reasons: list[str]  # one code with its figures per failed rule; empty when it passed
    difference: float  # candidate − baseline, mean per-photo IoU
    noise: dict[str, Any]  # how the noise was measured, its size overall and per bucket
    bucket_differences: dict[str, dict[str, float]]

    @property
    def verdict(self) -> str:
        return "pass" if self.passed else "fail"


def bootstrap_half_width(differences: list[float], resamples: int = BOOTSTRAP_RESAMPLES,
                         seed: int = BOOTSTRAP_SEED) -> float:
    """Half the width of the central INTERVAL of the mean of `differences` resampled with replacement."""
    n = len(differences)
    if n < 2:
        return 0.0
    rng = random.Random(seed)
    means = sorted(sum(differences[rng.randrange(n)] for _ in range(n)) / n for _ in range(resamples))
    tail = (1.0 - INTERVAL) / 2
    low, high = means[int(tail * (resamples - 1))], means[int((1 - tail) * (resamples - 1))]
    return (high - low) / 2


def judge(candidate: dict[str, Any], baseline: dict[str, Any], twin: dict[str, Any] | None = None,
          buckets: tuple[str, ...] = ("skin_tone", "nail_kind")) -> Verdict:
    """candidate, baseline, twin (the candidate's recipe with another seed; None: no seed noise): one model's entry
    of score_nail_model.py's report each (per_photo with name, iou and the photo's bucket values), scored on the
    same photos."""
    base = {p["name"]: p for p in baseline["per_photo"]}
    other = {p["name"]: p for p in (twin or candidate)["per_photo"]}
    if not {p["name"] for p in candidate["per_photo"]} == set(base) == set(other):
        raise ValueError("the candidate and the baseline were scored on different photos")
    photos = [(p, float(p["iou"]) - float(base[p["name"]]["iou"]), float(p["iou"]) - float(other[p["name"]]["iou"]))
              for p in candidate["per_photo"]]
    differences = [d for _, d, _ in photos]
    difference = _mean(differences)
    sampling = bootstrap_half_width(differences)
    reseed = abs(_mean([r for _, _, r in photos]))
    noise = max(sampling, reseed)
    reasons = []
    if len(photos) < MIN_PHOTOS:
        reasons.append(f"evaluation_set_too_small: {len(photos)} photos < {MIN_PHOTOS}")
    if not difference > noise:
        reasons.append(f"not_better_than_noise: {METRIC} {difference:+.4f} <= noise {noise:.4f}")
    bucket_noise: dict[str, dict[str, float]] = {}
    bucket_differences: dict[str, dict[str, float]] = {}
    for bucket in buckets:
        values = sorted({str(p[bucket]) for p, _, _ in photos if p.get(bucket)})
        for value in values:
            inside = [d for p, d, _ in photos if p.get(bucket) == value]
            mean = _mean(inside)
            twin_gap = abs(_mean([r for p, _, r in photos if p.get(bucket) == value]))
            allowed = max(bootstrap_half_width(inside), twin_gap, noise)
            bucket_noise.setdefault(bucket, {})[value] = round(allowed, 4)
            bucket_differences.setdefault(bucket, {})[value] = round(mean, 4)
            if mean < -allowed:
                reasons.append(f"bucket_regressed: {bucket}={value} {METRIC} {mean:+.4f} beyond noise {allowed:.4f}"
                               f" ({len(inside)} photos)")
    return Verdict(not reasons, reasons, round(difference, 4),
                   {"method": "max(paired_bootstrap, seed_spread)" if twin else "paired_bootstrap",
                    "metric": f"{METRIC} per photo, misses 0", "resamples": BOOTSTRAP_RESAMPLES,
                    "seed": BOOTSTRAP_SEED, "interval": INTERVAL, "photos": len(photos),
                    "bootstrap_half_width": round(sampling, 4), "seed_spread": round(reseed, 4) if twin else None,
                    "half_width": round(noise, 4), "buckets": bucket_noise},
                   bucket_differences)


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0
