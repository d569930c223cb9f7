"""Reading untrusted TOML/JSON tables with every problem reported at once.

A :class:`Problems` collects ``(key, reason)`` pairs while a loader walks a document with a
:class:`Section`; the loader raises :class:`ConfigError` at the end if anything was wrong, so
a technician sees the whole list in one go and nothing is ever half-loaded. Keys are dotted
paths (``paytables.blind.flush``) so each problem points at one line of the file.

Every TOML or JSON document that comes from outside (table configurations, rule profiles,
round files, rig scenarios, control requests) is read through :func:`read_toml`,
:func:`loads_toml`, :func:`read_json` or :func:`loads_json`, which hold it to
:data:`DOCUMENT_LIMITS` before anything looks at a value: the file's size, the nesting depth,
integers within SQLite's signed 64-bit range, finite floats, no numbers written with hundreds of
digits. A document outside the limits is a :class:`ConfigError` naming the key, never a hang, a
``RecursionError`` or a traceback.
"""

from __future__ import annotations

import functools
import json
import math
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from controller.errors import CroupierError

# tomllib, fractions and pathlib are imported where they are used: the control protocol's
# JSON checks (every `croupier status`) need none of them (docs/daemon.md, CLI start-up).
if TYPE_CHECKING:
    from fractions import Fraction
    from pathlib import Path

T = TypeVar("T")

MISSING: Any = object()


class ConfigError(CroupierError, ValueError):
    """A configuration or profile file has problems; ``problems`` lists every one."""

    def __init__(self, source: str, problems: list[tuple[str, str]]) -> None:
        self.source = source
        self.problems = problems
        lines = [f"{source}: {key}: {reason}" for key, reason in problems]
        super().__init__("\n".join(lines) if lines else f"{source}: invalid")


INT64_MAX = 2**63 - 1  # SQLite INTEGER is signed 64-bit
# Any one amount of money (a stake, a payout, a pool's seed or cap), in minor units: EUR 10
# billion. A round's total (7 seats, 5 wagers, odds up to 1000:1 on the table's stake limit)
# and a lifetime of meters stay many orders of magnitude inside INT64_MAX.
MONEY_MAX = 10**12


@dataclass(frozen=True)
class DocumentLimits:
    """What a document from outside may hold (docs/security.md lists them)."""

    max_bytes: int = 1024 * 1024  # a table configuration is a few kB, a round file less
    max_depth: int = 32  # tables or arrays inside each other
    max_number_chars: int = 40  # a longer JSON number literal is refused before int()/float()
    int_range: tuple[int, int] = (-INT64_MAX - 1, INT64_MAX)


DOCUMENT_LIMITS = DocumentLimits()


class DocumentLimitsError(ConfigError):
    """Values of a parsed document outside its limits, every one of them (up to
    :data:`MAX_LIMIT_PROBLEMS`). ``document`` is what was read without those values, so that a
    reader can check the rest of the file too and report every problem at once
    (:meth:`with_others`)."""

    def __init__(self, source: str, problems: list[tuple[str, str]], document: Any) -> None:
        super().__init__(source, problems)
        self.document = document

    def with_others(self, check: Callable[[Any], object]) -> ConfigError:
        """These problems and those ``check`` finds in the rest of the document; a problem of
        a key already named here (a value removed, now missing) is not repeated."""
        try:
            check(self.document)
        except ConfigError as more:
            named = [key for key, _ in self.problems]
            others = [
                (key, reason)
                for key, reason in more.problems
                if not any(key == n or key.startswith((f"{n}.", f"{n}[")) for n in named)
            ]
            return ConfigError(self.source, [*self.problems, *others])
        return self


MAX_LIMIT_PROBLEMS = 50  # a file of a megabyte of bad numbers is not listed line by line
_OUTSIDE = object()  # a value outside the limits, left out of the checked document


def _within_limits(
    value: Any, key: str, limits: DocumentLimits, problems: list[tuple[str, str]], depth: int = 0
) -> Any:
    """``value`` without what is outside ``limits`` (each added to ``problems`` as (key,
    reason)); ``_OUTSIDE`` when the value itself is (a list with such an item is, whole)."""
    if depth > limits.max_depth:
        problems.append((key or "(top)", f"nested deeper than {limits.max_depth} levels"))
        return _OUTSIDE
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        low, high = limits.int_range
        if not low <= value <= high:
            problems.append((key or "(top)", f"integer outside {low}..{high}"))
            return _OUTSIDE
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            problems.append((key or "(top)", f"{value} is not a finite number"))
            return _OUTSIDE
        return value
    if isinstance(value, str):
        if "\x00" in value:  # no path, name or text takes one; open() and bind() fail on it
            problems.append((key or "(top)", "contains a NUL character (\\u0000)"))
            return _OUTSIDE
        return value
    if isinstance(value, dict):
        kept = {}
        for name, item in value.items():
            child = f"{key}.{name}" if key else str(name)
            if "\x00" in str(name):
                problems.append((child.replace("\x00", "\\u0000"), "a key with a NUL character"))
                continue
            item = _within_limits(item, child, limits, problems, depth + 1)
            if item is not _OUTSIDE:
                kept[name] = item
        return kept
    if isinstance(value, list):
        items = [
            _within_limits(item, f"{key}[{i}]", limits, problems, depth + 1)
            for i, item in enumerate(value)
        ]
        return _OUTSIDE if any(item is _OUTSIDE for item in items) else items
    return value


def _checked_document(data: Any, source: str, limits: DocumentLimits) -> Any:
    """``data`` when every value is within ``limits``; DocumentLimitsError naming each one
    that is not, otherwise."""
    problems: list[tuple[str, str]] = []
    kept = _within_limits(data, "", limits, problems)
    if not problems:
        return data
    if len(problems) > MAX_LIMIT_PROBLEMS:
        more = len(problems) - MAX_LIMIT_PROBLEMS
        problems = [*problems[:MAX_LIMIT_PROBLEMS], ("(file)", f"{more} more values like these")]
    raise DocumentLimitsError(source, problems, {} if kept is _OUTSIDE else kept)


def _read_text(path: Path, limits: DocumentLimits) -> str:
    """A file's text, at most ``limits.max_bytes``, strictly UTF-8 (ConfigError otherwise)."""
    from controller.files import FileRefused, read_regular

    try:  # a regular file only: a fifo or a terminal named by mistake never blocks
        raw = read_regular(path, limits.max_bytes + 1)
    except FileRefused as exc:
        raise ConfigError(str(path), [("(file)", str(exc).removeprefix(f"{path} "))]) from None
    except OSError as exc:
        raise ConfigError(str(path), [("(file)", exc.strerror or str(exc))]) from None
    if len(raw) > limits.max_bytes:
        raise ConfigError(str(path), [("(file)", f"larger than {limits.max_bytes} bytes")])
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            str(path), [("(file)", f"not UTF-8 text (byte {exc.start}: {raw[exc.start]:#04x})")]
        ) from None


# A UTF-8 byte order mark, which Windows editors put at a text file's start: read past
# (JSON's RFC 8259 allows it; tomllib and json would refuse the file at its first character)
BOM = "\ufeff"


def loads_toml(text: str, source: str, limits: DocumentLimits = DOCUMENT_LIMITS) -> dict[str, Any]:
    """Parse TOML text from outside within ``limits``; ConfigError naming the key otherwise."""
    import tomllib

    if len(text.encode("utf-8", "surrogatepass")) > limits.max_bytes:
        raise ConfigError(source, [("(file)", f"larger than {limits.max_bytes} bytes")])
    try:
        data = tomllib.loads(text.removeprefix(BOM))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(source, [("(syntax)", str(exc))]) from None
    except (ValueError, RecursionError) as exc:  # a number of more than 4300 digits
        reason = "a number too long to read" if isinstance(exc, ValueError) else "nested too deep"
        raise ConfigError(source, [("(syntax)", reason)]) from None
    return _checked_document(data, source, limits)


def read_toml(path: str | Path, limits: DocumentLimits = DOCUMENT_LIMITS) -> dict[str, Any]:
    """A TOML file as a table; ConfigError for a missing, unreadable, malformed or oversized
    file, or a value outside ``limits``."""
    return read_toml_and_text(path, limits)[0]


def read_toml_and_text(
    path: str | Path, limits: DocumentLimits = DOCUMENT_LIMITS
) -> tuple[dict[str, Any], str]:
    """:func:`read_toml`, with the text it parsed (strict UTF-8: its encoding is the file's
    bytes, so a digest of the file is of what was read, not of a second read)."""
    from pathlib import Path

    path = Path(path)
    text = _read_text(path, limits)
    return loads_toml(text, str(path), limits), text


class _NumberTooLong(ValueError):
    pass


def _json_number(kind: type, max_chars: int, text: str) -> Any:
    """A JSON number literal, refused before int()/float() when longer than ``max_chars``."""
    if len(text) > max_chars:
        raise _NumberTooLong(text)
    return kind(text)


def _json_constant(text: str) -> float:
    raise _NumberTooLong(text)  # NaN, Infinity, -Infinity: not JSON numbers


class _DuplicateKey(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object of a JSON document whose keys are each written once (json keeps the last
    of a repeated key, another reader the first: the document says two things)."""
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return data


def loads_json(
    text: str | bytes,
    source: str,
    limits: DocumentLimits = DOCUMENT_LIMITS,
) -> Any:
    """Parse JSON from outside within ``limits``; ConfigError naming the key otherwise. A key
    written twice in any object is the problem ``(duplicate)`` ("duplicate key 'KEY' in the
    document: ambiguous ..."): a signed document, a control request (``{"cmd": "status",
    "cmd": "round.lock"}`` ran the LOCK), a round file or a pool's notification that says two
    things is refused, not read as its last value."""
    if len(text) > limits.max_bytes:
        raise ConfigError(source, [("(file)", f"larger than {limits.max_bytes} bytes")])
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ConfigError(source, [("(file)", f"not UTF-8 text (byte {exc.start})")]) from None
    try:
        data = json.loads(
            text.removeprefix(BOM),
            parse_int=functools.partial(_json_number, int, limits.max_number_chars),
            parse_float=functools.partial(_json_number, float, limits.max_number_chars),
            parse_constant=_json_constant,
            object_pairs_hook=_unique_keys,
        )
    except _DuplicateKey as exc:
        key = repr(exc.args[0])
        key = key if len(key) <= 80 else f"{key[:60]}...({len(key):,} characters)"
        reason = f"duplicate key {key} in the document: ambiguous (a reader may take either value)"
        raise ConfigError(source, [("(duplicate)", reason)]) from None
    except _NumberTooLong as exc:
        shown = str(exc)[:20] + ("..." if len(str(exc)) > 20 else "")
        raise ConfigError(
            source, [("(syntax)", f"number {shown} is not allowed (too long, or not finite)")]
        ) from None
    except RecursionError:  # the parser recurses once per level: far past max_depth
        raise ConfigError(
            source, [("(top)", f"nested deeper than {limits.max_depth} levels")]
        ) from None
    except json.JSONDecodeError as exc:
        raise ConfigError(source, [("(syntax)", f"not valid JSON: {exc}")]) from None
    return _checked_document(data, source, limits)


def read_json(path: str | Path, limits: DocumentLimits = DOCUMENT_LIMITS) -> Any:
    """A JSON file (``-`` is standard input) within ``limits``; ConfigError otherwise."""
    if str(path) == "-":
        if sys.stdin is None:  # started with stdin closed (`croupier settle - <&-`)
            raise ConfigError("(stdin)", [("(file)", "standard input is closed")])
        stream = getattr(sys.stdin, "buffer", sys.stdin)  # a test's StringIO has no buffer
        return loads_json(stream.read(limits.max_bytes + 1), "(stdin)", limits)
    from pathlib import Path

    path = Path(path)
    return loads_json(_read_text(path, limits), str(path), limits)


# The kinds of value a TOML or JSON document holds, as a technician reads them
_KIND_NAMES = {
    str: "text",
    int: "a whole number",
    float: "a number",
    bool: "true or false",
    list: "a list",
    dict: "a table",
}


def _kind_name(kind: type) -> str:
    """``kind`` in the words of a configuration (a TOML date-time: "a date or time")."""
    return _KIND_NAMES.get(
        kind, "a date or time" if kind.__module__ == "datetime" else kind.__name__
    )


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
            names = " or ".join(_kind_name(k) for k in kinds)
            got = f"{value!r}" if type(value) in _KIND_NAMES else _kind_name(type(value))
            self.problems.add(self.key(name), f"expected {names}, got {got}")
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


def money(value: int) -> str | None:
    """A check for an amount in minor units: 0..MONEY_MAX."""
    return None if 0 <= value <= MONEY_MAX else f"must be 0..{MONEY_MAX} minor units, got {value}"


def non_negative_int(value: int) -> str | None:
    return None if value >= 0 else f"must be zero or more, got {value}"


# A rate or fraction as written in a file: "0.15", "15%", "3/20". Digits are bounded and
# exponents are not accepted: Fraction("1e999999999") would compute 10**999999999 (a hang).
# ASCII digits only (\d and Fraction() read the digits of every script: "\u0662\u0660%").
_FRACTION = re.compile(r"^[+-]?([0-9]{1,18}(\.[0-9]{0,18})?|\.[0-9]{1,18})(/[0-9]{1,18})?\Z")


def parse_fraction(text: Any) -> Fraction:
    """``"0.15"``, ``"15%"`` or ``"3/20"`` as an exact fraction (never via float).
    Raises ValueError with a reason."""
    from fractions import Fraction

    if isinstance(text, bool) or not isinstance(text, str | int):
        raise ValueError(f"expected a decimal string like '0.15' or '15%', got {text!r}")
    s = str(text).strip()
    scale = Fraction(1)
    if s.endswith("%"):
        s, scale = s[:-1].strip(), Fraction(1, 100)
    shown = repr(text) if len(str(text)) <= 40 else repr(str(text)[:40] + "...")
    if not _FRACTION.match(s):
        raise ValueError(f"{shown} is not a number like '0.15', '15%' or '3/20'")
    try:
        return Fraction(s) * scale
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"{shown} is not a number like '0.15' or '15%'") from None
