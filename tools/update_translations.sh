#!/usr/bin/env bash
# Refresh the translation sources from the UI code, then compile them (commit both .ts and .qm).
# Translators edit resources/translations/nailmirror_zh_CN.ts with `.venv/bin/pyside6-linguist`.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t sources < <(find nailmirror_desktop/ui -name '*.py' ! -name bridge.py ! -name task_executor.py | sort)
for lang in zh_CN en; do
  .venv/bin/pyside6-lupdate "${sources[@]}" -ts "resources/translations/nailmirror_$lang.ts" -no-obsolete
  .venv/bin/pyside6-lrelease "resources/translations/nailmirror_$lang.ts" -qm "resources/translations/nailmirror_$lang.qm"
done
