"""The bounded sweep the simulator's tests share: seeds across profiles until a violation."""

from __future__ import annotations

import controller.books.ledger.store as ledger_store
from controller.rig.sim.run import SimReport, simulate
from controller.rig.sim.world import SimSettings


def first_violation(
    profile: str, seeds: range, rounds: int, *, faults: float = 0.3, crash_rate: float = 0.0
) -> SimReport | None:
    """The first run of ``seeds`` that reports a violation, or ``None``."""
    for seed in seeds:
        report = simulate(SimSettings(profile, seed, faults, crash_rate), rounds)
        if report.violations:
            return report
    return None


def plant_a_void_that_forgets_one_stake(monkeypatch) -> None:
    """A planted bug: a void's row pays back all but the last seat's stakes. (In what the void
    writes: a void that reads the opening's stakes wrong is refused by the ledger itself, as
    the table's stakes at the void must hold them.)"""
    closed_row = ledger_store.rounds.closed_round_row

    def forgetful(row, state, entry, paid, *args):
        if state == ledger_store.rounds.RoundState.VOIDED and paid:
            paid = {seat: wagers for seat, wagers in paid.items() if seat != max(paid)}
        return closed_row(row, state, entry, paid, *args)

    monkeypatch.setattr(ledger_store.rounds, "closed_round_row", forgetful)
