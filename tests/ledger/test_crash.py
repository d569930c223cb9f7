"""Crash safety: a driver process is SIGKILLed at random points, many times, on one ledger.

After every kill, before the next run recovers anything:

- ``meters verify`` and ``events verify`` pass (every invariant, the hash chain, the replay);
- every event the driver reported committed is in the journal (nothing durable was lost);
- every round is fully applied or absent; rounds left open are voided with MD-S2 by the next
  start;
- the pool equals the amount recomputed from the journal, here by a second, independent sum
  of the amounts each entry recorded.

``make test`` runs a bounded version; the long one is
``CROUPIER_CRASH_KILLS=1000 .venv/bin/pytest tests/ledger/test_crash.py`` (see docs/ledger.md).
"""

import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from controller.books.ledger.journal import verify_chain
from controller.books.ledger.reader import LedgerReader
from controller.books.ledger.verify import verify_ledger

DRIVER = Path(__file__).with_name("crash_driver.py")
KILLS = int(os.environ.get("CROUPIER_CRASH_KILLS", "30"))


def independent_amounts(reader):
    """Each pool's displayed amount summed from the amounts the journal recorded."""
    amounts, seeds = {}, {}
    for e in reader.journal.entries():
        d = e.data
        if e.kind in ("pool.created", "pool.configured"):
            seeds[d["config"]["name"]] = d["config"]["seed"]
            if e.kind == "pool.created":
                amounts[d["pool"]] = d["config"]["seed"]
        elif e.kind == "round.opened":
            for name, c in d["pools"].items():
                amounts[name] += c["to_current"]
        elif e.kind == "round.voided":
            for name, r in d["pools"].items():
                amounts[name] -= r["from_current"]
        elif e.kind == "round.settled":
            for name, o in d["pools"].items():
                amounts[name] += o["resets"] * seeds[name] - o["jackpot_paid"]
        elif e.kind == "meter.corrected" and d["meter"] == "current":
            amounts[d["pool"]] = d["new"]
    return amounts


def run_until_killed(db, seed, rng):
    """Start the driver and SIGKILL it after a random number of reported commits (sometimes
    before it is even ready); return the commits it reported."""
    proc = subprocess.Popen(
        [sys.executable, str(DRIVER), str(db), str(seed)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    committed = []
    budget = -1 if rng.random() < 0.1 else rng.randint(0, 400)
    try:
        while budget >= 0:
            line = proc.stdout.readline()
            if not line:
                break
            if line.startswith("C "):
                _, seq, kind, rid = line.split()
                committed.append((int(seq), kind, rid))
                budget -= 1
    finally:
        proc.send_signal(signal.SIGKILL)
        _, err = proc.communicate()
    assert proc.returncode == -signal.SIGKILL, err  # the driver never failed by itself
    return committed


@pytest.mark.slow
def test_kill_at_random_points_never_loses_or_double_counts(tmp_path):
    db = tmp_path / "ledger.sqlite3"
    rng = random.Random(int(os.environ.get("CROUPIER_CRASH_SEED", "20261122")))
    left_open: set[str] = set()
    total = 0
    for kill in range(KILLS):
        committed = run_until_killed(db, 1000 + kill, rng)
        total += len(committed)
        if not db.exists():
            continue
        with LedgerReader.open(db) as reader:
            report = verify_ledger(reader)
            assert report.problems == [], f"after kill {kill}"
            assert verify_chain(reader.journal).ok
            for seq, kind, rid in committed:
                entry = next(reader.journal.entries(start=seq))
                assert entry.seq == seq and entry.kind == kind
                assert rid == "-" or entry.data["round"] == rid
            for rid in left_open:  # voided by a later start, or still waiting for one
                record = reader.round(rid)
                assert record.state == "open" or (record.state, record.rule) == ("voided", "MD-S2")
            left_open = set(reader.open_round_ids())
            assert len(left_open) <= 1
            pools = {name: state.current for name, (_, state) in reader.pools().items()}
            assert independent_amounts(reader) == pools
    assert total > KILLS * 50  # thousands of money events over the run
