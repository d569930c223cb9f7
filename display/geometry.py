"""The two kinds of sign and how text is laid out on them.

- :class:`SevenSegment`: a chain of 8-digit seven-segment modules (``digits`` = 8 per module).
  A position is a digit; text is cut into digits with :func:`digit_tokens` (``"2."`` is one
  digit with its decimal point).
- :class:`Matrix`: a chain of 8x8 dot-matrix modules, ``width`` columns by 8 rows. A position is
  a column (see :mod:`display.font`).

Both lay out text the same way over their positions ("units"): right- or centre-aligned when it
fits, or scrolled through the sign (a marquee: the text enters on the right and leaves on the
left, one position per step). The result is a :class:`SignFrame`, the unit of change the device
layer compares and sends.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from display import font, segments

if TYPE_CHECKING:
    from PIL import Image

Align = Literal["right", "center"]
SEVEN_SEGMENT = "seven-segment"
MATRIX = "matrix"


@dataclass(frozen=True)
class SignFrame:
    """One picture of the sign.

    ``cells`` holds one byte per position, left to right: on a seven-segment sign the segment
    byte of each digit (:mod:`display.segments`), on a matrix the byte of each column (bit ``y``
    = row ``y``, top row = bit 0). ``text`` is the seven-segment text the cells encode (exactly
    one token per digit, what luma's ``sevensegment`` is given); ``None`` on a matrix. ``level``
    overrides the configured brightness (0..15) for test patterns; ``None`` keeps it.
    """

    kind: str
    cells: bytes
    text: str | None = None
    level: int | None = None

    def image(self) -> Image.Image:
        """The matrix frame as a 1-bit image, ``len(cells)`` x 8 (what luma's max7219 takes)."""
        if self.kind != MATRIX:
            raise ValueError("only a matrix frame is an image; a seven-segment frame is text")
        from PIL import Image  # here: a daemon without a matrix sign never loads Pillow

        width = len(self.cells)
        rows = bytearray()
        for y in range(font.HEIGHT):
            bits = 0
            for column in self.cells:
                bits = (bits << 1) | ((column >> y) & 1)
            rows += bits.to_bytes((width + 7) // 8, "big")
        return Image.frombytes("1", (width, font.HEIGHT), bytes(rows))

    @property
    def lit(self) -> int:
        """How many segments / LEDs are on (a cheap fingerprint for tests and benchmarks)."""
        return sum(bin(b).count("1") for b in self.cells)


def digit_tokens(text: str) -> list[str]:
    """Seven-segment text cut into digits: ``"12.5"`` -> ``["1", "2.", "5"]``."""
    tokens: list[str] = []
    for ch in text:
        if ch == "." and tokens and not tokens[-1].endswith("."):
            tokens[-1] += ch
        else:
            tokens.append(ch)
    return tokens


class _Layout:
    """Text layout over a row of positions; subclasses say what a position holds."""

    kind: str
    positions: int
    scroll_rate: float  # marquee steps per second
    _blank: object

    def can_draw(self, text: str) -> bool:
        raise NotImplementedError

    def units(self, text: str) -> list[Any]:
        raise NotImplementedError

    def frame(self, units: Sequence[Any], level: int | None = None) -> SignFrame:
        raise NotImplementedError

    def fits(self, text: str) -> bool:
        """True when the sign can draw every character of ``text`` and has room for it."""
        return self.can_draw(text) and len(self.units(text)) <= self.positions

    def static(self, text: str, align: Align = "right", level: int | None = None) -> SignFrame:
        units = self.units(text)
        spare = self.positions - len(units)
        if spare < 0:
            raise ValueError(f"{text!r} does not fit the sign")
        left = spare if align == "right" else spare // 2
        return self.frame([self._blank] * left + units + [self._blank] * (spare - left), level)

    def blank(self) -> SignFrame:
        return self.frame([self._blank] * self.positions)

    def marquee_steps(self, text: str) -> int:
        """Steps of one pass of ``text`` through the sign (from blank to blank)."""
        return self.positions + len(self.units(text))

    def marquee(self, text: str, step: int) -> SignFrame:
        """Step ``step`` of the pass: at step 0 the sign is blank and the text is about to
        enter on the right."""
        pad = [self._blank] * self.positions
        strip = pad + self.units(text) + pad
        start = step % self.marquee_steps(text)
        return self.frame(strip[start : start + self.positions])


@dataclass(frozen=True)
class SevenSegment(_Layout):
    """A chain of seven-segment digits (8 per MAX7219)."""

    digits: int = 8
    scroll_rate: float = 3.0
    kind = SEVEN_SEGMENT
    _blank = " "

    @property
    def positions(self) -> int:  # type: ignore[override]
        return self.digits

    @property
    def modules(self) -> int:
        return self.digits // 8

    @property
    def test_positions(self) -> int:
        """What the "each digit" test pattern walks through: every digit."""
        return self.digits

    def can_draw(self, text: str) -> bool:
        return set(text) <= segments.ALPHABET

    def units(self, text: str) -> list[str]:
        return digit_tokens(text)

    def frame(self, units: Sequence[Any], level: int | None = None) -> SignFrame:
        text = "".join(units)
        return SignFrame(SEVEN_SEGMENT, segments.encode(text), text, level)

    def all_on(self, level: int | None = None) -> SignFrame:
        return self.frame(["8."] * self.digits, level)

    def one_on(self, index: int) -> SignFrame:
        """Only digit ``index`` (0 = leftmost) fully lit: the "each digit" test pattern."""
        return self.frame(["8." if i == index else " " for i in range(self.digits)])

    def dashes(self) -> SignFrame:
        return self.frame(["-"] * self.digits)


@dataclass(frozen=True)
class Matrix(_Layout):
    """A chain of 8x8 modules: ``width`` columns (8 per module) by 8 rows."""

    width: int = 64
    scroll_rate: float = 24.0
    kind = MATRIX
    _blank = 0

    @property
    def positions(self) -> int:  # type: ignore[override]
        return self.width

    @property
    def modules(self) -> int:
        return self.width // 8

    @property
    def test_positions(self) -> int:
        """What the "each digit" test pattern walks through: every 8x8 module."""
        return self.modules

    def can_draw(self, text: str) -> bool:
        return set(text) <= font.ALPHABET

    def units(self, text: str) -> list[int]:
        return font.text_columns(text)

    def frame(self, units: Sequence[Any], level: int | None = None) -> SignFrame:
        return SignFrame(MATRIX, bytes(units), None, level)

    def all_on(self, level: int | None = None) -> SignFrame:
        return self.frame([0xFF] * self.width, level)

    def one_on(self, index: int) -> SignFrame:
        """Only module ``index`` (0 = leftmost) fully lit: the "each digit" test pattern."""
        return self.frame([0xFF if x // 8 == index else 0 for x in range(self.width)])

    def dashes(self) -> SignFrame:
        count = (self.width + 1) // (len(font.GLYPHS["-"]) + 1)  # a dash and its gap
        return self.static("-" * count, "center")


Geometry = SevenSegment | Matrix
