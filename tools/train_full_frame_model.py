"""Train the full-frame nail model (models/nail_full_frame.onnx): the still path's fallback where no hand is found.

Runs in .venv-train (torch) like tools/train_nail_model.py, whose model, losses and augmentation it imports:

  .venv-train/bin/python tools/train_full_frame_model.py cv [--data build/full_frame_data.npz] [--with-photos]
                         [--with-negatives] [--fold-models build/full_frame_folds]
      5-fold cross-validation by source photo, with the folds of tools/train_nail_model.py `fold_of_photos`
      (photos numbered in sorted name order, as tools/extract_nail_rois.py numbers them): each fold's model is
      exported as DIR/fold<k>.onnx beside DIR/folds.json (source photo → fold), so every close-up and photo can
      be scored by the model that never saw its photo (tools/score_full_frame.py).
  .venv-train/bin/python tools/train_full_frame_model.py final [--data ...] [--with-photos]
                         [--out models/nail_full_frame.onnx]
      One model on everything; prints its sha256 (core/model_version.py FULL_FRAME_SHA256 must match).
  .venv-train/bin/python tools/train_full_frame_model.py time [--data ...] [--with-photos]
      One epoch's seconds, to size a run to the time there is.

Data: the close-ups of tools/make_closeups.py (each with its source photo's number); with --with-photos, the
whole photos they were cut from; with --with-negatives, the hand-free images of tools/make_negatives.py (empty
masks, in every fold's training: they are no photo's, and the held-out negatives are another source's); packed by
`tools/make_closeups.py --pack` letterboxed to SIZE × SIZE exactly as the product does it
(vision/nails/full_frame.py: scaled to fit, centred, black bars; the mask area-averaged).
ONNX input "image" float32 (N, 3, SIZE, SIZE), output "logits" (N, 1, SIZE, SIZE).

The model: train_nail_model.TinyUNet at full inside resolution (fully convolutional, so it runs at SIZE as it is).
Augmentation per batch: the polish repaint, an affine (rotation ±30°, scale 0.8–1.25, shift ±10 %, horizontal flip;
black outside, as the letterbox), the photometric jitter and JPEG of train_nail_model. Seeded, one thread,
deterministic algorithms.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F  # noqa: N812

sys.path.insert(0, str(Path(__file__).resolve().parent))

from train_nail_model import (  # noqa: E402
    FOLDS,
    TinyUNet,
    fit,
    fold_of_photos,
)
from train_nail_model import SEED as FOLD_SEED  # noqa: E402  # the folds of the per-nail segmenter's CV
from train_nail_model import export_onnx as export_model  # noqa: E402

SEED = 20261205
SIZE = 96
EPOCHS = 40
LR = 5e-3


@dataclass(frozen=True)
class Samples:
    images: np.ndarray  # (N, SIZE, SIZE, 3) uint8 BGR, letterboxed
    masks: np.ndarray  # (N, SIZE, SIZE) uint8 0–255, letterboxed
    photo: np.ndarray  # (N,) the source photo's index in the sorted photo list
    names: list[str]


def load(path: Path, with_photos: bool, with_negatives: bool = False) -> Samples:
    """The packed data (tools/make_closeups.py --pack); the whole photos only `with_photos`, the hand-free images
    (photo -1, empty masks) only `with_negatives`."""
    data = np.load(path)
    names = [str(n) for n in data["names"]]
    wanted = np.ones(len(names), bool) if with_photos else ~np.isin(names, data["photo_names"])
    if not with_negatives:
        wanted &= data["photo"] >= 0
    keep = np.flatnonzero(wanted)
    return Samples(data["images"][keep], data["masks"][keep], data["photo"][keep], [names[i] for i in keep])


def affine(images: torch.Tensor, masks: torch.Tensor, gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """Rotation ±30°, scale 0.8–1.25, shift ±10 %, horizontal flip half the time; black outside."""
    b = images.shape[0]
    angle = (torch.rand(b, generator=gen) * 2 - 1) * math.radians(30)
    scale = 1 / (0.8 + 0.45 * torch.rand(b, generator=gen))
    shift = (torch.rand(b, 2, generator=gen) * 2 - 1) * 0.2
    flip = torch.where(torch.rand(b, generator=gen) < 0.5, -1.0, 1.0)
    cos, sin = torch.cos(angle) * scale, torch.sin(angle) * scale
    theta = torch.stack([torch.stack([cos * flip, -sin, shift[:, 0]], 1),
                         torch.stack([sin * flip, cos, shift[:, 1]], 1)], 1)
    grid = F.affine_grid(theta, list(masks.shape), align_corners=False)
    out = F.grid_sample(torch.cat([images, masks], 1), grid, mode="bilinear", padding_mode="zeros",
                        align_corners=False)
    return out[:, :3], out[:, 3:]


def train(samples: Samples, rows: np.ndarray, *, epochs: int, seed: int, log: bool = False) -> TinyUNet:
    images = torch.from_numpy(np.ascontiguousarray(samples.images[rows].transpose(0, 3, 1, 2))).float() / 255
    masks = torch.from_numpy(np.ascontiguousarray(samples.masks[rows][:, None])).float() / 255
    # inner = its ROI constant: no pooling in or out, so it runs at any size
    return fit(images, masks, lambda: TinyUNet(inner=64), affine, epochs=epochs, seed=seed, lr=LR, log=log)


def export_onnx(model: TinyUNet, out: Path, size: int) -> str:
    return export_model(model, out, size=size, input_name="image")


def cross_validate(samples: Samples, names: list[str], models: Path, *, epochs: int, seed: int,
                   size: int) -> dict[str, object]:
    photo_fold = fold_of_photos(len(names), FOLDS, FOLD_SEED)
    # a hand-free image (photo -1) is no photo's: every fold trains on it (its held-out set is another source's)
    item_fold = np.where(samples.photo >= 0, photo_fold[np.maximum(samples.photo, 0)], -1)
    models.mkdir(parents=True, exist_ok=True)
    seconds = []
    for fold in range(FOLDS):
        start = time.perf_counter()
        model = train(samples, np.flatnonzero(item_fold != fold), epochs=epochs, seed=seed + fold)
        export_onnx(model, models / f"fold{fold}.onnx", size)
        seconds.append(round(time.perf_counter() - start, 1))
        print(f"fold {fold}: {int((item_fold != fold).sum())} train / {int((item_fold == fold).sum())} held out, "
              f"{seconds[-1]} s", file=sys.stderr, flush=True)
    (models / "folds.json").write_text(json.dumps({name: int(photo_fold[i]) for i, name in enumerate(names)},
                                                  indent=1), encoding="utf-8")
    return {"folds": FOLDS, "epochs": epochs, "seed": seed, "size": size, "fold_seconds": seconds,
            "total_seconds": round(sum(seconds), 1), "models": str(models)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("cv", "final", "time"))
    parser.add_argument("--data", type=Path, default=Path("build/full_frame_data.npz"),
                        help="the packed close-ups and photos (tools/make_closeups.py --pack)")
    parser.add_argument("--with-photos", action="store_true", help="also train on the whole photos")
    parser.add_argument("--with-negatives", action="store_true",
                        help="also train on the packed hand-free images (tools/make_negatives.py), empty masks")
    parser.add_argument("--out", type=Path, default=Path("models/nail_full_frame.onnx"))
    parser.add_argument("--fold-models", type=Path, default=Path("build/full_frame_folds"))
    parser.add_argument("--epochs", type=int, default=EPOCHS)
    parser.add_argument("--size", type=int, default=SIZE, choices=(96, 128, 160))
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    if not args.data.is_file():
        print(f"error: {args.data} not found; make it with `python tools/make_closeups.py --pack {args.data}`",
              file=sys.stderr)
        return 2
    samples = load(args.data, args.with_photos, args.with_negatives)
    names = [str(n) for n in np.load(args.data)["photo_names"]]
    if samples.images.shape[1] != args.size:
        print(f"error: {args.data} is packed at {samples.images.shape[1]} px, not --size {args.size}", file=sys.stderr)
        return 2
    if args.command == "time":  # one epoch, to size the run to the time there is
        start = time.perf_counter()
        train(samples, np.arange(len(samples.names)), epochs=1, seed=args.seed)
        print(json.dumps({"items": len(samples.names), "size": args.size,
                          "epoch_seconds": round(time.perf_counter() - start, 1)}))
        return 0
    if args.command == "cv":
        report = cross_validate(samples, names, args.fold_models, epochs=args.epochs, seed=args.seed,
                                size=args.size)
    else:
        start = time.perf_counter()
        model = train(samples, np.arange(len(samples.names)), epochs=args.epochs, seed=args.seed, log=True)
        seconds = round(time.perf_counter() - start, 1)
        digest = export_onnx(model, args.out, args.size)
        report = {"epochs": args.epochs, "seed": args.seed, "size": args.size, "items": len(samples.names),
                  "train_seconds": seconds, "out": str(args.out), "bytes": args.out.stat().st_size,
                  "sha256": digest}
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
