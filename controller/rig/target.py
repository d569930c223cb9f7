"""What the rig holds of a table under test, whichever way it is wired.

:class:`TableUnderTest` is the part every rig shares: the daemon's control socket (as a dealer
tablet or a technician uses it), the shuffler emulator's fault-injection channel, the console
buttons and seat sensors (:attr:`io`: rig pins or the rig's own GPIO lines), the sign read back
from its LEDs, and waits that fail with what they waited for. Subclasses say where the daemon
is and how it is started, stopped and killed: :class:`~controller.rig.table.SimTable` runs one
on this machine; :class:`~controller.rig.wired.WiredTable` is cabled to a real controller.

Requests are serialised per connection (a lock), so an autoplay thread and a view can share
one table.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Self

from controller.rig.errors import RigFailure, RigStopped
from controller.table.control.client import ControlClient
from controller.table.control.wire import ControlError
from controller.table.tableconfig import TableConfig
from display.geometry import SignFrame
from display.money import currency
from display.reader import read
from display.sign_amount import fit_amount
from drivers.gpio.rig_server import RigServer
from firmware_bridge.emulator.control import EmulatorControl
from firmware_bridge.errors import LinkError

START_TIMEOUT = 30.0
WAIT_TIMEOUT = 10.0
POLL_FIRST, POLL_MAX = 0.001, 0.005  # status polling: quick at first, then gentler
EDGE_MARGIN = 0.005  # the rig link and the daemon's threads may bunch edges up a little


def log_tail(path: Path | None, lines: int = 12, start: int = 0) -> str:
    """The last ``lines`` lines of the log at ``path``, of what was written after byte
    ``start`` (a log that other daemons append to, too: only this one's)."""
    if path is None:
        return ""
    try:
        with path.open("rb") as log:
            log.seek(start)
            text = log.read().decode(errors="replace").splitlines()
    except OSError:
        return ""
    return "\n".join(text[-lines:])


class TableUnderTest:
    """Subclasses set :attr:`config` (the table's configuration), :attr:`io` (its pins),
    :attr:`credential`, :attr:`log_path` (the daemon's log, if the rig has it), and implement
    :meth:`start`, :meth:`stop`, :meth:`kill`, :meth:`close`, :attr:`control_socket`,
    :attr:`emulator_socket` and :meth:`_dead`."""

    config: TableConfig
    io: Any = None  # drivers.gpio.rig_server.RigTable or drivers.gpio.rig_gpio.GpioRig
    rig: RigServer | None = None  # the rig socket the daemon's pins connect to, if any
    credential: str
    log_path: Path | None = None
    final_log = ""  # the daemon's last lines, kept when the table is closed
    wait_timeout = WAIT_TIMEOUT  # of a wait given no timeout of its own

    def __init__(self) -> None:
        self._control: ControlClient | None = None
        self._emulator: EmulatorControl | None = None
        self._lock = threading.RLock()  # one request at a time on each connection
        # set when the rig stops (controller.rig.workers): every wait then raises RigStopped
        self.stopping = threading.Event()

    # --- what a subclass provides ----------------------------------------------------------

    @property
    def control_socket(self) -> Path:
        raise NotImplementedError

    @property
    def emulator_socket(self) -> Path:
        raise NotImplementedError

    def start(self, timeout: float = START_TIMEOUT) -> None:
        raise NotImplementedError

    def stop(self) -> int | None:
        raise NotImplementedError

    def kill(self) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def _dead(self) -> str | None:
        """Why the daemon cannot answer any more (it exited), or None."""
        return None

    def daemon_log(self, lines: int = 12) -> str:
        """The daemon's last lines, when the rig can see them (for a failure report)."""
        return log_tail(self.log_path, lines)

    # --- life ------------------------------------------------------------------------------

    def __enter__(self) -> Self:
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def restart(self, timeout: float = START_TIMEOUT) -> None:
        self.stop()
        self.start(timeout)

    def wait_until_answering(self, deadline: float) -> None:
        """The daemon answers on its control socket (and has connected to the rig's pins)."""
        self._poll(lambda: self.control_socket.exists(), deadline, "the control socket")
        self._poll(self._answers, deadline, "the daemon to answer")
        if self.rig is not None:
            self.rig.wait_for_daemon(max(0.1, deadline - time.monotonic()))

    def _answers(self) -> bool:
        """True once the daemon answers; a ControlError here is a daemon not listening yet
        (the client's refused or reset connection), so the client is dropped and retried."""
        try:
            self.call("status")
        except ControlError:
            self._drop_clients()
            return False
        return True

    def _drop_clients(self) -> None:
        with self._lock:
            for client in (self._control, self._emulator):
                if client is not None:
                    with contextlib.suppress(OSError):
                        client.close()
            self._control = self._emulator = None

    # --- talking to it -------------------------------------------------------------------

    def call(self, cmd: str, *, privileged: bool = False, **args: Any) -> Any:
        """A control-socket command (``privileged``: with the technician credential)."""
        return self.call_with(self.credential if privileged else None, cmd, **args)

    def call_with(self, credential: str | None, cmd: str, **args: Any) -> Any:
        """A control-socket command with the given credential (a wrong one, say)."""
        with self._lock:
            if self._control is None:
                self._control = ControlClient(self.control_socket, timeout=10.0)
            return self._control.call(cmd, credential, **args)

    def journal(self, kind: str, n: int = 1000) -> list[dict[str, Any]]:
        """The data of the journal's last ``n`` entries of this ``kind``, oldest first."""
        return [e["data"] for e in self.call("events.tail", n=n) if e["kind"] == kind]

    @property
    def emulator(self) -> EmulatorControl:
        """The shuffler emulator's fault-injection channel (this daemon's emulator)."""
        if self._emulator is None:
            path = self.emulator_socket
            try:
                self._emulator = EmulatorControl(str(path))
            except OSError as exc:
                raise RigFailure(f"no shuffler emulator at {path}: {exc}") from None
        return self._emulator

    def emulate(self, cmd: str, **args: Any) -> dict[str, Any]:
        with self._lock:
            try:
                return self.emulator.call(cmd, **args)
            except LinkError as exc:
                raise RigFailure(str(exc)) from None

    def tap(self, button: str) -> None:
        """Press a console button and let it go, each for long enough that the debounced
        input counts it (so a second tap right after counts too)."""
        if self.io is None:
            raise RigFailure('this table has no rig pins ([gpio] pin_factory = "rig")')
        hold = 2 * self.io.config.button_debounce + EDGE_MARGIN
        self.io.press(button)
        time.sleep(hold)
        self.io.release(button)
        time.sleep(hold)

    def status(self) -> dict[str, Any]:
        return self.call("status")

    # --- the sign, as a camera sees it ---------------------------------------------------

    def sign_frame(self) -> SignFrame | None:
        state = self.call("sign.state")
        if state.get("cells") is None:
            return None
        return SignFrame(
            state["kind"], bytes.fromhex(state["cells"]), state["text"], state["level"]
        )

    def shown_amount(self, amount: int) -> str | None:
        """How the sign writes ``amount`` (display.money's rule), to compare with what it
        reads; ``None`` for a table without a sign."""
        sign = self.config.io.sign if self.config.io is not None else None
        if sign is None:
            return None
        from controller.table.sign import geometry_for

        return fit_amount(amount, currency(sign.currency), geometry_for(sign).fits).text

    def sign_text(self) -> str | None:
        """What the sign shows now, read back from its LEDs (``None``: nothing readable, e.g.
        halfway through a scrolling message)."""
        frame = self.sign_frame()
        if frame is None:
            return None
        try:
            return read(frame)
        except (ValueError, KeyError):
            return None

    # --- waiting -------------------------------------------------------------------------

    def wait_until(
        self,
        check: Callable[[], Any],
        what: str,
        *,
        timeout: float | None = None,
        not_yet: tuple[type[Exception], ...] = (),
    ) -> Any:
        """Poll ``check()`` until it returns something true; returns it. ``timeout``: seconds
        (default :attr:`wait_timeout`). ``not_yet``: the errors of ``check`` that mean "not
        yet" (a raw connection refused, say) and are polled again; any other error fails the
        wait at once, as does a daemon that exited (with its last log lines)."""
        deadline = time.monotonic() + (self.wait_timeout if timeout is None else timeout)
        return self._poll(check, deadline, what, not_yet)

    def wait_for_state(self, *states: str, timeout: float | None = None) -> dict[str, Any]:
        """Wait for the table to reach one of ``states``; returns the status."""

        def reached() -> dict[str, Any] | None:
            status = self.status()
            return status if status["state"] in states else None

        return self.wait_until(reached, f"the table to be {' or '.join(states)}", timeout=timeout)

    def _poll(
        self,
        check: Callable[[], Any],
        deadline: float,
        what: str,
        not_yet: tuple[type[Exception], ...] = (),
    ) -> Any:
        pause = POLL_FIRST
        while True:
            if self.stopping.is_set():
                raise RigStopped(f"the rig is stopping: it no longer waits for {what}")
            if (dead := self._dead()) is not None:
                raise RigFailure(f"{dead} while the rig waited for {what}\n{self.daemon_log()}")
            try:
                result = check()
            except not_yet:
                result = None
            if result:
                return result
            if time.monotonic() >= deadline:
                raise RigFailure(f"timed out waiting for {what}\n{self.daemon_log()}")
            time.sleep(pause)
            pause = min(pause * 2, POLL_MAX)
