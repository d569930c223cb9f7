"""The commands a technician types most, read without argparse: ``status``, ``meters``,
``events tail`` and the dealer's two buttons ``round lock`` and ``round confirm``, with the
options they take.

On a Pi 3-class CPU importing argparse (with ``re`` and ``gettext``) and building a command's
parser is a third of what ``croupier status`` costs (bench/pi_budget.py). For these commands
:func:`read_quickly` reads the command line itself into the same values argparse would give,
and gives up (``None``: argparse reads it, with its help, errors and suggestions) on anything
it does not know for sure: ``--help``, an unknown or abbreviated option, ``--opt=value``, a
value starting with ``-``, a number it does not read exactly as the argument type would, a
word it does not expect. So the quick reading never differs from argparse's, only skips it;
tests/unit/cli/test_cli_quick.py holds the two equal on generated command lines, the
defaults below included.
"""

from __future__ import annotations

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
    given); ``repeat``: each use appends (argparse's ``action="append"``)."""

    __slots__ = ("dest", "read", "repeat")

    def __init__(self, dest: str, read: Reader | None = None, *, repeat: bool = False) -> None:
        self.dest = dest
        self.read = read
        self.repeat = repeat


class QuickCommand:
    """The words of a command, the function that runs it (module, name), the options it takes
    after its words, and the values argparse sets when an option is absent."""

    __slots__ = ("defaults", "function", "module", "options", "words")

    def __init__(
        self,
        words: tuple[str, ...],
        run: tuple[str, str],
        options: dict[str, Option],
        defaults: dict[str, Any],
    ) -> None:
        self.words = words
        self.module, self.function = run
        self.options = options
        self.defaults = defaults


def text(value: str) -> str:
    return value


def whole_number(low: int) -> Reader:
    """``controller.cli.argtypes.integer(low)`` for plain ASCII digits."""

    def read(value: str) -> int | None:
        if not (value.isascii() and value.isdigit()) or int(value) < low:
            return None
        return int(value)

    return read


def seconds(low: float, high: float) -> Reader:
    """``controller.cli.argtypes.seconds(low, high)`` for ASCII digits with one point at most."""

    def read(value: str) -> float | None:
        digits = value.replace(".", "", 1)
        if not (digits.isascii() and digits.isdigit()) or not low <= float(value) <= high:
            return None
        return float(value)

    return read


# The global options (controller.cli.main.GLOBAL_OPTIONS), before or after the command
GLOBAL = {"--socket": Option("socket", text), "--json": Option("json")}
# A ledger read from its file (controller.cli.ledger_args.add_db_flag)
LEDGER_FILE = {"--db": Option("db", text), "--key": Option("key", text), **GLOBAL}

COMMANDS = {
    command.words: command
    for command in (
        QuickCommand(("status",), ("controller.cli.status_cmd", "status"), GLOBAL, {}),
        QuickCommand(
            ("meters",),
            ("controller.cli.meters_cmd", "show"),
            {**LEDGER_FILE, "--config": Option("config", text)},
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
        *(
            QuickCommand(
                ("round", button), ("controller.cli.table_cmd", "round_button"), GLOBAL, {}
            )
            for button in ("lock", "confirm")
        ),
    )
}


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
    at = _options(argv, at + len(command.words), command.options, values)
    if at != len(argv):
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
