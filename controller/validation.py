"""Reading untrusted TOML/JSON tables with every problem reported at once.

A :class:`Problems` collects ``(key, reason)`` pairs while a loader walks a document with a
:class:`Section`; the loader raises :class:`ConfigError` at the end if anything was wrong, so
a technician sees the whole list in one go and nothing is ever half-loaded. Keys are dotted
paths (``paytables.blind.flush``) so each problem points at one line of the file.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, TypeVar

from controller.errors import CroupierError

T = TypeVar("T")

MISSING: Any = object()


class ConfigError(CroupierError, ValueError):
    """A configuration or profile file has problems; ``problems`` lists every one."""

    def __init__(self, source: str, problems: list[tuple[str, str]]) -> None:
        self.source = source
        self.problems = problems
        lines = [f"{source}: {key}: {reason}" for key, reason in problems]
        super().__init__("\n".join(lines) if lines else f"{source}: invalid")


def read_toml(path: str | Path) -> dict[str, Any]:
    """A TOML file as a table; ConfigError for a missing, unreadable or malformed file."""
    path = Path(path)
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(str(path), [("(file)", "no such file")]) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(str(path), [("(syntax)", str(exc))]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(str(path), [("(file)", str(exc))]) from None


@dataclass
class Problems:
    source: str
    items: list[tuple[str, str]] = field(default_factory=list)

    def add(self, key: str, reason: str) -> None:
        self.items.append((key, reason))

    def __bool__(self) -> bool:
        return bool(self.items)

    def raise_if_any(self) -> None:
        if self.items:
            raise ConfigError(self.source, list(self.items))


class Section:
    """A view of one table of a document that records what was read.

    Every ``get`` marks its key as known; :meth:`finish` reports the keys nobody asked for
    (a typo like ``contribution_rat`` must not be ignored silently).
    """

    def __init__(self, data: Any, path: str, problems: Problems) -> None:
        self.path = path
        self.problems = problems
        self.ok = isinstance(data, dict)
        if not self.ok:
            problems.add(path or "(top)", f"expected a table, got {type(data).__name__}")
        self.data: dict[str, Any] = data if self.ok else {}
        self._known: set[str] = set()

    def key(self, name: str) -> str:
        return f"{self.path}.{name}" if self.path else name

    def has(self, name: str) -> bool:
        return name in self.data

    def get(
        self,
        name: str,
        kind: type | tuple[type, ...],
        default: Any = MISSING,
        check: Callable[[Any], str | None] | None = None,
    ) -> Any:
        """The value at ``name`` if it has type ``kind`` and passes ``check`` (which returns a
        reason string for a bad value); otherwise records a problem and returns ``default``
        (or None when the key was required)."""
        self._known.add(name)
        if name not in self.data:
            if default is MISSING:
                self.problems.add(self.key(name), "required key is missing")
                return None
            return default
        value = self.data[name]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        # TOML booleans are ints to Python; never accept one for the other
        if (isinstance(value, bool) and bool not in kinds) or not isinstance(value, kinds):
            names = " or ".join(k.__name__ for k in kinds)
            self.problems.add(self.key(name), f"expected {names}, got {value!r}")
            return None if default is MISSING else default
        if check is not None:
            reason = check(value)
            if reason:
                self.problems.add(self.key(name), reason)
                return None if default is MISSING else default
        return value

    def choice(self, name: str, choices: Iterable[str], default: Any = MISSING) -> Any:
        options = tuple(choices)
        return self.get(
            name,
            str,
            default,
            lambda v: None if v in options else f"{v!r} is not one of {', '.join(options)}",
        )

    def section(self, name: str, required: bool = True) -> Section | None:
        self._known.add(name)
        if name not in self.data:
            if required:
                self.problems.add(self.key(name), "required table is missing")
            return None
        return Section(self.data[name], self.key(name), self.problems)

    def items(self) -> Iterator[tuple[str, Any]]:
        """All entries, marking them known (for free-form tables such as pay tables)."""
        self._known.update(self.data)
        return iter(self.data.items())

    def finish(self) -> None:
        for name in self.data:
            if name not in self._known:
                self.problems.add(self.key(name), "unknown key")


def positive_int(value: int) -> str | None:
    return None if value > 0 else f"must be a positive integer, got {value}"


def non_negative_int(value: int) -> str | None:
    return None if value >= 0 else f"must be zero or more, got {value}"


def parse_fraction(text: Any) -> Fraction:
    """``"0.15"``, ``"15%"`` or ``"3/20"`` as an exact fraction (never via float).
    Raises ValueError with a reason."""
    if isinstance(text, bool) or not isinstance(text, str | int):
        raise ValueError(f"expected a decimal string like '0.15' or '15%', got {text!r}")
    s = str(text).strip()
    scale = Fraction(1)
    if s.endswith("%"):
        s, scale = s[:-1].strip(), Fraction(1, 100)
    try:
        return Fraction(s) * scale
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"{text!r} is not a number like '0.15' or '15%'") from None
