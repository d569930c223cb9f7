"""Every sign scene, on both kinds of sign, as the players see it.

The catalogue below is the single list of scenes that ``docs/sign.md`` shows and that the
golden-image tests check. Regenerate the pictures after changing the rendering::

    make sign-docs        # docs/sign/*.png (large) and tests/display/golden/*.png (small)

(``python -m display.gallery DIR [--scale-matrix N] [--scale-digits N]`` writes one set.) Then
look at the pictures before committing them: the golden tests only prove that nothing changed
by accident.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

from display.geometry import Geometry, Matrix, SevenSegment
from display.preview import preview
from display.scenes import Mode, Pool, Rendered, SignRenderer, SignState

SIGNS: dict[str, Geometry] = {"digits": SevenSegment(8), "matrix": Matrix(64)}

MEGA = Pool("MEGA", 4_821_357)
MINI = Pool("MINI", 63_020)


@dataclass(frozen=True)
class Scene:
    """A named moment: the states given to the renderer (each with its time) and the time of
    the picture."""

    name: str
    caption: str
    states: tuple[tuple[float, SignState], ...]
    at: float

    def render(self, geometry: Geometry) -> Rendered:
        renderer = SignRenderer(geometry)
        for when, state in self.states:
            renderer.update(state, when)
        return renderer.render(self.at)


def _open(*pools: Pool, **kw: object) -> SignState:
    return SignState(pools=pools, **kw)  # type: ignore[arg-type]


SCENES = (
    Scene("amount", "One pool: the meter, right-aligned.", ((0, _open(MEGA)),), 0),
    Scene(
        "rollup",
        "Half-way through a roll-up: EUR 2.40 of contributions arrived at t = 0; the sign"
        " counts up over 2 s and never shows more than the meter.",
        ((0, _open(MEGA)), (10, _open(Pool("MEGA", MEGA.amount + 240)))),
        11,
    ),
    Scene("zero", "A meter at zero.", ((0, _open(Pool("MEGA", 0))),), 0),
    Scene(
        "units",
        "EUR 9,999,999.99: the matrix has room for the cents; 8 digits have not, so they show"
        " the whole units, cents cut off (never rounded up).",
        ((0, _open(Pool("MEGA", 999_999_999))),),
        0,
    ),
    Scene(
        "overflow",
        "EUR 12,345,678,901,234: even the whole units do not fit: dashes, never a wrong number.",
        ((0, _open(Pool("MEGA", 1_234_567_890_123_400))),),
        0,
    ),
    Scene(
        "rotation-name", "Two pools in rotation: the name first...", ((0, _open(MEGA, MINI)),), 0
    ),
    Scene("rotation-amount", "...then its amount.", ((0, _open(MEGA, MINI)),), 3),
    Scene(
        "rotation-second",
        "...then the next pool's amount.",
        ((0, _open(MEGA, MINI)),),
        10.5,
    ),
    Scene(
        "message",
        "A message scrolls by after the amount.",
        ((0, _open(MEGA, message="GOOD LUCK!")),),
        6 + 1.5,
    ),
    Scene(
        "jackpot-word",
        "JACKPOT: the word blinks three times...",
        ((0, SignState(pools=(MEGA,), mode=Mode.JACKPOT, jackpot=MEGA.amount)),),
        0,
    ),
    Scene(
        "jackpot-amount",
        "...then the winning amount, until the technician acknowledges the hit.",
        ((0, SignState(pools=(MEGA,), mode=Mode.JACKPOT, jackpot=MEGA.amount)),),
        2.5,
    ),
    Scene(
        "closed",
        "Progressive closed (no progressive stakes taken): the text scrolls through.",
        ((0, SignState(mode=Mode.CLOSED)),),
        2,
    ),
    Scene(
        "offline",
        "Linked pool unreachable: the table takes no progressive stakes and says so.",
        ((0, SignState(mode=Mode.OFFLINE)),),
        2,
    ),
    Scene(
        "test-all",
        "Test pattern `all`: every segment or LED on.",
        ((0, SignState(mode=Mode.TEST, pattern="all")),),
        0,
    ),
    Scene(
        "test-digits",
        "Test pattern `digits`: each digit (each module on a matrix) in turn; here the third.",
        ((0, SignState(mode=Mode.TEST, pattern="digits")),),
        1.0,
    ),
    Scene(
        "test-brightness",
        "Test pattern `brightness`: all on, the 16 levels in turn; here level 3.",
        ((0, SignState(mode=Mode.TEST, pattern="brightness")),),
        1.5,
    ),
)


def picture(sign: str, scene: Scene, scale: int) -> Image.Image:
    return preview(scene.render(SIGNS[sign]).frame, scale)


def write_all(directory: Path, scale_matrix: int, scale_digits: int) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for sign in SIGNS:
        scale = scale_matrix if sign == "matrix" else scale_digits
        for scene in SCENES:
            path = directory / f"{sign}-{scene.name}.png"
            picture(sign, scene, scale).save(path, optimize=True)
            written.append(path)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="write every sign scene as a PNG")
    parser.add_argument("directory", type=Path)
    parser.add_argument("--scale-matrix", type=int, default=8, help="pixels per LED")
    parser.add_argument("--scale-digits", type=int, default=3, help="pixels per unit of a digit")
    args = parser.parse_args(argv)
    paths = write_all(args.directory, args.scale_matrix, args.scale_digits)
    print(f"wrote {len(paths)} pictures to {args.directory}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
