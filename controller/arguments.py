"""The command lines of every Croupier program read alike: ``croupier`` (its whole tree is built
by :func:`controller.cli.main.build_parser`; the quick commands, controller.cli.quick, do
without a parser), ``croupierd`` and ``make demo``: one-line usage errors naming the option
(exit status 2), suggestions for typos, examples kept as written, a light ``--version``, and
paths checked by what the program does with them (:func:`controller.files.path_argument`).
It lives in the shared base of ``controller/`` so that the daemon (table) and the demo (rig)
use the CLI's parser, not copies of it; ``controller.cli.parser`` and
``controller.cli.argtypes`` give the CLI's commands the same names."""

from __future__ import annotations

import argparse
import os
import sys

from controller.texts import shortened

TYPE_CHECKING = False
if TYPE_CHECKING:  # for the type checker only: importing typing costs every command time
    from typing import Any, NoReturn

# argparse looks every one of its own words up in gettext's catalogues, probing the disk each
# time (~30 ms of a parser build here, far more on a Pi); the CLI speaks English only.
argparse._ = str  # type: ignore[attr-defined]


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """argparse's help layout (examples kept as written), its width found without shutil.

    argparse builds a formatter for every option it adds and imports shutil (with bz2, lzma
    and fnmatch) to ask the terminal's width: a tenth of a second of every command on a
    Pi-class CPU (bench/pi_budget.py). The same answer: ``$COLUMNS``, else the terminal's,
    else 80; less 2, as argparse does."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        if width is None:
            width = terminal_columns() - 2
        super().__init__(prog, indent_increment, max_help_position, width)


def terminal_columns() -> int:
    """The width shutil.get_terminal_size would give (``$COLUMNS``, stdout's terminal, 80)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80
    except (AttributeError, ValueError, OSError):
        return 80


class CroupierParser(argparse.ArgumentParser):
    """argparse with one-line usage errors (exit status 2), suggestions for typos and
    examples kept as written."""

    def __init__(self, *args: Any, see: str | None = None, **kwargs: Any) -> None:
        """``see``: how the help is asked for, as a usage error says it (default ``PROG
        --help``; ``make demo ARGS=--help``, where ``make demo --help`` is make's)."""
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)
        self.see = see

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        """argparse's reading; an unknown option close to one of this parser's is a usage
        error with the suggestion (``status --josn``: did you mean --json?), any other word
        left over one naming the command (``croupier status: unrecognized arguments: x``,
        where argparse let the top parser report it as ``croupier``'s). Each parser checks its
        own words, so the suggestion comes from the command's options."""
        self._words = list(sys.argv[1:] if args is None else args)
        namespace, extras = super().parse_known_args(args, namespace)
        for word in extras:
            near = self._near_option(word)
            if near:
                self.error(f"unrecognized option {word.split('=')[0]!r}; did you mean {near}?")
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return namespace, extras

    def _near_option(self, word: str) -> str | None:
        """This parser's option closest to ``word`` (an option not known), or None."""
        if not word.startswith("-") or word in ("-", "--"):
            return None
        import difflib

        name = word.split("=", 1)[0]
        known = [o for o in self._option_string_actions if o.startswith("--")]
        close = difflib.get_close_matches(name, known, n=1, cutoff=0.7)
        return close[0] if close else None

    def error(self, message: str) -> NoReturn:
        if "did you mean" not in message:
            # `par --profle X`: why --profile is missing; `round show --sockte S`: why S was
            # read as the round
            for word in getattr(self, "_words", []):
                name, near = word.split("=")[0], self._near_option(word)
                if near and name not in self._option_string_actions:
                    message += f"; {name!r} is not an option: did you mean {near}?"
                    break
        see = self.see or f"{self.prog} --help"
        self.exit(2, f"{self.prog}: {shortened(message)} (see {see})\n")

    def _get_values(self, action: argparse.Action, arg_strings: list[str]) -> Any:
        """argparse's conversion, except that an option's value cannot be ``--``: Python 3.11's
        argparse drops it and gives the option ``[]`` (``--port=--``), past its type and
        choices."""
        if action.option_strings and "--" in arg_strings and action.nargs != argparse.REMAINDER:
            raise argparse.ArgumentError(action, "expected a value, not '--'")
        return super()._get_values(action, arg_strings)

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        choices = action.choices
        if choices is None or value in choices:
            return
        from controller.texts import suggestion

        names = [str(c) for c in choices]
        hint = suggestion(str(value), names) or f" (choose from {', '.join(names)})"
        raise argparse.ArgumentError(action, f"invalid choice {value!r}{hint}")


class VersionAction(argparse.Action):
    """``--version``; the installed version is read (importlib.metadata, ~30 ms) only when
    asked for, not for every command."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS) -> None:
        super().__init__(
            option_strings, dest, nargs=0, default=argparse.SUPPRESS, help="print the version"
        )

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        from controller import __version__

        program = parser.prog.split()[0]  # `croupier`, `croupierd`
        print(f"{program} {__version__}")  # on stdout, as `croupier --version` alone
        parser.exit(0)
