"""A process that drives random money events against a ledger, as the daemon would, until it
is killed. Used by test_crash.py (which SIGKILLs it at random points).

    python crash_driver.py LEDGER SEED

It opens the ledger, voids what the last run left open (MD-S2), then loops: open a round
(random seats, progressive and table stakes), then settle it with random hits (royal flushes
included) and payouts, or void it; now and then a grouped transaction with a journal entry, a
technician's correction, or a parameter change between rounds. After each commit it prints
``C <journal seq> <kind> <round>`` so the test knows what must survive the kill.
"""

from __future__ import annotations

import random
import sys
import time

from controller.books.ledger.store import Ledger
from controller.engine.pools.config import pool_config
from controller.engine.profiles import load_profile

RULES = load_profile("uth-gr").progressive
LINES = ["royal-flush", "community-royal", "straight-flush", "four-of-a-kind", "full-house"]


def say(kind: str, seq: int, round_id: str = "-") -> None:
    print(f"C {seq} {kind} {round_id}", flush=True)


def main(path: str, seed: int) -> None:
    rng = random.Random(seed)
    ledger = Ledger.open(path, now=time.monotonic())
    for voided in ledger.recover(time.monotonic()):
        say("round.voided", voided.seq, voided.round_id)
    ledger.configure_pool(pool_config("uth", RULES, seed=50_000, reserve_rate="1%"), 0.0)
    print("ready", flush=True)
    n = 0
    while True:
        n += 1
        now = time.monotonic()
        rid = f"s{seed}-{n}"
        seats = rng.sample(range(1, 7), rng.randint(1, 6))
        stakes = {
            s: {"progressive": rng.choice([100, 100, 100, 200]), "ante": rng.choice([500, 1000])}
            for s in seats
        }
        if rng.random() < 0.1:  # a state transition journaled with the money, in one commit
            with ledger.transaction():
                ledger.journal.append("table.state", {"to": "LOCKED", "cause": "LOCK"}, now)
                opened = ledger.open_round(rid, stakes, now)
        else:
            opened = ledger.open_round(rid, stakes, now)
        say("round.opened", opened.seq, rid)
        if rng.random() < 0.15:
            rule = rng.choice(["MD-S1", "MD-S2", "MD-S3"])
            voided = ledger.void_round(rid, now, rule=rule, cause="random misdeal")
            say("round.voided", voided.seq, rid)
        else:
            hits = {s: rng.choice(LINES) for s in seats if rng.random() < 0.08}
            payouts = {s: {"ante": rng.choice([0, 1000, 2000])} for s in seats}
            settled = ledger.settle_round(rid, now, hits={"uth": hits}, payouts=payouts)
            say("round.settled", settled.seq, rid)
        if rng.random() < 0.02:
            ledger.correct_meter(
                "uth", "reserve", rng.randint(0, 5000), now, technician="T", reason="audit"
            )
            say("meter.corrected", ledger.journal.head()[0])
        if rng.random() < 0.02:
            _, state = ledger.pool("uth")
            cap = rng.choice([None, state.current + rng.randint(0, 3000)])
            rate = rng.choice(["15%", "17.5%", "20%"])
            config = pool_config("uth", RULES, seed=50_000, contribution_rate=rate, cap=cap)
            before = ledger.journal.head()[0]
            ledger.configure_pool(config, now)
            if ledger.journal.head()[0] != before:  # an unchanged configuration writes nothing
                say("pool.configured", ledger.journal.head()[0])


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
