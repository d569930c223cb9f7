"""A void's record holds every stake of the round (MD: "every wager of the round is returned"):
the table wagers placed during the round (a Hold'em Ante, Blind, Play; a blackjack double or
insurance) come with the void as with a settlement, and none of them touches a pool. A void
at start-up recovery knows only the opening's stakes and says so (``opening_only``). The
replay of the journal (verify_ledger, run by the fixture) accepts journals written before
(no ``added``) and after."""

import pytest

from controller.books.ledger import rounds, store
from controller.books.ledger.errors import BadRoundError, RoundConflictError
from controller.books.ledger.verify import replay_journal, verify_ledger

VOIDED_DATA = rounds.voided_data  # as this version writes it
OPENED = {1: {"progressive": 100}, 2: {"progressive": 100}}
AT_THE_VOID = {
    1: {"progressive": 100, "ante": 500, "blind": 500, "play": 2000},
    2: {"progressive": 100, "ante": 1000, "blind": 1000},
}


def voided_entry(ledger):
    (entry,) = [e for e in ledger.journal.entries(start=1) if e.kind == "round.voided"]
    return entry


def test_a_void_returns_the_stakes_placed_during_the_round(ledger):
    _, before = ledger.pool("uth")
    ledger.open_round("r1", OPENED, 1.0)
    voided = ledger.void_round("r1", 2.0, rule="MD-S3", cause="two cards up", stakes=AT_THE_VOID)
    assert voided.returned == AT_THE_VOID
    record = ledger.round("r1")
    assert record.stakes == AT_THE_VOID and record.paid == AT_THE_VOID
    assert record.staked == record.paid_total == 200 + 2000 + 3000
    data = voided_entry(ledger).data
    assert data["added"] == {
        "1": {"ante": 500, "blind": 500, "play": 2000},
        "2": {"ante": 1000, "blind": 1000},
    }
    assert "opening_only" not in data
    # the table wagers feed no pool: only the opening's contribution was taken back
    _, after = ledger.pool("uth")
    assert (after.current, after.reserve) == (before.current, before.reserve)
    assert (after.stakes_in, after.stakes_returned, after.voids) == (0, 200, 1)


def test_a_blackjack_double_and_insurance_are_returned_with_the_opening_bet(ledger):
    ledger.open_round("r1", {1: {"main": 1000, "trilux": 100}}, 1.0)
    final = {1: {"main": 2000, "main.2": 1000, "trilux": 100, "insurance": 500}}
    voided = ledger.void_round("r1", 2.0, rule="MD-S2", cause="shoe jam", stakes=final)
    assert voided.returned == final
    assert voided_entry(ledger).data["added"] == {
        "1": {"insurance": 500, "main": 1000, "main.2": 1000}
    }


def test_a_void_without_the_tables_stakes_returns_the_opening_and_says_so(ledger):
    ledger.open_round("r1", OPENED, 1.0)
    voided = ledger.void_round("r1", 2.0, rule="MD-S2", cause="restart")
    assert voided.returned == OPENED
    data = voided_entry(ledger).data
    assert data["opening_only"] is True and "added" not in data


def test_recovery_after_a_crash_knows_only_the_opening(db_path):
    from ledger_fixtures import FakeWall, uth_pool

    with store.Ledger.open(db_path, now=0.0, wall_clock=FakeWall()) as ledger:
        ledger.configure_pool(uth_pool(), 0.0)
        ledger.open_round("r1", OPENED, 1.0)
    with store.Ledger.open(db_path, now=5.0, wall_clock=FakeWall()) as ledger:
        (voided,) = ledger.recover(6.0)
        assert (voided.rule, voided.returned) == ("MD-S2", OPENED)
        assert voided_entry(ledger).data["opening_only"] is True
        assert verify_ledger(ledger).problems == []


def test_a_void_repeated_as_it_was_returns_the_recorded_result(ledger):
    """A retried write, or the linked client's repeat: the same rule, cause and stakes (a
    repeat without stakes knows only the opening's, and contradicts nothing)."""
    ledger.open_round("r1", OPENED, 1.0)
    first = ledger.void_round("r1", 2.0, rule="MD-S3", cause="two cards up", stakes=AT_THE_VOID)
    for stakes in (AT_THE_VOID, None):
        again = ledger.void_round("r1", 3.0, rule="MD-S3", cause="two cards up", stakes=stakes)
        assert again.retried and again.returned == first.returned == AT_THE_VOID
        assert again.reversals == first.reversals and again.seq == first.seq
    assert len([e for e in ledger.journal.entries(start=1) if e.kind == "round.voided"]) == 1


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"rule": "MD-S1"}, 'other rule: rule "MD-S3" recorded, "MD-S1" asked'),
        ({"cause": "a count"}, 'other cause: cause "two cards up" recorded, "a count" asked'),
        ({"stakes": OPENED}, "other returned: returned "),  # without the table's wagers
        ({"stakes": {**AT_THE_VOID, 2: {"progressive": 100, "ante": 1000}}}, "other returned"),
        ({"rule": "MD-S1", "cause": "a count"}, "other rule, cause: "),
    ],
)
def test_a_void_repeated_otherwise_is_refused_naming_what_differs(ledger, change, said):
    ledger.open_round("r1", OPENED, 1.0)
    asked = {"rule": "MD-S3", "cause": "two cards up", "stakes": AT_THE_VOID}
    ledger.void_round("r1", 2.0, **asked)
    with pytest.raises(RoundConflictError, match="round r1 was already voided with") as refused:
        ledger.void_round("r1", 3.0, **{**asked, **change})
    assert said in str(refused.value)
    record = ledger.round("r1")  # as the first void recorded it
    assert (record.rule, record.cause, record.paid) == ("MD-S3", "two cards up", AT_THE_VOID)


def test_a_void_at_the_opening_only_repeated_with_the_tables_stakes_is_refused(ledger):
    ledger.open_round("r1", OPENED, 1.0)
    ledger.void_round("r1", 2.0, rule="MD-S2", cause="restart")  # opening_only
    with pytest.raises(RoundConflictError, match="other returned"):
        ledger.void_round("r1", 3.0, rule="MD-S2", cause="restart", stakes=AT_THE_VOID)
    assert ledger.void_round("r1", 3.0, rule="MD-S2", cause="restart", stakes=OPENED).retried


def test_recovery_after_a_crash_that_followed_a_void_with_the_tables_stakes(db_path):
    """The void committed (one transaction) before the crash: the round is voided, not
    open, so the recovery at the next start does not void it again (it would know only the
    opening's stakes, and the rule MD-S2: another void), and its record keeps the table's
    stakes. A recovery void asked of it anyway is refused, naming what differs."""
    from ledger_fixtures import FakeWall, uth_pool

    with store.Ledger.open(db_path, now=0.0, wall_clock=FakeWall()) as ledger:
        ledger.configure_pool(uth_pool(), 0.0)
        ledger.open_round("r1", OPENED, 1.0)
        ledger.void_round("r1", 2.0, rule="MD-S3", cause="two cards up", stakes=AT_THE_VOID)
        # a crash after the void's commit leaves the file as it is here
    with store.Ledger.open(db_path, now=5.0, wall_clock=FakeWall()) as ledger:
        assert ledger.recover(6.0) == []
        assert ledger.round("r1").paid == AT_THE_VOID
        with pytest.raises(RoundConflictError, match="other rule, cause: rule"):
            ledger.void_round("r1", 6.0, rule=store.RECOVERY_RULE, cause=store.RECOVERY_CAUSE)
        assert verify_ledger(ledger).problems == []


@pytest.mark.parametrize(
    "final",
    [
        {1: {"progressive": 200}, 2: {"progressive": 100}},  # changed
        {**OPENED, 3: {"progressive": 100}},  # added
    ],
)
def test_a_pool_stake_is_never_added_or_changed_by_a_void_prg2(ledger, final):
    ledger.open_round("r1", OPENED, 1.0)
    with pytest.raises(BadRoundError, match="PRG-2"):
        ledger.void_round("r1", 2.0, rule="MD-S1", cause="count", stakes=final)
    assert ledger.round("r1").state == "open"  # nothing written


def test_an_opening_stake_is_never_lowered_by_a_void(ledger):
    ledger.open_round("r1", {1: {"main": 1000}}, 1.0)
    with pytest.raises(BadRoundError, match="at the opening"):
        ledger.void_round("r1", 2.0, rule="MD-S1", cause="count", stakes={1: {"main": 500}})
    assert ledger.round("r1").state == "open"


def test_a_journal_written_before_voids_recorded_their_added_stakes_replays(ledger, monkeypatch):
    """The entries of an older ledger: no ``added``, no ``opening_only``, the opening's stakes
    returned (as every void wrote them before)."""

    def older(rid, rule, cause, returned, moved, added=None):
        data = VOIDED_DATA(rid, rule, cause, returned, moved, added)
        data.pop("opening_only", None)
        return data

    ledger.open_round("r1", OPENED, 1.0)
    with monkeypatch.context() as patched:
        patched.setattr(rounds, "voided_data", older)
        ledger.void_round("r1", 2.0, rule="MD-S1", cause="count")
    data = voided_entry(ledger).data
    assert set(data) == {"round", "rule", "cause", "returned", "pools"}
    ledger.open_round("r2", OPENED, 3.0)  # and a new one after it
    ledger.void_round("r2", 4.0, rule="MD-S1", cause="count", stakes=AT_THE_VOID)
    assert replay_journal(ledger, rows=True).problems == []
    # the fixture verifies the whole ledger: rows rebuilt from both kinds of entry


def test_the_replay_finds_a_return_that_is_not_the_rounds_stakes(db_path, monkeypatch):
    from ledger_fixtures import FakeWall, uth_pool

    def short(rid, rule, cause, returned, moved, added=None):
        data = VOIDED_DATA(rid, rule, cause, returned, moved, added)
        data["returned"] = {"1": {"progressive": 100}}  # seat 2's stakes kept back
        return data

    with store.Ledger.open(db_path, now=0.0, wall_clock=FakeWall()) as ledger:
        ledger.configure_pool(uth_pool(), 0.0)
        ledger.open_round("r1", OPENED, 1.0)
        monkeypatch.setattr(rounds, "voided_data", short)
        ledger.void_round("r1", 2.0, rule="MD-S1", cause="count", stakes=AT_THE_VOID)
        problems = verify_ledger(ledger).problems
    assert any("round r1 stakes returned recorded" in p for p in problems), problems
