"""When the sign is drawn: on a change and on animation ticks, never above the frame rate.

:class:`SignPacer` is the pure decision, on an injected clock: given a ``render(now)`` that
returns ``(frame, next_change)`` (``display.scenes.SignRenderer`` through the controller) and a
``send(frame)`` that returns whether anything went to the device, :meth:`SignPacer.step` renders
and sends, and returns when it wants to be called again: the renderer's next change, but not
sooner than one frame interval after the last frame sent. ``None`` means "not until the state
changes": a still sign sleeps. :class:`SignLoop` runs it on asyncio.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from typing import Any

from drivers.asynctools import wait_for_event

Render = Callable[[float], tuple[Any, float | None]]


class SignPacer:
    def __init__(self, render: Render, send: Callable[[Any], bool], frame_rate: float) -> None:
        self.render = render
        self.send = send
        self.interval = 1.0 / frame_rate
        self.renders = 0  # frames computed
        self.sends = 0  # frames that changed the sign
        self._last_sent = -math.inf

    def step(self, now: float) -> float | None:
        """Render and send if allowed at ``now``; returns the time of the next step."""
        earliest = self._last_sent + self.interval
        if now < earliest:
            return earliest
        frame, next_change = self.render(now)
        self.renders += 1
        if self.send(frame):
            self.sends += 1
            self._last_sent = now
        if next_change is None:
            return None
        return max(next_change, self._last_sent + self.interval)


class SignLoop:
    """Runs a :class:`SignPacer` until cancelled; :meth:`changed` wakes it after a state
    update (call it on the loop thread)."""

    def __init__(self, pacer: SignPacer, clock: Callable[[], float] = time.monotonic) -> None:
        self.pacer = pacer
        self.clock = clock
        self.wakeups = 0
        self._wake = asyncio.Event()

    def changed(self) -> None:
        self._wake.set()

    async def run(self, until: float | None = None) -> None:
        """Draw until cancelled, or until the clock reaches ``until`` (the frame due then is
        drawn before returning)."""
        while True:
            self._wake.clear()
            self.wakeups += 1
            wake_at = self.pacer.step(self.clock())
            if until is not None:
                if self.clock() >= until:
                    return
                wake_at = until if wake_at is None else min(wake_at, until)
            timeout = None if wake_at is None else max(0.0, wake_at - self.clock())
            await wait_for_event(self._wake, timeout)
