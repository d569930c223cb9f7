"""The control socket's wrong-credential limiter and refusal tally (pure, on a fake clock)."""

from controller.table.control.guard import FailureLimiter, RefusalTally


def test_a_peer_past_its_failures_waits_for_the_window_to_slide():
    limiter = FailureLimiter(max_failures=3, window=60.0)
    for t in (0.0, 1.0, 2.0):
        assert limiter.retry_after(1000, t) is None
        limiter.failed(1000, t)
    assert limiter.retry_after(1000, 3.0) == 57.0  # the first failure leaves at 60 s
    assert limiter.retry_after(0, 3.0) is None  # another user (root) is not held up
    assert limiter.retry_after(1000, 60.0) is None  # one slot free again
    limiter.failed(1000, 60.0)
    assert limiter.retry_after(1000, 60.5) == 0.5


def test_success_clears_a_peer_and_the_table_of_peers_is_bounded():
    limiter = FailureLimiter(max_failures=2, window=60.0, max_peers=3)
    limiter.failed(1, 0.0)
    limiter.succeeded(1)
    limiter.failed(1, 0.0)
    assert limiter.retry_after(1, 0.0) is None
    for uid in range(10, 20):
        limiter.failed(uid, 0.0)
        limiter.failed(uid, 0.0)
    assert len(limiter._failures) == 3  # the oldest forgotten first
    assert limiter.retry_after(19, 1.0) is not None


def test_refusals_are_journaled_first_at_once_then_as_one_count_per_window():
    tally = RefusalTally(window=60.0)
    first = tally.refused("uid 1000", "jackpot.ack", "wrong or missing credential", 0.0)
    assert first == [
        {
            "action": "jackpot.ack",
            "peer": "uid 1000",
            "reason": "wrong or missing credential",
            "count": 1,
        }
    ]
    for n in range(1, 1000):
        assert tally.refused("uid 1000", "jackpot.ack", "wrong", n * 0.01) == []
    for uid in range(100):  # many users: the summary stays small
        tally.refused(f"uid {uid}", "seat.clear", "wrong", 20.0)
    assert tally.next_deadline() == 60.0
    assert tally.flush(59.9) == []
    summary = tally.flush(60.0)
    assert len(summary) == 1 and summary[0]["count"] == 1099 and summary[0]["coalesced"]
    assert summary[0]["by_peer"]["uid 1000"]["jackpot.ack"] == 999
    assert len(summary[0]["by_peer"]) == 32 + 1  # 32 named, the rest together
    assert summary[0]["by_peer"]["other peers"]["seat.clear"] == 100 - 31
    assert tally.next_deadline() is None
    # the next refusal after a quiet window is journaled at once again
    assert tally.refused("uid 0 pid 1", "seat.clear", "wrong", 100.0)[0]["count"] == 1


def test_a_lone_refusal_leaves_no_empty_summary_and_shutdown_flushes():
    tally = RefusalTally(window=60.0)
    tally.refused("p", "a", "r", 0.0)
    assert tally.flush(61.0) == []
    tally.refused("p", "a", "r", 100.0)
    tally.refused("p", "a", "r", 101.0)
    assert tally.flush(102.0, force=True)[0]["count"] == 1
