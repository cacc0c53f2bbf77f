"""Where the kiosk keeps its files, and who may read them.

The data directory holds the database, the asset store, logs and snapshots. `NAILMIRROR_HOME` overrides it so
tests and tools never touch a real kiosk's data. Bundled read-only files (models, resources, migrations) are
found next to the package in a source checkout, in the package's `_bundle/` in a wheel install and under
`sys._MEIPASS` in a PyInstaller build.

Privacy: snapshots show customers' hands, so the data directory and everything in it is owner-only (directories
0700, files 0600) whatever the umask. A directory is re-moded only when the kiosk owns it: it created it (and
left its marker file `.nailmirror-owned` in it) or it is the default location (`…/nailmirror`, a name no user
folder has by accident). `NAILMIRROR_HOME` may name a folder the user made, even their home: that folder keeps
its mode, only the kiosk's own files and folders inside it are made private.

A data directory that cannot be used (not a folder, read-only, full, a database that is garbage, cut short or
from a newer build) raises `DataDirUnusable` with a stable reason code; the CLI turns it into one line.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from pathlib import Path

HOME_ENV = "NAILMIRROR_HOME"
OWNED_MARKER = ".nailmirror-owned"
PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600
DATABASE_NAME = "nailmirror.db"
# Files the kiosk itself names in a data directory it does not own (made private there too).
_OWN_FILES = (DATABASE_NAME, f"{DATABASE_NAME}-wal", f"{DATABASE_NAME}-shm", f"{DATABASE_NAME}-journal",
              "config.json")


class DataDirUnusable(Exception):
    """The data directory (or the database in it) cannot be used. `reason` is a stable code:
    NOT_A_DIRECTORY, NO_PERMISSION, READ_ONLY, DISK_FULL, NOT_A_DATABASE, DATABASE_CORRUPT, NEWER_SCHEMA,
    UNREADABLE. str() is one line naming the path, the problem and the fix."""

    FIXES = {
        "NOT_A_DIRECTORY": "point NAILMIRROR_HOME at a folder, or move that file away",
        "NO_PERMISSION": "give this user write access to it, or point NAILMIRROR_HOME elsewhere",
        "READ_ONLY": "the file system is read-only: remount it writable or point NAILMIRROR_HOME elsewhere",
        "DISK_FULL": "free some disk space and try again",
        "NOT_A_DATABASE": "the file is not a NailMirror database: move it away (a new one is made) or restore a backup",
        "DATABASE_CORRUPT": "the database is damaged or cut short: restore a backup, or move it away to start afresh",
        "NEWER_SCHEMA": "it was written by a newer NailMirror: install that version (or newer) again",
        "UNREADABLE": "check the disk and the folder's permissions",
    }

    def __init__(self, path: Path | str, reason: str, detail: str = "") -> None:
        self.path = Path(path)
        self.reason = reason
        self.detail = detail
        what = f" ({detail})" if detail else ""
        super().__init__(f"data directory unusable: {path}: {reason}{what}; fix: {self.FIXES.get(reason, '')}")


def reason_for_os_error(exc: OSError) -> str:
    """An OSError's errno → a DataDirUnusable reason."""
    return {
        errno.ENOTDIR: "NOT_A_DIRECTORY", errno.EISDIR: "NOT_A_DATABASE", errno.EEXIST: "NOT_A_DIRECTORY",
        errno.EACCES: "NO_PERMISSION",
        errno.EPERM: "NO_PERMISSION", errno.EROFS: "READ_ONLY", errno.ENOSPC: "DISK_FULL",
        errno.EDQUOT: "DISK_FULL", errno.EFBIG: "DISK_FULL",
    }.get(exc.errno or 0, "UNREADABLE")


def write_failure(folder: Path) -> str | None:
    """Why a small file cannot be written in `folder` right now (DISK_FULL, READ_ONLY …), or None if it can.
    SQLite reports a full disk as a plain I/O error on most paths; this tells the two apart."""
    probe = folder / f".nailmirror-probe-{os.getpid()}"
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE_MODE)
        try:
            block = b"\0" * 65536
            while block:  # a write that hits the limit is cut short first; the next one fails
                block = block[os.write(fd, block):]
            os.fsync(fd)
        finally:
            os.close(fd)
            probe.unlink(missing_ok=True)
    except OSError as exc:
        return reason_for_os_error(exc)
    return None


def bundle_root() -> Path:
    """The folder that holds `models/`, `resources/` and `migrations/` (read-only at run time): the PyInstaller
    bundle's, the package's `_bundle/` in an installed wheel (distributions/nailmirror), else the checkout's."""
    frozen_root = getattr(sys, "_MEIPASS", None)
    if frozen_root:
        return Path(frozen_root)
    package = Path(__file__).resolve().parents[1]
    installed = package / "_bundle"
    return installed if installed.is_dir() else package.parent


def default_data_dir() -> Path:
    if sys.platform == "win32":
        return Path(os.environ.get("LOCALAPPDATA", Path.home())) / "NailMirror"
    return Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local" / "share")) / "nailmirror"


_prepared: set[Path] = set()


def data_dir() -> Path:
    """The writable data directory, created owner-only on first use; raises DataDirUnusable."""
    override = os.environ.get(HOME_ENV)
    root = Path(override) if override else default_data_dir()
    if root not in _prepared or not root.is_dir():
        _prepare_data_dir(root, owned_by_default=not override)
        _prepared.add(root)
    return root


def private_dir(path: Path) -> Path:
    """Make `path` (and missing parents) as owner-only folders the kiosk owns; re-mode it if the kiosk owns it.
    Raises DataDirUnusable when it cannot."""
    try:
        created = _make_owned_dir(path)
        if not created and (path / OWNED_MARKER).is_file():
            os.chmod(path, PRIVATE_DIR_MODE)
    except OSError as exc:
        raise DataDirUnusable(path, reason_for_os_error(exc), exc.strerror or str(exc)) from None
    return path


def write_private_file(path: Path, data: bytes) -> None:
    """Write `data` to a new owner-only file (0600 whatever the umask); raises OSError."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE_MODE)
    try:
        os.fchmod(fd, PRIVATE_FILE_MODE)  # an existing file keeps its old mode through O_CREAT
        with os.fdopen(fd, "wb", closefd=False) as handle:
            handle.write(data)
    finally:
        os.close(fd)


def make_private_file(path: Path) -> None:
    """Create `path` empty and owner-only if missing, or make an existing one owner-only.

    Opens and closes the file: never use it on a file SQLite may hold open (closing any descriptor of a file drops
    every POSIX lock this process holds on it); core.db makes the database private without opening it."""
    fd = os.open(path, os.O_RDONLY | os.O_CREAT, PRIVATE_FILE_MODE)
    try:
        if stat.S_IMODE(os.fstat(fd).st_mode) != PRIVATE_FILE_MODE:
            os.fchmod(fd, PRIVATE_FILE_MODE)
    finally:
        os.close(fd)


def _make_owned_dir(path: Path) -> bool:
    """mkdir with 0700 and the marker; True when it made `path` (False when it was already there)."""
    if path.is_dir():
        return False
    if path.exists() or path.is_symlink():
        if path.is_dir():
            return False  # another thread or process made it between the two looks (not a file in its way)
        raise NotADirectoryError(errno.ENOTDIR, "exists and is not a folder", str(path))
    if not path.parent.exists():
        _make_owned_dir(path.parent)
    try:
        path.mkdir(mode=PRIVATE_DIR_MODE)
    except FileExistsError:
        if path.is_dir():
            return False  # another process made it just now
        raise
    os.chmod(path, PRIVATE_DIR_MODE)  # mkdir's mode is masked by the umask
    make_private_file(path / OWNED_MARKER)
    return True


def _prepare_data_dir(root: Path, *, owned_by_default: bool) -> None:
    try:
        created = _make_owned_dir(root)
        if created:
            return
        if os.statvfs(root).f_flag & os.ST_RDONLY:
            raise DataDirUnusable(root, "READ_ONLY", "on a read-only file system")
        if not os.access(root, os.W_OK | os.X_OK):
            raise DataDirUnusable(root, "NO_PERMISSION", "not writable by this user")
        if owned_by_default and not (root / OWNED_MARKER).is_file():
            make_private_file(root / OWNED_MARKER)  # an older build's default folder: the kiosk's by its name
        _make_private_tree(root)
    except OSError as exc:
        raise DataDirUnusable(root, reason_for_os_error(exc), exc.strerror or str(exc)) from None


def _make_private_tree(root: Path) -> None:
    """Upgrade an existing data directory: in a folder the kiosk owns, every folder 0700 and every file 0600
    (links are not followed); in a folder it does not own, only its own files and owned sub-folders."""
    if (root / OWNED_MARKER).is_file():
        _make_private_subtree(root)
        return
    with os.scandir(root) as entries:
        for entry in entries:
            if entry.is_symlink():
                continue
            if entry.is_dir() and os.path.isfile(os.path.join(entry.path, OWNED_MARKER)):
                _make_private_subtree(Path(entry.path))
            elif entry.is_file() and entry.name in _OWN_FILES:
                _chmod_if_needed(Path(entry.path), PRIVATE_FILE_MODE)


def _make_private_subtree(folder: Path) -> None:
    _chmod_if_needed(folder, PRIVATE_DIR_MODE)
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames:
            path = Path(dirpath, name)
            if not path.is_symlink():
                _chmod_if_needed(path, PRIVATE_DIR_MODE)
        for name in filenames:
            path = Path(dirpath, name)
            if not path.is_symlink():
                _chmod_if_needed(path, PRIVATE_FILE_MODE)


def _chmod_if_needed(path: Path, mode: int) -> None:
    if stat.S_IMODE(path.lstat().st_mode) != mode:
        os.chmod(path, mode)


def models_dir() -> Path:
    return bundle_root() / "models"


def resources_dir() -> Path:
    return bundle_root() / "resources"


def migrations_dir() -> Path:
    return bundle_root() / "migrations"


def database_path() -> Path:
    return data_dir() / DATABASE_NAME
