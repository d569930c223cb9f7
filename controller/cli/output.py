"""Output helpers shared by the CLI commands: one place decides how JSON is printed.

JSON goes through :mod:`controller.quick_json` (json's own C encoder, without the json
package and ``re``): ``croupier status --json`` stays quick on a Pi-class CPU."""

from __future__ import annotations

import sys

from controller import quick_json

TYPE_CHECKING = False
if TYPE_CHECKING:  # for the type checker only: importing typing costs every command time
    from typing import Any

RULE_ID = r"\b(?:POK|UTH|CH|BJ|TRX|PRG|MD)-[A-Z]?\d+\b"  # compiled when an error is shown


def print_json(data: Any) -> None:
    sys.stdout.write(quick_json.dumps_indented(data) + "\n")


def add_json_flag(parser: Any) -> None:
    """``--json``, a global option: also accepted before the command (controller.cli.main)."""
    from controller.cli.main import add_global_options

    add_global_options(parser, "--json")


def add_json_errors(parser: Any) -> None:
    """With ``--json``, this command's errors are a JSON object on stdout too
    (:func:`error_json`), so scripts need not parse stderr."""
    parser.set_defaults(json_errors=True)


def error_json(exc: Exception) -> dict[str, Any]:
    """An error as scripts read it: ``{"error": {"type", "message", "rule", "problems"?}}``.
    ``rule`` is the RULES.md ID the error cites (None when no rule forbids it); a file with
    several problems (a profile) lists each with its key and reason."""
    message = str(exc)
    # a usage error made from an engine error (a bad card on the command line) keeps its type
    # and rule
    source = exc.__cause__ if isinstance(exc.__cause__, Exception) else exc
    rule = getattr(source, "rule", None)
    if rule is None:
        rule = _first_rule(message)
    error: dict[str, Any] = {"type": type(source).__name__, "message": message, "rule": rule}
    problems = getattr(source, "problems", None)
    if problems:
        error["problems"] = [
            {"key": key, "reason": reason, "rule": _first_rule(reason)} for key, reason in problems
        ]
    return {"error": error}


def _first_rule(text: str) -> str | None:
    import re

    found = re.search(RULE_ID, text)
    return found.group(0) if found else None


def write_output(target: Any, data: bytes) -> None:
    """``data`` to the file the user named (``-``: standard output), written atomically
    (controller.files.write_atomic: never over a device, a directory or a fifo; no temporary
    file left after a failure)."""
    if str(target) == "-":
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return
    from controller.files import write_atomic

    write_atomic(target, data)
