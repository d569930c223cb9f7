"""A table wager raised during the round (a blackjack double, BJ-9) is recorded at the
settlement with what it was raised by; the replay of the journal (verify_ledger, run by the
fixture) makes the same round row."""


def test_a_double_raises_the_opening_stake(ledger):
    ledger.open_round("r1", {1: {"main": 1000, "trilux": 100}, 2: {"main": 500}}, 1.0)
    final = {1: {"main": 2000, "trilux": 100}, 2: {"main": 500, "insurance": 250}}
    paid = {1: {"main": 4000, "trilux": 0}, 2: {"main": 0, "insurance": 750}}
    ledger.settle_round("r1", 2.0, payouts=paid, stakes=final)
    record = ledger.round("r1")
    assert record.stakes == final and record.staked == 2000 + 100 + 500 + 250
    assert record.paid == paid
    (entry,) = [e for e in ledger.journal.entries(start=1) if e.kind == "round.settled"]
    assert entry.data["added"] == {"1": {"main": 1000}, "2": {"insurance": 250}}
