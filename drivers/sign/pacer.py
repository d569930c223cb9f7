"""When the sign is drawn: on a change and on animation ticks, never above the frame rate.

:class:`SignPacer` is the pure decision, on an injected clock: given a ``render(now)`` that
returns ``(frame, next_change)`` (``display.scenes.SignRenderer`` through the controller) and a
``send(frame)`` that returns whether anything went to the device, :meth:`SignPacer.step` renders
and sends, and returns when it wants to be called again: the renderer's next change, but not
sooner than one frame interval after the last frame sent. ``None`` means "not until the state
changes": a still sign sleeps. :class:`drivers.sign.loop.SignLoop` runs it on asyncio (the
daemon), :meth:`SignPacer.play` blocking (the CLI, without importing asyncio).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, overload

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

    def play(
        self, until: float, clock: Callable[[], float], sleep: Callable[[float], None]
    ) -> None:
        """Step until ``clock`` reaches ``until`` (the frame due then is drawn), sleeping
        between steps: the blocking drive of ``croupier sign show``, where nothing changes the
        state meanwhile. The daemon's is :class:`drivers.sign.loop.SignLoop`."""
        while True:
            wake_at = self.step(clock())
            now = clock()
            if now >= until:
                return
            sleep(wait_for(wake_at, now, until))


@overload
def wait_for(wake_at: float | None, now: float, until: float) -> float: ...
@overload
def wait_for(wake_at: float | None, now: float, until: float | None) -> float | None: ...
def wait_for(wake_at: float | None, now: float, until: float | None) -> float | None:
    """Seconds from ``now`` to the next step: the pacer's ``wake_at``, but no later than
    ``until``; None: not until the state changes."""
    if until is not None:
        wake_at = until if wake_at is None else min(wake_at, until)
    return None if wake_at is None else max(0.0, wake_at - now)
