"""Link abuse: what a misbehaving shuffler or a bad cable sends the host (issue 13, point 6).

Through the sans-I/O session alone (frames written here, as a hostile device would) and
through the reference firmware on the simulated wire
(``tests/unit/firmware_bridge/linksim.py``): late and repeated event copies, reordering, a
device reboot, sequence numbers wrapping past 255, shoe card indexes out of order, replies
that do not answer their request, and the frame ring that is dumped to the log when the link
breaks (issue 12).
"""

from __future__ import annotations

import logging

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from linksim import LinkSim, frame, hostile_session

from firmware_bridge.emulator.firmware import DeviceFirmware
from firmware_bridge.emulator.machine import ShufflerMachine
from firmware_bridge.errors import RemoteProtocolError
from firmware_bridge.messages import (
    CardEvent,
    DealReply,
    DealRequest,
    DealtCard,
    FaultEvent,
    IdentifyReply,
    Pong,
    ShuffleMode,
    ShuffleRequest,
)
from firmware_bridge.ordering import WINDOW, CardOrder, EventWindow, Verdict
from firmware_bridge.session import (
    RING_FRAMES,
    DeviceEvent,
    DeviceRebooted,
    Failed,
    HostSession,
    ProtocolViolation,
)


def event_seq(n: int) -> int:
    """The device's SEQ of its n-th event (n from 1): 1..255, then 1 again."""
    return (n - 1) % 255 + 1


def delivered(session: HostSession) -> list:
    out = []
    while (ev := session.next_event()) is not None:
        if isinstance(ev, DeviceEvent | ProtocolViolation):
            out.append(ev)
    return out


# --- the window, as a pure object ---------------------------------------------------------


@given(
    count=st.integers(1, 700),
    echoes=st.lists(st.tuples(st.integers(0, 699), st.integers(0, WINDOW - 1)), max_size=60),
)
def test_window_delivers_each_event_once_across_wraps_whatever_the_late_copies(count, echoes):
    """Every event once, in order, although copies of events up to WINDOW behind the newest
    arrive late (a delayed retransmission), however often the SEQ wraps."""
    late = {}
    for at, back in echoes:
        late.setdefault(at % count, []).append(back)
    window, accepted = EventWindow(), []
    window.new_boot(1)
    for n in range(1, count + 1):
        assert window.accept(event_seq(n)) is Verdict.NEW
        accepted.append(n)
        for back in late.get(n - 1, []):
            if n - back >= 1:
                assert window.accept(event_seq(n - back)) is Verdict.DUPLICATE
    assert accepted == list(range(1, count + 1))


def test_a_new_boot_resets_the_window_so_event_one_is_new_again():
    window = EventWindow()
    window.new_boot(10)
    for n in range(1, 6):
        window.accept(n)
    assert window.accept(1) is Verdict.DUPLICATE  # a late copy in the same boot
    assert window.new_boot(10) is False
    assert window.new_boot(11) is True
    assert window.accept(1) is Verdict.NEW


def test_card_order_follows_shuffles_and_reinsertions():
    order = CardOrder()
    assert order.check(7) is None  # unknown until the first shuffle or card
    order.shuffled()
    assert [order.check(i) for i in (1, 2, 3)] == [None, None, None]
    order.reinserted(2)
    assert order.check(2) is None
    assert "repeated" in order.check(2)
    assert "skipped" in order.check(9)
    assert order.check(10) is None  # re-based: one break is reported once


# --- the real session, fed by a hostile device --------------------------------------------


@settings(max_examples=60)
@given(
    cards=st.lists(st.integers(0, 51), min_size=1, max_size=300),
    replay=st.lists(st.tuples(st.integers(0, 299), st.integers(0, 40)), max_size=40),
)
def test_session_delivers_each_card_once_under_late_copies_and_wrap(cards, replay):
    session = hostile_session()
    session.cards.shuffled()
    copies = {}
    for at, back in replay:
        copies.setdefault(at % len(cards), []).append(back)
    sent = []
    for i, card in enumerate(cards):
        n = i + 1
        raw = frame(event_seq(n), CardEvent(n, card, 0))
        sent.append(raw)
        session.receive_data(raw, 0.01 * n)
        for back in copies.get(i, []):
            if back < n:
                session.receive_data(sent[n - 1 - back], 0.01 * n)  # a late copy
    got = delivered(session)
    assert all(isinstance(e, DeviceEvent) for e in got)
    assert [e.message.card for e in got] == cards
    assert [e.message.index for e in got] == list(range(1, len(cards) + 1))


def test_first_event_after_a_reboot_is_delivered():
    """The bug of issue 13: the event state survived a reboot, so event 1 of the new boot
    was taken for the old boot's event 1."""
    session = hostile_session()
    session.receive_data(frame(1, FaultEvent(4, 1, "jam")), 0.1)
    session.receive_data(frame(0, Pong(boot_id=2, state=0)), 0.2)  # the device restarted
    session.receive_data(frame(1, FaultEvent(5, 1, "misfeed")), 0.3)
    events = [e for e in iter(session.next_event, None)]
    assert any(isinstance(e, DeviceRebooted) for e in events)
    faults = [e.message.code for e in events if isinstance(e, DeviceEvent)]
    assert faults == [4, 5]


def test_card_out_of_order_is_a_violation_not_a_card(caplog):
    session = hostile_session()
    session.cards.shuffled()
    session.receive_data(frame(1, CardEvent(1, 10, 0)), 0.1)
    with caplog.at_level(logging.ERROR, logger="firmware_bridge.session"):
        session.receive_data(frame(2, CardEvent(3, 11, 0)), 0.2)  # card 2 never came
    got = delivered(session)
    assert isinstance(got[0], DeviceEvent) and isinstance(got[1], ProtocolViolation)
    assert "index 3 where 2 was next" in got[1].reason
    assert "the last" in caplog.text and "type=0x41" in caplog.text  # the ring was dumped


@given(tag=st.integers(0, 255), wrong_tag=st.integers(0, 255), wrong_count=st.integers(1, 52))
def test_a_deal_reply_for_another_request_fails_it(tag, wrong_tag, wrong_count):
    session = hostile_session()
    handle = session.submit(DealRequest(2, tag), 0.0)
    seq = session.data_to_send()[-7]  # SEQ of the DEAL frame just written (9 bytes)
    reply = DealReply(0, wrong_tag, wrong_count, (DealtCard(1, False), DealtCard(2, False)))
    session.receive_data(frame(seq, reply), 0.01)
    events = list(iter(session.next_event, None))
    outcome = [e for e in events if getattr(e, "handle", None) == handle]
    if (wrong_tag, wrong_count) == (tag, 2):
        assert not isinstance(outcome[0], Failed)
    else:
        assert isinstance(outcome[0], Failed)
        assert isinstance(outcome[0].error, RemoteProtocolError)
        assert "does not match" in str(outcome[0].error)


def test_a_wrong_count_in_the_right_reply_is_the_validators_misdeal_not_a_link_error():
    session = hostile_session()
    handle = session.submit(DealRequest(2, 3), 0.0)
    seq = session.data_to_send()[-7]
    cards = tuple(DealtCard(c, False) for c in (1, 2, 3))  # one card too many: MD-S1
    session.receive_data(frame(seq, DealReply(0, 3, 2, cards)), 0.01)
    done = [e for e in iter(session.next_event, None) if getattr(e, "handle", None) == handle]
    assert done[0].reply.count == 3


# --- through the reference firmware ----------------------------------------------------------


@settings(max_examples=15)
@given(
    seed=st.integers(0, 10_000),
    draws=st.integers(1, 40),
    duplicate=st.integers(0, 5),
    delay=st.integers(0, 3),
    drop=st.integers(0, 3),
)
def test_emulator_shoe_under_duplicates_delays_and_drops(seed, draws, duplicate, delay, drop):
    """Every card the dealer draws reaches the host once, in order, whatever the line does
    to the event frames (duplicated, delayed past a later frame, dropped) and to the ACKs."""
    sim = LinkSim(seed=seed)
    sim.reply(sim.host.identify_request())
    sim.reply(ShuffleRequest(ShuffleMode.SHOE))
    sim.device.tx.faults = sim.device.tx.faults.updated(
        {"duplicate": duplicate, "delay": delay, "delay_s": 0.45, "drop": drop}
    )
    sim.device.rx.faults = sim.device.rx.faults.updated({"drop": drop})
    for _ in range(draws):
        sim.device.draw_card(sim.now)
        sim.advance(sim.now + 0.05)
    sim.advance(sim.now + 6.0)
    cards = [e.message for e in sim.of_type(DeviceEvent) if isinstance(e.message, CardEvent)]
    assert [c.index for c in cards] == list(range(1, draws + 1))
    assert [c.card for c in cards] == [c for c in sim.machine.out]
    assert not sim.of_type(ProtocolViolation)


def test_emulator_reboot_then_first_card_is_delivered_and_numbered_from_one():
    sim = LinkSim(seed=3)
    sim.reply(sim.host.identify_request())
    sim.reply(ShuffleRequest(ShuffleMode.SHOE))
    for _ in range(3):
        sim.device.draw_card(sim.now)
    sim.advance(sim.now + 1.0)
    sim.machine = ShufflerMachine(1)
    sim.device = DeviceFirmware(sim.machine)  # power cycle: event SEQ starts at 1 again
    identity = sim.reply(sim.host.identify_request())
    assert isinstance(identity, IdentifyReply)
    sim.reply(ShuffleRequest(ShuffleMode.SHOE))
    sim.device.draw_card(sim.now)
    sim.advance(sim.now + 1.0)
    cards = [e.message for e in sim.of_type(DeviceEvent) if isinstance(e.message, CardEvent)]
    assert [c.index for c in cards] == [1, 2, 3, 1]
    assert cards[-1].card == sim.machine.out[0]


def test_request_sequence_wraps_past_255_without_a_double_deal():
    sim = LinkSim(seed=5)
    sim.reply(sim.host.identify_request())
    answered, left_machine = 0, 0
    for n in range(300):
        if n % 20 == 0:
            left_machine += len(sim.machine.out)
            sim.reply(ShuffleRequest())
        if n % 7 == 0:
            sim.device.tx.faults = sim.device.tx.faults.updated({"drop": 1})  # lost reply
        answered += sim.reply(DealRequest(2, n % 8)).count
    left_machine += len(sim.machine.out)
    assert sim.host._seq == 1 + 15 + 300 - 255  # 316 requests: the request SEQ wrapped
    assert answered == left_machine == 600  # every retransmitted DEAL answered from memory


def test_link_down_dumps_the_recent_frames(caplog):
    sim = LinkSim(seed=9)
    sim.reply(sim.host.identify_request())
    sim.cable = False
    with caplog.at_level(logging.ERROR, logger="firmware_bridge.session"):
        sim.advance(sim.now + 5.0)
    dump = [r for r in caplog.records if "the last" in r.getMessage()]
    assert dump, caplog.text
    text = dump[0].getMessage()
    assert "down (no frame from the shuffler" in text
    assert "type=0x10" in text and "type=0x90" in text  # the IDENTIFY and its reply
    assert len(sim.host.recent_frames) <= 2 * RING_FRAMES


@pytest.mark.integration
def test_the_real_daemon_reidentifies_a_rebooted_shuffler_and_deals_again(sim_table):
    """croupierd against the emulator on a pty: the shuffler restarts under an open table (no
    link-down: it answers PONG with a new boot_id at once). The table re-identifies it (a new
    session; events resume), reopens and plays a round."""
    table = sim_table
    table.emulate("reboot")
    faults = table.wait_until(lambda: table.journal("shuffler-fault"), "the reboot noticed")
    assert "restarted" in faults[-1]["description"]
    table.wait_for_state("open")
    table.io.place_stake(2)
    table.wait_until(lambda: table.status()["seats"]["2"]["stake"], "stake sensed")
    table.tap("lock")
    table.wait_for_state("verified")
