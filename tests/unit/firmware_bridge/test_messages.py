"""Message set (docs/protocol.md sec. 3-4): round trips for every message, field validation."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge import messages as m
from firmware_bridge.codes import ErrorCode, NakCode
from firmware_bridge.errors import MessageError

text = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=m.MAX_STR)
card = st.integers(0, 51) | st.none()
dealt = st.builds(m.DealtCard, card, st.booleans())


@st.composite
def deck_reports(draw):
    decks = draw(st.integers(1, 8))
    cards = draw(st.lists(st.integers(0, 51), unique=True, max_size=20))
    split = draw(st.integers(0, len(cards)))
    missing = tuple((c, draw(st.integers(1, decks))) for c in cards[:split])
    duplicate = tuple((c, draw(st.integers(1, 5))) for c in cards[split:])
    foreign = draw(st.integers(0, 10))
    counted = 52 * decks - sum(t for _, t in missing) + sum(t for _, t in duplicate) + foreign
    return m.DeckCheckReply(52 * decks, counted, foreign, missing, duplicate)


@st.composite
def identities(draw):
    max_decks = draw(st.integers(1, 8))
    return m.IdentifyReply(
        1,
        draw(st.integers(0, 7)),
        max_decks,
        draw(st.integers(1, max_decks)),
        draw(st.integers(0, 2**32 - 1)),
        draw(st.binary(min_size=32, max_size=32)),
        draw(text),
        draw(text),
        draw(text),
    )


@st.composite
def statuses(draw):
    loaded = draw(st.integers(0, 416))
    return m.StatusReply(
        draw(st.sampled_from(m.DeviceState)),
        draw(st.integers(0, 1)),
        draw(st.sampled_from(ErrorCode)),
        loaded,
        draw(st.integers(0, loaded)),
        draw(st.integers(0, 0xFFFF)),
    )


STRATEGIES = {
    m.Ack: st.just(m.Ack()),
    m.Nak: st.builds(m.Nak, st.sampled_from(NakCode)),
    m.Ping: st.just(m.Ping()),
    m.Pong: st.builds(m.Pong, st.integers(0, 2**32 - 1), st.sampled_from(m.DeviceState)),
    m.IdentifyRequest: st.builds(m.IdentifyRequest, st.integers(0, 255), st.integers(0, 2**32 - 1)),
    m.IdentifyReply: identities(),
    m.StatusRequest: st.just(m.StatusRequest()),
    m.StatusReply: statuses(),
    m.DeckCheckRequest: st.just(m.DeckCheckRequest()),
    m.DeckCheckReply: deck_reports(),
    m.ShuffleRequest: st.builds(m.ShuffleRequest, st.sampled_from(m.ShuffleMode)),
    m.ShuffleReply: st.builds(m.ShuffleReply, st.integers(0, 416), st.sampled_from(m.ShuffleMode)),
    m.DealRequest: st.builds(m.DealRequest, st.integers(1, 52), st.integers(0, 255)),
    m.DealReply: st.builds(
        m.DealReply,
        st.sampled_from(ErrorCode),
        st.integers(0, 255),
        st.integers(1, 52),
        st.lists(dealt, max_size=64).map(tuple),
    ),
    m.ReinsertRequest: st.builds(
        m.ReinsertRequest, st.lists(card, min_size=1, max_size=16).map(tuple)
    ),
    m.ReinsertReply: st.builds(m.ReinsertReply, st.integers(0, 16), st.integers(0, 416)),
    m.ResetRequest: st.builds(m.ResetRequest, st.integers(0, 1)),
    m.ResetReply: st.builds(m.ResetReply, st.sampled_from(m.DeviceState)),
    m.ErrorReply: st.builds(m.ErrorReply, st.sampled_from(list(ErrorCode)[1:]), text),
    m.FaultEvent: st.builds(
        m.FaultEvent, st.sampled_from(list(ErrorCode)[1:]), st.integers(0, 1), text
    ),
    m.CardEvent: st.builds(m.CardEvent, st.integers(1, 416), card, st.integers(0, 1)),
}


def test_every_message_has_a_strategy_and_a_unique_type():
    assert set(STRATEGIES) == set(m.ALL_MESSAGES)
    assert len(m.BY_TYPE) == len(m.ALL_MESSAGES)
    assert all(m.REPLY_OF[r.TYPE] in m.BY_TYPE for r in m.REQUESTS)


@pytest.mark.parametrize("cls", m.ALL_MESSAGES, ids=lambda c: c.__name__)
@given(data=st.data())
def test_round_trip(cls, data):
    msg = data.draw(STRATEGIES[cls])
    payload = msg.encode()
    assert len(payload) <= 240  # fits one frame
    assert m.decode_message(cls.TYPE, payload) == msg


@pytest.mark.parametrize("cls", m.ALL_MESSAGES, ids=lambda c: c.__name__)
@given(data=st.data())
def test_truncated_or_padded_payload_is_a_message_error(cls, data):
    payload = data.draw(STRATEGIES[cls]).encode()
    with pytest.raises(MessageError):
        m.decode_message(cls.TYPE, payload + b"\x00")
    if payload:
        with pytest.raises(MessageError):
            m.decode_message(cls.TYPE, payload[: data.draw(st.integers(0, len(payload) - 1))])


@given(st.integers(0, 255), st.binary(max_size=240))
def test_arbitrary_payload_only_ever_raises_message_error(msg_type, payload):
    try:
        msg = m.decode_message(msg_type, payload)
    except MessageError:
        return
    assert msg.encode() == payload  # whatever decodes re-encodes to the same bytes


@pytest.mark.parametrize(
    ("msg_type", "payload", "why"),
    [
        (0x94, bytes([0, 1, 2, 1, 52, 0]), "not a card code"),
        (0x94, bytes([0, 1, 2, 1, 3, 2]), "reserved card flag"),
        (0x94, bytes([99, 1, 2, 0]), "not a ErrorCode"),
        (0x14, bytes([0, 1]), "count=0"),
        (0x14, bytes([53, 1]), "count=53"),
        (0x91, bytes([9, 0, 0, 0, 52, 0, 52, 0, 0]), "state=9"),
        (0x91, bytes([1, 0, 0, 0, 10, 0, 52, 0, 0]), "cards_ready exceeds"),
        (0x92, bytes([0, 52, 0, 51, 0, 0, 0]), "counted=51 disagrees"),
        (0x7F, bytes([1, 2, 0x41, 0x07]), "printable"),
        (0x55, b"", "unknown message type"),
    ],
)
def test_invalid_fields_are_named(msg_type, payload, why):
    with pytest.raises(MessageError, match=why):
        m.decode_message(msg_type, payload)


def test_deck_report_helpers():
    ok = m.DeckCheckReply(52, 52, 0)
    bad = m.DeckCheckReply(52, 51, 0, missing=((22, 1),))
    assert ok.is_ok and not bad.is_ok
    reply = m.DealReply(0, 1, 2, (m.DealtCard(51, True), m.DealtCard(None)))
    assert reply.count == 2 and reply.face_up == 1
