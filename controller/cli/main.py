"""``croupier``: the technician CLI.

Each command group lives in its own module under ``controller/cli/`` and exposes
``register(subparsers)``, which adds its sub-parser(s) and sets ``func(args) -> int`` as the
default; an optional ``EXAMPLES`` mapping (command -> lines) becomes the epilog of its
``--help``. :data:`COMMAND_GROUPS` lists the modules with the commands each registers: only
the module of the command asked for is imported (``croupier status`` does not load NumPy or
the engine), all of them for the shell completion, none for ``--help`` or a typo. A command
module imports only light modules at its top, so that its parser (its ``--help``, a usage
error) is quick on a Pi-class CPU: the engine, books, table, rig, drivers and their libraries
are imported by the functions that run the command, and the choices and defaults a help names
are written in the CLI (tests/unit/cli/test_cli_imports.py and test_cli_light_choices.py).

The commands that only ask the daemon (``status``, ``meters`` and ``events tail`` beside it,
the dealer's ``round`` actions, ``seat clear``, ``jackpot ack``) are read without argparse when
their command line is plain (controller.cli.quick: the same values, or argparse reads it), and
talk to the daemon through json's C codec (controller.quick_json): on a Pi-class CPU argparse
and json with ``re`` are over a third of what such a command costs. This module therefore
imports argparse only to build a parser (controller.cli.parser).

Global options (``--socket``, ``--json``) work before the command, between a group and its
action, or after it, as in ``croupier --socket S status``, ``croupier events --socket S tail``
or ``croupier status --json``. ``croupier help COMMAND`` is ``croupier COMMAND --help``;
``croupier -V`` and ``croupier version`` are ``--version`` (with ``--json``: ``{"version": ...}``).
A command takes ``--json`` only if it prints JSON with it, ``--socket`` only if it talks to the
daemon; given to one that does not (before it, or between its group and it), either is a usage
error naming the command (:func:`_refuse_unoffered`), never ignored.

Exit status: 0 done; 1 a failure (no daemon, a device or file that cannot be used, a check
that found problems, a stdout that cannot be written); 2 a usage error (unknown command or
option, a value out of its limits, a value the daemon refuses as malformed); 128 + N when
stopped by signal N (130 for Ctrl-C). Every error is one line on stderr, a long value in it
shortened; a Python traceback only with ``CROUPIER_DEBUG=1``. A command started with stdout
closed runs nothing.

Commands that opt in (``add_json_errors``) also print an error with ``--json`` as a JSON object
with the message and the rule ID on stdout (controller.cli.output.error_json).
"""

from __future__ import annotations

import os
import sys

from controller.cli.argtypes import UsageError, daemon_socket, shortened
from controller.cli.quick import read_quickly
from controller.errors import CroupierError

TYPE_CHECKING = False
if TYPE_CHECKING:  # for the type checker only: importing typing costs every command time
    import argparse
    from collections.abc import Sequence
    from typing import Any

    from controller.cli.parser import CroupierParser

# Command-group modules, in the order `croupier --help` lists them, with the commands each
# registers and their one-line help (written here only: the module's parser takes it with
# add_command), so that only the module of the command asked for is imported, and
# `croupier --help` or a mistyped command imports none.
COMMAND_GROUPS: list[tuple[str, dict[str, str]]] = [
    ("controller.cli.eval_cmd", {"eval": "evaluate a poker hand of 5 to 7 cards"}),
    (
        "controller.cli.settle_cmd",
        {
            "settle": "settle a recorded round (JSON file, or - for stdin)",
        },
    ),
    (
        "controller.cli.par_cmd",
        {
            "par": "exact PAR sheet of every side bet of a profile (enumeration, no sampling)",
        },
    ),
    (
        "controller.cli.shuffler_cmd",
        {
            "shuffler": "talk to the card shuffler (info, deck check, test deal)",
        },
    ),
    ("controller.cli.emulator_cmd", {"emulator": "run the reference shuffler emulator on a pty"}),
    ("controller.cli.meters_cmd", {"meters": "progressive meters, hit history and ledger checks"}),
    ("controller.cli.events_cmd", {"events": "the event journal: tail, verify"}),
    (
        "controller.cli.selfcheck_cmd",
        {
            "selfcheck": "power-up self-check: manifest, status, run, clear",
        },
    ),
    (
        "controller.cli.ledger_key_cmd",
        {
            "ledger-key": "the per-table ledger key: create, show, adopt, rotate",
        },
    ),
    ("controller.cli.sensors_cmd", {"sensors": "seat bet sensors and dealer console"}),
    ("controller.cli.lamps_cmd", {"lamps": "seat and status lamps"}),
    ("controller.cli.sign_cmd", {"sign": "the LED progressive sign"}),
    (
        "controller.cli.status_cmd",
        {
            "status": "the live table: state, round, link, sensors, pools",
        },
    ),
    (
        "controller.cli.technician_cmd",
        {
            "jackpot": "acknowledge a jackpot (technician)",
            "seat": "clear a seat excluded for a sensor fault (technician)",
        },
    ),
    ("controller.cli.round_cmd", {"round": "the round in play, and recorded rounds"}),
    (
        "controller.cli.config_cmd",
        {"config": "check a table configuration, make a credential hash"},
    ),
    ("controller.cli.pool_cmd", {"pool": "linked progressive pools in a PostgreSQL store"}),
    (
        "controller.cli.report_cmd",
        {
            "report": "documents for regulators: gaming-day report, proposal",
        },
    ),
    (
        "controller.cli.verify_software_cmd",
        {
            "verify-software": "keyed digest of every software component (regulator, lab)",
        },
    ),
    (
        "controller.cli.evidence_cmd",
        {
            "evidence": "the signed evidence bundle of a round (jackpots)",
        },
    ),
    ("controller.cli.rig_cmd", {"rig": "hardware-in-the-loop rig: scenarios and soak"}),
    (
        "controller.cli.sim_cmd",
        {
            "sim": "deterministic simulation of a whole table, from one seed",
        },
    ),
    ("controller.cli.completion_cmd", {"completion": "print the shell completion script"}),
]
COMMAND_HELP = {name: text for _, commands in COMMAND_GROUPS for name, text in commands.items()}

# Options every command takes, before or after the command: (flags, argparse keywords,
# the value when not given). Commands add them with the same keywords (output.add_json_flag,
# daemon_client.add_socket_flag); argparse.SUPPRESS keeps a value given before the command.
GLOBAL_OPTIONS: list[tuple[tuple[str, ...], dict[str, Any], Any]] = [
    (
        ("--socket",),
        {
            "metavar": "PATH",
            "type": daemon_socket,
            "help": "the daemon's control socket (default $CROUPIER_SOCKET or"
            " /run/croupier/control.sock)",
        },
        None,
    ),
    (("--json",), {"action": "store_true", "help": "print JSON for scripts"}, False),
]

DESCRIPTION = "Croupier table controller: technician tools."
EPILOG = """examples:
  croupier status                       the live table (daemon on /run/croupier)
  croupier --socket /tmp/sim/run/control.sock status --json
  croupier meters                       progressive meters, as money
  croupier COMMAND --help               each command's options and examples

exit status: 0 done, 1 a failure, 2 a usage error; 128+N stopped by signal N"""


def add_global_options(parser: argparse.ArgumentParser, *names: str) -> None:
    """Add the global options (``names``, default all) to a parser, suppressed when absent.
    Every command's parser has them (build_parser adds those a group's parser lacks), so they
    work before the command, between a group and its action, and after."""
    import argparse

    for flags, kwargs, _ in GLOBAL_OPTIONS:
        if not names or flags[0] in names:
            parser.add_argument(*flags, default=argparse.SUPPRESS, **kwargs)


def _command_word(argv: Sequence[str]) -> str | None:
    """The command in ``argv``, skipping global options and their values (an option may be
    shortened, as argparse allows: ``--sock PATH``)."""
    takes_value = [flags[0] for flags, kwargs, _ in GLOBAL_OPTIONS if "action" not in kwargs]
    words = iter(argv)
    for word in words:
        if len(word) > 2 and any(flag.startswith(word) for flag in takes_value):
            next(words, None)
        elif not word.startswith("-"):
            return word
    return None


def add_command(sub: argparse._SubParsersAction, name: str) -> argparse.ArgumentParser:
    """The parser of the command ``name``, with its one-line help from COMMAND_GROUPS."""
    parser: argparse.ArgumentParser = sub.add_parser(name, help=COMMAND_HELP[name])
    return parser


def build_parser(only: str | None = None, *, commands_only: bool = False) -> CroupierParser:
    """The whole parser, or with ``only`` the parser of that command's group alone; with
    ``commands_only`` the command names and their help without their options (all that
    ``croupier --help`` and a mistyped command need: no command module is imported)."""
    import importlib

    from controller.cli.parser import CroupierParser, VersionAction

    parser = CroupierParser(prog="croupier", description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument("-V", "--version", action=VersionAction)
    add_global_options(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name, commands in COMMAND_GROUPS:
        if only is not None and only not in commands:
            continue
        if commands_only:
            for name in commands:
                add_command(sub, name)
            continue
        module = importlib.import_module(module_name)
        module.register(sub)
        for command, lines in getattr(module, "EXAMPLES", {}).items():
            _add_examples(sub.choices[command], f"croupier {command}", lines)
        for command in commands:
            group = sub.choices[command]
            _mark_offered(group)
            if group._subparsers is None:  # a command without actions offers what it takes
                continue
            missing = [  # `events --socket S tail`, as `croupier --socket S events`
                f[0] for f, _, _ in GLOBAL_OPTIONS if f[0] not in group._option_string_actions
            ]
            if missing:
                add_global_options(group, *missing)
    return parser


def _mark_offered(parser: argparse.ArgumentParser) -> None:
    """Each runnable command (its own parser, and its actions') records which global options
    it takes, before a group adds them all for `events --socket S tail`: a global option
    given to a command that does not take it (``croupier --json report keygen``: no JSON to
    print) is a usage error (:func:`_refuse_unoffered`), not an option silently ignored."""
    import argparse

    if parser.get_default("func") is not None:
        offered = [f[0] for f, _, _ in GLOBAL_OPTIONS if f[0] in parser._option_string_actions]
        parser.set_defaults(global_offered=(parser.prog, tuple(offered)))
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                _mark_offered(child)


def _refuse_unoffered(args: argparse.Namespace) -> None:
    """A global option given (before the command, or between a group and its action) to a
    command that does not take it: a usage error naming the command, exit status 2."""
    prog, offered = getattr(args, "global_offered", ("croupier", ()))
    for flags, _, default in GLOBAL_OPTIONS:
        dest = flags[0].lstrip("-").replace("-", "_")
        given = getattr(args, dest, default)
        if given not in (None, default) and flags[0] not in offered:
            why = "prints no JSON" if flags[0] == "--json" else "does not talk to the daemon"
            message = f"{prog}: {flags[0]} is not an option of this command (it {why})"
            sys.stderr.write(f"{message} (see {prog} --help)\n")
            raise SystemExit(2)


def _add_examples(parser: argparse.ArgumentParser, words: str, lines: list[str]) -> None:
    """The examples as the epilog of a command's ``--help``, and each action's own ones
    (``croupier round stake ...``) as the epilog of that action's ``--help`` too."""
    parser.epilog = "examples:\n" + "\n".join(f"  {x}" for x in lines)
    for action in parser._subparsers._group_actions if parser._subparsers else ():
        for name, child in (action.choices or {}).items():
            own = [x for x in lines if f"{words} {name} " in f"{x} "]
            if own:
                _add_examples(child, f"{words} {name}", own)


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        where = exc.filename if exc.filename is not None else ""
        return shortened(f"{where}: {exc.strerror}" if where else exc.strerror)
    text = "; ".join(line.strip() for line in str(exc).splitlines() if line.strip())
    return shortened(text) or type(exc).__name__


# The base error of each of our other packages: a failure, not a bug
PACKAGE_ERRORS = (
    ("display.errors", "DisplayError"),
    ("drivers.errors", "DriverError"),
    ("firmware_bridge.errors", "LinkError"),
)


def _failures() -> tuple[type[BaseException], ...]:
    """The errors raised on purpose by our packages and the OS: a failure, not a bug. A
    package the command never imported cannot have raised its errors, so only the loaded ones
    are looked up (`croupier status` with no daemon fails as quickly as it runs)."""
    found: list[type[BaseException]] = [CroupierError, OSError]
    for module_name, error in PACKAGE_ERRORS:
        module = sys.modules.get(module_name)
        if module is not None:
            found.append(getattr(module, error))
    return tuple(found)


def _json_error(args: argparse.Namespace, exc: BaseException) -> None:
    """With ``--json``, a command that opted in (``add_json_errors``) also prints its error as a
    JSON object on stdout, so scripts need not parse stderr."""
    if getattr(args, "json_errors", False) and getattr(args, "json", False):
        from controller.cli.output import error_json, print_json

        try:
            print_json(error_json(exc))
            sys.stdout.flush()
        except OSError:  # `| head` gone, or stdout is what failed: the error is on stderr
            _stdout_gone()


def _stdout_gone() -> None:
    """The reader of stdout went away: send the rest (and Python's final flush) nowhere."""
    with open(os.devnull, "w") as devnull:
        os.dup2(devnull.fileno(), sys.stdout.fileno())


def _parse(argv: list[str]) -> argparse.Namespace | None:
    """``argv`` read by the command's parser (argparse exits on a usage error or ``--help``);
    ``None`` when no command was named (the help is printed)."""
    word = _command_word(argv)
    known = word in COMMAND_HELP
    parser = build_parser(word if known else None, commands_only=not known)
    args = parser.parse_args(argv)
    for flags, _, default in GLOBAL_OPTIONS:
        dest = flags[0].lstrip("-").replace("-", "_")
        if not hasattr(args, dest) and dest != "socket":  # socket: getattr(), then $ENV
            setattr(args, dest, default)
    if not getattr(args, "func", None):
        parser.print_help()
        return None
    _refuse_unoffered(args)
    del args.global_offered  # the quick reading's arguments are argparse's, word for word
    return args


def _arguments(argv: list[str]) -> argparse.Namespace | int:
    """The command line read, or the exit status of a command line answered already
    (``--version``; the help, when no command is named)."""
    asked = [word for word in argv if word != "--json"]
    if asked in (["--version"], ["-V"], ["version"]):  # the quickest: no module loaded
        from controller import __version__

        if asked != argv:  # `croupier version --json`: for a script
            from controller.cli.output import print_json

            print_json({"version": __version__})
        else:
            print(f"croupier {__version__}")
        return 0
    if argv[:1] == ["version"]:  # the word is known, what follows it is not
        extra = shortened(" ".join(asked[1:]))
        print(
            f"croupier version: unrecognized arguments: {extra} (see croupier --help)",
            file=sys.stderr,
        )
        return 2
    if argv[:1] == ["help"]:  # `croupier help round stake`, as git's
        argv = [*argv[1:], "--help"] if argv[1:2] != ["help"] else ["--help"]
    args = read_quickly(argv)  # the commands typed most, read without argparse
    if args is None:
        args = _parse(argv)
    return 2 if args is None else args


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command line; its exit status. What the command printed has reached stdout
    when this returns (or argparse's SystemExit leaves): a stdout that cannot be written is a
    failure in one line, not a traceback at the interpreter's exit."""
    if sys.stdout is None:  # started with stdout closed (`croupier status >&-`)
        print("croupier: standard output is closed; nothing was run", file=sys.stderr)
        return 1
    try:
        status = _run(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as exc:  # argparse's --help (0) or usage error (2)
        code = exc.code if isinstance(exc.code, int) else 2
        if _flushed(code) != code:
            return 1
        raise
    return _flushed(status)


def _flushed(status: int) -> int:
    """``status`` once stdout is flushed; 1 (with one line on stderr) when it cannot be
    written (a full disk, ``>/dev/full``); a reader gone away (``| head``) is not a failure."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _stdout_gone()
    except OSError as exc:
        return _cannot_write(exc)
    return status


def _cannot_write(exc: OSError) -> int:
    """Stdout cannot be written: said in one line; the rest of the output goes nowhere."""
    _stdout_gone()
    print(f"croupier: cannot write to standard output: {_one_line(exc)}", file=sys.stderr)
    return 1


def _run(argv: list[str]) -> int:
    try:
        args = _arguments(argv)
    except BrokenPipeError:  # `croupier --help | head`: the argparse of Debian 12's Python
        _stdout_gone()  # (3.11.2) lets it out of a help; later 3.11 releases catch it
        return 0
    except OSError as exc:  # reading the command line writes only its help or version
        return _cannot_write(exc)
    if isinstance(args, int):
        return args
    from controller.stop_signals import StopOnSignals, exit_status

    name = f"croupier {args.command}"
    try:
        with StopOnSignals():
            return int(args.func(args) or 0)
    except UsageError as exc:
        _json_error(args, exc)
        print(f"{name}: {_one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:  # Ctrl-C, SIGTERM, SIGHUP: cleaned up on the way out
        return exit_status(exc)
    except BrokenPipeError:  # `croupier ... | head`
        _stdout_gone()
        return 0
    except Exception as exc:
        if os.environ.get("CROUPIER_DEBUG"):
            raise
        if isinstance(exc, OSError) and _flushed(0):  # the output could not be written
            return 1  # (said by _flushed)
        if isinstance(exc, _failures()):
            _json_error(args, exc)
            print(f"{name}: {_one_line(exc)}", file=sys.stderr)
        else:
            print(
                f"{name}: internal error ({type(exc).__name__}: {_one_line(exc)}); run"
                " again with CROUPIER_DEBUG=1 for the traceback",
                file=sys.stderr,
            )
        return 1


if __name__ == "__main__":
    sys.exit(main())
