"""Progressive awards of one round (PRG-2..5, CH-8, CH-9): who gets what, in minor units.

Pure arithmetic over the pay lines the seats hit, the stakes and the pool amount; the game
settlement calls it at showdown and the ledger records its outcome.

Rules applied, with their sources:

- Each progressive seat is paid once, for its best line (PRG-3, CH-8). The stake is never
  returned (PRG-2): an ``X:1`` line pays ``X * stake``; a fixed line pays its amount per unit
  stake (``amount * stake // unit_stake``).
- Only percentage lines draw on the pool. Odds and fixed lines are paid by the house and leave
  the meter untouched (**[interpretation]**: the documents give the pool only the 100% line).
- Jackpot with award policy ``winner`` and several hits in one round (option
  ``multiple_hits``):
  ``split-equally`` (default): the jackpot (percentage x pool) is divided equally among the
  hitting seats; ``seat-order``: seats are paid in ascending seat number, each from the pool as
  it stands after the previous award (a 100% award resets it to the seed first, PRG-5).
- Award policy ``share-round`` (CH-9): when any seat hits the jackpot line, the jackpot is
  shared by every seat with a progressive stake in the round, in proportion to its stake. The
  hitting seat's wager is its share; every other bettor gets its share as a separate wager
  ``jackpot-share`` (stake 0) on top of any fixed line of its own hand. With ``share_scope =
  "link"`` (CH-9 [interpretation], the default) the share runs over every Jumbo 7 stake
  accepted in the round each participating table has in play at the hit (``others``: table,
  round, seat -> stake); the shares of the other tables' seats are fixed at the hit
  (``ProgressiveOutcome.link_shares``) and drawn from the pool with the rest of the jackpot;
  each table pays its own seats' shares at its own settlement: its round's resolution gets them
  as ``received`` (seat -> share), added to the seats' ``share`` and ``from_pool`` (already
  drawn on the pool at the hit, so not again: ``jackpot_paid`` leaves them out). A round voided
  after the hit receives nothing; its share returns to the pool
  (``controller.engine.pools.meters.return_shares``). ``"table"``: the hitting table's round
  only.
- Remainder cents of any split (equal or proportional) are never created or lost: shares are
  rounded down and the leftover cents go one each to the seats with the largest fractional
  parts, ties by ascending seat number (largest-remainder method); across the link, ties go to
  the hitting table's seats first, then to the other tables by table ID, round ID and seat.
  The pool pays the exact jackpot amount.
- A percentage award is ``floor(percent x pool / 100)``; what is left of a partial award stays
  in the pool. After a 100% award the pool resets to its seed (PRG-5).
- Envy (PRG-4): for each seat that wins the pool, every *other* seat with a progressive stake
  at this table receives the envy bonus (once per pool-winning seat), a folded seat included
  (its progressive stays in action, UTH-4). A seat that wins the pool is never paid envy,
  not even for another seat's win in the same round (**[interpretation]** of PRG-4: "the
  winner is not paid envy on top of the pool"; profile key ``progressive.envy_to_winner =
  false``, the default; ``true`` pays every progressive seat of the table, the winner
  included, once per pool win). A community royal (PRG-3) wins no pool and
  pays no envy. Envy is paid by the house, whether the pool is local or linked: only this
  table's seats are ever paid it ("at the same table").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, TypeVar

from controller.engine.paytable import FixedPerUnit, Odds, Pay, PoolPercent

WINNER, SHARE_ROUND = "winner", "share-round"

# A seat of another table of the link in a CH-9 share: (table ID, round ID, seat).
LinkSeat = tuple[str, str, int]
SPLIT_EQUALLY, SEAT_ORDER = "split-equally", "seat-order"


@dataclass(frozen=True)
class SeatAward:
    """What one seat receives from the progressive in a round."""

    seat: int
    stake: int
    line: str | None  # the best line hit, if any
    amount: int  # paid for the seat's own wager (stake never returned, PRG-2)
    from_pool: int  # the part of ``amount`` drawn on the pool
    share: int = 0  # share-round: a jackpot share received without hitting it (CH-9)
    envy: int = 0  # PRG-4


@dataclass(frozen=True)
class ProgressiveOutcome:
    awards: dict[int, SeatAward]  # by seat
    pool_before: int
    pool_after: int  # after the awards (and the reset to seed after a 100% award, PRG-5)
    jackpot_paid: int  # total drawn on the pool
    resets: int  # how many times the pool was reset to its seed
    order: list[int] = field(default_factory=list)  # seats that hit the jackpot, in pay order
    # CH-9 share_scope "link": the shares fixed at the hit for the other tables' seats
    link_shares: dict[LinkSeat, int] = field(default_factory=dict)
    # CH-9 share_scope "link": shares of another table's hit this round's seats receive
    # (drawn on the pool at that hit; included in the seats' ``share`` and ``from_pool``)
    received: dict[int, int] = field(default_factory=dict)

    @property
    def house_paid(self) -> int:
        paid = sum(a.amount + a.share + a.envy for a in self.awards.values())
        drawn = self.jackpot_paid + sum(self.received.values())
        return paid + sum(self.link_shares.values()) - drawn


K = TypeVar("K", int, tuple[int, str, str, int])  # a seat, or a seat of the link (CH-9)


def line_name(hit: tuple[str, Pay] | None) -> str | None:
    """The pay-table line of a seat's hit, or None for a seat that hit nothing."""
    return hit[0] if hit is not None else None


def largest_remainder_split(total: int, weights: Mapping[K, int]) -> dict[K, int]:
    """Split ``total`` minor units among keys in proportion to ``weights`` exactly: floors,
    then the leftover units to the largest fractional parts, ties by ascending key."""
    weight_sum = sum(weights.values())
    if total < 0 or weight_sum <= 0 or any(w < 0 for w in weights.values()):
        raise ValueError("split needs a non-negative total and positive weights")
    exact = {k: Fraction(total * w, weight_sum) for k, w in weights.items()}
    shares = {k: int(v) for k, v in exact.items()}  # floor: all values are >= 0
    leftover = total - sum(shares.values())
    by_remainder = sorted(exact, key=lambda k: (-(exact[k] - shares[k]), k))
    for k in by_remainder[:leftover]:
        shares[k] += 1
    return shares


def line_amount(pay: Pay, stake: int, unit_stake: int) -> int:
    """A non-pool line's award for a stake (PRG-2: the stake itself is not returned)."""
    if isinstance(pay, Odds):
        return stake * pay.to_win // pay.per
    if isinstance(pay, FixedPerUnit):
        return pay.amount * stake // unit_stake
    raise TypeError("pool percentages are resolved by resolve_awards")


def _percent_of(pool: int, pay: PoolPercent) -> int:
    return int(pool * pay.percent / 100)


def resolve_awards(
    *,
    hits: Mapping[int, tuple[str, Pay] | None],
    stakes: Mapping[int, int],
    pool: int,
    seed: int,
    unit_stake: int,
    award: str = WINNER,
    multiple_hits: str = SPLIT_EQUALLY,
    envy_bonus: int = 0,
    envy_to_winner: bool = False,
    others: Mapping[LinkSeat, int] | None = None,
    received: Mapping[int, int] | None = None,
) -> ProgressiveOutcome:
    """Resolve the progressive of one round.

    ``hits`` maps every progressive seat to its best line and pay (None for no line);
    ``stakes`` maps the same seats to their progressive stakes (minor units); ``others``
    (``share-round`` across the link, CH-9) the stakes of the other participating tables'
    rounds in play; ``received`` the shares another table's hit fixed for this round's seats
    (CH-9, already drawn on the pool).
    """
    if set(hits) != set(stakes):
        raise ValueError("hits and stakes must cover the same seats")
    got = {s: v for s, v in (received or {}).items() if v}
    if not set(got) <= set(stakes) or any(v < 0 for v in got.values()):
        raise ValueError("received shares must be positive and go to seats with a stake")
    seats = sorted(stakes)
    amount: dict[int, int] = {}
    from_pool: dict[int, int] = dict.fromkeys(seats, 0)
    share: dict[int, int] = dict.fromkeys(seats, 0)
    pays: dict[int, PoolPercent] = {}
    for s in seats:
        hit = hits[s]
        if hit is not None and isinstance(hit[1], PoolPercent):
            pays[s] = hit[1]
    jackpot_seats = list(pays)
    for s in seats:
        hit = hits[s]
        amount[s] = (
            0 if hit is None or s in jackpot_seats else line_amount(hit[1], stakes[s], unit_stake)
        )

    current, paid, resets = pool, 0, 0
    link_shares: dict[LinkSeat, int] = {}
    if jackpot_seats:
        if award == SHARE_ROUND or multiple_hits == SPLIT_EQUALLY:
            percent = max(p.percent for p in pays.values())
            jackpot = _percent_of(current, PoolPercent(percent))
            if award == SHARE_ROUND:
                # keys order the ties: this table's seats first, then the link's (CH-9)
                weights: dict[tuple[int, str, str, int], int] = {
                    (0, "", "", s): stakes[s] for s in seats if stakes[s] > 0
                }
                weights.update({(1, *k): v for k, v in (others or {}).items() if v > 0})
            else:
                weights = {(0, "", "", s): 1 for s in jackpot_seats}
            split = largest_remainder_split(jackpot, weights)
            link_shares = {k[1:]: v for k, v in split.items() if k[0] == 1}
            for (_, _, _, s), value in ((k, v) for k, v in split.items() if k[0] == 0):
                if s in jackpot_seats:
                    amount[s] = from_pool[s] = value
                else:
                    share[s] = from_pool[s] = value
            paid, current = jackpot, current - jackpot
            if percent == 100:
                current, resets = seed, 1
        else:  # winner, seat-order
            for s in jackpot_seats:
                value = _percent_of(current, pays[s])
                amount[s] = from_pool[s] = value
                paid += value
                current -= value
                if pays[s].percent == 100:
                    current, resets = seed, resets + 1

    for s, value in got.items():
        share[s] += value
        from_pool[s] += value

    # PRG-4: each pool win pays the envy bonus to every *other* progressive seat; a seat that
    # won the pool itself is paid no envy on top of it, even when another seat won too
    # ([interpretation], ``envy_to_winner = false``); with ``envy_to_winner`` every
    # progressive seat of the table is paid it, the winner included
    envy = dict.fromkeys(seats, 0)
    if envy_bonus and award == WINNER:
        for s in seats:
            if s not in jackpot_seats or envy_to_winner:
                envy[s] = envy_bonus * len(jackpot_seats)

    awards = {
        s: SeatAward(
            seat=s,
            stake=stakes[s],
            line=line_name(hits[s]),
            amount=amount[s],
            from_pool=from_pool[s],
            share=share[s],
            envy=envy[s],
        )
        for s in seats
    }
    return ProgressiveOutcome(awards, pool, current, paid, resets, jackpot_seats, link_shares, got)


def outcome_to_json(outcome: ProgressiveOutcome) -> dict[str, Any]:
    """A JSON object :func:`outcome_from_json` reads back to an equal outcome (the ledger
    stores and journals outcomes this way). CH-9's ``link_shares`` (``[table, round, seat,
    share]`` in that order) and ``received`` appear only when there are some."""
    data: dict[str, Any] = {
        "pool_before": outcome.pool_before,
        "pool_after": outcome.pool_after,
        "jackpot_paid": outcome.jackpot_paid,
        "resets": outcome.resets,
        "order": outcome.order,
        "awards": {
            str(a.seat): [a.stake, a.line, a.amount, a.from_pool, a.share, a.envy]
            for a in outcome.awards.values()
        },
    }
    if outcome.link_shares:
        data["link_shares"] = [[*k, v] for k, v in sorted(outcome.link_shares.items())]
    if outcome.received:
        data["received"] = {str(s): v for s, v in sorted(outcome.received.items())}
    return data


def outcome_from_json(data: dict[str, Any]) -> ProgressiveOutcome:
    awards = {}
    for seat_text, (stake, line, amount, from_pool, share, envy) in data["awards"].items():
        seat = int(seat_text)
        awards[seat] = SeatAward(seat, stake, line, amount, from_pool, share, envy)
    return ProgressiveOutcome(
        awards,
        data["pool_before"],
        data["pool_after"],
        data["jackpot_paid"],
        data["resets"],
        list(data["order"]),
        {(t, r, s): v for t, r, s, v in data.get("link_shares", [])},
        {int(s): v for s, v in data.get("received", {}).items()},
    )
