"""Best-five poker evaluation of 5, 6 or 7 cards (POK-1..5), by table lookup.

Theory of operation. Each card has a precomputed key ``rank_key << 12 | suit_key``. Adding the
keys of a hand gives, in the low 12 bits, the count of each suit (3 bits per suit, base 8), and
in the high bits a sum of rank keys that is unique for every multiset of 5 to 7 ranks with at
most four of a kind (the rank keys below are chosen so; the table builder checks it). So:

1. the suit counts say at once whether the hand holds five or more cards of one suit;
2. without a flush the strength depends only on the ranks: one dict lookup of the rank sum;
3. with a flush, the flush cards' rank bitmask is looked up in a table of flush strengths
   (straight flush included); quads or a full house from the whole hand still beat a flush,
   so the answer is the larger of the two lookups.

A single call costs a handful of Python operations. Until the tables are built (at the
daemon's start, or after ``DIRECT_LIMIT`` hands), :func:`strength` works each hand out directly
from the same two functions the tables are built from: a one-off evaluation does not pay for
the tables. :func:`strength_batch` does the same with
NumPy over an ``(N, k)`` array of card codes for PAR sheets and benchmarks. The best five cards
themselves are recovered from the strength (which names the ranks that play) by
:func:`evaluate`, which the dealer screen and the CLI use.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from functools import cache
from itertools import combinations_with_replacement

from controller.engine.cards import Card, card_name, check_distinct
from controller.engine.poker.categories import Category, category_of, make_strength, ranks_of
from controller.errors import CardError

# The type checker's alone: `croupier eval` would import typing for its constant (~4 ms of CPU)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    import numpy as np

# Rank keys whose sums are distinct for every multiset of up to 7 ranks with at most 4 of a
# rank (the set used by SKPokerEval; verified in _build_rank_table).
RANK_KEYS = (0, 1, 5, 22, 98, 453, 2031, 8698, 22854, 83661, 262349, 636345, 1479181)
SUIT_SHIFT = 3  # 3 bits per suit count in the low 12 bits
SUIT_MASK = 0xFFF
WHEEL_MASK = 0b1_0000_0000_1111  # A,5,4,3,2

CARD_KEY = tuple((RANK_KEYS[c >> 2] << 12) | (1 << (SUIT_SHIFT * (c & 3))) for c in range(52))
CARD_BIT = tuple(1 << (c >> 2) for c in range(52))


def _straight_top(mask: int) -> int:
    """Top rank of the best straight in a 13-bit rank mask, or -1 (POK-4: wheel tops at 5)."""
    for top in range(12, 3, -1):
        run = 0b11111 << (top - 4)
        if mask & run == run:
            return top
    if mask & WHEEL_MASK == WHEEL_MASK:
        return 3
    return -1


def _straight_ranks(top: int) -> tuple[int, ...]:
    return (3, 2, 1, 0, 12) if top == 3 else tuple(range(top, top - 5, -1))


def _ranks_strength(counts: Sequence[int]) -> int:
    """Best non-flush strength of a rank multiset given as counts per rank (index 0 = deuce)."""
    by_count = sorted(((n, r) for r, n in enumerate(counts) if n), reverse=True)
    mask = sum(1 << r for r, n in enumerate(counts) if n)
    top_count, top_rank = by_count[0]
    if top_count == 4:
        kicker = max(r for r, n in enumerate(counts) if n and r != top_rank)
        return make_strength(Category.FOUR_OF_A_KIND, (top_rank,) * 4 + (kicker,))
    if top_count == 3 and by_count[1][0] >= 2:
        pair = max(r for n, r in by_count[1:] if n >= 2)
        return make_strength(Category.FULL_HOUSE, (top_rank,) * 3 + (pair,) * 2)
    top = _straight_top(mask)
    if top >= 0:
        return make_strength(Category.STRAIGHT, _straight_ranks(top))
    singles = sorted((r for r, n in enumerate(counts) if n), reverse=True)
    if top_count == 3:
        kickers = [r for r in singles if r != top_rank][:2]
        return make_strength(Category.THREE_OF_A_KIND, [top_rank] * 3 + kickers)
    pairs = sorted((r for r, n in enumerate(counts) if n == 2), reverse=True)
    if len(pairs) >= 2:
        high, low = pairs[0], pairs[1]
        kicker = max(r for r in singles if r not in (high, low))
        return make_strength(Category.TWO_PAIR, (high, high, low, low, kicker))
    if pairs:
        kickers = [r for r in singles if r != pairs[0]][:3]
        return make_strength(Category.PAIR, [pairs[0]] * 2 + kickers)
    return make_strength(Category.HIGH_CARD, singles[:5])


def _flush_strength(mask: int) -> int:
    """Best strength using only the cards of one suit (rank bitmask with >= 5 bits)."""
    top = _straight_top(mask)
    if top == 12:
        return make_strength(Category.ROYAL_FLUSH, _straight_ranks(12))
    if top >= 0:
        return make_strength(Category.STRAIGHT_FLUSH, _straight_ranks(top))
    ranks = [r for r in range(12, -1, -1) if mask >> r & 1][:5]
    return make_strength(Category.FLUSH, ranks)


Tables = tuple[tuple[dict[int, int], ...], tuple[int, ...], tuple[int, ...]]
_built: list[Tables] = []  # the tables, once built or installed


# Hands worked out directly while the tables are not built (see strength), and how many such
# hands are worth the tables: a direct hand costs ~13 us here against ~1 us by the tables,
# which take ~0.7 s to build (seconds on a Pi), so a one-off (`croupier eval`, `croupier
# settle` of one round) never builds them, and a long run builds them once it has evaluated
# DIRECT_LIMIT hands. The daemon builds or loads them at its start (warm_up).
DIRECT_LIMIT = 20_000
_direct_hands = [0]


def _tables() -> Tables:
    """(per hand size: rank-sum -> strength; flush rank mask -> strength; suit sum -> flush
    suit or -1). Rank sums are unique only among hands of one size, hence one dict per size."""
    if not _built:
        _built.append(_build_tables())
    return _built[0]


def _direct_strength(cards: Sequence[int]) -> int:
    """What the tables hold for ``cards``, worked out for this hand alone: the best of its
    ranks and, with five or more cards of a suit (one suit at most, of seven cards), of that
    suit's cards."""
    counts = [0] * 13
    suits = [0, 0, 0, 0]
    for c in cards:
        counts[c >> 2] += 1
        suits[c & 3] |= CARD_BIT[c]
    best = _ranks_strength(counts)
    for mask in suits:
        if mask.bit_count() >= 5:
            return max(best, _flush_strength(mask))
    return best


def _build_tables() -> Tables:
    rank_tables: list[dict[int, int]] = [{} for _ in range(8)]
    for size in (5, 6, 7):
        rank_table = rank_tables[size]
        for combo in combinations_with_replacement(range(13), size):
            counts = [0] * 13
            for r in combo:
                counts[r] += 1
            if max(counts) > 4:
                continue
            key = sum(RANK_KEYS[r] for r in combo)
            if key in rank_table:  # pragma: no cover - guards the RANK_KEYS choice
                raise AssertionError(f"rank keys collide for {combo}")
            rank_table[key] = _ranks_strength(counts)
    flush_table = tuple(_flush_strength(m) if m.bit_count() >= 5 else 0 for m in range(1 << 13))
    flush_suit = [-1] * (SUIT_MASK + 1)
    for key in range(SUIT_MASK + 1):
        for suit in range(4):
            if (key >> (SUIT_SHIFT * suit)) & 7 >= 5:
                flush_suit[key] = suit
    return tuple(rank_tables), flush_table, tuple(flush_suit)


def warm_up() -> None:
    """Build the lookup tables now (about half a second here, seconds on a Pi) rather than at
    the first showdown: the daemon calls this at start-up so no round pays for it."""
    _tables()


# The tables as bytes, so that a daemon can keep them on disk and start without building
# them (controller/table/evaluator_cache.py does the I/O): little-endian int64 arrays, per
# hand size the sorted rank sums then their strengths, then the flush and flush-suit tables.
# TABLES_SHA256 is the digest of that encoding of the tables built here (a unit test builds
# them and checks it), so a cache file is trusted only if it is exactly those bytes.
TABLES_SHA256 = "92f321669b0b7381e5ef532dc660507ebdc41b6cf930cfd9f0a55c2313359d08"
TABLE_SIZES = (5, 6, 7)


def encode_tables() -> bytes:
    """The tables (built if need be) in the canonical encoding above."""
    rank_tables, flush_table, flush_suit = _tables()
    parts = []
    for size in TABLE_SIZES:
        keys = sorted(rank_tables[size])
        parts += [_int64s([len(keys)]), _int64s(keys), _int64s(rank_tables[size][k] for k in keys)]
    return b"".join([*parts, _int64s(flush_table), _int64s(flush_suit)])


def install_tables(blob: bytes) -> bool:
    """Use ``blob`` (from :func:`encode_tables`) as the tables if it is exactly the canonical
    encoding (its SHA-256 is :data:`TABLES_SHA256`); False, and nothing changed, otherwise."""
    import hashlib

    if hashlib.sha256(blob).hexdigest() != TABLES_SHA256:
        return False
    values = _from_int64s(blob)
    rank_tables: list[dict[int, int]] = [{} for _ in range(8)]
    at = 0
    for size in TABLE_SIZES:
        n = values[at]
        keys, strengths = values[at + 1 : at + 1 + n], values[at + 1 + n : at + 1 + 2 * n]
        rank_tables[size] = dict(zip(keys, strengths, strict=True))
        at += 1 + 2 * n
    flush_table = tuple(values[at : at + (1 << 13)])
    flush_suit = tuple(values[at + (1 << 13) :])
    _built[:] = [(tuple(rank_tables), flush_table, flush_suit)]
    return True


def _int64s(values: Iterable[int]) -> bytes:
    from array import array

    data = array("q", values)
    if data.itemsize != 8:  # pragma: no cover - every platform we run on
        raise AssertionError("array('q') is not 64-bit here")
    if sys.byteorder == "big":  # pragma: no cover
        data.byteswap()
    return data.tobytes()


def _from_int64s(blob: bytes) -> list[int]:
    from array import array

    data = array("q")
    data.frombytes(blob)
    if sys.byteorder == "big":  # pragma: no cover
        data.byteswap()
    return data.tolist()


def strength(cards: Iterable[int]) -> int:
    """Strength of the best five of 5..7 distinct cards (int codes or :class:`Card`).

    The fast path: no validation beyond what the tables imply. Use :func:`evaluate` for
    untrusted input (it checks the count and duplicates, and names the cards that play).
    """
    cards = tuple(cards)
    if not _built and _direct_hands[0] < DIRECT_LIMIT:
        _direct_hands[0] += 1
        return _direct_strength(cards)
    rank_tables, flush_table, flush_suit = _tables()
    key = 0
    for c in cards:
        key += CARD_KEY[c]
    suit = flush_suit[key & SUIT_MASK]
    best = rank_tables[len(cards)][key >> 12]
    if suit < 0:
        return best
    mask = 0
    for c in cards:
        if c & 3 == suit:
            mask |= CARD_BIT[c]
    flush = flush_table[mask]
    return flush if flush > best else best


class HandResult:
    """The best five of a hand: what plays and how strong it is.

    A plain class, not a dataclass: `croupier eval` would import dataclasses (with inspect
    and ast) for this class alone, ~10 ms of CPU, most of a tenth of a second on a Pi 3-class
    CPU (issue 17). Its attributes are final (read-only for the type checker)."""

    __slots__ = ("cards", "strength")
    strength: Final[int]
    cards: Final[tuple[Card, ...]]  # the five cards that play, in play order

    def __init__(self, strength: int, cards: tuple[Card, ...]) -> None:
        self.strength = strength
        self.cards = cards

    def __repr__(self) -> str:
        return f"HandResult(strength={self.strength!r}, cards={self.cards!r})"

    @property
    def category(self) -> Category:
        return category_of(self.strength)

    def __str__(self) -> str:
        return f"{self.category.label} ({' '.join(card_name(c) for c in self.cards)})"


def evaluate(cards: Iterable[int]) -> HandResult:
    """Best five of 5, 6 or 7 distinct cards, with the five cards that play (POK-2).

    Raises :class:`CardError` for fewer than 5 or more than 7 cards, or a card given twice.
    """
    hand = [Card(c) for c in cards]
    if not 5 <= len(hand) <= 7:
        raise CardError(f"a poker hand is 5 to 7 cards, got {len(hand)}")
    check_distinct(hand, what="hand")
    value = strength(hand)
    return HandResult(value, _cards_that_play(hand, value))


def _cards_that_play(hand: list[Card], value: int) -> tuple[Card, ...]:
    category = category_of(value)
    ranks = ranks_of(value)
    # Highest suit first among equal ranks, so the choice is deterministic.
    pool = sorted(hand, reverse=True)
    if category in (Category.FLUSH, Category.STRAIGHT_FLUSH, Category.ROYAL_FLUSH):
        suit_counts = [sum(1 for c in hand if c.suit == s) for s in range(4)]
        flush_suit = max(range(4), key=suit_counts.__getitem__)
        pool = [c for c in pool if c.suit == flush_suit]
    chosen: list[Card] = []
    for r in ranks:
        card = next(c for c in pool if c.rank == r and c not in chosen)
        chosen.append(card)
    return tuple(chosen)


# --- batch path (NumPy), for PAR sheets and benchmarks --------------------------------------


@cache
def _dense_rank_table(size: int) -> np.ndarray:
    """The rank dict of one hand size as a dense array indexed by rank sum (31 MB for 7)."""
    import numpy as np

    rank_table = _tables()[0][size]
    dense = np.zeros(max(rank_table) + 1, dtype=np.int32)
    keys = np.fromiter(rank_table.keys(), dtype=np.int64, count=len(rank_table))
    dense[keys] = np.fromiter(rank_table.values(), dtype=np.int32, count=len(rank_table))
    return dense


@cache
def _batch_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    import numpy as np

    _, flush_table, flush_suit = _tables()
    return (
        np.asarray(flush_table, dtype=np.int32),
        np.asarray(flush_suit, dtype=np.int8),
        np.asarray(CARD_KEY, dtype=np.int64),
        np.asarray(CARD_BIT, dtype=np.int32),
    )


def strength_batch(cards: np.ndarray) -> np.ndarray:
    """Strengths of many hands at once: ``cards`` is an int array of shape (N, 5..7) of
    distinct card codes per row; returns an int32 array of N strengths."""
    import numpy as np

    flush_table, flush_suit, card_key, card_bit = _batch_tables()
    cards = np.asarray(cards)
    if cards.ndim != 2 or not 5 <= cards.shape[1] <= 7:
        raise CardError(f"strength_batch needs an (N, 5..7) array, got shape {cards.shape}")
    dense = _dense_rank_table(cards.shape[1])
    keys = card_key[cards].sum(axis=1)
    result = dense[keys >> 12]
    suits = flush_suit[keys & SUIT_MASK]
    flushed = np.nonzero(suits >= 0)[0]
    if flushed.size:
        fc = cards[flushed]
        in_suit = (fc & 3) == suits[flushed, None]
        masks = np.where(in_suit, card_bit[fc], 0).sum(axis=1)
        result[flushed] = np.maximum(result[flushed], flush_table[masks])
    strengths: np.ndarray = result
    return strengths
