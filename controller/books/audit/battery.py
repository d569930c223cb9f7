"""The shuffle test battery at 99% confidence (Greek draft casino technical rules art. 23.1.2):
chi-square, overlaps, poker, coupon collector, permutation, serial, runs and interplay
correlation, on recognised-card sequences (docs/regulatory.md).

Input: ``N`` whole-deck sequences, each the 52 cards of one shuffle in the order the machine
delivered them (a lab run: shuffle, deal the whole deck, record, repeat; the cards go back in
the order they came out, as on the table). Every test has an exact null distribution under
a fair shuffle (each sequence a uniform random permutation, independent of the others) or a
normal limit with exact moments, and reports its statistic and p-value; the battery fails a
test whose p-value is below ``alpha`` (0.01):

``chi-square``  card x position counts. For sums of random permutation matrices the Pearson
    statistic is ``52/51`` times a chi-square with ``51^2`` df (the cell covariance is
    ``(I - J/52) (x) (I - J/52) / 51``), so ``X^2 x 51/52`` is tested against chi2(2601).
``overlaps``    cards that stay next to each other: for each shuffle, how many cards are
    followed by the card that followed them in the previous shuffle (successions of the
    relative permutation, which is uniform and independent from shuffle to shuffle). Exact
    distribution: ``C(n-1, k) R(n-k) / n!`` with ``R(m)`` the permutations of ``m`` without a
    succession; the total over the run is its convolution power (FFT). One-sided (a shuffle
    that keeps the collected order keeps neighbours together).
``poker``       the first five cards of each shuffle by the number of distinct ranks (5, 4,
    3 or fewer; exact hypergeometric odds), chi2 with 2 df.
``coupon``      cards dealt until every rank has appeared (the coupon collector; exact law by
    inclusion-exclusion), grouped into about ten classes of equal probability.
``permutation`` the relative order of the cards at positions 1-4, 5-8, ..., 49-52: 24
    patterns, uniform and independent for disjoint blocks of a uniform permutation; chi2(23).
``serial``      the suits of the first two cards as an ordered pair (16 cells, exact odds of
    dealing without replacement), chi2(15).
``runs``        ascending runs of card codes in each shuffle: the descents of a uniform
    permutation of n have mean (n-1)/2 and variance (n+1)/12; the total is normal. Two-sided.
``interplay``   Spearman correlation between each card's position in one shuffle and the
    next (mean 0, variance 1/(n-1) per pair of shuffles); the total is normal. Two-sided.

Pure arithmetic on NumPy arrays; the chi-square tail is the audit's own
(:func:`~controller.books.audit.shuffle_audit.chi2_sf`), the normal tail ``erfc``; the
tests check every tail against scipy.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import comb, factorial

import numpy as np

from controller.books.audit.shuffle_audit import chi2_sf
from controller.errors import CroupierError

DECK = 52
ALPHA = 0.01  # 99% confidence
MIN_SHUFFLES = 260  # every card x position cell expects at least 5
SUCCESSIONS_KEPT = 24  # per-shuffle succession counts beyond this have probability < 1e-23


class BatteryError(CroupierError, ValueError):
    """The sequences cannot be tested (too few, or one is not a whole recognised deck)."""


@dataclass(frozen=True)
class BatteryTest:
    name: str
    statistic: float
    df: int | None  # chi-square degrees of freedom; None for a normal or exact statistic
    p_value: float
    counted: str  # what was counted, for the report

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "statistic": self.statistic,
            "df": self.df,
            "p_value": self.p_value,
            "counted": self.counted,
        }


@dataclass(frozen=True)
class BatteryReport:
    shuffles: int
    alpha: float
    tests: tuple[BatteryTest, ...]

    @property
    def failed(self) -> list[str]:
        return [t.name for t in self.tests if t.p_value < self.alpha]

    @property
    def passed(self) -> bool:
        return not self.failed

    def to_json(self) -> dict[str, object]:
        return {
            "shuffles": self.shuffles,
            "alpha": self.alpha,
            "confidence": 1 - self.alpha,
            "passed": self.passed,
            "failed": self.failed,
            "tests": [t.to_json() for t in self.tests],
        }


def normal_two_sided(z: float) -> float:
    return math.erfc(abs(z) / math.sqrt(2))


def as_array(shuffles: Sequence[Sequence[int | None]]) -> np.ndarray:
    """The sequences as an (N, 52) array; BatteryError naming the first one that is not a
    whole deck of recognised cards."""
    if len(shuffles) < MIN_SHUFFLES:
        raise BatteryError(
            f"the battery needs at least {MIN_SHUFFLES} shuffles, got {len(shuffles)}"
        )
    full = list(range(DECK))
    for n, cards in enumerate(shuffles, 1):
        if any(c is None for c in cards) or sorted(cards) != full:
            raise BatteryError(
                f"shuffle {n} is not one whole deck of recognised cards ({len(cards)} cards)"
            )
    return np.asarray(shuffles, dtype=np.int64)


def _pearson(observed: np.ndarray, probabilities: np.ndarray) -> float:
    expected = observed.sum() * probabilities
    return float(((observed - expected) ** 2 / expected).sum())


def chi_square_test(s: np.ndarray) -> BatteryTest:
    n, size = s.shape[0], DECK
    counts = np.zeros((size, size), dtype=np.int64)
    np.add.at(counts, (np.tile(np.arange(size), n), s.ravel()), 1)
    expected = n / size
    x2 = float(((counts - expected) ** 2).sum() / expected) * (size - 1) / size
    df = (size - 1) ** 2
    return BatteryTest("chi-square", x2, df, chi2_sf(x2, df), "each card at each position")


@lru_cache(maxsize=4)
def succession_pmf(n: int = DECK) -> tuple[Fraction, ...]:
    """P(k successions) in a uniform permutation of n, k = 0..n-1 (exact)."""

    def none(m: int) -> int:  # permutations of m with no succession
        return sum((-1) ** j * comb(m - 1, j) * factorial(m - j) for j in range(m))

    total = factorial(n)
    return tuple(Fraction(comb(n - 1, k) * none(n - k), total) for k in range(n))


def sum_upper_tail(pmf: Sequence[float], terms: int, at_least: int) -> float:
    """P(X_1 + ... + X_terms >= at_least) for i.i.d. X on 0..len(pmf)-1 (FFT power)."""
    size = (len(pmf) - 1) * terms + 1
    length = 1 << (size - 1).bit_length()
    spectrum = np.fft.rfft(np.asarray(pmf, dtype=float), length) ** terms
    dist = np.clip(np.fft.irfft(spectrum, length)[:size], 0.0, None)
    return float(min(1.0, dist[at_least:].sum())) if at_least < size else 0.0


def overlaps_test(s: np.ndarray) -> BatteryTest:
    previous_position = np.argsort(s[:-1], axis=1)  # where each card was in the last shuffle
    here = np.take_along_axis(previous_position, s[1:], axis=1)
    kept = int((here[:, 1:] == here[:, :-1] + 1).sum())
    pmf = [float(p) for p in succession_pmf()[: SUCCESSIONS_KEPT + 1]]
    p = sum_upper_tail(pmf, s.shape[0] - 1, kept)
    return BatteryTest(
        "overlaps", float(kept), None, p, "neighbours kept from one shuffle to the next (one-sided)"
    )


POKER_CLASSES = np.array([1_317_888, 1_098_240, 182_832]) / 2_598_960  # 5, 4, <=3 ranks


def poker_test(s: np.ndarray) -> BatteryTest:
    ranks = np.sort(s[:, :5] // 4, axis=1)
    distinct = 1 + (np.diff(ranks, axis=1) != 0).sum(axis=1)
    observed = np.array([(distinct == 5).sum(), (distinct == 4).sum(), (distinct <= 3).sum()])
    x2 = _pearson(observed, POKER_CLASSES)
    return BatteryTest("poker", x2, 2, chi2_sf(x2, 2), "ranks in the first five cards")


@lru_cache(maxsize=4)
def coupon_pmf(kinds: int = 13, copies: int = 4) -> dict[int, Fraction]:
    """P(T = t): T cards are dealt until all ``kinds`` ranks have appeared (exact)."""
    deck = kinds * copies

    def all_seen(t: int) -> Fraction:
        return sum(
            (
                Fraction((-1) ** j * comb(kinds, j) * comb(deck - copies * j, t), comb(deck, t))
                for j in range(kinds + 1)
            ),
            Fraction(0),
        )

    last = copies * (kinds - 1) + 1  # every copy of all ranks but one, then the last rank
    cdf = {t: all_seen(t) for t in range(kinds - 1, last + 1)}
    return {t: cdf[t] - cdf[t - 1] for t in range(kinds, last + 1)}


@lru_cache(maxsize=4)
def coupon_classes(groups: int = 10) -> tuple[tuple[int, int, float], ...]:
    """(first t, last t, probability) of about ``groups`` classes of equal probability."""
    classes, start, mass, target = [], None, Fraction(0), Fraction(1, groups)
    pmf = coupon_pmf()
    ts = sorted(pmf)
    for t in ts:
        start = t if start is None else start
        mass += pmf[t]
        if mass >= target or t == ts[-1]:
            classes.append((start, t, float(mass)))
            start, mass = None, Fraction(0)
    if classes[-1][2] < float(target) / 2 and len(classes) > 1:  # fold a thin last class
        (a, _, p1), (_, b, p2) = classes[-2], classes[-1]
        classes[-2:] = [(a, b, p1 + p2)]
    return tuple(classes)


def coupon_test(s: np.ndarray) -> BatteryTest:
    ranks = s // 4
    seen = np.zeros((s.shape[0], 13), dtype=bool)
    first = np.full(s.shape[0], DECK, dtype=np.int64)
    for position in range(DECK):
        seen[np.arange(s.shape[0]), ranks[:, position]] = True
        done = seen.all(axis=1) & (first == DECK)
        first[done] = position + 1
    classes = coupon_classes()
    observed = np.array([((first >= a) & (first <= b)).sum() for a, b, _ in classes])
    probabilities = np.array([p for _, _, p in classes])
    x2 = _pearson(observed, probabilities / probabilities.sum())
    df = len(classes) - 1
    return BatteryTest("coupon", x2, df, chi2_sf(x2, df), "cards until every rank was seen")


def permutation_test(s: np.ndarray, block: int = 4) -> BatteryTest:
    blocks = s.reshape(s.shape[0], DECK // block, block).reshape(-1, block)
    ranks = blocks.argsort(axis=1).argsort(axis=1)  # each card's order within its block
    code = np.zeros(len(ranks), dtype=np.int64)
    for i in range(block):  # Lehmer code: how many later cards are smaller
        smaller = (ranks[:, i + 1 :] < ranks[:, i : i + 1]).sum(axis=1)
        code = code * (block - i) + smaller
    patterns = factorial(block)
    observed = np.bincount(code, minlength=patterns)
    x2 = _pearson(observed, np.full(patterns, 1 / patterns))
    df = patterns - 1
    return BatteryTest(
        "permutation",
        x2,
        df,
        chi2_sf(x2, df),
        f"order patterns of {DECK // block} blocks of {block} cards",
    )


SERIAL_PROBABILITIES = np.array(
    [(13 * 12 if a == b else 13 * 13) / (52 * 51) for a in range(4) for b in range(4)]
)


def serial_test(s: np.ndarray) -> BatteryTest:
    pairs = (s[:, 0] % 4) * 4 + s[:, 1] % 4
    observed = np.bincount(pairs, minlength=16)
    x2 = _pearson(observed, SERIAL_PROBABILITIES)
    return BatteryTest("serial", x2, 15, chi2_sf(x2, 15), "suits of the first two cards")


def runs_test(s: np.ndarray) -> BatteryTest:
    n = DECK
    descents = int((s[:, 1:] < s[:, :-1]).sum())
    shuffles = s.shape[0]
    z = (descents - shuffles * (n - 1) / 2) / math.sqrt(shuffles * (n + 1) / 12)
    return BatteryTest(
        "runs", z, None, normal_two_sided(z), "ascending runs of card codes (z, two-sided)"
    )


def interplay_test(s: np.ndarray) -> BatteryTest:
    n = DECK
    position = np.argsort(s, axis=1)  # each card's position in each shuffle
    d = (position[1:] - position[:-1]).astype(float)
    rho = 1 - 6 * (d**2).sum(axis=1) / (n * (n * n - 1))
    z = float(rho.sum() / math.sqrt((s.shape[0] - 1) / (n - 1)))
    return BatteryTest(
        "interplay",
        z,
        None,
        normal_two_sided(z),
        "Spearman correlation of consecutive shuffles (z, two-sided)",
    )


TESTS = (
    chi_square_test,
    overlaps_test,
    poker_test,
    coupon_test,
    permutation_test,
    serial_test,
    runs_test,
    interplay_test,
)


def run_battery(shuffles: Sequence[Sequence[int | None]], alpha: float = ALPHA) -> BatteryReport:
    """Every test of the battery on whole-deck sequences (see the module docstring)."""
    s = as_array(shuffles)
    return BatteryReport(len(s), alpha, tuple(test(s) for test in TESTS))
