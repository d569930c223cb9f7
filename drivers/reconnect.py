"""Reconnect backoff policy: pure, time is an input.

After a failed attempt at ``now`` the next one is allowed at ``now + delay``; the delay starts
at ``initial``, grows by ``factor`` per failure up to ``ceiling``, and returns to ``initial``
after a success. The asyncio adapter sleeps until :attr:`next_attempt`; tests just call it.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Backoff:
    initial: float = 0.25
    factor: float = 2.0
    ceiling: float = 10.0
    next_attempt: float = 0.0
    failures: int = 0
    _delay: float = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not 0 < self.initial <= self.ceiling or self.factor < 1:
            raise ValueError("backoff needs 0 < initial <= ceiling and factor >= 1")
        self._delay = self.initial

    def failed(self, now: float) -> float:
        """Record a failed attempt; returns when the next attempt is allowed."""
        self.failures += 1
        self.next_attempt = now + self._delay
        self._delay = min(self._delay * self.factor, self.ceiling)
        return self.next_attempt

    def succeeded(self) -> None:
        self.failures = 0
        self._delay = self.initial
        self.next_attempt = 0.0
