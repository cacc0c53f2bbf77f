"""Style codes: readable, random (no volume leak), unique with retries on collision."""

from __future__ import annotations

import itertools

import pytest

from nailmirror_desktop.core.catalog import StyleError, StyleSource, codes
from tests.support.style_fixtures import repository


def test_codes_are_readable_and_unambiguous():
    code = codes.new_style_code("FRE")
    assert codes.is_style_code(code)
    assert not set(code[4:]) & set("ILOU")
    assert codes.code_prefix("french", "CATALOG") == "FRE"
    assert codes.code_prefix("猫眼", "AI") == "AI"
    assert codes.code_prefix(None, "MANUAL") == "MA"


def test_consecutive_styles_do_not_get_consecutive_codes():
    repo = repository()
    made = [repo.create_style(f"s{i}", StyleSource.MANUAL, actor="t").style_code for i in range(30)]
    assert len(set(made)) == 30
    # No ordering: creation order and code order disagree somewhere (probability of agreeing: 1/30!).
    assert [c.split("-")[1] for c in made] != sorted(c.split("-")[1] for c in made)


def test_collision_is_retried_with_a_fresh_code():
    repo = repository()
    # A deterministic "random" source that repeats the first code once, then moves on.
    digits = itertools.chain([0] * 6, [0] * 6, [1] * 6)
    first = repo.create_style("a", StyleSource.MANUAL, actor="t", preferred_code="MA-000000")
    assert first.style_code == "MA-000000"

    def insert(code):
        return repo.conn.execute(
            "INSERT INTO style (style_code, name, source, client_uid) VALUES (?, 'b', 'MANUAL', ?)",
            (code, code + "-uid"),
        ).lastrowid

    style_id = codes.insert_with_fresh_code(insert, "MA", randbelow=lambda n: next(digits))
    code = repo.conn.execute("SELECT style_code FROM style WHERE id = ?", (style_id,)).fetchone()[0]
    assert code == "MA-111111"


def test_giving_up_after_too_many_collisions():
    repo = repository()
    repo.create_style("a", StyleSource.MANUAL, actor="t", preferred_code="MA-000000")

    def insert(code):
        return repo.conn.execute(
            "INSERT INTO style (style_code, name, source, client_uid) VALUES (?, 'b', 'MANUAL', 'u')", (code,)
        ).lastrowid

    with pytest.raises(StyleError) as info:
        codes.insert_with_fresh_code(insert, "MA", randbelow=lambda n: 0)
    assert info.value.code == "STYLE_CODE_EXHAUSTED"


def test_a_taken_preferred_code_falls_back_to_a_random_one():
    repo = repository()
    repo.create_style("a", StyleSource.MANUAL, actor="t", preferred_code="MA-ABCDEF")
    second = repo.create_style("b", StyleSource.MANUAL, actor="t", preferred_code="MA-ABCDEF")
    assert second.style_code != "MA-ABCDEF" and codes.is_style_code(second.style_code)


def test_stable_codes_depend_only_on_the_key():
    assert codes.stable_style_code("FRE", "french-01") == codes.stable_style_code("FRE", "french-01")
    assert codes.stable_style_code("FRE", "french-01") != codes.stable_style_code("FRE", "french-02")
    assert codes.is_style_code(codes.stable_style_code("FRE", "x"))
