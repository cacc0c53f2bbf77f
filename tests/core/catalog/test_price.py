"""A style's price (issue 13): exact minor units, bounded, shown the kiosk's way; kept in a real SQLite file,
audited, read from style.json, and brought to an old database by migration 0007."""

from __future__ import annotations

import json
import sqlite3
from decimal import Decimal

import pytest

from nailmirror_desktop.core.catalog import StyleError, StyleSource, read_style_folder
from nailmirror_desktop.core.catalog.price import MAX_PRICE_MINOR, format_amount, format_price, parse_price
from nailmirror_desktop.core.config import KioskConfig, load_config, save_config
from nailmirror_desktop.core.db import connect, migrate, open_database
from tests.support.style_fixtures import make_style_folder, repository


@pytest.mark.parametrize(("text", "minor"), [("128", 12800), ("128.5", 12850), ("128.50", 12850), (" 0 ", 0),
                                             ("¥99", 9900), ("999999.99", MAX_PRICE_MINOR)])
def test_prices_are_read_exactly_as_minor_units(text, minor):
    assert parse_price(text, "CNY") == minor


def test_numbers_from_json_and_the_currency_exponent():
    assert parse_price(128, "CNY") == 12800
    assert parse_price(Decimal("0.1"), "CNY") == 10  # 0.1 exactly: as a float it is 0.1000000000000000055…
    assert parse_price("1280", "JPY") == 1280
    with pytest.raises(StyleError, match="0 decimal"):
        parse_price("12.5", "JPY")


@pytest.mark.parametrize("bad", ["", "abc", "-5", "1,280", "12.345", "1e3", "12.", ".5", "NaN", "１２８",
                                 "1000000", True, None, 12.5, [128], "9" * 40])
def test_garbage_is_refused_with_one_line(bad):
    with pytest.raises(StyleError) as caught:
        parse_price(bad, "CNY")
    assert caught.value.code == "PRICE_INVALID" and "\n" not in str(caught.value)


def test_unknown_currency_is_refused():
    with pytest.raises(StyleError, match="UNKNOWN_CURRENCY"):
        parse_price("1", "XYZ")


def test_format_shows_cents_only_when_there_are_some():
    assert format_price(12800, "CNY") == "¥128"
    assert format_price(12850, "CNY") == "¥128.50"
    assert format_price(128005, "CNY") == "¥1,280.05"
    assert format_price(1999, "USD", "zh_CN") == "US$19.99" and format_price(1999, "USD", "en") == "$19.99"
    assert format_price(1280, "JPY", "en") == "¥1,280"
    assert format_amount(12850) == "128.50" and format_amount(12800) == "128"


def test_config_keeps_a_known_currency_and_defaults_to_cny(nailmirror_home):
    assert KioskConfig().currency == "CNY"
    save_config(KioskConfig().with_changes(currency="hkd"))
    assert load_config().currency == "HKD"
    (nailmirror_home / "config.json").write_text(json.dumps({"currency": "DOGE"}), encoding="utf-8")
    assert load_config().currency == "CNY"


def test_set_and_clear_a_price_is_audited_and_survives_a_reopen():
    repo = repository()
    style = repo.create_style("奶白", StyleSource.MANUAL, actor="t")
    assert style.price_minor is None
    assert repo.set_price(style.id, 12800, actor="staff").price_minor == 12800
    repo.set_price(style.id, 12800, actor="staff")  # no change: no second audit row
    assert repo.set_price(style.id, None, actor="staff").price_minor is None
    actions = [(e.action, e.detail_json) for e in repo.audit_trail(style.id) if e.action == "SET_PRICE"]
    assert [json.loads(d) for _, d in actions] == [{"from": None, "to": 12800}, {"from": 12800, "to": None}]
    repo.set_price(style.id, 9900, actor="staff")
    repo.conn.close()
    again = repository()
    assert again.get(style.id).price_minor == 9900 and again.get(style.id).to_dict()["price_minor"] == 9900


def test_out_of_range_prices_are_refused_by_the_repository_and_the_table():
    repo = repository()
    style = repo.create_style("奶白", StyleSource.MANUAL, actor="t")
    for bad in (-1, MAX_PRICE_MINOR + 1):
        with pytest.raises(StyleError, match="PRICE_INVALID"):
            repo.set_price(style.id, bad, actor="staff")
    with pytest.raises(sqlite3.IntegrityError):  # a hand edit of the file is refused too
        repo.conn.execute("UPDATE style SET price_minor = -5 WHERE id = ?", (style.id,))
    assert repo.get(style.id).price_minor is None


def test_style_json_price_is_imported_and_garbage_is_a_clear_error(tmp_path):
    folder = make_style_folder(tmp_path / "priced")
    meta = json.loads((folder / "style.json").read_text(encoding="utf-8"))
    (folder / "style.json").write_text(json.dumps({**meta, "price": 168.8}), encoding="utf-8")
    read = read_style_folder(folder)
    assert read.price_minor == 16880 and read.design == {"base": "milky_white"}
    repo = repository()
    style = repo.create_style_with_content(read.name, StyleSource.MANUAL, read.content, actor="t",
                                           price_minor=read.price_minor)
    assert repo.get(style.id).price_minor == 16880
    assert read_style_folder(make_style_folder(tmp_path / "plain")).price_minor is None
    for bad in ('"cheap"', "-3", "1e400", '"12.345"', "[1]"):
        (folder / "style.json").write_text(json.dumps(meta)[:-1] + f', "price": {bad}}}', encoding="utf-8")
        with pytest.raises(StyleError) as caught:
            read_style_folder(folder)
        assert caught.value.code == "STYLE_FOLDER_INVALID" and "price" in caught.value.detail
        assert "\n" not in str(caught.value)


def test_design_numbers_with_a_fraction_stay_floats(tmp_path):
    folder = make_style_folder(tmp_path / "f")
    meta = json.loads((folder / "style.json").read_text(encoding="utf-8"))
    meta["design"] = {"opacity": 0.75, "layers": [{"scale": 1.5}]}
    (folder / "style.json").write_text(json.dumps(meta), encoding="utf-8")
    design = read_style_folder(folder).design
    assert design == {"opacity": 0.75, "layers": [{"scale": 1.5}]}
    assert isinstance(design["opacity"], float) and isinstance(design["layers"][0]["scale"], float)


def test_an_old_database_gets_the_price_column_and_keeps_its_styles(tmp_path):
    path = tmp_path / "old.db"
    old = connect(path)
    assert migrate(old, target=6) == 6
    old.execute("INSERT INTO style (style_code, name, source, client_uid) VALUES ('OLD-1', '旧款', 'MANUAL', 'u1')")
    old.close()
    upgraded = open_database(path)
    row = upgraded.execute("SELECT name, price_minor FROM style WHERE style_code = 'OLD-1'").fetchone()
    assert (row["name"], row["price_minor"]) == ("旧款", None)
    upgraded.execute("UPDATE style SET price_minor = 12800 WHERE style_code = 'OLD-1'")
    assert upgraded.execute("SELECT price_minor FROM style").fetchone()[0] == 12800
    upgraded.close()
