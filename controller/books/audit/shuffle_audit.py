"""Shuffle audit: is the shuffler's output uniform? (shuffler trust, DESIGN.md)

From the recognised card identities of every shuffle (the cards in the order the machine
delivered them) the controller keeps position statistics: how often each card, each rank and
each suit came out at each delivery position. Under a fair shuffle every card is equally
likely at every position, so each table of counts is tested with Pearson's chi-square test of
uniformity:

- ``card-position``: 52 cards x P positions, pooled into one statistic
  (P x 51 degrees of freedom);
- ``rank-position``: 13 ranks x P positions (P x 12 df): more counts per cell, so it catches a
  bias sooner;
- ``suit-position``: 4 suits x P positions (P x 3 df);
- ``carry-over``: the cards of the previous deal go back into the machine with the rest; after
  a fair shuffle they are no likelier at one position than another (P df). This is the test
  that catches a shuffler which keeps part of the collected order (e.g. a single pass of a
  shelf shuffler), which the marginal position tests cannot see when the cards come back in
  a different order each round.

The worst p-value, Bonferroni-corrected for the three tests, is compared with ``alpha``; below
it the audit raises an alarm (e.g. the emulator's single-pass shelf shuffle fails within a few
hundred shuffles). Tests are only reported once each cell expects at least ``min_expected``
counts, the usual condition for the chi-square approximation.

Pure arithmetic; the p-value uses the regularized upper incomplete gamma function
(:func:`chi2_sf`), written here to keep the daemon free of a large numeric dependency.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

DECK = 52


def _upper_gamma_regularized(a: float, x: float) -> float:
    """Q(a, x) = Gamma(a, x) / Gamma(a), by series for x < a + 1, else continued fraction
    (Numerical Recipes 6.2)."""
    if x <= 0:
        return 1.0
    log_prefix = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        n = a
        for _ in range(10_000):
            n += 1
            term *= x / n
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(log_prefix))
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return math.exp(log_prefix) * h


def chi2_sf(statistic: float, df: int) -> float:
    """P(X >= statistic) for X chi-square with ``df`` degrees of freedom."""
    if df <= 0:
        raise ValueError("degrees of freedom must be positive")
    return _upper_gamma_regularized(df / 2.0, statistic / 2.0)


@dataclass(frozen=True)
class TestResult:
    name: str
    statistic: float
    df: int
    p_value: float
    min_expected: float
    ready: bool  # every cell expects enough counts for the chi-square approximation


@dataclass(frozen=True)
class AuditReport:
    shuffles: int
    positions: int
    tests: tuple[TestResult, ...]
    alpha: float

    @property
    def ready(self) -> bool:
        return any(t.ready for t in self.tests)

    @property
    def worst_p(self) -> float | None:
        """The smallest p-value among the tests that are ready."""
        return min((t.p_value for t in self.tests if t.ready), default=None)

    @property
    def alarm(self) -> bool:
        """True when a ready test rejects uniformity at ``alpha`` (Bonferroni-corrected)."""
        ready = sum(t.ready for t in self.tests)
        worst = self.worst_p
        return worst is not None and worst * ready < self.alpha


@dataclass
class ShuffleStats:
    """Position counts of delivered cards, for the first ``positions`` cards of each shuffle."""

    positions: int
    counts: list[list[int]] = field(default_factory=list)  # [position][card]
    shuffles: int = 0
    # carry-over: at each position, how often the card came from the previous deal, and how
    # often a fair shuffle would put one there (the previous deal's share of the deck)
    carried: list[int] = field(default_factory=list)
    carried_expected: list[float] = field(default_factory=list)
    carry_rounds: int = 0
    previous: list[int] = field(default_factory=list)  # the cards of the last deal counted

    def __post_init__(self) -> None:
        if not self.counts:
            self.counts = [[0] * DECK for _ in range(self.positions)]
        if not self.carried:
            self.carried = [0] * self.positions
            self.carried_expected = [0.0] * self.positions

    def add_shuffle(self, cards: Sequence[int | None]) -> bool:
        """Count one shuffle's delivered cards; ignored (False) when any of the first
        ``positions`` cards was not recognised or the sequence is too short."""
        head = cards[: self.positions]
        if len(head) < self.positions or any(c is None or not 0 <= c < DECK for c in head):
            self.previous = []
            return False
        for position, card in enumerate(head):
            self.counts[position][card] += 1
        before = set(self.previous)
        if 0 < len(before) < DECK:  # a whole deck dealt tells nothing about carry-over
            for position, card in enumerate(head):
                self.carried[position] += card in before
                self.carried_expected[position] += len(before) / DECK
            self.carry_rounds += 1
        self.previous = [c for c in cards if c is not None]
        self.shuffles += 1
        return True

    def copy(self) -> ShuffleStats:
        """A copy that later counts leave as it is (to be saved on another thread)."""
        return ShuffleStats(
            self.positions,
            [row[:] for row in self.counts],
            self.shuffles,
            self.carried[:],
            self.carried_expected[:],
            self.carry_rounds,
            self.previous[:],
        )

    def forget_previous(self) -> None:
        """The deck was replaced or the round voided: the next deal starts a new chain."""
        self.previous = []

    def _carry_over(self, min_expected: float) -> TestResult | None:
        """Cards collected from the last deal are shuffled back in: after a fair shuffle
        they land anywhere, so at each position the share of carried-over cards matches the
        last deal's share of the deck. A shuffler that keeps the collected order in part (a
        single shelf pass: the newest cards end up on the outside of each shelf) shifts
        them away from some positions and towards others."""
        if not self.carry_rounds:
            return None
        statistic = 0.0
        for observed, expected in zip(self.carried, self.carried_expected, strict=True):
            other, other_expected = self.carry_rounds - observed, self.carry_rounds - expected
            statistic += (observed - expected) ** 2 / expected
            statistic += (other - other_expected) ** 2 / other_expected
        smallest = min(
            min(self.carried_expected), min(self.carry_rounds - e for e in self.carried_expected)
        )
        return TestResult(
            "carry-over",
            statistic,
            self.positions,
            chi2_sf(statistic, self.positions),
            smallest,
            smallest >= min_expected,
        )

    def _grouped(self, group_of: Iterable[int], groups: int) -> list[list[int]]:
        mapping = list(group_of)
        table = [[0] * groups for _ in range(self.positions)]
        for p, row in enumerate(self.counts):
            for card, n in enumerate(row):
                table[p][mapping[card]] += n
        return table

    def _chi_square(
        self, name: str, table: list[list[int]], probabilities: list[float], min_expected: float
    ) -> TestResult:
        statistic = 0.0
        for row in table:
            for observed, probability in zip(row, probabilities, strict=True):
                expected = self.shuffles * probability
                statistic += (observed - expected) ** 2 / expected
        df = len(table) * (len(probabilities) - 1)
        smallest = self.shuffles * min(probabilities)
        return TestResult(
            name, statistic, df, chi2_sf(statistic, df), smallest, smallest >= min_expected
        )

    def report(self, *, alpha: float = 1e-3, min_expected: float = 5.0) -> AuditReport:
        if self.shuffles == 0:
            return AuditReport(0, self.positions, (), alpha)
        ranks = self._grouped((c >> 2 for c in range(DECK)), 13)
        suits = self._grouped((c & 3 for c in range(DECK)), 4)
        tests = [
            self._chi_square("card-position", self.counts, [1 / DECK] * DECK, min_expected),
            self._chi_square("rank-position", ranks, [4 / DECK] * 13, min_expected),
            self._chi_square("suit-position", suits, [13 / DECK] * 4, min_expected),
        ]
        carry = self._carry_over(min_expected)
        if carry is not None:
            tests.append(carry)
        return AuditReport(self.shuffles, self.positions, tuple(tests), alpha)

    def to_json(self) -> dict[str, object]:
        return {
            "positions": self.positions,
            "counts": self.counts,
            "shuffles": self.shuffles,
            "carried": self.carried,
            "carried_expected": self.carried_expected,
            "carry_rounds": self.carry_rounds,
            "previous": self.previous,
        }

    @classmethod
    def from_json(cls, data: dict) -> ShuffleStats:
        return cls(**data)
