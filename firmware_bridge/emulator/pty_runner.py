"""Serve the reference firmware on a pseudo-terminal, so anything opens it like a real port.

The pty's slave is reachable through a stable symlink (``--link PATH``). One thread runs a
``select`` loop (microsecond timeouts, unlike epoll's milliseconds) that feeds the firmware
and wakes it at its deadlines.

**Pacing.** A pty moves bytes at memory speed whatever the baud rate (NOTES.md), so with
``baud`` set the runner imitates the wire: received bytes reach the firmware only when their
last bit would have arrived (10 bits per byte, 8N1), and sent bytes are written in small
chunks, each when its last bit would have left. The host then sees real wire timing.

**Disconnect.** ``disconnect(seconds)`` closes the pty (the host's next read fails exactly as
when a USB-serial adapter is unplugged), keeps the device running, and after ``seconds``
opens a new pty and moves the symlink to it: the host's reconnect logic finds it again.

Thread safety: the firmware is touched only under ``self.lock``; other threads (the control
channel) use :meth:`call`, which runs a function under the lock and wakes the loop.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import select
import threading
import time
import tty
from collections import deque
from collections.abc import Callable
from typing import TypeVar

from firmware_bridge.emulator.firmware import DeviceFirmware

log = logging.getLogger(__name__)
T = TypeVar("T")

BITS_PER_BYTE = 10  # 8N1: start + 8 data + stop
TX_CHUNK = 16  # bytes written at once when pacing (1.4 ms at 115200 baud)


class PtyEmulator:
    def __init__(
        self,
        firmware: DeviceFirmware,
        link: str | None = None,
        *,
        baud: int | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.firmware = firmware
        self.link = link
        self.byte_time = BITS_PER_BYTE / baud if baud else 0.0
        self.clock = clock
        self.lock = threading.RLock()
        self.slave_path = ""
        self._master = -1
        self._slave = -1
        self._wake_r, self._wake_w = os.pipe()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._reconnect_at: float | None = None
        self._pull_cable_for: float | None = None
        self._rx: deque[tuple[float, bytes]] = deque()
        self._tx: deque[tuple[float, bytes]] = deque()
        self._rx_free = self._tx_free = 0.0

    # --- lifecycle --------------------------------------------------------------------------

    def start(self) -> PtyEmulator:
        self._open_pty()
        self._thread = threading.Thread(target=self.serve, name="pty-emulator", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self.wake()
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None
        self._close_pty()
        if self.link and self._is_our_link():
            os.unlink(self.link)
        for fd in (self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)

    def __enter__(self) -> PtyEmulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def call(self, fn: Callable[[DeviceFirmware, float], T]) -> T:
        """Run ``fn(firmware, now)`` under the lock and let the loop send what it produced."""
        with self.lock:
            result = fn(self.firmware, self.clock())
        self.wake()
        return result

    def wake(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"!")

    def disconnect(self, seconds: float) -> None:
        """Pull the cable for ``seconds`` (the device keeps running)."""
        with self.lock:
            self._pull_cable_for = seconds  # done by the loop thread, which owns the fds
        self.wake()

    # --- pty --------------------------------------------------------------------------------

    def _open_pty(self) -> None:
        self._master, self._slave = os.openpty()
        # Raw on both ends: no echo of our output back to us, no line discipline. We keep the
        # slave open so the master does not see EOF while no host has the port open.
        tty.setraw(self._master)
        tty.setraw(self._slave)
        os.set_blocking(self._master, False)
        self.slave_path = os.ttyname(self._slave)
        if self.link:
            if os.path.lexists(self.link) and not os.path.islink(self.link):
                raise FileExistsError(  # a file named by mistake is never replaced
                    errno.EEXIST, "exists and is not a symlink: not replaced", self.link
                )
            tmp = f"{self.link}.{os.getpid()}.tmp"
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            os.symlink(self.slave_path, tmp)
            os.replace(tmp, self.link)  # atomic: a host never sees a missing link mid-move
        self._rx.clear()
        self._tx.clear()
        log.info("emulator on %s%s", self.slave_path, f" (link {self.link})" if self.link else "")

    def _is_our_link(self) -> bool:
        """The link still points at this emulator's pty (not replaced by another's)."""
        try:
            return bool(self.slave_path) and os.readlink(self.link or "") == self.slave_path
        except OSError:
            return False

    def _close_pty(self) -> None:
        for fd in (self._master, self._slave):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._master = self._slave = -1

    # --- loop -------------------------------------------------------------------------------

    def serve(self) -> None:
        """The loop; runs until :meth:`stop` (from another thread or a signal handler)."""
        while not self._stop.is_set():
            now = self.clock()
            with self.lock:
                if self._pull_cable_for is not None:
                    self._close_pty()
                    self._reconnect_at = now + self._pull_cable_for
                    self._pull_cable_for = None
                if self._reconnect_at is not None and now >= self._reconnect_at:
                    self._reconnect_at = None
                    self._open_pty()
                while self._rx and self._rx[0][0] <= now:
                    self.firmware.receive_data(self._rx.popleft()[1], now)
                self.firmware.poll(now)
                self._schedule_tx(self.firmware.data_to_send(), now)
                self._write_due(now)
                times = [self.firmware.next_deadline(), self._reconnect_at]
                times += [q[0][0] for q in (self._rx, self._tx) if q]
                master = self._master
            deadline = min((t for t in times if t is not None), default=now + 0.5)
            fds = [self._wake_r] + ([master] if master >= 0 else [])
            readable, _, _ = select.select(fds, [], [], max(0.0, deadline - self.clock()))
            if self._wake_r in readable:
                os.read(self._wake_r, 4096)
            if master in readable:
                self._read(master)

    def _read(self, master: int) -> None:
        try:
            data = os.read(master, 4096)
        except BlockingIOError:
            return
        except OSError as exc:
            if exc.errno != errno.EIO:
                raise
            return
        now = self.clock()
        with self.lock:
            if self.byte_time:
                self._rx_free = max(now, self._rx_free) + len(data) * self.byte_time
                self._rx.append((self._rx_free, data))
            else:
                self.firmware.receive_data(data, now)

    def _schedule_tx(self, data: bytes, now: float) -> None:
        if not data or self._master < 0:
            return  # cable pulled: what the device sends is lost
        if not self.byte_time:
            self._tx.append((now, data))
            return
        for i in range(0, len(data), TX_CHUNK):
            chunk = data[i : i + TX_CHUNK]
            self._tx_free = max(now, self._tx_free) + len(chunk) * self.byte_time
            self._tx.append((self._tx_free, chunk))

    def _write_due(self, now: float) -> None:
        while self._tx and self._tx[0][0] <= now:
            data = self._tx.popleft()[1]
            try:
                os.write(self._master, data)
            except BlockingIOError:
                log.warning("pty output full: %d bytes lost", len(data))  # the host stopped reading
            except OSError as exc:
                log.warning("pty write failed: %s", exc)
