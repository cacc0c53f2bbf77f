#!/usr/bin/env bash
# Build the store bundle and smoke-test it the way a shop PC runs it: no Python, no venv, no display.
#
#   tools/build_store.sh            build dist/nailmirror/ (PyInstaller onedir, ~1 min) and smoke-test it
#   tools/build_store.sh --smoke    only smoke-test an existing dist/nailmirror/
#
# It builds with .venv/bin/pyinstaller (CPython 3.12, `./dev setup` makes it); PYINSTALLER=PATH picks another.
#
# Ship dist/nailmirror/ as a folder (or a .tar.gz of it). The target needs glibc >= the build machine's and
# the Debian packages libegl1 libgles2 (MediaPipe links them; PyInstaller leaves them out).
#
# The smoke test starts the built program offscreen in demo mode with an empty environment (env -i), lets it
# load the hand model and paint the demo video with the starter catalog's first style for a few seconds, taps the
# AI prompt and types "ni" on the on-screen keyboard (--check-keyboard), and checks the JSON line it prints on
# exit: frozen, frames painted, hands seen, a style on, a screenshot written, the keyboard shown and its pinyin
# candidate typed into the prompt. It also holds the bundle to its size budget (#21.8: 450 MiB of regular files,
# as benchmarks/startup.py's bundle_mb counts; BUNDLE_BUDGET_MB=N sets another).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUNDLE="$ROOT/dist/nailmirror"

if [ "${1:-}" != "--smoke" ]; then
  "${PYINSTALLER:-.venv/bin/pyinstaller}" --noconfirm --clean --log-level WARN build.spec
fi
[ -x "$BUNDLE/nailmirror" ] || { echo "build_store: $BUNDLE/nailmirror is missing" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
set +e
env -i HOME="$work" PATH=/usr/bin:/bin QT_QPA_PLATFORM=offscreen NAILMIRROR_HOME="$work/data" \
  MPLCONFIGDIR="$work/mpl" "$BUNDLE/nailmirror" kiosk --demo --windowed --screenshot "$work/smoke.png" \
  --quit-after "${SMOKE_SECONDS:-12}" --check-keyboard >"$work/stdout" 2>"$work/stderr"
status=$?
set -e
report=$(grep '^{"frames_painted"' "$work/stdout" | tail -1 || true)
fail() { echo "build_store: smoke test FAILED: $1" >&2; tail -20 "$work/stderr" >&2; exit 1; }
[ "$status" -eq 0 ] || fail "exit status $status"
[ -n "$report" ] || fail "no report line"
grep -q 'ModuleNotFoundError\|ImportError\|Traceback' "$work/stderr" && fail "errors on stderr"
number() { echo "$report" | grep -o "\"$1\": [0-9.]*" | grep -o '[0-9.]*$'; }
[ "$(number frames_painted)" -gt 0 ] || fail "no frame painted"
[ "$(number frames_with_hands)" -gt 0 ] || fail "the model never saw the demo hand"
echo "$report" | grep -q '"frozen": true' || fail "not the frozen build"
echo "$report" | grep -q '"style_code": "[A-Z]' || fail "no style on the nails"
[ -s "$work/smoke.png" ] || fail "no screenshot"
echo "$report" | grep -q '"keyboard": {[^}]*"shown": true' || fail "the on-screen keyboard did not open"
echo "$report" | grep -q '"typed": "\\u4f60"' || fail "pinyin 'ni' did not type 你 into the prompt"
bundle_mb=$(find "$BUNDLE" -type f -printf '%s\n' | awk '{ s += $1 } END { printf "%.1f", s / 1048576 }')
awk -v mb="$bundle_mb" -v budget="${BUNDLE_BUDGET_MB:-450}" 'BEGIN { exit !(mb <= budget) }' \
  || fail "the bundle is $bundle_mb MB, over its ${BUNDLE_BUDGET_MB:-450} MB budget (tools/bundle_report.py sizes)"
echo "build_store: smoke test passed ($bundle_mb MB): $report"
