"""SIGTERM and SIGHUP stop a command the way Ctrl-C does: every ``croupier`` command (the rig's
among them), and croupierd and croupier-web (:data:`STOP_SIGNALS`), so it lives in the shared
base of ``controller/``, below the rooms that use it.

Python's default for SIGTERM and SIGHUP ends the process at once, skipping every ``finally``:
``make demo`` or ``croupier rig run`` stopped by ``timeout``, ``systemctl stop`` or a dropped
SSH session then left its ``croupierd`` (started in a session of its own) and that daemon's
shuffler emulator running, and the next start failed on the ledger lock.

:class:`StopOnSignals` turns both into :class:`StopSignal`, a :class:`KeyboardInterrupt`, so
the paths that already clean up after Ctrl-C (stop the daemon, restore the terminal, remove the
runtime directory) run for them too. A second signal while cleaning up raises again, as a
second Ctrl-C does, and the cleanup paths kill instead of waiting.
"""

from __future__ import annotations

import _signal  # the C module: ``signal`` builds enums of every signal at import (every command)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import FrameType
    from typing import Any

# the signals handled, with the names a shell shows
HANDLED = {_signal.SIGTERM: "SIGTERM", _signal.SIGHUP: "SIGHUP"}
# every stop signal with its name, for a message saying why a process stopped
NAMES = {**HANDLED, _signal.SIGINT: "SIGINT"}
# what stops a croupier service's event loop cleanly (croupierd, croupier-web): systemd's
# SIGTERM, Ctrl-C, and the SIGHUP of a terminal or SSH session that closes (neither service
# reloads anything on SIGHUP)
STOP_SIGNALS = (_signal.SIGTERM, _signal.SIGHUP, _signal.SIGINT)


class StopSignal(KeyboardInterrupt):
    """The process was asked to stop by ``signum`` (SIGTERM or SIGHUP)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal_name(signum))
        self.signum = signum

    @property
    def exit_status(self) -> int:
        """What a shell reports for a process ended by the signal: 128 + its number."""
        return 128 + self.signum


def signal_name(signum: int) -> str:
    """``SIGTERM``, as a shell names the signal; ``signal N`` for one not handled here."""
    return NAMES.get(signum, f"signal {signum}")


def _raise(signum: int, frame: FrameType | None) -> None:
    raise StopSignal(signum)


def exit_status(exc: KeyboardInterrupt) -> int:
    """130 for Ctrl-C (SIGINT), 128 + N for a :class:`StopSignal`."""
    return exc.exit_status if isinstance(exc, StopSignal) else 128 + _signal.SIGINT


class StopOnSignals:
    """Within the block, SIGTERM and SIGHUP raise :class:`StopSignal` in the main thread;
    the previous handlers come back afterwards."""

    def __init__(self) -> None:
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> None:
        self._previous = {sig: _signal.signal(sig, _raise) for sig in HANDLED}

    def __exit__(self, *exc: object) -> None:
        for sig, handler in self._previous.items():
            _signal.signal(sig, handler)
