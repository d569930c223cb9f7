"""Amount formatting on the sign: the rule of display/money.py, edge cases and properties.

Every assertion about what the sign shows goes through display.reader, which decodes the frame's
segments or LED columns back to text without using the code that drew them.
"""

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from display.errors import AmountError, SignStateError
from display.geometry import Matrix, SevenSegment
from display.money import currency, format_money, parse_amount
from display.reader import read
from display.scenes import Pool, SignRenderer, SignState
from display.sign_amount import Shown, fit_amount, spellings

EUR = currency("EUR")
DIGITS8 = SevenSegment(8)
MATRIX64 = Matrix(64)
MATRIX32 = Matrix(32)


def shown_on(geometry, amount, code="EUR"):
    renderer = SignRenderer(geometry)
    renderer.update(SignState(pools=(Pool("P", amount),), currency=code), 0.0)
    rendered = renderer.render(0.0)
    return read(rendered.frame), rendered.overflow


@pytest.mark.parametrize(
    ("geometry", "amount", "expected"),
    [
        (DIGITS8, 0, "0.00"),
        (MATRIX64, 0, "€0.00"),
        (DIGITS8, 5, "0.05"),
        (DIGITS8, 10, "0.10"),
        (MATRIX64, 99, "€0.99"),
        (DIGITS8, 123456, "1234.56"),
        (MATRIX64, 123456, "€1,234.56"),
        (DIGITS8, 99_999_999, "999999.99"),  # the largest amount with cents on 8 digits
        (DIGITS8, 100_000_000, "1000000"),  # cents no longer fit: whole units
        (DIGITS8, 999_999_999, "9999999"),  # 9,999,999.99: cents cut, not rounded up
        (MATRIX64, 999_999_999, "€9,999,999.99"),
        (DIGITS8, 9_999_999_999, "99999999"),  # the largest amount 8 digits can show
        (MATRIX64, 12_345_678_901, "123,456,789.01"),  # no room for the symbol
        (MATRIX64, 123_456_789_012, "1234567890.12"),  # nor for the separators
        (MATRIX64, 1_234_567_890_123, "12,345,678,901"),  # units, grouped
        (MATRIX32, 999_999, "9999.99"),
        (MATRIX32, 1_000_000, "€10,000"),  # exactly 32 columns
    ],
)
def test_amount_edge_cases(geometry, amount, expected):
    assert shown_on(geometry, amount) == (expected, False)


@pytest.mark.parametrize(
    ("geometry", "amount"),
    [(DIGITS8, 10_000_000_000), (MATRIX32, 100_000_000_000), (MATRIX64, 10**20)],
)
def test_overflow_shows_dashes_and_is_reported(geometry, amount):
    text, overflow = shown_on(geometry, amount)
    assert overflow
    assert set(text) == {"-"}


def test_units_rule_truncates_never_rounds():
    assert shown_on(DIGITS8, 123_456_799) == ("1234567", False)  # 1,234,567.99
    assert fit_amount(199, EUR, lambda t: len(t) <= 1) == fit_amount(
        100, EUR, lambda t: len(t) <= 1
    )


def test_currency_without_minor_units():
    jpy = currency("JPY")
    assert list(spellings(1234567, jpy)) == [("1,234,567", Shown.EXACT), ("1234567", Shown.EXACT)]
    assert shown_on(DIGITS8, 12_345_678, "JPY") == ("12345678", False)


def test_spelling_preference_order():
    assert [t for t, _ in spellings(123456789, EUR)] == [
        "€1,234,567.89",
        "1,234,567.89",
        "1234567.89",
        "€1,234,567",
        "1,234,567",
        "1234567",
    ]


@pytest.mark.parametrize("bad", [-1, 1.5, True, "100"])
def test_bad_amounts_are_refused(bad):
    with pytest.raises(AmountError):
        list(spellings(bad, EUR))
    with pytest.raises((AmountError, SignStateError)):
        SignState(pools=(Pool("P", bad),))


def test_unknown_currency_is_named():
    with pytest.raises(AmountError, match="unknown currency 'XYZ'"):
        SignState(currency="XYZ")


@pytest.mark.parametrize(
    ("text", "cents"),
    [("0", 0), ("0.05", 5), ("1,234.56", 123456), ("€12", 1200), ("9999999.99", 999_999_999)],
)
def test_parse_amount(text, cents):
    assert parse_amount(text, EUR) == cents


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("1.234", "more than 2 decimals"),
        ("-3", "non-negative"),
        ("abc", "not an amount"),
        ("nan", "non-negative"),
        ("\u0665\u0660", "not an amount"),  # Arabic-Indic digits: Decimal() reads them
        ("\uff11.50", "not an amount"),  # a fullwidth 1
    ],
)
def test_parse_amount_errors(text, fragment):
    with pytest.raises(AmountError, match=fragment):
        parse_amount(text, EUR)


def test_format_money():
    assert format_money(123456789, EUR) == "EUR 1,234,567.89"
    assert format_money(5, EUR) == "EUR 0.05"
    assert format_money(500180, EUR, code=False) == "5,001.80"
    assert format_money(-5, EUR) == "EUR -0.05"
    assert format_money(1234, currency("JPY")) == "JPY 1,234"


def _value_of(text: str) -> Decimal:
    return Decimal(text.lstrip("€").replace(",", ""))


@given(
    amount=st.one_of(st.integers(0, 10**6), st.integers(0, 10**15)),
    geometry=st.sampled_from([DIGITS8, SevenSegment(16), MATRIX32, MATRIX64, Matrix(128)]),
)
def test_the_sign_never_shows_a_wrong_number(amount, geometry):
    """Exact with cents, or the whole units (cents cut), or dashes; and dashes only when even
    the whole units cannot fit."""
    text, overflow = shown_on(geometry, amount)
    units, cents = divmod(amount, 100)
    if overflow:
        assert set(text) == {"-"}
        assert not geometry.fits(str(units))
    elif "." in text:
        assert _value_of(text) == Decimal(amount) / 100
    else:
        assert _value_of(text) == units
        assert not geometry.fits(f"{units}.{cents:02d}")
