"""One :class:`~controller.table.events.LedgerWrite` carried out on the local ledger, in ONE
transaction: what the asyncio shell runs on its ledger thread and what the deterministic
simulator (:mod:`controller.rig.sim`) calls directly. Synchronous, no clock: ``now`` comes in.

A linked pool's part of a money event is not here: the shell asks the linked store first and
passes its journal notes in (``extra``) and the linked bet (``linked_bet``), whose stakes and
payouts are the store's, not the local ledger's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from controller.books.ledger.rounds import settle_arguments
from controller.books.ledger.store import Ledger
from controller.table.events import AppendJournal, LedgerWrite, OpenRound, SettleRound, VoidRound


def local_settlement(
    result: Any, local: Mapping[str, str], linked_bet: str | None = None
) -> dict[str, Any]:
    """The local ledger's settle arguments: a linked pool's wagers are its store's."""
    args = settle_arguments(result, local)
    if linked_bet is not None:
        for per_seat in (args["stakes"], args["payouts"]):
            for wagers in per_seat.values():
                wagers.pop(linked_bet, None)
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
    """Carry out ``request`` (and ``extra`` journal notes) in one transaction; returns each
    pool's amount after it. ``local`` maps a local pool's bet to its name. Raises the
    ledger's :class:`~controller.books.ledger.errors.LedgerError` (nothing is written then)."""
    amounts: dict[str, int] = {}
    with ledger.transaction():
        for e in [*request.items, *extra]:
            if isinstance(e, AppendJournal):
                ledger.journal.append(e.kind, e.data, now)
            elif isinstance(e, OpenRound):
                stakes = {s: {e.pool: v} for s, v in e.stakes.items()}
                done = ledger.open_round(e.round_id, stakes if e.pool in local else {}, now)
                amounts |= done.pools
            elif isinstance(e, VoidRound):
                voided = ledger.void_round(e.round_id, now, rule=e.rule, cause=e.reason)
                amounts |= voided.pools
            elif isinstance(e, SettleRound):
                args = local_settlement(e.result, local, linked_bet)
                settled = ledger.settle_round(e.round_id, now, **args)
                amounts |= settled.pools
    return amounts
