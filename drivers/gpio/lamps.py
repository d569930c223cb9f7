"""Lamp patterns on an injected clock (pure): steady on or off, and blinking.

A :class:`Pattern` is a loop of (lit, seconds) steps. A lamp's phase starts when its pattern is
set, so a stake accepted lights its lamp at once. :class:`LampBank` holds every lamp's pattern
and answers "which lamps are lit at ``now``" and "when does any lamp next change".

Patterns by meaning (:mod:`drivers.gpio.core` maps seat states to them):

==========  ===========================================  =================================
name        looks like                                   used for
==========  ===========================================  =================================
off         dark                                         seat awaiting a stake
on          steady                                       seat locked into the round
slow        1 Hz, half on                                stake accepted, bets still open
fast        4 Hz                                         seat excluded (sensor fault), red
winner      two quick flashes, pause                     winning seat, jackpot beacon
==========  ===========================================  =================================
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Pattern:
    name: str
    steps: tuple[tuple[bool, float], ...]

    @property
    def period(self) -> float:
        return sum(seconds for _, seconds in self.steps)

    def lit(self, elapsed: float) -> bool:
        return self._locate(elapsed)[0]

    def next_change(self, elapsed: float) -> float | None:
        """Seconds after the pattern started when the lamp next changes (``None``: steady)."""
        if len(self.steps) == 1:
            return None
        return self._locate(elapsed)[1]

    def _locate(self, elapsed: float) -> tuple[bool, float]:
        if len(self.steps) == 1:
            return self.steps[0][0], math.inf
        cycles = math.floor(max(elapsed, 0.0) / self.period + 1e-9)
        t = cycles * self.period
        for lit, seconds in self.steps:
            t += seconds
            if elapsed < t - 1e-9:
                return lit, t
        return self.steps[0][0], t + self.steps[0][1]


OFF = Pattern("off", ((False, math.inf),))
ON = Pattern("on", ((True, math.inf),))
SLOW = Pattern("slow", ((True, 0.5), (False, 0.5)))
FAST = Pattern("fast", ((True, 0.125), (False, 0.125)))
WINNER = Pattern("winner", ((True, 0.1), (False, 0.1), (True, 0.1), (False, 0.7)))
PATTERNS = {p.name: p for p in (OFF, ON, SLOW, FAST, WINNER)}


class LampBank:
    def __init__(self, names: list[str]) -> None:
        self._lamps: dict[str, tuple[Pattern, float]] = {name: (OFF, 0.0) for name in names}

    def set(self, name: str, pattern: Pattern, now: float) -> None:
        """Show ``pattern`` on lamp ``name``; setting the pattern it already shows keeps its
        phase (no flicker when a state is re-applied)."""
        if self._lamps[name][0] != pattern:
            self._lamps[name] = (pattern, now)

    def levels(self, now: float) -> dict[str, bool]:
        return {name: p.lit(now - since) for name, (p, since) in self._lamps.items()}

    def deadline(self, now: float) -> float | None:
        changes = [
            since + change
            for p, since in self._lamps.values()
            if (change := p.next_change(now - since)) is not None
        ]
        return min(changes, default=None)
