"""The theoretical hold of each side bet, from the exact PAR engine (never simulated).

For a table wager the theoretical hold is the PAR sheet's house edge. For a progressive
stake it depends on the meter: the jackpot line pays the pool, so with the pool at ``M``
minor units and a unit stake of ``S`` the hold is ``house edge (jackpot left out) - P(jackpot)
x M / S``; the day report uses the pool's opening amount. Only the side bets have a PAR sheet
of their own (docs/par.md); Ante, Blind and Play belong to the main game and show no
theoretical figure.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction

from controller.engine.games.par import BetSheet
from controller.engine.profiles import Profile


@dataclass(frozen=True)
class ParFigure:
    bet: str
    house_edge: Fraction  # the jackpot line left out
    jackpot_probability: Fraction | None
    unit_stake: int | None  # of a progressive stake

    def hold(self, meter: int | None = None) -> Fraction:
        if self.jackpot_probability is None or meter is None or not self.unit_stake:
            return self.house_edge
        return self.house_edge - self.jackpot_probability * Fraction(meter, self.unit_stake)


def side_bet_sheets(profile: Profile) -> list[BetSheet]:
    """The PAR sheets that take seconds, not minutes: every side bet but the UTH Blind (whose
    2.78 x 10^12 showdowns are ``croupier par``'s job)."""
    if profile.game == "blackjack":
        from controller.engine.games.blackjack.rules import BlackjackRules
        from controller.engine.games.blackjack.trilux import trilux_sheet

        rules = BlackjackRules.from_profile(profile, None)
        return [trilux_sheet(rules.trilux, rules.decks)]
    from controller.engine.games import par_holdem

    sheets = []
    if profile.game == "uth":
        if "trips" in profile.paytables:
            sheets.append(par_holdem.trips_sheet(profile.paytables["trips"]))
        if profile.progressive is not None:
            sheets.append(par_holdem.uth_progressive_sheet(profile.progressive))
    else:
        if "bonus" in profile.paytables:
            sheets.append(par_holdem.bonus_sheet(profile.paytables["bonus"]))
        if profile.progressive is not None:
            sheets.append(par_holdem.jumbo7_sheet(profile.progressive))
    return sheets


def par_figures(profile: Profile) -> dict[str, ParFigure]:
    progressive = profile.progressive
    figures = {}
    for sheet in side_bet_sheets(profile):
        stake = progressive.stake if progressive and sheet.bet == progressive.bet else None
        figures[sheet.bet] = ParFigure(
            sheet.bet, sheet.house_edge, sheet.jackpot_probability, stake
        )
    return figures


def as_percent(value: Fraction) -> str:
    return str(
        (Decimal(value.numerator) * 100 / Decimal(value.denominator)).quantize(
            Decimal("0.01"), rounding=ROUND_HALF_EVEN
        )
    )
