"""``make demo``: the whole simulated table on any Linux box, with a live view.

    python -m controller.rig.demo [--autoplay] [--rounds N] [--state-dir DIR] [--fresh]

A real ``croupierd`` on ``config/sim.toml`` (Ultimate Texas Hold'em, Greek rules, with its
progressive): the reference shuffler emulator on a pseudo-terminal, the rig's pins standing
in for the seat sensors, the console buttons and the lamps, the sign on luma's dummy device.
The terminal shows the sign as it would look, the seats with their stakes and lamps, the
round's state, the last verdict and settlement (:mod:`controller.rig.view`). Keys place
stakes, press LOCK and CONFIRM, arm a shuffler fault or a royal flush, kill the daemon; ``a``
or ``--autoplay`` lets a robot dealer play (:mod:`controller.rig.live`).

Ctrl-C (or ``q``), SIGTERM and SIGHUP stop everything cleanly: the daemon and its emulator
are stopped, the terminal restored, the runtime directory removed; when the daemon fails, its
last log lines are shown. The ledger stays in the state directory (default
``.sim/state``, the daemon's log in it, ``.sim/state/croupierd.log``): the next start goes on
from the same meters (a round cut short is voided at start-up, MD-S2); ``--fresh`` starts a
new ledger (it removes the state directory only when it holds a ledger or nothing).

Without a terminal (CI, a pipe) it plays ``--rounds`` rounds (default 5) by itself, prints
each, the table as it ends and where the ledger and the log are, and exits 0 when every round
played.

Exit status: 0 done, 1 the table failed (its configuration refused, the daemon stopped), 2 a
usage error (an option's value: a ``--state-dir`` that is a file or cannot be made, a
``--config`` that is not there, ``--rounds 0``), 128 + N when stopped by SIGTERM or SIGHUP
(Ctrl-C is a way out, as ``q``: 0).
"""

from __future__ import annotations

import argparse
import contextlib
import locale
import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from controller.arguments import CroupierParser
from controller.errors import CroupierError
from controller.files import check_input, directory, path_argument
from controller.rig.live import LiveTable
from controller.rig.table import REPO_CONFIG, SimTable
from controller.rig.view import for_terminal, pools_text, render
from controller.stop_signals import StopOnSignals, StopSignal
from controller.validation import ConfigError
from drivers.errors import DriverError

SIM_DIR = Path(".sim")
HEADLESS_ROUNDS = 5
REFRESH = 0.2  # seconds between two pictures of the table
HELP = "make demo ARGS=--help"  # `make demo --help` is make's own
LOG_LINES = 15  # the daemon's last lines shown when it fails


def rounds(text: str) -> int:
    """``--rounds``: a whole number of rounds, at least 1 (0 rounds is no demo)."""
    import argparse  # loaded already: argparse is reading the value

    if not (text.isascii() and text.isdigit()) or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of rounds (1 or more)")
    return int(text)


def _config_file(text: str) -> None:
    check_input(text)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line, read with the CLI's parser (controller.arguments): a bad value is one
    line naming its option, exit status 2."""
    p = CroupierParser(prog="make demo", description=__doc__.split("\n\n")[0], see=HELP)
    p.add_argument("--autoplay", action="store_true", help="a robot dealer plays from the start")
    p.add_argument(
        "--rounds",
        type=rounds,
        help=f"autoplay this many rounds (1 or more), then stop (without a"
        f" terminal: default {HEADLESS_ROUNDS})",
    )
    p.add_argument(
        "--state-dir",
        type=directory,
        default=SIM_DIR / "state",
        metavar="DIR",
        help="where the ledger and the daemon's log are kept, made if missing (default .sim/state)",
    )
    p.add_argument(
        "--config",
        type=path_argument(_config_file),
        default=REPO_CONFIG,
        metavar="FILE",
        help="the table (default config/sim.toml)",
    )
    p.add_argument(
        "--fresh",
        action="store_true",
        help="start a new ledger (the state directory's files are removed)",
    )
    return p.parse_args(argv)


def make_state_dir(state_dir: Path, fresh: bool) -> str | None:
    """The state directory made (emptied first with ``fresh``); what is wrong, naming the
    option, when it cannot be, else None. ``--fresh`` removes a directory only when it holds a
    ledger or nothing: ``--state-dir ~ --fresh`` must not remove a home."""
    if fresh and state_dir.is_dir():
        if any(state_dir.iterdir()) and not any(state_dir.glob("*.sqlite3")):
            return f"--fresh: {state_dir} holds no ledger: not the demo's; not removed"
        shutil.rmtree(state_dir, ignore_errors=True)
    try:
        state_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"--state-dir {state_dir}: cannot make it: {exc.strerror or exc}"
    return None


def pool_line(table: SimTable) -> str:
    pools = pools_text(table.status(), table.config.profile.money.currency)
    return f"{pools}; ledger {table.ledger_path}"


def headless(live: LiveTable, rounds: int) -> int:
    """No terminal: autoplay ``rounds`` rounds, print them, exit."""
    print(f"croupier demo without a terminal: {rounds} rounds by the robot dealer", flush=True)
    print(f"  {pool_line(live.table)}", flush=True)
    live.on_message = lambda message: print(f"  {message}", flush=True)
    live.start_autoplay(limit=rounds)
    live.wait_autoplay()
    table = live.table
    amounts = list(table.status()["pools"].values())
    if amounts and table.shown_amount(amounts[0]) is not None:
        with contextlib.suppress(CroupierError):  # let the sign roll up to the last amount
            wanted = table.shown_amount(amounts[0])
            table.wait_until(lambda: table.sign_text() == wanted, "the sign's roll-up", timeout=5.0)
    print("\n".join(render(live.snapshot(), keys=False)))  # nobody to press the keys
    print(f"played {live.rounds} round(s)")
    return 0 if live.errors == 0 and live.rounds == rounds else 1


def interactive(live: LiveTable, autoplay: bool, rounds: int | None) -> int:
    """The live view in the terminal until ``q`` or Ctrl-C (SIGTERM, SIGHUP), drawn with
    curses: it fits the terminal it has and redraws when the terminal is resized (below
    80x24 it says what size it needs instead); the terminal is restored however the view
    ends."""
    import curses

    locale.setlocale(locale.LC_ALL, "")  # curses draws the LEDs' block character in UTF-8
    screen = curses.initscr()
    try:
        curses.noecho()
        curses.cbreak()
        screen.keypad(True)
        with contextlib.suppress(curses.error):  # a terminal without an invisible cursor
            curses.curs_set(0)
        return _live_view(screen, live, autoplay, rounds)
    finally:
        with contextlib.suppress(curses.error):  # after SIGHUP there is no terminal left
            screen.keypad(False)
            curses.nocbreak()
            curses.echo()
            curses.endwin()


def _live_view(screen: Any, live: LiveTable, autoplay: bool, rounds: int | None) -> int:
    import curses

    lit = "█" if locale.getpreferredencoding(False).lower().replace("-", "") == "utf8" else "#"
    screen.timeout(int(REFRESH * 1000))  # getch() waits at most this long: the refresh rate
    if autoplay:
        live.start_autoplay(limit=rounds)
    while True:
        _follow_resize(screen)
        height, width = screen.getmaxyx()
        screen.erase()
        # below 80x24, what size the view needs, not a view cut off
        for y, line in enumerate(
            for_terminal(live.snapshot(), lit=lit, width=width, height=height)
        ):
            with contextlib.suppress(curses.error):
                screen.addstr(y, 0, line)
        screen.refresh()
        key = screen.getch()
        if 0 <= key < 256 and not live.key(chr(key)):
            return 0


def _follow_resize(screen: Any) -> None:
    """Take the terminal's size now. curses learns of a resize from SIGWINCH, which can reach
    one of the rig's threads instead (seen under tmux): asking the terminal is reliable."""
    import curses

    with contextlib.suppress(OSError):
        size = os.get_terminal_size(sys.__stdout__.fileno())
        if (size.lines, size.columns) != screen.getmaxyx():
            curses.resizeterm(size.lines, size.columns)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    problem = make_state_dir(args.state_dir, args.fresh)
    if problem is not None:
        print(f"make demo: {problem} (see {HELP})", file=sys.stderr)
        return 2
    watched = sys.stdin.isatty() and sys.stdout.isatty()
    log = args.state_dir / "croupierd.log"
    table: SimTable | None = None
    try:
        with StopOnSignals():
            table = SimTable(args.config, state_dir=args.state_dir, log_path=log)
            with table:
                status = _play(table, watched, args)
    except KeyboardInterrupt as exc:  # Ctrl-C, SIGTERM, SIGHUP: the table is stopped
        with contextlib.suppress(OSError):  # after SIGHUP the terminal may be gone
            print(f"stopped ({str(exc) or 'Ctrl-C'})", file=sys.stderr)
        return exc.exit_status if isinstance(exc, StopSignal) else 0  # Ctrl-C: as q
    except ConfigError as exc:  # every problem, named against the file the user gave
        print(f"demo: the table's configuration has problems:\n{exc}", file=sys.stderr)
        return 1
    except (CroupierError, DriverError, OSError) as exc:
        print(f"demo: {exc}".splitlines()[0], file=sys.stderr)
        # this demo's daemon's own lines: the log is shared with the earlier demos on this
        # state directory
        tail = "\n".join(table.final_log.splitlines()[-LOG_LINES:]) if table else ""
        if tail:
            print(f"the daemon's last lines ({log}):", file=sys.stderr)
            print("\n".join(f"  {line}" for line in tail.splitlines()), file=sys.stderr)
        return 1
    return status


def _play(table: SimTable, watched: bool, args: argparse.Namespace) -> int:
    """The started table, watched or headless, until it is done or stopped."""
    live = LiveTable(table, watched=watched)
    table.wait_for_state("open", "closed", timeout=30.0)
    try:
        if watched:
            return interactive(live, args.autoplay, args.rounds)
        return headless(live, HEADLESS_ROUNDS if args.rounds is None else args.rounds)
    finally:
        live.stop_autoplay(timeout=5.0)
        with contextlib.suppress(CroupierError, OSError):
            print(f"stopping the table; {pool_line(table)}; log {table.log_path}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
