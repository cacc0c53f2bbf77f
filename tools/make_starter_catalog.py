"""Build resources/starter_catalog/ with the project's own offline generator (licence-clean, reproducible).

Usage: python tools/make_starter_catalog.py [--out DIR] [--check]

Each style is a prompt parsed by core.generation.prompt_parser and rendered by artwork.render with a fixed
seed, written as a style folder (nail.png, accent.png when it has accents, style.json, preview.png) plus one
catalog.json index:
{"styles": [{code, name_zh, name_en, category: {code, name_zh, name_en}, tags: [{code, name_zh, name_en}],
prompt, seed, folder}]}. Output is byte-for-byte reproducible; --check rebuilds into a temporary folder and
fails if anything differs from what is committed.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nailmirror_desktop.artwork.render import render_design, write_style_folder  # noqa: E402
from nailmirror_desktop.core.generation import vocabulary as vocab  # noqa: E402
from nailmirror_desktop.core.generation.design import Design  # noqa: E402
from nailmirror_desktop.core.generation.prompt_parser import parse_prompt  # noqa: E402

DEFAULT_OUT = ROOT / "resources" / "starter_catalog"
TEXTURE_SIZE = (128, 192)  # (width, height): plenty for a nail a few dozen pixels wide on camera
PREVIEW_SIZE = (768, 512)
MAX_TOTAL_BYTES = 6 * 1024 * 1024

CATEGORIES = {
    "MIN": ("minimal", "简约", "Minimal"),
    "FRE": ("french", "法式", "French"),
    "GRD": ("ombre", "晕染", "Ombre & blooming"),
    "SHN": ("glitter", "闪耀", "Glitter & chrome"),
    "FLR": ("floral", "花卉", "Floral"),
    "FES": ("festive", "节日", "Festive"),
}

# (category, name_zh, name_en, prompt, seed)
STYLES: list[tuple[str, str, str, str, int]] = [
    ("MIN", "奶白亮面", "Milky White Gloss", "奶白色纯色亮面，方圆短甲", 101),
    ("MIN", "裸粉雾面", "Nude Pink Matte", "裸粉色磨砂，短甲", 102),
    ("MIN", "豆沙金箔", "Dusty Rose with Gold Foil", "豆沙色底，无名指金箔", 103),
    ("MIN", "雾霾蓝磨砂", "Dusty Blue Matte", "雾霾蓝 哑光 椭圆", 104),
    ("MIN", "黑金线条", "Black and Gold Lines", "black matte with gold lines, short square nails", 105),
    ("FRE", "经典法式", "Classic French", "裸粉色法式，杏仁形", 201),
    ("FRE", "奶白微法式", "Milky Micro French", "奶茶色底，白色微法式，无名指珍珠", 202),
    ("FRE", "黑色V字法式", "Black Chevron French", "nude base with black chevron french tips", 203),
    ("FRE", "樱花彩色法式", "Sakura Colour French", "肉粉色底，樱花粉法式，细闪", 204),
    ("FRE", "酒红半月", "Burgundy Half Moon", "酒红色反法式 亮面", 205),
    ("GRD", "粉白渐变", "Pink to White Ombre", "粉色到白色渐变", 301),
    ("GRD", "腮红甲", "Blush Nails", "奶白色腮红甲，果冻感", 302),
    ("GRD", "雾蓝晕染", "Blue Blooming", "milky white base with dusty blue blooming watercolour", 303),
    ("GRD", "白金大理石", "White and Gold Marble", "白色大理石纹，金色线条", 304),
    ("GRD", "琥珀玳瑁", "Amber Tortoiseshell", "玳瑁纹，焦糖色，长甲", 305),
    ("SHN", "贝壳细闪", "Shell Flakes with Accent", "奶白色底胶、贝壳碎片、无名指跳色", 401),
    ("SHN", "酒红猫眼", "Burgundy Cat Eye", "酒红色猫眼，杏仁形长甲", 402),
    ("SHN", "银色镜面", "Silver Chrome", "银色镜面粉", 403),
    ("SHN", "极光冰透", "Aurora Jelly", "冰蓝色极光", 404),
    ("SHN", "黑金闪粉渐变", "Black Gold Glitter Fade", "黑色底，金色闪粉渐变", 405),
    ("FLR", "薄荷小花", "Mint Daisies", "薄荷绿底 白色小花", 501),
    ("FLR", "奶白雏菊", "Milky Daisies", "奶白色 雏菊 无名指黄色", 502),
    ("FLR", "樱花珍珠", "Sakura and Pearls", "樱花粉果冻 小花 珍珠", 503),
    ("FLR", "薰衣草花园", "Lavender Garden", "lavender jelly with white florals and gold dots", 504),
    ("FES", "圣诞红绿", "Christmas Red and Green", "圣诞 正红色 金色闪粉 无名指墨绿", 601),
    ("FES", "新年红金", "New Year Red and Gold", "新年 大红 金箔 亮面", 602),
    ("FES", "新娘珍珠", "Bridal Pearl", "新娘 奶白珍珠光 水钻", 603),
    ("FES", "星空", "Galaxy Night", "星空 细闪", 604),
    ("FES", "秋日豹纹", "Autumn Leopard", "秋天 焦糖色豹纹 磨砂", 605),
    ("FES", "甜心波点", "Sweetheart Dots", "hot pink jelly with white dots, accent ring finger with red hearts", 606),
]


def _zh_name(forms: tuple[str, ...]) -> str:
    return next((f for f in forms if not f.isascii()), forms[0])


def tags_for(design: Design) -> list[dict[str, str]]:
    """Tags from the parsed design: finish (when not plain gloss), patterns, themes and 跳色."""
    tags: list[dict[str, str]] = []
    if design.finish != "gloss":
        phrase, forms = vocab.FINISHES[design.finish]
        tags.append({"code": design.finish, "name_zh": _zh_name(forms), "name_en": phrase})
    kinds = list(design.pattern_kinds)
    for accent in design.accents:
        kinds += [p.kind for p in accent.design.patterns]
    for kind in dict.fromkeys(kinds):
        phrase, forms = vocab.PATTERNS[kind]
        tags.append({"code": kind, "name_zh": _zh_name(forms), "name_en": phrase})
    for theme in design.themes:
        phrase, forms, _, _ = vocab.THEMES[theme]
        tags.append({"code": theme, "name_zh": _zh_name(forms), "name_en": phrase})
    if design.accents:
        tags.append({"code": "accent_nail", "name_zh": "跳色", "name_en": "accent nail"})
    return tags


def build(out: Path) -> dict:
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    entries = []
    numbers: dict[str, int] = {}
    for category, name_zh, name_en, prompt, seed in STYLES:
        numbers[category] = numbers.get(category, 0) + 1
        code = f"NM-{category}-{numbers[category]:03d}"
        design = parse_prompt(prompt)
        if design.unknown_terms:
            raise SystemExit(f"{code}: the parser did not understand {design.unknown_terms} in {prompt!r}")
        rendered = render_design(design, seed, texture_size=TEXTURE_SIZE, preview_size=PREVIEW_SIZE)
        write_style_folder(rendered, out / code, name=name_zh, png_compression=9)
        category_code, category_zh, category_en = CATEGORIES[category]
        entries.append({
            "code": code, "name_zh": name_zh, "name_en": name_en,
            "category": {"code": category_code, "name_zh": category_zh, "name_en": category_en},
            "tags": tags_for(design), "prompt": prompt, "seed": seed, "folder": code,
        })
    catalog = {"version": 1, "generator": "nailmirror_desktop.artwork.render", "styles": entries}
    (out / "catalog.json").write_text(json.dumps(catalog, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    total = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    if total > MAX_TOTAL_BYTES:
        raise SystemExit(f"starter catalog is {total} bytes, over the {MAX_TOTAL_BYTES} byte budget")
    return {"styles": len(entries), "bytes": total}


def _same_tree(a: Path, b: Path) -> bool:
    files_a = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    return files_a == files_b and all(filecmp.cmp(a / f, b / f, shallow=False) for f in files_a)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--check", action="store_true", help="rebuild elsewhere and compare with --out")
    args = parser.parse_args()
    if args.check:
        with tempfile.TemporaryDirectory() as tmp:
            summary = build(Path(tmp) / "catalog")
            same = _same_tree(Path(tmp) / "catalog", args.out)
        print(json.dumps({**summary, "reproducible": same}))
        return 0 if same else 1
    print(json.dumps(build(args.out)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
