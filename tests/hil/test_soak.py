"""The soak as CI runs it: at least 2,000 rounds through real daemons with random shuffler
faults and random kill -9, after which the ledger, its journal and the rig's own tally agree
to the cent. ``CROUPIER_SOAK_ROUNDS`` / ``CROUPIER_SOAK_SEED`` change it; longer soaks are
``croupier rig soak`` (README)."""

from __future__ import annotations

import os

from controller.rig.soak import SOAK_OVERRIDES, Soak, run_soak
from controller.rig.table import SimTable

ROUNDS = int(os.environ.get("CROUPIER_SOAK_ROUNDS", "2000"))
SEED = os.environ.get("CROUPIER_SOAK_SEED")


def test_soak_with_faults_and_kills_keeps_the_books_to_the_cent():
    report = run_soak(ROUNDS, faults=0.2, kill_rate=0.005, tables=3,
                      seed=int(SEED) if SEED else None)  # fmt: skip
    detail = f"seed {report.seed}: {report.problems[:10]}"
    assert report.ok, detail
    assert report.rounds == ROUNDS
    assert report.kills >= 1 and sum(report.faults.values()) >= ROUNDS // 10, report.to_json()
    voided = sum(n for outcome, n in report.outcomes.items() if outcome.startswith("voided"))
    assert voided >= 1 and report.outcomes["settled"] >= ROUNDS // 2
    print(f"\nsoak: {report.rounds} rounds, {report.rate:.1f} rounds/s, {report.kills} kills,"
          f" seed {report.seed}")  # fmt: skip


def test_the_reconciliation_catches_a_cent():
    """A tally one cent off is reported against both the ledger and the journal."""
    with SimTable(overrides=SOAK_OVERRIDES) as table:
        table.wait_for_state("open", timeout=30)
        soak = Soak(table, faults=0.3, kill_rate=0.0, seed=5)
        report = soak.run(15)
        assert report.ok, report.problems
        soak.tally.meters["won_fixed"] += 1
        soak.report.problems.clear()
        soak.reconcile()
    problems = soak.report.problems
    assert any(p.startswith("ledger: won_fixed: rig") for p in problems), problems
    assert any(p.startswith("journal: won_fixed: rig") for p in problems), problems
