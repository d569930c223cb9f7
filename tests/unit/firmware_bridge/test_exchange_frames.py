"""Every frame of a request's exchange is kept with it, exact bytes and time (the raw deal
frames of the evidence bundle, docs/evidence.md): the request and its retransmissions, the
device's ACK and reply; never a PING, an event or the garbage around a frame."""

from __future__ import annotations

from firmware_bridge.codes import ErrorCode
from firmware_bridge.framing import FrameDecoder, encode_frame
from firmware_bridge.messages import (
    Ack,
    DealReply,
    DealRequest,
    DealtCard,
    FaultEvent,
)
from firmware_bridge.session import (
    EXCHANGE_FRAMES,
    Completed,
    Failed,
    HostSession,
    LinkTiming,
    WireFrame,
)

TIMING = LinkTiming(
    rto_initial=0.2, heartbeat_interval=100.0, link_timeout=1000.0, ceilings={DealRequest.TYPE: 1e3}
)


def connected() -> HostSession:
    session = HostSession(TIMING, nonce=1)
    session.connection_made(0.0)
    session.data_to_send()  # the probing PING
    return session


def outcome(session: HostSession) -> Completed | Failed:
    while (ev := session.next_event()) is not None:
        if isinstance(ev, Completed | Failed):
            return ev
    raise AssertionError("the request is not done")


def test_a_deal_keeps_its_request_retransmission_ack_and_reply_exactly():
    session = connected()
    session.submit(DealRequest(2, 3), 0.01)
    request = session.data_to_send()
    session.poll(0.5)  # no answer within the RTO: the same bytes again
    again = session.data_to_send()
    assert again == request
    ack = encode_frame(1, Ack.TYPE)
    event = encode_frame(1, FaultEvent.TYPE, FaultEvent(ErrorCode.JAM, True, "").encode())
    reply_payload = DealReply(0, 3, 2, (DealtCard(5), DealtCard(50, True))).encode()
    reply = encode_frame(1, DealReply.TYPE, reply_payload)
    session.receive_data(b"\x00\x13" + ack, 0.6)  # noise before the ACK
    session.receive_data(event, 0.65)  # the device's own event, numbered in its own space
    session.receive_data(reply, 0.7)
    done = outcome(session)
    assert isinstance(done, Completed)
    assert done.frames == (
        WireFrame(0.01, "tx", request),
        WireFrame(0.5, "tx", again),
        WireFrame(0.6, "rx", ack),
        WireFrame(0.7, "rx", reply),
    )
    (decoded,) = FrameDecoder().feed(done.frames[-1].raw)
    assert decoded.payload == reply_payload == done.reply.encode()


def test_a_stale_reply_to_another_request_is_not_kept():
    session = connected()
    session.submit(DealRequest(1, 0), 0.0)
    session.data_to_send()
    stale = encode_frame(9, DealReply.TYPE, DealReply(0, 0, 1, (DealtCard(1),)).encode())
    session.receive_data(stale, 0.05)
    reply = encode_frame(1, DealReply.TYPE, DealReply(0, 0, 1, (DealtCard(2),)).encode())
    session.receive_data(reply, 0.1)
    done = outcome(session)
    assert [f.raw for f in done.frames if f.direction == "rx"] == [reply]


def test_a_request_keeps_at_most_exchange_frames():
    session = connected()
    session.submit(DealRequest(1, 0), 0.0)
    session.data_to_send()
    session.receive_data(encode_frame(1, Ack.TYPE), 0.01)
    now = 0.01
    for _ in range(EXCHANGE_FRAMES + 5):  # a slow packet polled every poll_interval
        now += TIMING.poll_interval
        session.poll(now)
        session.receive_data(encode_frame(1, Ack.TYPE), now)
    session.receive_data(encode_frame(1, DealReply.TYPE, DealReply(0, 0, 1, ()).encode()), now)
    done = outcome(session)
    assert len(done.frames) == EXCHANGE_FRAMES
    assert done.frames[0].direction == "tx" and done.frames[1].raw == encode_frame(1, Ack.TYPE)
