"""One live process per runtime directory or shuffler link: an ``flock`` on a lock file.

A second ``croupierd`` on the same runtime directory, or a second emulator on the same link,
would silently take over the control socket or the pty and delete them when it exits, leaving
the first one unreachable. Each takes an exclusive, non-blocking ``flock`` on a lock file
before it creates anything, and keeps it open while it runs:

- the kernel drops the lock when the process dies, however it dies (``kill -9`` included), so
  a stale lock file never blocks a restart;
- the file holds the holder's PID, only for the message the second process prints.

A clean stop removes the lock file, while still holding the lock (controller.pidlock says why
that is safe); a ``kill -9`` leaves it, harmless.
"""

from __future__ import annotations

from pathlib import Path
from types import TracebackType
from typing import Self

from controller.errors import CroupierError
from controller.pidlock import LockHeld, release_lock, take_lock


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
            self._fd = take_lock(self.path, 0o644)
        except LockHeld as held:
            raise AlreadyRunningError(
                f"{self.what} is already running (PID {held.holder}, lock {self.path}); stop"
                " it first, or give this one another directory"
            ) from None
        except OSError as exc:
            raise CroupierError(
                f"cannot open the lock file {self.path}: {exc.strerror or exc}"
            ) from None

    def release(self) -> None:
        if self._fd is not None:
            release_lock(self.path, self._fd)  # the file removed, then the flock dropped
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
