"""What each round event writes: its journal data and its rows, computed purely.

The ledger (``store.py``) reads the rows an event needs, calls these functions and writes
what they return in one transaction; the benchmark's bulk generator (``bench/ledger.py``)
calls the same functions to write a realistic ledger of a million rounds without a commit per
event. Every amount comes from ``controller.engine.pools``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from controller.books.ledger.errors import BadRoundError, RoundConflictError
from controller.books.ledger.journal import Entry, canonical
from controller.books.ledger.records import Stakes, stakes_to_json
from controller.engine.games.results import RoundResult
from controller.engine.pools.awards import LinkSeat, ProgressiveOutcome, outcome_to_json
from controller.engine.pools.config import PoolConfig
from controller.engine.pools.meters import (
    Contribution,
    PoolState,
    Reversal,
    SharesReturned,
    award,
    contribute,
    resolve,
    return_shares,
    reverse,
)

ENVY, SHARE = "envy", "jackpot-share"  # wager names of the engine (controller.engine.games.holdem)


class RoundState(StrEnum):
    """A round row's ``state``: open until one void or one settlement closes it. The values
    are the ``rounds.state`` column's (the schema's CHECK and the SQL of the verifiers and
    reports name them too) and the journal kinds ``round.voided``, ``round.settled``."""

    OPEN = "open"
    VOIDED = "voided"
    SETTLED = "settled"


@dataclass(frozen=True)
class PoolMove:
    """One pool's part of a round event: the pool after it and what moved."""

    config: PoolConfig
    after: PoolState
    move: Contribution | Reversal | ProgressiveOutcome
    seats: dict[int, int]  # the round's qualifying stakes on this pool, by seat
    returned: SharesReturned | None = None  # a void's CH-9 shares given back to the pool

    def to_json(self) -> dict[str, Any]:
        moved = (
            outcome_to_json(self.move)
            if isinstance(self.move, ProgressiveOutcome)
            else self.move.to_json()
        )
        if self.returned is not None:
            moved["shares_returned"] = self.returned.to_json()
        return {**moved, "current": self.after.current}


@dataclass(frozen=True)
class LinkShares:
    """CH-9 across the link (``share_scope = "link"``) for one round on one linked pool: the
    stakes of the other tables' rounds in play (who shares a hit of this round) and the shares
    earlier hits at other tables fixed for this round's seats (what it receives)."""

    others: dict[LinkSeat, int] = field(default_factory=dict)
    received: dict[int, int] = field(default_factory=dict)


def round_key(table: str, rid: str) -> str:
    """How a linked pool's journal names a table's round (``table/round``): unique in the
    pool, and what the replay (``controller.books.ledger.verify.Replay``) keys rounds by."""
    return f"{table}/{rid}"


def seat_keys(values: Mapping[int, Any]) -> dict[str, Any]:
    return {str(seat): v for seat, v in sorted(values.items())}


# -- opening ----------------------------------------------------------------------------------


def contributions(
    stakes: Stakes, pools: Iterable[tuple[PoolConfig, PoolState]]
) -> dict[str, PoolMove]:
    """Each pool's contribution from the round's qualifying stakes (PRG-1)."""
    fed = {}
    for config, state in pools:
        seats = {s: w[config.bet] for s, w in stakes.items() if config.bet in w}
        if seats:
            after, contribution = contribute(state, config, sum(seats.values()))
            fed[config.name] = PoolMove(config, after, contribution, seats)
    return fed


def opened_data(rid: str, stakes: Stakes, fed: dict[str, PoolMove]) -> dict[str, Any]:
    pools = {name: m.to_json() for name, m in fed.items()}
    return {"round": rid, "stakes": stakes_to_json(stakes), "pools": pools}


def opened_rows(
    rid: str, stakes: Stakes, fed: dict[str, PoolMove], data: dict[str, Any], entry: Entry
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The round row (open) and its pool rows."""
    round_row = {
        "round_id": rid,
        "state": RoundState.OPEN.value,
        "stakes": canonical(stakes_to_json(stakes)),
        "staked": sum(sum(w.values()) for w in stakes.values()),
        "opened_mono": entry.mono,
        "opened_wall": entry.wall,
        "open_seq": entry.seq,
        "closed_mono": None,
        "closed_wall": None,
        "close_seq": None,
        "rule": None,
        "cause": None,
        "paid": None,
        "paid_total": None,
    }
    pool_rows = []
    for name, m in fed.items():
        row = {
            "round_id": rid,
            "pool": name,
            "stakes": canonical(seat_keys(m.seats)),
            "contribution": canonical(data["pools"][name]),
            "reversal": None,
            "outcome": None,
        }
        pool_rows.append(row)
    return round_row, pool_rows


# -- closing ----------------------------------------------------------------------------------


def reversals(
    moves: Iterable[tuple[PoolConfig, PoolState, Contribution]],
    shares: Mapping[str, Mapping[int, int]] | None = None,
) -> dict[str, PoolMove]:
    """Each pool's contribution of a voided round, taken back (MD), and the CH-9 shares a hit
    at another table fixed for the round (``shares``: pool -> seat -> share), which it will
    never pay, given back to the pool."""
    result = {}
    for config, state, contribution in moves:
        after, reversal = reverse(state, contribution)
        returned = None
        if (shares or {}).get(config.name):
            after, returned = return_shares(after, config, (shares or {})[config.name])
        result[config.name] = PoolMove(config, after, reversal, {}, returned)
    return result


def awards(
    rid: str,
    lines: dict[str, dict[int, str]],
    pools: Iterable[tuple[PoolConfig, PoolState, dict[int, int]]],
    link: Mapping[str, LinkShares] | None = None,
) -> dict[str, PoolMove]:
    """Each pool's awards for the round (PRG-2..5, CH-8, CH-9), on the pool as it stands;
    ``link`` (pool name ->) what CH-9 across the link needs (linked pools only)."""
    settled = {}
    for config, state, stakes in pools:
        name = config.name
        if name not in lines:
            raise BadRoundError(
                f"round {rid}: no hits given for pool {name} (give {{}} when no seat hit)"
            )
        strangers = sorted(set(lines[name]) - set(stakes))
        if strangers:
            raise BadRoundError(f"round {rid}: seats {strangers} have no stake on pool {name}")
        shares = (link or {}).get(name, LinkShares())
        try:
            outcome = resolve(
                state,
                config,
                {s: lines[name].get(s) for s in stakes},
                stakes,
                shares.others,
                shares.received,
            )
        except KeyError as exc:
            raise BadRoundError(f"round {rid}: {exc.args[0]}") from None
        settled[name] = PoolMove(config, award(state, config, outcome), outcome, stakes)
    unstaked = sorted(name for name in set(lines) - set(settled) if lines[name])
    if unstaked:
        raise BadRoundError(
            f"round {rid}: hits given for pool(s) {', '.join(unstaked)}, "
            "on which the round has no stake"
        )
    return settled


def voided_data(
    rid: str,
    rule: str,
    cause: str,
    returned: Stakes,
    moved: dict[str, PoolMove],
    added: Stakes | None = None,
) -> dict[str, Any]:
    """A void's journal data. ``added``: the stakes placed during the round (as for a
    settlement), when the caller knew every stake of the round; ``None`` (a void at start-up
    recovery, a linked pool's record of its own bet) records ``opening_only``: what the
    opening took is all the void knows of and returns."""
    data: dict[str, Any] = {
        "round": rid,
        "rule": rule,
        "cause": cause,
        "returned": stakes_to_json(returned),
    }
    if added is None:
        data["opening_only"] = True
    else:
        data["added"] = stakes_to_json(added)
    data["pools"] = {name: m.to_json() for name, m in moved.items()}
    return data


def settle_request(
    lines: dict[str, dict[int, str]], hands: dict[int, str], table_paid: Stakes, added: Stakes
) -> dict[str, Any]:
    """What the caller asked a settlement to record (a retry must ask the same)."""
    return {
        "hits": {pool: seat_keys(seats) for pool, seats in sorted(lines.items())},
        "hands": seat_keys(hands),
        "payouts": stakes_to_json(table_paid),
        "added": stakes_to_json(added),
    }


def void_request(rule: str, cause: str, returned: Stakes | None) -> dict[str, Any]:
    """What the caller asked a void to record (a retry must ask the same): the rule, the
    cause, and what is returned when the caller gave every stake of the round. ``None``: a
    caller that knows only what the opening took (start-up recovery, a linked pool's own
    bet) asks nothing of the stakes, so a void recorded with the table's stakes is not
    contradicted by it."""
    request: dict[str, Any] = {"rule": rule, "cause": cause}
    if returned is not None:
        request["returned"] = stakes_to_json(returned)
    return request


def refuse_other_repeat(
    name: str, recorded: Mapping[str, Any], request: Mapping[str, Any], done: str
) -> None:
    """A closed round's event asked again (``request``, from :func:`void_request` or
    :func:`settle_request`) against the data of the entry that closed it (``recorded``):
    RoundConflictError naming each thing asked differently, with both values (only a true
    retry asks the same, and gets the recorded result). ``name`` names the round in the
    message (``round r1``; a linked pool's ``round r1 of table CH-1``), ``done`` what closed
    it (``voided``, ``settled``)."""
    differ = [key for key in request if recorded.get(key) != request[key]]
    if differ:
        said = "; ".join(
            f"{key} {_short(recorded.get(key))} recorded, {_short(request[key])} asked"
            for key in differ
        )
        raise RoundConflictError(
            f"{name} was already {done} with other {', '.join(differ)}: {said}"
        )


def _short(value: Any) -> str:
    """A recorded or asked value as a conflict names it: its JSON, shortened."""
    text = canonical(value)
    return text if len(text) <= 80 else text[:77] + "..."


def settled_data(rid: str, request: dict[str, Any], settled: dict[str, PoolMove]) -> dict[str, Any]:
    return {"round": rid, **request, "pools": {n: m.to_json() for n, m in settled.items()}}


def added_stakes(rid: str, opened: Stakes, final: Stakes, pool_bets: set[str]) -> Stakes:
    """The table stakes placed during the round (UTH Play, CH Call, an insurance) and what a
    table wager was raised by (a blackjack double, BJ-9). ``final`` is every table stake at
    settlement: those of the opening must be in it, never lowered, and no progressive stake
    may be added or changed (PRG-2: placed before the round starts)."""
    for seat, wagers in opened.items():
        for wager, amount in wagers.items():
            now = final.get(seat, {}).get(wager)
            if wager not in pool_bets and (now is None or now < amount):
                raise BadRoundError(
                    f"round {rid}: seat {seat} staked {amount} on {wager} at the opening, "
                    f"{now} at settlement"
                )
    added: Stakes = {}
    for seat, wagers in final.items():
        for wager, amount in wagers.items():
            before = opened.get(seat, {}).get(wager)
            if wager in pool_bets and before != amount:
                raise BadRoundError(
                    f"round {rid}: seat {seat}: a {wager} stake is placed before the round "
                    "starts and never changes (PRG-2)"
                )
            if amount != (before or 0):
                added.setdefault(seat, {})[wager] = amount - (before or 0)
    return added


def merged(opened: Stakes, added: Stakes) -> Stakes:
    """Every stake of a settled round: the opening's plus what was added during it."""
    every = {seat: dict(wagers) for seat, wagers in opened.items()}
    for seat, wagers in added.items():
        for wager, amount in wagers.items():
            every.setdefault(seat, {})[wager] = every.get(seat, {}).get(wager, 0) + amount
    return every


def payouts(rid: str, stakes: Stakes, table_paid: Stakes, settled: dict[str, PoolMove]) -> Stakes:
    """What each seat is paid per wager: the table wagers as given (every one staked must be
    given), the progressive awards, shares and envy as resolved (named as the engine names
    them: the bet, ``jackpot-share``, ``envy``)."""
    pool_bets = {m.config.bet for m in settled.values()}
    expected = {(s, w) for s, ws in stakes.items() for w in ws if w not in pool_bets}
    given = {(s, w) for s, ws in table_paid.items() for w in ws}
    if given != expected:
        missing = sorted(expected - given)
        extra = sorted(given - expected)
        raise BadRoundError(
            f"round {rid}: payouts must name every staked table wager "
            f"(missing {missing or 'none'}, not staked {extra or 'none'})"
        )
    paid: Stakes = {s: dict(ws) for s, ws in table_paid.items()}
    for m in settled.values():
        bet = m.config.bet
        for seat, a in m.move.awards.items():
            seat_paid = paid.setdefault(seat, {})
            seat_paid[bet] = a.amount
            if a.share:
                seat_paid[SHARE] = a.share
            if a.envy:
                seat_paid[ENVY] = a.envy
    return paid


def settle_arguments(result: RoundResult, pools: Mapping[str, str]) -> dict[str, Any]:
    """The keyword arguments of ``Ledger.settle_round`` for a round the engine settled
    (``controller.engine.games.settle``): each progressive seat's line per pool, each seat's hand
    category (never its cards: the journal is readable without the technician credential, and
    card identities are kept only in the surveillance store), every table stake (those placed
    during the round included) and what it paid. ``pools`` maps a pool's bet (``progressive``,
    ``jumbo7``) to the pool's name."""
    hits: dict[str, dict[int, str]] = {name: {} for name in pools.values()}
    hands: dict[int, str] = {}
    stakes: Stakes = {}
    paid: Stakes = {}
    for seat in result.seats:
        if seat.hand:
            hands[seat.seat] = seat.hand
        for name, wager in seat.wagers.items():
            if name in pools:
                if wager.line:
                    hits[pools[name]][seat.seat] = wager.line
            elif name not in (ENVY, SHARE):
                stakes.setdefault(seat.seat, {})[name] = wager.stake
                paid.setdefault(seat.seat, {})[name] = wager.paid
    return {"hits": hits, "hands": hands, "stakes": stakes, "payouts": paid}


def with_stakes(row: dict[str, Any], stakes: Stakes) -> dict[str, Any]:
    """A round row holding every stake of the round (a closed round's: the opening's and
    those placed during the round) and their total."""
    return {
        **row,
        "stakes": canonical(stakes_to_json(stakes)),
        "staked": sum(sum(w.values()) for w in stakes.values()),
    }


def closed_round_row(
    row: dict[str, Any],
    state: RoundState,
    entry: Entry,
    paid: Stakes,
    rule: str | None = None,
    cause: str | None = None,
) -> dict[str, Any]:
    return {
        **row,
        "state": state.value,
        "closed_mono": entry.mono,
        "closed_wall": entry.wall,
        "close_seq": entry.seq,
        "rule": rule,
        "cause": cause,
        "paid": canonical(stakes_to_json(paid)),
        "paid_total": sum(sum(w.values()) for w in paid.values()),
    }


def hit_rows(
    first_id: int, rid: str, move: PoolMove, hands: dict[int, str], entry: Entry
) -> list[dict[str, Any]]:
    """The hit history rows of a settled round on one pool: every seat paid anything by the
    progressive (its own line, a share of the jackpot, an envy bonus)."""
    outcome: ProgressiveOutcome = move.move
    winners = [(s, a) for s, a in sorted(outcome.awards.items()) if a.amount or a.share or a.envy]
    rows = []
    for n, (seat, a) in enumerate(winners):
        row = {
            "hit_id": first_id + n,
            "pool": move.config.name,
            "round_id": rid,
            "seat": seat,
            "line": a.line,
            "hand": hands.get(seat),
            "stake": a.stake,
            "amount": a.amount,
            "from_pool": a.from_pool,
            "share": a.share,
            "envy": a.envy,
            "cycle": move.after.cycle,
            "mono": entry.mono,
            "wall": entry.wall,
            "seq": entry.seq,
        }
        rows.append(row)
    return rows
