"""Published hand counts the tests check against, and a way to list every hand."""

import numpy as np

from controller.engine.poker import Category


def combinations_array(n: int, k: int) -> np.ndarray:
    """All k-subsets of range(n) (n <= 127) in lexicographic order, one sorted row each, as a
    (C(n,k), k) int8 array. Built column by column: each row is extended by every larger card."""
    rows = np.arange(n - k + 1, dtype=np.int8)[:, None]
    for column in range(1, k):
        last = rows[:, -1].astype(np.int64)
        room = (n - k + column) - last  # choices for the next card that still leave room
        starts = np.repeat(np.cumsum(room) - room, room)
        following = np.repeat(last + 1, room) + (np.arange(int(room.sum())) - starts)
        rows = np.hstack([np.repeat(rows, room, axis=0), following[:, None].astype(np.int8)])
    return rows


# The classic counts of the best five of seven cards over all C(52,7) hands (e.g. Wikipedia,
# "Poker probability", 7-card poker hands table). Royal counted apart from straight flushes.
SEVEN_CARD_COUNTS = {
    Category.ROYAL_FLUSH: 4_324,
    Category.STRAIGHT_FLUSH: 37_260,
    Category.FOUR_OF_A_KIND: 224_848,
    Category.FULL_HOUSE: 3_473_184,
    Category.FLUSH: 4_047_644,
    Category.STRAIGHT: 6_180_020,
    Category.THREE_OF_A_KIND: 6_461_620,
    Category.TWO_PAIR: 31_433_400,
    Category.PAIR: 58_627_800,
    Category.HIGH_CARD: 23_294_460,
}

# The classic 5-card counts over all C(52,5) hands (same source, 5-card table).
FIVE_CARD_COUNTS = {
    Category.ROYAL_FLUSH: 4,
    Category.STRAIGHT_FLUSH: 36,
    Category.FOUR_OF_A_KIND: 624,
    Category.FULL_HOUSE: 3_744,
    Category.FLUSH: 5_108,
    Category.STRAIGHT: 10_200,
    Category.THREE_OF_A_KIND: 54_912,
    Category.TWO_PAIR: 123_552,
    Category.PAIR: 1_098_240,
    Category.HIGH_CARD: 1_302_540,
}
