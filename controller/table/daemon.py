"""``croupierd``: the table daemon.

    croupierd [--config FILE] [--state-dir DIR] [--runtime-dir DIR] [-v]

Runs unprivileged anywhere: the ledger and the surveillance store live in the state directory
(default /var/lib/croupier), the control socket (and, for the simulated table, the emulator's
pty and the rig socket) in the runtime directory (default /run/croupier). Under systemd
(``Type=notify``) it reports READY once the books are open and checked (the table opens just
after: docs/daemon.md) and pings the watchdog from the event loop, so a stuck loop is
restarted. SIGTERM, SIGHUP and SIGINT stop it cleanly (SIGHUP too: a daemon started in a
terminal or an SSH session must not die, socket and locks left, when the session drops; it
reloads nothing, and the unit has no ExecReload), and the log says which one did, at NOTICE
(``stopping on SIGTERM``); a
``kill -9`` at any point loses no money (the ledger voids an interrupted round at the next
start, MD-S2); the journal entries of the last state changes and the surveillance records of
the last rounds, if not yet written, are lost (docs/daemon.md, "What the table waits for").

Exit status: 0 after a clean stop (whatever signal asked for it: systemd's SIGTERM is how a
service is meant to stop), 2 for a usage error (an unknown option, a state or runtime directory
that is a file, cannot be made or written) or a configuration problem (every problem listed),
1 when the table cannot start (ledger held by another process, unreadable, ...).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import logging
import os
import stat
import subprocess
import sys
from collections.abc import Coroutine, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller import __version__
from controller.engine.cards import card_name
from controller.errors import CroupierError
from controller.files import directory, remove_stale
from controller.stop_signals import STOP_SIGNALS, StopOnSignals, StopSignal, signal_name
from controller.table.commands import Commands
from controller.table.control.server import ControlServer
from controller.table.host_checks import HostWatch
from controller.table.instance_lock import InstanceLock
from controller.table.journald import NOTICE, configure_logging, stderr_is_journal, with_prefix
from controller.table.runner import TableRunner
from controller.table.sdnotify import Notifier
from controller.table.shuffler_link import ShufflerLink
from controller.table.tableconfig import RUNTIME_DIR, TableConfig, load_table_config
from drivers.errors import DriverError

if TYPE_CHECKING:
    from drivers.gpio.table import GpioTable

log = logging.getLogger("croupierd")
CONFIG = "/etc/croupier/table.toml"
STATE_DIR = "/var/lib/croupier"
EMULATOR_START_TIMEOUT = 10.0
PARENT_POLL = 0.5  # seconds between two looks for the parent (--exit-with-parent)


async def start_emulator(config: TableConfig, runtime_dir: Path) -> tuple[subprocess.Popen, str]:
    """Start the reference shuffler emulator on a pty (the simulated table's shuffler)."""
    emu = config.shuffler.emulator
    assert emu is not None
    link = runtime_dir / "shuffler.pty"
    control = runtime_dir / "emulator.sock"
    command = [
        sys.executable,
        "-m",
        "controller.cli.main",
        "emulator",
        "--link",
        str(link),
        "--control",
        str(control),
        "--decks",
        str(emu.decks),
        "--baud",
        str(emu.baud or 0),
        "--exit-with-parent",  # a daemon killed with kill -9 leaves no orphan
    ]
    if emu.seed is not None:
        command += ["--seed", str(emu.seed)]
    remove_stale(link, stat.S_ISLNK)  # anything else there: the emulator refuses, and says so
    proc = subprocess.Popen(command, stdin=subprocess.DEVNULL)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + EMULATOR_START_TIMEOUT
    try:
        while not (link.exists() and control.exists()):
            if proc.poll() is not None:
                raise CroupierError(f"the shuffler emulator exited with status {proc.returncode}")
            if loop.time() > deadline:
                raise CroupierError(
                    f"the shuffler emulator did not start within {EMULATOR_START_TIMEOUT:g} s"
                )
            await asyncio.sleep(0.02)
    except BaseException:  # failed, or the daemon's start-up failed meanwhile (cancelled)
        proc.terminate()
        raise
    return proc, str(link)


def make_simulated_report_key(config: TableConfig, state_dir: Path) -> None:
    """The simulated table makes its own report key at start when it has none (as it makes
    its ledger keyring beside the ledger), so that `report day` and `evidence make` work on
    `croupierd --config config/sim.toml`. A real table's key is made by install.sh, never
    here. A key that cannot be made is a warning: the table runs, and report.day says why."""
    if config.shuffler.emulator is None:
        return
    path = config.resolve_report_key(state_dir)
    if path.exists():
        return
    from controller.books.reports.signing import create_key, key_id

    try:
        public = create_key(path)
    except (CroupierError, OSError) as exc:
        log.warning("the simulated table has no report key: %s", exc)
        return
    log.info("simulated table: made the report key %s (key %s)", path, key_id(public))


async def pump_gpio(gpio: GpioTable, runner: TableRunner) -> None:
    while True:
        runner.gpio_event(await gpio.next_event())


async def watchdog(notifier: Notifier) -> None:
    interval = notifier.watchdog_interval
    if interval is None:
        return
    while True:
        notifier.watchdog()
        await asyncio.sleep(interval)


def stop_emulator(emulator: subprocess.Popen[bytes]) -> None:
    emulator.terminate()
    try:
        emulator.wait(5)
    except subprocess.TimeoutExpired:
        emulator.kill()


async def finish_emulator(starting: asyncio.Task[tuple[subprocess.Popen[bytes], str]]) -> None:
    """Stop the emulator, or its start if that is still under way (a failed start has
    already been reported where the daemon awaited it)."""
    if not starting.done():
        starting.cancel()
    try:
        emulator, _port = await starting
    except (asyncio.CancelledError, Exception):
        return
    stop_emulator(emulator)


async def cancel_task(task: asyncio.Task[None]) -> None:
    """Stop a helper task; one that failed is logged, not raised over the daemon's own exit."""
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
    except Exception as exc:
        log.error("%s stopped with an error: %s", task.get_name(), exc)


async def watch_parent(parent: int, stop: asyncio.Event) -> None:
    """``--exit-with-parent``: stop cleanly once the process that started the daemon (the
    rig) is gone, however it died (a ``kill -9`` runs none of its clean-up): reparented."""
    while os.getppid() == parent:
        await asyncio.sleep(PARENT_POLL)
    log.warning("croupierd: the process that started it is gone: stopping")
    stop.set()


def stop_on(signum: int, stop: asyncio.Event) -> None:
    """A stop signal: said in the log (journalctl then tells a stop asked for by systemd, a
    closed SSH session or Ctrl-C from a crash), then the event loop stops the table."""
    if not stop.is_set():
        log.log(NOTICE, "stopping on %s", signal_name(signum))
    stop.set()


async def serve(
    config: TableConfig, state_dir: Path, runtime_dir: Path, *, parent: int | None = None
) -> int:
    """Wire the table's parts and run it until SIGTERM, SIGHUP or SIGINT (or, given
    ``parent``, until that process is gone). The exit stack closes every part that was
    started, in the reverse order, whatever stops the daemon."""
    from drivers.shuffler_client import ShufflerClient
    from drivers.transport import open_transport

    runtime_dir.mkdir(parents=True, exist_ok=True)
    async with contextlib.AsyncExitStack() as stack:
        # the emulator's interpreter starts while the ledger opens: seconds saved on a Pi
        starting = None
        if config.shuffler.emulator is not None:
            starting = asyncio.create_task(
                start_emulator(config, runtime_dir), name="emulator-start"
            )
            stack.push_async_callback(finish_emulator, starting)
        gpio = None
        if config.io is not None and config.io.gpio.inputs:
            from controller.table.exclusions import exclusions_at_start
            from drivers.gpio.factories import make_pin_factory
            from drivers.gpio.table import GpioTable

            gpio_cfg = config.io.gpio
            rig = str(runtime_dir / gpio_cfg.rig_socket) if gpio_cfg.rig_socket else None
            gpio = GpioTable(
                gpio_cfg,
                make_pin_factory(gpio_cfg.pin_factory, rig_socket=rig),
                excluded=exclusions_at_start(state_dir, config.seats),  # before any stake counts
            )
        runner = TableRunner(config, state_dir=state_dir)
        stack.push_async_callback(runner.close)
        if gpio is not None:
            await stack.enter_async_context(gpio)
        await runner.open(gpio)
        make_simulated_report_key(config, state_dir)  # the state directory exists now
        notifier = Notifier()
        stack.callback(notifier.close)
        runner.notifier = notifier
        port = config.shuffler.port
        allow = set(config.shuffler.firmware_allow)
        if starting is not None and config.shuffler.emulator is not None:
            _emulator, port = await starting
            if config.shuffler.emulator.trusted:
                from firmware_bridge.emulator.digest import firmware_digest

                allow.add(firmware_digest().hex())
        assert port is not None
        client = ShufflerClient(open_transport(port, config.shuffler.baud))
        link = ShufflerLink(
            client,
            runner.post,
            firmware_allow=allow,
            shoe=config.profile.game == "blackjack",
            card_name=card_name,
            is_current=runner.is_current,
            keep_deck_check=runner.keep_deck_check,
        )
        runner.shuffler = link
        stack.push_async_callback(link.close)

        def background(coroutine: Coroutine[Any, Any, None], name: str) -> None:
            stack.push_async_callback(cancel_task, asyncio.create_task(coroutine, name=name))

        if gpio is not None:
            background(pump_gpio(gpio, runner), "gpio-events")
        server = ControlServer(
            config.resolve_socket(runtime_dir),
            group=config.control_group,
            max_connections=config.max_connections,
            idle_timeout=config.idle_timeout,
        )
        commands = Commands(runner)
        commands.register(server)
        stack.push_async_callback(commands.aclose)  # after the server: refusals journaled
        await server.start()
        stack.push_async_callback(server.close)
        await link.start()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in STOP_SIGNALS:
            loop.add_signal_handler(sig, stop_on, sig, stop)
        if parent is not None:
            background(watch_parent(parent, stop), "parent-watch")
        background(watchdog(notifier), "watchdog")
        host = HostWatch(config.host, config.resolve_state(state_dir).parent, runner.post)
        await host.check()  # before the table may open
        background(host.follow(), "host-checks")
        # Everything built so far (modules, the configuration, the core) lives as long as the
        # daemon: kept out of the collector's full passes, which would otherwise walk it all
        # again (tens of ms here, several times that on a Pi: a stall of the round pipeline
        # and of the watchdog's pings). docs/daemon.md, "Fast on a slow CPU". What comes after
        # READY is not frozen: the evaluator's tables (a few flat arrays the collector does not
        # walk) and the sign's libraries.
        gc.freeze()
        notifier.ready(f"table {config.table_id} up")
        log.info(
            "croupierd %s: table %s (%s) up", __version__, config.table_id, config.profile.name
        )
        if config.io is not None and config.io.sign is not None:
            # after READY (Pillow, luma, the device: a quarter of a second on a Pi), before the
            # table opens (runner.run); the sign is an output, not a check
            from controller.table.sign import Sign
            from drivers.sign.device import open_sign_device

            sign = Sign(config.io.sign, open_sign_device(config.io.sign))
            runner.attach_sign(sign)
            background(sign.run(), "sign")
        await runner.run(stop)
        notifier.stopping()
        return 0
    raise AssertionError("unreachable")  # the exit stack does not swallow exceptions


EXAMPLES = """examples:
  croupierd                                 the installed table (what systemd runs)
  croupierd --config config/sim.toml --state-dir /tmp/sim/state --runtime-dir /tmp/sim/run
                                            the simulated table, as your user
  croupier --socket /tmp/sim/run/control.sock status
                                            ask that table how it is

SIGTERM, SIGHUP and Ctrl-C stop the table cleanly (logged: "stopping on SIGTERM").
exit status: 0 stopped cleanly, 1 the table cannot run, 2 a usage error or a configuration
problem"""


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line, read with the CLI's parser (controller.arguments): a typo gets a
    suggestion, a bad value a one-line usage error naming its option (exit status 2)."""
    from controller.arguments import CroupierParser, VersionAction

    parser = CroupierParser(prog="croupierd", description="Croupier table daemon.", epilog=EXAMPLES)
    parser.add_argument("-V", "--version", action=VersionAction)
    parser.add_argument(
        "--config",
        default=CONFIG,
        metavar="FILE",
        help=f"the table's configuration (default {CONFIG})",
    )
    parser.add_argument(
        "--state-dir",
        default=STATE_DIR,
        type=directory,
        metavar="DIR",
        help=f"ledger and surveillance store, made if missing (default {STATE_DIR})",
    )
    parser.add_argument(
        "--runtime-dir",
        default=RUNTIME_DIR,
        type=directory,
        metavar="DIR",
        help=f"control socket and locks, made if missing (default {RUNTIME_DIR})",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    parser.add_argument(
        "--exit-with-parent",
        action="store_true",
        help="stop cleanly when the process that started it dies (the rig)",
    )
    return parser.parse_args(argv)


def make_directories(args: argparse.Namespace) -> str | None:
    """The state and runtime directories made when missing; what is wrong, naming the
    option, when one cannot be (``--state-dir /proc/x``), else None."""
    for option, path in (("--state-dir", args.state_dir), ("--runtime-dir", args.runtime_dir)):
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            return f"{option} {path}: cannot make it: {exc.strerror or exc}"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    parent = os.getppid() if args.exit_with_parent else None
    journal_fields = configure_logging(args.verbose)
    # errors printed to stderr carry journald's <3> prefix under systemd (journalctl -p err)
    error = with_prefix if stderr_is_journal() else str
    try:
        config = load_table_config(args.config)
    except CroupierError as exc:
        print(error(f"croupierd: configuration problems:\n{exc}"), file=sys.stderr)
        return 2
    journal_fields["TABLE"] = config.table_id
    problem = make_directories(args)
    if problem is not None:
        print(error(f"croupierd: {problem} (see croupierd --help)"), file=sys.stderr)
        return 2
    try:
        # until serve() hands them to its event loop, SIGTERM and SIGHUP stop the start-up as
        # Ctrl-C does (KeyboardInterrupt): what was started is closed on the way out
        with (
            StopOnSignals(),
            InstanceLock(args.runtime_dir / "croupierd.lock", f"croupierd on {args.runtime_dir}"),
        ):
            return asyncio.run(serve(config, args.state_dir, args.runtime_dir, parent=parent))
    except (CroupierError, DriverError, OSError) as exc:
        print(error(f"croupierd: cannot run the table: {exc}"), file=sys.stderr)
        return 1
    except KeyboardInterrupt as exc:
        name = signal_name(exc.signum) if isinstance(exc, StopSignal) else "SIGINT"
        log.log(NOTICE, "stopped on %s while starting", name)
        return 0


if __name__ == "__main__":
    sys.exit(main())
