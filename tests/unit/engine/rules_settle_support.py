"""Helpers of the rule-conformance tests (tests/unit/engine/test_rules_*.py): settle a round the
way an outside lab does, through ``croupier settle --json`` (the CLI's ``main``), and read the
answer or the error back as JSON.

Every expected amount in those tests is worked out by hand in the test itself, from RULES.md;
nothing here computes money.
"""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
import tomllib
from pathlib import Path
from typing import Any

from controller.cli.main import main
from controller.engine.profiles import find_profile

Outcome = tuple[str, int, int, str]  # (result, stake, paid, rule)


def run_cli(*argv: str) -> tuple[int, str, str]:
    """``croupier ARGV`` in this process: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()


def settle_cli(round_data: dict[str, Any], *extra: str) -> tuple[int, dict[str, Any], str]:
    """Write ``round_data`` to a file and run ``croupier settle FILE --json``: (status, the
    JSON printed, stderr)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "round.json"
        path.write_text(json.dumps(round_data))
        status, out, err = run_cli("settle", str(path), "--json", *extra)
    return status, json.loads(out), err


def settled(round_data: dict[str, Any], *extra: str) -> dict[str, Any]:
    """The settlement of a round that must settle."""
    status, data, err = settle_cli(round_data, *extra)
    assert status == 0, err
    return data


def refused(round_data: dict[str, Any], *extra: str) -> dict[str, Any]:
    """The ``error`` object of a round that must be refused, checked to be one line on stderr
    (no traceback) that repeats the message."""
    status, data, err = settle_cli(round_data, *extra)
    assert status != 0
    assert err.count("\n") == 1 and "Traceback" not in err, err
    error: dict[str, Any] = data["error"]
    assert error["message"] in err
    return error


def seat_of(result: dict[str, Any], number: int) -> dict[str, Any]:
    for entry in result["seats"]:
        if entry["seat"] == number:
            return entry
    raise KeyError(f"seat {number} not in the settlement")


def outcome(result: dict[str, Any], number: int, wager: str) -> Outcome:
    w = seat_of(result, number)["wagers"][wager]
    return w["result"], w["stake"], w["paid"], w["rule"]


def profile_file(folder: Path, name: str, **sections: dict[str, Any]) -> str:
    """A copy of shipped profile ``name`` with keys of some sections replaced, e.g.
    ``rules={"seats": 7}`` or ``progressive={"share_scope": "link"}`` (dotted section names
    reach nested tables: ``**{"paytables.blind": {...}}``); returns its path."""
    data = tomllib.loads(find_profile(name).read_text())
    for dotted, values in sections.items():
        table = data
        for part in dotted.split("."):
            table = table.setdefault(part, {})
        table.update(values)
    path = folder / f"{name}-changed.toml"
    path.write_text(_toml(data))
    return str(path)


def bj_seat(n: int, main: int = 1000, actions: dict | None = None, **stakes: int) -> dict:
    """A blackjack round file's seat: its main bet (and side stakes), its actions if any."""
    entry: dict = {"seat": n, "stakes": {"main": main, **stakes}}
    if actions is not None:
        entry["actions"] = actions
    return entry


def bj(shoe: Any, *seats: dict, **extra: object) -> dict:
    """A trilux-gr round file of ``seats`` dealt from ``shoe``."""
    return {"profile": "trilux-gr", "shoe": shoe, "seats": list(seats), **extra}


def _toml(data: dict[str, Any], prefix: str = "") -> str:
    """Enough TOML for a profile: scalars, lists, inline ``{fixed = N}`` and nested tables."""
    lines, tables = [], []
    for key, value in data.items():
        if isinstance(value, dict) and set(value) != {"fixed"}:
            tables.append((key, value))
        else:
            lines.append(f"{json.dumps(key)} = {_value(value)}")
    text = (f"[{prefix}]\n" if prefix else "") + "".join(line + "\n" for line in lines)
    for key, value in tables:
        text += _toml(value, f"{prefix}.{json.dumps(key)}" if prefix else json.dumps(key))
    return text


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    return json.dumps(value)
