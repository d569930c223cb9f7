"""Host session against the reference firmware on a fake clock, under every injected fault
(docs/protocol.md sec. 2). No sleeps: the clock jumps from deadline to deadline."""

from __future__ import annotations

import itertools

import pytest
from linksim import LinkSim

from firmware_bridge.codes import ErrorCode, NakCode
from firmware_bridge.emulator.firmware import DeviceFirmware
from firmware_bridge.emulator.machine import MachineTiming, ShufflerMachine
from firmware_bridge.errors import DeviceError, LinkDown, LinkTimeout, Rejected
from firmware_bridge.framing import encode_frame
from firmware_bridge.messages import (
    CardEvent,
    DealReply,
    DealRequest,
    DeckCheckRequest,
    FaultEvent,
    ReinsertRequest,
    ResetRequest,
    ShuffleMode,
    ShuffleRequest,
    StatusRequest,
)
from firmware_bridge.session import (
    DeviceEvent,
    DeviceRebooted,
    Failed,
    LinkDownEvent,
    LinkTiming,
    LinkUp,
)

MECHANICAL = MachineTiming(per_card=0.1, shuffle=2.0)


def ready(**kw) -> LinkSim:
    sim = LinkSim(**kw)
    sim.reply(sim.host.identify_request())
    sim.reply(ShuffleRequest())
    return sim


def device_events(sim: LinkSim, cls: type) -> list:
    return [e.message for e in sim.of_type(DeviceEvent) if isinstance(e.message, cls)]


def test_uth_deal_order_delivers_distinct_cards():
    """UTH-11 shuffler order: community 5, then 2 per seat, then dealer 2."""
    sim = ready()
    packets = [sim.reply(DealRequest(n, tag)) for n, tag in [(5, 0), (2, 1), (2, 2), (2, 7)]]
    cards = [c.card for p in packets for c in p.cards]
    assert [p.count for p in packets] == [5, 2, 2, 2] and [p.tag for p in packets] == [0, 1, 2, 7]
    assert len(set(cards)) == 11 and None not in cards
    assert sim.machine.packets == 4
    assert sim.host.stats["retransmits"] == 0


def test_lost_reply_is_answered_from_memory_never_dealt_twice():
    sim = ready()
    sim.device.tx.faults = sim.device.tx.faults.updated({"drop": 1})
    reply = sim.reply(DealRequest(2, 3))
    assert reply.count == 2
    assert sim.machine.packets == 1 and len(sim.machine.out) == 2
    assert sim.device.stats["retransmissions_answered"] == 1
    assert sim.host.stats["retransmits"] == 1


def test_lost_ack_and_lost_reply_of_a_mechanical_deal():
    """Protocol diagram 5.7: the ACK is lost, then the reply; 2 cards leave once."""
    sim = ready(timing=MECHANICAL)
    sim.device.tx.faults = sim.device.tx.faults.updated({"drop": 1})  # the ACK
    handle = sim.host.submit(DealRequest(2, 1), sim.now)
    sim.pump()
    sim.run(lambda: sim.host._in_flight is not None and sim.host._in_flight.acked)
    sim.device.tx.faults = sim.device.tx.faults.updated({"drop": 1})  # the DEAL reply
    sim.run(lambda: any(getattr(e, "handle", None) == handle for e in sim.events))
    done = sim.events[-1]
    assert isinstance(done.reply, DealReply) and done.reply.count == 2
    assert sim.machine.packets == 1 and len(sim.machine.out) == 2
    assert sim.device.stats["retransmissions_answered"] >= 2


@pytest.mark.parametrize(
    ("side", "fault"),
    [
        ("rx", "drop"),
        ("rx", "corrupt"),
        ("rx", "duplicate"),
        ("rx", "reorder"),
        ("tx", "corrupt"),
        ("tx", "duplicate"),
        ("tx", "reorder"),
    ],
)
def test_single_frame_faults_are_recovered_without_double_deal(side, fault):
    sim = ready()
    line = getattr(sim.device, side)
    line.faults = line.faults.updated({fault: 1})
    first = sim.reply(DealRequest(2, 1))
    second = sim.reply(DealRequest(3, 2))
    assert (first.count, second.count) == (2, 3)
    assert sim.machine.packets == 2 and len(sim.machine.out) == 5
    assert line.stats[fault] == 1


def test_corrupt_request_triggers_fast_retransmit_before_rto():
    sim = ready()
    sim.device.rx.faults = sim.device.rx.faults.updated({"corrupt": 1})
    start = sim.now
    sim.reply(DealRequest(2, 1))
    assert sim.now - start < sim.host.rtt.rto  # NAK CORRUPT, not the timeout, resent it


def test_delayed_reply_past_rto_leaves_one_stale_duplicate():
    sim = ready()
    sim.device.tx.faults = sim.device.tx.faults.updated({"delay": 1, "delay_s": 0.6})
    assert sim.reply(DealRequest(2, 1)).count == 2
    sim.advance(sim.now + 1.0)
    assert sim.host.stats["stale_replies"] == 1
    assert sim.machine.packets == 1


def test_random_loss_and_corruption_soak():
    sim = ready(seed=7)
    for side in ("rx", "tx"):
        line = getattr(sim.device, side)
        line.faults = line.faults.updated({"drop_rate": 0.15, "corrupt_rate": 0.1})
    total = 0
    for _ in range(4):
        total += sum(sim.reply(DealRequest(n, 1)).count for n in (5, 2, 2, 2))
        sim.reply(ShuffleRequest())
    assert total == 44
    assert sim.machine.packets == 0 and sim.device.stats["requests"] == 4 * 5 + 2


def test_retry_budget_with_doubling_rto_then_link_timeout():
    sim = ready(link=LinkTiming(link_timeout=10.0))
    sim.device.rx.faults = sim.device.rx.faults.updated({"drop": 99})
    sim.sent_by_host.clear()
    start = sim.now
    outcome = sim.request(StatusRequest())
    assert isinstance(outcome, Failed) and isinstance(outcome.error, LinkTimeout)
    sends = [t - start for t, raw in sim.sent_by_host if raw[3] == StatusRequest.TYPE]
    assert len(sends) == 7  # first try + 6 retransmissions
    gaps = [b - a for a, b in itertools.pairwise(sends)]
    assert all(b >= a for a, b in itertools.pairwise(gaps))  # doubling...
    assert max(gaps) == pytest.approx(sim.host.timing.rto_ceiling)  # ...up to the ceiling
    assert min(gaps) >= sim.host.timing.rto_floor


def test_silence_takes_the_link_down_and_a_frame_brings_it_up():
    sim = ready(timing=MECHANICAL)
    sim.cable = False
    handle = sim.host.submit(ShuffleRequest(), sim.now)
    sim.run(lambda: bool(sim.of_type(LinkDownEvent)))
    assert sim.now == pytest.approx(sim.host._last_rx + 3.0)
    failed = [e for e in sim.of_type(Failed) if e.handle == handle]
    assert isinstance(failed[0].error, LinkTimeout | LinkDown)
    refused = sim.request(StatusRequest())
    assert isinstance(refused.error, LinkDown)  # while down, fail at once
    sim.cable = True
    ups = len(sim.of_type(LinkUp))
    sim.run(lambda: len(sim.of_type(LinkUp)) > ups, limit=2.0)  # next PING answered
    assert sim.reply(StatusRequest()).state == 1


def test_heartbeat_keeps_an_idle_link_up():
    sim = ready()
    sim.advance(sim.now + 30.0)
    assert not sim.of_type(LinkDownEvent) and sim.host.link_up


def test_jam_during_a_deal():
    """Protocol diagram 5.6: partial packet with status JAM, FAULT event, FAULT_ACTIVE, RESET."""
    sim = ready(timing=MECHANICAL)
    sim.machine.faults = sim.machine.faults.updated({"jam_at_packet": 2})
    assert sim.reply(DealRequest(5, 0)).status == ErrorCode.OK
    jammed = sim.reply(DealRequest(2, 3))
    assert jammed.status == ErrorCode.JAM and jammed.count == 1
    faults = device_events(sim, FaultEvent)
    assert [(f.code, f.active) for f in faults] == [(ErrorCode.JAM, 1)]
    with pytest.raises(DeviceError, match="FAULT_ACTIVE"):
        sim.reply(DealRequest(2, 4))
    sim.reply(ResetRequest(0))
    sim.advance(sim.now + 0.1)
    assert [(f.code, f.active) for f in device_events(sim, FaultEvent)][-1] == (ErrorCode.JAM, 0)


def test_wrong_count_and_exposed_cards_show_in_the_packet():
    sim = ready()
    sim.machine.faults = sim.machine.faults.updated(
        {"wrong_count_at_packet": 1, "exposed_at_packet": 2, "exposed_cards": 2}
    )
    assert sim.reply(DealRequest(2, 1)).count == 3  # MD-S1 for the validator
    assert sim.reply(DealRequest(2, 2)).face_up == 2  # MD-S3


def test_event_whose_ack_is_lost_is_retransmitted_and_delivered_once():
    sim = ready()
    sim.device.rx.faults = sim.device.rx.faults.updated({"drop": 1})  # the host's ACK
    sim.device.raise_fault(ErrorCode.MISFEED, "card did not feed", sim.now)
    sim.advance(sim.now + 2.0)
    assert [f.code for f in device_events(sim, FaultEvent)] == [ErrorCode.MISFEED]
    assert sim.host.stats["duplicate_events"] == 1
    assert sim.device._in_flight is None


@pytest.mark.parametrize(
    "code",
    [ErrorCode.JAM, ErrorCode.MISFEED, ErrorCode.DECK_ERROR, ErrorCode.SENSOR_FAILURE],
)
def test_async_faults_reach_the_host_and_block_deals(code):
    sim = ready()
    sim.device.raise_fault(code, "injected", sim.now)
    sim.advance(sim.now + 0.1)
    assert device_events(sim, FaultEvent)[-1].code == code
    assert sim.reply(StatusRequest()).fault == code
    with pytest.raises(DeviceError, match="FAULT_ACTIVE"):
        sim.reply(DealRequest(2, 1))


def test_door_open_and_close():
    sim = ready()
    sim.device.set_door(True, sim.now)
    sim.advance(sim.now + 0.1)
    with pytest.raises(DeviceError, match="DOOR_OPEN"):
        sim.reply(DealRequest(2, 1))
    sim.device.set_door(False, sim.now)
    sim.advance(sim.now + 0.1)
    assert [f.active for f in device_events(sim, FaultEvent)] == [1, 0]
    assert sim.reply(DealRequest(2, 1)).count == 2


def test_shoe_mode_sends_one_card_event_per_draw_in_order():
    sim = LinkSim()
    sim.reply(sim.host.identify_request())
    sim.reply(ShuffleRequest(ShuffleMode.SHOE))
    sim.device.tx.faults = sim.device.tx.faults.updated({"drop": 1})
    for _ in range(5):
        sim.device.draw_card(sim.now)
    sim.advance(sim.now + 3.0)
    cards = device_events(sim, CardEvent)
    assert [c.index for c in cards] == [1, 2, 3, 4, 5]
    assert len({c.card for c in cards}) == 5
    with pytest.raises(DeviceError, match="WRONG_MODE"):
        sim.reply(DealRequest(2, 1))


def test_reinsert_exposed_card_and_deal_replacement():
    """MD-X3: the exposed card goes back into the remaining stack."""
    sim = ready()
    sim.reply(DealRequest(5, 0))
    dealer = sim.reply(DealRequest(2, 7))
    exposed = dealer.cards[0].card
    back = sim.reply(ReinsertRequest((exposed,)))
    assert back.accepted == 1 and back.cards_ready == 52 - 7 + 1
    replacement = sim.reply(DealRequest(1, 7))
    assert replacement.count == 1
    with pytest.raises(DeviceError, match="BAD_ARGUMENT"):
        sim.reply(ReinsertRequest((exposed,) if exposed not in sim.machine.out else (None,) * 9))


def test_reinsert_wrongly_exposed_community_cards_and_deal_them_again():
    """MD-X2: community cards (tag 0) go back over the link like the dealer's, whatever
    packet they left in, and the replacements are dealt to tag 0."""
    sim = ready()
    board = sim.reply(DealRequest(5, 0))
    sim.reply(DealRequest(2, 1))
    sim.reply(DealRequest(2, 15))
    turn_river = tuple(c.card for c in board.cards[3:])
    back = sim.reply(ReinsertRequest(turn_river))
    assert back.accepted == 2 and back.cards_ready == 52 - 9 + 2
    replacement = sim.reply(DealRequest(2, 0))
    assert replacement.tag == 0 and replacement.count == 2
    kept = [c.card for c in board.cards[:3]]
    assert sim.machine.out[:3] == kept and sim.machine.out[-2:] == [
        c.card for c in replacement.cards
    ]


def test_deck_check_reports_missing_duplicate_and_foreign():
    sim = LinkSim(decks=2)
    sim.reply(sim.host.identify_request())
    sim.machine.tamper_deck(remove=(22,), duplicate=(51,), foreign=1)
    report = sim.reply(DeckCheckRequest())
    assert (report.expected, report.counted, report.foreign) == (104, 105, 1)
    assert report.missing == ((22, 1),) and report.duplicate == ((51, 1),)


def test_device_restart_is_detected_and_no_session_is_reported():
    sim = ready()
    sim.device = DeviceFirmware(ShufflerMachine(1))  # power cycle: memory and session gone
    with pytest.raises(Rejected, match="NO_SESSION"):
        sim.reply(DealRequest(2, 1))
    sim.advance(sim.now + 1.5)  # a heartbeat PONG carries the new boot_id
    assert sim.of_type(DeviceRebooted)


def test_reconnect_with_same_nonce_keeps_duplicate_memory():
    sim = ready(timing=MECHANICAL)
    sim.device.tx.faults = sim.device.tx.faults.updated({"drop": 99})
    handle = sim.host.submit(DealRequest(2, 1), sim.now)
    sim.advance(sim.now + 0.05)  # the device dealt; nothing comes back
    sim.host.connection_lost(sim.now, "unplugged")
    sim.pump()
    assert [e for e in sim.of_type(Failed) if e.handle == handle]
    sim.device.tx.faults = sim.device.tx.faults.updated({"drop": 0})
    sim.host.connection_made(sim.now)
    sim.reply(sim.host.identify_request())  # same nonce: memory kept
    sim.advance(sim.now + 1.0)  # the deal has finished meanwhile
    deal_seq = sim.host._seq - 1
    retransmission = encode_frame(deal_seq, DealRequest.TYPE, bytes([2, 1]))
    sim.device.data_to_send()
    sim.device.receive_data(retransmission, sim.now)
    assert sim.device.data_to_send()[3] == DealReply.TYPE  # the remembered reply
    assert sim.machine.packets == 1  # not dealt again
    # A host process that restarts has a new nonce: the device forgets, as it must.
    sim.device.receive_data(encode_frame(deal_seq + 5, 0x10, bytes([1, 0, 0, 0, 9])), sim.now)
    sim.device.receive_data(retransmission, sim.now)
    assert sim.machine.packets == 2


def test_busy_and_malformed_requests_are_nakked():
    sim = ready(timing=MECHANICAL)
    sim.host.submit(ShuffleRequest(), sim.now)
    sim.advance(sim.now + 0.01)
    dev = sim.device
    replies = []
    for raw in (
        encode_frame(200, DealRequest.TYPE, bytes([2, 1])),  # BUSY
        encode_frame(201, DealRequest.TYPE, bytes([0, 1])),  # count 0: BAD_PAYLOAD
        encode_frame(202, 0x55),  # UNKNOWN_TYPE
    ):
        dev.data_to_send()
        dev.receive_data(raw, sim.now)
        replies.append(dev.data_to_send())
    codes = [r[5] for r in replies]
    assert codes == [NakCode.BUSY, NakCode.BAD_PAYLOAD, NakCode.UNKNOWN_TYPE]


def test_garbage_from_the_device_never_raises_and_is_counted():
    sim = ready()
    sim.host.receive_data(b"\xa5\x05\x00\x00\x00garbage" * 3, sim.now)
    sim.advance(sim.now + 0.1)
    assert sim.host.stats["bad_frames"] >= 1
    assert sim.reply(StatusRequest()).state == 1
