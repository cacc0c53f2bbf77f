"""`nailmirror kiosk`: start the touch-screen kiosk.

With `--screenshot PNG --quit-after SECONDS` the kiosk runs normally, saves its main window to PNG after that
long and exits 0 (used by tests, the store build's smoke test and the startup benchmark); `--quit-after-frames N`
ends the run once N frames are painted instead (with `--quit-after` too: whichever comes first). A run that
ends either way prints one JSON line (frames, fps, max_hands, nails_painted_mean, …). It logs to
data_dir()/logs/kiosk.log; the terminal shows warnings only, and native libraries' chatter goes to that file
(`--verbose` shows it all: app/kiosk_logging.py).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("kiosk", help="start the kiosk (the default command)")
    parser.add_argument("--demo", action="store_true", help="play the bundled demo video instead of a camera")
    parser.add_argument("--demo-if-no-camera", action="store_true", default=True,
                        help="fall back to the demo video when no camera opens (default)")
    parser.add_argument("--no-demo-fallback", dest="demo_if_no_camera", action="store_false",
                        help="wait for a camera instead of playing the demo video")
    screen = parser.add_mutually_exclusive_group()
    screen.add_argument("--fullscreen", dest="fullscreen", action="store_true", default=True)
    screen.add_argument("--windowed", dest="fullscreen", action="store_false")
    parser.add_argument("--screenshot", type=Path, metavar="PNG", help="save the main window to PNG, then exit")
    parser.add_argument("--quit-after", type=float, metavar="SECONDS", help="exit after this many seconds")
    parser.add_argument("--quit-after-frames", type=_positive_int, metavar="N",
                        help="exit once N frames are painted (1: when the first frame is painted)")
    parser.add_argument("--check-keyboard", action="store_true",
                        help="with --quit-after: tap the AI prompt and type on the on-screen keyboard; the exit "
                             "JSON reports it (the store build's smoke test)")
    parser.add_argument("--verbose", action="store_true",
                        help="show every log line on the terminal, native libraries' (MediaPipe, OpenCV, Qt) too")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from nailmirror_desktop.app.kiosk_logging import configure_logging, quiet_native_libraries

    os.environ.setdefault("MPLCONFIGDIR", str(Path.home() / ".cache" / "nailmirror-mpl"))
    quit_after = args.quit_after
    if args.screenshot is not None and quit_after is None and args.quit_after_frames is None:
        quit_after = 5.0
    if not _display_available():
        if quit_after is None and args.quit_after_frames is None:
            print("nailmirror kiosk: no display found (DISPLAY/WAYLAND_DISPLAY unset). Run it on the store PC's "
                  "screen, or headless with --screenshot PNG --quit-after SECONDS.", file=sys.stderr)
            return 2
        # a timed or screenshot run needs no screen: render offscreen rather than abort inside Qt
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    if not args.verbose:  # before anything loads cv2: OpenCV reads its log level from the environment then
        quiet_native_libraries()
    # Checked before anything else loads: an install without the binding gets a sentence, not a traceback.
    missing = next((name for name in ("PySide6", "shiboken6") if importlib.util.find_spec(name) is None), None)
    if missing is not None:
        return _no_qt_binding(missing)
    configure_logging(args.verbose)  # before Qt starts and mediapipe loads: their stderr lines go to the log file
    _start_preload()  # cold start: the hand model and nail segmenter load while the UI imports (app/preload.py)
    try:
        from nailmirror_desktop.app.kiosk import EXIT_RESTART, KioskOptions, run_kiosk
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] not in ("PySide6", "shiboken6"):
            raise
        return _no_qt_binding(exc.name or "PySide6")
    options = KioskOptions(demo=args.demo, demo_if_no_camera=args.demo_if_no_camera, fullscreen=args.fullscreen,
                           screenshot=args.screenshot, quit_after_s=quit_after,
                           check_keyboard=args.check_keyboard, quit_after_frames=args.quit_after_frames)
    status = run_kiosk(options)
    if status == EXIT_RESTART:
        from nailmirror_desktop.app.kiosk_logging import restore_native_stderr

        restore_native_stderr()
        command = restart_command()
        os.execv(command[0], command)  # the same kiosk, started again with the saved settings
    return status


def _positive_int(text: str) -> int:
    if not text.strip().isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"a whole number of frames, 1 or more, not {text!r}")
    return int(text)


def _no_qt_binding(name: str) -> int:
    print(f"nailmirror kiosk: the Qt binding is not installed ({name}); ./dev setup installs it.", file=sys.stderr)
    return 2


def _start_preload() -> None:
    from nailmirror_desktop.app import preload
    from nailmirror_desktop.core.config import load_config

    try:
        preload.start(load_config().hands_tracked)
    except Exception:  # an unreadable config: the kiosk reports it when it loads the config itself
        return


def restart_command(argv: list[str] | None = None) -> list[str]:
    """The command line that starts this kiosk again: the bundle's executable, or this Python with -m."""
    args = list(sys.argv[1:] if argv is None else argv)
    if getattr(sys, "frozen", False):
        return [sys.executable, *args]
    return [sys.executable, "-m", "nailmirror_desktop", *args]


def _display_available() -> bool:
    """Qt picks its own platform on Windows and macOS; on Linux it needs X11/Wayland unless told otherwise."""
    if not sys.platform.startswith("linux") or os.environ.get("QT_QPA_PLATFORM"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
