"""systemd notifications (sd_notify) without a library: READY=1, WATCHDOG=1, STATUS=...

``Type=notify`` services send datagrams to ``$NOTIFY_SOCKET`` (a path, or ``@name`` for the
abstract namespace). With ``WatchdogSec=`` set, systemd passes ``WATCHDOG_USEC``; the event loop
pings every quarter of it, so that a loop late by as much again (a slow CPU, a long commit)
still pings within half of ``WatchdogSec`` (bench/pi_budget.py measures the longest gap),
while a stuck loop stops pinging and systemd restarts the daemon.
Outside systemd (no ``NOTIFY_SOCKET``) every call is a no-op. One datagram socket serves every
notification (made at the first): a socket per notification cost two more system calls each,
several times a round on a Pi-class CPU (docs/daemon.md, "Fast on a slow CPU").
"""

from __future__ import annotations

import os
import socket
from contextlib import suppress


class Notifier:
    def __init__(self, environ: dict[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        address = env.get("NOTIFY_SOCKET", "")
        self.address = "\0" + address[1:] if address.startswith("@") else address
        usec = env.get("WATCHDOG_USEC", "")
        self.watchdog_interval = int(usec) / 4e6 if usec.isdigit() and int(usec) > 0 else None
        self._sock: socket.socket | None = None

    @property
    def enabled(self) -> bool:
        return bool(self.address)

    def notify(self, *fields: str) -> None:
        if not self.address:
            return
        if self._sock is None:
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        # OSError: systemd is gone (shutdown); nothing useful to do
        with suppress(OSError):
            self._sock.sendto("\n".join(fields).encode(), self.address)

    def ready(self, status: str = "") -> None:
        self.notify("READY=1", *([f"STATUS={status}"] if status else []))

    def status(self, status: str) -> None:
        self.notify(f"STATUS={status}")

    def watchdog(self) -> None:
        self.notify("WATCHDOG=1")

    def stopping(self) -> None:
        self.notify("STOPPING=1")

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
