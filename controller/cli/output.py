"""Output helpers shared by the CLI commands: one place decides how JSON is printed."""

from __future__ import annotations

import json
import re
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # for the type checker only: importing typing costs every command time
    from typing import Any

RULE_ID = re.compile(r"\b(?:POK|UTH|CH|BJ|TRX|PRG|MD)-[A-Z]?\d+\b")


def print_json(data: Any) -> None:
    json.dump(data, sys.stdout, indent=2, sort_keys=False)
    sys.stdout.write("\n")


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
        found = RULE_ID.search(message)
        rule = found.group(0) if found else None
    error: dict[str, Any] = {"type": type(source).__name__, "message": message, "rule": rule}
    problems = getattr(source, "problems", None)
    if problems:
        error["problems"] = [
            {"key": key, "reason": reason, "rule": _first_rule(reason)} for key, reason in problems
        ]
    return {"error": error}


def _first_rule(text: str) -> str | None:
    found = RULE_ID.search(text)
    return found.group(0) if found else None
