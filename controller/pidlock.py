"""An exclusive, non-blocking ``flock`` on a lock file that names its holder's PID: the one
mechanism behind the ledger's single writer (controller.books.ledger.db) and the daemon's and
emulator's single instance (controller.table.instance_lock). The kernel drops the lock when
the holder dies, however it dies, so a stale file never blocks a restart.

A clean stop removes the lock file (:func:`release_lock`), and only its holder does, while it
still holds the lock. That is safe because :func:`take_lock` checks, once it has the lock, that
the file it locked is still the one at the path: a process that opened the file just before
the holder removed it would otherwise hold a lock on a file nobody else can see, beside the
next process's lock on the new file. A file left by a ``kill -9`` stays, and is harmless.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path


class LockHeld(Exception):
    """Another live process holds the lock; ``holder`` is the PID it wrote ("?" if none)."""

    def __init__(self, holder: str) -> None:
        super().__init__(holder)
        self.holder = holder


def take_lock(path: Path, mode: int) -> int:
    """Open (creating with ``mode``) and lock ``path``; write this process's PID into it and
    return the open descriptor, which holds the lock until it is closed. Raises
    :class:`LockHeld`, or ``OSError`` when the file cannot be opened."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, mode)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
            os.close(fd)
            raise LockHeld(holder) from None
        if _is_at(fd, path):
            break
        os.close(fd)  # its holder removed it as it let go: lock the file at the path now
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return fd


def release_lock(path: Path, fd: int) -> None:
    """Remove the lock file at ``path``, then drop the lock ``fd`` holds on it: a clean stop
    leaves no lock file (a directory it cannot be removed from keeps it, harmless)."""
    with contextlib.suppress(OSError):
        if _is_at(fd, path):
            os.unlink(path)
    os.close(fd)


def _is_at(fd: int, path: Path) -> bool:
    """``fd`` is the file at ``path`` (not one removed from it)."""
    try:
        at = os.stat(path)
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (at.st_dev, at.st_ino) == (mine.st_dev, mine.st_ino)


def lock_holder(path: Path) -> str | None:
    """Who holds the lock on ``path``: the PID it wrote ("?" if none), or None when nobody
    does (no such file included). It takes the lock for an instant if it is free: a check
    before starting the process that will take it (the rig before its daemon), so that a
    refusal names its real reason; the process's own :func:`take_lock` stays the authority."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
    finally:
        os.close(fd)  # drops the lock, if it was taken
    return None
