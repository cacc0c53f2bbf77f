"""Train the per-nail segmenter (models/nail_segmenter.onnx) from the ROIs of tools/extract_nail_rois.py.

Runs in its own environment with PyTorch CPU on Python 3.11 (requirements/train.txt; torch never enters the
kiosk's environment):

  /root/.pyenv/versions/3.11.7/bin/python3.11 -m venv .venv-train
  .venv-train/bin/pip install -r requirements/train.txt

Commands:

  .venv-train/bin/python tools/train_nail_model.py cv [--rois build/nail_rois.npz] [--out build/nail_oof.npz]
      k-fold cross-validation by photo (a photo is never in its own training fold): writes every ROI's
      out-of-fold nail probability; score it with `tools/extract_nail_rois.py score --probs build/nail_oof.npz`.
      --fold-models DIR also exports each fold's model (DIR/fold<k>.onnx): `tools/video_cv_eval.py` scores the moving
      clips with, for each clip, the model that never saw its photo.
  .venv-train/bin/python tools/train_nail_model.py final [--rois ...] [--out models/nail_segmenter.onnx]
      One model on every ROI, exported to ONNX (input "roi" float32 (N, 3, 64, 64) BGR in [0, 1]; output
      "logits" (N, 1, 64, 64)); prints its sha256 (vision/nails/nail_segmenter.py MODEL_SHA256 must match).

The model: a tiny U-Net (3 levels, 8/16/32/48 channels, BatchNorm, transposed-conv upsampling) run at 32 × 32
inside (average-pool in, bilinear logits up to 64 × 64). Loss BCE + 0.5 soft Dice on every nail pixel of the
crop, AdamW with a OneCycle schedule, batch 32. Augmentation from the 2× context crop: rotation, scale, shift,
horizontal flip; repainting the nail with a random polish that keeps the photo's shading; colour, blur, noise
and JPEG. Everything is seeded, on one thread.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F  # noqa: N812
from torch import nn

SEED = 20261201
FOLDS = 5
EPOCHS = 200  # chosen by 5-fold CV: IoU 0.542 at 60 epochs, 0.598 at 120, 0.618 at 200 (models/NAIL_SEGMENTER_CARD.md)
BATCH = 32
LR = 5e-3
DICE_WEIGHT = 0.5
REPAINT_P = 0.6
ROI = 64


# --- model -----------------------------------------------------------------------------------------------------

def _block(cin: int, cout: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
        nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
    )


class TinyUNet(nn.Module):
    def __init__(self, channels: tuple[int, int, int, int] = (8, 16, 32, 48), inner: int = 32) -> None:
        super().__init__()
        c1, c2, c3, c4 = channels
        self.inner = inner
        self.enc1, self.enc2, self.enc3, self.mid = _block(3, c1), _block(c1, c2), _block(c2, c3), _block(c3, c4)
        self.up3, self.dec3 = nn.ConvTranspose2d(c4, c3, 2, stride=2), _block(2 * c3, c3)
        self.up2, self.dec2 = nn.ConvTranspose2d(c3, c2, 2, stride=2), _block(2 * c2, c2)
        self.up1, self.dec1 = nn.ConvTranspose2d(c2, c1, 2, stride=2), _block(2 * c1, c1)
        self.head = nn.Conv2d(c1, 1, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        size = ROI  # a fixed input size: the ONNX graph has no shape-dependent branch
        if self.inner != size:
            x = F.avg_pool2d(x, size // self.inner)
        e1 = self.enc1(x)
        e2 = self.enc2(F.max_pool2d(e1, 2))
        e3 = self.enc3(F.max_pool2d(e2, 2))
        m = self.mid(F.max_pool2d(e3, 2))
        d3 = self.dec3(torch.cat([self.up3(m), e3], 1))
        d2 = self.dec2(torch.cat([self.up2(d3), e2], 1))
        d1 = self.dec1(torch.cat([self.up1(d2), e1], 1))
        logits = self.head(d1)
        if self.inner != size:
            logits = F.interpolate(logits, size=(size, size), mode="bilinear", align_corners=False)
        return logits


# --- augmentation ----------------------------------------------------------------------------------------------

def _rgb_like(gen: torch.Generator, n: int) -> torch.Tensor:
    """n random polish colours (BGR in [0, 1]) spread over hue, saturation and value."""
    hue = torch.rand(n, generator=gen) * 6.0
    sat = 0.2 + 0.8 * torch.rand(n, generator=gen)
    val = 0.25 + 0.75 * torch.rand(n, generator=gen)
    k = torch.stack([(5 + hue) % 6, (3 + hue) % 6, (1 + hue) % 6], 1)  # HSV → RGB, per channel
    rgb = val[:, None] * (1 - sat[:, None] * torch.clamp(torch.minimum(k, 4 - k), 0, 1))
    return rgb.flip(1)  # RGB → BGR


def repaint(images: torch.Tensor, masks: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """Paint the nail pixels of images ((B, 3, H, W) BGR [0, 1]; masks (B, 1, H, W) [0, 1]) with random polishes
    (solid, gradient, glitter, French tip, blobs), keeping the photo's shading and highlights."""
    b, _, h, w = images.shape
    luma = (0.114 * images[:, 0] + 0.587 * images[:, 1] + 0.299 * images[:, 2])[:, None]
    weight = masks.sum((2, 3), keepdim=True).clamp_min(1.0)
    mean = (luma * masks).sum((2, 3), keepdim=True) / weight
    shading = (luma / mean.clamp_min(0.05)).clamp(0.3, 1.6)
    highlight = (luma - mean - 0.15).clamp_min(0.0) * 2.0
    base, second = _rgb_like(gen, b)[:, :, None, None], _rgb_like(gen, b)[:, :, None, None]
    ys = torch.linspace(-1, 1, h)[None, None, :, None].expand(b, 1, h, w)
    xs = torch.linspace(-1, 1, w)[None, None, None, :].expand(b, 1, h, w)
    kind = torch.randint(0, 5, (b,), generator=gen)
    angle = torch.rand(b, generator=gen) * 2 * math.pi
    t = ((torch.cos(angle)[:, None, None, None] * xs + torch.sin(angle)[:, None, None, None] * ys) + 1) / 2
    pattern = base.expand(b, 3, h, w).clone()
    gradient = base * (1 - t) + second * t
    sparkle = (torch.rand(b, 1, h, w, generator=gen) < 0.08).float()
    glitter = base * (1 - 0.6 * sparkle) + 0.6 * sparkle * torch.rand(b, 3, 1, 1, generator=gen).clamp_min(0.5)
    # French tip: the upper part of the nail (the crop is tip-up) white or light
    rows = torch.arange(h, dtype=torch.float32)[None, None, :, None]
    on = masks > 0.5
    top = torch.where(on.any(3, keepdim=True), rows, torch.full_like(rows, float(h))).amin(2, keepdim=True)
    bottom = torch.where(on.any(3, keepdim=True), rows, torch.full_like(rows, -1.0)).amax(2, keepdim=True)
    cut = top + (0.2 + 0.2 * torch.rand(b, 1, 1, 1, generator=gen)) * (bottom - top).clamp_min(1.0)
    tip_colour = 0.85 + 0.15 * torch.rand(b, 3, 1, 1, generator=gen)
    french = torch.where(rows.expand(b, 1, h, w) < cut, tip_colour.expand(b, 3, h, w),
                         (0.6 * base + 0.4).expand(b, 3, h, w))
    noise = F.interpolate(torch.rand(b, 1, 6, 6, generator=gen), size=(h, w), mode="bicubic", align_corners=False)
    blobs = torch.where(noise > 0.5, base.expand(b, 3, h, w), second.expand(b, 3, h, w))
    for index, option in enumerate((gradient, glitter, french, blobs), start=1):
        chosen = (kind == index)[:, None, None, None]
        pattern = torch.where(chosen, option, pattern)
    painted = (pattern * shading + highlight).clamp(0, 1)
    alpha = masks.clamp(0, 1)
    return images * (1 - alpha) + painted * alpha


def geometric(images: torch.Tensor, masks: torch.Tensor, gen: torch.Generator, augment: bool) -> tuple[
        torch.Tensor, torch.Tensor]:
    """The central ROI of each context crop (B, C, 2·ROI, 2·ROI), rotated ±25°, scaled ±20 %, shifted ±12 % and
    flipped at random (augment) or as it is."""
    b = images.shape[0]
    if augment:
        angle = (torch.rand(b, generator=gen) * 2 - 1) * math.radians(25)
        scale = 1 + (torch.rand(b, generator=gen) * 2 - 1) * 0.2
        shift = (torch.rand(b, 2, generator=gen) * 2 - 1) * 0.12
        flip = torch.where(torch.rand(b, generator=gen) < 0.5, -1.0, 1.0)
    else:
        angle, scale, shift, flip = torch.zeros(b), torch.ones(b), torch.zeros(b, 2), torch.ones(b)
    cos, sin = torch.cos(angle) * scale * 0.5, torch.sin(angle) * scale * 0.5
    theta = torch.stack([torch.stack([cos * flip, -sin, shift[:, 0]], 1),
                         torch.stack([sin * flip, cos, shift[:, 1]], 1)], 1)
    grid = F.affine_grid(theta, [b, 1, ROI, ROI], align_corners=False)
    both = torch.cat([images, masks], 1)
    out = F.grid_sample(both, grid, mode="bilinear", padding_mode="border", align_corners=False)
    return out[:, :3], out[:, 3:]


def photometric(images: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    b = images.shape[0]

    def uniform(low: float, high: float, *shape: int) -> torch.Tensor:
        return low + (high - low) * torch.rand(b, *shape, generator=gen)

    # hue ±20° (OpenCV's ±10) as a rotation of the YIQ chroma plane; saturation ±30 %
    bgr_to_yiq = torch.tensor([[0.114, 0.587, 0.299], [-0.322, -0.274, 0.596], [0.312, -0.523, 0.211]])
    yiq = torch.einsum("ij,bjhw->bihw", bgr_to_yiq, images)
    hue = uniform(-math.radians(20), math.radians(20))
    sat = uniform(0.7, 1.3)
    i, q = yiq[:, 1], yiq[:, 2]
    c, s = (torch.cos(hue) * sat)[:, None, None], (torch.sin(hue) * sat)[:, None, None]
    yiq = torch.stack([yiq[:, 0], c * i - s * q, s * i + c * q], 1)
    images = torch.einsum("ij,bjhw->bihw", torch.linalg.inv(bgr_to_yiq), yiq)
    # contrast, brightness, white balance
    mean = images.mean((1, 2, 3), keepdim=True)
    images = (images - mean) * uniform(0.7, 1.3, 1, 1, 1) + mean + uniform(-0.12, 0.12, 1, 1, 1)
    images = images * uniform(0.9, 1.1, 3, 1, 1)
    # blur (some), noise
    blurred = F.avg_pool2d(F.pad(images, (1, 1, 1, 1), mode="replicate"), 3, stride=1)
    images = torch.where(uniform(0, 1, 1, 1, 1) < 0.25, 0.5 * images + 0.5 * blurred, images)
    images = images + torch.randn(images.shape, generator=gen) * uniform(0.0, 0.03, 1, 1, 1)
    return images.clamp(0, 1)


def jpeg(images: torch.Tensor, rng: np.random.Generator, p: float = 0.5) -> torch.Tensor:
    """Re-encode some crops as JPEG at quality 25–90 (BGR in [0, 1])."""
    from PIL import Image

    out = images.clone()
    for k in range(images.shape[0]):
        if rng.random() >= p:
            continue
        rgb = (images[k].flip(0).permute(1, 2, 0).numpy() * 255 + 0.5).astype(np.uint8)
        buffer = io.BytesIO()
        Image.fromarray(rgb).save(buffer, format="JPEG", quality=int(rng.integers(25, 91)))
        decoded = np.asarray(Image.open(io.BytesIO(buffer.getvalue())).convert("RGB"), np.float32) / 255
        out[k] = torch.from_numpy(decoded).permute(2, 0, 1).flip(0)
    return out


# --- training --------------------------------------------------------------------------------------------------

def _tensor_images(array: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(array.transpose(0, 3, 1, 2))).float() / 255


def _tensor_masks(array: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(array[:, None])).float() / 255


def loss_fn(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    bce = F.binary_cross_entropy_with_logits(logits, target)
    prob = torch.sigmoid(logits)
    inter = (prob * target).sum((1, 2, 3))
    dice = 1 - (2 * inter + 1) / (prob.sum((1, 2, 3)) + target.sum((1, 2, 3)) + 1)
    return bce + DICE_WEIGHT * dice.mean()


def train(context: np.ndarray, context_masks: np.ndarray, *, epochs: int, seed: int, inner: int = 32,
          log: bool = False) -> TinyUNet:
    return fit(_tensor_images(context), _tensor_masks(context_masks), lambda: TinyUNet(inner=inner),
               lambda x, y, gen: geometric(x, y, gen, augment=True), epochs=epochs, seed=seed, log=log)


Geometry = Callable[[torch.Tensor, torch.Tensor, torch.Generator], tuple[torch.Tensor, torch.Tensor]]


def fit(images: torch.Tensor, masks: torch.Tensor, make_model: Callable[[], TinyUNet], geometry: Geometry, *,
        epochs: int, seed: int, lr: float = LR, log: bool = False) -> TinyUNet:
    """The training loop both trainers share (this one and tools/train_full_frame_model.py): AdamW under a OneCycle
    schedule, batches of BATCH in a seeded order, each repainted with a random polish (REPAINT_P), moved by
    `geometry`, then colour, blur, noise and JPEG; loss BCE + soft Dice. Seeded before the model is made, so the
    same data and seed give the same weights."""
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    rng = np.random.default_rng(seed)
    model = make_model()
    n = images.shape[0]
    steps = max(1, math.ceil(n / BATCH))
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=lr, total_steps=epochs * steps)
    model.train()
    for epoch in range(epochs):
        order = torch.randperm(n, generator=gen)
        total, start = 0.0, time.perf_counter()
        for step in range(steps):
            rows = order[step * BATCH:(step + 1) * BATCH]
            x, y = images[rows], masks[rows]
            painted = repaint(x, y, gen)
            x = torch.where((torch.rand(len(rows), generator=gen) < REPAINT_P)[:, None, None, None], painted, x)
            x, y = geometry(x, y, gen)
            x = jpeg(photometric(x, gen), rng)
            loss = loss_fn(model(x), y)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += float(loss.detach()) * len(rows)
        if log and (epoch == 0 or (epoch + 1) % 10 == 0):
            print(f"  epoch {epoch + 1}/{epochs} loss {total / n:.4f} ({time.perf_counter() - start:.1f} s)",
                  file=sys.stderr, flush=True)
    model.eval()
    return model


def predict(model: TinyUNet, rois: np.ndarray) -> np.ndarray:
    with torch.no_grad():
        return torch.sigmoid(model(_tensor_images(rois)))[:, 0].numpy()


def fold_of_photos(photos: int, folds: int, seed: int) -> np.ndarray:
    """Photo → fold, a seeded permutation dealt round-robin (fold sizes differ by at most one)."""
    order = np.random.default_rng(seed).permutation(photos)
    fold = np.empty(photos, np.int64)
    fold[order] = np.arange(photos) % folds
    return fold


def _fold_worker(job: tuple[Path, int, int, int, int, int, int, Path | None]) -> tuple[int, np.ndarray, float]:
    """One fold (in a worker process or not): its test ROIs' probabilities and its seconds; with `models`, its model
    exported as models/fold<k>.onnx (for an out-of-fold video evaluation: tools/video_cv_eval.py)."""
    rois, fold, folds, epochs, seed, inner, threads, models = job
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(True)
    data = np.load(rois)
    roi_fold = fold_of_photos(len(data["names"]), folds, seed)[data["photo"]]
    start = time.perf_counter()
    train_rows, test_rows = np.flatnonzero(roi_fold != fold), np.flatnonzero(roi_fold == fold)
    model = train(data["context"][train_rows], data["context_masks"][train_rows], epochs=epochs,
                  seed=seed + fold, inner=inner)
    probs = predict(model, data["rois"][test_rows]) if len(test_rows) else np.zeros((0, ROI, ROI), np.float32)
    seconds = round(time.perf_counter() - start, 1)
    if models is not None:
        export_onnx(model, models / f"fold{fold}.onnx")
    print(f"fold {fold}: {len(train_rows)} train / {len(test_rows)} test ROIs, {seconds} s",
          file=sys.stderr, flush=True)
    return fold, probs, seconds


def cross_validate(rois: Path, out: Path, *, folds: int, epochs: int, seed: int, inner: int,
                   jobs: int = 1, threads: int = 1, models: Path | None = None) -> dict[str, object]:
    """k-fold CV by photo. Each fold's training depends only on its own seed (seed + fold), so the folds may run in
    parallel processes (jobs) with the same result as one after another."""
    data = np.load(rois)
    photo_fold = fold_of_photos(len(data["names"]), folds, seed)
    roi_fold = photo_fold[data["photo"]]
    probs = np.zeros(data["rois"].shape[:3], np.float16)
    work = [(rois, fold, folds, epochs, seed, inner, threads, models) for fold in range(folds)]
    start = time.perf_counter()
    if jobs > 1:
        import multiprocessing

        with multiprocessing.get_context("spawn").Pool(min(jobs, folds)) as pool:
            results = pool.map(_fold_worker, work, chunksize=1)
    else:
        results = [_fold_worker(job) for job in work]
    seconds = [0.0] * folds
    for fold, fold_probs, fold_seconds in results:
        probs[roi_fold == fold] = fold_probs
        seconds[fold] = fold_seconds
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, probs=probs, fold_of_photo=photo_fold)
    return {"folds": folds, "epochs": epochs, "seed": seed, "inner": inner, "jobs": jobs, "fold_seconds": seconds,
            "total_seconds": round(sum(seconds), 1), "wall_seconds": round(time.perf_counter() - start, 1),
            "out": str(out)}


def export_onnx(model: TinyUNet, out: Path, *, size: int = ROI, input_name: str = "roi") -> str:
    """Write `model` as ONNX (input `input_name` (N, 3, size, size), output "logits"); returns its sha256."""
    out.parent.mkdir(parents=True, exist_ok=True)
    dummy = torch.zeros(1, 3, size, size)
    torch.onnx.export(model, (dummy,), str(out), input_names=[input_name], output_names=["logits"],
                      dynamic_axes={input_name: {0: "n"}, "logits": {0: "n"}}, opset_version=17, dynamo=False)
    return hashlib.sha256(out.read_bytes()).hexdigest()


def final(data: np.lib.npyio.NpzFile, out: Path, *, epochs: int, seed: int, inner: int) -> dict[str, object]:
    start = time.perf_counter()
    model = train(data["context"], data["context_masks"], epochs=epochs, seed=seed, inner=inner, log=True)
    seconds = round(time.perf_counter() - start, 1)
    digest = export_onnx(model, out)
    return {"epochs": epochs, "seed": seed, "inner": inner, "rois": int(data["rois"].shape[0]),
            "parameters": sum(p.numel() for p in model.parameters()), "train_seconds": seconds,
            "out": str(out), "bytes": out.stat().st_size, "sha256": digest}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("cv", "final"))
    parser.add_argument("--rois", type=Path, default=Path("build/nail_rois.npz"))
    parser.add_argument("--out", type=Path)
    parser.add_argument("--epochs", type=int, default=EPOCHS)
    parser.add_argument("--folds", type=int, default=FOLDS)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--inner", type=int, default=32, choices=(16, 32, 64),
                        help="the U-Net's inside resolution (64: full)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1,
                        help="cv: folds run in this many processes at once (one torch thread each; same result)")
    parser.add_argument("--fold-models", type=Path, default=None,
                        help="cv: also export each fold's model as DIR/fold<k>.onnx (tools/video_cv_eval.py)")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)
    if not args.rois.is_file():
        print(f"error: {args.rois} not found; make it with `python tools/extract_nail_rois.py extract`",
              file=sys.stderr)
        return 2
    data = np.load(args.rois)
    if args.command == "cv":
        report = cross_validate(args.rois, args.out or Path("build/nail_oof.npz"), folds=args.folds,
                                epochs=args.epochs, seed=args.seed, inner=args.inner, jobs=args.jobs,
                                threads=args.threads, models=args.fold_models)
    else:
        report = final(data, args.out or Path("models/nail_segmenter.onnx"), epochs=args.epochs, seed=args.seed,
                       inner=args.inner)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
