"""Reading a style folder: sizes checked before anything is read, every style.json field bounded, links and
special files refused, and no error ever quotes a file's contents — always StyleError, never another exception."""

from __future__ import annotations

import json
import os
import resource
import threading

import pytest

from nailmirror_desktop.core.catalog.content import (
    MAX_DESIGN_CHARS,
    MAX_NAME_CHARS,
    MAX_STYLE_JSON_BYTES,
    MAX_TEXTURE_BYTES,
    read_style_folder,
)
from nailmirror_desktop.core.catalog.errors import StyleError
from tests.support.style_fixtures import make_style_folder


def _refused(folder) -> StyleError:
    with pytest.raises(StyleError) as caught:
        read_style_folder(folder)
    assert caught.value.code == "STYLE_FOLDER_INVALID"
    assert len(str(caught.value).splitlines()) == 1
    return caught.value


def _with_style_json(tmp_path, text: str | bytes):
    folder = make_style_folder(tmp_path / "style")
    raw = text.encode() if isinstance(text, str) else text
    (folder / "style.json").write_bytes(raw)
    return folder


def test_a_good_folder_reads(tmp_path):
    style = read_style_folder(make_style_folder(tmp_path / "ok"))
    assert style.name == "奶白贝壳" and style.seed == 7 and style.content.accent_fingers == ("ring",)


@pytest.mark.parametrize("document", ["[" * 100_000 + "]" * 100_000, '{"a":' * 50_000 + "1" + "}" * 50_000,
                                      '{"name": "x", "design": ' + "[" * 3000 + "]" * 3000 + "}"],
                         ids=["lists", "objects", "design"])
def test_deeply_nested_json_is_refused(tmp_path, document):
    _refused(_with_style_json(tmp_path, document))


def test_deep_nesting_is_refused_on_a_small_stack_too(tmp_path):
    # The kiosk imports on a worker thread; deep JSON there must be a StyleError as well, not a crash.
    folder = _with_style_json(tmp_path, "[" * 2000 + "]" * 2000)
    seen = []
    threading.stack_size(256 * 1024)
    try:
        worker = threading.Thread(target=lambda: seen.append(_refused(folder)))
        worker.start()
        worker.join()
    finally:
        threading.stack_size(0)
    assert seen


@pytest.mark.parametrize("field", ["seed", "name", "design"])
def test_a_5000_digit_integer_is_refused(tmp_path, field):
    big = "9" * 5000
    document = {"seed": f'{{"seed": {big}}}', "name": f'{{"name": {big}}}',
                "design": f'{{"design": {{"n": {big}}}}}'}[field]
    _refused(_with_style_json(tmp_path, document))


def test_oversized_fields_are_refused(tmp_path):
    _refused(_with_style_json(tmp_path, json.dumps({"name": "n" * (MAX_NAME_CHARS + 1)})))
    _refused(_with_style_json(tmp_path, json.dumps({"design": {"base": "x" * MAX_DESIGN_CHARS}})))
    _refused(_with_style_json(tmp_path, json.dumps({"seed": 2**64})))
    _refused(_with_style_json(tmp_path, json.dumps({"seed": True})))
    _refused(_with_style_json(tmp_path, json.dumps({"name": ["a list"]})))
    _refused(_with_style_json(tmp_path, json.dumps({"accent_fingers": ["ring"] * 10_000})))
    _refused(_with_style_json(tmp_path, b"{}" + b" " * MAX_STYLE_JSON_BYTES))
    _refused(_with_style_json(tmp_path, '{"seed": NaN}'))


def test_a_10_mb_name_or_50_mb_design_is_refused_without_reading_it_whole(tmp_path):
    folder = _with_style_json(tmp_path, "")
    with open(folder / "style.json", "w") as handle:
        handle.write('{"name": "' + "n" * 10_000_000 + '", "design": {"d": "' + "d" * 50_000_000 + '"}}')
    error = _refused(folder)
    assert "nnnn" not in str(error) and "dddd" not in str(error)


def test_a_2_gib_texture_is_refused_before_it_is_read(tmp_path):
    folder = make_style_folder(tmp_path / "huge")
    with open(folder / "nail.png", "r+b") as handle:
        handle.truncate(2 << 30)  # sparse: costs no disk
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    error = _refused(folder)
    assert "nail.png" in str(error) and str(MAX_TEXTURE_BYTES) in str(error).replace(",", "")
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < 100_000, f"peak memory grew {grown_kib} KiB reading a refused file"


@pytest.mark.parametrize("name", ["nail.png", "accent.png", "preview.png", "style.json"])
def test_a_link_is_refused_and_its_target_never_quoted(tmp_path, name):
    secret = tmp_path / "secret.txt"
    secret.write_text("PASSWORD=hunter2 and more private text")
    folder = make_style_folder(tmp_path / "linked")
    (folder / name).unlink()
    (folder / name).symlink_to(secret)
    error = _refused(folder)
    assert "hunter2" not in str(error) and "PASSWORD" not in str(error) and "link" in str(error)


def test_a_fifo_or_folder_in_place_of_a_file_is_refused_without_blocking(tmp_path):
    folder = make_style_folder(tmp_path / "fifo")
    (folder / "accent.png").unlink()
    os.mkfifo(folder / "accent.png")
    assert "not a regular file" in str(_refused(folder))  # would block forever if opened for reading
    os.unlink(folder / "accent.png")
    (folder / "accent.png").mkdir()
    assert "not a regular file" in str(_refused(folder))


def test_errors_about_bad_text_do_not_quote_it(tmp_path):
    error = _refused(_with_style_json(tmp_path, b'{"name": "\xff\xfeSECRET"}'))
    assert "SECRET" not in str(error) and "\\xff" not in str(error)
    error = _refused(_with_style_json(tmp_path, b'{"name": SECRET-TOKEN}'))
    assert "SECRET" not in str(error)
