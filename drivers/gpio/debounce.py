"""Debounce and chatter detection for one input, on an injected clock (pure, no I/O).

gpiozero's ``bounce_time`` is not applied by its mock pins and differs between backends, so the
driver debounces itself, in one place, testable on a fake clock:

- :class:`Debouncer` is a wait-for-stable filter: a new raw level becomes the debounced level
  once it has held for ``interval`` seconds; a bounce back before that cancels it. It reports
  its deadline so the event loop wakes exactly when a level may settle.
- :class:`EdgeCounter` counts raw edges in a sliding window: a sensor that produces more than
  the configured number of edges per window is chattering (a loose wire, a failing sensor, a
  player fidgeting with the chip); the seat is then excluded (see :mod:`drivers.gpio.core`).
"""

from __future__ import annotations

import math
from collections import deque


class Debouncer:
    """Edges may be fed late (their times are when they happened, and the loop may be busy):
    a level that had held for ``interval`` before the next edge arrived has settled, even if
    no poll came in between, so no change is ever lost to a late poll."""

    def __init__(self, level: bool, interval: float) -> None:
        self.level = level  # the debounced level, as last reported by poll()
        self.interval = interval
        self._raw = level
        self._stable = level  # the debounced level including changes not yet reported
        self._settles_at = math.inf
        self._settled: list[tuple[bool, float]] = []

    def edge(self, level: bool, now: float) -> None:
        """The raw input became ``level`` at ``now`` (repeated levels are ignored)."""
        if level == self._raw:
            return
        self._settle(now)
        self._raw = level
        self._settles_at = now + self.interval if level != self._stable else math.inf

    def poll(self, now: float) -> list[tuple[bool, float]]:
        """Every ``(new level, when it settled)`` by ``now``, oldest first, each reported once.
        The times are the settling instants, however late the poll comes."""
        self._settle(now)
        changes, self._settled = self._settled, []
        if changes:
            self.level = changes[-1][0]
        return changes

    def deadline(self) -> float | None:
        """When :meth:`poll` may next report a change (``None``: not before another edge)."""
        if self._settled:
            return self._settled[0][1]  # already due
        return None if self._settles_at == math.inf else self._settles_at

    def _settle(self, now: float) -> None:
        if now >= self._settles_at:
            self._settled.append((self._raw, self._settles_at))
            self._stable, self._settles_at = self._raw, math.inf


class EdgeCounter:
    """Raw edges in a sliding ``window``, counted up to ``cap`` (``None``: no cap). Chatter
    needs only to know that more than ``chatter_edges`` came, so the daemon caps the count
    there: a flooded input (a shorted sensor, the rig socket) kept every edge of the window
    in memory, 200,000 of them for 200,000 edges in 0.2 s."""

    def __init__(self, window: float, cap: int | None = None) -> None:
        self.window = window
        self._times: deque[float] = deque(maxlen=cap)

    def add(self, now: float) -> int:
        """Count an edge at ``now``; returns the edges within the window ending at ``now``
        (at most ``cap``)."""
        self._times.append(now)
        while self._times and self._times[0] <= now - self.window:
            self._times.popleft()
        return len(self._times)

    def reset(self) -> None:
        self._times.clear()
