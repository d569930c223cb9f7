"""A recorded hold'em round as plain data, validated into typed values (docs/settle.md).

The input is the ``croupier settle`` JSON of a UTH or Casino Hold'em round::

    {"profile": "uth-gr", "dealer": ["Ah","Kd"], "community": ["2c","7d","9h","Js","Qs"],
     "pools": {"progressive": 1000000},
     "seats": [{"seat": 1, "cards": ["As","Ad"],
                "stakes": {"ante": 1000, "blind": 1000, "trips": 500, "progressive": 100},
                "decision": "4x"}]}

Everything a settlement relies on is checked here, with the rule that forbids it: one deck and
no card dealt twice (POK-1), the right number of cards (UTH-3, CH-3), the burn cards of a
manual deal against the profile's plan (UTH-11), seats of the profile (UTH-1), only wagers the
profile offers (UTH-2, CH-2: no progressive stake without a progressive pool), integer stakes
within the table limits (over the maximum: capped, the excess returned, BJ-1), legal decisions
(UTH-4, CH-3), and no key the format does not know.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from controller.engine.cards import Card, card_name, parse_cards
from controller.engine.profiles import Profile
from controller.engine.wagers import (
    Limit,
    accept,
    check_offered,
    check_whole_chips,
    fixed_stake_limits,
    parse_limits,
)
from controller.errors import CardError, ProcedureNotOffered, RoundError

# Keys of a round file; anything else is refused by name (a typo must not be ignored).
ROUND_KEYS = (
    "profile",
    "game",
    "round",
    "dealer",
    "community",
    "burns",
    "pools",
    "limits",
    "seats",
)
SEAT_KEYS = ("seat", "cards", "stakes", "decision")
POOL_KEYS = ("amount", "seed", "link")
LINK_KEYS = ("table", "round", "stakes")
LINK_SEAT = re.compile(r"[1-9][0-9]{0,2}")  # a seat of a link entry, as written: "1", not "01"
# A round ID the daemon formed, ``{table}-{number:06d}`` (controller.table.machine.round_id)
TABLE_ROUND = re.compile(r"(.+)-[0-9]{6,}")

# UTH-11: where a manual deal burns its cards, by the profile's burn count.
BURN_POINTS = {
    2: ("before the flop", "before the turn and river"),  # Slovak
    3: ("before the flop", "before the turn", "before the river"),  # Italian, by hand
}

# UTH-4: the Play bet a decision places, as a multiple of the Ante, and the street it belongs to.
UTH_PLAYS = {"4x": ("preflop", 4), "3x": ("preflop", 3), "2x": ("flop", 2), "1x": ("river", 1)}
UTH_STREETS = ("preflop", "flop", "river")
UTH_LEGAL = {"preflop": ("4x", "3x", "check"), "flop": ("2x", "check"), "river": ("1x", "fold")}
# MD-X4 (Italian): the board was exposed before the seat acted, so the seat stays in without a
# Play bet; its Ante and Blind are settled as usual. Allowed on any street, as the seat's last
# action, and only where the profile has the procedure (``board_exposure = "no-play"``): the
# Greek rules deal wrongly exposed community cards again (MD-X2) or void the round (MD-S3),
# the Slovak rules are silent (the floor decides).
NO_PLAY = "no-play"


@dataclass(frozen=True)
class Decision:
    """A seat's final decision: the Play multiple (0 when folded) and whether it folded."""

    multiple: int
    folded: bool

    @property
    def is_no_play(self) -> bool:
        """In without a Play bet and not folded: MD-X4's ``no-play``."""
        return self.multiple == 0 and not self.folded


def no_play_refusal(profile: Profile) -> str | None:
    """Why ``profile`` cannot leave a seat in without a Play bet (MD-X4, which the caller
    names), or ``None`` when it can (the Italian rules, ``board_exposure = "no-play"``)."""
    if profile.options.get("board_exposure") == "no-play":
        return None
    return (
        f"profile {profile.name} has no procedure for a board exposed before every player"
        " acted (leaving such a seat in without a Play bet is Italian): call the floor"
    )


@dataclass(frozen=True)
class SeatInput:
    seat: int
    cards: tuple[Card, ...]
    stakes: dict[str, int]  # accepted stakes (within the table limits)
    decision: Decision | None  # None: only the sensed side bets are settled
    returned: dict[str, int] = field(default_factory=dict)  # excess over the maximum (BJ-1)


@dataclass(frozen=True)
class PoolInput:
    amount: int
    seed: int | None
    # CH-9 share_scope "link": the other participating tables' rounds in play at the hit,
    # (table, round, seat) -> accepted Jumbo 7 stake
    link: dict[tuple[str, str, int], int] = field(default_factory=dict)


@dataclass(frozen=True)
class HoldemRound:
    dealer: tuple[Card, ...]
    community: tuple[Card, ...]
    seats: tuple[SeatInput, ...]
    pools: dict[str, PoolInput]
    burns: tuple[Card, ...] = ()  # UTH-11 manual deal, in deal order


def uth_street(raw: Any) -> str | None:
    """The street (``preflop``, ``flop``, ``river``) a UTH decision as entered shows the table
    at: the shorthand's (``"1x"`` and ``"fold"`` are the river's, UTH-4), or the street of the
    last of its actions; ``no-play`` (MD-X4: the board was exposed, all five cards) the
    river's; None for anything malformed."""
    if isinstance(raw, str):
        if raw in ("fold", NO_PLAY):
            return "river"
        return UTH_PLAYS[raw][0] if raw in UTH_PLAYS else None
    if isinstance(raw, list) and 0 < len(raw) <= len(UTH_STREETS):
        return "river" if raw[-1] == NO_PLAY else UTH_STREETS[len(raw) - 1]
    return None


def _uth_decision(seat: int, raw: Any) -> Decision:
    """A UTH decision: the shorthand ``"4x" "3x" "2x" "1x" "fold" "no-play"``, or the actions
    street by street, e.g. ``["check", "2x"]``, ``["check", "check", "fold"]`` (UTH-4) or
    ``["check", "no-play"]`` (MD-X4: the board was exposed before the seat acted)."""
    if isinstance(raw, str):
        if raw == "fold":
            return Decision(0, True)
        if raw == NO_PLAY:
            return Decision(0, False)
        if raw in UTH_PLAYS:
            return Decision(UTH_PLAYS[raw][1], False)
        raise RoundError(
            f"seat {seat}: decision {raw!r} is not one of 4x 3x 2x 1x fold no-play", "UTH-4"
        )
    if not isinstance(raw, list) or not raw or not all(isinstance(a, str) for a in raw):
        raise RoundError(f"seat {seat}: decision must be a string or a list of actions", "UTH-4")
    for street, action in zip(UTH_STREETS, raw, strict=False):
        if action == NO_PLAY:
            final = Decision(0, False)
            break
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
            " (a player who checks to the river must bet 1x or fold; no-play only when the"
            " board was exposed before the seat acted, MD-X4)",
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


def parse_decision(
    profile: Profile, seat: int, raw: Any, *, table_record: bool = False
) -> Decision:
    """A seat's decision under ``profile`` (``uth``: UTH-4, ``casino-holdem``: CH-3);
    RoundError naming the rule otherwise, :class:`ProcedureNotOffered` for ``no-play`` where
    the profile has no MD-X4, unless ``table_record`` (a round the table took so, before it
    refused the procedure there: settled as it was played). The control socket checks the
    dealer's entries with it."""
    if profile.game != "uth":
        return _ch_decision(seat, raw)
    decision = _uth_decision(seat, raw)
    if decision.is_no_play and not table_record and (why := no_play_refusal(profile)) is not None:
        raise ProcedureNotOffered(f"seat {seat}: decision {raw!r} refused: {why}", "MD-X4")
    return decision


def _stakes(profile: Profile, seat: int, raw: Any) -> dict[str, int]:
    if not isinstance(raw, dict):
        raise RoundError(f"seat {seat}: stakes must be an object of wager -> minor units")
    check_offered(profile, seat, raw)
    stakes: dict[str, int] = {}
    for name, amount in raw.items():
        if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
            raise RoundError(
                f"seat {seat}: stake {name} = {amount!r} must be a whole number of minor units"
            )
        if amount:
            stakes[name] = amount
    check_whole_chips(profile, seat, stakes)
    return stakes


def _within_limits(
    profile: Profile, limits: dict[str, Limit], seat: int, stakes: dict[str, int]
) -> tuple[dict[str, int], dict[str, int]]:
    """The stakes the table accepts and the excess it returns (BJ-1 cap, every game), or
    StakeAboveMaximum where ``profile`` refuses a stake over its maximum."""
    accepted, returned = dict(stakes), {}
    for name, amount in stakes.items():
        taken = accept(limits, seat, name, amount, over_maximum=profile.over_maximum)
        accepted[name] = taken.stake
        if taken.returned:
            returned[name] = taken.returned
    return accepted, returned


def stakes_before_showdown(
    profile: Profile,
    limits: Mapping[str, Limit],
    seat: int,
    stakes: Mapping[str, int],
    decision: Any,
) -> dict[str, int]:
    """A hold'em seat's table stakes before its showdown, as its settlement would take them:
    each within the table limits (BJ-1: capped, the excess was returned) and the Play (UTH-4)
    or Call (CH-3) its ``decision`` places on the accepted Ante, whatever Play was entered.
    What a void returns (MD), so it never raises: a stake the settlement would refuse (under
    its minimum, or over its maximum under ``over_maximum = "refuse"``) is returned as
    entered, a decision that does not parse places no bet."""
    taken: dict[str, int] = {}
    over_maximum = profile.over_maximum
    for name, amount in stakes.items():
        if amount > 0:
            try:
                taken[name] = accept(limits, seat, name, amount, over_maximum=over_maximum).stake
            except RoundError:
                taken[name] = amount
    try:
        placed = parse_decision(profile, seat, decision, table_record=True) if decision else None
    except RoundError:
        placed = None
    if placed is not None:
        bet = "play" if profile.game == "uth" else "call"
        taken.pop(bet, None)
        if placed.multiple and taken.get("ante"):
            taken[bet] = taken["ante"] * placed.multiple
    return taken


def _unknown_keys(raw: dict[str, Any], known: tuple[str, ...], where: str) -> None:
    extra = [k for k in raw if k not in known]
    if extra:
        raise RoundError(f"{where}: unknown key {extra[0]!r} (known: {', '.join(known)})")


def _burns(profile: Profile, raw: Any) -> tuple[Card, ...]:
    """UTH-11: the burn cards of a manual deal, checked against the profile's deal plan."""
    points = BURN_POINTS.get(profile.burns, ())
    if not points:
        raise RoundError(
            f"burns: profile {profile.name} burns no cards (its deal plan has none)", "UTH-11"
        )
    if not isinstance(raw, list | str):
        raise RoundError('burns: expected a list of cards like ["2c", "9d"]', "UTH-11")
    try:
        cards = tuple(parse_cards(raw, what="burns"))
    except CardError as exc:
        raise RoundError(str(exc), "UTH-11") from None
    if len(cards) != len(points):
        raise RoundError(
            f"burns: profile {profile.name} burns {len(points)} cards ({', '.join(points)}),"
            f" the round lists {len(cards)}",
            "UTH-11",
        )
    return cards


def _cards(raw: Any, count: int, what: str, rule: str) -> tuple[Card, ...]:
    if not isinstance(raw, list | str):
        raise RoundError(f'{what}: expected a list of cards like ["As", "Kd"]', rule)
    try:
        return tuple(parse_cards(raw, count=count, what=what))
    except CardError as exc:
        raise RoundError(str(exc), rule) from None


def parse_round(profile: Profile, data: Any, *, table_record: bool = False) -> HoldemRound:
    """Validate a recorded round for ``profile``; raise RoundError naming what is wrong.

    A round file's pool never stands below its seed (PRG-5). ``table_record``: the round is
    the table's own record (the daemon's settlement, and its record settled again), whose pool
    is the live pool as the books hold it, which may stand below its seed (a technician's
    correction, a seed raised by configuration, a void after another table's reset of a linked
    pool); it is settled as it stands, as the books settle it."""
    if not isinstance(data, dict):
        raise RoundError("a round is a JSON object")
    _unknown_keys(data, ROUND_KEYS, "round file")
    game = profile.game
    if data.get("game", game) != game:
        raise RoundError(f"game {data['game']!r}: profile {profile.name} plays {game}")
    deal_rule = "UTH-3" if game == "uth" else "CH-3"
    dealer = _cards(data.get("dealer"), 2, "dealer cards", deal_rule)
    community = _cards(data.get("community"), 5, "community cards", deal_rule)
    burns = _burns(profile, data["burns"]) if "burns" in data else ()
    limits, problems = parse_limits(profile, data.get("limits", {}))
    if problems:
        key, reason = problems[0]
        raise RoundError(f"{key}: {reason}")
    limits.update(fixed_stake_limits(profile))
    raw_seats = data.get("seats")
    if not isinstance(raw_seats, list) or not raw_seats:
        raise RoundError("seats: expected a non-empty list of seats")
    seats: list[SeatInput] = []
    for raw in raw_seats:
        if not isinstance(raw, dict):
            raise RoundError("each seat is an object with seat, cards, stakes, decision")
        number = raw.get("seat")
        if isinstance(number, bool) or not isinstance(number, int):  # true, 1.0, "1"
            raise RoundError(
                f"seat {number!r}: a seat is a whole number 1..{profile.seats} in profile"
                f" {profile.name}",
                "UTH-1" if game == "uth" else "CH-1",
            )
        if not 1 <= number <= profile.seats:
            raise RoundError(
                f"seat {number!r}: seats are numbered 1..{profile.seats} in profile {profile.name}",
                "UTH-1" if game == "uth" else "CH-1",
            )
        _unknown_keys(raw, SEAT_KEYS, f"seat {number}")
        if any(s.seat == number for s in seats):
            raise RoundError(f"seat {number} is listed twice (one hand per player)", "UTH-1")
        cards = _cards(raw.get("cards"), 2, f"seat {number} cards", deal_rule)
        stakes, returned = _within_limits(
            profile, limits, number, _stakes(profile, number, raw.get("stakes", {}))
        )
        decision = None
        if "decision" in raw:
            decision = parse_decision(profile, number, raw["decision"], table_record=table_record)
        seats.append(SeatInput(number, cards, stakes, decision, returned))
    _check_one_deck(dealer, community, burns, seats)
    round_id = data.get("round", "")  # the table's own round ID, for the reviewer
    if isinstance(round_id, bool) or not isinstance(round_id, str | int):
        raise RoundError(f"round: the table's round ID is text or a number, not {round_id!r}")
    pools = _pools(profile, data.get("pools", {}), str(round_id), floor=not table_record)
    return HoldemRound(dealer, community, tuple(seats), pools, burns)


def _check_one_deck(
    dealer: tuple[Card, ...],
    community: tuple[Card, ...],
    burns: tuple[Card, ...],
    seats: list[SeatInput],
) -> None:
    owner: dict[int, str] = {}
    places = [("dealer", dealer), ("community", community), ("burns", burns)]
    places += [(f"seat {s.seat}", s.cards) for s in seats]
    for place, cards in places:
        for card in cards:
            if card in owner:
                raise RoundError(
                    f"{card_name(card)} dealt twice ({owner[card]} and {place}); one deck",
                    "POK-1",
                )
            owner[card] = place


def _pools(
    profile: Profile, raw: Any, round_id: str = "", *, floor: bool = True
) -> dict[str, PoolInput]:
    """The pools the round names: only the profile's progressive (its bet's name), each with
    its amount (and seed, and the other tables' stakes of a linked hit; ``round_id`` is the
    file's own ``round``, which the link may not list). With ``floor``, an amount below the
    pool's seed is refused (PRG-5)."""
    if not isinstance(raw, dict):
        raise RoundError("pools: expected an object of pool name -> amount")
    offered = profile.progressive.bet if profile.progressive is not None else None
    pools = {}
    for name, value in raw.items():
        if name != offered:  # a typo or another game's pool must not be ignored
            has = f"one pool, {offered!r}" if offered else "no progressive pool"
            raise RoundError(f"pools.{name}: profile {profile.name} has {has}")
        if isinstance(value, dict):
            _unknown_keys(value, POOL_KEYS, f"pools.{name}")
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
        if floor and seed is not None and amount < seed:
            raise RoundError(
                f"pools.{name}.amount: {amount} is below the seed {seed}; a pool never falls"
                " below its seed: it resets to the seed after a 100% award",
                "PRG-5",
            )
        link = (
            _link(profile, name, value.get("link", []), round_id) if isinstance(value, dict) else {}
        )
        pools[name] = PoolInput(amount, seed, link)
    return pools


def table_of_round(round_id: str) -> str | None:
    """The table a round ID names, when it has the table's own form ``TABLE-NNNNNN`` (the
    daemon numbers its rounds so: ``T-BG-01-000100`` is round 100 of table ``T-BG-01``);
    None for any other form (``R7``, ``100``)."""
    found = TABLE_ROUND.fullmatch(round_id)
    return found.group(1) if found else None


def _link(
    profile: Profile, name: str, raw: Any, round_id: str = ""
) -> dict[tuple[str, str, int], int]:
    """CH-9: ``[{"table": "T2", "round": "T2-000117", "stakes": {"1": 100}}]``, the Jumbo 7
    stakes each other participating table had in play at the hit: one round per table, never
    this round nor this round's table, seats of the profile (participating tables play the
    same profile), positive whole stakes."""
    where = f"pools.{name}.link"
    if not isinstance(raw, list):
        raise RoundError(f"{where}: expected a list of the other tables' rounds in play", "CH-9")
    own_table = table_of_round(round_id)
    link: dict[tuple[str, str, int], int] = {}
    listed: dict[str, int] = {}  # table -> its entry's index
    for index, entry in enumerate(raw):
        at = f"{where}[{index}]"
        if not isinstance(entry, dict):
            raise RoundError(f"{at}: each entry is {{table, round, stakes}}", "CH-9")
        _unknown_keys(entry, LINK_KEYS, at)
        table, rid, stakes = entry.get("table"), entry.get("round"), entry.get("stakes")
        if not (isinstance(table, str) and table and isinstance(rid, str) and rid):
            raise RoundError(f"{at}: each entry names its table and round", "CH-9")
        if round_id and rid == round_id:
            raise RoundError(
                f"{at}.round: {rid} is this round, the one that hit; the link lists the other"
                " participating tables' rounds",
                "CH-9",
            )
        if (named := table_of_round(rid)) is not None and named != table:
            raise RoundError(
                f"{at}.round: {rid} is a round of table {named}, not of {table}", "CH-9"
            )
        if own_table is not None and table == own_table:
            raise RoundError(
                f"{at}.table: {table} is this round's own table (round {round_id}); the link"
                " lists the other participating tables' rounds",
                "CH-9",
            )
        if table in listed:
            raise RoundError(
                f"{at}.table: table {table} is listed twice (entry {listed[table]} too); a table"
                " has one round in play",
                "CH-9",
            )
        listed[table] = index
        if not isinstance(stakes, dict) or not stakes:
            raise RoundError(f"{at}.stakes: stakes are seat -> minor units", "CH-9")
        for seat, stake in stakes.items():
            if not (LINK_SEAT.fullmatch(str(seat)) and 1 <= int(seat) <= profile.seats):
                raise RoundError(
                    f"{at}.stakes: seat {seat!r}: participating tables play profile"
                    f" {profile.name}, whose seats are numbered 1..{profile.seats}",
                    "CH-9",
                )
            if isinstance(stake, bool) or not isinstance(stake, int) or stake <= 0:
                raise RoundError(
                    f"{at}.stakes.{seat}: stake {stake!r} must be a positive whole number of"
                    " minor units",
                    "CH-9",
                )
            link[(table, rid, int(seat))] = stake
    return link
