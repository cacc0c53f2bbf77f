"""`nailmirror styles …` end to end over a real database and asset store."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from nailmirror_desktop.adapters.style_store import open_style_repository
from nailmirror_desktop.cli import main
from tests.support.style_fixtures import make_style_folder


@pytest.fixture(scope="session")
def started_kiosk_home(tmp_path_factory):
    """A data directory after a first start (starter catalog loaded), made once for the whole session."""
    home = tmp_path_factory.mktemp("started-kiosk")
    previous = os.environ.get("NAILMIRROR_HOME")
    os.environ["NAILMIRROR_HOME"] = str(home)
    try:
        open_style_repository().conn.close()
    finally:
        os.environ["NAILMIRROR_HOME"] = previous or ""
    return home


@pytest.fixture(autouse=True)
def _after_first_start(started_kiosk_home, nailmirror_home):
    # Every CLI call runs as on a kiosk that has started before: the catalog is there, a new start adds nothing.
    shutil.copytree(started_kiosk_home, nailmirror_home, dirs_exist_ok=True)


def run(capsys, *argv):
    code = main(["styles", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.slow
def test_import_review_and_shelf_cycle(capsys, tmp_path):
    folder = make_style_folder(tmp_path / "shell")
    code, out, _ = run(capsys, "import", str(folder), "--tag", "通勤")
    assert code == 0
    style_code = out.strip()
    steps = [("submit",), ("reject", "--reason", "颜色太暗"), ("revise",), ("submit",), ("approve",), ("off-shelf",),
             ("publish",)]
    expected = ["PENDING_REVIEW", "REJECTED", "DRAFT", "PENDING_REVIEW", "PUBLISHED", "OFF_SHELF", "PUBLISHED"]
    for step, status in zip(steps, expected, strict=True):
        code, out, err = run(capsys, step[0], style_code, *step[1:])
        assert (code, out.split()) == (0, [style_code, status]), err
    code, out, _ = run(capsys, "show", style_code, "--json")
    shown = json.loads(out)
    assert shown["style"]["status"] == "PUBLISHED" and shown["tags"] == ["通勤"]
    assert [e["action"] for e in shown["audit"]] == ["CREATE", "SUBMIT", "REJECT", "REVISE", "SUBMIT", "APPROVE",
                                                    "OFF_SHELF", "PUBLISH"]
    assert shown["audit"][2]["reason"] == "颜色太暗"
    assert {(a["asset_type"], a["slot"]) for a in shown["assets"]} == {
        ("NAIL_TEXTURE", "nail"), ("NAIL_TEXTURE", "accent"), ("COVER", ""), ("THUMBNAIL", "")}


def test_list_json_filters(capsys, tmp_path):
    _, first, _ = run(capsys, "import", str(make_style_folder(tmp_path / "a", name="法式白边")))
    _, second, _ = run(capsys, "import", str(make_style_folder(tmp_path / "b", name="猫眼", base=(9, 9, 9, 255))))
    first, second = first.strip(), second.strip()
    run(capsys, "submit", first)
    code, out, _ = run(capsys, "list", "--json", "--source", "MANUAL")
    assert code == 0 and {s["style_code"] for s in json.loads(out)} == {first, second}
    _, out, _ = run(capsys, "list", "--json", "--status", "PENDING_REVIEW")
    assert [s["style_code"] for s in json.loads(out)] == [first]
    _, out, _ = run(capsys, "list", "--json", "--search", "猫眼", "--source", "MANUAL")
    assert [s["style_code"] for s in json.loads(out)] == [second]
    _, out, _ = run(capsys, "list", "--json", "--customer", "--source", "MANUAL")
    assert json.loads(out) == []
    _, out, _ = run(capsys, "list", "--source", "MANUAL")
    assert first in out and second in out and "法式白边" in out


def test_list_says_when_more_follow_and_pages_or_lists_all(capsys):
    """`styles list` used to stop at 100 rows without a word (issue 25 §16)."""
    code, out, err = run(capsys, "list", "--json", "--all")
    every = [s["style_code"] for s in json.loads(out)]
    assert code == 0 and err == "" and len(every) > 4  # the starter catalog
    code, out, err = run(capsys, "list", "--json")  # fewer than a page: no note
    assert code == 0 and err == "" and [s["style_code"] for s in json.loads(out)] == every
    code, out, err = run(capsys, "list", "--json", "--limit", "2")
    assert code == 0 and [s["style_code"] for s in json.loads(out)] == every[:2]  # stdout stays a JSON list
    assert "more follow" in err and "--offset 2" in err and len(err.splitlines()) == 1
    _, out, err = run(capsys, "list", "--json", "--limit", "2", "--offset", "2")
    assert [s["style_code"] for s in json.loads(out)] == every[2:4] and "--offset 4" in err
    _, out, err = run(capsys, "list", "--limit", str(len(every) - 1), "--offset", "1")  # the last page, exactly
    assert len(out.splitlines()) == len(every) - 1 and err == ""
    _, out, _ = run(capsys, "list", "--json", "--all", "--offset", "3")
    assert [s["style_code"] for s in json.loads(out)] == every[3:]
    for bad in (("--limit", "0"), ("--offset", "-1"), ("--limit", "x")):
        with pytest.raises(SystemExit) as usage:
            main(["styles", "list", *bad])
        assert usage.value.code == 2
        assert capsys.readouterr().out == ""


def test_illegal_transitions_and_unknown_styles_fail_clearly(capsys, tmp_path):
    _, out, _ = run(capsys, "import", str(make_style_folder(tmp_path / "a")))
    style_code = out.strip()
    code, out, err = run(capsys, "approve", style_code)
    assert code == 1 and out == "" and "ILLEGAL_TRANSITION" in err and "DRAFT -> PUBLISHED" in err
    code, _, err = run(capsys, "publish", style_code)
    assert code == 1 and "ILLEGAL_TRANSITION" in err
    code, _, err = run(capsys, "show", "XX-000000")
    assert code == 1 and "STYLE_NOT_FOUND" in err
    run(capsys, "submit", style_code)
    code, _, err = run(capsys, "reject", style_code, "--reason", "  ")
    assert code == 1 and "REASON_REQUIRED" in err
    code, out, _ = run(capsys, "show", style_code, "--json")
    assert json.loads(out)["style"]["status"] == "PENDING_REVIEW"


def test_import_of_a_bad_folder_is_refused(capsys, tmp_path):
    folder = make_style_folder(tmp_path / "bad")
    (folder / "nail.png").write_bytes(b"GIF89a not allowed")
    code, _, err = run(capsys, "import", str(folder))
    assert code == 1 and "IMAGE_FORMAT_NOT_ALLOWED" in err
    code, out, _ = run(capsys, "list", "--json", "--source", "MANUAL")
    assert json.loads(out) == []


def test_edit_sends_a_published_style_back_to_draft(capsys, tmp_path):
    _, out, _ = run(capsys, "import", str(make_style_folder(tmp_path / "a")))
    style_code = out.strip()
    for step in ("submit", "approve"):
        run(capsys, step, style_code)
    code, out, _ = run(capsys, "edit", style_code, str(make_style_folder(tmp_path / "b", base=(1, 2, 3, 255))))
    assert code == 0 and out.split() == [style_code, "DRAFT", "v2"]


def test_exit_status_from_the_installed_command(tmp_path, nailmirror_home):
    reject = subprocess.run(
        [sys.executable, "-m", "nailmirror_desktop", "styles", "reject", "AB-123456"],
        capture_output=True, text=True, env={**os.environ, "NAILMIRROR_HOME": str(nailmirror_home)},
    )
    assert reject.returncode == 2 and "--reason" in reject.stderr
    missing = subprocess.run(
        [sys.executable, "-m", "nailmirror_desktop", "styles", "submit", "AB-123456"],
        capture_output=True, text=True, env={**os.environ, "NAILMIRROR_HOME": str(nailmirror_home)},
    )
    assert missing.returncode == 1 and "STYLE_NOT_FOUND" in missing.stderr


def test_the_audit_log_names_the_operating_system_user_and_no_free_actor_text(capsys, tmp_path, monkeypatch):
    import pwd

    monkeypatch.setenv("USER", "someone-else")  # an environment variable is not who ran the command
    monkeypatch.setenv("LOGNAME", "someone-else")
    account = pwd.getpwuid(os.geteuid()).pw_name
    code, out, _ = run(capsys, "import", str(make_style_folder(tmp_path / "who")))
    style_code = out.strip()
    assert run(capsys, "submit", style_code)[0] == 0
    with pytest.raises(SystemExit):
        main(["styles", "approve", style_code, "--actor", "the boss"])
    assert "--actor" in capsys.readouterr().err
    code, out, _ = run(capsys, "show", style_code, "--json")
    assert {e["actor"] for e in json.loads(out)["audit"]} == {f"cli:{account}"}


def test_an_account_the_system_cannot_name_is_recorded_by_uid(monkeypatch):
    import pwd

    from nailmirror_desktop.cli import styles

    def unknown(uid):
        raise KeyError(uid)

    monkeypatch.setattr(pwd, "getpwuid", unknown)
    monkeypatch.delenv("USER", raising=False)
    monkeypatch.delenv("LOGNAME", raising=False)
    monkeypatch.delenv("LNAME", raising=False)
    monkeypatch.delenv("USERNAME", raising=False)
    assert styles.cli_actor() == f"cli:uid-{os.geteuid()}"


def test_set_price_shows_clears_and_refuses_garbage(capsys, tmp_path):
    _, out, _ = run(capsys, "import", str(make_style_folder(tmp_path / "p")))
    style_code = out.strip()
    code, out, _ = run(capsys, "set-price", style_code, "128.50", "--json")
    assert code == 0 and json.loads(out) == {"style_code": style_code, "price_minor": 12850, "currency": "CNY"}
    code, out, _ = run(capsys, "show", style_code)
    assert code == 0 and "price: ¥128.50" in out
    code, out, err = run(capsys, "set-price", style_code, "12,8")
    assert code == 1 and out == "" and err.startswith("error: PRICE_INVALID") and err.count("\n") == 1
    code, out, _ = run(capsys, "show", style_code, "--json")
    assert json.loads(out)["style"]["price_minor"] == 12850  # the refused price changed nothing
    code, out, _ = run(capsys, "set-price", style_code, "--clear")
    assert code == 0 and out.strip() == f"{style_code} price -"
    _, out, _ = run(capsys, "show", style_code, "--json")
    assert json.loads(out)["style"]["price_minor"] is None
    code, _, err = run(capsys, "set-price", "NOPE-0000", "10")
    assert code == 1 and err.startswith("error: STYLE_NOT_FOUND")


def test_set_price_garbage_is_one_line_on_stderr(capsys, tmp_path):
    _, out, _ = run(capsys, "import", str(make_style_folder(tmp_path / "p")))
    code, out, err = run(capsys, "set-price", out.strip(), "-5")
    assert code == 1 and "PRICE_INVALID" in err and err.count("\n") == 1
    code, out, err = run(capsys, "set-price", "X", "abc")
    assert code == 1 and err.strip().count("\n") == 0 and "PRICE_INVALID" in err
    with pytest.raises(SystemExit):  # neither a price nor --clear: argparse's usage error
        run(capsys, "set-price", "X")


def test_import_takes_the_price_from_style_json_in_the_stores_currency(capsys, tmp_path, nailmirror_home):
    folder = make_style_folder(tmp_path / "jpy")
    meta = json.loads((folder / "style.json").read_text(encoding="utf-8"))
    (folder / "style.json").write_text(json.dumps({**meta, "price": 3500}), encoding="utf-8")
    (nailmirror_home / "config.json").write_text(json.dumps({"currency": "JPY"}), encoding="utf-8")
    code, out, _ = run(capsys, "import", str(folder), "--json")
    assert code == 0 and json.loads(out)["price_minor"] == 3500
    _, out, _ = run(capsys, "show", json.loads(out)["style_code"])
    assert "price: JP¥3,500" in out
    (folder / "style.json").write_text(json.dumps({**meta, "price": "35.5"}), encoding="utf-8")
    code, out, err = run(capsys, "import", str(folder))
    assert code == 1 and out == "" and "STYLE_FOLDER_INVALID" in err and "price" in err


def test_glossary_gaps_lists_the_terms_a_style_name_lacks(capsys, tmp_path):
    code, out, err = run(capsys, "glossary-gaps")
    assert code == 0 and "the glossary reads every style name" in out, err  # the starter catalog: all known
    code, out, _ = run(capsys, "import", str(make_style_folder(tmp_path / "s", name="奶白某某花")))
    style_code = out.strip()
    shown = json.loads(run(capsys, "show", style_code, "--json")[1])
    assert shown["style"]["name_en"] == ""  # not composed from a guess: the Chinese name is shown instead
    code, out, _ = run(capsys, "glossary-gaps")
    assert code == 0 and out.splitlines()[1].split() == ["某某", "1", "1", style_code]
    code, out, _ = run(capsys, "glossary-gaps", "--json")
    assert json.loads(out) == [{"term": "某某", "style_codes": [style_code], "untranslated": [style_code]}]
    code, out, _ = run(capsys, "import", str(make_style_folder(tmp_path / "t", name="奶白贝壳")))
    assert json.loads(run(capsys, "show", out.strip(), "--json")[1])["style"]["name_en"] == "Milky White Shell"
