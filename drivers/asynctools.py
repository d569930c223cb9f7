"""Small asyncio helpers shared by the drivers' event loops."""

from __future__ import annotations

import asyncio


async def wait_for_event(event: asyncio.Event, timeout: float | None) -> bool:
    """Wait until ``event`` is set or ``timeout`` seconds pass (``None``: no limit); True if
    it was set.

    ``asyncio.wait_for`` is not used on purpose: on Python 3.11 it swallows a cancellation that
    arrives just as the awaited future completes, and a driver task would then never stop.
    ``asyncio.timeout`` propagates it.
    """
    try:
        async with asyncio.timeout(timeout):
            await event.wait()
            return True
    except TimeoutError:
        return False
