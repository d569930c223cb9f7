"""display.png, the sign's PNG writer: Pillow's decoder (which checks every chunk's CRC) reads
back exactly the pixels written, for any size and content, and a drawn frame's picture is the
one Pillow's own encoder gives."""

import io

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image, ImageChops

from display.geometry import Matrix, SevenSegment
from display.png import SIGNATURE, image_png, png_bytes
from display.preview import preview


@st.composite
def pictures(draw):
    width = draw(st.integers(1, 40))
    height = draw(st.integers(1, 12))
    return width, height, draw(st.binary(min_size=3 * width * height, max_size=3 * width * height))


def decoded(png: bytes) -> Image.Image:
    checked = Image.open(io.BytesIO(png))
    checked.verify()  # the chunks' CRCs and order
    image = Image.open(io.BytesIO(png))
    image.load()
    return image


@given(pictures())
def test_pillow_reads_back_every_pixel(picture):
    width, height, rgb = picture
    png = png_bytes(width, height, rgb)
    assert png.startswith(SIGNATURE)
    image = decoded(png)
    assert (image.format, image.mode, image.size) == ("PNG", "RGB", (width, height))
    assert image.tobytes() == rgb


@pytest.mark.parametrize(
    "frame",
    [Matrix(64).frame([0x7E, 0x81, 0x81, 0x7E] * 16), SevenSegment(8).frame("5001.80")],
    ids=["matrix", "seven-segment"],
)
def test_a_drawn_frame_is_the_picture_pillow_writes(frame):
    drawn = preview(frame, 4, 15)
    pillow = io.BytesIO()
    drawn.save(pillow, format="PNG")
    ours = decoded(image_png(drawn))
    assert ours.size == drawn.size
    assert not ImageChops.difference(ours, Image.open(pillow).convert("RGB")).getbbox()


def test_other_modes_are_written_as_rgb():
    grey = Image.new("L", (3, 2), 200)
    assert decoded(image_png(grey)).tobytes() == bytes([200] * 18)


@pytest.mark.parametrize(
    ("width", "height", "size", "message"),
    [
        (0, 1, 0, "1 to 2147483647 pixels a side, not 0x1"),
        (1, -1, 0, "not 1x-1"),
        (2**31, 1, 0, "not 2147483648x1"),
        (2, 2, 11, "2x2 RGB pixels are 12 bytes, not 11"),
        (2, 2, 13, "2x2 RGB pixels are 12 bytes, not 13"),
    ],
)
def test_sizes_that_disagree_with_the_data_are_refused(width, height, size, message):
    with pytest.raises(ValueError, match=message):
        png_bytes(width, height, bytes(size))
