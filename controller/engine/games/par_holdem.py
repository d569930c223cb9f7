"""Exact PAR sheets of the hold'em side bets (``croupier par``, docs/par.md).

What is counted for each bet, all exact (enumeration or combinatorics, never sampling):

- **Trips** (UTH-9): the player's own 7 cards, every one of the C(52,7) hands by category
  (:func:`~controller.engine.poker.census.census`). Trips is decided on the player's hand
  alone (win, lose, tie or fold), so nothing else matters. The stake comes back on a win.
- **Progressive** (PRG-3, uth-gr): the player's 2 hole cards and the 5 community cards, the
  C(52,2) x C(50,5) ordered splits (21 per 7-card hand). A royal is a *community royal* exactly
  when the five community cards are the royal: (5-card royals) x C(47,2) splits; the other
  royal splits use a hole card and win the pool. The stake is never returned (PRG-2); the pool
  line is the jackpot line, left out of the return (``jackpot_probability``).
- **Blind** (UTH-8): every heads-up deal (board, player pair, dealer pair) by the player's
  category and the showdown (:mod:`controller.engine.poker.showdown`). The sheet assumes the player
  plays every hand to showdown; UTH-7 decides what an unqualified dealer does to the Blind.
- **Bonus** (CH-7): the player's first five cards (2 hole + 3 flop), all C(52,5) hands; the
  sheet assumes the player plays (a folded hand's Bonus loses).
- **Jumbo 7** (CH-8): the player's 7 cards by category and longest straight-flush run; fixed
  amounts per unit stake (the profile's progressive stake), stake never returned (PRG-2).
"""

from __future__ import annotations

from math import comb
from typing import Any

from controller.engine.games.par import (
    LOSE,
    PUSH,
    BetSheet,
    PayLine,
    Progress,
    other_line,
    pay_table_sheet,
    paying_lines,
    sheets_json,
)
from controller.engine.paytable import BET_LINES, PayTable
from controller.engine.poker import Category
from controller.engine.poker.census import census, pair_of_aces
from controller.engine.poker.showdown import (
    DEALS,
    PAIR_MIN,
    ShowdownCounts,
    count_showdowns,
    default_workers,
)
from controller.engine.profiles import Profile, Progressive
from controller.errors import ParError

SPLITS = comb(7, 2)  # ways to split one 7-card hand into 2 hole + 5 community cards
BEST_FIRST = tuple(reversed(Category))

SEVEN_CARDS = f"the player's 7 cards: all C(52,7) = {comb(52, 7):,} hands"
HOLE_AND_BOARD = (
    "the player's 2 hole cards and the 5 community cards: C(52,2) x C(50,5) = "
    f"{comb(52, 2) * comb(50, 5):,} deals (21 per 7-card hand)"
)
FIRST_FIVE = f"the player's first five cards (2 hole + 3 flop): all C(52,5) = {comb(52, 5):,} hands"
HEADS_UP = f"5 community + 2 player + 2 dealer cards: C(52,5) x C(47,2) x C(45,2) = {DEALS:,} deals"


def par_sheet(
    profile: Profile, *, decks: int | None = None, progress: Progress | None = None
) -> dict[str, Any]:
    """The ``croupier par --json`` document of a UTH or Casino Hold'em profile;
    ``progress(done, total)`` follows the one long part, the Blind's showdowns."""
    if decks is not None and decks != 1:
        raise ParError(
            f"profile {profile.name} ({profile.game}) is dealt from one 52-card deck "
            f"(POK-1, CH-1); --decks {decks} does not apply"
        )
    sheets = (
        uth_sheets(profile, progress) if profile.game == "uth" else casino_holdem_sheets(profile)
    )
    if progress is not None:
        progress(1, 1)  # done, whether or not there were showdowns to count
    return sheets_json(profile.name, sheets)


def uth_sheets(profile: Profile, progress: Progress | None = None) -> list[BetSheet]:
    sheets = []
    if "trips" in profile.paytables:
        sheets.append(trips_sheet(profile.paytables["trips"]))
    if "blind" in profile.paytables:
        rule = profile.options.get("dealer_not_qualified", "ante-pushes")
        sheets.append(blind_sheet(profile.paytables["blind"], rule, progress))
    if profile.progressive is not None:
        sheets.append(uth_progressive_sheet(profile.progressive))
    return sheets


def casino_holdem_sheets(profile: Profile) -> list[BetSheet]:
    sheets = []
    if "bonus" in profile.paytables:
        sheets.append(bonus_sheet(profile.paytables["bonus"]))
    if profile.progressive is not None:
        sheets.append(jumbo7_sheet(profile.progressive))
    return sheets


def _by_category(counts: dict[Category, int]) -> dict[str, int]:
    return {c.label: counts[c] for c in BEST_FIRST}


def trips_sheet(table: PayTable) -> BetSheet:
    return pay_table_sheet(
        "trips",
        "Trips (UTH-9)",
        SEVEN_CARDS,
        _by_category(census(7).categories),
        table,
        vocabulary=BET_LINES["trips"],
        stake_returned=True,
        notes=("Decided on the player's own hand, whether the player wins, loses, ties or folds.",),
    )


def _progressive_sheet(
    progressive: Progressive, title: str, space: str, outcomes: dict[str, int], note: str
) -> BetSheet:
    return pay_table_sheet(
        progressive.bet,
        title,
        space,
        outcomes,
        progressive.paytable,
        vocabulary=BET_LINES[progressive.bet],
        stake_returned=False,
        unit_stake=progressive.stake,
        notes=(
            f"The stake is never returned (PRG-2): odds X:1 pay X times the stake, a fixed "
            f"amount is per unit stake of {progressive.stake} minor units.",
            "return leaves the pool line out: add jackpot_probability x pool / stake for a "
            "given meter (one bettor).",
            note,
        ),
    )


def uth_progressive_sheet(progressive: Progressive) -> BetSheet:
    seven, five = census(7), census(5)
    community = five.count(Category.ROYAL_FLUSH) * comb(47, 2)
    outcomes = {
        "royal-flush": SPLITS * seven.count(Category.ROYAL_FLUSH) - community,
        "community-royal": community,
        **{c.label: SPLITS * seven.count(c) for c in BEST_FIRST if c != Category.ROYAL_FLUSH},
    }
    note = (
        "A royal using no hole card is a community royal and pays its line, not the pool "
        "(PRG-3). The envy bonus (PRG-4) depends on the other players and is not included."
    )
    return _progressive_sheet(
        progressive, "Ultimate Progressive (PRG-3)", HOLE_AND_BOARD, outcomes, note
    )


_SHOWDOWNS: list[ShowdownCounts] = []  # computed once per process


def uth_showdowns(progress: Progress | None = None) -> ShowdownCounts:
    """Heads-up counts with the UTH-5 qualifier (a pair), computed once per process (the
    ``progress`` of that computation: :func:`count_showdowns`)."""
    if not _SHOWDOWNS:
        counts = count_showdowns(qualifier=PAIR_MIN, workers=default_workers(), progress=progress)
        _SHOWDOWNS.append(counts)
    return _SHOWDOWNS[0]


def blind_sheet(
    table: PayTable, dealer_not_qualified: str, progress: Progress | None = None
) -> BetSheet:
    counts = uth_showdowns(progress)
    pushes_unqualified = dealer_not_qualified == "ante-wins"  # UTH-7 Italian
    if pushes_unqualified:
        wins = {c.label: counts.win[c] - counts.win_unqualified[c] for c in BEST_FIRST}
        ties = sum(counts.tie) - sum(counts.tie_unqualified)
        losses = sum(counts.lose) - sum(counts.lose_unqualified)
        unqualified = sum(counts.win_unqualified + counts.tie_unqualified)
        unqualified += sum(counts.lose_unqualified)
    else:
        wins = {c.label: counts.win[c] for c in BEST_FIRST}
        ties, losses, unqualified = sum(counts.tie), sum(counts.lose), 0
    lines, below = paying_lines(wins, table, BET_LINES["blind"], stake_returned=True)
    others: list[PayLine] = [
        other_line("win-below-pay-table", below, PUSH),
        other_line("tie", ties, PUSH),
    ]
    if pushes_unqualified:
        others.append(other_line("dealer-not-qualified", unqualified, PUSH))
    others.append(other_line("dealer-wins", losses, LOSE))
    rule = (
        "UTH-7 (Italian, dealer_not_qualified = ante-wins): an unqualified dealer pushes the Blind."
        if pushes_unqualified
        else "UTH-7 (dealer_not_qualified = ante-pushes): the Blind is decided against the "
        "dealer's hand whether or not the dealer qualifies."
    )
    return BetSheet(
        "blind",
        "Blind pay distribution (UTH-8)",
        HEADS_UP,
        (*lines, *others),
        (
            "Assumes the player plays every hand to showdown (never folds); with folds the "
            "Blind's distribution depends on the player's strategy.",
            "Pays only when the player beats the dealer, by the player's hand; a win below the "
            "pay table and a tie push; the dealer qualifies with a pair or better (UTH-5).",
            rule,
        ),
    )


def bonus_sheet(table: PayTable) -> BetSheet:
    five = census(5)
    aces = pair_of_aces(five)
    outcomes = _by_category(five.categories)
    outcomes["pair"] -= aces
    outcomes["pair-of-aces"] = aces
    return pay_table_sheet(
        "bonus",
        "Bonus (CH-7)",
        FIRST_FIVE,
        outcomes,
        table,
        vocabulary=BET_LINES["bonus"],
        stake_returned=True,
        notes=("Assumes the player plays: a folded hand's Bonus loses (CH-7).",),
    )


def jumbo7_sheet(progressive: Progressive) -> BetSheet:
    seven = census(7)
    runs = seven.straight_flush_runs
    straight_flushes = (Category.ROYAL_FLUSH, Category.STRAIGHT_FLUSH)
    outcomes = {
        "seven-card-straight-flush": runs.get(7, 0),
        "six-card-straight-flush": runs.get(6, 0),
        "five-card-straight-flush": runs.get(5, 0),
        **{c.label: seven.count(c) for c in BEST_FIRST if c not in straight_flushes},
    }
    note = (
        "A royal flush counts as a five-card straight flush (CH-8). A jackpot is shared among "
        "the round's Jumbo 7 bettors (CH-9)."
    )
    return _progressive_sheet(progressive, "Jumbo 7 (CH-8)", SEVEN_CARDS, outcomes, note)
