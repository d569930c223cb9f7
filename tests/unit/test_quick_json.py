"""controller.quick_json reads and writes exactly what json does (issue 17: the CLI's quick
commands use it instead of the json package)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller import quick_json

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()  # NaN and the infinities included
    | st.text()
)
KEYS = st.text() | st.integers() | st.booleans() | st.none() | st.floats(allow_nan=False)
DOCUMENTS = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(KEYS, inner, max_size=4)
    ),
    max_leaves=20,
)


@given(DOCUMENTS)
def test_indented_is_json_with_indent(document: object) -> None:
    assert quick_json.dumps_indented(document) == json.dumps(document, indent=2)
    assert quick_json.dumps_indented(document, 4) == json.dumps(document, indent=4)


@given(DOCUMENTS, st.booleans())
def test_compact_and_default_separators_are_json(document: object, sort: bool) -> None:
    try:
        expected = json.dumps(document, separators=(",", ":"), sort_keys=sort)
    except TypeError:  # sort_keys over keys of different types
        with pytest.raises(TypeError):
            quick_json.dumps(document, separators=(",", ":"), sort_keys=sort)
        return
    assert quick_json.dumps(document, separators=(",", ":"), sort_keys=sort) == expected
    assert quick_json.dumps(document) == json.dumps(document)


@given(DOCUMENTS, st.sampled_from(["", " ", "\n\t ", "\r\n"]))
def test_loads_reads_what_json_reads(document: object, space: str) -> None:
    text = space + json.dumps(document) + space
    # NaN is not equal to itself: compare the documents as json writes them
    assert json.dumps(quick_json.loads(text)) == json.dumps(json.loads(text))
    assert json.dumps(quick_json.loads(text.encode())) == json.dumps(json.loads(text))


@given(st.text(max_size=12))
def test_loads_refuses_what_json_refuses(text: str) -> None:
    try:
        expected = json.dumps(json.loads(text))
    except ValueError as exc:
        with pytest.raises(ValueError) as raised:
            quick_json.loads(text)
        assert str(raised.value) == str(exc)
    else:
        assert json.dumps(quick_json.loads(text)) == expected


@pytest.mark.parametrize(
    "text",
    ["", "{", "[1,]", "1 2", '"a', '{"a" 1}', "nul", "[1] x", "\ufeff[]"],
)
def test_a_malformed_document_is_json_error_without_json_loaded(text: str) -> None:
    """The C scanner names its error through json.decoder; in a fresh interpreter (as in the
    CLI) it is not loaded yet, and the error must still be json's, not a SystemError."""
    script = (
        "import sys\nfrom controller import quick_json\n"
        "assert 'json' not in sys.modules\n"
        "try:\n    quick_json.loads(sys.argv[1])\n"
        "except ValueError as exc:\n    print(type(exc).__name__, exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, text], capture_output=True, text=True, check=True
    )
    with pytest.raises(ValueError) as raised:
        json.loads(text)
    assert done.stdout.strip() == f"{type(raised.value).__name__} {raised.value}"


def json_reading(text: object) -> str:
    """json's reading of ``text`` as a comparable text: the value, or the error's type and
    message."""
    try:
        return repr(json.loads(text))  # type: ignore[arg-type]
    except ValueError as exc:
        return f"{type(exc).__name__}: {exc}"


def quick_reading(text: object) -> str:
    try:
        return repr(quick_json.loads(text))  # type: ignore[arg-type]
    except ValueError as exc:
        return f"{type(exc).__name__}: {exc}"


@pytest.mark.parametrize(
    "data",
    [
        b'\xef\xbb\xbf{"a": 1}',  # a UTF-8 byte-order mark
        b'"\xed\xa0\x80"',  # a lone surrogate written as UTF-8 bytes (json: surrogatepass)
        b"1\x00",  # UTF-16-LE, found by json
        b"\x00\x00\x001",  # UTF-32-BE
        b"\xff\xfe1\x00",  # UTF-16 with its byte-order mark
        b'\x00"s"',
        b"\xff[]",  # not UTF-8
        b"\xc3\xa9",  # UTF-8, not JSON
        bytearray(b"[1]"),
    ],
    ids=repr,
)
def test_bytes_are_read_as_json_reads_them(data: bytes) -> None:
    assert quick_reading(data) == json_reading(data)


@given(st.binary(max_size=8))
def test_any_bytes_are_read_as_json_reads_them(data: bytes) -> None:
    assert quick_reading(data) == json_reading(data)


def test_a_container_is_empty_as_json_finds_it() -> None:
    """json asks a container whether it is empty before it walks it (a dict subclass)."""

    class Sized(dict):  # type: ignore[type-arg]
        def __len__(self) -> int:
            return 0

    assert quick_json.dumps_indented(Sized(a=1)) == json.dumps(Sized(a=1), indent=2)


@pytest.mark.parametrize("writer", [quick_json.dumps, quick_json.dumps_indented])
def test_what_json_cannot_write_is_refused(writer) -> None:
    with pytest.raises(TypeError, match="not JSON serializable"):
        writer({"a": {1, 2}})
    loop: list[object] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference"):
        writer(loop)


def test_a_key_json_refuses_is_refused() -> None:
    with pytest.raises(TypeError, match="keys must be"):
        quick_json.dumps_indented({(1, 2): 3})


def test_importing_it_loads_neither_json_nor_re() -> None:
    script = (
        "import sys\nfrom controller import quick_json\n"
        "quick_json.dumps_indented(quick_json.loads('{\"a\": [1.5, null]}'))\n"
        "print(sorted(m for m in ('json', 're', 'enum') if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"
