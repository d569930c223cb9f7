"""The sign's pacer (:mod:`drivers.sign.pacer`) on asyncio: :class:`SignLoop` sleeps until
the pacer's next step or a state change, whichever comes first."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from drivers.asynctools import wait_for_event
from drivers.sign.pacer import SignPacer, wait_for


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
            now = self.clock()
            if until is not None and now >= until:
                return
            await wait_for_event(self._wake, wait_for(wake_at, now, until))
