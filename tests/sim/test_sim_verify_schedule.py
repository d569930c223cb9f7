"""After a crash the tally verifies the whole ledger only once the journal has doubled since the
last verification (the cost of every crash would grow with the ledger); the end of the run
verifies it all, and a broken journal is still reported."""

from itertools import pairwise

import controller.rig.sim.tally as sim_tally
from controller.books.ledger.verify import Report
from controller.rig.sim.run import simulate
from controller.rig.sim.world import SimSettings

SETTINGS = SimSettings("uth-gr", 3, 0.0, 0.3)  # a crash every few rounds


def test_verifications_follow_the_journal_doubling_not_every_crash(monkeypatch):
    sizes = []
    verify = sim_tally.verify_ledger

    def counted(ledger):
        sizes.append(ledger.journal.head()[0])
        return verify(ledger)

    monkeypatch.setattr(sim_tally, "verify_ledger", counted)
    report = simulate(SETTINGS, 40)
    assert report.violations == []
    assert report.crashes >= 5
    assert len(sizes) < report.crashes + 1  # not after every crash
    # each verification after the first comes when the journal has at least doubled; the last
    # one, at the end, sees the whole journal
    assert all(b >= 2 * a for a, b in pairwise(sizes[:-1]))


def test_a_broken_journal_is_still_reported(monkeypatch):
    def broken(ledger):
        return Report(problems=["journal: entry 7 does not chain"])

    monkeypatch.setattr(sim_tally, "verify_ledger", broken)
    report = simulate(SETTINGS, 40)
    assert [v["invariant"] for v in report.violations] == ["journal"]
