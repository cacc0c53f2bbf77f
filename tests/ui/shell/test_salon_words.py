"""The words the on-screen keyboard offers first among its pinyin candidates (resources/keyboard/keyboard.qml
orders them; the journey tests/journeys/test_session.py types `maoyan` and finds 猫眼 first)."""

from __future__ import annotations

from nailmirror_desktop.core.generation import vocabulary
from nailmirror_desktop.ui.shell.on_screen_keyboard import salon_words


def test_the_salon_words_are_the_curated_list_and_the_prompt_vocabulary_in_chinese():
    words = salon_words()
    assert "猫眼" in words and "穿戴甲" in words and "美甲" in words  # salon_words.txt
    assert "酒红" in words and "金箔" in words and "法式" in words  # the prompt vocabulary
    assert vocabulary.FINISHES["cat_eye"][1][0] == "猫眼"
    assert not any(w.isascii() for w in words) and all(len(w) > 1 for w in words)
    assert not any(w.startswith("#") for w in words) and len(words) == len(set(words))
