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
    def __init__(self, level: bool, interval: float) -> None:
        self.level = level  # the debounced level
        self.interval = interval
        self._raw = level
        self._settles_at = math.inf

    def edge(self, level: bool, now: float) -> None:
        """The raw input is now ``level`` (repeated levels are ignored)."""
        if level == self._raw:
            return
        self._raw = level
        self._settles_at = now + self.interval if level != self.level else math.inf

    def poll(self, now: float) -> tuple[bool, float] | None:
        """``(new level, when it settled)`` if the debounced level changed by ``now``, else
        ``None``. The time is the settling instant, however late the poll comes."""
        if now >= self._settles_at:
            settled, self._settles_at = self._settles_at, math.inf
            self.level = self._raw
            return self.level, settled
        return None

    def deadline(self) -> float | None:
        """When :meth:`poll` may next report a change (``None``: not before another edge)."""
        return None if self._settles_at == math.inf else self._settles_at


class EdgeCounter:
    def __init__(self, window: float) -> None:
        self.window = window
        self._times: deque[float] = deque()

    def add(self, now: float) -> int:
        """Count an edge at ``now``; returns the edges within the window ending at ``now``."""
        self._times.append(now)
        while self._times and self._times[0] <= now - self.window:
            self._times.popleft()
        return len(self._times)

    def reset(self) -> None:
        self._times.clear()
