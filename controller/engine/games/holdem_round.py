"""A recorded hold'em round as plain data, validated into typed values (docs/settle.md).

The input is the ``croupier settle`` JSON of a UTH or Casino Hold'em round::

    {"profile": "uth-gr", "dealer": ["Ah","Kd"], "community": ["2c","7d","9h","Js","Qs"],
     "pools": {"progressive": 1000000},
     "seats": [{"seat": 1, "cards": ["As","Ad"],
                "stakes": {"ante": 1000, "blind": 1000, "trips": 500, "progressive": 100},
                "decision": "4x"}]}

Everything a settlement relies on is checked here, with the rule that forbids it: one deck and
no card dealt twice (POK-1), the right number of cards (UTH-3, CH-3), seats of the profile
(UTH-1), known wagers with integer stakes, and legal decisions (UTH-4, CH-3).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from controller.engine.cards import Card, card_name, parse_cards
from controller.engine.profiles import Profile
from controller.errors import CardError, RoundError

# Wagers each game knows, in the order they are settled and printed (UTH-10: Play, Ante,
# Trips, Blind), then the progressive.
WAGERS = {
    "uth": ("play", "ante", "trips", "blind", "progressive"),
    "casino-holdem": ("call", "ante", "bonus", "jumbo7"),
}

# UTH-4: the Play bet a decision places, as a multiple of the Ante, and the street it belongs to.
UTH_PLAYS = {"4x": ("preflop", 4), "3x": ("preflop", 3), "2x": ("flop", 2), "1x": ("river", 1)}
UTH_STREETS = ("preflop", "flop", "river")
UTH_LEGAL = {"preflop": ("4x", "3x", "check"), "flop": ("2x", "check"), "river": ("1x", "fold")}


@dataclass(frozen=True)
class Decision:
    """A seat's final decision: the Play multiple (0 when folded) and whether it folded."""

    multiple: int
    folded: bool


@dataclass(frozen=True)
class SeatInput:
    seat: int
    cards: tuple[Card, ...]
    stakes: dict[str, int]
    decision: Decision | None  # None: only the sensed side bets are settled


@dataclass(frozen=True)
class PoolInput:
    amount: int
    seed: int | None


@dataclass(frozen=True)
class HoldemRound:
    dealer: tuple[Card, ...]
    community: tuple[Card, ...]
    seats: tuple[SeatInput, ...]
    pools: dict[str, PoolInput]


def _uth_decision(seat: int, raw: Any) -> Decision:
    """A UTH decision: the shorthand ``"4x" "3x" "2x" "1x" "fold"``, or the actions street by
    street, e.g. ``["check", "2x"]`` or ``["check", "check", "fold"]`` (UTH-4)."""
    if isinstance(raw, str):
        if raw == "fold":
            return Decision(0, True)
        if raw in UTH_PLAYS:
            return Decision(UTH_PLAYS[raw][1], False)
        raise RoundError(f"seat {seat}: decision {raw!r} is not one of 4x 3x 2x 1x fold", "UTH-4")
    if not isinstance(raw, list) or not raw or not all(isinstance(a, str) for a in raw):
        raise RoundError(f"seat {seat}: decision must be a string or a list of actions", "UTH-4")
    for street, action in zip(UTH_STREETS, raw, strict=False):
        if action not in UTH_LEGAL[street]:
            legal = " or ".join(UTH_LEGAL[street])
            raise RoundError(
                f"seat {seat}: {action!r} is not allowed {street} (only {legal})", "UTH-4"
            )
        if action == "fold":
            final = Decision(0, True)
            break
        if action != "check":
            final = Decision(UTH_PLAYS[action][1], False)
            break
    else:
        raise RoundError(
            f"seat {seat}: {len(raw)} action(s) {raw} end without a Play bet or a fold"
            " (a player who checks to the river must bet 1x or fold)",
            "UTH-4",
        )
    used = raw.index(action) + 1
    if used != len(raw):
        raise RoundError(
            f"seat {seat}: actions after {action!r} ({raw[used:]}); one Play bet at most and"
            " nothing after a fold",
            "UTH-4",
        )
    return final


def _ch_decision(seat: int, raw: Any) -> Decision:
    if raw == "play":
        return Decision(2, False)  # CH-3: Call = 2x Ante
    if raw == "fold":
        return Decision(0, True)
    raise RoundError(f"seat {seat}: decision {raw!r} is not 'play' or 'fold'", "CH-3")


def _stakes(seat: int, raw: Any, known: tuple[str, ...]) -> dict[str, int]:
    if not isinstance(raw, dict):
        raise RoundError(f"seat {seat}: stakes must be an object of wager -> minor units")
    stakes: dict[str, int] = {}
    for name, amount in raw.items():
        if name not in known:
            raise RoundError(f"seat {seat}: unknown wager {name!r} (known: {', '.join(known)})")
        if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
            raise RoundError(
                f"seat {seat}: stake {name} = {amount!r} must be a whole number of minor units"
            )
        if amount:
            stakes[name] = amount
    return stakes


def _cards(raw: Any, count: int, what: str, rule: str) -> tuple[Card, ...]:
    if not isinstance(raw, list | str):
        raise RoundError(f'{what}: expected a list of cards like ["As", "Kd"]', rule)
    try:
        return tuple(parse_cards(raw, count=count, what=what))
    except CardError as exc:
        raise RoundError(str(exc), rule) from None


def parse_round(profile: Profile, data: Any) -> HoldemRound:
    """Validate a recorded round for ``profile``; raise RoundError naming what is wrong."""
    if not isinstance(data, dict):
        raise RoundError("a round is a JSON object")
    game = profile.game
    deal_rule = "UTH-3" if game == "uth" else "CH-3"
    dealer = _cards(data.get("dealer"), 2, "dealer cards", deal_rule)
    community = _cards(data.get("community"), 5, "community cards", deal_rule)
    raw_seats = data.get("seats")
    if not isinstance(raw_seats, list) or not raw_seats:
        raise RoundError("seats: expected a non-empty list of seats")
    known = WAGERS[game]
    seats: list[SeatInput] = []
    for raw in raw_seats:
        if not isinstance(raw, dict) or isinstance(raw.get("seat"), bool):
            raise RoundError("each seat is an object with seat, cards, stakes, decision")
        number = raw.get("seat")
        if not isinstance(number, int) or not 1 <= number <= profile.seats:
            raise RoundError(
                f"seat {number!r}: seats are numbered 1..{profile.seats} in profile {profile.name}",
                "UTH-1" if game == "uth" else "CH-1",
            )
        if any(s.seat == number for s in seats):
            raise RoundError(f"seat {number} is listed twice (one hand per player)", "UTH-1")
        cards = _cards(raw.get("cards"), 2, f"seat {number} cards", deal_rule)
        stakes = _stakes(number, raw.get("stakes", {}), known)
        decision = None
        if "decision" in raw:
            parse = _uth_decision if game == "uth" else _ch_decision
            decision = parse(number, raw["decision"])
        seats.append(SeatInput(number, cards, stakes, decision))
    _check_one_deck(dealer, community, seats)
    pools = _pools(data.get("pools", {}))
    return HoldemRound(dealer, community, tuple(seats), pools)


def _check_one_deck(
    dealer: tuple[Card, ...], community: tuple[Card, ...], seats: list[SeatInput]
) -> None:
    owner: dict[int, str] = {}
    places = [("dealer", dealer), ("community", community)]
    places += [(f"seat {s.seat}", s.cards) for s in seats]
    for place, cards in places:
        for card in cards:
            if card in owner:
                raise RoundError(
                    f"{card_name(card)} dealt twice ({owner[card]} and {place}); one deck",
                    "POK-1",
                )
            owner[card] = place


def _pools(raw: Any) -> dict[str, PoolInput]:
    if not isinstance(raw, dict):
        raise RoundError("pools: expected an object of pool name -> amount")
    pools = {}
    for name, value in raw.items():
        amount, seed = (
            (value, None)
            if not isinstance(value, dict)
            else (value.get("amount"), value.get("seed"))
        )
        for label, v in (("amount", amount), ("seed", seed)):
            if v is None and label == "seed":
                continue
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise RoundError(f"pools.{name}: {label} {v!r} must be minor units (an integer)")
        assert isinstance(amount, int)  # checked just above
        pools[name] = PoolInput(amount, seed)
    return pools
