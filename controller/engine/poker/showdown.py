"""Exact heads-up showdown counts: every board, every player hand, every dealer hand.

The question a hold'em PAR sheet asks of the Blind (UTH-8) is: over all deals of 5 community
cards, 2 player hole cards and 2 dealer hole cards (2,598,960 x 1,081 x 990 =
2,781,381,002,400 deals), how often does the player win, tie or lose, by the player's hand
category and by whether the dealer qualifies? Brute force is out of reach; this module counts
exactly, without sampling, in a few seconds.

Theory of operation.

1. *Board classes.* Two boards whose cards differ only in ways no hand can notice give the same
   counts. Suits matter only through flushes: a board with at most two cards of every suit
   allows no flush to anyone (2 hole + 2 board < 5), so only its ranks matter; a board with
   three or more cards of one suit (the *live* suit; there is at most one) matters through its
   ranks and the ranks of its live-suit cards. A board class is therefore (rank counts, live
   rank mask), and its weight (how many of the C(52,5) boards it stands for) follows from
   counting suit assignments: ``4 x prod C(3, n_r - [r live])`` with a live suit,
   and the remaining assignments of the rank multiset without one. 6,175 + 36,608 = 42,783
   classes stand for all 2,598,960 boards.
2. *Card classes.* Given a board, the 47 unseen cards fall into at most 26 interchangeable
   classes: per rank, the live-suit card (if unseen) and the dead-suit cards (any suit that
   cannot make a flush). Every hole pair of the same two classes has the same strength.
3. *Counting with card overlap.* For a player pair ``p = {a, b}`` and a threshold ``x``, the
   dealer pairs that avoid ``a`` and ``b`` and are weaker than ``x`` number
   ``A(x) - R_a(x) - R_b(x) + [p < x]`` (inclusion-exclusion): ``A`` counts all unseen pairs
   below ``x``, ``R_a`` the pairs containing card ``a``, and ``p`` itself was removed twice.
   ``A`` and ``R`` are weighted counts over class pairs, computed for every entry at once by
   sorting each board's strengths (and each row) and taking cumulative weights at the first
   (``< x``) or last (``<= x``) element of each run of equal strengths.

Counts are exact integers; NumPy float64 only carries per-batch sums far below 2**53.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from itertools import combinations, combinations_with_replacement, pairwise
from math import comb, prod
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import multiprocessing.context

from controller.engine.poker.categories import CATEGORY_SHIFT, Category, make_strength
from controller.engine.poker.evaluator import RANK_KEYS, _dense_rank_table, _tables

CATEGORIES = len(Category)
PAIR_MIN = make_strength(Category.PAIR, ())  # the weakest pair: UTH-5 dealer qualifier
BOARDS = comb(52, 5)
PLAYER_PAIRS = comb(47, 2)
DEALER_PAIRS = comb(45, 2)
DEALS = BOARDS * PLAYER_PAIRS * DEALER_PAIRS

_CLASS_RANK = np.repeat(np.arange(13), 2)  # card class u = 2 * rank + live
_CLASS_LIVE = np.tile(np.array([0, 1]), 13)
_U, _V = np.triu_indices(26)  # the 351 pair types u <= v
_UV = _U * 26 + _V  # entry (u, v) of a flattened 26 x 26 matrix
_VU = _V * 26 + _U
_BATCH = 1024
PROGRESS_PARTS = 16  # parts a worker when progress is reported (count_showdowns)


@dataclass(frozen=True)
class BoardClasses:
    """Boards up to what hands can notice: arrays of one row per class."""

    rank_counts: np.ndarray  # (K, 13) board cards per rank
    live_mask: np.ndarray  # (K,) ranks of the live-suit board cards, 0 without a live suit
    weight: np.ndarray  # (K,) how many boards the class stands for

    def __len__(self) -> int:
        return len(self.weight)


@cache
def board_classes() -> BoardClasses:
    """All board classes with their weights (summing to C(52,5))."""
    counts, masks, weights = [], [], []
    for combo in combinations_with_replacement(range(13), 5):
        n = [combo.count(r) for r in range(13)]
        if max(n) > 4:
            continue
        present = [r for r in range(13) if n[r]]
        with_live = 0
        for size in (3, 4, 5):
            for live in combinations(present, size):
                w = 4 * prod(comb(3, n[r] - (r in live)) for r in present)
                if w:
                    counts.append(n)
                    masks.append(sum(1 << r for r in live))
                    weights.append(w)
                    with_live += w
        without = prod(comb(4, k) for k in n) - with_live
        if without:
            counts.append(n)
            masks.append(0)
            weights.append(without)
    return BoardClasses(
        np.array(counts, dtype=np.int64),
        np.array(masks, dtype=np.int64),
        np.array(weights, dtype=np.int64),
    )


def board_class_of(board: list[int] | tuple[int, ...]) -> tuple[tuple[int, ...], int]:
    """(rank counts, live rank mask) of five board cards: the key of its class."""
    n = [0] * 13
    suit_masks = [0, 0, 0, 0]
    for c in board:
        n[c >> 2] += 1
        suit_masks[c & 3] |= 1 << (c >> 2)
    live = next((m for m in suit_masks if m.bit_count() >= 3), 0)
    return tuple(n), live


@dataclass(frozen=True)
class ShowdownCounts:
    """Heads-up deals by the player's final category (index = :class:`Category`).

    ``win``/``tie``/``lose`` count deals (board, player pair, dealer pair); the ``*_unqualified``
    counts are the part of them where the dealer's hand is below ``qualifier``. ``hands``
    counts (board, player pair) combinations, so ``hands[c] * 990 == win + tie + lose``.
    """

    qualifier: int
    hands: tuple[int, ...]
    win: tuple[int, ...]
    tie: tuple[int, ...]
    lose: tuple[int, ...]
    win_unqualified: tuple[int, ...]
    tie_unqualified: tuple[int, ...]
    lose_unqualified: tuple[int, ...]

    @property
    def deals(self) -> int:
        return sum(self.win) + sum(self.tie) + sum(self.lose)


def _weighted_below(values: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For every entry of each row of (N, L) arrays: total weight of the row's entries strictly
    below it and at or below it (weights >= 0)."""
    rows, length = values.shape
    order = np.argsort(values, axis=1)
    order += np.arange(0, rows * length, length, dtype=order.dtype)[:, None]
    v = values.ravel()[order]
    w = weights.ravel()[order]
    inclusive = np.cumsum(w, axis=1)
    first = np.ones(v.shape, dtype=bool)
    first[:, 1:] = v[:, 1:] != v[:, :-1]
    last = np.ones(v.shape, dtype=bool)
    last[:, :-1] = first[:, 1:]
    # cumulative weight before the first / through the last entry of each run of equal values
    below = np.maximum.accumulate(np.where(first, inclusive - w, 0), axis=1)
    ends = np.where(last, inclusive, inclusive[:, -1:])[:, ::-1]
    at_most = np.minimum.accumulate(ends, axis=1)[:, ::-1]
    lt = np.empty(rows * length, dtype=below.dtype)
    le = np.empty(rows * length, dtype=at_most.dtype)
    lt[order] = below
    le[order] = at_most
    return lt.reshape(rows, length), le.reshape(rows, length)


def _class_strengths(counts: np.ndarray, live: np.ndarray) -> np.ndarray:
    """(B, 26, 26) strength of board + one card of class u + one of class v."""
    dense = _dense_rank_table(7)
    _, flush_table, _ = _tables()
    rank_keys = np.asarray(RANK_KEYS, dtype=np.int64)
    board_key = counts @ rank_keys
    class_key = rank_keys[_CLASS_RANK]
    keys = board_key[:, None, None] + class_key[None, :, None] + class_key[None, None, :]
    # Zero-weight classes (a fifth card of a rank) may index past the table: clip, never read.
    strengths = dense.take(keys, mode="clip")
    live_count = ((live[:, None] >> np.arange(13)) & 1).sum(axis=1)
    bit = _CLASS_LIVE << _CLASS_RANK
    suited = live_count[:, None, None] + _CLASS_LIVE[None, :, None] + _CLASS_LIVE[None, None, :]
    flushing = (live[:, None, None] != 0) & (suited >= 5)
    if flushing.any():
        masks = live[:, None, None] | bit[None, :, None] | bit[None, None, :]
        flush = np.asarray(flush_table, dtype=np.int32)[masks]
        strengths = np.where(flushing, np.maximum(strengths, flush), strengths)
    return strengths.astype(np.int32)


def _multiplicities(counts: np.ndarray, live: np.ndarray) -> np.ndarray:
    """(B, 26) unseen cards per card class."""
    in_live = (live[:, None] >> np.arange(13)) & 1
    has_live = (live != 0)[:, None]
    live_cards = np.where(has_live, 1 - in_live, 0)
    dead_cards = np.where(has_live, 3 - (counts - in_live), 4 - counts)
    m = np.empty((len(live), 26), dtype=np.int32)
    m[:, 0::2] = dead_cards
    m[:, 1::2] = live_cards
    return m


def _count_batch(
    counts: np.ndarray, live: np.ndarray, board_weight: np.ndarray, qualifier: int
) -> np.ndarray:
    """(7, CATEGORIES) sums for one batch: hands, win, tie, lose, and the unqualified three."""
    strengths = _class_strengths(counts, live)
    m = _multiplicities(counts, live)
    batch = len(live)
    # pair types u <= v: m_u * m_v unseen pairs, C(m_u, 2) when u == v
    pair_weight = np.where(_U == _V, m[:, _U] * (m[:, _U] - 1) // 2, m[:, _U] * m[:, _V])
    # row u: the unseen cards that can join one given card of class u
    row_weight = (m[:, None, :] - np.eye(26, dtype=m.dtype)).clip(min=0)

    pair_strength = strengths[:, _U, _V]
    all_lt, all_le = _weighted_below(pair_strength, pair_weight)
    row_lt, row_le = _weighted_below(strengths.reshape(-1, 26), row_weight.reshape(-1, 26))
    row_lt = row_lt.reshape(batch, 26 * 26)
    row_le = row_le.reshape(batch, 26 * 26)

    win = all_lt - row_lt[:, _UV] - row_lt[:, _VU]
    tie = all_le - row_le[:, _UV] - row_le[:, _VU] + 1 - win
    weak_matrix = strengths < qualifier
    weak = pair_strength < qualifier
    all_weak = (pair_weight * weak).sum(axis=1)
    row_weak = (row_weight * weak_matrix).sum(axis=2)
    unqualified = all_weak[:, None] - row_weak[:, _U] - row_weak[:, _V] + weak
    win_unq = np.where(weak, win, unqualified)  # every unqualified dealer is beaten
    tie_unq = np.where(weak, tie, 0)

    deal_weight = board_weight[:, None] * pair_weight
    keep = deal_weight > 0
    category = (pair_strength >> CATEGORY_SHIFT)[keep]
    dw = deal_weight[keep]
    win, tie = win[keep], tie[keep]
    unqualified, win_unq, tie_unq = unqualified[keep], win_unq[keep], tie_unq[keep]
    rows = (
        dw,
        dw * win,
        dw * tie,
        dw * (DEALER_PAIRS - win - tie),
        dw * win_unq,
        dw * tie_unq,
        dw * (unqualified - win_unq - tie_unq),
    )
    out = np.empty((len(rows), CATEGORIES), dtype=object)
    for i, values in enumerate(rows):
        # float64 sums are exact here: every partial sum is an integer far below 2**53
        sums = np.bincount(category, weights=values, minlength=CATEGORIES)
        if sums.max() >= 2**53:  # pragma: no cover - guards the batch size
            raise OverflowError("batch too large for exact float64 sums")
        out[i] = [int(x) for x in sums]
    return out


def _count_classes(
    counts: np.ndarray, live: np.ndarray, weight: np.ndarray, qualifier: int
) -> np.ndarray:
    total = np.zeros((7, CATEGORIES), dtype=object)
    for start in range(0, len(weight), _BATCH):
        part = slice(start, start + _BATCH)
        total += _count_batch(counts[part], live[part], weight[part], qualifier)
    return total


def default_workers() -> int:
    """One worker per core this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def count_showdowns(
    classes: BoardClasses | None = None,
    *,
    qualifier: int = PAIR_MIN,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> ShowdownCounts:
    """Exact heads-up counts over the given board classes (default: every board).

    ``workers`` > 1 splits the classes among that many processes (the computation is
    CPU-bound NumPy); the result is the same integer counts whatever the split. With
    ``progress``, the classes are cut into :data:`PROGRESS_PARTS` parts a worker and
    ``progress(done, total)`` (board classes) is called as each part is counted.
    """
    classes = classes if classes is not None else board_classes()
    arrays = (classes.rank_counts, classes.live_mask, classes.weight)
    n = len(classes)
    parts = 1 if n <= _BATCH else max(workers, 1) * (PROGRESS_PARTS if progress else 1)
    bounds = np.linspace(0, n, parts + 1).astype(int)
    jobs = [tuple(a[lo:hi] for a in arrays) for lo, hi in pairwise(bounds)]
    total = np.zeros((7, CATEGORIES), dtype=object)
    done = 0
    with _mapper(workers if parts > 1 else 1) as mapper:
        counted = mapper(_count_classes, *zip(*jobs, strict=True), [qualifier] * len(jobs))
        for job, part in zip(jobs, counted, strict=True):
            total += part
            done += len(job[2])
            if progress is not None:
                progress(done, n)
    rows = [tuple(int(x) for x in row) for row in total]
    return ShowdownCounts(qualifier, *rows)


@contextlib.contextmanager
def _mapper(workers: int) -> Iterator[Callable[..., Iterator[np.ndarray]]]:
    """``map`` in this process, or over ``workers`` processes (in order either way)."""
    if workers <= 1:
        yield map
        return
    _tables(), _dense_rank_table(7)  # build once; forked workers inherit them
    from concurrent.futures import ProcessPoolExecutor  # only for a parallel count

    with ProcessPoolExecutor(workers, mp_context=_fork_context()) as pool:
        yield pool.map


def _fork_context() -> multiprocessing.context.BaseContext | None:
    """Fork where available: workers then share the evaluator tables instead of rebuilding."""
    import multiprocessing

    if "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return None
