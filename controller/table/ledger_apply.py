"""One :class:`~controller.table.events.LedgerWrite` carried out on the local ledger, in ONE
transaction: what the asyncio shell runs on its ledger thread and what the deterministic
simulator (:mod:`controller.rig.sim`) calls directly. Synchronous, no clock: ``now`` comes in.

A linked pool's part of a money event is not here: the shell asks the linked store first and
passes its journal notes in (``extra``) and the linked bet (``linked_bet``): the table records
a linked stake and what the store paid on it, the store pools it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from controller.books.ledger.rounds import settle_arguments
from controller.books.ledger.store import Ledger
from controller.table.events import AppendJournal, LedgerWrite, OpenRound, SettleRound, VoidRound


def local_settlement(
    result: Any,
    local: Mapping[str, str],
    linked_bet: str | None = None,
    linked_paid: Mapping[str, Mapping[str, int]] | None = None,
) -> dict[str, Any]:
    """The local ledger's settle arguments. A linked pool's stake is recorded as a table
    wager (taken at the opening) paid what the store paid the seat on it (``linked_paid``,
    seat -> wager -> amount: its own line, a CH-9 share of a jackpot hit here or at another
    table, envy), so the table's books show what it paid its seats."""
    args = settle_arguments(result, local)
    if linked_bet is not None:
        paid = linked_paid or {}
        for seat, wagers in args["stakes"].items():
            if wagers.get(linked_bet):
                args["payouts"][seat][linked_bet] = sum(paid.get(str(seat), {}).values())
            else:  # no linked stake taken (the link was down at LOCK)
                wagers.pop(linked_bet, None)
                args["payouts"].get(seat, {}).pop(linked_bet, None)
    return args


def apply_write(
    ledger: Ledger,
    request: LedgerWrite,
    now: float,
    local: Mapping[str, str],
    *,
    extra: Iterable[AppendJournal] = (),
    linked_bet: str | None = None,
) -> dict[str, int]:
    """Carry out ``request`` (and ``extra`` journal notes, the linked store's answers) in one
    transaction; returns each pool's amount after it. ``local`` maps a local pool's bet to
    its name. Raises the ledger's :class:`~controller.books.ledger.errors.LedgerError`
    (nothing is written then)."""
    notes = list(extra)
    # what the store paid each seat on the linked bet (own line, CH-9 share, envy)
    linked_paid = {n.data["round"]: n.data["paid"] for n in notes if n.kind == "linked.settled"}
    amounts: dict[str, int] = {}
    with ledger.transaction():
        for e in [*request.items, *notes]:
            if isinstance(e, AppendJournal):
                ledger.journal.append(e.kind, e.data, now)
            elif isinstance(e, OpenRound):
                # every stake taken at LOCK (a linked one is the store's to pool, the table's
                # to record; a blackjack main bet as accepted, BJ-1): a void returns each
                done = ledger.open_round(e.round_id, e.every_stake(), now)
                amounts |= done.pools
            elif isinstance(e, VoidRound):
                # every stake the table knows at the void, as a settlement's (MD)
                voided = ledger.void_round(
                    e.round_id, now, rule=e.rule, cause=e.reason, stakes=e.stakes
                )
                amounts |= voided.pools
            elif isinstance(e, SettleRound):
                paid = linked_paid.get(e.round_id, {})
                args = local_settlement(e.result, local, linked_bet, paid)
                settled = ledger.settle_round(e.round_id, now, **args)
                amounts |= settled.pools
    return amounts
