"""SIGTERM and SIGHUP stop a rig command the way Ctrl-C does.

Python's default for SIGTERM and SIGHUP ends the process at once, skipping every ``finally``:
``make demo`` or ``croupier rig run`` stopped by ``timeout``, ``systemctl stop`` or a dropped
SSH session then left its ``croupierd`` (started in a session of its own) and that daemon's
shuffler emulator running, and the next start failed on the ledger lock.

:func:`stop_on_signals` turns both into :class:`StopSignal`, a :class:`KeyboardInterrupt`, so
the paths that already clean up after Ctrl-C (stop the daemon, restore the terminal, remove the
runtime directory) run for them too. A second signal while cleaning up raises again, as a
second Ctrl-C does, and the cleanup paths kill instead of waiting.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from types import FrameType

HANDLED = (signal.SIGTERM, signal.SIGHUP)


class StopSignal(KeyboardInterrupt):
    """The process was asked to stop by ``signum`` (SIGTERM or SIGHUP)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def exit_status(self) -> int:
        """What a shell reports for a process ended by the signal: 128 + its number."""
        return 128 + self.signum


def _raise(signum: int, frame: FrameType | None) -> None:
    raise StopSignal(signum)


def exit_status(exc: KeyboardInterrupt) -> int:
    """130 for Ctrl-C (SIGINT), 128 + N for a :class:`StopSignal`."""
    return exc.exit_status if isinstance(exc, StopSignal) else 128 + signal.SIGINT


@contextlib.contextmanager
def stop_on_signals() -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP raise :class:`StopSignal` in the main thread;
    the previous handlers come back afterwards."""
    previous = {sig: signal.signal(sig, _raise) for sig in HANDLED}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
