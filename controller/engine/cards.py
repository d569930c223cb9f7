"""Playing cards and their notation (POK-1).

A card is an integer ``rank * 4 + suit`` with ranks 0..12 for 2..A and suits 0..3 for clubs,
diamonds, hearts, spades. The same numbering is the card code on the shuffler wire
(docs/protocol.md), so a recognised card goes from the link to the engine without translation.
:class:`Card` is an ``int`` that prints as ``As``; every function here also accepts plain ints.

Notation: rank ``2 3 4 5 6 7 8 9 T J Q K A`` (``10`` accepted for ``T``, ranks upper or lower
case), suit ``c d h s`` (upper case accepted). Examples: ``As Kd Qh Jc Td 10s 2c``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from controller.errors import CardError

RANKS = "23456789TJQKA"
SUITS = "cdhs"
DECK_SIZE = 52

ACE = RANKS.index("A")
KING = RANKS.index("K")
QUEEN = RANKS.index("Q")
TEN = RANKS.index("T")

_RANK_OF_CHAR = {ch: i for i, ch in enumerate(RANKS)} | {
    ch.lower(): i for i, ch in enumerate(RANKS) if ch.isalpha()
}
_RANK_OF_CHAR["10"] = TEN
_SUIT_OF_CHAR = {ch: i for i, ch in enumerate(SUITS)} | {
    ch.upper(): i for i, ch in enumerate(SUITS)
}


class Card(int):
    """A card of one 52-card deck. ``Card(51)`` is the ace of spades; ``Card.parse("As")`` too."""

    __slots__ = ()

    def __new__(cls, value: int) -> Card:
        if not 0 <= value < DECK_SIZE:
            raise CardError(f"card code {value} is outside 0..51")
        return _CARDS[value]

    @classmethod
    def parse(cls, text: object) -> Card:
        """Parse ``As``, ``10d``, ``td``... Raises :class:`CardError` naming the bad text."""
        if not isinstance(text, str):
            shown = (
                repr(text) if isinstance(text, int | float | bool | None) else type(text).__name__
            )
            raise CardError(f"card {shown} is not written like 'As' (card notation, not a code)")
        t = text.strip()
        rank = _RANK_OF_CHAR.get(t[:-1]) if len(t) >= 2 else None
        suit = _SUIT_OF_CHAR.get(t[-1:]) if len(t) >= 2 else None
        if rank is None or suit is None:
            if len(t) >= 2 and rank is None:
                why = f"unknown rank {t[:-1]!r} (ranks are {' '.join(RANKS)}, or 10)"
            elif len(t) >= 2:
                why = f"unknown suit {t[-1]!r} (suits are c d h s)"
            else:
                why = "a card is a rank and a suit, like 'As' or '10d'"
            raise CardError(f"card {text!r}: {why}")
        return _CARDS[rank * 4 + suit]

    @property
    def rank(self) -> int:
        return self >> 2

    @property
    def suit(self) -> int:
        return self & 3

    def __str__(self) -> str:
        return RANKS[self >> 2] + SUITS[self & 3]

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"


_CARDS: list[Card] = [int.__new__(Card, i) for i in range(DECK_SIZE)]

FULL_DECK: tuple[Card, ...] = tuple(_CARDS)


def card_name(card: int) -> str:
    """``'As'`` for 51; accepts plain ints."""
    return str(Card(card))


def parse_cards(
    items: str | Iterable[str | int],
    *,
    count: int | Sequence[int] | None = None,
    what: str = "cards",
    unique: bool = True,
) -> list[Card]:
    """Parse cards from ``"As Kd"`` or ``["As", "Kd"]``. Only notation: a number (a wire card
    code, or JSON ``true``) is refused, never read silently as a card.

    ``count`` is the number of cards required (or the allowed numbers); ``what`` names the
    cards in error messages ("dealer cards", "seat 3 cards"). With ``unique`` (one deck, POK-1)
    a card given twice is rejected, naming it.
    """
    if isinstance(items, str):
        items = items.replace(",", " ").split()
    try:
        cards = [Card.parse(x) for x in items]
    except CardError as exc:
        raise CardError(f"{what}: {exc}") from None
    if count is not None:
        allowed = (count,) if isinstance(count, int) else tuple(count)
        if len(cards) not in allowed:
            want = " or ".join(str(n) for n in allowed)
            raise CardError(f"{what}: expected {want} cards, got {len(cards)}")
    if unique:
        check_distinct(cards, what=what)
    return cards


def check_distinct(cards: Iterable[int], *, what: str = "cards") -> None:
    """Raise :class:`CardError` naming the first card that appears twice (one deck, POK-1)."""
    seen: set[int] = set()
    for c in cards:
        if c in seen:
            raise CardError(f"{what}: {card_name(c)} appears twice, but there is one deck")
        seen.add(c)


def format_cards(cards: Iterable[int]) -> str:
    return " ".join(card_name(c) for c in cards)
