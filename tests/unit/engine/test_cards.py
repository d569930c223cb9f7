import pytest

from controller.engine.cards import FULL_DECK, Card, card_name, format_cards, parse_cards
from controller.errors import CardError


def test_every_card_round_trips_through_its_name():
    assert len(FULL_DECK) == 52
    assert {card_name(c) for c in FULL_DECK} == {r + s for r in "23456789TJQKA" for s in "cdhs"}
    for c in FULL_DECK:
        assert Card.parse(str(c)) == c


def test_code_layout_is_rank_times_four_plus_suit():
    assert Card.parse("2c") == 0
    assert Card.parse("2s") == 3
    assert Card.parse("As") == 51
    assert Card.parse("Td").rank == 8 and Card.parse("Td").suit == 1


@pytest.mark.parametrize("text", ["10d", "td", "TD", "Td"])
def test_ten_spellings(text):
    assert Card.parse(text) == Card.parse("Td")


def test_parse_list_and_string_agree():
    assert parse_cards("As Kd, 10h") == parse_cards(["As", "Kd", "Th"])
    assert format_cards(parse_cards("As Kd 10h")) == "As Kd Th"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("1s", "unknown rank '1'"),
        ("Ax", "unknown suit 'x'"),
        ("A", "rank and a suit"),
        ("11h", "unknown rank '11'"),
        ("", "rank and a suit"),
    ],
)
def test_bad_cards_are_named(text, fragment):
    with pytest.raises(CardError, match=fragment):
        Card.parse(text)


def test_duplicate_is_named():
    with pytest.raises(CardError, match="seat 2 cards: Kd appears twice"):
        parse_cards("As Kd Kd", what="seat 2 cards")


def test_wrong_count_is_reported():
    with pytest.raises(CardError, match="dealer cards: expected 2 cards, got 3"):
        parse_cards("As Kd Qh", count=2, what="dealer cards")


def test_card_code_out_of_range():
    with pytest.raises(CardError, match=r"outside 0\.\.51"):
        Card(52)


def test_card_error_is_a_value_error():
    with pytest.raises(ValueError):
        Card.parse("Zz")
