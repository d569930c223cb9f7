"""The sign device through luma, checked at the wire: a recording SPI stub captures every byte
the MAX7219 chain would receive, and the test decodes them back (register by register) to the
frame that was shown."""

import importlib.util

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from display.geometry import Matrix, SevenSegment
from drivers.errors import SignDeviceError
from drivers.sign.config import parse_sign
from drivers.sign.device import RecordingSpi, open_sign_device

SCANLIMIT, DECODEMODE, INTENSITY, SHUTDOWN, DISPLAYTEST = 0x0B, 0x09, 0x0A, 0x0C, 0x0F


def spi_device(**sign):
    spi = RecordingSpi()
    device = open_sign_device(parse_sign({"backend": "spi", **sign}), spi=spi)
    spi.transfers.clear()  # the start-up sequence has its own test
    return device, spi


def decode_matrix(transfers, modules, rotate_blocks=0):
    """Rebuild the image from 8 digit-register transfers: in each transfer the first register
    pair reaches the last module of the chain (the rightmost block); register n holds column
    n-1 of its block, bit y = row y."""
    assert len(transfers) == 8
    image = Image.new("1", (8 * modules, 8))
    for transfer in transfers:
        pairs = [transfer[i : i + 2] for i in range(0, len(transfer), 2)]
        assert len(pairs) == modules
        for j, (register, data) in enumerate(pairs):
            assert 1 <= register <= 8
            x = (modules - 1 - j) * 8 + register - 1
            for y in range(8):
                image.putpixel((x, y), data >> y & 1)
    if rotate_blocks:  # undo the block orientation correction
        for x in range(0, 8 * modules, 8):
            box = (x, 0, x + 8, 8)
            image.paste(image.crop(box).rotate(rotate_blocks), box)
    return image


def test_start_up_sequence_of_a_seven_segment_chain():
    spi = RecordingSpi()
    open_sign_device(parse_sign({"kind": "seven-segment", "cascaded": 2, "brightness": 3}), spi=spi)
    assert spi.opened == (0, 0)
    assert spi.max_speed_hz == 8_000_000
    blank = [bytes([digit, 0, digit, 0]) for digit in range(1, 9)]
    assert spi.transfers == [
        bytes([SCANLIMIT, 7] * 2),
        bytes([DECODEMODE, 0] * 2),  # no BCD decoding: segments are addressed directly
        bytes([DISPLAYTEST, 0] * 2),
        bytes([INTENSITY, 7] * 2),  # luma's default contrast...
        *blank,  # luma clears the chain...
        bytes([SHUTDOWN, 1] * 2),  # ... and wakes it
        *blank,  # the seven-segment wrapper starts with empty text
        bytes([INTENSITY, 3] * 2),  # then the configured brightness
    ]


def test_seven_segment_digits_on_the_wire():
    device, spi = spi_device(kind="seven-segment", cascaded=1)
    assert device.show(text=SevenSegment(8).static("1234.56").text)
    # DIGIT0 is the rightmost digit; 0xB3 is "4" with its decimal point.
    assert [t.hex() for t in spi.transfers] == [
        "015f",
        "025b",
        "03b3",
        "0479",
        "056d",
        "0630",
        "0700",
        "0800",
    ]


def test_sixteen_digits_over_two_chips():
    """Data enters the chain at the chip nearest the Pi, which shows the 8 rightmost digits
    (luma's order for chained seven-segment modules); each transfer's first pair goes to the
    far chip."""
    device, spi = spi_device(kind="seven-segment", cascaded=2)
    device.show(text=SevenSegment(16).static("12345678901").text)
    far = [t[1] for t in sorted(spi.transfers, reverse=True)]  # DIGIT7 (left) .. DIGIT0 (right)
    near = [t[3] for t in sorted(spi.transfers, reverse=True)]
    assert far == [0, 0, 0, 0, 0, 0x30, 0x6D, 0x79]  # "     123"
    assert near == [0x33, 0x5B, 0x5F, 0x70, 0x7F, 0x7B, 0x7E, 0x30]  # "45678901"


frames = st.lists(st.integers(0, 255), min_size=8, max_size=32).map(
    lambda cols: cols[: len(cols) // 8 * 8]
)


@settings(max_examples=25)
@given(columns=frames, orientation=st.sampled_from([0, -90, 90]))
def test_matrix_frames_decode_back_exactly(columns, orientation):
    modules = len(columns) // 8
    device, spi = spi_device(kind="matrix", cascaded=modules, block_orientation=orientation)
    frame = Matrix(8 * modules).frame(columns)
    device.show(image=frame.image())
    assert spi.byte_count == 16 * modules
    decoded = decode_matrix(spi.transfers, modules, rotate_blocks=-orientation)
    assert decoded.tobytes() == frame.image().tobytes()


def test_unchanged_frames_are_not_sent_and_brightness_is_one_register():
    device, spi = spi_device(kind="matrix", cascaded=4)
    frame = Matrix(32).static("123")
    assert device.show(image=frame.image())
    sent = len(spi.transfers)
    assert not device.show(image=frame.image())
    assert len(spi.transfers) == sent
    assert not device.show(image=frame.image(), level=15)
    assert spi.transfers[sent:] == [bytes([INTENSITY, 15] * 4)]
    assert device.frames_sent == 1


def test_spi_bus_from_the_configuration():
    spi = RecordingSpi()
    open_sign_device(
        parse_sign({"spi_port": 1, "spi_device": 2, "spi_speed_hz": 1_000_000}), spi=spi
    )
    assert spi.opened == (1, 2)
    assert spi.max_speed_hz == 1_000_000


def test_dummy_backend_keeps_the_image():
    device = open_sign_device(
        parse_sign({"backend": "dummy", "cascaded": 4, "block_orientation": 0})
    )
    frame = Matrix(32).static("8")
    device.show(image=frame.image())
    assert device.device.image.tobytes() == frame.image().tobytes()
    seven = open_sign_device(
        parse_sign({"backend": "dummy", "kind": "seven-segment", "cascaded": 1})
    )
    seven.show(text=SevenSegment(8).static("7.").text)
    assert seven.device.image.getpixel((0, 0)) == 0  # column 0 = DIGIT0 = the "7."
    column = [bool(seven.device.image.getpixel((0, y))) for y in range(8)]
    assert column == [False, False, False, False, True, True, True, True]  # 0xF0 = "7."


def test_capture_backend_writes_a_gif_and_pngs(tmp_path):
    gif = tmp_path / "sign.gif"
    device = open_sign_device(
        parse_sign({"backend": "capture", "capture": str(gif), "cascaded": 2})
    )
    for text in ("1", "2", "3"):
        device.show(image=Matrix(16).static(text).image())
    device.close()
    with Image.open(gif) as animation:
        assert animation.n_frames >= 3
    folder = tmp_path / "frames"
    device = open_sign_device(
        parse_sign(
            {"backend": "capture", "capture": str(folder), "kind": "seven-segment", "cascaded": 1}
        )
    )
    device.show(text=SevenSegment(8).static("42").text)
    assert (
        sorted(p.name for p in folder.iterdir())[-1] == "sign_000003.png"
    )  # clear, brightness, frame


@pytest.mark.parametrize("capture", ["missing/sign.gif", "missing/frames"])
def test_a_configured_capture_in_a_missing_folder_is_refused_and_nothing_is_made(tmp_path, capture):
    """As --capture: a .gif in a folder that exists, or a folder made in one that does (the
    configuration's path made /nonexist as root)."""
    target = tmp_path / capture
    config = parse_sign({"backend": "capture", "capture": str(target), "cascaded": 1})
    with pytest.raises(SignDeviceError, match=f"cannot capture the sign to {target}"):
        open_sign_device(config)
    assert not (tmp_path / "missing").exists()


def test_wrong_content_for_the_kind_is_refused():
    device, _ = spi_device(kind="matrix", cascaded=1)
    with pytest.raises(SignDeviceError, match="a matrix sign needs an image"):
        device.show(text="12")


@pytest.mark.skipif(importlib.util.find_spec("spidev") is not None, reason="spidev present (a Pi)")
def test_spi_without_spidev_says_what_to_install():
    with pytest.raises(SignDeviceError, match=r"spidev is not installed.*\[pi\]"):
        open_sign_device(parse_sign({"backend": "spi"}))
