"""The sign pipeline: ``[sign]`` configuration -> renderer (display) -> pacer -> device (drivers).

:class:`Sign` is what the daemon and the CLI hold: :meth:`Sign.update` takes a new
:class:`~display.scenes.SignState`, :meth:`Sign.run` draws on the event loop until cancelled (or
a deadline: the daemon), :meth:`Sign.play` blocking until a deadline (the CLI). The renderer
decides what each frame is and when the next one is due; the pacer sends changed
frames only, at most ``frame_rate`` per second; the device skips what the sign already shows.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from display.geometry import MATRIX, Geometry, Matrix, SevenSegment, SignFrame
from display.scenes import SignRenderer, SignState, Timing
from drivers.sign.config import SignConfig
from drivers.sign.device import SignDevice
from drivers.sign.pacer import SignPacer

if TYPE_CHECKING:
    from drivers.sign.loop import SignLoop


def geometry_for(config: SignConfig) -> Geometry:
    if config.kind == "seven-segment":
        return SevenSegment(config.width)
    return Matrix(config.width)


def renderer_for(config: SignConfig) -> SignRenderer:
    timing = Timing(
        frame_rate=config.frame_rate,
        roll_seconds=config.roll_seconds,
        pool_seconds=config.pool_seconds,
    )
    return SignRenderer(geometry_for(config), timing)


def send_frame(device: SignDevice, frame: SignFrame) -> bool:
    """Put a display frame on a driver device (image or text, brightness override)."""
    if frame.kind == MATRIX:
        return device.show(image=frame.image(), level=frame.level)
    return device.show(text=frame.text, level=frame.level)


class Sign:
    def __init__(
        self, config: SignConfig, device: SignDevice, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.config = config
        self.device = device
        self.clock = clock
        self.renderer = renderer_for(config)
        self.overflow = False  # the last frame had an amount too long for the sign
        self._last: SignFrame | None = None
        self.pacer = SignPacer(self._render, self._send, config.frame_rate)
        self._loop: SignLoop | None = None  # made by the first run(): asyncio is the daemon's

    def update(self, state: SignState) -> None:
        """Show ``state`` from now on (raises ``display`` errors for a state the sign cannot
        draw; the previous state then stays)."""
        self.renderer.update(state, self.clock())
        if self._loop is not None:
            self._loop.changed()

    async def run(self, until: float | None = None) -> None:
        """Draw on the event loop until cancelled, or until the clock reaches ``until``."""
        from drivers.sign.loop import SignLoop  # with asyncio, which play() does without

        if self._loop is None:
            self._loop = SignLoop(self.pacer, self.clock)
        await self._loop.run(until)

    def play(self, until: float, sleep: Callable[[float], None] = time.sleep) -> None:
        """Draw until the clock reaches ``until``, blocking: ``croupier sign show``."""
        self.pacer.play(until, self.clock, sleep)

    def _render(self, now: float) -> tuple[SignFrame, float | None]:
        rendered = self.renderer.render(now)
        self.overflow = rendered.overflow
        return rendered.frame, rendered.next_change

    def _send(self, frame: SignFrame) -> bool:
        if frame == self._last:  # cheap check before building an image
            return False
        self._last = frame
        return send_frame(self.device, frame)
