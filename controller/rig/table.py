"""One simulated table as the rig sees it: a real ``croupierd`` process, its pins, its
shuffler and its control socket.

Theory of operation. :class:`SimTable` does what the rig hardware does around a controller
under test, and nothing more:

- it writes the table configuration (a shipped ``table.toml``, e.g. ``config/sim.toml``, with
  the rig's overrides merged in: no line pacing, a fixed seed...) into its own runtime
  directory and starts ``croupierd --config ... --state-dir ... --runtime-dir ...`` as a child
  process in a session of its own, its output in ``croupierd.log``, with
  ``--exit-with-parent``: a rig killed with ``kill -9`` (no clean-up of its own) leaves no
  daemon, and so no emulator, running;
- it owns the seat sensors, the console buttons and the lamps: it listens on the rig socket
  (:class:`~drivers.gpio.rig_server.RigServer`; the daemon's ``rig`` pin factory connects to
  it) and speaks in table terms (:class:`~drivers.gpio.rig_server.RigTable`);
- it reaches the shuffler's fault-injection channel (the emulator the sim daemon starts on a
  pty, :class:`~firmware_bridge.emulator.control.EmulatorControl`) and the daemon's control
  socket, as a dealer tablet or a technician would;
- it reads the sign's frames from the control socket and reads them back into text with
  :mod:`display.reader`, as a camera in front of the sign would.

:meth:`SimTable.kill` is a ``kill -9`` of the daemon. The sim's shuffler is the daemon's child
process, so the rig then powers it off too (the rest of the daemon's process group), or, with
``power_off_shuffler=False``, checks that the emulator notices its parent's death and exits by
itself (``--exit-with-parent``: no orphan shuffler holds the pty); the
next :meth:`SimTable.start` brings up a fresh daemon and shuffler on the same state
directory, and the ledger voids the round caught mid-flight (MD-S2). The rig's pins keep
their levels across restarts, as the table's sensors do.

What the rig does with a running table (the socket, the emulator, the sign, the waits) is
shared with the rig for real controllers: :class:`~controller.rig.target.TableUnderTest`.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import tomli_w

from controller.books.ledger.db import lock_path
from controller.books.ledger.keys import create_keyring, keyring_beside
from controller.books.ledger.paths import KEY_ENV
from controller.books.ledger.reader import LedgerReader
from controller.books.reports.signing import create_key
from controller.files import clear_socket_path
from controller.pidlock import lock_holder
from controller.rig.errors import RigFailure
from controller.rig.target import START_TIMEOUT, TableUnderTest, log_tail
from controller.table.tableconfig import TableConfig, load_table_config
from controller.validation import ConfigError, read_toml
from drivers.gpio.rig_server import RigServer, RigTable

SIM_CREDENTIAL = "1234"  # the technician secret of the shipped sim configurations only
REPO = Path(__file__).resolve().parents[2]
REPO_CONFIG = REPO / "config" / "sim.toml"  # the simulated table of ``make demo``
STOP_TIMEOUT = 10.0
ORPHAN_TIMEOUT = 10.0  # for the emulator to notice that its daemon was killed


def processes_with(*words: str) -> list[int]:
    """The processes whose command line contains every one of ``words`` (a daemon names its
    state directory, an emulator its pty): what the rig checks is gone after a stop or a kill.
    A zombie has no command line, so an exited process no longer counts."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            text = cmdline.read_bytes()
        except OSError:  # the process ended while we looked
            continue
        if all(word.encode() in text for word in words):
            found.append(int(cmdline.parent.name))
    return found


def merged(
    base: Mapping[str, Any], overrides: Mapping[str, Any], *, keep_none: bool = False
) -> dict[str, Any]:
    """``base`` with ``overrides`` merged in, table by table; ``None`` removes a key.
    ``keep_none``: ``base`` is overrides too, so a ``None`` is kept, to remove the key from the
    configuration the two are merged into."""
    out = dict(base)
    for key, value in overrides.items():
        if value is None and not keep_none:
            out.pop(key, None)
        elif isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = merged(out[key], value, keep_none=keep_none)
        elif isinstance(value, Mapping):  # a table the base lacks: its Nones removed too (TOML
            added = merged({}, value, keep_none=keep_none)  # has no None), and none left empty
            if added:
                out[key] = added
        else:
            out[key] = value
    return out


def _end_group(pgid: int, timeout: float = 5.0) -> None:
    """Power off what is left of the daemon's process group (its shuffler emulator) and wait
    until the group is gone, so that nothing of the table outlives the rig."""
    deadline = time.monotonic() + timeout
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)
        while time.monotonic() < deadline:
            os.killpg(pgid, 0)  # ProcessLookupError once every member is gone
            time.sleep(0.01)


class SimTable(TableUnderTest):
    """A simulated table; ``with SimTable(config) as table:`` starts it and cleans up.

    ``state_dir``: where the ledger lives (kept); ``None`` for a temporary one, removed at
    close. ``credential``: the technician secret for privileged commands. ``env``: variables
    added to the daemon's environment. ``emulated``: False for a table whose shuffler is its
    configured port (a table without its shuffler, say); the rig then provisions the ledger
    keyring a real table's installer makes, and has no shuffler to inject faults into.
    """

    def __init__(
        self,
        config: str | Path = REPO_CONFIG,
        *,
        overrides: Mapping[str, Any] | None = None,
        state_dir: str | Path | None = None,
        credential: str | None = None,
        log_path: str | Path | None = None,
        env: Mapping[str, str] | None = None,
        emulated: bool = True,
    ) -> None:
        super().__init__()
        self.source = Path(config)
        self.env = dict(env or {})
        self.emulated = emulated
        self.overrides = dict(overrides or {})
        self.credential = credential or os.environ.get("CROUPIER_CREDENTIAL") or SIM_CREDENTIAL
        self._temporary_state = state_dir is None
        self.runtime_dir = Path(tempfile.mkdtemp(prefix="croupier-rig-"))
        self.state_dir = Path(state_dir) if state_dir else self.runtime_dir / "state"
        self.config_path = self.runtime_dir / "table.toml"
        self.log_path = Path(log_path) if log_path else self.runtime_dir / "croupierd.log"
        self.rig: RigServer | None = None
        self.io: RigTable | None = None
        try:
            self.config = self._write_config()
            gpio = self.config.io.gpio if self.config.io is not None else None
            if gpio is not None and gpio.inputs and gpio.pin_factory == "rig":
                self.rig = RigServer(str(self.runtime_dir / (gpio.rig_socket or "rig.sock")))
                self.io = RigTable(self.rig, gpio)
        except BaseException:  # a configuration refused, a rig socket taken: nothing left
            shutil.rmtree(self.runtime_dir, ignore_errors=True)
            raise
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self.log_start = 0  # where this table's daemons' lines begin in a shared log

    # --- configuration -------------------------------------------------------------------

    def _write_config(self) -> TableConfig:
        data = merged(read_toml(self.source), self.overrides)
        self.config_path.write_text(
            f"# {self.source} with the rig's overrides\n" + tomli_w.dumps(data), encoding="utf-8"
        )
        try:
            config = load_table_config(self.config_path)  # every problem at once (ConfigError)
        except ConfigError as exc:  # named as the file the user gave, not the rig's copy
            where = f"{self.source} (with the rig's overrides)" if self.overrides else self.source
            raise ConfigError(str(where), exc.problems) from None
        if self.emulated and config.shuffler.emulator is None:
            raise RigFailure(
                f"{self.source}: the rig drives the emulated shuffler: set"
                " [shuffler] emulate = true"
            )
        return config

    @property
    def control_socket(self) -> Path:
        return self.config.resolve_socket(self.runtime_dir)

    @property
    def emulator_socket(self) -> Path:
        return self.runtime_dir / "emulator.sock"

    def emulator_pids(self) -> list[int]:
        """The shuffler emulator processes serving this table's pty."""
        return processes_with("emulator", str(self.runtime_dir / "shuffler.pty"))

    @property
    def ledger_path(self) -> Path:
        return self.config.resolve_state(self.state_dir)

    def ledger(self) -> LedgerReader:
        """The ledger, read-only (beside the running daemon, as a technician reads it)."""
        return LedgerReader.open(self.ledger_path, keyring_beside(self.ledger_path))

    # --- the daemon's life ---------------------------------------------------------------

    def _dead(self) -> str | None:
        if self.proc is not None and self.proc.poll() is not None:
            return f"croupierd exited with status {self.proc.returncode}"
        return None

    @property
    def is_running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self, timeout: float = START_TIMEOUT) -> None:
        """Start the daemon (again) and wait until it answers on its control socket."""
        if self.is_running:
            raise RigFailure("the daemon is already running")
        self._check_ledger_free()
        self.state_dir.mkdir(parents=True, exist_ok=True)
        report_key = self.config.resolve_report_key(self.state_dir)
        if not report_key.exists():  # as install.sh makes /etc/croupier/report-key.pem
            create_key(report_key)
        # a stale socket goes (waiting for it then means this daemon's); a live one is refused
        clear_socket_path(self.control_socket)
        env = {**os.environ, "PYTHONUNBUFFERED": "1", **self.env}  # its log whole at a kill -9
        if not self.emulated:
            env[KEY_ENV] = str(self._real_table_keyring())
        log = open(self.log_path, "ab")  # noqa: SIM115 - the child keeps it
        if not self.starts:
            self.log_start = log.tell()  # the end of what others wrote before
        try:
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
                    str(self.runtime_dir),
                    "--exit-with-parent",  # a rig killed with kill -9 leaves no daemon
                ],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env=env,
            )
        finally:
            log.close()
        self.starts += 1
        deadline = time.monotonic() + timeout
        self.wait_until_answering(deadline)

    def _check_ledger_free(self) -> None:
        """The ledger is not held by another process (another demo or daemon on the same state
        directory): said now, in its own words, rather than as a daemon that exited while the
        rig waited for its socket, with a shared log's last lines that are not its own."""
        holder = lock_holder(lock_path(self.ledger_path))
        if holder is not None:
            raise RigFailure(
                f"the ledger {self.ledger_path} is held by PID {holder} (another demo, rig or"
                " croupierd on this state directory): stop it first, or give this one another"
                " state directory"
            )

    def daemon_log(self, lines: int = 12) -> str:
        """The last lines of this table's daemons (not of others sharing its log file); none
        before its first start."""
        return log_tail(self.log_path, lines, self.log_start) if self.starts else ""

    def _real_table_keyring(self) -> Path:
        """The ledger keyring of a table that is not simulated, made once as install.sh makes
        /etc/croupier/ledger.key (a simulated table makes its own beside its ledger)."""
        path = self.runtime_dir / "ledger.key"
        if not path.exists():
            create_keyring(path)
        return path

    def stop(self) -> int | None:
        """SIGTERM, as systemd stops the daemon; returns its exit status."""
        self._drop_clients()
        proc = self.proc
        if proc is None:
            return None
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.kill()
            except BaseException:  # a second Ctrl-C while it stops: never leave it running
                self.kill()
                raise
        self.proc = None
        _end_group(proc.pid)
        return proc.returncode

    def kill(self, *, power_off_shuffler: bool = True) -> None:
        """``kill -9`` the daemon, then power off the sim's shuffler (its process group).
        ``power_off_shuffler=False``: the emulator must exit by itself once its daemon is
        gone (RigFailure if it outlives it)."""
        self._drop_clients()
        if self.proc is None:
            return
        if not power_off_shuffler and not self.emulator_pids():
            raise RigFailure("the daemon's shuffler emulator is not running before the kill")
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        pid, self.proc = self.proc.pid, None
        if not power_off_shuffler:
            deadline = time.monotonic() + ORPHAN_TIMEOUT
            self._poll(lambda: not self.emulator_pids(), deadline, "the orphan emulator to exit")
        _end_group(pid)

    def close(self) -> None:
        """Stop the daemon and the rig; remove the runtime directory (and a temporary state
        directory)."""
        try:
            self.stop()
        finally:
            if self.rig is not None:
                self.rig.close()
                self.rig = None
            self.final_log = self.daemon_log(40)
            shutil.rmtree(self.runtime_dir, ignore_errors=True)
