"""Hand-free images for the full-frame nail model: where there is no hand it must paint no nail.

    PYTHONPATH=$PWD .venv/bin/python tools/make_negatives.py --out build/negatives [--held-out build/negatives_eval]

The full-frame model (vision/nails/full_frame.py) once learnt only from hands, and painted nails on a face, a cat, a
coffee cup and a motorcycle (the model card's "Full-frame fallback: negatives"): a kiosk camera at an empty counter,
or a photo with no hand in it, must get none. Nothing here is downloaded from a model or data hub; the images ship
in packages of the registries this project installs from, each checked against its sha256 before it is unpacked:

- --out (trained on): the colour images of two Debian bookworm packages, fetched with `apt-get download` and
  unpacked with `dpkg-deb -x` (nothing is installed): opencv-doc 4.6.0+dfsg-12 (OpenCV's sample photos: fruit, a
  face, a street, scene text, a football player …) and gnome-backgrounds 43.1-1 (wallpapers: wood, patterns).
- --held-out (scored, never trained on): the colour images of scikit-image 0.25.2's wheel (`pip download`),
  skimage/data: an astronaut, a cat, a coffee cup, motorcycles, a rocket ….

An image is kept when it is in colour (mean |blue − red| ≥ 4 of 255: grey calibration boards say nothing about
skin or polish) and at least 120 px on its short side. Each is written as DIR/<source>__<name>.png, scaled to at
most 1024 px on its long side. Prints one JSON line: the images written per source.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

MAX_SIDE = 1024
MIN_SIDE = 120
MIN_COLOUR = 4.0
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp")


@dataclass(frozen=True)
class Source:
    """A package file and the folders in it whose images are taken."""

    name: str
    file: str
    sha256: str
    folders: tuple[str, ...]


TRAIN = (
    Source("opencv-doc", "opencv-doc_4.6.0+dfsg-12_all.deb",
           "4b12681df35878207ac7097dc66184b2ae552e4bf4ddd2af04a0f03ed0b8682a",
           ("usr/share/doc/opencv-doc/examples/data", "usr/share/doc/opencv-doc/examples/text",
            "usr/share/doc/opencv-doc/examples/hfs/data", "usr/share/doc/opencv-doc/examples/alphamat/input_images",
            "usr/share/doc/opencv-doc/examples/fuzzy", "usr/share/doc/opencv-doc/examples/ximgproc",
            "usr/share/doc/opencv-doc/examples/reg")),
    Source("gnome-backgrounds", "gnome-backgrounds_43.1-1_all.deb",
           "a670dea21572652127d6e55f9cdb3a226d0037854fdbfd037003c7d00ee0dc4e",
           ("usr/share/backgrounds/gnome",)),
)
HELD_OUT = Source("scikit-image", "scikit_image-0.25.2-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
                  "a17e17eb8562660cc0d31bb55643a4da996a81944b82c54805c91b3fe66f4824", ("skimage/data",))


def fetch(source: Source, into: Path) -> Path:
    """The package file in `into`, downloaded when missing, its sha256 checked."""
    path = into / source.file
    if not path.is_file():
        if source.file.endswith(".deb"):
            package, version = source.file.split("_")[:2]
            command = ["apt-get", "download", f"{package}={version}"]
        else:
            command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                       "--python-version", "3.12", "--platform", "manylinux2014_x86_64", "-d", str(into),
                       "scikit-image==0.25.2"]
        subprocess.run(command, cwd=into, check=True, capture_output=True)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != source.sha256:
        raise ValueError(f"{source.file}: sha256 {digest}, expected {source.sha256}")
    return path


def unpack(source: Source, package: Path, into: Path) -> Path:
    root = into / source.name
    if source.file.endswith(".deb"):
        subprocess.run(["dpkg-deb", "-x", str(package), str(root)], check=True, capture_output=True)
    else:
        with zipfile.ZipFile(package) as wheel:
            wheel.extractall(root, [n for n in wheel.namelist() if n.startswith(source.folders)])
    return root


def kept(path: Path) -> np.ndarray | None:
    """The image scaled to at most MAX_SIDE, or None when it is not a colour image of at least MIN_SIDE."""
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None or min(image.shape[:2]) < MIN_SIDE:
        return None
    if float(np.mean(np.abs(image[..., 0].astype(np.int16) - image[..., 2]))) < MIN_COLOUR:
        return None
    scale = MAX_SIDE / max(image.shape[:2])
    if scale < 1.0:
        image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    return image


def write(sources: tuple[Source, ...], out: Path, cache: Path) -> dict[str, int]:
    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for source in sources:
            root = unpack(source, fetch(source, cache), Path(scratch))
            count = 0
            for folder in source.folders:
                for path in sorted((root / folder).iterdir()):
                    if path.suffix.lower() not in IMAGE_SUFFIXES:
                        continue
                    image = kept(path)
                    if image is None:
                        continue
                    cv2.imwrite(str(out / f"{source.name}__{path.parent.name}_{path.stem}.png"), image)
                    count += 1
            written[source.name] = count
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("build/negatives"))
    parser.add_argument("--held-out", type=Path, default=None)
    parser.add_argument("--cache", type=Path, default=Path("build/negatives_packages"),
                        help="where the package files are kept (downloaded once)")
    args = parser.parse_args(argv)
    args.cache.mkdir(parents=True, exist_ok=True)
    try:
        report: dict[str, object] = {"train": write(TRAIN, args.out, args.cache.resolve())}
        if args.held_out is not None:
            report["held_out"] = write((HELD_OUT,), args.held_out, args.cache.resolve())
    except (subprocess.CalledProcessError, ValueError, OSError) as error:
        print(f"make_negatives: {error}", file=sys.stderr)
        return 2
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
