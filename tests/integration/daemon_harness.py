"""A real croupierd process on a simulated table, for integration tests.

The daemon runs as its own process with its own state and runtime directories, the reference
emulator on a pty (started by the daemon), the rig pin factory (this harness is the rig: it
listens, the daemon connects) and the control socket. Waiting is by polling the daemon's
status with a generous timeout; no test asserts on how long anything took.
"""

from __future__ import annotations

import contextlib
import copy
import os
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

import tomli_w

from controller.books.ledger.keys import KEY_ENV, create_keyring, keyring_beside
from controller.books.ledger.reader import LedgerReader
from controller.table.control.client import ControlClient
from drivers.gpio.pinmap import parse_gpio
from drivers.gpio.rig_server import RigServer, RigTable
from firmware_bridge.emulator.control import EmulatorControl

ROOT = Path(__file__).resolve().parents[2]
SIM = tomllib.loads((ROOT / "config" / "sim.toml").read_text())
CREDENTIAL = "1234"  # sim.toml's technician credential
WAIT = 20.0


def processes_with(*words: str) -> list[int]:
    """The processes whose command line contains every one of ``words`` (a daemon names its
    state directory, an emulator its pty): what a test checks is gone after a stop or a kill."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        with contextlib.suppress(OSError):  # the process ended while we looked
            text = cmdline.read_bytes()
            if all(word.encode() in text for word in words):
                found.append(int(cmdline.parent.name))
    return found


def sim_config(**changes: dict[str, Any]) -> dict[str, Any]:
    """sim.toml with sections updated: ``sim_config(shuffler={"packet_timeout": 2})``.
    A value of None removes the key."""
    data = copy.deepcopy(SIM)
    data["shuffler"]["emulator"] = {"decks": 1, "seed": 7}  # no pacing: tests run fast
    data["timing"] = {"settled_display": 60.0}
    for section, values in changes.items():
        target = data.setdefault(section, {})
        for key, value in values.items():
            if value is None:
                target.pop(key, None)
            else:
                target[key] = value
    return data


class SimTable:
    def __init__(self, tmp: Path, config: dict[str, Any] | None = None) -> None:
        self.tmp = tmp
        self.state_dir = tmp / "state"
        self.run_dir = tmp / "run"
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.config = config or sim_config()
        self.config_path = tmp / "table.toml"
        self.config_path.write_text(tomli_w.dumps(self.config))
        self.proc: subprocess.Popen | None = None
        self.log = tmp / "croupierd.log"
        self.rig: RigServer | None = None
        self.table: RigTable | None = None
        gpio = self.config.get("gpio")
        if gpio and gpio.get("pin_factory") == "rig":
            self.rig = RigServer(str(self.run_dir / gpio["rig_socket"]))
            self.table = RigTable(self.rig, parse_gpio(gpio))

    # --- process ---------------------------------------------------------------------------

    def start(self, *, wait_open: bool = True, env: dict[str, str] | None = None) -> SimTable:
        """Start croupierd. A table that is not simulated (a ``port``) gets a ledger keyring
        provisioned here, as install.sh does on a real one."""
        key = self.tmp / "table.key"
        if not key.exists():
            create_keyring(key)
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "controller.table.daemon",
                "--config",
                str(self.config_path),
                "--state-dir",
                str(self.state_dir),
                "--runtime-dir",
                str(self.run_dir),
            ],
            stdout=self.log.open("ab"),
            stderr=subprocess.STDOUT,
            cwd=ROOT,
            env={**os.environ, "PYTHONUNBUFFERED": "1", KEY_ENV: str(key), **(env or {})},
        )
        self.wait(lambda: self.socket.exists(), "the control socket")
        if wait_open:
            self.wait_state("open")
        return self

    def stop(self) -> int:
        if self.proc is None:
            return 0
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        code = self.proc.returncode
        self.proc = None
        return code

    def kill9(self) -> None:
        assert self.proc is not None
        assert self.emulator_pids(), "the daemon's emulator should be running"
        self.proc.kill()
        self.proc.wait()
        self.proc = None
        with contextlib.suppress(FileNotFoundError):
            (self.run_dir / "control.sock").unlink()
        # the emulator it started (--exit-with-parent) must notice and go: no orphan shuffler
        self.wait(lambda: not self.emulator_pids(), "the orphaned emulator to exit", timeout=10)

    def emulator_pids(self) -> list[int]:
        """The emulator processes serving this table's pty."""
        return processes_with("emulator", f"{self.run_dir}/shuffler.pty")

    def close(self) -> None:
        self.stop()
        if self.rig is not None:
            self.rig.close()

    def press(self, button: str, hold: float = 0.15) -> None:
        """A dealer's press: held longer than the button debounce, like a finger."""
        assert self.table is not None
        self.table.press(button)
        time.sleep(hold)
        self.table.release(button)

    # --- talking to it ---------------------------------------------------------------------

    @property
    def socket(self) -> Path:
        return self.run_dir / "control.sock"

    def call(self, cmd: str, credential: str | None = None, **args: Any) -> Any:
        with ControlClient(self.socket) as client:
            return client.call(cmd, credential, **args)

    def status(self) -> dict[str, Any]:
        return self.call("status")

    def emulator(self) -> EmulatorControl:
        return EmulatorControl(str(self.run_dir / "emulator.sock"))

    def ledger(self) -> LedgerReader:
        path = self.state_dir / "ledger.sqlite3"
        return LedgerReader.open(path, keyring_beside(path))

    def wait(self, ok: Any, what: str, timeout: float = WAIT) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc is not None and self.proc.poll() is not None:
                raise AssertionError(
                    f"croupierd exited ({self.proc.returncode}) waiting for"
                    f" {what}:\n{self.log.read_text()[-3000:]}"
                )
            with contextlib.suppress(Exception):
                value = ok()
                if value:
                    return value
            time.sleep(0.02)
        raise AssertionError(f"timed out waiting for {what}:\n{self.log.read_text()[-3000:]}")

    def wait_state(self, state: str, timeout: float = WAIT) -> dict[str, Any]:
        return self.wait(
            lambda: (s := self.status())["state"] == state and s, f"state {state}", timeout
        )

    def journal(self, kind: str) -> list[dict[str, Any]]:
        return [e["data"] for e in self.call("events.tail", n=1000) if e["kind"] == kind]
