"""HQ's page words (issue #25 point 14): every word a page shows is in both catalogs, every status reads as words
in English and in Chinese (never its code), and a kiosk is 终端 in Chinese everywhere — HQ's pages and the
kiosk's own screens."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from fastapi.testclient import TestClient

from nailmirror_hq import catalog, db, drafts, reviewers, stores
from nailmirror_hq.api.app import create_app
from nailmirror_hq.service import HQ
from nailmirror_hq.web import audit_page, i18n, rollouts_page, routes
from tests.support.hq_fixtures import add_store, draft_body, new_draft_id, new_kiosk, style_folder

ROOT = Path(__file__).resolve().parents[3]
PASSWORD = "correct horse battery"
CJK = re.compile(r"[\u4e00-\u9fff]")


def _catalog(lang: str) -> dict[tuple[str | None, str], str]:
    with open(i18n.LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po", "rb") as handle:
        return {(m.context, str(m.id)): str(m.string) for m in read_po(handle) if m.id}


def _page_words() -> set[tuple[str | None, str]]:
    words = set()
    for template in (Path(routes.__file__).parent / "templates").glob("*.html"):
        words |= {(None, m[1]) for m in re.findall(r"""_\((["'])(.*?)\1""", template.read_text())}
    words |= {(None, label) for _, label, _ in routes.NAV}
    words |= {(None, label) for table in (audit_page.ACTION_LABELS, audit_page.ENTITY_LABELS, audit_page.ACTOR_KINDS,
                                                 audit_page.DETAIL_LABELS)
              for label in table.values()}
    words |= {(context or None, code) for context, codes in i18n.STATUSES.items() for code in codes}
    words |= {(None, line) for line in rollouts_page.REFUSALS.values()}
    return words


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_every_page_word_is_in_both_catalogs(lang: str) -> None:
    have = _catalog(lang)
    missing = sorted((w for w in _page_words() if not have.get(w)), key=str)
    assert not missing, missing
    if lang == "zh_CN":
        untranslated = sorted(w for w in _page_words() if w[1] not in ("NailMirror HQ",) and not CJK.search(have[w]))
        assert not untranslated, untranslated


def test_every_status_reads_as_words_in_english_and_chinese() -> None:
    english, chinese = _catalog("en"), _catalog("zh_CN")
    for context, codes in i18n.STATUSES.items():
        for code in codes:
            key = (context or None, code)
            assert english[key] != code and re.search(r"[a-z]", english[key]), key
            assert CJK.search(chinese[key]), key
    # a style's WITHDRAWN is a take-down, a draft's a withdrawal: two words in each language
    assert english[("style", "WITHDRAWN")] != english[(None, "WITHDRAWN")]
    assert chinese[("style", "WITHDRAWN")] != chinese[(None, "WITHDRAWN")]


def _every_status_on_a_page(hq: HQ, tmp_path: Path) -> None:
    """Drafts pending, approved, rejected and withdrawn; styles in every status; a revoked store."""
    with db.write(hq.engine) as conn:
        reviewers.add(conn, "ops", PASSWORD, "test", role="ops_admin")
    api = TestClient(create_app(hq))
    _, headers = new_kiosk(hq, api, "SH-0012")
    ids = [new_draft_id() for _ in range(4)]
    for n, draft_id in enumerate(ids):
        assert api.put(f"/v1/drafts/{draft_id}/revisions/1", headers=headers,
                       json=draft_body(api, headers, salt=n)).status_code == 201
    body = draft_body(api, headers, salt=9, name="改过的款")
    assert api.put(f"/v1/drafts/{ids[3]}/revisions/2", headers=headers, json=body).status_code == 201
    with db.write(hq.engine) as conn:
        drafts.approve(conn, ids[1], "hq:ops")
        drafts.reject(conn, ids[2], "hq:ops", "颜色不符")
    for n, status in enumerate(("UNPUBLISHED", "PUBLISHED", "OFF_SHELF", "WITHDRAWN")):
        row = catalog.import_folder(hq.engine, hq.blobs, style_folder(tmp_path / str(n), salt=20 + n), actor="test",
                                    publish=status != "UNPUBLISHED")
        if status in ("OFF_SHELF", "WITHDRAWN"):
            with db.write(hq.engine) as conn:
                catalog.set_status(conn, row.id, status, "test")
    add_store(hq, "BJ-0001")
    with db.write(hq.engine) as conn:
        stores.revoke(conn, "st_BJ-0001", "test")


def _visible(page: str) -> str:
    """The words a person reads: no tags or attributes (data-status keeps its code on purpose)."""
    return html.unescape(re.sub(r"<[^>]*>", " ", re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)))


@pytest.mark.slow  # a store, five drafts, four styles through the real app
def test_no_page_shows_a_status_code_in_english_or_chinese(hq_sqlite: HQ, tmp_path: Path) -> None:
    _every_status_on_a_page(hq_sqlite, tmp_path)
    browser = TestClient(create_app(hq_sqlite))
    login = browser.get("/review/login")
    csrf = re.search(r'name="csrf" value="([^"]+)"', login.text).group(1)  # type: ignore[union-attr]
    assert browser.post("/review/login", data={"csrf": csrf, "name": "ops", "password": PASSWORD},
                        follow_redirects=False).status_code == 303
    codes = {code for codes in i18n.STATUSES.values() for code in codes if code.isupper()}
    pattern = re.compile(r"\b(" + "|".join(sorted(codes, key=len, reverse=True)) + r")\b")
    pages = ["/review/?status=ALL", "/review/catalog", "/review/stores", "/review/credits"]
    for lang in i18n.LANGUAGES:
        for path in pages:
            answer = browser.get(f"{path}{'&' if '?' in path else '?'}lang={lang}")
            assert answer.status_code == 200, path
            shown = pattern.findall(_visible(answer.text))
            assert not shown, (lang, path, shown)
    english = _visible(browser.get("/review/?status=ALL&lang=en").text)
    assert all(w in english for w in ("Pending review", "Approved", "Rejected"))
    english_catalog = _visible(browser.get("/review/catalog?lang=en").text)
    assert all(w in english_catalog for w in ("Not published", "Published", "Off the shelf", "Taken down"))


def test_a_kiosk_is_one_chinese_word_on_hq_pages_and_on_the_kiosk() -> None:
    chinese = _catalog("zh_CN")
    assert chinese[(None, "Kiosk")] == chinese[(None, "Kiosks")] == i18n.KIOSK_TERM_ZH
    hq_words = "\n".join(chinese.values())
    kiosk_ts = (ROOT / "resources" / "translations" / "nailmirror_zh_CN.ts").read_text(encoding="utf-8")
    for other in ("自助机", "门店机", "设备"):
        assert other not in hq_words and other not in kiosk_ts, other
    english_kiosk_words = [v for (_, k), v in chinese.items() if re.search(r"\bkiosks?\b", k, re.I)]
    assert english_kiosk_words and all(i18n.KIOSK_TERM_ZH in v for v in english_kiosk_words), english_kiosk_words
