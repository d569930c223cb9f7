"""Poker hands: categories, the table-driven evaluator and the special detections the pay
tables need (community royal, straight-flush runs, pair of aces)."""

from controller.engine.poker.categories import Category, category_of, make_strength, ranks_of
from controller.engine.poker.evaluator import HandResult, evaluate, strength, strength_batch
from controller.engine.poker.special import (
    is_community_royal,
    is_pair_of_aces_or_better,
    is_royal,
    longest_straight_flush,
)

__all__ = [
    "Category",
    "HandResult",
    "category_of",
    "evaluate",
    "is_community_royal",
    "is_pair_of_aces_or_better",
    "is_royal",
    "longest_straight_flush",
    "make_strength",
    "ranks_of",
    "strength",
    "strength_batch",
]
