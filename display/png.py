"""The sign's pictures as PNG files, encoded with zlib alone.

``display.preview`` draws a frame as an 8-bit RGB image. Pillow's ``Image.save`` loads its BMP,
GIF, JPEG, PPM and PNG plugins (with ``logging`` and ``subprocess``) before it writes a byte:
13 ms of CPU at full speed, about a tenth of a second of ``croupier sign show --png`` on a Pi
3-class CPU (docs/daemon.md, session 16). An RGB picture is three chunks of the PNG format
(ISO/IEC 15948: IHDR, one IDAT of zlib-compressed rows, IEND), written here.
"""

from __future__ import annotations

import struct
import zlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL.Image import Image

SIGNATURE = b"\x89PNG\r\n\x1a\n"
# IHDR: 8 bits a sample, colour type 2 (RGB), deflate, adaptive filtering, no interlace
_DEPTH, _RGB, _DEFLATE, _ADAPTIVE, _NOT_INTERLACED = 8, 2, 0, 0, 0
_NO_FILTER = b"\x00"  # each row's filter type: the sign's flat colours compress well unfiltered
MAX_SIDE = 2**31 - 1  # PNG's limit for a width or a height


def png_bytes(width: int, height: int, rgb: bytes) -> bytes:
    """The PNG file of a ``width`` x ``height`` picture given as rows of RGB bytes (3 a pixel,
    top row first). Raises ValueError when the sizes and the data disagree."""
    if not (0 < width <= MAX_SIDE and 0 < height <= MAX_SIDE):
        raise ValueError(f"a PNG picture is 1 to {MAX_SIDE} pixels a side, not {width}x{height}")
    stride = 3 * width
    if len(rgb) != stride * height:
        raise ValueError(f"{width}x{height} RGB pixels are {stride * height} bytes, not {len(rgb)}")
    rows = b"".join(_NO_FILTER + rgb[top : top + stride] for top in range(0, len(rgb), stride))
    header = struct.pack(
        ">IIBBBBB", width, height, _DEPTH, _RGB, _DEFLATE, _ADAPTIVE, _NOT_INTERLACED
    )
    return b"".join(
        (
            SIGNATURE,
            _chunk(b"IHDR", header),
            _chunk(b"IDAT", zlib.compress(rows, 9)),
            _chunk(b"IEND", b""),
        )
    )


def image_png(image: Image) -> bytes:
    """A Pillow image (``display.preview``'s RGB drawing, or any mode Pillow converts to RGB)
    as a PNG file."""
    width, height = image.size
    return png_bytes(width, height, image.convert("RGB").tobytes())


def _chunk(kind: bytes, data: bytes) -> bytes:
    """Length, type, data and the CRC-32 of type and data."""
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
