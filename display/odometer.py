"""The roll-up of a meter on the sign, on an injected clock.

When contributions arrive the sign does not jump to the new amount: it counts up to it over
``roll_seconds`` (linearly, in whole minor units). Two promises, both tested as properties:

- the value shown is **never above the true meter**: it only ever moves from what is shown
  towards the latest meter value, and a meter that drops below what is shown (an award, a
  reset to seed, PRG-5) is shown at once;
- after ``roll_seconds`` without a new meter value the sign shows the meter exactly.

A new meter value during a roll starts a new roll from the value shown at that instant.
"""

from __future__ import annotations

import math


class Odometer:
    def __init__(self, amount: int, roll_seconds: float = 2.0) -> None:
        if roll_seconds < 0:
            raise ValueError("roll_seconds must be >= 0")
        self.roll_seconds = roll_seconds
        self._start_value = amount
        self._target = amount
        self._start = self._end = -math.inf

    def set(self, amount: int, now: float) -> None:
        """The meter is now ``amount``."""
        if amount == self._target:
            return
        shown = self.value(now)
        self._target = amount
        if amount <= shown or self.roll_seconds == 0:
            self._start_value, self._start = amount, -math.inf
        else:
            self._start_value, self._start = shown, now
        self._end = self._start + self.roll_seconds

    def value(self, now: float) -> int:
        """The amount to show at ``now``: between the roll's start and the meter."""
        if now >= self._end:
            return self._target
        span = self._target - self._start_value
        progress = max(now - self._start, 0.0) / self.roll_seconds
        return min(self._target, self._start_value + math.floor(span * progress))

    def next_tick(self, now: float, interval: float) -> float | None:
        """The next animation tick after ``now`` (ticks every ``interval`` from the roll's start,
        the last one at its end), or ``None`` when not rolling."""
        if now >= self._end:
            return None
        ticks = math.floor(max(now - self._start, 0.0) / interval + 1e-6) + 1
        return min(self._start + ticks * interval, self._end)
