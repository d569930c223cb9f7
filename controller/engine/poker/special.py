"""Detections that pay tables need beyond the best-five category."""

from __future__ import annotations

from collections.abc import Iterable

from controller.engine.cards import ACE
from controller.engine.poker.categories import Category
from controller.engine.poker.evaluator import strength


def is_royal(cards: Iterable[int]) -> bool:
    """True when the cards contain a royal flush (POK-3)."""
    return strength(cards) >> 20 == Category.ROYAL_FLUSH


def is_community_royal(community: Iterable[int]) -> bool:
    """PRG-3: the five community cards alone form a royal flush. Such a royal uses no hole card
    and pays the community-royal line (1,000:1) instead of the pool."""
    community = tuple(community)
    return len(community) == 5 and is_royal(community)


def longest_straight_flush(cards: Iterable[int]) -> int:
    """Length of the longest run of consecutive ranks in one suit (CH-8), ace high or low
    (A-2-3-4-5-6-7 counts as 7); 0 when no run reaches 5 cards."""
    masks = [0, 0, 0, 0]
    for c in cards:
        masks[c & 3] |= 1 << ((c >> 2) + 1)  # bit 0 is the ace played low
    best = 0
    for mask in masks:
        if mask >> (ACE + 1) & 1:
            mask |= 1
        run = 0
        while mask:  # length of the longest run of ones
            mask &= mask << 1
            run += 1
        best = max(best, run)
    return best if best >= 5 else 0


def is_pair_of_aces_or_better(hand_strength: int) -> bool:
    """CH-7 Bonus threshold on five cards: a pair of aces, or any category above a pair."""
    category = hand_strength >> 20
    return category > Category.PAIR or (
        category == Category.PAIR and (hand_strength >> 16) & 15 == ACE
    )
