"""The shape and length picker on the style card: taps choose a form for the customer's session, the live
pipeline paints with it, the style's designer's choice puts its own on, and the idle reset brings natural back."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PySide6.QtCore import Qt

from nailmirror_desktop.core.catalog.starter import load_starter_catalog
from nailmirror_desktop.core.nail_form import NATURAL, NailForm, NailLength, NailShape, recommended_form
from nailmirror_desktop.ui.shell.main_window import MainWindow
from nailmirror_desktop.ui.tryon.nail_form_picker import NailFormPicker, form_words, nail_picture
from nailmirror_desktop.ui.tryon.tryon_controller import TryOnController
from nailmirror_desktop.ui.tryon.tryon_session import TryOnSession
from nailmirror_desktop.vision.paint.compositor import Compositor
from nailmirror_desktop.vision.pipeline import TryOnPipeline
from nailmirror_desktop.vision.sources.supervisor import SourceSupervisor
from tests.support.style_fixtures import make_catalog, repository
from tests.support.ui_support import run_now, still_reader


def test_a_shape_tapped_on_natural_nails_comes_at_medium_length_then_lengths_keep_the_shape(qtbot):
    picker = NailFormPicker()
    qtbot.addWidget(picker)
    picker.toggle.click()
    assert not picker.isHidden()
    chosen: list[NailForm] = []
    picker.form_changed.connect(chosen.append)
    qtbot.mouseClick(picker.shape_buttons[NailShape.ALMOND], Qt.MouseButton.LeftButton)
    qtbot.mouseClick(picker.length_buttons[NailLength.LONG], Qt.MouseButton.LeftButton)
    qtbot.mouseClick(picker.shape_buttons[NailShape.COFFIN], Qt.MouseButton.LeftButton)
    assert chosen == [NailForm(NailShape.ALMOND, NailLength.MEDIUM), NailForm(NailShape.ALMOND, NailLength.LONG),
                      NailForm(NailShape.COFFIN, NailLength.LONG)]
    assert [s for s, b in picker.shape_buttons.items() if b.isChecked()] == [NailShape.COFFIN]
    assert [n for n, b in picker.length_buttons.items() if b.isChecked()] == [NailLength.LONG]
    qtbot.mouseClick(picker.length_buttons[NailLength.NATURAL], Qt.MouseButton.LeftButton)
    assert not any(b.isChecked() for b in picker.shape_buttons.values())  # a natural nail has no shape of ours
    picker.reset()
    assert picker.form() == NATURAL


def test_every_button_has_a_picture_and_each_shape_a_different_one():
    pictures = [nail_picture(NailForm(shape, NailLength.LONG)).toImage() for shape in NailShape]
    assert all(not picture.isNull() for picture in pictures)
    for i, first in enumerate(pictures):
        for second in pictures[i + 1:]:
            assert first != second


def test_the_choice_is_named_as_the_card_prints_it():
    assert form_words(NailForm(NailShape.ALMOND, NailLength.MEDIUM)) == "Almond · Medium"
    assert form_words(NATURAL) == "Natural"


def test_a_styles_design_recommends_a_form():
    assert recommended_form({"shape": "almond", "length": "long"}) == NailForm(NailShape.ALMOND, NailLength.LONG)
    assert recommended_form({"shape": "stiletto", "length": None}) == NailForm(NailShape.STILETTO,
                                                                             NailLength.MEDIUM)
    assert recommended_form({"shape": "oval", "length": None}) is None
    assert recommended_form({"base": "milky_white"}) is None
    assert recommended_form(None) is None


@pytest.fixture
def controller(qtbot, tmp_path):
    folder = make_catalog(tmp_path / "catalog", count=2)
    meta = json.loads((folder / "style-00" / "style.json").read_text(encoding="utf-8"))
    meta["design"] = {"version": 1, "base_color": {"id": "red", "rgb": [200, 22, 32], "tone": ""},
                      "finish": "gloss", "patterns": [], "shape": "coffin", "length": "long", "accents": []}
    (folder / "style-00" / "style.json").write_text(json.dumps(meta), encoding="utf-8")
    repo = repository()
    load_starter_catalog(repo, folder)
    window = MainWindow()
    qtbot.addWidget(window)
    with TryOnPipeline(Compositor()) as pipeline:
        supervisor = SourceSupervisor(lambda: still_reader(np.zeros((120, 160, 3), np.uint8)))
        yield TryOnController(window, TryOnSession(pipeline), supervisor, repo, run_now)
        supervisor.close()
    repo.conn.close()


def _code(controller, name: str) -> str:
    model = controller.style_browser.model
    return next(model.style_at(row).style_code for row in range(model.rowCount()) if model.style_at(row).name == name)


def test_the_pick_reaches_the_pipeline_and_the_idle_reset_takes_it_away(controller, qtbot):
    picker = controller.style_browser.nail_form_picker
    assert controller.apply_style(_code(controller, "款式1"))
    assert controller.session.pipeline.nail_form == NATURAL and not picker.designer_button.isVisibleTo(picker)
    assert picker.isHidden()  # folded away: the grid keeps its rows
    assert picker.toggle.text() == "Natural"
    qtbot.mouseClick(picker.toggle, Qt.MouseButton.LeftButton)
    assert not picker.isHidden()
    qtbot.mouseClick(picker.shape_buttons[NailShape.STILETTO], Qt.MouseButton.LeftButton)
    qtbot.mouseClick(picker.length_buttons[NailLength.EXTRA_LONG], Qt.MouseButton.LeftButton)
    assert controller.session.pipeline.nail_form == NailForm(NailShape.STILETTO, NailLength.EXTRA_LONG)
    assert controller.apply_style(_code(controller, "款式0"))  # another style keeps her choice
    assert controller.session.nail_form == NailForm(NailShape.STILETTO, NailLength.EXTRA_LONG)
    assert picker.designer_button.isVisibleTo(picker)
    assert "Coffin · Long" in picker.designer_button.text() and picker.toggle.text().endswith("★")
    qtbot.mouseClick(picker.designer_button, Qt.MouseButton.LeftButton)
    assert controller.session.nail_form == NailForm(NailShape.COFFIN, NailLength.LONG)
    assert picker.toggle.text().startswith("Coffin · Long")
    controller.forget_customer()
    assert controller.session.pipeline.nail_form == NATURAL
    assert picker.form() == NATURAL and not picker.designer_button.isVisibleTo(picker)
    assert picker.isHidden() and not picker.toggle.isChecked()


def test_a_style_folder_may_recommend_only_a_shape_and_length(tmp_path):
    """A style of textures has no renderer's design; style.json's design may still name its shape and length."""
    from nailmirror_desktop.core.catalog.try_on_assets import try_on_assets

    folder = make_catalog(tmp_path / "catalog", count=1)
    meta = json.loads((folder / "style-00" / "style.json").read_text(encoding="utf-8"))
    meta["design"] = {"shape": "almond", "length": "extra-long"}
    (folder / "style-00" / "style.json").write_text(json.dumps(meta), encoding="utf-8")
    repo = repository()
    try:
        load_starter_catalog(repo, folder)
        code = repo.list_for_customers()[0].style_code
        assets = try_on_assets(repo, code)
        assert assets.design is None  # nothing for the renderer
        assert assets.recommended == NailForm(NailShape.ALMOND, NailLength.EXTRA_LONG)
    finally:
        repo.conn.close()
