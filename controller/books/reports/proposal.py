"""The progressive proposal: the document a casino files before a progressive goes live
(Maryland COMAR 36.04.01.30 lists its contents), computed from the exact PAR engine, never
simulated (docs/regulatory.md).

For each pool of the table: the game and pay table, the seed (initial and reset), the
contribution and reserve rates, the cap and what happens above it, the award rules, and from
the PAR sheet of the progressive stake (``controller.engine.games``):

- the exact probability of every pay line for one progressive stake in one round, and the
  expected number of hits per round at ``seats`` progressive seats (``seats x p``: exact, by
  linearity, though the seats of a round share cards), with the mean rounds and hours between
  hits at ``rounds_per_hour``;
- the return to player of the stake as a function of the meter ``M``:
  ``R(M) = R0 + P(jackpot) x M / S`` (``R0`` the fixed lines, ``S`` the unit stake), without
  the progressive (``R0``: the jackpot line paying nothing) and with it at chosen meters;
- the break-even meter ``M* = S (1 - R0) / P(jackpot)`` where ``R(M*) = 1``;
- the long-run return: every contribution and every seed goes back to players through the
  jackpot, so ``R0 + contribution rate + P(jackpot) x seed / S`` (no cap; overflow into the
  reserve funds later seeds).

Envy bonuses (PRG-4) and shares of a linked pool (CH-9) depend on the other stakes of the
round and are listed as rules, not in the return.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from controller.books.reports.theoretical import side_bet_sheets
from controller.engine.games.par import BetSheet
from controller.engine.pools.config import PoolConfig
from controller.engine.profiles import Profile
from controller.errors import CroupierError

METER_MULTIPLES = (1, Fraction(3, 2), 2, 3, 5, 10)  # of the seed, for the R(M) table


class ProposalError(CroupierError, ValueError):
    """A proposal that cannot be made (no progressive, a pace or seat count out of range)."""


@dataclass(frozen=True)
class Pace:
    seats: int  # progressive seats per round
    rounds_per_hour: int

    def check(self, profile: Profile) -> None:
        if not 1 <= self.seats <= profile.seats:
            raise ProposalError(f"seats must be 1..{profile.seats} for profile {profile.name}")
        if not 1 <= self.rounds_per_hour <= 1000:
            raise ProposalError("rounds per hour must be 1..1000")


def _f(x: Fraction) -> float:
    return float(x)


def progressive_sheet(profile: Profile) -> BetSheet:
    if profile.progressive is None:
        raise ProposalError(f"profile {profile.name} has no progressive")
    bet = profile.progressive.bet
    return next(s for s in side_bet_sheets(profile) if s.bet == bet)


def pool_proposal(config: PoolConfig, sheet: BetSheet, pace: Pace) -> dict[str, Any]:
    rules = config.rules
    stake = rules.stake
    r0 = sheet.return_
    p_jackpot = sheet.jackpot_probability or Fraction(0)
    lines = []
    for line in sheet.lines:
        if line.result != "win":
            continue
        p = sheet.probability(line)
        per_round = p * pace.seats
        lines.append(
            {
                "line": line.hand,
                "pays": line.pays,
                "combinations": line.combinations,
                "probability": _f(p),
                "probability_exact": str(p),
                "one_in": _f(1 / p) if p else None,
                "expected_hits_per_round": _f(per_round),
                "mean_rounds_between_hits": _f(1 / per_round) if per_round else None,
                "mean_hours_between_hits": _f(1 / per_round / pace.rounds_per_hour)
                if per_round
                else None,
            }
        )

    def rtp(meter: int) -> Fraction:
        return r0 + p_jackpot * Fraction(meter, stake)

    meters = sorted(
        {int(config.seed * m) for m in METER_MULTIPLES} | ({config.cap} if config.cap else set())
    )
    break_even = stake * (1 - r0) / p_jackpot if p_jackpot else None
    long_run = r0 + config.contribution_rate + p_jackpot * Fraction(config.seed, stake)
    return {
        "pool": config.name,
        "bet": rules.bet,
        "unit_stake": stake,
        "seed": {"initial": config.seed, "reset": config.seed},
        "contribution_rate": str(config.contribution_rate),
        "contribution_band": [str(b) for b in rules.contribution_band],
        "reserve_rate": str(config.reserve_rate),
        "cap": config.cap,
        "above_cap": "contributions above the cap go to the reserve, which funds the next seed"
        if config.cap
        else "no cap",
        "award_policy": rules.award,
        "multiple_hits": rules.multiple_hits,
        "envy_bonus": rules.envy_bonus,
        "linked": rules.linked,
        "pay_table": {line: str(pay) for line, pay in rules.paytable.pays.items()},
        "lines": lines,
        "jackpot_probability": _f(p_jackpot),
        "jackpot_probability_exact": str(p_jackpot),
        "return_without_progressive": _f(r0),
        "return_by_meter": [{"meter": m, "return": _f(rtp(m))} for m in meters],
        "break_even_meter": round(break_even) if break_even is not None else None,
        "long_run_return": _f(long_run),
        "space": sheet.space,
    }


def build_proposal(
    profile: Profile, pools: dict[str, PoolConfig], pace: Pace, *, table_id: str
) -> dict[str, Any]:
    """The proposal of every local pool of a table (see the module docstring)."""
    pace.check(profile)
    if not pools:
        raise ProposalError(
            "the table configuration has no local pool ([pools.NAME] with "
            "a seed); a linked pool's proposal is made from its store"
        )
    sheet = progressive_sheet(profile)
    return {
        "document": "progressive-proposal",
        "table": table_id,
        "profile": profile.name,
        "game": profile.game,
        "currency": profile.money.currency,
        "pace": {"seats": pace.seats, "rounds_per_hour": pace.rounds_per_hour},
        "method": "exact PAR sheet (enumeration), never simulated: " + sheet.space,
        "pools": [pool_proposal(c, sheet, pace) for c in pools.values()],
    }
