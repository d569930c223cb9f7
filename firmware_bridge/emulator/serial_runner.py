"""Serve the reference firmware on a real serial port: a hardware-in-the-loop rig cabled to a
table controller's shuffler port (a USB-serial adapter and a null-modem cable).

The same loop as :class:`~firmware_bridge.emulator.pty_runner.PtyEmulator`, on a tty device
opened raw at the line's baud rate instead of a pseudo-terminal: the UART paces the bytes, so
the runner does not. ``disconnect(seconds)`` closes the port for that long: the controller
sees a silent line (software cannot unplug a real cable; its link times out instead).
"""

from __future__ import annotations

import os
import termios
import tty
from collections.abc import Callable

from firmware_bridge.emulator.firmware import DeviceFirmware
from firmware_bridge.emulator.pty_runner import PtyEmulator


def line_speed(baud: int) -> int:
    """The termios speed constant of ``baud``; ValueError for a rate the tty layer lacks."""
    speed: int | None = getattr(termios, f"B{baud}", None)
    if speed is None:
        raise ValueError(f"{baud} baud is not a standard serial rate")
    return speed


class SerialPortEmulator(PtyEmulator):
    def __init__(
        self,
        firmware: DeviceFirmware,
        port: str,
        *,
        baud: int = 115200,
        clock: Callable[[], float] | None = None,
    ) -> None:
        kwargs = {"clock": clock} if clock is not None else {}
        super().__init__(firmware, None, baud=None, **kwargs)  # the UART paces, not us
        self.port = port
        self.speed = line_speed(baud)

    def _open_pty(self) -> None:
        fd = os.open(self.port, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        try:
            tty.setraw(fd)
            attrs = termios.tcgetattr(fd)
            attrs[4] = attrs[5] = self.speed  # input and output speed
            termios.tcsetattr(fd, termios.TCSANOW, attrs)
        except termios.error:
            os.close(fd)
            raise
        self._master, self._slave, self.slave_path = fd, -1, self.port
        self._rx.clear()
        self._tx.clear()
