"""Money events on a real SQLite ledger: open, void, settle, correct, configure, recover.

The ``ledger`` fixture ends every test with the full verifier, so each scenario also proves
that the invariants and the journal replay agree with the tables.
"""

import sqlite3
from dataclasses import replace

import pytest
from ledger_fixtures import FakeWall, jumbo_pool, uth_pool

from controller.books.ledger.errors import (
    BadRoundError,
    LedgerError,
    RoundConflictError,
    RoundStateError,
)
from controller.books.ledger.reader import LedgerReader
from controller.books.ledger.store import Ledger
from controller.books.ledger.verify import verify_ledger
from controller.validation import MONEY_MAX, ConfigError

SIX = {seat: {"progressive": 100} for seat in range(1, 7)}


def current(ledger, pool="uth"):
    return ledger.pool(pool)[1].current


def test_lock_records_stakes_and_contributions(ledger):
    opened = ledger.open_round("r1", {**SIX, 1: {"progressive": 100, "ante": 500}}, 1.0)
    assert opened.contributions["uth"].to_current == 90  # 15% of 600 (PRG-1)
    assert opened.pools == {"uth": 500_090} and current(ledger) == 500_090
    record = ledger.round("r1")
    assert record.state == "open" and record.staked == 1100
    assert ledger.journal.tail(1)[0].kind == "round.opened"


def test_misdeal_returns_every_stake_and_reverses_contributions(ledger):
    ledger.open_round("r1", {1: {"progressive": 100, "ante": 500, "blind": 500}}, 1.0)
    voided = ledger.void_round("r1", 2.0, rule="MD-S1", cause="seat 1 got 3 cards")
    assert voided.returned == {1: {"ante": 500, "blind": 500, "progressive": 100}}
    assert voided.pools == {"uth": 500_000}
    _, state = ledger.pool("uth")
    assert (state.voids, state.stakes_returned, state.rounds, state.stakes_in) == (1, 100, 0, 0)
    record = ledger.round("r1")
    assert (record.state, record.rule, record.paid_total) == ("voided", "MD-S1", 1100)


def test_last_closed_round_is_the_last_settled_or_voided(ledger):
    assert ledger.last_closed_round() is None
    ledger.open_round("r1", SIX, 1.0)
    ledger.open_round("r2", SIX, 2.0)
    assert ledger.last_closed_round() is None  # open rounds are not closed
    ledger.void_round("r2", 3.0, rule="MD-S2", cause="jam")
    ledger.settle_round("r1", 4.0, hits={"uth": {}})
    assert ledger.last_closed_round().round_id == "r1"
    ledger.open_round("r3", SIX, 5.0)
    ledger.void_round("r3", 6.0, rule="MD-S3", cause="two cards face up")
    last = ledger.last_closed_round()
    assert (last.round_id, last.state, last.rule) == ("r3", "voided", "MD-S3")


def test_showdown_pays_the_pool_resets_to_seed_and_pays_envy(ledger):
    ledger.open_round("r1", SIX, 1.0)
    settled = ledger.settle_round(
        "r1",
        2.0,
        hits={"uth": {2: "royal-flush", 5: "four-of-a-kind"}},
        hands={2: "As Ks Qs Js 10s 2c 3d"},
    )
    assert settled.jackpot
    assert settled.paid[2] == {"progressive": 500_090}  # 100% of the pool (PRG-3)
    assert settled.paid[5] == {"progressive": 10_000, "envy": 10_000}  # 100:1, PRG-4
    assert settled.paid[1] == {"progressive": 0, "envy": 10_000}
    assert settled.pools == {"uth": 500_000}  # PRG-5
    hits = ledger.hits()
    assert [(h.seat, h.line) for h in hits][-2:] == [(2, "royal-flush"), (1, None)]
    royal = next(h for h in hits if h.line == "royal-flush")
    assert royal.hand == "As Ks Qs Js 10s 2c 3d" and royal.from_pool == 500_090
    assert royal.cycle == 1


def test_table_wagers_need_a_payout_each(ledger):
    ledger.open_round("r1", {1: {"progressive": 100, "ante": 500}}, 1.0)
    with pytest.raises(BadRoundError, match=r"missing \[\(1, 'ante'\)\]"):
        ledger.settle_round("r1", 2.0, hits={"uth": {}})
    with pytest.raises(BadRoundError, match="not staked"):
        ledger.settle_round("r1", 2.0, hits={"uth": {}}, payouts={1: {"ante": 0, "trips": 5}})
    with pytest.raises(BadRoundError, match="no hits given for pool uth"):
        ledger.settle_round("r1", 2.0, payouts={1: {"ante": 1000}})
    with pytest.raises(BadRoundError, match="pays no line 'flush'"):
        ledger.settle_round("r1", 2.0, hits={"uth": {1: "flush"}}, payouts={1: {"ante": 0}})
    with pytest.raises(BadRoundError, match=r"seats \[4\] have no stake"):
        ledger.settle_round("r1", 2.0, hits={"uth": {4: "full-house"}}, payouts={1: {"ante": 0}})
    settled = ledger.settle_round("r1", 2.0, hits={"uth": {}}, payouts={1: {"ante": 1000}})
    assert settled.paid == {1: {"ante": 1000, "progressive": 0}}
    assert ledger.round("r1").state == "settled"


@pytest.mark.parametrize(
    "stakes, match",
    [
        ({0: {"progressive": 100}}, "not a seat number"),
        ({1: {"progressive": 0}}, "not a positive amount"),
        ({1: {"progressive": 1.5}}, "not a positive amount"),
        ({1: {"": 100}}, "non-empty"),
        ({1: 100}, "must map wager names"),
    ],
)
def test_bad_stakes_are_refused_before_anything_is_written(ledger, stakes, match):
    entries = ledger.journal.head()[0]
    with pytest.raises(BadRoundError, match=match):
        ledger.open_round("r1", stakes, 1.0)
    assert ledger.journal.head()[0] == entries and ledger.round("r1") is None


def test_events_are_idempotent_by_round_id(ledger):
    first = ledger.open_round("r1", SIX, 1.0)
    again = ledger.open_round("r1", SIX, 5.0)
    assert again.retried and again.contributions == first.contributions
    assert current(ledger) == 500_090  # counted once
    with pytest.raises(RoundConflictError):
        ledger.open_round("r1", {1: {"progressive": 100}}, 5.0)
    settled = ledger.settle_round("r1", 2.0, hits={"uth": {3: "full-house"}})
    retried = ledger.settle_round("r1", 9.0, hits={"uth": {3: "full-house"}})
    assert retried.retried and retried.outcomes == settled.outcomes and retried.paid == settled.paid
    with pytest.raises(RoundConflictError):
        ledger.settle_round("r1", 9.0, hits={"uth": {3: "straight-flush"}})
    with pytest.raises(RoundStateError, match="cannot be voided"):
        ledger.void_round("r1", 3.0, rule="MD-S2", cause="late")
    assert ledger.pool("uth")[1].rounds == 1


def test_void_is_idempotent_and_blocks_settling(ledger):
    ledger.open_round("r1", SIX, 1.0)
    first = ledger.void_round("r1", 2.0, rule="MD-S3", cause="two cards face up")
    again = ledger.void_round("r1", 3.0, rule="MD-S3", cause="two cards face up")
    assert again.retried and again.reversals == first.reversals
    with pytest.raises(RoundStateError, match="was voided"):
        ledger.settle_round("r1", 4.0, hits={"uth": {}})
    with pytest.raises(RoundStateError, match="no round nope"):
        ledger.void_round("nope", 4.0, rule="MD-S2", cause="x")


def test_share_round_splits_the_jackpot_by_stake(db_path):
    with Ledger.open(db_path, now=0.0, wall_clock=FakeWall()) as ledger:
        ledger.configure_pool(jumbo_pool(seed=1_000_000), 0.0)
        stakes = {1: {"jumbo7": 100}, 2: {"jumbo7": 200}, 3: {"jumbo7": 100}}
        ledger.open_round("r1", stakes, 1.0)  # +80 (20%)
        settled = ledger.settle_round(
            "r1", 2.0, hits={"j7": {1: "seven-card-straight-flush", 2: "flush"}}
        )
        # 1,000,080 shared 1:2:1 (CH-9)
        assert settled.paid[1] == {"jumbo7": 250_020}
        assert settled.paid[2] == {"jumbo7": 800, "jackpot-share": 500_040}
        assert settled.paid[3] == {"jumbo7": 0, "jackpot-share": 250_020}
        assert settled.pools == {"j7": 1_000_000}
        assert verify_ledger(ledger).problems == []


def test_cap_overflow_and_reserve_funding_the_seed(db_path):
    with Ledger.open(db_path, now=0.0, wall_clock=FakeWall()) as ledger:
        ledger.configure_pool(uth_pool(seed=1000, cap=1100, reserve_rate="2%"), 0.0)
        for n in range(10):
            ledger.open_round(f"r{n}", SIX, float(n))
            ledger.settle_round(f"r{n}", float(n), hits={"uth": {}})
        _, state = ledger.pool("uth")
        assert state.current == 1100 and state.overflow == 900 - 100
        assert state.reserve == state.overflow + state.reserve_contributions == 800 + 120
        ledger.open_round("jp", SIX, 20.0)
        ledger.settle_round("jp", 21.0, hits={"uth": {6: "royal-flush"}})
        _, state = ledger.pool("uth")
        assert state.current == 1000 and state.seeded_reserve == 1000
        assert verify_ledger(ledger).problems == []


def test_parameter_changes_only_between_rounds_and_journaled(ledger):
    ledger.open_round("r1", SIX, 1.0)
    with pytest.raises(RoundStateError, match="between rounds"):
        ledger.configure_pool(uth_pool(contribution_rate="20%"), 2.0)
    ledger.settle_round("r1", 3.0, hits={"uth": {}})
    with pytest.raises(ConfigError, match="below the amount displayed"):
        ledger.configure_pool(uth_pool(cap=500_089), 4.0)
    ledger.configure_pool(uth_pool(contribution_rate="20%", cap=600_000), 4.0)
    entry = ledger.journal.tail(1)[0]
    assert entry.kind == "pool.configured"
    assert entry.data["changed"] == {"cap": [None, 600_000], "contribution_rate": ["3/20", "1/5"]}
    assert ledger.open_round("r2", SIX, 5.0).contributions["uth"].to_current == 120
    seq = ledger.journal.head()[0]
    ledger.configure_pool(uth_pool(contribution_rate="20%", cap=600_000), 6.0)  # unchanged
    assert ledger.journal.head()[0] == seq


def test_a_second_pool_on_the_same_bet_is_refused(ledger):
    with pytest.raises(LedgerError, match="already takes the progressive stakes"):
        ledger.configure_pool(replace(uth_pool(), name="second"), 1.0)


def test_technician_correction_is_journaled(ledger):
    ledger.correct_meter("uth", "current", 600_000, 1.0, technician="T-17", reason="audit")
    entry = ledger.journal.tail(1)[0]
    assert (entry.kind, entry.data["old"], entry.data["new"]) == (
        "meter.corrected",
        500_000,
        600_000,
    )
    assert ledger.corrections()[0]["technician"] == "T-17"
    ledger.open_round("r1", SIX, 2.0)
    with pytest.raises(RoundStateError, match="between rounds"):
        ledger.correct_meter("uth", "current", 1, 3.0, technician="T-17", reason="x")
    ledger.settle_round("r1", 3.0, hits={"uth": {}})
    with pytest.raises(LedgerError, match="only current and reserve"):
        ledger.correct_meter("uth", "hits", 0, 3.0, technician="T-17", reason="x")


@pytest.mark.parametrize("meter", ["current", "reserve"])
@pytest.mark.parametrize("value", [MONEY_MAX + 1, 2**63 - 1])
def test_a_correction_beyond_the_money_limit_is_refused(ledger, meter, value):
    """The ledger's own check, whatever its caller checked: a pool set to 2**63 - 1 was
    journaled, and the table opened displaying it."""
    before = ledger.journal.head()
    with pytest.raises(BadRoundError, match=f"the new {meter}: {value} is above"):
        ledger.correct_meter("uth", meter, value, 1.0, technician="T-17", reason="x")
    assert ledger.journal.head() == before  # refused before anything was written
    after = ledger.correct_meter("uth", "reserve", MONEY_MAX, 1.0, technician="T-17", reason="x")
    assert after.reserve == MONEY_MAX


def test_recovery_voids_rounds_left_open_with_md_s2(db_path):
    with Ledger.open(db_path, now=0.0, wall_clock=FakeWall()) as ledger:
        ledger.configure_pool(uth_pool(), 0.0)
        ledger.open_round("r1", SIX, 1.0)
        ledger.settle_round("r1", 2.0, hits={"uth": {}})
        ledger.open_round("r2", SIX, 3.0)
    with Ledger.open(db_path, now=0.0, wall_clock=FakeWall()) as ledger:
        assert ledger.open_round_ids() == ["r2"]
        voided = ledger.recover(1.0)
        assert [(v.round_id, v.rule) for v in voided] == [("r2", "MD-S2")]
        assert ledger.recover(2.0) == []
        assert ledger.pool("uth")[1].current == 500_090
        assert verify_ledger(ledger).problems == []


def test_hit_history_keeps_every_hit_and_cannot_be_pruned(ledger):
    for n in range(120):
        ledger.open_round(f"r{n}", {1: {"progressive": 100}}, float(n))
        ledger.settle_round(f"r{n}", float(n), hits={"uth": {1: "full-house"}})
    assert len(ledger.hits(limit=1000)) == 120
    assert ledger.hits(limit=1)[0].round_id == "r119"
    with pytest.raises(sqlite3.IntegrityError, match="never pruned"):
        ledger.db.conn.execute("DELETE FROM hits WHERE hit_id = 1")


def test_a_group_of_events_commits_or_rolls_back_as_one(ledger):
    with pytest.raises(RuntimeError), ledger.transaction():
        ledger.journal.append("table.state", {"from": "OPEN", "to": "LOCKED", "cause": "LOCK"}, 1.0)
        ledger.open_round("r1", SIX, 1.0)
        raise RuntimeError("the daemon failed before the commit")
    assert ledger.round("r1") is None and current(ledger) == 500_000
    assert ledger.journal.tail(1)[0].kind == "pool.created"
    with ledger.transaction():
        ledger.journal.append("table.state", {"to": "LOCKED", "rules": ["UTH-11"]}, 1.0)
        ledger.open_round("r1", SIX, 1.0)
    assert [e.kind for e in ledger.journal.tail(2)] == ["table.state", "round.opened"]


def test_journal_refuses_ledger_kinds_and_bad_data(ledger):
    with pytest.raises(LedgerError, match="written by the ledger only"):
        ledger.journal.append("round.opened", {}, 1.0)
    with pytest.raises(LedgerError, match="must look like"):
        ledger.journal.append("Bad Kind", {}, 1.0)
    with pytest.raises(LedgerError, match="not JSON"):
        ledger.journal.append("table.state", {"x": object()}, 1.0)


def test_reader_sees_committed_events_beside_the_writer(ledger, db_path):
    ledger.open_round("r1", SIX, 1.0)
    with LedgerReader.open(db_path) as reader:
        assert reader.pool("uth")[1].current == 500_090
        assert reader.open_round_ids() == ["r1"]
        assert reader.round("r1").to_json()["stakes"]["1"] == {"progressive": 100}
