"""A frame drawn as the players see it: red LEDs or red segments on a dark face (RGB image).

This is what ``--png`` writes and what ``docs/sign.md`` shows. Unlike luma's emulator it draws
the seven-segment decimal points, and it dims the lit colour with the brightness level (the
MAX7219 has 16 levels, 1/32 to 31/32 duty cycle), so the brightness test pattern is visible.
"""

from __future__ import annotations

from PIL import Image, ImageDraw

from display.geometry import MATRIX, SignFrame
from display.segments import DP

FACE = (18, 14, 14)
UNLIT = (48, 16, 14)
LIT = (255, 48, 24)

# Seven-segment digit cell in abstract units (scaled by ``scale`` pixels per unit).
_CELL_W, _CELL_H = 14, 22
_L, _R, _T, _M, _B = 3.0, 10.0, 2.5, 11.0, 19.5
_THICK = 2.0
_GAP = 0.35
_SEGMENTS = {  # bit -> (orientation, fixed coordinate, start, end)
    0x40: ("h", _T, _L, _R),  # A
    0x20: ("v", _R, _T, _M),  # B
    0x10: ("v", _R, _M, _B),  # C
    0x08: ("h", _B, _L, _R),  # D
    0x04: ("v", _L, _M, _B),  # E
    0x02: ("v", _L, _T, _M),  # F
    0x01: ("h", _M, _L, _R),  # G
}


def lit_colour(level: int) -> tuple[int, int, int]:
    """The lit colour at MAX7219 level 0..15 (duty (2 * level + 1) / 32)."""
    duty = (2 * level + 1) / 32
    red, green, blue = (
        round(u + (c - u) * (0.25 + 0.75 * duty)) for c, u in zip(LIT, UNLIT, strict=True)
    )
    return red, green, blue


def preview(frame: SignFrame, scale: int = 4, level: int = 15) -> Image.Image:
    """The frame as seen from the table. ``level`` is the configured brightness; a test
    pattern's own level (``frame.level``) wins."""
    on = lit_colour(level if frame.level is None else frame.level)
    if frame.kind == MATRIX:
        return _matrix(frame, scale, on)
    return _seven_segment(frame, scale, on)


def _matrix(frame: SignFrame, scale: int, on: tuple[int, int, int]) -> Image.Image:
    image = Image.new("RGB", (len(frame.cells) * scale, 8 * scale), FACE)
    draw = ImageDraw.Draw(image)
    inset = max(scale // 8, 0.5 if scale > 2 else 0)
    for x, column in enumerate(frame.cells):
        for y in range(8):
            box = (
                x * scale + inset,
                y * scale + inset,
                (x + 1) * scale - 1 - inset,
                (y + 1) * scale - 1 - inset,
            )
            draw.ellipse(box, fill=on if column >> y & 1 else UNLIT)
    return image


def _seven_segment(frame: SignFrame, scale: int, on: tuple[int, int, int]) -> Image.Image:
    image = Image.new("RGB", (len(frame.cells) * _CELL_W * scale, _CELL_H * scale), FACE)
    draw = ImageDraw.Draw(image)
    for i, byte in enumerate(frame.cells):
        x0 = i * _CELL_W
        for bit, (orientation, fixed, start, end) in _SEGMENTS.items():
            points = _segment(orientation, fixed, start + _GAP, end - _GAP)
            draw.polygon(
                [((x0 + px) * scale, py * scale) for px, py in points],
                fill=on if byte & bit else UNLIT,
            )
        cx, cy, r = x0 + _R + 1.9, _B, 1.1
        draw.ellipse(
            ((cx - r) * scale, (cy - r) * scale, (cx + r) * scale, (cy + r) * scale),
            fill=on if byte & DP else UNLIT,
        )
    return image


def _segment(orientation: str, fixed: float, start: float, end: float) -> list[tuple[float, float]]:
    """A hexagonal segment from ``start`` to ``end`` along its axis, centred on ``fixed``."""
    h = _THICK / 2
    along = [(start, 0.0), (start + h, -h), (end - h, -h), (end, 0.0), (end - h, h), (start + h, h)]
    if orientation == "h":
        return [(a, fixed + d) for a, d in along]
    return [(fixed + d, a) for a, d in along]


def art(frame: SignFrame) -> list[str]:
    """The frame as text for a terminal: LED rows of ``#`` and ``.``, or seven-segment digits
    drawn with ``_`` and ``|`` (three rows, decimal point as ``.``)."""
    if frame.kind == MATRIX:
        return [
            "".join("#" if column >> y & 1 else "." for column in frame.cells) for y in range(8)
        ]
    rows = ["", "", ""]
    for b in frame.cells:
        rows[0] += " " + ("_" if b & 0x40 else " ") + "  "
        rows[1] += (
            ("|" if b & 0x02 else " ")
            + ("_" if b & 0x01 else " ")
            + ("|" if b & 0x20 else " ")
            + " "
        )
        rows[2] += (
            ("|" if b & 0x04 else " ") + ("_" if b & 0x08 else " ") + ("|" if b & 0x10 else " ")
        )
        rows[2] += "." if b & DP else " "
    return [r.rstrip() for r in rows]
