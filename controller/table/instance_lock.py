"""One live process per runtime directory or shuffler link: an ``flock`` on a lock file.

A second ``croupierd`` on the same runtime directory, or a second emulator on the same link,
would silently take over the control socket or the pty and delete them when it exits, leaving
the first one unreachable. Each takes an exclusive, non-blocking ``flock`` on a lock file
before it creates anything, and keeps it open while it runs:

- the kernel drops the lock when the process dies, however it dies (``kill -9`` included), so
  a stale lock file never blocks a restart;
- the file holds the holder's PID, only for the message the second process prints.

The lock file itself is never deleted: deleting it while another process waits to lock it
would let two processes hold "the" lock on two different files.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from types import TracebackType
from typing import Self

from controller.errors import CroupierError


class AlreadyRunningError(CroupierError):
    """Another live process holds the lock: what it guards is in use."""


class InstanceLock:
    """``with InstanceLock(path, "croupierd on /run/croupier"):`` holds the lock or raises
    :class:`AlreadyRunningError` (another process holds it) or :class:`CroupierError` (the
    lock file cannot be opened: a missing or read-only directory)."""

    def __init__(self, path: str | Path, what: str) -> None:
        self.path = Path(path)
        self.what = what
        self._fd: int | None = None

    def acquire(self) -> None:
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise CroupierError(
                f"cannot open the lock file {self.path}: {exc.strerror or exc}"
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
            os.close(fd)
            raise AlreadyRunningError(
                f"{self.what} is already running (PID {holder}, lock {self.path}); stop it"
                " first, or give this one another directory"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor drops the flock
            self._fd = None

    def __enter__(self) -> Self:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()
