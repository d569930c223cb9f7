"""Seven-segment code: sign text -> one byte per digit, in the MAX7219 "no decode" layout.

Bit 7 is the decimal point, bits 6..0 are segments A..G::

     -A-
    F   B
     -G-
    E   C
     -D-  .DP

A ``.`` lights the decimal point of the digit before it, so ``"1234.56"`` takes 6 digits; a
``.`` after another ``.`` (or at the start) takes a digit of its own. This is exactly what
luma's ``dot_muncher`` does, and the table below holds luma's bytes for the characters the sign
uses (a test compares them), so the preview of a frame and the device show the same segments.
There is no ``,`` here on purpose: on seven segments it would be the same dot as the decimal
point, and ``1.234.567`` must never be read as a fraction.
"""

from __future__ import annotations

DP = 0x80

_CODES: dict[str, int] = {
    " ": 0x00,
    "-": 0x01,
    "_": 0x08,
    "0": 0x7E,
    "1": 0x30,
    "2": 0x6D,
    "3": 0x79,
    "4": 0x33,
    "5": 0x5B,
    "6": 0x5F,
    "7": 0x70,
    "8": 0x7F,
    "9": 0x7B,
    "A": 0x77,
    "B": 0x7F,
    "C": 0x4E,
    "D": 0x7E,
    "E": 0x4F,
    "F": 0x47,
    "G": 0x5E,
    "H": 0x37,
    "I": 0x30,
    "J": 0x38,
    "K": 0x57,
    "L": 0x0E,
    "M": 0x54,
    "N": 0x76,
    "O": 0x7E,
    "P": 0x67,
    "Q": 0x73,
    "R": 0x46,
    "S": 0x5B,
    "T": 0x0F,
    "U": 0x3E,
    "V": 0x3E,
    "W": 0x2A,
    "X": 0x37,
    "Y": 0x3B,
    "Z": 0x6D,
    "!": 0xA0,
    "?": 0xE5,
    "'": 0x02,
    "/": 0x25,
    ":": 0x48,
}
ALPHABET = frozenset(_CODES) | {"."}


def encode(text: str) -> bytes:
    """One byte per digit for ``text``. Raises ``KeyError`` on a character outside
    :data:`ALPHABET` (callers check first)."""
    out = bytearray()
    previous_was_dot = True  # a leading "." gets its own digit
    for ch in text:
        if ch == ".":
            if previous_was_dot:
                out.append(DP)
            else:
                out[-1] |= DP
            previous_was_dot = True
        else:
            out.append(_CODES[ch])
            previous_was_dot = False
    return bytes(out)


def digit_count(text: str) -> int:
    """How many digits ``text`` takes on the display."""
    return len(encode(text))
