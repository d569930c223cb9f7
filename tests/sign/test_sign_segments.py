"""Seven-segment code and digit layout, checked against luma's own mapper (the device path)."""

from hypothesis import given
from hypothesis import strategies as st
from luma.led_matrix.segment_mapper import dot_muncher

from display.geometry import SevenSegment, digit_tokens
from display.segments import ALPHABET, digit_count, encode

sign_text = st.text(alphabet=sorted(ALPHABET), max_size=24)


@given(sign_text)
def test_encoding_matches_luma_byte_for_byte(text):
    """The preview and luma's max7219 device light the same segments for every sign text."""
    assert encode(text) == bytes(dot_muncher(text))


@given(sign_text)
def test_tokens_are_digits(text):
    tokens = digit_tokens(text)
    assert "".join(tokens) == text
    assert len(tokens) == digit_count(text)
    assert [encode(t) for t in tokens] == [bytes([b]) for b in encode(text)]


def test_decimal_point_shares_the_digit_before_it():
    assert encode("8.") == b"\xff"
    assert digit_count("1234.56") == 6
    assert digit_count(".5") == 2  # a leading point has a digit of its own
    assert digit_count("8..") == 2


def test_right_alignment_pads_whole_digits():
    frame = SevenSegment(8).static("12.5")
    assert frame.text == "     12.5"
    assert len(frame.cells) == 8


def test_no_comma_on_seven_segments():
    """A comma would light the same dot as the decimal point: the sign must not draw it."""
    assert not SevenSegment(8).can_draw("1,234")
