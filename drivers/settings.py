"""Reading a configuration table (a ``dict`` from TOML) while collecting every problem.

:class:`TableReader` hands out typed values with defaults and ranges; each bad value becomes a
:class:`~drivers.errors.Problem` with its dotted key instead of an exception, so a technician
sees every mistake of a configuration at once. :meth:`TableReader.unknown_keys` reports keys
nobody asked for (a misspelt key is a problem, not a silent default).
"""

from __future__ import annotations

import builtins
from collections.abc import Collection, Mapping
from typing import Any

from drivers.errors import Problem

MISSING: Any = object()


class TableReader:
    def __init__(self, table: object, prefix: str, problems: list[Problem]) -> None:
        self.prefix = prefix
        self.problems = problems
        self._read: set[str] = set()
        if table is None:
            table = {}
        if not isinstance(table, Mapping):
            self.problem("", f"must be a table, not {type(table).__name__}")
            table = {}
        self.table: Mapping[str, Any] = {str(k): v for k, v in table.items()}

    def key(self, name: str) -> str:
        return f"{self.prefix}.{name}" if name else self.prefix

    def problem(self, name: str, reason: str) -> None:
        self.problems.append(Problem(self.key(name), reason))

    def raw(self, name: str, default: Any = MISSING) -> Any:
        self._read.add(name)
        value = self.table.get(name, MISSING)
        if value is MISSING and default is MISSING:
            self.problem(name, "missing")
            return None
        return default if value is MISSING else value

    def int(
        self, name: str, default: Any = MISSING, lo: int | None = None, hi: int | None = None
    ) -> Any:
        return self._numeric(name, default, lo, hi, int, "a whole number")

    def number(
        self, name: str, default: Any = MISSING, lo: float | None = None, hi: float | None = None
    ) -> Any:
        value = self._numeric(name, default, lo, hi, int | float, "a number")
        return None if value is None else float(value)

    def choice(self, name: str, choices: Collection[Any], default: Any = MISSING) -> Any:
        value = self.raw(name, default)
        if value is None or value is default:
            return value
        if value not in choices or isinstance(value, bool):
            listed = ", ".join(repr(c) if isinstance(c, str) else str(c) for c in choices)
            self.problem(name, f"{value!r} is not one of {listed}")
            return None
        return value

    def bool(self, name: str, default: Any = MISSING) -> Any:
        value = self.raw(name, default)
        if value is not None and value is not default and not isinstance(value, bool):
            self.problem(name, f"must be true or false, not {value!r}")
            return None
        return value

    def text(self, name: str, default: Any = MISSING) -> Any:
        value = self.raw(name, default)
        if value is not None and value is not default and not (isinstance(value, str) and value):
            self.problem(name, f"must be a non-empty string, not {value!r}")
            return None
        return value

    def sub(self, name: str, required: builtins.bool = True) -> TableReader:
        return TableReader(
            self.raw(name, MISSING if required else {}), self.key(name), self.problems
        )

    def unknown_keys(self) -> None:
        for name in sorted(set(self.table) - self._read):
            import difflib  # only for a misspelt key

            close = difflib.get_close_matches(name, sorted(self._read), n=1)
            self.problem(
                name, f"unknown key (did you mean {close[0]!r}?)" if close else "unknown key"
            )

    def _numeric(self, name: str, default: Any, lo: Any, hi: Any, kind: Any, what: str) -> Any:
        value = self.raw(name, default)
        if value is None or value is default:
            return value
        if not isinstance(value, kind) or isinstance(value, bool):
            self.problem(name, f"must be {what}, not {value!r}")
            return None
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            self.problem(name, f"{value} is outside {lo}..{hi}")
            return None
        return value
