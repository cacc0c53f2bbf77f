"""tools/icu_data_cut.py: the store bundle's ICU data, cut to the zh/yue/en locales, gives Qt the answers the whole
data gives for what the kiosk asks of it — collation (the catalog's pinyin order, Hong Kong's stroke order),
time zone names in both languages, case mapping, IDNA, the text codecs — and is less than half the size.

The cut library is built here (icupkg, gcc) and loaded into a fresh interpreter with LD_PRELOAD (a loaded library
of that soname satisfies Qt's need for it); the answers are compared with a run on PySide6's own library."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import bundle_filter  # noqa: E402
import icu_data_cut  # noqa: E402

pytestmark = [pytest.mark.qt, pytest.mark.build]  # Qt's ICU is PySide6's: the Qt-less run has none

PROBE = r"""
import json
from PySide6.QtCore import QCoreApplication, QCollator, QDateTime, QLocale, QStringDecoder, QTimeZone, QUrl
app = QCoreApplication([])
out = {}
words = ["张", "阿", "李", "王", "赵", "陈", "Zebra", "apple", "Émile", "ćevapi", "奶白", "酒红"]
for locale in ("zh_CN", "zh_HK", "zh_TW", "en_US", "en_GB", "de_DE"):
    collator = QCollator(QLocale(locale))
    out["sort " + locale] = sorted(words, key=collator.sortKey)
long_name, short_name = QTimeZone.NameType.LongName, QTimeZone.NameType.ShortName
for zone in ("Asia/Shanghai", "Asia/Hong_Kong", "Asia/Taipei", "Europe/Paris", "America/New_York"):
    for locale in ("zh_CN", "zh_HK", "en_US"):
        tz = QTimeZone(zone.encode())
        out[f"zone {zone} {locale}"] = [tz.displayName(QTimeZone.TimeType.StandardTime, kind, QLocale(locale))
                                        for kind in (long_name, short_name)]
out["upper tr"] = QLocale("tr_TR").toUpper("istanbul")
out["upper en"] = QLocale("en_US").toUpper("straße")
out["idna"] = QUrl.toAce("美甲.中国").data().decode()
out["codecs"] = sorted(QStringDecoder.availableCodecs())
out["gb18030"] = QStringDecoder("GB18030").isValid()
out["date zh"] = QLocale("zh_CN").toString(QDateTime.fromSecsSinceEpoch(1796221228, QTimeZone(b"Asia/Shanghai")),
                                           "yyyy年M月d日 EEEE HH:mm")
out["libraries"] = sorted({line.split()[-1] for line in open("/proc/self/maps") if "libicudata" in line})
print(json.dumps(out, ensure_ascii=False))
"""


def _probe(env_extra: dict[str, str]) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, QT_QPA_PLATFORM="offscreen", **env_extra))
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def cut(tmp_path_factory):
    return icu_data_cut.build(tmp_path_factory.mktemp("icu"))


def test_qt_answers_with_the_cut_data_as_with_the_whole(cut):
    whole = _probe({})
    trimmed = _probe({"LD_PRELOAD": str(cut)})
    assert trimmed.pop("libraries") == [str(cut)]  # the cut was the data Qt read
    assert whole.pop("libraries") == [str(icu_data_cut.pyside_icudata())]
    assert trimmed == whole
    assert [w for w in trimmed["sort zh_CN"] if len(w) == 1] == ["阿", "陈", "李", "王", "张", "赵"]  # pinyin
    assert trimmed["zone Asia/Shanghai zh_CN"][0] == "中国标准时间"
    assert trimmed["sort zh_HK"] != trimmed["sort zh_CN"]  # Hong Kong's stroke order kept


def test_a_locale_left_out_collates_as_root(cut):
    """What the cut costs: Japanese collation (not a kiosk language) is root's order, as ICU does for a locale it
    lacks — the one difference the probe above would show if it asked for ja_JP."""
    code = PROBE.replace('("zh_CN", "zh_HK", "zh_TW", "en_US", "en_GB", "de_DE")', '("ja_JP", "en_US")')
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, QT_QPA_PLATFORM="offscreen", LD_PRELOAD=str(cut)))
    trimmed = json.loads(done.stdout.strip().splitlines()[-1])
    assert trimmed["sort ja_JP"] == trimmed["sort en_US"]


def test_the_cut_keeps_the_kiosk_s_locales_and_what_is_no_locale(cut):
    assert cut.stat().st_size < 16 * 2**20 < 28 * 2**20 < icu_data_cut.pyside_icudata().stat().st_size
    items = ["de.res", "coll/de_.res", "zone/sr_Latn_BA.res", "translit/root.res", "zh_Hant_HK.res", "en_GB.res",
             "coll/yue.res", "root.res", "pool.res", "zone/pool.res", "zoneinfo64.res", "ibm-1386_P100-2001.cnv",
             "brkitr/cjdict.dict", "res_index.res", "coll/zh.res"]  # as `icupkg -l` names them
    assert icu_data_cut.items_to_drop(items + ["coll/res_index.res", "es_419.res"]) == [
        "de.res", "coll/de_.res", "zone/sr_Latn_BA.res", "translit/root.res", "es_419.res"]


def test_the_bundle_takes_the_cut(cut):
    original = icu_data_cut.pyside_icudata()
    binaries = [(f"PySide6/Qt/lib/{original.name}", str(original), "BINARY"), ("cv2/cv2.abi3.so", "/x", "EXTENSION")]
    assert bundle_filter.replace_icu_data(binaries, cut) == [(f"PySide6/Qt/lib/{original.name}", str(cut), "BINARY"),
                                                             ("cv2/cv2.abi3.so", "/x", "EXTENSION")]
