"""The pure parts of the link (no server, no clock): backoff, what the table owes the store,
amounts that never step back, what each journaled event adds to its table's totals, the
pool's rules against the table profile's."""

import dataclasses
import random

from hypothesis import given
from hypothesis import strategies as st
from pg import RULES, jumbo7

from controller.books.linked.client import rule_differences
from controller.books.linked.link import AmountChanged, AmountTracker, LinkState
from controller.books.linked.store import table_deltas


def test_backoff_doubles_with_jitter_up_to_the_ceiling_and_resets_on_success():
    link = LinkState(min_delay=0.5, max_delay=8.0, rng=random.Random(1))
    link.joined()
    assert link.lost(100.0, "server gone") is True  # news: it was up
    delays = [link.next_attempt - 100.0]
    for _ in range(7):
        assert link.lost(100.0, "still gone") is False
        delays.append(link.next_attempt - 100.0)
    ceilings = [0.5, 1, 2, 4, 8, 8, 8, 8]
    assert all(0.5 <= d <= c for d, c in zip(delays, ceilings, strict=True))
    assert len(set(delays)) > 4  # jittered: tables do not all retry at the same instant
    link.joined()
    assert (link.up, link.reason, link.failures) == (True, "", 0)
    link.lost(200.0, "again")
    assert link.next_attempt - 200.0 <= 0.5


@given(st.lists(st.sampled_from(["lost", "joined"]), max_size=40), st.integers(0, 2**32))
def test_the_next_attempt_is_never_sooner_than_the_floor_nor_later_than_the_ceiling(steps, seed):
    link = LinkState(min_delay=0.25, max_delay=30.0, rng=random.Random(seed))
    now = 0.0
    for step in steps:
        now += 1.0
        if step == "joined":
            link.joined()
        else:
            link.lost(now, "x")
            assert now + 0.25 <= link.next_attempt <= now + 30.0


def test_an_opening_in_doubt_is_abandoned_rather_than_voided():
    link = LinkState()
    link.open_in_doubt("r1", 1.0)
    link.void_owed("r1", "MD-S1", "misdeal", 2.0)  # abandoning voids it anyway
    link.void_owed("r2", "MD-S3", "two cards face up", 3.0)
    assert list(link.in_doubt) == ["r1"] and list(link.owed_voids) == ["r2"]
    assert link.owes


def test_amounts_never_step_back():
    tracker = AmountTracker("j7")
    assert tracker.offer(AmountChanged("j7", 100_020, 100_000, 5)) is not None
    assert tracker.offer(AmountChanged("j7", 100_000, 100_000, 4)) is None  # late, older
    assert tracker.offer(AmountChanged("j7", 100_020, 100_000, 5)) is None  # seen
    assert tracker.offer(AmountChanged("j7", 100_000, 100_000, 6)).seq == 6  # a win, newer
    assert tracker.last.amount == 100_000


def test_table_totals_from_journal_entries():
    opened = {"pools": {"j": {"stake": 300, "to_current": 60, "to_reserve": 3, "overflow": 2}}}
    assert table_deltas("round.opened", opened, "j") == {
        "rounds": 1,
        "stakes_in": 300,
        "contributions": 60,
        "reserve_contributions": 5,
        "voids": 0,
        "hits": 0,
        "won_from_pool": 0,
        "won_fixed": 0,
    }
    voided = {
        "returned": {"1": {"jumbo7": 100}, "2": {"jumbo7": 200}},
        "pools": {"j": {"from_current": 60, "from_overflow": 2, "from_reserve": 3}},
    }
    assert table_deltas("round.voided", voided, "j") == {
        "rounds": -1,
        "stakes_in": -300,
        "contributions": -60,
        "reserve_contributions": -5,
        "voids": 1,
        "hits": 0,
        "won_from_pool": 0,
        "won_fixed": 0,
    }
    # awards: [stake, line, amount, from_pool, share, envy]
    settled = {"pools": {"j": {"order": [3], "jackpot_paid": 1000, "awards": {
        "1": [100, "flush", 400, 500, 500, 0], "3": [100, "seven", 500, 500, 0, 0]}}}}  # fmt: skip
    assert table_deltas("round.settled", settled, "j")["won_fixed"] == 400
    assert table_deltas("round.settled", settled, "other") == dict.fromkeys(
        table_deltas("round.settled", settled, "j"), 0
    )


def test_rule_differences_name_each_field():
    pool = jumbo7()
    assert rule_differences(pool, RULES) == []
    other = dataclasses.replace(RULES, stake=200, award="winner")
    found = rule_differences(pool, other)
    assert [f.split()[0] for f in found] == ["stake", "award"]
