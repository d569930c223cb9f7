"""Argument types with their limits written down, and the usage error of the CLI.

Every number the technician types is checked by argparse when it is read, against the limits
named here, so a bad value is a usage error (one line, exit status 2) before any work starts:
``lamps test --step -1`` says ``--step: -1 is below 0`` instead of failing deep inside
``time.sleep``. Bare ``type=int`` / ``type=float`` are not used in the CLI (a test walks the
parser tree and holds every option to it). A number is written in ASCII digits (a whole number
with an optional sign): ``int()`` alone reads ``\u0666`` as 6, a value nobody checking the
command line sees.

Paths are checked the same way, by what the command does with them (controller.files has the
rules): :data:`input_file` (read), :data:`output_file` and :func:`output_or_stdout` (written
atomically), :data:`png_file`, :data:`link_path` and :data:`socket_path` (made there). An empty
path, a directory, a fifo or a device where a file is read or written, or a file where a link
is made, is a usage error naming the option before any work starts.
"""

from __future__ import annotations

import math

from controller.errors import CroupierError
from controller.files import directory as directory  # --state-dir: made when missing
from controller.files import path_argument
from controller.texts import escaped, text_problem
from controller.texts import shortened as shortened  # where the CLI has always taken it

TYPE_CHECKING = False
if TYPE_CHECKING:  # for the type checker only: pathlib is imported when a path is given
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any


class UsageError(CroupierError, ValueError):
    """The command line asks for something impossible (exit status 2, like argparse's own
    usage errors); found after parsing, e.g. a lamp name the configuration does not have."""


class OutOfLimits(ValueError):
    """A value its type or its limits refuse; the message says which, naming the value."""


def whole(text: str) -> int:
    """``text`` as a whole number: ASCII digits with an optional sign, and nothing else.
    ``int()`` alone also reads the digits of other scripts (``\u0666``, a fullwidth 5), ``_``
    between digits and spaces around them: a value the technician did not see as typed."""
    digits = text[1:] if text[:1] in ("+", "-") else text
    if not (digits.isascii() and digits.isdigit()):
        raise ValueError(text)
    return int(text)


def decimal(text: str) -> float:
    """``text`` as a number with a fraction, written in ASCII (``float()`` alone reads the
    digits of other scripts too)."""
    if not text.isascii():
        raise ValueError(text)
    return float(text)


# The kinds of number the CLI reads: how the text converts, and how a message names it
WHOLE_NUMBER = (whole, "a whole number")
SECONDS = (decimal, "a number of seconds")


def within(
    text: str, convert: Callable[[str], float], kind: str, low: float | None, high: float | None
) -> float:
    """``text`` as a number of ``kind`` within ``low..high``, else :class:`OutOfLimits`."""
    try:
        value = convert(text)
    except ValueError:
        raise OutOfLimits(f"{text!r} is not {kind}") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise OutOfLimits(f"{text!r} is not a finite number")
    if low is not None and value < low:
        raise OutOfLimits(f"{text} is below {_written(low)}")
    if high is not None and value > high:
        raise OutOfLimits(f"{text} is above {_written(high)}")
    return value


def _written(limit: float) -> str:
    """A limit as a message shows it: a whole number in full, a fraction briefly."""
    return str(limit) if isinstance(limit, int) else f"{limit:g}"


def _argument_type(
    read: Callable[[str], Any], kind: str, limits: tuple[float | None, float | None]
) -> Callable[[str], Any]:
    """An argument type: ``read``'s value, its :class:`OutOfLimits` a usage error naming the
    option (argparse's, one line, exit status 2); ``limits`` for the tests that walk the
    parsers."""

    def parse(text: str) -> Any:
        try:
            return read(text)
        except OutOfLimits as exc:
            import argparse  # loaded already: argparse is reading the value

            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = kind  # argparse names the type in some messages
    parse.limits = limits  # type: ignore[attr-defined]
    return parse


def _bounded(
    convert: Callable[[str], float], kind: str, low: float | None, high: float | None
) -> Callable[[str], float]:
    return _argument_type(lambda text: within(text, convert, kind, low, high), kind, (low, high))


# The largest whole number the CLI reads where no lower limit is written: the ledger's SQLite
# and the control socket's JSON keep 64-bit integers (`meters hits -n 99999999999999999999`
# is a usage error, not an overflow deep in SQLite)
WHOLE_MAX = 2**63 - 1


def integer(low: int | None = None, high: int | None = None) -> Callable[[str], int]:
    """A whole number within ``low..high`` (``low`` open with ``None``; ``high`` at most
    :data:`WHOLE_MAX`)."""
    return _bounded(*WHOLE_NUMBER, low, WHOLE_MAX if high is None else high)  # type: ignore[return-value]


# controller.validation.MONEY_MAX, the most any one amount of money may be (minor units),
# written here so that a parser imports neither the validation code nor its dataclasses
# (tests/unit/cli/test_cli_light_choices.py holds them equal)
MONEY_MAX = 10**12


def money_value(text: str) -> int:
    """``text`` as an amount of money in minor units, ``0..MONEY_MAX``; :class:`OutOfLimits`
    naming the value (and the money limit) otherwise."""
    value = int(within(text, *WHOLE_NUMBER, 0, None))
    if value > MONEY_MAX:
        raise OutOfLimits(f"{text} is above the money limit, {MONEY_MAX:,} minor units")
    return value


# an amount of money, minor units: a stake, a seed, a cap, a meter's correction
money: Callable[[str], int] = _argument_type(money_value, "an amount of money", (0, MONEY_MAX))


def journal_text(text: str) -> str:
    """A text the table keeps (``--technician``, ``--reason``), by the daemon's rule
    (controller.texts): not blank, at most 200 printable characters; stripped, as the daemon
    keeps it. The value is shown escaped in the usage error (a terminal escape stays inert)."""
    problem = text_problem(text)
    if problem is None:
        return text.strip()
    import argparse  # loaded already: argparse is reading the value

    raise argparse.ArgumentTypeError(f"{problem} (got {text!r})")


journal_text.__name__ = "a text"  # argparse names the type in some messages


def seconds(low: float = 0.0, high: float | None = 86_400.0) -> Callable[[str], float]:
    """A duration in seconds, ``0 .. 1 day`` unless told otherwise."""
    return _bounded(*SECONDS, low, high)


# a share of rounds
rate = _bounded(decimal, "a rate between 0 and 1", 0.0, 1.0)


def _named(text: str) -> None:
    from controller.files import check_named

    check_named(text)


def _existing(text: str) -> None:
    """Empty, or something that is not a regular file (a directory, a fifo, a device): refused
    before any work; a missing file is left to the command (made, or reported by its reader).
    A string default is converted too, so a default that does not exist stays legal."""
    from controller.files import check_existing

    check_existing(text)


def _required(text: str) -> None:
    """A file the command cannot do without (a scenario, a rig's wiring): it must be there,
    and be a regular file; refused before any work, naming the option."""
    from controller.files import check_input

    check_input(text)


def _output(text: str) -> None:
    """A file the command writes into a folder that exists, never ``-``, never something that
    is not a regular file: refused before any work (a missing folder found after a scenario
    played, or a report built, loses the work; a mistyped folder is never made: as root,
    ``--output /nonexistent/m.json`` once made /nonexistent)."""
    from controller.files import FileRefused, check_output

    if text == "-":
        raise FileRefused("- (standard output) is not offered here: name a file")
    check_output(text)


def _png(text: str) -> None:
    _output(text)
    if not text.lower().endswith(".png"):
        from controller.files import FileRefused

        raise FileRefused(f"{text}: a PNG file's name ends in .png")


def _capture(text: str) -> None:
    """The sign's capture backend writes a ``.gif`` file, or numbered PNGs into a folder: the
    folder is made if missing, but only in a folder that exists (as any output file's)."""
    if text.lower().endswith(".gif"):
        _output(text)
        return
    import os

    from controller.files import FileRefused, check_named, check_output, kind

    check_named(text)
    if os.path.exists(text):
        if not os.path.isdir(text):
            raise FileRefused(
                f"{text} is {kind(os.stat(text).st_mode)}: name a .gif file or a folder for the"
                " PNGs"
            )
        return
    check_output(text.rstrip("/") or "/")  # its parent folder exists


def _link(text: str) -> None:
    import stat

    from controller.files import check_replaceable

    check_replaceable(text, stat.S_ISLNK)


def _socket(text: str) -> None:
    import stat

    from controller.files import check_replaceable, check_socket_length

    check_replaceable(text, stat.S_ISSOCK)
    check_socket_length(text)


def _daemon_socket(text: str) -> None:
    """A daemon's socket the command connects to: named, short enough to connect to, and a
    socket if anything is there (a missing one is the connection's failure: no daemon)."""
    from controller.files import check_socket_to_connect

    check_socket_to_connect(text)


# A file or folder named on the command line, as a :class:`~pathlib.Path` (never empty: an
# empty path would be the current folder). pathlib (with urllib.parse and ipaddress) is
# imported when a path is converted, not when a parser is built: ``--help`` and a usage
# error do without it.
path = path_argument(_named)
# a file the command reads (or a ledger it opens): a regular file, when it exists
input_file = path_argument(_existing)
# a file the command reads and cannot do without: it must exist (a usage error otherwise)
required_file = path_argument(_required)
# the same as text, for the options controller.cli.quick also reads (without pathlib)
input_name = path_argument(_existing, as_path=False)
# a file the command writes: new in a folder that exists, or a regular file it replaces;
# never "-". Every output path typed is one of these (a default the command may make the
# folders of: the manifest's, under the install's share folder)
output_file = path_argument(_output)
# --png: an output file whose name ends in .png
png_file = path_argument(_png)
# the sign's capture: a .gif file written, or a folder of PNG frames (as text: a setting)
capture_path = path_argument(_capture, as_path=False)
# a symlink the command makes: new, or a symlink (its own, stale); never a file it would delete
link_path = path_argument(_link, as_path=False)
# a Unix socket the command listens on: new, or a socket (stale); never a file it would delete
socket_path = path_argument(_socket, as_path=False)
# a daemon's socket the command connects to (--socket): never empty, which fell back silently
daemon_socket = path_argument(_daemon_socket, as_path=False)


# Standard output as a shell user names it: the same as ``-`` (not a file to replace)
STDOUT_NAMES = frozenset({"-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"})


def output_or_stdout(text: str) -> Path | str:
    """An output file, or ``-`` (also ``/dev/stdout``): standard output, returned as ``-``."""
    return "-" if text in STDOUT_NAMES else output_file(text)


def currency_code(text: str) -> str:
    """An ISO 4217 code as typed, in any case (``eur`` is EUR: no other currency is meant);
    whether the sign knows it is the command's to say, with the codes it knows."""
    return text.upper() if text.isascii() else text


currency_code.__name__ = "an ISO currency code"  # argparse names the type in some messages


# A pool's name as the configuration writes it (controller.engine.pools.config.NAME_PATTERN,
# held equal by tests/unit/cli/test_cli_light_choices.py): not a pattern compiled for --help
POOL_NAME = r"^[a-z0-9][a-z0-9_-]{0,39}\Z"


def pool_name(text: str) -> str:
    """A pool named on the command line (``--pool``): 1-40 lower-case letters, digits, '-' or
    '_', as the configuration's; anything else is refused, not looked up and echoed."""
    import argparse  # loaded already: argparse is reading the value
    import re

    if not re.match(POOL_NAME, text):
        raise argparse.ArgumentTypeError(
            f"{text!r}: a pool name is 1-40 lower-case letters, digits, '-' or '_'"
        )
    return text


# A round ID as the ledger takes one (controller.books.ledger.inputs.ROUND_ID, held equal by
# tests/unit/cli/test_cli_light_choices.py)
ROUND_ID = r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}\Z"


def round_name(text: str) -> str:
    """A round named on the command line: ``last``, or an ID as the ledger takes one;
    anything else is a usage error before a credential is asked or a daemon is called."""
    import argparse  # loaded already: argparse is reading the value
    import re

    if text != "last" and not re.match(ROUND_ID, text):
        raise argparse.ArgumentTypeError(
            f"'{escaped(text[:40])}': a round ID is 1-64 letters, digits, '.', '_', ':' or '-',"
            " starting with a letter or digit (or 'last')"
        )
    return text
