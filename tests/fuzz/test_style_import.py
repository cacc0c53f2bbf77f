"""Property: for any style.json document (deep, huge numbers, long text, wrong types, not JSON at all) and any
folder contents (files missing, empty, garbage, links, folders or FIFOs where files should be), read_style_folder
returns a StyleFolder whose every field is within its bound, or raises StyleError in one line that quotes
nothing from the files — never another exception."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from nailmirror_desktop.core.catalog.content import (
    FINGER_SLOTS,
    MAX_DESIGN_CHARS,
    MAX_NAME_CHARS,
    MAX_SEED,
    MAX_TEXTURE_BYTES,
    TEXTURE_SLOTS,
    StyleFolder,
    read_style_folder,
)
from nailmirror_desktop.core.catalog.errors import StyleError
from tests.support.style_fixtures import image_bytes

NAIL = image_bytes()
SECRET = "SECRET-CONTENT-7f3a"

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=20,
)
style_documents = st.fixed_dictionaries(
    {},
    optional={
        "name": json_values | st.text(max_size=200) | st.integers(0, 400).map(lambda n: "名" * n),
        "accent_fingers": json_values | st.lists(st.sampled_from([*FINGER_SLOTS, 0, 4, 9, "RING"]), max_size=8),
        "design": json_values | st.dictionaries(st.text(max_size=8), st.text(max_size=4000), max_size=8),
        "seed": json_values | st.integers(-(2**70), 2**70),
    },
)


def _deep(n: int, kind: str) -> str:
    return ("[" * n + "]" * n) if kind == "list" else ('{"a":' * n + "1" + "}" * n)


raw_documents = (
    style_documents.map(lambda d: json.dumps(d, ensure_ascii=False).encode())
    | json_values.map(lambda v: json.dumps(v).encode())
    | st.tuples(st.integers(1, 100_000), st.sampled_from(["list", "object"])).map(lambda t: _deep(*t).encode())
    | st.integers(1, 6000).map(lambda n: ('{"seed": ' + "7" * n + "}").encode())
    | st.binary(max_size=300)
)


def _check(folder: Path) -> None:
    try:
        style = read_style_folder(folder)
    except StyleError as exc:
        assert exc.code == "STYLE_FOLDER_INVALID" or exc.code in ("UNKNOWN_FINGER", "ACCENT_TEXTURE_MISSING")
        assert "\n" not in str(exc) and SECRET not in str(exc)
        return
    assert isinstance(style, StyleFolder)
    assert isinstance(style.name, str) and 0 < len(style.name) <= MAX_NAME_CHARS and "\n" not in style.name
    assert style.design is None or len(json.dumps(style.design, ensure_ascii=False)) <= MAX_DESIGN_CHARS
    assert style.seed is None or (type(style.seed) is int and 0 <= style.seed <= MAX_SEED)
    assert set(style.content.nail_textures) <= set(TEXTURE_SLOTS)
    assert all(len(data) <= MAX_TEXTURE_BYTES for data in style.content.nail_textures.values())
    assert set(style.content.accent_fingers) <= set(FINGER_SLOTS)
    design_json = style.design_json()
    assert design_json is None or isinstance(json.loads(design_json), dict)


@given(raw_documents)
def test_any_style_json(document):
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name) / "style"
        folder.mkdir()
        (folder / "nail.png").write_bytes(NAIL)
        (folder / "accent.png").write_bytes(NAIL)
        (folder / "style.json").write_bytes(document)
        _check(folder)


ENTRY_NAMES = ("nail.png", "accent.png", "ring.png", "preview.png", "style.json")
entry_kinds = st.sampled_from(["missing", "image", "empty", "garbage", "secret-link", "broken-link", "folder",
                               "fifo", "json"])


def _make(path: Path, kind: str, secret: Path) -> None:
    if kind == "image":
        path.write_bytes(NAIL)
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "garbage":
        path.write_bytes(SECRET.encode() + b"\xff\x00garbage")
    elif kind == "secret-link":
        path.symlink_to(secret)
    elif kind == "broken-link":
        path.symlink_to(path.parent / "nowhere")
    elif kind == "folder":
        path.mkdir()
        (path / "inside.png").write_bytes(NAIL)
    elif kind == "fifo":
        os.mkfifo(path)  # reading it would block: the reader must never open it for reading
    elif kind == "json":
        path.write_text(json.dumps({"name": SECRET[:3], "accent_fingers": ["ring"]}))


@given(st.fixed_dictionaries({name: entry_kinds for name in ENTRY_NAMES}))
def test_any_folder_contents(kinds):
    with tempfile.TemporaryDirectory() as name:
        secret = Path(name) / "secret.txt"
        secret.write_text(f"{SECRET} private text")
        folder = Path(name) / "style"
        folder.mkdir()
        for entry, kind in kinds.items():
            if kind != "missing":
                _make(folder / entry, kind, secret)
        _check(folder)
