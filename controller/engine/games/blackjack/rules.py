"""The blackjack rules of one profile, resolved once into plain values the engine reads fast.

:func:`BlackjackRules.from_profile` turns a validated ``game = "blackjack"`` profile
(config/profiles/trilux-gr.toml) into this object; the shoe size may be overridden (a table
running 4 decks under a 6-deck profile, ``croupier par --decks 4``), within BJ-1's 4 to 6.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from controller.engine.paytable import Odds, PayTable
from controller.engine.profiles import DECKS, Money, OverMaximum, Profile, parse_double_on
from controller.engine.wagers import Limit, profile_limits
from controller.errors import ProfileError

MAX_HANDS = 3  # BJ-7: at most two splits, three hands
INSURANCE_PER_BET = Fraction(1, 2)  # BJ-8: insurance up to half the original bet
INSURANCE_MIN_PER_TABLE_MIN = Fraction(1, 2)  # BJ-8: ... and from half the table minimum


def check_decks(decks: int, source: str = "decks") -> int:
    """BJ-1: a shoe of 4 to 6 decks; ProfileError naming the value otherwise."""
    if isinstance(decks, bool) or not isinstance(decks, int) or not DECKS[0] <= decks <= DECKS[1]:
        raise ProfileError(source, "decks", f"BJ-1: a shoe has 4 to 6 decks, got {decks!r}")
    return decks


@dataclass(frozen=True)
class BlackjackRules:
    decks: int
    seats: int
    bet_min: int
    bet_max: int
    trilux_min: int
    trilux_max: int
    double_range: tuple[int, int] | None  # BJ-6; None = any first two cards
    split_same_rank_only: bool  # BJ-7
    enhc_loses: str  # BJ-9: "all" or "original-only"
    dealer_draws: str  # BJ-4: "when-needed" or "always"
    blackjack_pays: Fraction  # BJ-5
    win_pays: Fraction  # BJ-5
    insurance_pays: Fraction  # BJ-8
    trilux: PayTable  # TRX-2
    money: Money
    over_maximum: OverMaximum  # BJ-1: a stake above its maximum capped or refused

    @classmethod
    def from_profile(
        cls,
        profile: Profile,
        decks: int | None = None,
        limits: Mapping[str, Limit] | None = None,
    ) -> BlackjackRules:
        """The rules of ``profile``; ``limits`` (the table's, or a round file's) replace the
        profile's ``bet_*`` and ``trilux_*`` limits wager by wager."""
        if profile.game != "blackjack":
            raise ProfileError(profile.name, "profile.game", f"{profile.game!r} is not blackjack")
        opts = profile.options
        main, insurance = profile.paytables["main"], profile.paytables["insurance"]
        table = {**profile_limits(profile), **(limits or {})}
        return cls(
            decks=check_decks(opts["decks"] if decks is None else decks, profile.name),
            seats=profile.seats,
            bet_min=table["main"].low,
            bet_max=table["main"].high,
            trilux_min=table["trilux"].low,
            trilux_max=table["trilux"].high,
            double_range=parse_double_on(opts["double_on"]),
            split_same_rank_only=opts["split_same_rank_only"],
            enhc_loses=opts["enhc_loses"],
            dealer_draws=opts["dealer_draws"],
            blackjack_pays=_ratio(main, "blackjack"),
            win_pays=_ratio(main, "win"),
            insurance_pays=_ratio(insurance, "dealer-blackjack"),
            trilux=profile.paytables["trilux"],
            money=profile.money,
            over_maximum=profile.over_maximum,
        )

    def winnings(self, stake: int, ratio: Fraction) -> int:
        """Winnings of one payout at ``ratio``, the profile's rounding applied once."""
        return self.money.round_winnings(stake * ratio)

    @property
    def limits(self) -> dict[str, Limit]:
        """The table limits of the main bet (BJ-1) and the Trilux (TRX-1)."""
        return {
            "main": Limit(self.bet_min, self.bet_max, "BJ-1"),
            "trilux": Limit(self.trilux_min, self.trilux_max, "TRX-1"),
        }

    @property
    def insurance_min(self) -> Fraction:
        return self.bet_min * INSURANCE_MIN_PER_TABLE_MIN

    def describe_double_on(self) -> str:
        if self.double_range is None:
            return "any first two cards"
        low, high = self.double_range
        return f"first two cards totalling {low} to {high}, aces counted as 1"


def _ratio(table: PayTable, line: str) -> Fraction:
    pay = table.pays[line]  # the loader requires these lines (paytable.REQUIRED_LINES)
    assert isinstance(pay, Odds)
    return pay.ratio
