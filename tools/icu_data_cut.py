"""ICU's data library cut to the kiosk's languages, for the store bundle (#13.10).

    .venv/bin/python tools/icu_data_cut.py OUT_DIR     build OUT_DIR/libicudata.so.<N> from PySide6's; print it

PySide6's Qt ships ICU with all of its data in libicudata (31 MB: every locale's collation, names and units, the
transliterators). Qt reads it for collation (QCollator: the catalog's pinyin and stroke order), time zone names in
the settings' zone picker, case mapping, IDNA and the legacy text codecs. The kiosk speaks Chinese and English,
so the cut keeps every locale of zh, yue and en (zh_Hans, zh_Hant for Hong Kong, Macau and Taiwan stores, en_*),
root, and everything that is not a locale (converters, normalisation, break iterators' rules and dictionaries,
time zone data, plural rules, units' structure); it drops the other locales' items in every tree and the
transliterators (13.6 MB left). A locale left out falls back to root, as ICU does for any locale it lacks.

The data (the `icudt<N>_dat` symbol of the original library, located through its ELF section table) is rewritten
with Debian's `icupkg` (icu-devtools; it reads ICU 73's format) and assembled into a library of the same soname
exporting the same symbol (`.incbin`). tests/tools/test_icu_data_cut.py checks Qt's answers are unchanged.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

from bundle_filter import soname

KEPT_LOCALES = re.compile(r"^(root|en|zh|yue)(_.*)?\.res$")
# A locale's item: af.res, de_.res, sr_Latn_BA.res, es_419.res; not pool.res nor res_index.res (each tree's list of
# its locales, kept: a listed locale that is gone falls back to root when opened).
LOCALE_ITEM = re.compile(r"^[a-z]{2,3}(_([A-Z][A-Za-z0-9]*|[0-9]{3})?(_[A-Za-z0-9]+)*)?\.res$")
DROPPED_TREES = ("translit/",)


def pyside_icudata() -> Path:
    import PySide6

    found = sorted((Path(PySide6.__file__).parent / "Qt" / "lib").glob("libicudata.so.[0-9]*"))
    if len(found) != 1:
        raise FileNotFoundError(f"PySide6 holds {len(found)} libicudata libraries, not one")
    return found[0]


def data_blob(library: Path) -> tuple[str, bytes]:
    """(symbol name, bytes) of the ICU common data inside a libicudata."""
    symbols = subprocess.run(["nm", "-D", "-S", str(library)], capture_output=True, text=True, check=True).stdout
    found = re.search(r"^([0-9a-f]+) ([0-9a-f]+) R (icudt\d+_dat)$", symbols, re.M)
    if found is None:
        raise RuntimeError(f"{library.name} exports no icudt*_dat")
    address, size, name = int(found[1], 16), int(found[2], 16), found[3]
    sections = subprocess.run(["readelf", "-S", "-W", str(library)], capture_output=True, text=True,
                              check=True).stdout
    for line in sections.splitlines():
        section = re.search(r"\]\s+\S+\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)", line)
        if section is None:
            continue
        start, offset, length = (int(v, 16) for v in section.groups())
        if start <= address and address + size <= start + length and start:
            with library.open("rb") as file:
                file.seek(offset + address - start)
                return name, file.read(size)
    raise RuntimeError(f"{name} lies in no section of {library.name}")


def items_to_drop(items: list[str]) -> list[str]:
    return [item for item in items if item.startswith(DROPPED_TREES)
            or (LOCALE_ITEM.match(item.rsplit("/", 1)[-1]) and not KEPT_LOCALES.match(item.rsplit("/", 1)[-1]))]


def build(out_dir: Path, library: Path | None = None) -> Path:
    """OUT_DIR/<the library's file name>: the cut data, same soname, same symbol."""
    library = library or pyside_icudata()
    symbol, blob = data_blob(library)
    package = symbol.removesuffix("_dat") + "l"  # icudt73l: the items are named icudt73l/…, as the file is
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        whole, cut = Path(work) / "whole" / f"{package}.dat", Path(work) / "cut" / f"{package}.dat"
        whole.parent.mkdir()
        cut.parent.mkdir()
        whole.write_bytes(blob)
        listing = subprocess.run(["icupkg", "-l", str(whole)], capture_output=True, text=True, check=True).stdout
        drop = Path(work) / "drop.txt"
        drop.write_text("\n".join(items_to_drop(listing.split())) + "\n")
        subprocess.run(["icupkg", "-r", str(drop), str(whole), str(cut)], capture_output=True, text=True,
                       check=True)
        assembly = Path(work) / "icudata.S"
        assembly.write_text(f"""    .section .rodata
    .globl {symbol}
    .type {symbol}, @object
    .balign 16
{symbol}:
    .incbin "{cut}"
    .size {symbol}, . - {symbol}
    .section .note.GNU-stack,"",@progbits
""")
        target = out_dir / library.name
        subprocess.run(["gcc", "-shared", "-o", str(target), f"-Wl,-soname,{soname(library)}", str(assembly)],
                       check=True)
    return target


if __name__ == "__main__":
    print(build(Path(sys.argv[1])))
