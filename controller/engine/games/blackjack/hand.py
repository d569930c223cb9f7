"""Blackjack card values and hands (BJ-3, BJ-5).

A :class:`Hand` keeps its total incrementally: ``hard`` is the sum with every ace counted as 1
and ``aces`` the number of aces, so the best total is ``hard + 10`` when there is an ace and
that does not pass 21 (the hand is then *soft*). Adding a card is two integer additions; nothing
is recomputed from the card list (bench/blackjack.py measures this against recomputation).

A hand also carries its own wager state: ``bet`` (the stake put on it: the original bet for the
first hand, the equal second bet for a hand made by a split, BJ-7), whether it was doubled
(BJ-6), whether it came from a split, and whether it is owed a card by the shoe.
"""

from __future__ import annotations

from controller.engine.cards import Card, format_cards

# Value of each rank 2..A (rank = card >> 2); the ace counts 1 here, 11 when it fits (BJ-3).
RANK_VALUES = (2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10, 1)
ACE_VALUE = 1


class Hand:
    """One blackjack hand: cards, running totals and the wager on it."""

    __slots__ = (
        "aces",
        "actions",
        "bet",
        "cards",
        "doubled",
        "from_split",
        "hard",
        "label",
        "owed",
        "split_aces",
        "stood",
    )

    def __init__(
        self,
        bet: int,
        *,
        from_split: bool = False,
        split_aces: bool = False,
        label: str = "main",
    ) -> None:
        self.label = label  # the wager's name, fixed when the hand is made (main, main.2, ...)
        self.cards: list[Card] = []
        self.hard = 0
        self.aces = 0
        self.bet = bet
        self.doubled = False
        self.from_split = from_split
        self.split_aces = split_aces  # BJ-7: one card only on each split ace
        self.owed = False  # the shoe owes this hand a card (after hit, double or split)
        self.stood = False
        self.actions: list[str] = []  # the decisions taken on this hand, in order

    def add(self, card: Card) -> None:
        self.cards.append(card)
        value = RANK_VALUES[card >> 2]
        self.hard += value
        if value == ACE_VALUE:
            self.aces += 1

    def remove_second(self) -> Card:
        """Take the second card away (a split, BJ-7) and return it."""
        card = self.cards.pop()
        value = RANK_VALUES[card >> 2]
        self.hard -= value
        if value == ACE_VALUE:
            self.aces -= 1
        return card

    @property
    def total(self) -> int:
        hard = self.hard
        return hard + 10 if self.aces and hard <= 11 else hard

    @property
    def is_soft(self) -> bool:
        return bool(self.aces) and self.hard <= 11

    @property
    def is_bust(self) -> bool:
        return self.hard > 21

    @property
    def is_blackjack(self) -> bool:
        """BJ-5: ace + ten-value card as the first two cards of an unsplit hand."""
        return len(self.cards) == 2 and not self.from_split and self.total == 21

    @property
    def stake(self) -> int:
        return self.bet * 2 if self.doubled else self.bet

    @property
    def stands_by_itself(self) -> bool:
        """The hand ended without a decision to stand: 21 (a blackjack included), the one card
        of a split ace (BJ-7) or of a double (BJ-6). A recorded ``stand`` on it is allowed
        and changes nothing."""
        return (
            not self.owed
            and not self.stood
            and not self.is_bust
            and (self.total == 21 or self.split_aces or self.doubled)
        )

    @property
    def is_done(self) -> bool:
        """No decision is left on this hand: it stood, busted, reached 21, or took the one card
        a double (BJ-6) or a split ace (BJ-7) allows."""
        if self.owed:
            return False
        return (
            self.stood
            or self.doubled
            or self.split_aces
            or self.hard > 21
            or self.total == 21  # a 21 cannot improve: the hand stands by itself
        )

    def describe(self) -> str:
        """``blackjack``, ``bust 24``, ``soft 18``, ``20``: what a reviewer reads."""
        if self.is_blackjack:
            return "blackjack"
        if self.is_bust:
            return f"bust {self.hard}"
        return f"soft {self.total}" if self.is_soft else str(self.total)

    def __repr__(self) -> str:
        return f"Hand({format_cards(self.cards)}: {self.describe()})"
