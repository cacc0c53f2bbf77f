"""`nailmirror tryon`: paint a style onto the nails in photos or a video.

    nailmirror tryon --image PATH... --style STYLE --out OUT [--coverage-out COV] [--shape S --length L]
    nailmirror tryon --video IN --out OUT.mp4 --style STYLE [--coverage-out DIR] [--shape S --length L]

PATH may be files or directories (their images, not recursive). With one input OUT (and COV) are files (OUT's
suffix picks the format: .png .jpg .jpeg .webp .bmp .tif .tiff; any other suffix, or none, is refused, exit 2);
with several they are directories and each output is named `<input stem>.png`. Coverage is an 8-bit PNG the
size of the input: 255 where a nail was painted, 0 elsewhere. A bad input gets a one-line error, the batch goes on, and
the exit status is 1 at the end. No hand found: the image is written unchanged, coverage all zero, a warning; an
image read but not processed likewise, with an error. Formats are told by content (JPEG, PNG, WebP, BMP, TIFF,
GIF's first frame); in a photo over 4096 px on its long side the hands are found at a reduced size and the nails
painted at the photo's own. An OUT or COV that is, or would
overwrite, an input is refused before anything is written (exit 2). Exit 4: data directory unusable (cli).

--shape (round, square, squoval, almond, coffin, stiletto; default round) and --length (natural, short, medium,
long, extra-long; default natural: the nail as found) paint every nail extended to that shape and length, the
extension a multiple of the nail's own length (ARCHITECTURE.md §3). Coverage is the natural nail only, whatever
the length: an extension is never counted as nail.

With --video, --coverage-out DIR (created with its parents) gets one 8-bit PNG per decoded frame, DIR/000000.png
onwards in decode order, each the frame's size: 255 where paint was put, 0 elsewhere (all 0 without a hand).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from nailmirror_desktop.core.nail_form import NailLength, NailShape, parse_form

if TYPE_CHECKING:
    import cv2

    from nailmirror_desktop.vision.paint.style_textures import StyleTextures
    from nailmirror_desktop.vision.pipeline import TryOnPipeline, TryOnResult

# = vision.image_io.READABLE_SUFFIXES (not imported here: that loads cv2); a file's format is decided by content
IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".webp", ".bmp", ".tif", ".tiff", ".gif"}
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("tryon", help="paint a nail style onto photos or a video",
                                   description=__doc__.split("\n\n")[0])
    inputs = parser.add_mutually_exclusive_group(required=True)
    inputs.add_argument("--image", nargs="+", type=Path, metavar="PATH", help="image files or directories")
    inputs.add_argument("--video", type=Path, metavar="IN", help="a video file")
    parser.add_argument("--style", required=True, help="a texture image, a style folder or a catalog style code")
    parser.add_argument("--out", required=True, type=Path, help="output file, or directory for several images")
    parser.add_argument("--coverage-out", type=Path, metavar="COV",
                        help="coverage PNG (or directory) for images; for a video, a directory of one PNG per frame")
    parser.add_argument("--mirrored", action="store_true", help="the input is mirrored (selfie camera)")
    parser.add_argument("--shape", choices=[s.value for s in NailShape], default=NailShape.ROUND.value,
                        help="the nails' tip shape when extended (default round)")
    parser.add_argument("--length", choices=[n.value for n in NailLength], default=NailLength.NATURAL.value,
                        help="extension past the free edge (default natural: the nail as found)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from nailmirror_desktop.adapters.style_store import resolve_style_argument
    from nailmirror_desktop.core.catalog import StyleError as CatalogStyleError
    from nailmirror_desktop.vision.nails.full_frame import FullFrameModelError
    from nailmirror_desktop.vision.nails.nail_segmenter import NailSegmenterError
    from nailmirror_desktop.vision.paint.style_textures import StyleError, load_style
    from nailmirror_desktop.vision.tracking.hand_model import HandModelError

    try:
        style = load_style(resolve_style_argument(args.style))
    except (StyleError, CatalogStyleError) as exc:
        _error(f"style: {exc}")
        return EXIT_USAGE
    try:
        if args.video is not None:
            return _run_video(args, style)
        return _run_images(args, style)
    except (HandModelError, NailSegmenterError, FullFrameModelError) as exc:  # a model file missing or not verified
        _error(str(exc))
        return EXIT_FAILED


# ---------------------------------------------------------------- images


def collect_images(paths: list[Path]) -> tuple[list[Path], list[str]]:
    """Expand directories (their entries named like images, sorted); return (images, errors for paths that do
    not exist). An entry that is not a regular file (a broken link, a FIFO, a folder named x.jpg) is kept, so
    reading it reports it and the exit status counts it."""
    images, errors = [], []
    for path in paths:
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
            if not found:
                errors.append(f"{path}: no images in this directory")
            images.extend(found)
        elif path.exists() or path.is_symlink():
            images.append(path)
        else:
            errors.append(f"{path}: no such file")
    return images, errors


def output_paths(images: list[Path], out: Path, coverage: Path | None, batch: bool) -> list[tuple[Path, Path | None]]:
    """Where each input's result and coverage go. Batch: `<dir>/<stem>.png`; clashing stems get `-2`, `-3`…"""
    if not batch:
        return [(out, coverage)]
    targets, used = [], set()
    for image in images:
        stem, n = image.stem, 1
        while stem in used:
            n += 1
            stem = f"{image.stem}-{n}"
        used.add(stem)
        targets.append((out / f"{stem}.png", coverage / f"{stem}.png" if coverage else None))
    return targets


def unnamed_format(out: Path) -> str | None:
    """A one-line refusal when a single output's suffix names no format we write (`--out dots`, `--out x.gif`).
    Refused rather than guessed: `dots` may have meant a folder, and a PNG written to a name without its
    suffix (what happened before) opens in nothing that goes by names."""
    from nailmirror_desktop.vision.sources.image_io import WRITABLE_SUFFIXES

    if out.suffix.lower() in WRITABLE_SUFFIXES:
        return None
    known = ", ".join(sorted(WRITABLE_SUFFIXES))
    return (f"{out}: --out needs an image suffix ({known}), e.g. {out.with_name(out.name + '.png')}; "
            "for a folder, create it first")


def overwritten_input(inputs: list[Path], outputs: list[Path]) -> str | None:
    """A one-line refusal when an output (or coverage) path is an input, or would overwrite one: the same path
    after resolving links and `..`, or a hard link to the same file; or when two outputs are one file."""
    def identity(path: Path) -> tuple[int, int] | None:
        try:
            info = path.stat()
        except OSError:
            return None
        return (info.st_dev, info.st_ino)

    by_path = {p.resolve(): p for p in inputs}
    by_file = {key: p for p in inputs if (key := identity(p)) is not None}
    seen: dict[Path, Path] = {}
    for out in outputs:
        resolved = out.resolve()
        key = identity(out)
        source = by_path.get(resolved) or (by_file.get(key) if key is not None else None)
        if source is not None:
            return f"{out}: would overwrite the input {source}; choose another --out / --coverage-out"
        if resolved in seen:
            return f"{out}: given twice as an output (also for {seen[resolved]}); choose another path"
        seen[resolved] = out
    return None


def _run_images(args: argparse.Namespace, style: StyleTextures) -> int:
    from nailmirror_desktop.vision.pipeline import TryOnPipeline

    images, errors = collect_images(args.image)
    for message in errors:
        _error(message)
    # several inputs, or an existing directory as OUT: outputs go into it as <stem>.png
    batch = len(args.image) > 1 or any(p.is_dir() for p in args.image) or len(images) > 1 or args.out.is_dir()
    if batch and not _are_directories(args.out, args.coverage_out):
        return EXIT_USAGE
    if not batch and (refusal := unnamed_format(args.out)):
        _error(refusal)
        return EXIT_USAGE
    failures = len(errors)
    targets = output_paths(images, args.out, args.coverage_out, batch)
    clash = overwritten_input(images, [p for pair in targets for p in pair if p is not None])
    if clash:
        _error(clash)
        return EXIT_USAGE
    with TryOnPipeline(style.compositor(), mirrored=args.mirrored) as pipeline:
        pipeline.nail_form = parse_form(args.shape, args.length)
        # not strict: with one input path that does not exist there is a target but no image
        for index, (image_path, (out_path, coverage_path)) in enumerate(zip(images, targets, strict=False), 1):
            result = _try_on_image(pipeline, image_path, out_path, coverage_path)
            if result is None:
                failures += 1
            elif batch:
                print(f"[{index}/{len(images)}] {image_path.name}: {len(result.hands)} hand(s), "
                      f"{sum(q.opacity > 0 for q in result.quads)} nail(s) → {out_path}", file=sys.stderr)
    if failures:
        _error(f"{failures} input(s) failed")
        return EXIT_FAILED
    return EXIT_OK


def _are_directories(*paths: Path | None) -> bool:
    """False (with an error) when a batch output path exists and is not a directory."""
    for directory in paths:
        if directory is not None and directory.exists() and not directory.is_dir():
            _error(f"{directory}: with several inputs this must be a directory")
            return False
    return True


def _try_on_image(pipeline: TryOnPipeline, image_path: Path, out_path: Path,
                  coverage_path: Path | None) -> TryOnResult | None:
    """Read, paint and write one image; None (with an error printed) when any step fails (a photo read but not
    processed is still written unchanged, with an empty coverage). A large photo's hands
    are found on a reduced copy (vision.image_io.read_photo) and its nails painted on the photo itself
    (`TryOnPipeline.process_still(..., full=...)`)."""
    import numpy as np

    from nailmirror_desktop.vision.sources.image_io import (
        ImageReadError,
        read_full_size,
        read_photo,
        write_image,
        write_png,
    )

    try:
        photo = read_photo(image_path)
        full = read_full_size(image_path, photo) if photo.reduced else None
    except ImageReadError as exc:
        _error(str(exc))
        return None
    image = photo.image if full is None else full
    try:
        result: TryOnResult | None = pipeline.process_still(photo.image, want_coverage=True, full=full)
    except (ValueError, MemoryError, cv2_error()) as exc:  # an image the detector cannot take
        _error(f"{image_path}: cannot process ({type(exc).__name__}: {exc}); written unchanged")
        result = None
    if result is not None and not result.hands and not result.quads:  # (no hand: the full-frame model's nails)
        _warn(f"{image_path}: no hand found; written unchanged")
    # every photo read gets its outputs, a failed one too: unchanged, its coverage empty (nothing painted)
    frame = image if result is None else result.frame
    coverage = None if result is None else result.coverage
    try:
        write_image(out_path, frame)
        if coverage_path is not None:
            write_png(coverage_path, np.zeros(image.shape[:2], np.uint8) if coverage is None else coverage)
    except OSError as exc:
        _error(f"{out_path}: cannot write ({exc})")
        return None
    return result


# ---------------------------------------------------------------- video


def _run_video(args: argparse.Namespace, style: StyleTextures) -> int:
    from nailmirror_desktop.vision.pipeline import TryOnPipeline
    from nailmirror_desktop.vision.sources.image_io import write_png
    from nailmirror_desktop.vision.sources.readers import FrameSourceError, VideoFileSource

    clash = overwritten_input([args.video], [args.out])
    if clash:
        _error(clash)
        return EXIT_USAGE
    coverage_dir: Path | None = args.coverage_out
    if coverage_dir is not None and (status := _coverage_directory(coverage_dir, args.video)) != EXIT_OK:
        return status
    source = VideoFileSource(args.video)
    try:
        source.open()
    except FrameSourceError as exc:
        _error(f"{args.video}: cannot open video ({exc.code})")
        return EXIT_FAILED
    args.out.parent.mkdir(parents=True, exist_ok=True)
    writer: cv2.VideoWriter | None = None
    progress = ProgressBar(source.frame_count, sys.stderr)
    frames = frames_with_hands = 0
    try:
        with TryOnPipeline(style.compositor(), mirrored=args.mirrored) as pipeline:
            pipeline.nail_form = parse_form(args.shape, args.length)
            while (frame := source.read()) is not None:
                if writer is None:
                    writer = _open_writer(args.out, source.nominal_fps or 30.0, frame.image.shape)
                    if writer is None:
                        return EXIT_FAILED
                result = pipeline.process_video_frame(frame.image, frame.timestamp_ms, in_place=True,
                                                      want_coverage=coverage_dir is not None)
                writer.write(result.frame)
                if coverage_dir is not None and result.coverage is not None:
                    try:
                        write_png(coverage_dir / f"{frames:06d}.png", result.coverage)
                    except OSError as exc:
                        _error(f"{coverage_dir}: cannot write coverage ({exc})")
                        return EXIT_FAILED
                frames += 1
                frames_with_hands += bool(result.hands)
                progress.update(frames)
    finally:
        source.close()
        if writer is not None:
            writer.release()
        progress.finish()
    if frames == 0:
        _error(f"{args.video}: no frames could be read")
        return EXIT_FAILED
    print(f"{frames} frames, hands in {frames_with_hands}, written to {args.out}", file=sys.stderr)
    return EXIT_OK


def _coverage_directory(directory: Path, video: Path) -> int:
    """Create a video's --coverage-out directory (with its parents); a usage error when it is a file."""
    if directory.resolve() == video.resolve() or (directory.exists() and not directory.is_dir()):
        _error(f"{directory}: --coverage-out for a video must be a directory")
        return EXIT_USAGE
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        _error(f"{directory}: cannot create ({exc})")
        return EXIT_FAILED
    return EXIT_OK


def _open_writer(path: Path, fps: float, shape: tuple[int, ...]) -> cv2.VideoWriter | None:
    import cv2

    # pip OpenCV has no H.264 encoder (no libx264); MPEG-4 Part 2 ('mp4v') plays in every common player.
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"mp4v"), fps, (shape[1], shape[0]))
    if not writer.isOpened():
        _error(f"{path}: cannot write video (mp4v)")
        return None
    return writer


class ProgressBar:
    """A one-line text progress bar, redrawn at most 10 times a second."""

    def __init__(self, total: int, stream: TextIO, width: int = 30) -> None:
        self.total, self.stream, self.width = total, stream, width
        self._started = time.monotonic()
        self._last_draw = 0.0

    def update(self, done: int) -> None:
        now = time.monotonic()
        if now - self._last_draw < 0.1 and done != self.total:
            return
        self._last_draw = now
        fps = done / max(now - self._started, 1e-6)
        if self.total > 0:
            filled = int(self.width * min(done, self.total) / self.total)
            bar = "#" * filled + "-" * (self.width - filled)
            self.stream.write(f"\r[{bar}] {done}/{self.total} frames  {fps:5.1f} fps")
        else:
            self.stream.write(f"\r{done} frames  {fps:5.1f} fps")
        self.stream.flush()

    def finish(self) -> None:
        self.stream.write("\n")
        self.stream.flush()


def cv2_error() -> type[Exception]:
    import cv2

    return cv2.error


def _error(message: str) -> None:
    print(f"error: {_one_line(message)}", file=sys.stderr)


def _warn(message: str) -> None:
    print(f"warning: {_one_line(message)}", file=sys.stderr)


def _one_line(message: str) -> str:
    """OpenCV's messages (and some OS ones) span lines; a line per problem keeps the output greppable."""
    return " ".join(message.split())
