"""The commands that only ask the running daemon, read without argparse: ``status``,
``meters`` and ``events tail`` (beside the daemon), the dealer's ``round`` actions that the
console also has (``lock``, ``confirm``, ``stake``, ``seats``, ``decide``, ``cards``,
``misdeal``, ``expose``), ``seat clear`` and ``jackpot ack``.

On a Pi 3-class CPU importing argparse (with ``re``, its enum and ``gettext``) and building a
command's parser is about a third of what ``croupier status`` costs (bench/pi_budget.py). For
these commands :func:`read_quickly` reads a plain command line itself, ``COMMAND [ARGUMENT...]
[OPTION...]`` with the global options before the command too, into the values argparse would
give, and gives up (``None``: argparse reads it, with its help, errors and suggestions) on
anything it does not know for sure: ``--help``, an unknown or abbreviated option,
``--opt=value``, a value starting with ``-``, a number it does not read exactly as the argument
type would, an argument after an option, a missing required option or argument, a word it does
not expect. So the quick reading never differs from argparse's, only skips it;
tests/unit/cli/test_cli_quick.py holds the two equal on generated command lines, each
command's defaults included.
"""

from __future__ import annotations

from controller.cli.argtypes import (
    MONEY_MAX,
    SECONDS,
    WHOLE_MAX,
    WHOLE_NUMBER,
    OutOfLimits,
    within,
)
from controller.texts import text_problem

TYPE_CHECKING = False
if TYPE_CHECKING:  # for the type checker only: importing typing costs every command time
    from collections.abc import Callable, Sequence
    from typing import Any

    Reader = Callable[[str], Any]  # a value's text -> the value, or None: let argparse read it


class Arguments:
    """What argparse's Namespace would hold for the same command line."""

    def __init__(self, values: dict[str, Any]) -> None:
        self.__dict__.update(values)


class Option:
    """One option: its destination; ``read`` converts its value (``None``: a flag, True when
    given); ``repeat``: each use appends (argparse's ``action="append"``); ``required``: the
    command line must give it (argparse says so when it does not)."""

    __slots__ = ("dest", "read", "repeat", "required")

    def __init__(
        self,
        dest: str,
        read: Reader | None = None,
        *,
        repeat: bool = False,
        required: bool = False,
    ) -> None:
        self.dest = dest
        self.read = read
        self.repeat = repeat
        self.required = required


class Argument:
    """One positional argument: its destination, ``read`` for each of its words, and
    ``many``: one word or more (argparse's ``nargs="+"``, a list; the last argument only)."""

    __slots__ = ("dest", "many", "read")

    def __init__(self, dest: str, read: Reader, *, many: bool = False) -> None:
        self.dest = dest
        self.read = read
        self.many = many


class QuickCommand:
    """The words of a command, the function that runs it (module, name), the options it takes
    after its words and arguments, the values argparse sets when an option is absent, and its
    positional arguments."""

    __slots__ = ("arguments", "defaults", "function", "module", "options", "words")

    def __init__(
        self,
        words: tuple[str, ...],
        run: tuple[str, str],
        options: dict[str, Option],
        defaults: dict[str, Any] | None = None,
        arguments: tuple[Argument, ...] = (),
    ) -> None:
        self.words = words
        self.module, self.function = run
        self.options = options
        self.arguments = arguments
        self.defaults = defaults or {}


def text(value: str) -> str:
    return value


def socket_name(value: str) -> str | None:
    """A daemon's socket argparse's check would pass (argtypes.daemon_socket: named, short
    enough to connect to, a socket if anything is there); anything else is left to argparse,
    whose usage error names it."""
    from controller.files import FileRefused, check_socket_to_connect

    try:
        check_socket_to_connect(value)
    except FileRefused:
        return None
    return value


def kept_text(value: str) -> str | None:
    """A text the table keeps, as argtypes.journal_text reads it (the daemon's rule,
    controller.texts); anything else is left to argparse, whose usage error names it."""
    return None if text_problem(value) is not None else value.strip()


def file_path(value: str) -> str | None:
    """A path argparse's check would pass (argtypes.input_name: not empty, a regular file when
    it exists); anything else is left to argparse, whose usage error names the option."""
    from controller.files import FileRefused, check_existing

    try:
        check_existing(value)
    except FileRefused:
        return None
    return value


def number(kind: tuple[Callable[[str], float], str], low: float, high: float | None) -> Reader:
    """A number of ``kind`` (argtypes.WHOLE_NUMBER, argtypes.SECONDS) within ``low..high``,
    read by the CLI's own check (argtypes.within) when written in plain ASCII digits with one
    point at most and 18 digits at most: other forms (``+5``, ``1e3``, a number too long, or
    one argparse refuses: ``5_0``, a fullwidth digit) are argparse's to read."""

    def read(value: str) -> float | None:
        digits = value.replace(".", "", 1) if kind is SECONDS else value
        if not (digits.isascii() and digits.isdigit() and len(digits) <= 18):
            return None
        try:
            return within(value, *kind, low, high)
        except OutOfLimits:
            return None

    return read


def whole_number(low: int, high: int | None = None) -> Reader:
    """``controller.cli.argtypes.integer(low, high)``, plainly written."""
    return number(WHOLE_NUMBER, low, WHOLE_MAX if high is None else high)


def seconds(low: float, high: float) -> Reader:
    """``controller.cli.argtypes.seconds(low, high)``, plainly written."""
    return number(SECONDS, low, high)


# The global options (controller.cli.main.GLOBAL_OPTIONS), before or after the command
GLOBAL = {"--socket": Option("socket", socket_name), "--json": Option("json")}
# A ledger read from its file (controller.cli.ledger_args.add_db_flag)
LEDGER_FILE = {"--db": Option("db", file_path), "--key": Option("key", file_path), **GLOBAL}

# The dealer's actions (controller/cli/round_cmd.py) and the technician's
# (controller/cli/technician_cmd.py), each run by its own function
ROUND = "controller.cli.round_cmd"
TECHNICIAN_ACTS = "controller.cli.technician_cmd"
SEAT = Argument("seat", whole_number(1, 99))
TECHNICIAN = {"--technician": Option("technician", kept_text, required=True), **GLOBAL}

COMMANDS = {
    command.words: command
    for command in (
        QuickCommand(("status",), ("controller.cli.status_cmd", "status"), GLOBAL),
        QuickCommand(
            ("meters",),
            ("controller.cli.meters_cmd", "show"),
            {**LEDGER_FILE, "--config": Option("config", file_path)},
            {"action": None},
        ),
        QuickCommand(
            ("events", "tail"),
            ("controller.cli.events_cmd", "tail"),
            {
                **LEDGER_FILE,
                "-n": Option("n", whole_number(1)),
                "--kind": Option("kind", text, repeat=True),
                "-f": Option("follow"),
                "--follow": Option("follow"),
                "--interval": Option("interval", seconds(0.05, 60)),
            },
            {"n": 20, "kind": None, "follow": False, "interval": 0.5},
        ),
        QuickCommand(("round", "lock"), (ROUND, "round_button"), GLOBAL),
        QuickCommand(("round", "confirm"), (ROUND, "round_button"), GLOBAL),
        QuickCommand(
            ("round", "stake"),
            (ROUND, "round_stake"),
            {"--decision": Option("decision", text), **GLOBAL},
            {"decision": None},
            (SEAT, Argument("stakes", text, many=True)),
        ),
        QuickCommand(("round", "withdraw"), (ROUND, "round_withdraw"), GLOBAL, arguments=(SEAT,)),
        QuickCommand(
            ("round", "seats"),
            (ROUND, "round_seats"),
            GLOBAL,
            arguments=(Argument("seats", whole_number(1, 99), many=True),),
        ),
        QuickCommand(
            ("round", "decide"),
            (ROUND, "round_decide"),
            {"--amount": Option("amount", whole_number(0, MONEY_MAX)), **GLOBAL},
            {"amount": 0},
            (SEAT, Argument("decision", text)),
        ),
        QuickCommand(
            ("round", "cards"),
            (ROUND, "round_cards"),
            GLOBAL,
            arguments=(Argument("destination", text), Argument("cards", text, many=True)),
        ),
        QuickCommand(
            ("round", "misdeal"),
            (ROUND, "round_misdeal"),
            GLOBAL,
            arguments=(Argument("rule", text), Argument("reason", kept_text)),
        ),
        QuickCommand(
            ("round", "expose"),
            (ROUND, "round_expose"),
            {
                "--card": Option("positions", whole_number(1, 2), repeat=True),
                "--community": Option("community", whole_number(1, 5), repeat=True),
                **GLOBAL,
            },
            {"positions": None, "community": None},
        ),
        QuickCommand(
            ("seat", "clear"), (TECHNICIAN_ACTS, "seat_clear"), TECHNICIAN, arguments=(SEAT,)
        ),
        QuickCommand(("jackpot", "ack"), (TECHNICIAN_ACTS, "jackpot_ack"), TECHNICIAN),
    )
}


def _arguments(
    words: Sequence[str], arguments: tuple[Argument, ...], values: dict[str, Any]
) -> bool:
    """Read the positional ``words`` into ``values``; False for anything argparse must read
    (too few or too many words, a value it would refuse)."""
    if len(words) < len(arguments) or (
        len(words) > len(arguments) and not (arguments and arguments[-1].many)
    ):
        return False
    for number, argument in enumerate(arguments):
        taken = words[number:] if argument.many else words[number : number + 1]
        read = [argument.read(word) for word in taken]
        if None in read:
            return False
        values[argument.dest] = read if argument.many else read[0]
    return True


def _options(
    argv: Sequence[str], at: int, options: dict[str, Option], values: dict[str, Any]
) -> int | None:
    """Read the options from ``argv[at]`` into ``values``, up to the first word that is not
    one: its index; ``None`` for anything argparse must read."""
    while at < len(argv) and argv[at].startswith("-"):
        option = options.get(argv[at])
        if option is None:
            return None
        if option.read is None:
            values[option.dest] = True
            at += 1
            continue
        if at + 1 == len(argv) or argv[at + 1].startswith("-"):
            return None
        value = option.read(argv[at + 1])
        if value is None:
            return None
        if option.repeat:
            values.setdefault(option.dest, []).append(value)
        else:
            values[option.dest] = value
        at += 2
    return at


def read_quickly(argv: Sequence[str]) -> Arguments | None:
    """The arguments of a quick command as argparse would read them, with its function as
    ``func``; ``None`` when argparse must read ``argv``."""
    values: dict[str, Any] = {}
    at = _options(argv, 0, GLOBAL, values)
    if at is None:
        return None
    command = COMMANDS.get(tuple(argv[at : at + 1])) or COMMANDS.get(tuple(argv[at : at + 2]))
    if command is None:
        return None
    at += len(command.words)
    first_option = at
    while first_option < len(argv) and not argv[first_option].startswith("-"):
        first_option += 1
    if not _arguments(argv[at:first_option], command.arguments, values):
        return None
    at = _options(argv, first_option, command.options, values)
    if at != len(argv):
        return None
    if any(o.required and o.dest not in values for o in command.options.values()):
        return None
    module = __import__(command.module, fromlist=[command.function])
    return Arguments(
        {
            "command": command.words[0],
            **({"action": command.words[1]} if len(command.words) > 1 else {}),
            "json": False,
            **command.defaults,
            **values,
            "func": getattr(module, command.function),
        }
    )
