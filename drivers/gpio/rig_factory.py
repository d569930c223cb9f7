"""The ``rig`` gpiozero pin factory: the daemon side of the hardware-in-the-loop rig link.

Select it with ``pin_factory = "rig"`` in ``[gpio]``, ``--pin-factory rig`` on the CLI, or
``GPIOZERO_PIN_FACTORY=rig`` (it is registered in the ``gpiozero_pin_factories`` entry-point
group, so any gpiozero program can use it unmodified). The socket path comes from the
argument, ``$CROUPIER_RIG_SOCKET`` or the default (:mod:`drivers.gpio.rig_protocol`, which also
explains who listens and why either side may start first).

A background thread (registered, stoppable, joined by :meth:`RigFactory.close`) keeps the
connection and applies the rig's levels. Edge callbacks (``when_changed``) are called from that
thread, as RPi.GPIO and lgpio call them from theirs: consumers must hand them to their event
loop thread-safely (:mod:`drivers.gpio.table` does).
"""

from __future__ import annotations

import os
import socket
import threading
from time import monotonic
from typing import Any

from gpiozero.exc import (
    PinFixedPull,
    PinInvalidFunction,
    PinInvalidPull,
    PinSetInput,
    PinSPIUnsupported,
)
from gpiozero.pins.pi import PiFactory, PiPin

from drivers.errors import RigError
from drivers.gpio import rig_protocol as proto

REVISION = 0xC03111  # the rig poses as a Raspberry Pi 4B (40-pin header, BCM 2..27)
RETRY_FIRST, RETRY_MAX = 0.05, 1.0


class RigPin(PiPin):
    """A pin whose input level is driven by the rig and whose output level is reported to it.
    ``bounce`` is stored but not applied (the table driver debounces, on its own clock)."""

    def __init__(self, factory: RigFactory, info: Any) -> None:
        super().__init__(factory, info)
        self._function = "input"
        self._pull = info.pull or "floating"
        self._output = 0
        self._bounce = None
        self._edges = "both"
        self._last_input = self._input_level()

    @property
    def pin_number(self) -> int:
        return self._number

    def snapshot(self) -> dict[str, Any]:
        return {"function": self._function, "pull": self._pull, "state": self._output}

    def close(self) -> None:
        self.when_changed = None
        self._function = "input"
        self.factory._send(proto.encode("close", pin=self._number))

    def output_with_state(self, state: Any) -> None:
        self._function = "output"
        self._output = int(bool(state))
        self._announce()

    def input_with_pull(self, pull: str) -> None:
        self._function = "input"
        self._set_pull(pull)

    def _input_level(self) -> int:
        return self.factory.driven_level(self._number, self._pull)

    def _announce(self) -> None:
        self.factory._send(proto.encode("setup", pin=self._number, **self.snapshot()))

    def _get_function(self) -> str:
        return self._function

    def _set_function(self, value: str) -> None:
        if value not in ("input", "output"):
            raise PinInvalidFunction(f"{self!r}: the rig supports input and output only")
        self._function = value
        self._last_input = self._input_level()
        self._announce()

    def _get_state(self) -> int:
        return self._output if self._function == "output" else self._input_level()

    def _set_state(self, value: Any) -> None:
        if self._function == "input":
            raise PinSetInput(f"cannot set the state of input pin {self!r}")
        state = int(bool(value))
        if state != self._output:
            self._output = state
            self.factory._send(proto.encode("output", pin=self._number, state=state))

    def _get_pull(self) -> str:
        return self._pull

    def _set_pull(self, value: str) -> None:
        if self._function != "input":
            raise PinFixedPull(f"cannot set the pull of non-input pin {self!r}")
        if self.info.pull and value != self.info.pull:
            raise PinFixedPull(f"{self!r} has a fixed pull resistor")
        if value not in ("floating", "up", "down"):
            raise PinInvalidPull("pull must be floating, up, or down")
        self._pull = value
        self._announce()
        self.input_changed(self.factory.ticks())

    def _get_bounce(self) -> float | None:
        return self._bounce

    def _set_bounce(self, value: float | None) -> None:
        self._bounce = None if value is None else float(value)

    def _get_edges(self) -> str:
        return self._edges

    def _set_edges(self, value: str) -> None:
        self._edges = value

    def _enable_event_detect(self) -> None:
        self._last_input = self._input_level()

    def _disable_event_detect(self) -> None:
        pass

    def input_changed(self, ticks: float) -> None:
        """Called by the factory when the rig's levels changed: fire ``when_changed`` on an edge
        this pin watches."""
        if self._function != "input":
            return
        level = self._input_level()
        if level == self._last_input:
            return
        self._last_input = level
        wanted = self._edges == "both" or (self._edges == "rising") == bool(level)
        if wanted and self._when_changed is not None:
            self._call_when_changed(ticks, level)


class RigFactory(PiFactory):
    """Pins whose levels live in the rig process (see the module docstring)."""

    def __init__(self, socket_path: str | None = None) -> None:
        super().__init__()
        self.pin_class = RigPin
        self.socket_path = socket_path or proto.default_socket_path()
        self._lock = (
            threading.RLock()
        )  # pins are created on the caller's thread, read on the link's
        self._driven: dict[int, int] = {}
        self._link: proto.LineLink | None = None
        self._connected = threading.Event()
        self._stop = threading.Event()
        self.last_error: str | None = None
        self._thread = threading.Thread(target=self._run, name="croupier-rig-link", daemon=True)
        self._thread.start()

    # -- gpiozero Factory API --------------------------------------------------------------

    def _get_revision(self) -> int:
        return REVISION

    def _get_spi_class(self, shared: bool, hardware: bool) -> Any:
        raise PinSPIUnsupported("the rig pin factory has no SPI (the sign uses spidev directly)")

    @staticmethod
    def ticks() -> float:
        return monotonic()

    @staticmethod
    def ticks_diff(later: float, earlier: float) -> float:
        return later - earlier

    def pin(self, name: Any) -> RigPin:
        with self._lock:
            return super().pin(name)

    def close(self) -> None:
        super().close()  # closes every pin (tells the rig)
        self._stop.set()
        with self._lock:
            link = self._link
        if link is not None:
            link.close()
        if self._thread is not threading.current_thread():
            self._thread.join()

    # -- rig link ---------------------------------------------------------------------------

    @property
    def is_connected(self) -> bool:
        return self._connected.is_set()

    def wait_for_rig(self, timeout: float) -> bool:
        """Block until the rig link is up (or ``timeout`` seconds); True if it is."""
        return self._connected.wait(timeout)

    def driven_level(self, pin: int, pull: str) -> int:
        """The level the daemon reads on input ``pin``: the rig's, else the pull's."""
        with self._lock:
            return self._driven.get(pin, proto.pull_level(pull))

    def _send(self, data: bytes) -> None:
        with self._lock:
            link = self._link
        if link is not None:
            link.send(data)

    def _run(self) -> None:
        delay = RETRY_FIRST
        while not self._stop.is_set():
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.connect(self.socket_path)
            except OSError as exc:
                sock.close()
                self.last_error = (
                    f"cannot reach the rig at {self.socket_path}: {exc.strerror or exc}"
                )
                self._stop.wait(delay)
                delay = min(delay * 2, RETRY_MAX)
                continue
            delay = RETRY_FIRST
            self._serve(proto.LineLink(sock))

    def _serve(self, link: proto.LineLink) -> None:
        with self._lock:
            self._link = link
            pins = {str(p.pin_number): p.snapshot() for p in self.pins.values()}
        link.send(proto.encode("hello", pid=os.getpid(), pins=pins))
        try:
            for message in link.messages(self._stop):
                self._apply(message)
        except RigError as exc:
            self.last_error = str(exc)
        finally:
            with self._lock:
                self._link = None
                self._driven.clear()  # cable unplugged: inputs float back to their pulls
            self._connected.clear()
            link.close()
            self._notify_inputs()

    def _apply(self, message: dict[str, Any]) -> None:
        op = message["op"]
        with self._lock:
            if op == "levels":
                self._driven = {
                    int(pin): int(bool(level)) for pin, level in message["levels"].items()
                }
            elif op == "drive":
                self._driven[message["pin"]] = message["level"]
            elif op == "release":
                self._driven.pop(message["pin"], None)
            else:
                raise RigError(f"rig link: the rig sent {op!r}, which only a daemon sends")
        if op == "levels":
            self._connected.set()
        self._notify_inputs(message.get("t"))

    def _notify_inputs(self, ticks: float | None = None) -> None:
        """Fire the watched edges, timed at ``ticks`` (when the rig changed the level), else
        now; never later than now."""
        ticks = self.ticks() if ticks is None else min(ticks, self.ticks())
        with self._lock:
            pins = list(self.pins.values())
        for pin in pins:  # callbacks run without the lock: they may set outputs
            pin.input_changed(ticks)
