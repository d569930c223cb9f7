"""The dot-matrix sign's font: 7 rows high, proportional, drawn for 8-row MAX7219 modules.

A glyph is written as rows of ``#`` (lit) and ``.`` (dark); its width is the length of its rows.
Digits are 4 columns wide (letters 5) so that ``9,999,999.99`` fits a 64-column sign; ``.`` and
``,`` take one column. Text is laid out with one dark column between glyphs.

Text becomes a list of **columns**: one int per column, bit ``y`` set when the LED in row ``y``
(0 = top) is lit. That is the MAX7219's own shape (one register byte per column of a module),
so a frame is compared, scrolled and cropped with plain list slicing.
"""

from __future__ import annotations

from collections.abc import Sequence

HEIGHT = 8  # rows of a MAX7219 8x8 module; glyphs use rows 0..6 (the comma's tail uses row 7)

_GLYPHS: dict[str, str] = {
    "0": ".##. #..# #..# #..# #..# #..# .##.",
    "1": "..#. .##. ..#. ..#. ..#. ..#. .###",
    "2": ".##. #..# ...# ..#. .#.. #... ####",
    "3": ".##. #..# ...# ..#. ...# #..# .##.",
    "4": "..#. .##. #.#. #.#. #### ..#. ..#.",
    "5": "#### #... ###. ...# ...# #..# .##.",
    "6": ".##. #... #... ###. #..# #..# .##.",
    "7": "#### ...# ...# ..#. .#.. .#.. .#..",
    "8": ".##. #..# #..# .##. #..# #..# .##.",
    "9": ".##. #..# #..# .### ...# ...# .##.",
    "A": ".###. #...# #...# ##### #...# #...# #...#",
    "B": "####. #...# #...# ####. #...# #...# ####.",
    "C": ".###. #...# #.... #.... #.... #...# .###.",
    "D": "####. #...# #...# #...# #...# #...# ####.",
    "E": "##### #.... #.... ####. #.... #.... #####",
    "F": "##### #.... #.... ####. #.... #.... #....",
    "G": ".###. #...# #.... #.### #...# #...# .###.",
    "H": "#...# #...# #...# ##### #...# #...# #...#",
    "I": "### .#. .#. .#. .#. .#. ###",
    "J": "..### ...#. ...#. ...#. ...#. #..#. .##..",
    "K": "#...# #..#. #.#.. ##... #.#.. #..#. #...#",
    "L": "#.... #.... #.... #.... #.... #.... #####",
    "M": "#...# ##.## #.#.# #.#.# #...# #...# #...#",
    "N": "#...# #...# ##..# #.#.# #..## #...# #...#",
    "O": ".###. #...# #...# #...# #...# #...# .###.",
    "P": "####. #...# #...# ####. #.... #.... #....",
    "Q": ".###. #...# #...# #...# #.#.# #..#. .##.#",
    "R": "####. #...# #...# ####. #.#.. #..#. #...#",
    "S": ".#### #.... #.... .###. ....# ....# ####.",
    "T": "##### ..#.. ..#.. ..#.. ..#.. ..#.. ..#..",
    "U": "#...# #...# #...# #...# #...# #...# .###.",
    "V": "#...# #...# #...# #...# #...# .#.#. ..#..",
    "W": "#...# #...# #...# #.#.# #.#.# #.#.# .#.#.",
    "X": "#...# #...# .#.#. ..#.. .#.#. #...# #...#",
    "Y": "#...# #...# .#.#. ..#.. ..#.. ..#.. ..#..",
    "Z": "##### ....# ...#. ..#.. .#... #.... #####",
    " ": "... ... ... ... ... ... ...",
    ".": ". . . . . . #",
    ",": ". . . . . . # #",
    "-": "... ... ... ### ... ... ...",
    "!": "# # # # # . #",
    ":": ". . # . # . .",
    "?": ".###. #...# ....# ...#. ..#.. ..... ..#..",
    "/": "....# ...#. ...#. ..#.. .#... .#... #....",
    "'": "# # . . . . .",
    "€": "..### .#... ####. .#... ####. .#... ..###",
    "$": "..#.. .#### #.#.. .###. ..#.# ####. ..#..",
    "£": "..##. .#..# .#... ###.. .#... .#... #####",
}


def _columns_of(rows: Sequence[str]) -> tuple[int, ...]:
    width = len(rows[0])
    if any(len(r) != width for r in rows) or len(rows) > HEIGHT:
        raise ValueError(f"malformed glyph rows {rows!r}")
    return tuple(sum(1 << y for y, row in enumerate(rows) if row[x] == "#") for x in range(width))


GLYPHS: dict[str, tuple[int, ...]] = {ch: _columns_of(g.split()) for ch, g in _GLYPHS.items()}
ALPHABET = frozenset(GLYPHS)


def text_columns(text: str) -> list[int]:
    """Columns of ``text`` (one dark column between glyphs). Raises ``KeyError`` naming the
    first character the font does not have; callers check :data:`ALPHABET` first."""
    columns: list[int] = []
    for i, ch in enumerate(text):
        if i:
            columns.append(0)
        columns.extend(GLYPHS[ch])
    return columns
