"""A shuffler (or a cable) that babbles: floods from the device side of the link.

What a flood may cost is bounded: the log gets a few lines per kind of complaint and per
window (``firmware_bridge.log_budget``), not one per byte or a 64-frame dump per frame, while
the counters still count everything and each event keeps its meaning (a card out of order is
still a protocol violation every time).
"""

from __future__ import annotations

import asyncio
import logging

from linksim import frame, hostile_session

from controller.table.shuffler_events import FaultStorm, Storm
from drivers.shuffler_client import EVENT_BACKLOG, ShufflerClient
from firmware_bridge.framing import encode_frame
from firmware_bridge.log_budget import LOG_INTERVAL, LogBudget
from firmware_bridge.messages import CardEvent, FaultEvent, Pong
from firmware_bridge.session import DeviceEvent, HostSession, LinkTiming, ProtocolViolation

LOGGER = "firmware_bridge.session"
FLOOD = 2000


def drain(session: HostSession) -> list:
    out = []
    while (ev := session.next_event()) is not None:
        out.append(ev)
    return out


def lines(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == LOGGER]


def test_the_budget_logs_the_first_counts_the_rest_and_summarises_once():
    budget = LogBudget(10.0)
    assert budget.allow("garbage", 0.0)
    assert not any(budget.allow("garbage", 0.1 * i) for i in range(1, 50))
    assert budget.allow("crc", 1.0)  # another kind has its own window
    assert budget.due(9.9) == []
    (summary,) = budget.due(10.0)
    assert (summary.kind, summary.count, summary.since) == ("garbage", 49, 0.0)
    assert budget.allow("garbage", 10.5)  # a new window: logged at once again
    assert budget.due(11.0) == []  # "crc" window ended with nothing held back


def test_the_budget_says_when_a_summary_is_due_and_counts_what_a_complaint_stands_for():
    budget = LogBudget(10.0)
    assert budget.next_due() is None
    assert budget.allow("dropped", 2.0, count=7)  # logged: its own line says 7
    assert budget.next_due() is None  # nothing held back yet: no timer needed
    assert not budget.allow("dropped", 3.0, count=5)
    assert not budget.allow("dropped", 4.0)
    assert budget.allow("crc", 5.0) and not budget.allow("crc", 6.0)
    assert budget.next_due() == 12.0  # the earlier window's end
    (summary,) = budget.due(12.0)
    assert (summary.kind, summary.count, summary.since) == ("dropped", 6, 2.0)
    assert budget.next_due() == 15.0
    assert [s.kind for s in budget.due(15.0)] == ["crc"] and budget.next_due() is None


def test_a_babbling_line_is_a_few_log_lines_not_one_per_byte(caplog):
    """``A5 FF`` repeated: every SOF fails its header, every FF is noise, so every byte was
    a run of its own and a log line (100,000 lines for 100 KB)."""
    session = hostile_session()
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        for i in range(50):
            session.receive_data(b"\xa5\xff" * 1000, 0.01 + i * 0.01)
        assert len(lines(caplog)) <= 2, lines(caplog)[:5]
        assert session.stats["bad_frames"] >= 50 * 1000  # every run still counted
        session.poll(0.5 + LOG_INTERVAL)  # (the link is down by then too: 3 s without a frame)
    summaries = [line for line in lines(caplog) if "more runs of discarded bytes" in line]
    assert len(summaries) == 1 and "counted, not logged one by one" in summaries[0]


def test_undecodable_frames_dump_the_ring_once_not_per_frame(caplog):
    session = hostile_session()
    flood = b"".join(encode_frame(1, 0x33, b"") for _ in range(FLOOD))  # no such TYPE
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        session.receive_data(flood, 0.1)
    assert session.stats["undecodable"] == FLOOD
    dumps = [line for line in lines(caplog) if "the last" in line]
    assert len(dumps) == 1 and "undecodable 0x33 frame" in dumps[0]
    assert sum(line.count("\n") + 1 for line in lines(caplog)) <= 2 * 32 * 2 + 10


def test_cards_out_of_order_are_each_a_violation_but_logged_within_the_budget(caplog):
    session = hostile_session()
    session.cards.shuffled()
    session.receive_data(frame(1, CardEvent(1, 10, 0)), 0.05)
    flood = b"".join(frame(seq % 255 + 1, CardEvent(1, 10, 0)) for seq in range(1, FLOOD))
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        session.receive_data(flood, 0.1)
    events = drain(session)
    violations = [e for e in events if isinstance(e, ProtocolViolation)]
    assert len(violations) == FLOOD - 1  # the meaning of each is kept: MD-S2 for the table
    assert len(lines(caplog)) <= 2, lines(caplog)[:3]


def test_events_that_skip_sequence_numbers_are_delivered_and_logged_within_the_budget(caplog):
    session = hostile_session()
    flood = b"".join(frame((2 * i) % 255 + 1, FaultEvent(4, 0)) for i in range(FLOOD))
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        session.receive_data(flood, 0.1)
    delivered = [e for e in drain(session) if isinstance(e, DeviceEvent)]
    assert len(delivered) == FLOOD
    assert session.stats["event_gaps"] == FLOOD - 1
    assert len(lines(caplog)) <= 2, lines(caplog)[:3]


def test_a_fault_storm_begins_past_the_limit_and_ends_after_a_quiet_window():
    storm = FaultStorm(limit=3, window=1.0)
    assert [storm.report(t) for t in (0.0, 0.1, 0.2)] == [Storm.PASS] * 3
    assert storm.report(2.0) is Storm.PASS  # the window slid: still ordinary faults
    assert [storm.report(t) for t in (2.1, 2.2, 2.25)] == [Storm.PASS, Storm.PASS, Storm.BEGINS]
    assert storm.raging and "faster than 3 in 1 s" in storm.detail
    assert [storm.report(2.3 + i / 1000) for i in range(500)] == [Storm.WITHIN] * 500
    assert storm.calm(3.0) is None  # not quiet for a whole window yet
    assert storm.calm_at() == 2.3 + 499 / 1000 + 1.0
    assert storm.calm(storm.calm_at()) == 500
    assert not storm.raging and storm.detail == ""
    assert storm.report(10.0) is Storm.PASS


class _Wire:
    """A transport the test writes the device's bytes into."""

    description = "a test wire"

    async def open(self, on_data, on_lost) -> None:
        self.on_data = on_data

    def write(self, data: bytes) -> None:
        pass

    def close(self) -> None:
        pass


def test_events_past_the_backlog_are_reported_to_the_controller_not_dropped_silently(caplog):
    """A controller busy elsewhere (an identify, a deck check) while the device sends more
    than EVENT_BACKLOG events: the oldest went without a word, a card or a fault the table
    never saw. Now the drop is a ProtocolViolation (MD-S2 for a round in play)."""

    async def main():
        wire = _Wire()
        client = ShufflerClient(wire, nonce=7)
        await client.connect(identify=False)
        wire.on_data(frame(0, Pong(boot_id=1, state=2)))
        flood = b"".join(frame(i % 255 + 1, FaultEvent(4, 0)) for i in range(EVENT_BACKLOG + 50))
        # the close's summary is a WARNING: captured whatever level an earlier test left the
        # root logger at (it was lost after the CLI's tests, which configure logging)
        caplog.set_level(logging.WARNING, logger="drivers.shuffler_client")
        wire.on_data(flood)
        queued = []
        while not client._events.empty():
            queued.append(client._events.get_nowait())
        await client.close()
        return client, queued

    client, queued = asyncio.run(main())
    assert client.events_dropped > 50
    violations = [e for e in queued if isinstance(e, ProtocolViolation)]
    assert violations and "dropped" in violations[-1].reason
    assert queued[-1] is violations[-1]  # the newest: the controller hears of it last
    logged = [r.getMessage() for r in caplog.records if "dropped" in r.getMessage()]
    assert len(logged) == 2  # the flood's report, and at close the drops counted since
    assert "more event(s) dropped in the last" in logged[1]


def test_dropped_events_past_the_first_are_summarised_with_their_count_after_the_interval(
    caplog, monkeypatch
):
    """The first report of dropped events is logged at once; the drops of the next 10 s were
    only counted (``events_dropped``), and nothing told the technician of them. Now one
    summary line with their count is written when the window ends, by the client's own timer
    (the link's heartbeat is set far off here so that nothing else wakes the client)."""
    clock = [0.0]
    timing = LinkTiming(heartbeat_interval=100.0, link_timeout=200.0)

    def faults(n: int, first_seq: int) -> bytes:
        return b"".join(frame((first_seq + i) % 255 + 1, FaultEvent(4, 0)) for i in range(n))

    def dropped_lines() -> list[str]:
        return [r.getMessage() for r in caplog.records if "dropped" in r.getMessage()]

    async def main():
        monkeypatch.setattr(asyncio.get_running_loop(), "time", lambda: clock[0])
        wire = _Wire()
        client = ShufflerClient(wire, timing=timing, nonce=7)
        await client.connect(identify=False)
        wire.on_data(frame(0, Pong(boot_id=1, state=2)))
        with caplog.at_level(logging.WARNING, logger="drivers.shuffler_client"):
            # the link-up event holds one place: 50 dropped, logged at once
            wire.on_data(faults(EVENT_BACKLOG - 1 + 50, 0))
            assert dropped_lines() == [
                f"shuffler: 50 shuffler event(s) dropped: more than {EVENT_BACKLOG} waited"
                " for the controller"
            ]
            clock[0] = 5.0
            # 20 more dropped, and 1 that the first report itself pushed out: counted
            wire.on_data(faults(20, EVENT_BACKLOG + 49))
            clock[0] = 9.9
            for _ in range(3):
                await asyncio.sleep(0)
            assert len(dropped_lines()) == 1  # the window is not over
            clock[0] = 10.0
            for _ in range(3):
                await asyncio.sleep(0)  # the client's timer is due: nothing else arrives
            summaries = [line for line in dropped_lines() if "more event" in line]
            await client.close()
        return client, summaries

    client, summaries = asyncio.run(main())
    assert summaries == [
        "shuffler: 21 more event(s) dropped in the last 10.0 s (more than"
        f" {EVENT_BACKLOG} waited for the controller), each reported to it;"
        " counted in events_dropped, not logged one by one"
    ]
    assert client.events_dropped >= 50 + 21
