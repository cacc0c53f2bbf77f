"""The table of Chinese and English prompts with their expected structure: the prompt parser's tests check each
row, and the design model's tests round-trip each row's design through JSON."""

from __future__ import annotations

# (prompt, expected fields); only the fields named are checked. "accents" maps finger → (colour id or None,
# finish or None, pattern kinds).
CASES = [
    ("奶白色底胶、贝壳碎片、无名指跳色", {
        "base": "milky_white", "finish": "gloss", "patterns": ("shell_flakes",),
        "accents": {"ring": ("dusty_rose", None, ())}, "unknown": ()}),
    ("奶白色底，无名指跳色酒红猫眼，其余贝壳碎片加细闪，磨砂封层", {
        "base": "milky_white", "finish": "matte", "patterns": ("shell_flakes", "glitter"),
        "accents": {"ring": ("burgundy", "cat_eye", ())}}),
    ("milky white base with gold glitter, accent on ring and index", {
        "base": "milky_white", "patterns": ("glitter",), "pattern_colors": {"glitter": "gold"},
        "accents": {"ring": ("dusty_rose", None, ()), "index": ("dusty_rose", None, ())}}),
    ("不要闪粉，裸粉色法式", {"base": "nude_pink", "patterns": ("french",), "excluded": ("glitter",)}),
    ("nude french tips, no glitter", {"base": "nude", "patterns": ("french",), "excluded": ("glitter",)}),
    ("豆沙色 闪粉 但是不要闪粉", {"base": "dusty_rose", "patterns": (), "excluded": ("glitter",), "unknown": ()}),
    ("无闪粉 豆沙色", {"base": "dusty_rose", "patterns": (), "excluded": ("glitter",)}),
    ("不规则线条 黑色", {"patterns": ("lines",), "excluded": ()}),  # 不 only negates what follows at once
    ("without any rhinestones, black chrome", {"base": "black", "excluded": ("rhinestones",), "patterns": ()}),
    ("black chrome without rhinestones", {"base": "black", "finish": "chrome", "excluded": ("rhinestones",)}),
    ("酒紅色貓眼 短 杏仁形", {"base": "burgundy", "finish": "cat_eye", "shape": "almond", "length": "short"}),
    ("long coffin nails, pastel pink jelly with tiny hearts", {
        "base": "pink", "base_tone": "light", "finish": "jelly", "patterns": ("hearts",), "shape": "coffin",
        "length": "long"}),
    ("粉色到白色渐变", {"base": "pink", "patterns": ("ombre",), "pattern_colors": {"ombre": "white"}}),
    ("金色细闪 白色法式", {"patterns": ("glitter", "french"), "pattern_colors": {"glitter": "gold", "french": "white"},
                      "variants": {"glitter": "fine"}}),
    ("white marble with gold lines", {"base": "white", "patterns": ("marble", "lines"),
                                      "pattern_colors": {"lines": "gold"}}),
    ("薄荷绿底 白色小花 食指金箔", {"base": "mint", "patterns": ("florals",), "pattern_colors": {"florals": "white"},
                             "accents": {"index": (None, None, ("foil_flakes",))}}),
    ("无名指、中指跳色", {"accents": {"ring": ("dusty_rose", None, ()), "middle": ("dusty_rose", None, ())}}),
    ("奶白色、小熊图案", {"base": "milky_white", "unknown": ("小熊",)}),
    ("cute bear charms on light pink", {"base": "pink", "unknown": ("bear charms",)}),
    ("圣诞 跳色", {"base": "red", "themes": ("christmas",), "accents": {"ring": ("forest_green", None, ())}}),
    ("雾霾蓝 珍珠光 水钻", {"base": "dusty_blue", "finish": "pearl", "patterns": ("rhinestones",)}),
    ("深蓝色星空", {"base": "blue", "base_tone": "dark", "patterns": ("galaxy",)}),
    ("ＭＩＬＫＹ　ＷＨＩＴＥ ＭＡＴＴＥ", {"base": "milky_white", "finish": "matte"}),  # full-width input
    ("bored red", {"base": "red", "unknown": ("bored",)}),  # 'red' inside 'bored' is not a colour
]
