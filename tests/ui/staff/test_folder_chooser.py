"""The touch folder chooser: USB volumes picked from a mount list, style folders found on them, browsing by taps
(big rows, Back, Up) in the UI's language, and a folder of style folders imported whole through the kiosk."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from nailmirror_desktop.core.catalog.status import StyleStatus
from nailmirror_desktop.core.config import load_config, save_config
from nailmirror_desktop.ui.shell import i18n
from nailmirror_desktop.ui.staff.folder_chooser import (
    FolderChooser,
    Volume,
    find_importable,
    linux_media_roots,
    removable_volumes,
    style_folders_in,
)
from tests.support.style_fixtures import make_style_folder
from tests.support.ui_support import ROOT, run_now, set_staff_pin, started_kiosk

ARTIFACTS = ROOT / "test-artifacts"


@pytest.fixture
def usb(tmp_path) -> Path:
    """A USB stick as staff bring it: a collection of three styles and a broken one, a lone style, holiday
    photos, and a style buried too deep to be searched for."""
    stick = tmp_path / "media" / "anna" / "KINGSTON"
    for i, name in enumerate(("春季樱花", "Spring lilac", "奶白贝壳")):
        make_style_folder(stick / "spring" / f"style-{i}", name=name, base=(230, 200 - 20 * i, 210, 255))
    broken = stick / "spring" / "zz-broken"
    broken.mkdir()
    os.symlink(stick / "spring" / "style-0" / "nail.png", broken / "nail.png")  # a link: the import refuses it
    make_style_folder(stick / "rose", name="Rose gloss")
    (stick / "photos").mkdir()
    (stick / "photos" / "beach.jpg").write_bytes(b"\xff\xd8 not a style")
    make_style_folder(stick / "a" / "b" / "c" / "d" / "deep")
    return stick


def test_only_ready_removable_volumes_are_listed(tmp_path):
    volumes = [Volume(Path("/"), "root"), Volume(Path("/boot/efi"), "EFI"), Volume(Path("/mnt/data"), "data"),
               Volume(Path("/media/anna/KINGSTON"), "KINGSTON"), Volume(Path("/run/media/bob/SANDISK"), "SANDISK"),
               Volume(Path("/media/anna/EMPTY"), "EMPTY", ready=False), Volume(Path("/media/anna/KINGSTON"), "dup")]
    assert [v.name for v in removable_volumes(volumes, platform="linux")] == ["KINGSTON", "SANDISK"]
    windows = [Volume(Path("C:/"), "Windows"), Volume(Path("D:/"), "USB"), Volume(Path("E:/"), "CD", ready=False),
               Volume(Path("C:/Users/shop/mnt"), "folder mount")]
    assert [v.name for v in removable_volumes(windows, platform="win32", system_drive="C:")] == ["USB"]
    mac = [Volume(Path("/"), "Macintosh HD"), Volume(Path("/Volumes/STYLES"), "STYLES")]
    assert [v.name for v in removable_volumes(mac, platform="darwin")] == ["STYLES"]
    # Mounts Qt did not report: /media/<LABEL>, /media/<user>/<LABEL> and /run/media/<user>/<LABEL>, real folders.
    media, run_media = tmp_path / "media", tmp_path / "run-media"
    for folder in (media / "anna" / "KINGSTON", media / "anna" / "SANDISK", run_media / "bob" / "TRANSCEND"):
        folder.mkdir(parents=True)
    roots = linux_media_roots(media, run_media)
    assert [p.name for p in roots] == ["KINGSTON", "SANDISK", "TRANSCEND"]
    listed = removable_volumes([Volume(media / "anna" / "KINGSTON", "KINGSTON")], platform="linux",
                               extra_roots=roots)
    assert [v.name for v in listed] == ["KINGSTON", "SANDISK", "TRANSCEND"]  # each once


def test_style_folders_and_collections_are_found_shallow_first(usb):
    found = find_importable(usb, volume="KINGSTON")
    assert [(p.path.relative_to(usb).as_posix(), p.styles, p.is_style) for p in found] == [
        ("rose", 1, True), ("spring", 4, False)]  # not inside either; photos/ holds none; deep/ is too deep
    assert [p.name for p in style_folders_in(usb / "spring")] == ["style-0", "style-1", "style-2", "zz-broken"]
    assert style_folders_in(usb / "rose") == [usb / "rose"]
    assert style_folders_in(usb / "photos") == []
    assert find_importable(usb / "a", depth=4)[0].path == usb / "a" / "b" / "c" / "d" / "deep"


def click_row(qtbot, chooser: FolderChooser, path: Path) -> None:
    item = chooser.row_for(path)
    assert item is not None, (path, chooser.row_texts())
    rect = chooser.rows.visualItemRect(item)
    assert rect.height() >= 48
    qtbot.mouseClick(chooser.rows.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


@pytest.mark.qt
@pytest.mark.parametrize("language", ["zh_CN", "en"])
def test_the_chooser_is_driven_by_taps_in_the_ui_language(qtbot, usb, tmp_path, language):
    i18n.install_language(language)
    try:
        home = tmp_path / "home"
        home.mkdir()
        chooser = FolderChooser(volumes=lambda: [Volume(usb, "KINGSTON")], run=run_now, home=home)
        qtbot.addWidget(chooser)
        chooser.resize(1280, 800)
        chooser.show()
        texts = chooser.row_texts()
        assert any(t.startswith("spring") and "4" in t and "KINGSTON" in t for t in texts), texts
        assert not chooser.import_button.isEnabled() and not chooser.up_button.isEnabled()
        assert ("导入" in chooser.title.text()) == (language == "zh_CN")
        assert ("U 盘" in " ".join(texts) or "U盘" in " ".join(texts)) == (language == "zh_CN")
        ARTIFACTS.mkdir(exist_ok=True)
        chooser.grab().save(str(ARTIFACTS / f"folder_chooser_start_{language}.png"))
        chosen: list[list[str]] = []
        chooser.chosen.connect(chosen.append)
        click_row(qtbot, chooser, usb / "spring")  # a collection: its styles listed, all importable at once
        assert chooser.current == usb / "spring" and chooser.import_button.isEnabled()
        assert "4" in chooser.import_button.text()
        click_row(qtbot, chooser, usb / "spring" / "style-1")  # into one style: importable alone
        assert chooser.current == usb / "spring" / "style-1" and "1" in chooser.import_button.text()
        chooser.grab().save(str(ARTIFACTS / f"folder_chooser_style_{language}.png"))
        qtbot.mouseClick(chooser.up_button, Qt.MouseButton.LeftButton)
        assert chooser.current == usb / "spring"
        qtbot.mouseClick(chooser.up_button, Qt.MouseButton.LeftButton)  # the stick's root: its one style, rose/
        assert chooser.current == usb and "1" in chooser.import_button.text()
        qtbot.mouseClick(chooser.up_button, Qt.MouseButton.LeftButton)  # above the stick: the drives again
        assert chooser.current is None
        for _ in range(3):
            qtbot.mouseClick(chooser.back_button, Qt.MouseButton.LeftButton)
        assert chooser.current == usb / "spring" / "style-1"
        qtbot.mouseClick(chooser.back_button, Qt.MouseButton.LeftButton)
        assert chooser.current == usb / "spring"
        for button in (chooser.back_button, chooser.up_button, chooser.start_button, chooser.import_button,
                       chooser.cancel_button):
            assert button.height() >= 48
        qtbot.mouseClick(chooser.import_button, Qt.MouseButton.LeftButton)
        assert chosen == [[str(usb / "spring" / n) for n in ("style-0", "style-1", "style-2", "zz-broken")]]
        assert not chooser.isVisible()
    finally:
        i18n.install_language("en")


@pytest.mark.qt
def test_without_a_usb_drive_the_chooser_says_so_and_still_browses(qtbot, tmp_path):
    home = tmp_path / "home"
    make_style_folder(home / "Desktop" / "new style")
    chooser = FolderChooser(volumes=lambda: [], run=run_now, home=home)
    qtbot.addWidget(chooser)
    chooser.show()
    assert any("No USB drive" in t for t in chooser.row_texts())
    click_row(qtbot, chooser, home)
    click_row(qtbot, chooser, home / "Desktop")
    assert chooser.import_button.isEnabled() and "1" in chooser.import_button.text()


@pytest.mark.qt
def test_a_folder_of_style_folders_imports_through_the_kiosk_with_a_line_per_failure(qtbot, usb):
    save_config(load_config())
    set_staff_pin()
    with started_kiosk(qtbot) as kiosk:
        kiosk.staff.enter()
        review = kiosk.staff.review_page
        qtbot.mouseClick(review.import_button, Qt.MouseButton.LeftButton)
        chooser = review.folder_chooser
        assert chooser is not None and chooser.isVisible()
        assert chooser.size() == kiosk.window.size()  # over the whole window, not a small native dialog
        chooser.open_folder(usb / "spring")
        qtbot.mouseClick(chooser.import_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: review.import_button.isEnabled() and "Imported" in review.feedback.text(),
                        timeout=60000)
        lines = review.feedback.text().splitlines()
        assert lines[0] == "Imported 3 of 4 as drafts."
        assert len(lines) == 2 and lines[1].startswith("Not imported: zz-broken: not a style folder")
        assert "is a link" in lines[1] and str(usb) not in lines[1]
        drafts = {s.name for s in kiosk.services.repository.list_styles()
                  if s.status == StyleStatus.DRAFT}
        assert {"春季樱花", "Spring lilac", "奶白贝壳"} <= drafts
        ARTIFACTS.mkdir(exist_ok=True)
        kiosk.window.grab().save(str(ARTIFACTS / "staff_review_folder_import.png"))
