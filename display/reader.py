"""Reads a sign frame back into text, independently of how it was drawn: the test oracle for
"never a wrong number on the sign", and the hardware-in-the-loop rig's eye on the sign.

A matrix frame is read left to right: at each column the reader tries every glyph of the font
(its exact columns, followed by a dark column or the edge) and otherwise skips a dark column;
anything else is unreadable. Spaces are lost, which amounts never contain. A seven-segment
frame is decoded digit by digit from the segment patterns of 0-9 and "-", the decimal point
from bit 7.
"""

from __future__ import annotations

from display.font import GLYPHS
from display.geometry import MATRIX, SignFrame

_BY_COLUMNS = {cols: ch for ch, cols in GLYPHS.items() if ch != " "}
assert len(_BY_COLUMNS) == len(GLYPHS) - 1, "two glyphs share their columns"

# Segment patterns written out again by hand (not imported) so that the reader checks them.
_DIGITS = {
    0x7E: "0",
    0x30: "1",
    0x6D: "2",
    0x79: "3",
    0x33: "4",
    0x5B: "5",
    0x5F: "6",
    0x70: "7",
    0x7F: "8",
    0x7B: "9",
    0x01: "-",
    0x00: " ",
}


def read(frame: SignFrame) -> str:
    return _read_matrix(frame.cells) if frame.kind == MATRIX else _read_digits(frame.cells)


def _read_matrix(columns: bytes) -> str:
    cols = (*columns, 0)
    text, i = [], 0
    while i < len(columns):
        for glyph, ch in _BY_COLUMNS.items():
            end = i + len(glyph)
            if cols[i:end] == glyph and end <= len(columns) and cols[end] == 0:
                text.append(ch)
                i = end
                break
        else:
            if cols[i]:
                raise ValueError(f"unreadable columns at {i}: {columns.hex(' ')}")
            i += 1
    return "".join(text)


def _read_digits(cells: bytes) -> str:
    out = []
    for byte in cells:
        out.append(_DIGITS[byte & 0x7F])
        if byte & 0x80:
            out.append(".")
    return "".join(out).strip()
