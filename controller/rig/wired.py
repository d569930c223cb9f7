"""The rig cabled to a real table controller: ``croupier rig run --wired RIG.toml``.

The controller under test runs its own ``croupierd`` (on its Pi, under systemd, or on this
machine); the rig plays the shuffler on a serial port cabled to the controller's shuffler port
(or on a pty the controller opens), drives the controller's inputs and reads its lamps with its
own GPIO lines (or over the rig socket, for a controller on this machine with the ``rig`` pin
factory), and talks to its control socket (forwarded, e.g. ``ssh -L``). The scenarios are the
same files as for the simulated table.

    [controller]
    config = "table.toml"          # a copy of the controller's table.toml: pin map, levels, profile
    socket = "/run/croupier/control.sock"   # its control socket (forwarded if remote)
    prepare = "ssh pi@table sudo /usr/local/bin/croupier-test-reset"   # before each scenario
    start = "ssh pi@table sudo systemctl start croupierd"   # the scenario steps start / restart
    stop = "ssh pi@table sudo systemctl stop croupierd"
    kill = "ssh pi@table sudo systemctl kill --signal=KILL croupierd"
    log = "ssh pi@table journalctl -u croupierd -n 25 --no-pager"   # shown when a step fails

    [shuffler]
    port = "/dev/ttyUSB0"          # the rig's serial port (or link = PATH: a pty)
    baud = 115200
    decks = 1

    [pins]
    backend = "gpio"               # gpio: the rig's GPIO lines; rig: the rig socket
    pin_factory = "auto"           # the rig's own (gpio backend)
    # socket = "/tmp/rig.sock"     # rig backend: the controller's [gpio] rig_socket
    [pins.wiring]                  # the controller's BCM pin = the rig's BCM pin wired to it
    4 = 5

Commands are run without a shell (split like a shell would). A scenario expecting absolute
meter amounts needs a controller on a fresh ledger: ``prepare`` is the place for that. A
scenario that changes the table's configuration (``overrides``) or plays another game than the
controller's profile is refused with the reason.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from controller.rig.errors import RigFailure
from controller.rig.target import START_TIMEOUT, TableUnderTest
from controller.table.tableconfig import load_table_config
from controller.validation import Problems, Section, positive_int, read_toml
from drivers.gpio.factories import make_pin_factory
from drivers.gpio.rig_gpio import GpioRig
from drivers.gpio.rig_server import RigServer, RigTable

COMMAND_TIMEOUT = 60.0
COMMANDS = ("prepare", "start", "stop", "kill", "log")


@dataclass(frozen=True)
class Wiring:
    """A rig hardware file (see the module docstring)."""

    source: Path
    config: Path
    socket: Path
    commands: dict[str, str]
    port: str | None
    link: str | None
    baud: int
    decks: int
    backend: str
    pin_factory: str | None
    rig_socket: str | None
    wiring: dict[int, int] = field(default_factory=dict)


def _path(value: str, base: Path) -> Path:
    path = Path(value)
    return path if path.is_absolute() else base / path


def load_wiring(path: str | Path) -> Wiring:
    """Read a rig hardware file; ConfigError with every problem."""
    path = Path(path)
    problems = Problems(str(path))
    top = Section(read_toml(path), "", problems)
    ctl, shuf, pins = (top.section(n) for n in ("controller", "shuffler", "pins"))
    top.finish()
    config = socket = port = link = backend = factory = rig_socket = None
    commands: dict[str, str] = {}
    baud, decks, wiring = 115200, 1, {}
    if ctl:
        config, socket = ctl.get("config", str), ctl.get("socket", str)
        commands = {n: v for n in COMMANDS if (v := ctl.get(n, str, default=None))}
        ctl.finish()
    if shuf:
        port, link = shuf.get("port", str, default=None), shuf.get("link", str, default=None)
        if bool(port) == bool(link):
            problems.add("shuffler.port", "give the rig's serial port, or link = a pty path")
        baud = shuf.get("baud", int, default=115200, check=positive_int) or 115200
        decks = shuf.get("decks", int, default=1, check=positive_int) or 1
        shuf.finish()
    if pins:
        backend = pins.choice("backend", ("gpio", "rig"))
        factory = pins.get("pin_factory", str, default=None)
        rig_socket = pins.get("socket", str, default=None)
        raw = pins.section("wiring", required=backend == "gpio")
        for key, value in raw.items() if raw else ():
            if not key.isdigit() or isinstance(value, bool) or not isinstance(value, int):
                problems.add(f"pins.wiring.{key}", "controller BCM pin = rig BCM pin")
            else:
                wiring[int(key)] = value
        if backend == "rig" and not rig_socket:
            problems.add("pins.socket", "the rig backend listens on the controller's rig_socket")
        pins.finish()
    problems.raise_if_any()
    assert config and socket and backend
    return Wiring(
        path,
        _path(config, path.parent),
        Path(socket),
        commands,
        port,
        link,
        baud,
        decks,
        backend,
        factory,
        rig_socket,
        wiring,
    )


class WiredTable(TableUnderTest):
    """A real controller with the rig cabled to it. ``with WiredTable(wiring):`` prepares
    and starts the controller (the configured commands), the shuffler and the pins."""

    def __init__(self, wiring: Wiring) -> None:
        super().__init__()
        self.wiring = wiring
        self.config = load_table_config(wiring.config)
        self.credential = os.environ.get("CROUPIER_CREDENTIAL", "")
        self.workdir = Path(tempfile.mkdtemp(prefix="croupier-rig-"))
        self._shuffler: subprocess.Popen[bytes] | None = None
        self.rig: RigServer | None = None
        gpio = self.config.io.gpio if self.config.io is not None else None
        try:
            if gpio is not None and gpio.inputs:
                if wiring.backend == "rig":
                    self.rig = RigServer(wiring.rig_socket)
                    self.io = RigTable(self.rig, gpio)
                else:
                    self.io = GpioRig(gpio, wiring.wiring, make_pin_factory(wiring.pin_factory))
        except BaseException:  # a rig socket another rig serves, pins that cannot open
            self.workdir.rmdir()  # still empty
            raise

    @property
    def control_socket(self) -> Path:
        return self.wiring.socket

    @property
    def emulator_socket(self) -> Path:
        return self.workdir / "emulator.sock"

    def daemon_log(self, lines: int = 12) -> str:
        command = self.wiring.commands.get("log")
        if command is None:
            return ""
        with contextlib.suppress(RigFailure):
            return self._run("log", capture=True)[-lines * 200 :]
        return ""

    def _run(self, name: str, capture: bool = False) -> str:
        command = self.wiring.commands.get(name)
        if command is None:
            raise RigFailure(
                f"this rig cannot {name} the controller: set [controller] {name}"
                f" in {self.wiring.source}"
            )
        try:
            done = subprocess.run(
                shlex.split(command),
                capture_output=True,
                text=True,
                timeout=COMMAND_TIMEOUT,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise RigFailure(f"[controller] {name} = {command!r}: {exc}") from None
        if done.returncode != 0:
            raise RigFailure(
                f"[controller] {name} = {command!r} exited with status"
                f" {done.returncode}: {done.stderr.strip()[-300:]}"
            )
        return done.stdout if capture else ""

    def _start_shuffler(self) -> None:
        w = self.wiring
        where = ["--port", w.port] if w.port else ["--link", str(w.link)]
        self._shuffler = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "controller.cli.main",
                "emulator",
                *where,
                "--control",
                str(self.emulator_socket),
                "--decks",
                str(w.decks),
                "--baud",
                str(w.baud if w.port else 0),
                "--exit-with-parent",  # a rig killed with kill -9 leaves no emulator
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + 10
        while not self.emulator_socket.exists():
            if self._shuffler.poll() is not None or time.monotonic() > deadline:
                raise RigFailure(f"the rig's shuffler emulator did not start on {where[1]}")
            time.sleep(0.02)

    def __enter__(self) -> WiredTable:
        try:
            self._start_shuffler()
            if "prepare" in self.wiring.commands:
                self._run("prepare")
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def start(self, timeout: float = START_TIMEOUT) -> None:
        if "start" in self.wiring.commands:
            self._run("start")
        deadline = time.monotonic() + timeout
        self.wait_until_answering(deadline)

    def stop(self) -> int | None:
        self._drop_clients()
        self._run("stop")
        return None

    def kill(self) -> None:
        self._drop_clients()
        self._run("kill")

    def close(self) -> None:
        """Let go of the controller (it keeps running), stop the rig's shuffler and pins."""
        self._drop_clients()
        self.final_log = self.daemon_log(40)
        if self._shuffler is not None and self._shuffler.poll() is None:
            self._shuffler.send_signal(signal.SIGTERM)
            try:
                self._shuffler.wait(10)
            except subprocess.TimeoutExpired:
                self._shuffler.kill()
        if self.rig is not None:
            self.rig.close()
        elif self.io is not None:
            self.io.close()
        with contextlib.suppress(FileNotFoundError):  # the emulator removes it at its stop
            self.emulator_socket.unlink()
        with contextlib.suppress(OSError):  # a file left in it is left to read
            self.workdir.rmdir()
