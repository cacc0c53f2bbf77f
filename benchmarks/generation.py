"""Generation benchmark: offline render time per style, and throughput of queued generations through the engine.

Usage: python benchmarks/generation.py [--renders N] [--engine-tasks N] [--workers N]
Prints one line per measurement group and a final JSON line. The engine half lives in generation_engine.py
(`measure_engine_throughput`): N STYLE_GENERATION tasks queued, then drained through the real task engine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from nailmirror_desktop.artwork.render import render_design, write_style_folder  # noqa: E402
from nailmirror_desktop.core.generation.prompt_parser import parse_prompt  # noqa: E402

PROMPTS = [
    "奶白色底胶、贝壳碎片、无名指跳色",
    "奶白色底，无名指跳色酒红猫眼，其余贝壳碎片加细闪，磨砂封层",
    "裸粉色法式，杏仁形",
    "black matte with gold lines, short square nails",
    "粉色到白色渐变",
    "milky white base with dusty blue blooming watercolour",
    "白色大理石纹，金色线条",
    "玳瑁纹，焦糖色，长甲",
    "酒红色猫眼，杏仁形长甲",
    "银色镜面粉",
    "冰蓝色极光",
    "黑色底，金色闪粉渐变",
    "薄荷绿底 白色小花",
    "樱花粉果冻 小花 珍珠",
    "lavender jelly with white florals and gold dots",
    "圣诞 正红色 金色闪粉 无名指墨绿",
    "新年 大红 金箔 亮面",
    "新娘 奶白珍珠光 水钻",
    "星空 细闪",
    "秋天 焦糖色豹纹 磨砂",
    "hot pink jelly with white dots, accent ring finger with red hearts",
    "豆沙色底，无名指金箔",
    "nude base with black chevron french tips",
    "奶白色腮红甲，果冻感",
    "雾霾蓝 哑光 椭圆 格纹",
    "chrome rose gold stiletto with rhinestones",
    "贝母 奶白 无名指和食指水钻",
    "撞色 克莱因蓝 白色",
    "留白 金色线条 裸色",
    "pearl white with stars and tiny hearts",
]


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def measure_render_times(n: int = 30, texture_size=(256, 384), preview_size=(768, 512)) -> dict:
    """Render n styles (cycling through PROMPTS, seed = index) and time each; also time writing the folder.

    Returns seconds: render_median_s, render_p95_s, render_max_s, write_median_s (PNG encode + write of the
    style folder), parse_median_s, plus n and the sizes used.
    """
    parse_times, render_times, write_times = [], [], []
    render_design(parse_prompt(PROMPTS[0]), 0, texture_size, preview_size)  # warm-up (imports, caches)
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(n):
            prompt = PROMPTS[i % len(PROMPTS)]
            t0 = time.perf_counter()
            design = parse_prompt(prompt)
            t1 = time.perf_counter()
            rendered = render_design(design, i, texture_size, preview_size)
            t2 = time.perf_counter()
            write_style_folder(rendered, Path(tmp) / f"style{i}")
            t3 = time.perf_counter()
            parse_times.append(t1 - t0)
            render_times.append(t2 - t1)
            write_times.append(t3 - t2)
    return {
        "n": n,
        "texture_size": list(texture_size),
        "preview_size": list(preview_size),
        "parse_median_s": round(statistics.median(parse_times), 6),
        "render_median_s": round(statistics.median(render_times), 4),
        "render_p95_s": round(_percentile(render_times, 0.95), 4),
        "render_max_s": round(max(render_times), 4),
        "write_median_s": round(statistics.median(write_times), 4),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--renders", type=int, default=30)
    parser.add_argument("--engine-tasks", type=int, default=100)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    from generation_engine import measure_engine_throughput

    offline = measure_render_times(args.renders)
    print(f"offline render: median {offline['render_median_s'] * 1000:.0f} ms,"
          f" p95 {offline['render_p95_s'] * 1000:.0f} ms,"
          f" folder write median {offline['write_median_s'] * 1000:.0f} ms over {offline['n']} styles")
    engine = measure_engine_throughput(args.engine_tasks, workers=args.workers)
    print(f"engine: {engine}")
    print(json.dumps({"benchmark": "generation", "offline": offline, "engine": engine}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
