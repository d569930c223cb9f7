"""The wagers a profile offers and the table limits on their stakes (UTH-2, CH-2, BJ-1, TRX-1).

Every stake passes two checks before a round takes it, here in the engine so that round files
(``croupier settle``), the control socket (``round.stake``) and the table configuration
(``croupier config check``) refuse the same things with the same words:

1. **Offered.** A wager is taken only if the profile offers it: the game's table wagers, plus
   the progressive bet only where the profile has a progressive pool (UTH-2 "Ultimate
   Progressive (Greek profile)", CH-2 Jumbo 7). A stake on anything else is refused with
   :class:`~controller.errors.WagerNotOffered`, never dropped. A stake is also a whole number
   of the profile's chips (``[money] chip_unit``; :class:`~controller.errors.StakeNotWholeChips`
   otherwise): chips are what a player stakes, and the payout rounding to the chip would pay
   an even-money win on a fraction of a chip below 1:1. Limits are whole chips too, so that a
   capped stake is.
2. **Within the table limits** (BJ-1 [interpretation], applied to every wager of every game):
   a stake below the minimum is refused (:class:`~controller.errors.StakeBelowMinimum`); a
   stake above the maximum is what the profile's ``[rules] over_maximum`` says
   (:class:`~controller.engine.profiles.OverMaximum`): ``"cap"`` (the default) **caps it at
   the maximum and returns the excess** to the player ("the excess is not accepted and is
   returned to the player", seed 001 poster); ``"refuse"`` refuses it as a whole, as a stake
   below the minimum is (:class:`~controller.errors.StakeAboveMaximum`, naming BJ-1). Doubles
   and splits then match the accepted bet.

Which wagers have limits (:data:`LIMITED_WAGERS`): UTH ``ante`` (the Blind equals it, UTH-2;
the Play is a multiple of it, UTH-4) and ``trips``; Casino Hold'em ``ante`` (the Call is 2x
it, CH-3) and ``bonus``; blackjack ``main`` (BJ-1) and ``trilux`` (TRX-1: the maximum at most
50x the minimum). Progressive stakes are a fixed amount (UTH-2, CH-2): the UTH progressive
is exactly its fixed stake (more is capped at it and the excess returned, or refused under
``over_maximum = "refuse"``; less is refused; no
table limits), a Jumbo 7 stake is a whole number of fixed units (CH-9 shares the jackpot by
stake), within the table's ``jumbo7`` limits when it has them (BJ-1's cap reaches every wager:
without them a round file's stake of 100,000 units was paid 5000 per unit);
:func:`limited_wagers`. Blackjack insurance has BJ-8's own bounds (half the table minimum to half
the accepted bet).

Limits are written ``{"ante": {"min": 500, "max": 50000}}`` in a round file (JSON) and
``[limits] ante = { min = 500, max = 50000 }`` in a table configuration (TOML);
:func:`parse_limits` reads both.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from controller.engine.profiles import (
    GAME_PROGRESSIVE_BET,
    TRILUX_MAX_OVER_MIN,
    OverMaximum,
    Profile,
)
from controller.errors import (
    RoundError,
    StakeAboveMaximum,
    StakeBelowMinimum,
    StakeNotWholeChips,
    WagerNotOffered,
)

# The rule that lists each game's wagers.
GAME_WAGER_RULE = {"uth": "UTH-2", "casino-holdem": "CH-2", "blackjack": "BJ-1"}

# Table wagers of each game, in settlement order (UTH-10: Play, Ante, Trips, Blind); the
# progressive bet is added where the profile has one.
TABLE_WAGERS: dict[str, tuple[str, ...]] = {
    "uth": ("play", "ante", "trips", "blind"),
    "casino-holdem": ("call", "ante", "bonus"),
    "blackjack": ("main", "trilux", "insurance"),
}

# Wagers a table may limit, each with the rule its minimum comes from.
LIMITED_WAGERS: dict[str, dict[str, str]] = {
    "uth": {"ante": "UTH-2", "trips": "UTH-2"},
    "casino-holdem": {"ante": "CH-2", "bonus": "CH-2"},
    "blackjack": {"main": "BJ-1", "trilux": "TRX-1"},
}

# Wagers whose limits are another's: the Blind equals the Ante (UTH-2).
LIMIT_OF = {"blind": "ante"}

CAP_RULE = "BJ-1"  # the over-maximum rule of seed 001, applied to every wager (RULES.md BJ-1)

# The rule that places each wager without table limits of its own (the others: LIMITED_WAGERS).
WAGER_RULE = {
    "blind": "UTH-2",
    "play": "UTH-4",
    "progressive": "UTH-2",
    "call": "CH-3",
    "jumbo7": "CH-2",
    "insurance": "BJ-8",
}


def offered_wagers(profile: Profile) -> tuple[str, ...]:
    """The wagers ``profile`` takes: its game's table wagers, then its progressive bet."""
    names = TABLE_WAGERS[profile.game]
    if profile.progressive is not None:
        names = (*names, profile.progressive.bet)
    return names


def refusal(profile: Profile, name: str) -> tuple[str, str] | None:
    """Why ``profile`` does not take a stake on wager ``name`` (reason, rule), or None."""
    offered = offered_wagers(profile)
    if name in offered:
        return None
    rule = GAME_WAGER_RULE[profile.game]
    progressive = GAME_PROGRESSIVE_BET.get(profile.game)
    if name == progressive:
        return (
            f"profile {profile.name} has no {name} pool: {rule} allows the {name} bet only "
            f"where the profile has one (offered: {', '.join(offered)})",
            rule,
        )
    return f"unknown wager {name!r} (offered: {', '.join(offered)})", rule


def check_offered(profile: Profile, seat: int | str, names: Iterable[str]) -> None:
    """Raise :class:`WagerNotOffered` for the first wager ``profile`` does not offer."""
    for name in names:
        found = refusal(profile, name)
        if found is not None:
            reason, rule = found
            raise WagerNotOffered(f"seat {seat}: stake on {name!r} refused: {reason}", rule)


def wager_rule(profile: Profile, wager: str) -> str:
    """The rule that places ``wager`` in ``profile``'s game."""
    limited = LIMITED_WAGERS[profile.game].get(wager)
    return limited or WAGER_RULE.get(wager, GAME_WAGER_RULE[profile.game])


def chips_refusal(profile: Profile, wager: str, amount: Any) -> str | None:
    """Why ``amount`` is no stake of whole chips of ``profile`` (``[money] chip_unit``), or
    None. A player stakes chips: a stake between two chips would have an even-money win
    rounded below 1:1 by the payout rounding (the one rounding, applied to winnings)."""
    why = _chips_template(profile, wager, amount)
    unit = str(profile.money.chip_unit)
    return None if why is None else why.replace("{amount}", str(amount)).replace("{unit}", unit)


def _chips_template(profile: Profile, wager: str, amount: Any) -> str | None:
    """:func:`chips_refusal` with the stake and the chip as the fields ``{amount}`` and
    ``{unit}`` (:meth:`~controller.errors.RoundError.shown` writes them as money)."""
    unit = profile.money.chip_unit
    if isinstance(amount, bool) or not isinstance(amount, int) or amount % unit == 0:
        return None
    return (
        f"{wager} {{amount}} is not a whole number of chips: profile {profile.name} takes"
        " stakes in chips of {unit} ([money] chip_unit)"
    )


def check_whole_chips(profile: Profile, seat: int | str, stakes: Mapping[str, Any]) -> None:
    """Raise :class:`StakeNotWholeChips` for the first stake that is not a whole number of
    the profile's chips (amounts of another type are the caller's to refuse)."""
    for name, amount in stakes.items():
        why = _chips_template(profile, name, amount)
        if why is not None:
            raise StakeNotWholeChips(
                f"seat {seat}: {why}",
                wager_rule(profile, name),
                amounts={"amount": amount, "unit": profile.money.chip_unit},
            )


@dataclass(frozen=True)
class Limit:
    """A wager's table limits, inclusive, in minor units; ``rule`` is where the minimum is
    written (the cap is always BJ-1's)."""

    low: int
    high: int
    rule: str


@dataclass(frozen=True)
class Accepted:
    """A stake after the limits: ``stake`` taken, ``returned`` (the excess over the maximum)
    handed back to the player before the deal."""

    stake: int
    returned: int = 0


def above_maximum(
    seat: int | str, wager: str, amount: int, high: int, *, where: str = ""
) -> StakeAboveMaximum:
    """The refusal of a stake above its maximum under ``over_maximum = "refuse"`` (BJ-1):
    one line naming the seat, the wager, the stake and the maximum (``where`` it comes from,
    if not the table limits: ``"half the bet, BJ-8"``), its amounts as fields that
    :meth:`~controller.errors.RoundError.shown` writes as money, as the refusal below the
    minimum does."""
    what = f"the maximum {{high}} ({where})" if where else "the table maximum {high}"
    return StakeAboveMaximum(
        f"seat {seat}: {wager} {{amount}} is above {what}: refused, not capped"
        f" (over_maximum = {OverMaximum.REFUSE.value})",
        CAP_RULE,
        amounts={"amount": amount, "high": high},
    )


def accept(
    limits: Mapping[str, Limit],
    seat: int,
    wager: str,
    amount: int,
    *,
    over_maximum: OverMaximum,
) -> Accepted:
    """Apply ``wager``'s limits to ``amount`` (0 = no stake, always accepted). Raises
    :class:`StakeBelowMinimum` under the minimum; above the maximum caps the stake and
    returns the excess (``over_maximum`` ``cap``, the profile's default) or raises
    :class:`StakeAboveMaximum` (``refuse``). A wager without limits takes any amount."""
    limit = limits.get(LIMIT_OF.get(wager, wager))
    if limit is None or amount == 0:
        return Accepted(amount)
    if amount < limit.low:
        raise StakeBelowMinimum(
            f"seat {seat}: {wager} {{amount}} is below the table minimum {{low}}",
            limit.rule,
            amounts={"amount": amount, "low": limit.low},
        )
    if amount > limit.high:
        if over_maximum is OverMaximum.REFUSE:
            raise above_maximum(seat, wager, amount, limit.high)
        return Accepted(limit.high, amount - limit.high)
    return Accepted(amount)


def check_entry(
    profile: Profile, limits: Mapping[str, Limit], seat: int, stakes: Mapping[str, int]
) -> None:
    """What the table checks when stakes are entered (the dealer's tablet, the control
    socket): every wager offered, every stake whole chips, none under its minimum and, where
    the profile refuses it (``over_maximum = "refuse"``), none over its maximum, and the bets
    that go together together (:func:`check_pairs`: UTH-2, CH-2). The cap
    (``"cap"``) is applied when the round takes the stakes, so the excess is recorded with
    the round."""
    check_offered(profile, seat, stakes)
    check_whole_chips(profile, seat, stakes)
    for name, amount in stakes.items():
        accept(limits, seat, name, amount, over_maximum=profile.over_maximum)
    check_pairs(profile, seat, stakes)


def check_pairs(profile: Profile, seat: int | str, stakes: Mapping[str, int]) -> None:
    """The bets that go together, checked when a seat's stakes are entered (an entry is the
    seat's whole stakes: it replaces what was entered before): UTH-2 a Blind equal to the
    Ante (as the player puts them down, before any cap), CH-2 a Bonus only with an Ante. The
    settlement checks them again (controller.engine.games.holdem), with the decision."""
    if profile.game == "uth" and ("ante" in stakes or "blind" in stakes):
        ante, blind = stakes.get("ante", 0), stakes.get("blind", 0)
        if ante != blind:
            raise RoundError(
                f"seat {seat}: Blind {{blind}} must equal Ante {{ante}}: enter both in one"
                " entry, which replaces the seat's stakes",
                "UTH-2",
                amounts={"blind": blind, "ante": ante},
            )
    if profile.game == "casino-holdem" and "bonus" in stakes and "ante" not in stakes:
        raise RoundError(f"seat {seat}: a Bonus bet needs an Ante", "CH-2")


def fixed_stake_limits(profile: Profile) -> dict[str, Limit]:
    """UTH-2: the Ultimate Progressive is "a fixed stake set by the casino" (its 100% line pays
    the same pool whatever the stake), so the fixed stake is both its minimum and its maximum:
    more is capped and the excess returned (BJ-1; refused under ``over_maximum = "refuse"``),
    less is refused. A Jumbo 7 stake may be
    several fixed units (CH-9 shares the jackpot in proportion to stake): no limit here. Not
    a table limit: a table's ``[limits]`` cannot change it."""
    prog = profile.progressive
    if prog is None or prog.award != "winner":
        return {}
    return {prog.bet: Limit(prog.stake, prog.stake, "UTH-2")}


def profile_limits(profile: Profile) -> dict[str, Limit]:
    """The limits a profile itself sets (blackjack ``bet_min``.. and ``trilux_min``..); a
    table configuration's ``[limits]`` replaces them wager by wager."""
    opts = profile.options
    found: dict[str, Limit] = {}
    if profile.game == "blackjack":
        if opts.get("bet_min") and opts.get("bet_max"):
            found["main"] = Limit(opts["bet_min"], opts["bet_max"], "BJ-1")
        if opts.get("trilux_min") and opts.get("trilux_max"):
            found["trilux"] = Limit(opts["trilux_min"], opts["trilux_max"], "TRX-1")
    return found


def limited_wagers(profile: Profile) -> dict[str, str]:
    """The wagers a table of ``profile`` may limit, each with the rule of its minimum: the
    game's, and a progressive bet of several units (CH-9's Jumbo 7: shares by stake), which
    BJ-1's cap reaches too; a fixed-stake progressive (UTH-2) keeps its fixed stake."""
    known = dict(LIMITED_WAGERS[profile.game])
    prog = profile.progressive
    if prog is not None and prog.award != "winner":
        known[prog.bet] = GAME_WAGER_RULE[profile.game]
    return known


def parse_limits(profile: Profile, raw: Any) -> tuple[dict[str, Limit], list[tuple[str, str]]]:
    """Read ``{wager: {min, max}}`` for ``profile``: the limits, over the profile's own, and
    the problems as ``(key, reason)`` pairs (every one, each naming its rule)."""
    limits = profile_limits(profile)
    problems: list[tuple[str, str]] = []
    if not isinstance(raw, Mapping):
        return limits, [("limits", "expected a table of wager -> {min, max}")]
    known = limited_wagers(profile)
    for wager, entry in raw.items():
        key = f"limits.{wager}"
        if wager not in known:
            found = refusal(profile, wager)
            why = (
                f"{found[0]} ({found[1]})"
                if found
                else f"{wager} has no table limits of its own (limited: {', '.join(known)})"
                f" ({GAME_WAGER_RULE[profile.game]})"
            )
            problems.append((key, why))
            continue
        rule = known[wager]
        if not isinstance(entry, Mapping) or set(entry) != {"min", "max"}:
            problems.append((key, f"expected {{min = N, max = N}} in minor units ({rule})"))
            continue
        low, high = entry["min"], entry["max"]
        if any(isinstance(v, bool) or not isinstance(v, int) or v <= 0 for v in (low, high)):
            problems.append((key, f"min and max are positive minor units ({rule})"))
            continue
        if high < low:
            problems.append((key, f"max {high} is below min {low} ({rule})"))
            continue
        prog = profile.progressive
        if (
            prog is not None
            and wager == prog.bet
            and (low > prog.stake or high < prog.stake or high % prog.stake)
        ):
            # the sensor takes the fixed stake at LOCK and the ledger opens with it: a limit
            # that refused or capped it would leave the table unable to settle its own round
            problems.append(
                (
                    key,
                    f"min {low} and max {high} must take the fixed {wager} stake {prog.stake}"
                    f" (min at most it, max a whole number of it) ({rule})",
                )
            )
            continue
        if odd := [v for v in (low, high) if v % profile.money.chip_unit]:
            problems.append(
                (
                    key,
                    f"{odd[0]} is not a whole number of chips of {profile.money.chip_unit}"
                    f" ([money] chip_unit): a stake capped at it would not be ({rule})",
                )
            )
            continue
        if wager == "trilux" and high > TRILUX_MAX_OVER_MIN * low:
            problems.append(
                (
                    key,
                    f"the Trilux maximum may be at most {TRILUX_MAX_OVER_MIN}x the minimum "
                    f"({TRILUX_MAX_OVER_MIN * low}), got {high} (TRX-1)",
                )
            )
            continue
        limits[wager] = Limit(low, high, rule)
    return limits, problems


def limits_to_json(limits: Mapping[str, Limit]) -> dict[str, dict[str, int]]:
    """Limits as a round file carries them."""
    return {w: {"min": lim.low, "max": lim.high} for w, lim in limits.items()}
