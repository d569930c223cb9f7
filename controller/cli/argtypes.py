"""Argument types with their limits written down, and the usage error of the CLI.

Every number the technician types is checked by argparse when it is read, against the limits
named here, so a bad value is a usage error (one line, exit status 2) before any work starts:
``lamps test --step -1`` says ``--step: -1 is below 0`` instead of failing deep inside
``time.sleep``. Bare ``type=int`` / ``type=float`` are not used in the CLI (a test walks the
parser tree and holds every option to it).
"""

from __future__ import annotations

import math

from controller.errors import CroupierError

TYPE_CHECKING = False
if TYPE_CHECKING:  # for the type checker only: pathlib is imported when a path is given
    from collections.abc import Callable
    from pathlib import Path


class UsageError(CroupierError, ValueError):
    """The command line asks for something impossible (exit status 2, like argparse's own
    usage errors); found after parsing, e.g. a lamp name the configuration does not have."""


class OutOfLimits(ValueError):
    """A value its type or its limits refuse; the message says which, naming the value."""


# The kinds of number the CLI reads: how the text converts, and how a message names it
WHOLE_NUMBER = (int, "a whole number")
SECONDS = (float, "a number of seconds")


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


def _bounded(
    convert: Callable[[str], float], kind: str, low: float | None, high: float | None
) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            return within(text, convert, kind, low, high)
        except OutOfLimits as exc:
            import argparse  # loaded already: argparse is reading the value

            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = kind  # argparse names the type in some messages
    parse.limits = (low, high)  # type: ignore[attr-defined]
    return parse


# The largest whole number the CLI reads where no lower limit is written: the ledger's SQLite
# and the control socket's JSON keep 64-bit integers (`meters hits -n 99999999999999999999`
# is a usage error, not an overflow deep in SQLite)
WHOLE_MAX = 2**63 - 1


def integer(low: int | None = None, high: int | None = None) -> Callable[[str], int]:
    """A whole number within ``low..high`` (``low`` open with ``None``; ``high`` at most
    :data:`WHOLE_MAX`)."""
    return _bounded(*WHOLE_NUMBER, low, WHOLE_MAX if high is None else high)  # type: ignore[return-value]


def seconds(low: float = 0.0, high: float | None = 86_400.0) -> Callable[[str], float]:
    """A duration in seconds, ``0 .. 1 day`` unless told otherwise."""
    return _bounded(*SECONDS, low, high)


# a share of rounds
rate = _bounded(float, "a rate between 0 and 1", 0.0, 1.0)


def path(text: str) -> Path:
    """A file or folder named on the command line, as a :class:`~pathlib.Path`. pathlib (with
    urllib.parse and ipaddress) is imported when a path is converted, not when a parser is
    built: ``--help`` and a usage error do without it. A string default is converted too."""
    from pathlib import Path

    return Path(text)
