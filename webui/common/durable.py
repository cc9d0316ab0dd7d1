"""Files that survive a pulled plug: the one way the apps write a file that must last.

A file written with ``write_text`` sits in the page cache until the kernel gets round to it;
a power cut before then leaves it empty or half-written, and ``rename`` without an ``fsync``
first can leave the new name pointing at an empty file (the rename reached the disk, the data
did not). ``write_atomically`` writes a temporary file beside the target, ``fsync``s it,
renames it over the target and ``fsync``s the folder: after a cut the target is either the
old file or the new one, whole, never a mix or nothing. The power-cut test
(``tests/test_power_cut.py``, on LazyFS) drops every write not synced, so a file written any
other way is caught there.

The SQLite database is the other thing that must survive; its connections are opened in one
place (``webui.store.db.sqlite_connection_setup``: WAL, ``synchronous=FULL``).
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

PART = ".part"  # temporary files end so; a cut can leave one behind, and it is never read


def fsync_folder(folder: str | Path) -> None:
    """Make a folder's entries (a file created, renamed or removed in it) durable."""
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    except OSError:  # a file system that cannot sync folders (some FUSE ones): nothing to do
        pass
    finally:
        os.close(fd)


def make_folder(folder: str | Path) -> Path:
    """``folder`` and its missing parents, each new one made durable in its parent."""
    path = Path(folder)
    missing = []
    probe = path
    while not probe.exists():
        missing.append(probe)
        probe = probe.parent
    path.mkdir(parents=True, exist_ok=True)
    for made in reversed(missing):
        fsync_folder(made.parent)
    return path


def write_atomically(path: str | Path, data: bytes | str, mode: int | None = None) -> Path:
    """Replace ``path`` with ``data`` (text as UTF-8) so that a crash or power cut at any
    moment leaves the old file or the new one, whole and on the disk. ``mode``: the new
    file's permissions, set before any data is written (a private key is never readable by
    others, not even for a moment)."""
    target = Path(path)
    folder = make_folder(target.parent)
    body = data.encode("utf-8") if isinstance(data, str) else data
    tmp = folder / f".{target.name}.{secrets.token_hex(4)}{PART}"
    # the umask applies, as to any new file
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666 if mode is None else mode)
    try:
        view = memoryview(body)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        tmp.unlink(missing_ok=True)
        raise
    os.close(fd)
    try:
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_folder(folder)
    return target

