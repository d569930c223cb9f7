"""The rig side of the hardware-in-the-loop link: it owns the pin levels.

:class:`RigServer` listens on the rig socket (see :mod:`drivers.gpio.rig_protocol` for why the
rig listens), serves one daemon at a time, drives the daemon's inputs and records its outputs.
:class:`RigTable` speaks in table terms on top of it (place a stake on seat 3, press LOCK, is
the red lamp lit?), using the table's ``[gpio]`` configuration for pins and active levels, so
rig scenarios read like the table procedure::

    with RigServer(path) as rig:
        table = RigTable(rig, gpio_config)
        rig.wait_for_daemon(timeout=10)
        table.place_stake(3)
        table.wait_for_lamp("seat3", lit=True, timeout=2)
        table.press("lock")

The blocking API is thread-based on purpose: a rig script needs no event loop. Every wait has a
timeout and raises :class:`~drivers.errors.RigError` saying what it waited for.
"""

from __future__ import annotations

import contextlib
import os
import socket
import stat
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from time import monotonic
from typing import Any

from drivers.errors import RigError
from drivers.gpio import rig_protocol as proto
from drivers.gpio.pinmap import GpioConfig


@dataclass(frozen=True)
class DaemonPin:
    """A pin as the connected daemon configured it."""

    function: str
    pull: str
    state: int


class RigServer:
    def __init__(self, socket_path: str | None = None) -> None:
        self.socket_path = socket_path or proto.default_socket_path()
        self.errors: list[str] = []  # protocol errors of daemons (each dropped its connection)
        self._cond = threading.Condition()
        self._pins: dict[int, DaemonPin] = {}
        self._driven: dict[int, int] = {}
        self._history: list[tuple[float, int, int]] = []
        self._link: proto.LineLink | None = None
        self._daemon_pid: int | None = None
        self._stop = threading.Event()
        self._listener = self._listen()
        self._thread = threading.Thread(target=self._run, name="croupier-rig-server", daemon=True)
        self._thread.start()

    def __enter__(self) -> RigServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._stop.set()
        with self._cond:
            link = self._link
        if link is not None:
            link.close()
        self._thread.join()
        self._listener.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.socket_path)

    # -- driving inputs ---------------------------------------------------------------------

    def drive(self, pin: int, level: int) -> None:
        """Hold the daemon's input ``pin`` at ``level`` (kept across daemon reconnections)."""
        level = int(bool(level))
        with self._cond:
            self._driven[pin] = level
            self._send(proto.encode("drive", pin=pin, level=level, t=monotonic()))

    def release(self, pin: int) -> None:
        """Stop driving ``pin``: the daemon reads its pull level again."""
        with self._cond:
            self._driven.pop(pin, None)
            self._send(proto.encode("release", pin=pin, t=monotonic()))

    # -- reading the daemon -----------------------------------------------------------------

    @property
    def daemon_pid(self) -> int | None:
        """The connected daemon's process id (``None``: no daemon)."""
        with self._cond:
            return self._daemon_pid

    def pin(self, pin: int) -> DaemonPin | None:
        """How the daemon configured ``pin`` (``None``: not in use)."""
        with self._cond:
            return self._pins.get(pin)

    def output(self, pin: int) -> int | None:
        """The daemon's output level on ``pin`` (``None``: not an output of the daemon)."""
        with self._cond:
            p = self._pins.get(pin)
            return p.state if p is not None and p.function == "output" else None

    def history(self, pin: int) -> list[tuple[float, int]]:
        """Every output change of ``pin`` as (rig monotonic time, level)."""
        with self._cond:
            return [(t, state) for t, p, state in self._history if p == pin]

    def wait_for(self, predicate: Callable[[], bool], timeout: float, what: str) -> None:
        """Block until ``predicate()`` (called under the rig's lock) holds."""
        with self._cond:
            if not self._cond.wait_for(predicate, timeout):
                raise RigError(f"rig: timed out after {timeout:g} s waiting for {what}")

    def wait_for_daemon(self, timeout: float) -> int:
        """Block until a daemon is connected; returns its pid."""
        self.wait_for(lambda: self._daemon_pid is not None, timeout, "a daemon to connect")
        return self._daemon_pid  # type: ignore[return-value]

    def wait_for_output(self, pin: int, level: int, timeout: float) -> None:
        def reached() -> bool:
            p = self._pins.get(pin)
            return p is not None and p.function == "output" and p.state == level

        self.wait_for(reached, timeout, f"output pin {pin} to be {level}")

    # -- internals --------------------------------------------------------------------------

    def _listen(self) -> socket.socket:
        path = Path(self.socket_path)
        if path.exists() and stat.S_ISSOCK(path.stat().st_mode):
            if _served(self.socket_path):  # binding would take a running rig's socket over
                raise RigError(f"rig: {self.socket_path}: another rig serves it; not taken over")
            path.unlink()  # a stale socket of a rig that died
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            listener.bind(self.socket_path)
        except OSError as exc:
            listener.close()
            raise RigError(
                f"rig: cannot listen on {self.socket_path}: {exc.strerror or exc}"
            ) from exc
        listener.listen(1)
        listener.settimeout(proto.POLL_SECONDS)
        return listener

    def _send(self, data: bytes) -> None:
        if self._link is not None:
            self._link.send(data)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                sock, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self._serve(proto.LineLink(sock))

    def _serve(self, link: proto.LineLink) -> None:
        try:
            for message in link.messages(self._stop):
                self._apply(link, message)
        except RigError as exc:
            self.errors.append(str(exc))
        finally:
            link.close()
            with self._cond:
                if self._link is link:
                    self._link = None
                    self._daemon_pid = None
                    self._pins.clear()
                self._cond.notify_all()

    def _apply(self, link: proto.LineLink, message: dict[str, Any]) -> None:
        op = message["op"]
        with self._cond:
            if op == "hello":
                self._pins = {}
                for pin, fields in message["pins"].items():  # outputs enter the history too
                    self._record(int(pin), _daemon_pin(fields))
                self._link = link
                self._daemon_pid = message["pid"]
                link.send(
                    proto.encode("levels", levels={str(p): v for p, v in self._driven.items()})
                )
            elif self._link is not link:
                raise RigError(f"rig: {op!r} before hello")
            elif op == "setup":
                self._record(message["pin"], _daemon_pin(message))
            elif op == "output":
                old = self._pins.get(message["pin"], DaemonPin("output", "floating", 0))
                self._record(message["pin"], DaemonPin(old.function, old.pull, message["state"]))
            elif op == "close":
                self._pins.pop(message["pin"], None)
            else:
                raise RigError(f"rig: a daemon sent {op!r}, which only the rig sends")
            self._cond.notify_all()

    def _record(self, pin: int, new: DaemonPin) -> None:
        old = self._pins.get(pin)
        self._pins[pin] = new
        if new.function == "output" and (
            old is None or old.function != "output" or old.state != new.state
        ):
            self._history.append((monotonic(), pin, new.state))


def _served(path: str) -> bool:
    """Whether a process listens on the Unix socket ``path`` (a connection is accepted)."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(path)
    except OSError:  # refused: nobody listens (the socket file of a rig that died)
        return False
    finally:
        probe.close()
    return True


def _daemon_pin(fields: dict[str, Any]) -> DaemonPin:
    try:
        return DaemonPin(str(fields["function"]), str(fields["pull"]), int(fields["state"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise RigError(f"rig: malformed pin description {fields!r}") from exc


class TableInputs:
    """The table's inputs in table terms; a subclass sets one input line active or not."""

    def place_stake(self, seat: int) -> None:
        self._set_input(f"seat{seat}", True)

    def lift_stake(self, seat: int) -> None:
        self._set_input(f"seat{seat}", False)

    def press(self, button: str) -> None:
        """``lock`` or ``confirm`` down (call :meth:`release` to let go)."""
        self._set_input(button, True)

    def release(self, button: str) -> None:
        self._set_input(button, False)

    def turn_key(self, on: bool) -> None:
        self._set_input("key", on)

    def _set_input(self, name: str, active: bool) -> None:
        raise NotImplementedError


class RigTable(TableInputs):
    """The rig in table terms, for a table wired as ``config`` says."""

    def __init__(self, rig: RigServer, config: GpioConfig) -> None:
        self.rig = rig
        self.config = config

    def lamp_lit(self, lamp: str) -> bool | None:
        """Whether lamp ``seat3`` / ``green`` / ``red`` / ``beacon`` is lit (``None``: the
        daemon has not set that pin up as an output)."""
        line = self._lamp(lamp)
        level = self.rig.output(line.pin)
        return None if level is None else bool(level) == line.active_high

    def wait_for_lamp(self, lamp: str, lit: bool, timeout: float) -> None:
        line = self._lamp(lamp)
        self.rig.wait_for_output(line.pin, int(lit == line.active_high), timeout)

    def lamp_history(self, lamp: str) -> list[tuple[float, bool]]:
        line = self._lamp(lamp)
        return [(t, bool(level) == line.active_high) for t, level in self.rig.history(line.pin)]

    def _set_input(self, name: str, active: bool) -> None:
        try:
            line = self.config.inputs[name]
        except KeyError:
            raise RigError(f"rig: the table has no input {name!r}") from None
        self.rig.drive(line.pin, int(active == line.active_high))

    def _lamp(self, name: str) -> Any:
        try:
            return self.config.lamps[name]
        except KeyError:
            raise RigError(f"rig: the table has no lamp {name!r}") from None
