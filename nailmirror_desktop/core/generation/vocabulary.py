"""The words the prompt parser knows: Chinese and English surface forms → canonical ids.

Source: ARCHITECTURE.md §10 (the tagging is domain knowledge). Every
surface form is written already normalised (lowercase, simplified Chinese, half-width, hyphens as spaces),
because the parser normalises the prompt the same way before its longest-match scan.

Kinds of term: colour, tone (light/dark/muted modifier), finish, pattern (patterns and decorations), variant
(fine/chunky glitter), shape, length, finger, accent (跳色), others (其余: back to the main design), negation,
theme (occasion palettes), filler (words that carry no design meaning and must not count as unknown).
"""

from __future__ import annotations

# canonical colour id → (RGB, English name, surface forms)
COLORS: dict[str, tuple[tuple[int, int, int], str, tuple[str, ...]]] = {
    "milky_white": ((244, 238, 226), "milky white", ("奶白", "牛奶白", "乳白", "milky white", "milk white")),
    "white": ((250, 250, 250), "white", ("纯白", "白", "white")),
    "black": ((24, 24, 28), "black", ("黑", "纯黑", "black")),
    "clear": ((246, 236, 236), "clear", ("透明", "clear", "transparent")),
    "nude": ((224, 186, 160), "nude", ("裸色", "裸", "nude")),
    "nude_pink": ((232, 188, 180), "nude pink", ("裸粉", "nude pink")),
    "flesh_pink": ((240, 198, 184), "flesh pink", ("肉粉", "flesh pink")),
    "dusty_rose": ((192, 132, 132), "dusty rose", ("豆沙", "dusty rose")),
    "milk_tea": ((204, 170, 138), "milk tea beige", ("奶茶", "milk tea", "beige")),
    "caramel": ((176, 112, 58), "caramel", ("焦糖", "caramel")),
    "chocolate": ((92, 58, 40), "chocolate brown", ("可可", "巧克力", "咖啡", "棕", "chocolate", "cocoa", "brown")),
    "burgundy": ((112, 18, 40), "burgundy", ("酒红", "burgundy", "wine red", "wine", "maroon")),
    "cherry_red": ((168, 14, 42), "cherry red", ("车厘子红", "樱桃红", "车厘子", "cherry red", "cherry")),
    "red": ((200, 22, 32), "classic red", ("正红", "大红", "红", "classic red", "red")),
    "peach": ((250, 178, 148), "peach", ("蜜桃", "桃粉", "peach")),
    "coral": ((245, 118, 98), "coral", ("珊瑚", "coral")),
    "sakura_pink": ((248, 200, 210), "sakura pink", ("樱花粉", "sakura pink", "baby pink")),
    "pink": ((238, 146, 172), "pink", ("粉红", "粉", "pink")),
    "hot_pink": ((232, 58, 138), "hot pink", ("芭比粉", "玫红", "hot pink", "barbie pink", "fuchsia")),
    "dusty_blue": ((124, 148, 174), "dusty blue", ("雾霾蓝", "dusty blue")),
    "klein_blue": ((0, 47, 167), "Klein blue", ("克莱因蓝", "klein blue")),
    "royal_blue": ((36, 76, 180), "royal blue", ("宝蓝", "royal blue", "cobalt")),
    "navy": ((26, 36, 82), "navy", ("藏青", "藏蓝", "海军蓝", "navy")),
    "blue": ((62, 112, 200), "blue", ("蓝", "blue")),
    "sky_blue": ((152, 202, 236), "sky blue", ("天蓝", "冰蓝", "sky blue", "ice blue")),
    "mint": ((168, 224, 200), "mint", ("薄荷", "mint")),
    "sage": ((158, 178, 150), "sage green", ("鼠尾草绿", "sage")),
    "avocado_green": ((170, 190, 112), "avocado green", ("牛油果绿", "牛油果", "avocado")),
    "olive": ((118, 124, 60), "olive", ("橄榄绿", "橄榄", "olive")),
    "emerald": ((18, 118, 82), "emerald", ("祖母绿", "emerald")),
    "forest_green": ((26, 74, 50), "forest green", ("墨绿", "forest green", "dark green")),
    "green": ((60, 150, 82), "green", ("绿", "green")),
    "taro_purple": ((190, 160, 200), "taro purple", ("香芋紫", "香芋", "taro")),
    "lavender": ((200, 182, 226), "lavender", ("薰衣草", "lavender")),
    "lilac": ((200, 160, 212), "lilac", ("丁香紫", "丁香", "lilac")),
    "purple": ((118, 58, 150), "purple", ("紫", "purple", "violet")),
    "mustard": ((214, 164, 40), "mustard yellow", ("姜黄", "芥末黄", "mustard")),
    "butter_yellow": ((250, 230, 160), "butter yellow", ("奶黄", "butter yellow")),
    "yellow": ((245, 210, 60), "yellow", ("黄", "yellow")),
    "orange": ((240, 130, 40), "orange", ("橙", "橘", "orange")),
    "grey": ((150, 150, 156), "grey", ("雾灰", "灰", "grey", "gray")),
    "gold": ((212, 175, 55), "gold", ("金", "gold", "golden")),
    "silver": ((196, 198, 206), "silver", ("银", "silver")),
    "rose_gold": ((216, 150, 132), "rose gold", ("玫瑰金", "rose gold")),
    "champagne": ((234, 210, 170), "champagne", ("香槟金", "香槟", "champagne")),
}

# tone modifiers: how a colour's RGB is shifted (mix towards white/black, or towards grey)
TONES: dict[str, tuple[str, ...]] = {
    "light": ("浅", "淡", "light", "pale", "pastel"),
    "dark": ("深", "暗", "dark", "deep"),
    "muted": ("灰调", "雾感", "muted", "dusty"),
}

# canonical finish id → (English phrase for prompts, surface forms)
FINISHES: dict[str, tuple[str, tuple[str, ...]]] = {
    "gloss": ("high-gloss", ("亮面", "光面", "亮油", "亮光", "gloss", "glossy", "shiny")),
    "matte": ("matte", ("磨砂", "哑光", "雾面", "哑面", "matte", "matt", "frosted")),
    "chrome": ("mirror chrome", ("镜面粉", "魔镜粉", "镜面", "魔镜", "chrome", "mirror")),
    "metallic": ("metallic", ("金属感", "金属", "metallic")),
    "cat_eye": ("magnetic cat-eye", ("猫眼", "cat eye", "magnetic", "velvet")),
    "aurora": ("aurora holographic", ("极光", "幻彩", "镭射", "aurora", "holographic", "holo", "iridescent")),
    "pearl": ("pearlescent", ("珍珠光", "珠光", "pearlescent", "pearly", "pearl")),
    "mother_of_pearl": ("mother-of-pearl", ("贝母", "mother of pearl")),
    "jelly": ("sheer jelly", ("冰透", "果冻", "透色", "水光", "jelly", "sheer", "translucent")),
    "shimmer": ("fine shimmer", ("偏光", "闪", "shimmer", "duochrome")),
}

# canonical pattern/decoration id → (English phrase, surface forms)
PATTERNS: dict[str, tuple[str, tuple[str, ...]]] = {
    "solid": ("solid colour", ("纯色", "单色", "solid", "plain")),
    "french": ("French tip", ("法式", "french tips", "french tip", "french")),
    "micro_french": ("micro French tip", ("微法式", "细法式", "micro french")),
    "chevron_french": ("chevron V French tip", ("v字法式", "v法式", "chevron french", "chevron", "v french")),
    "reverse_french": ("reverse French half-moon", ("反法式", "半月", "reverse french", "half moon")),
    "ombre": ("ombre gradient", ("渐变", "ombre", "ombré", "gradient")),
    "blush": ("blush centre flush", ("腮红", "blush")),
    "blooming": ("blooming watercolour", ("晕染", "水彩", "blooming", "watercolor", "watercolour")),
    "marble": ("marble veins", ("大理石纹", "大理石", "marble", "marbled")),
    "shell_flakes": ("iridescent shell flakes", ("贝壳碎片", "贝壳片", "贝壳", "shell flakes", "shell")),
    "foil_flakes": ("metallic foil flakes", ("金箔", "银箔", "箔", "foil flakes", "foil", "gold leaf")),
    "glitter": ("glitter", ("闪粉", "亮片", "碎闪", "细闪", "glitter", "sparkles", "sparkle", "sequins")),
    "galaxy": ("galaxy starry sky", ("星空", "galaxy", "starry")),
    "dots": ("polka dots", ("波点", "圆点", "点点", "dots", "polka dots", "polka dot", "dotted")),
    "lines": ("fine line art", ("线条", "条纹", "细线", "lines", "line art", "stripes", "striped", "stripe")),
    "plaid": ("plaid", ("格纹", "格子", "plaid", "tartan", "gingham")),
    "leopard": ("leopard print", ("豹纹", "leopard")),
    "tortoiseshell": ("tortoiseshell", ("玳瑁", "琥珀", "tortoiseshell", "tortoise shell", "amber")),
    "color_block": ("colour block", ("拼色", "撞色", "color block", "colour block")),
    "negative_space": ("negative space", ("留白", "镂空", "negative space")),
    "florals": ("small flowers", ("小雏菊", "雏菊", "碎花", "小花", "花朵", "花卉", "花", "樱花",
                                  "florals", "floral", "flowers", "flower", "daisies", "daisy")),
    "hearts": ("hearts", ("爱心", "心形", "hearts", "heart")),
    "stars": ("stars", ("星星", "星", "stars", "star")),
    "rhinestones": ("rhinestones", ("水钻", "碎钻", "钻石", "钻", "rhinestones", "rhinestone", "crystals",
                                    "gems", "diamonds")),
    "pearls": ("tiny pearls", ("珍珠", "pearls")),
    "studs": ("metal studs", ("铆钉", "studs")),
}

# glitter/shimmer size variants: a variant word directly before a pattern sets the pattern's variant
VARIANTS: dict[str, tuple[str, ...]] = {
    "fine": ("细", "fine", "micro", "tiny"),
    "chunky": ("粗", "大颗", "chunky", "big", "large"),
}
# a few surface forms imply a variant of their pattern on their own
# forms that name their own colour: a colour word before them is the base, not the pattern's colour ("大红 金箔")
PATTERN_FORM_COLORS: dict[str, str] = {"金箔": "gold", "银箔": "silver", "gold leaf": "gold"}
PATTERN_FORM_VARIANTS: dict[str, str] = {"碎闪": "fine", "细闪": "fine", "亮片": "chunky", "sequins": "chunky"}

SHAPES: dict[str, tuple[str, ...]] = {
    "squoval": ("方圆", "squoval"),
    "oval": ("椭圆", "oval"),
    "round": ("圆形", "圆头", "round"),
    "almond": ("杏仁", "almond"),
    "coffin": ("梯形", "芭蕾", "棺材", "coffin", "ballerina"),
    "stiletto": ("尖形", "锥形", "尖头", "stiletto", "pointed"),
    "square": ("方形", "方头", "square"),
}

LENGTHS: dict[str, tuple[str, ...]] = {
    "short": ("短甲", "短", "short"),
    "medium": ("中长", "中等", "medium", "mid length"),
    "long": ("超长", "长甲", "长", "long"),
}

FINGER_NAMES: tuple[str, ...] = ("thumb", "index", "middle", "ring", "pinky")
FINGERS: dict[str, tuple[str, ...]] = {
    "thumb": ("大拇指", "拇指", "thumb", "thumbs"),
    "index": ("食指", "index finger", "index"),
    "middle": ("中指", "middle finger", "middle"),
    "ring": ("无名指", "ring finger", "ring"),
    "pinky": ("小拇指", "小指", "尾指", "pinky", "pinkie", "little finger"),
}

ACCENT_FORMS: tuple[str, ...] = ("跳色", "点缀色", "accent nail", "accent nails", "accents", "accent")
OTHERS_FORMS: tuple[str, ...] = ("其余", "其他", "其它", "剩下", "other nails", "the rest", "others", "remaining")
NEGATION_FORMS: tuple[str, ...] = ("不要", "不想要", "不加", "别加", "去掉", "别", "无", "没有", "不", "no", "without",
                                   "not", "don t want", "skip")

# occasion → (English phrase, surface forms, default base colour, default accent colour)
THEMES: dict[str, tuple[str, tuple[str, ...], str, str]] = {
    "christmas": ("Christmas", ("圣诞", "christmas", "xmas"), "red", "forest_green"),
    "new_year": ("Chinese New Year", ("新年", "春节", "过年", "new year", "lunar new year"), "red", "gold"),
    "bridal": ("bridal", ("新娘", "婚礼", "bridal", "wedding"), "milky_white", "champagne"),
    "office": ("office-friendly", ("通勤", "上班", "office", "work"), "nude", "milk_tea"),
    "spring": ("spring", ("春天", "春季", "春", "spring"), "sakura_pink", "mint"),
    "summer": ("summer", ("夏天", "夏季", "夏日", "夏", "summer"), "coral", "sky_blue"),
    "autumn": ("autumn", ("秋天", "秋冬", "秋季", "秋", "autumn", "fall"), "caramel", "burgundy"),
    "winter": ("winter", ("冬天", "冬季", "冬", "winter"), "dusty_blue", "silver"),
}

# words that carry no design meaning (they must not count as unknown terms)
FILLERS: tuple[str, ...] = (
    "的", "色", "色系", "底胶", "底色", "底", "甲面", "甲型", "甲", "指甲", "美甲", "款式", "款", "风格", "风", "要",
    "想", "加上", "加", "和", "与", "跟", "及", "配", "搭配", "做", "做成", "一个", "两个", "全部", "所有", "全", "其",
    "上", "有", "点缀", "封层", "感", "调", "形", "纹", "一点", "一些", "带", "图案", "手", "左手", "右手", "指", "用",
    "是", "我", "再", "还", "然后", "都", "些", "帮我", "请", "但是", "但", "显白", "温柔", "高级", "简约", "气质",
    "可爱", "到", "的话", "效果", "系", "款的", "个", "跳", "每个",
    "a", "an", "the", "with", "and", "on", "in", "of", "for", "base", "base coat", "nails", "nail", "finger", "fingers",
    "tips", "tip", "coat", "top coat", "topcoat", "polish", "style", "design", "look", "some", "little", "small",
    "plus", "color", "colour", "colored", "coloured", "all", "each", "i", "want", "like", "please", "to", "from", "but",
    "shape", "shaped", "length", "accented", "soft", "elegant", "simple", "cute", "minimal", "minimalist", "over", "at",
    "as", "one", "two", "nail art", "manicure", "art", "effect", "finish", "s", "other", "rest", "into",
)

# common traditional characters in nail prompts → simplified (OpenCC is not a dependency; this covers the
# vocabulary above, anything else simply stays unknown and is passed on verbatim)
TRADITIONAL_TO_SIMPLIFIED: dict[str, str] = dict(zip(
    "漸貝殼閃無紅綠藍鑽鏡啞霧條紋點圓長層貓銀黃顏膠極鐳質淺溫雛櫻單線綫鉚釘愛樣暈鏽寶裝飾異夢鑲結節誕禮過種壓檸錯嗎別沒這個們兩餘層紗鑽邊緣鍍屬陽畫圖葉滿覺調氣溫",
    "渐贝壳闪无红绿蓝钻镜哑雾条纹点圆长层猫银黄颜胶极镭质浅温雏樱单线线铆钉爱样晕锈宝装饰异梦镶结节诞礼过种压柠错吗别没这个们两余层纱钻边缘镀属阳画图叶满觉调气温",
    strict=True,
))
