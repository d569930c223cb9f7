"""How often the host may log what the device did wrong: pure, time is an input.

A device (or a cable) can send bad bytes as fast as the line runs: at 115200 baud about
11,000 a second, on a pseudo-terminal or USB far more. Before this budget every run of
discarded bytes was a log line and every undecodable frame or card out of order dumped the
64-frame ring, so a babbling device wrote a line per byte it sent (100 KB of ``A5 FF`` made
100,000 lines) and a stream of well-framed nonsense 64 lines per frame: the journal and the
SD card pay, and so does the event loop.

:class:`LogBudget` keeps, per *kind* of complaint (``garbage``, ``undecodable``, ``dump``...),
one window of ``interval`` seconds: the first complaint of a quiet period is logged at once
(the technician sees the first one as it happened), later ones in the window are only
counted, and :meth:`LogBudget.due` hands out a one-line summary for each window that ended
with complaints left unlogged. Nothing is lost from the counters (``HostSession.stats``);
only the log lines are bounded, to two per kind per window.

The budget has no clock and no timer: its owner passes ``now`` and calls :meth:`~LogBudget.due`
where it already wakes up (a session's ``poll``), or arms a timer for
:meth:`~LogBudget.next_due` so a summary is written even when the complaints stop. Its owners: the
shuffler link (:mod:`firmware_bridge.session`, woken by its heartbeat), the shuffler client's
dropped events (:mod:`drivers.shuffler_client`, on the timer it keeps for its session), the
control socket's failed accepts (:mod:`controller.table.control.server`) and croupier-web's
refusals (:mod:`controller.web.limits`), the last two through one timer helper
(:mod:`controller.table.log_summaries`); one mechanism, so the log reads the same wherever
something floods.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Final, Generic, TypeVar

KindT = TypeVar("KindT", bound=Hashable)  # what a complaint is counted by (an enum, a name)
LOG_INTERVAL: Final = 10.0  # seconds: at most one line (and one summary) per kind per window


@dataclass
class _Window:
    started: float
    suppressed: int = 0


@dataclass(frozen=True)
class Suppressed(Generic[KindT]):
    """The complaints of ``kind`` counted but not logged in the window that began at
    ``since``."""

    kind: KindT
    count: int
    since: float


class LogBudget(Generic[KindT]):
    def __init__(self, interval: float = LOG_INTERVAL) -> None:
        if not interval > 0:
            raise ValueError("a log budget needs an interval above zero")
        self.interval = interval
        self._windows: dict[KindT, _Window] = {}

    def allow(self, kind: KindT, now: float, count: int = 1) -> bool:
        """A complaint of ``kind`` at ``now``: True when it may be logged, False when it is
        counted for the summary instead. ``count``: how many things the complaint stands for
        (one report of several dropped events), added to the summary's count when it is not
        logged. Call :meth:`due` first so that an ended window's summary comes before the
        next line."""
        window = self._windows.get(kind)
        if window is None or now >= window.started + self.interval:
            self._windows[kind] = _Window(now)
            return True
        window.suppressed += count
        return False

    def next_due(self) -> float | None:
        """When :meth:`due` will next have a summary to hand out (the earliest end of a
        window holding unlogged complaints), or None while there is none: for an owner that
        does not wake up regularly by itself to arm a timer."""
        ends = [w.started + self.interval for w in self._windows.values() if w.suppressed]
        return min(ends, default=None)

    def due(self, now: float) -> list[Suppressed[KindT]]:
        """The summaries of the windows that ended by ``now`` with complaints not logged;
        those windows are closed (the next complaint opens a new one and is logged)."""
        out: list[Suppressed[KindT]] = []
        for kind, window in list(self._windows.items()):
            if now >= window.started + self.interval:
                del self._windows[kind]
                if window.suppressed:
                    out.append(Suppressed(kind, window.suppressed, window.started))
        return out
