"""JSON through CPython's C accelerator (``_json``) alone, for the CLI's quick commands.

``import json`` costs ``croupier status`` a sixth of its time on a Pi-class CPU
(bench/pi_budget.py): its decoder and encoder import ``re``, which builds an enum. The C
scanner and encoder that ``json`` itself uses need neither, so the control client and the
quick commands' output use them here, and read and write exactly what ``json`` does:

- :func:`loads`: ``json.loads`` of a text or bytes (whitespace around the value allowed,
  ``NaN`` and ``Infinity`` read as floats; bytes with a byte-order mark or in UTF-16/32 are
  left to json, which finds their encoding); a malformed text raises json's own error;
- :func:`dumps`: ``json.dumps(obj, separators=..., sort_keys=...)`` with ``ensure_ascii``;
- :func:`dumps_indented`: ``json.dumps(obj, indent=N)`` (the C encoder has no indentation,
  so it is written here, over the C string encoder).

tests/unit/test_quick_json.py holds all three equal to ``json`` on generated documents.
"""

from __future__ import annotations

import _json

TYPE_CHECKING = False
if TYPE_CHECKING:  # for the type checker only: importing typing costs every command time
    from collections.abc import Callable
    from typing import Any

_CONSTANTS = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}
_WHITESPACE = " \t\n\r"
_encode_string: Callable[[str], str] = _json.encode_basestring_ascii


class _ScannerSettings:
    """What the C scanner reads from ``json.JSONDecoder``: the defaults of ``json.loads``."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__


# typeshed types the context as a scanner; the C code reads the attributes of JSONDecoder
_scan: Callable[[str, int], tuple[Any, int]] = _json.make_scanner(_ScannerSettings())  # type: ignore[arg-type]


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at] in _WHITESPACE:
        at += 1
    return at


def loads(text: str | bytes | bytearray) -> Any:
    """The value of one JSON document, as ``json.loads`` reads it; a malformed document raises
    json's own error (a :class:`ValueError`)."""
    if isinstance(text, bytes | bytearray):
        if text[:1] in (b"\xef", b"\xfe", b"\xff") or 0 in text[:4]:
            return _refuse(text)  # a BOM or UTF-16/32: json finds the encoding
        text = text.decode("utf-8", "surrogatepass")  # as json decodes UTF-8
    start = _skip_space(text, 0)
    try:
        value, end = _scan(text, start)
    except (StopIteration, SystemError):
        return _refuse(text)
    if _skip_space(text, end) != len(text):
        return _refuse(text)
    return value


def _refuse(text: str | bytes | bytearray) -> Any:
    """json's reading of a ``text`` this module leaves to it: a malformed document (json's
    error is raised) or bytes that are not plain UTF-8. The C scanner reports an error with the
    error class of ``json.decoder``, which it looks up only among the modules already imported
    (in CPython 3.11, a SystemError otherwise): the rare malformed document imports json."""
    import json

    return json.loads(text)


def _float_text(value: float) -> str:
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    return float.__repr__(value)


def _not_serialisable(value: object) -> Any:
    raise TypeError(f"Object of type {value.__class__.__name__} is not JSON serializable")


def dumps(obj: Any, *, separators: tuple[str, str] = (", ", ": "), sort_keys: bool = False) -> str:
    """``json.dumps(obj, separators=separators, sort_keys=sort_keys)``."""
    item_separator, key_separator = separators
    encode = _json.make_encoder(
        {},  # markers: a circular structure is refused, as json does
        _not_serialisable,
        _encode_string,
        None,
        key_separator,
        item_separator,
        sort_keys,
        False,  # skipkeys
        True,  # allow_nan
    )
    return "".join(encode(obj, 0))


def _key_text(key: object) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, float):
        return _float_text(key)
    if key is True or key is False or key is None:
        return "true" if key else "false" if key is False else "null"
    if isinstance(key, int):
        return int.__repr__(key)
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")


def dumps_indented(obj: Any, indent: int = 2) -> str:
    """``json.dumps(obj, indent=indent)``."""
    parts: list[str] = []
    _indented(obj, 0, " " * indent, parts, set())
    return "".join(parts)


def _indented(obj: Any, level: int, step: str, out: list[str], seen: set[int]) -> None:
    if isinstance(obj, str):
        out.append(_encode_string(obj))
    elif obj is None or obj is True or obj is False:
        out.append("null" if obj is None else "true" if obj else "false")
    elif isinstance(obj, int):
        out.append(int.__repr__(obj))
    elif isinstance(obj, float):
        out.append(_float_text(obj))
    elif isinstance(obj, list | tuple | dict):
        opening, closing = ("{", "}") if isinstance(obj, dict) else ("[", "]")
        if not obj:
            out.append(opening + closing)
            return
        items = obj.items() if isinstance(obj, dict) else obj
        if id(obj) in seen:
            raise ValueError("Circular reference detected")
        seen.add(id(obj))
        inner = "\n" + step * (level + 1)
        out.append(opening)
        for number, item in enumerate(items):
            out.append(inner if number == 0 else "," + inner)
            if isinstance(obj, dict):
                key, item = item
                out.append(_encode_string(_key_text(key)) + ": ")
            _indented(item, level + 1, step, out, seen)
        out.append("\n" + step * level + closing)
        seen.discard(id(obj))
    else:
        _not_serialisable(obj)
