"""A link exchange as the evidence bundle keeps it: each frame's fields read by the framing
codec from its exact bytes, both clocks, and the per-round cap (docs/evidence.md)."""

from __future__ import annotations

import pytest

from controller.table.link_evidence import MAX_ROUND_FRAMES, capped, exchange_entry, frame_entry
from firmware_bridge.framing import crc16, encode_frame
from firmware_bridge.messages import DealReply, DealRequest, DealtCard
from firmware_bridge.session import WireFrame

REPLY = DealReply(0, 4, 2, (DealtCard(12), DealtCard(40, True)))


def test_a_frame_entry_states_what_its_bytes_say():
    raw = encode_frame(77, DealReply.TYPE, REPLY.encode())
    entry = frame_entry(WireFrame(12.5, "rx", raw), 1_000.0)
    assert entry == {
        "dir": "rx",
        "raw": raw.hex(),
        "seq": 77,
        "type": "0x94",
        "crc": f"0x{crc16(raw[1:-2]):04x}",
        "at": 12.5,
        "wall": 1_012.5,
    }


@pytest.mark.parametrize("raw", [b"", b"\xa5\x00\x01", encode_frame(1, 0x14) + b"\x00"])
def test_bytes_that_are_not_one_frame_are_refused(raw):
    with pytest.raises(ValueError, match="not one intact frame"):
        frame_entry(WireFrame(0.0, "rx", raw), 0.0)


def test_an_exchange_arrives_with_its_last_received_frame():
    frames = (
        WireFrame(1.0, "tx", encode_frame(3, DealRequest.TYPE, DealRequest(2, 4).encode())),
        WireFrame(1.2, "rx", encode_frame(3, 0x01)),
        WireFrame(1.5, "rx", encode_frame(3, DealReply.TYPE, REPLY.encode())),
    )
    entry = exchange_entry("deal", "T-1", REPLY, frames, 100.0)
    assert (entry["at"], entry["wall"], entry["payload"]) == (1.5, 101.5, REPLY.encode().hex())
    assert [f["seq"] for f in entry["frames"]] == [3, 3, 3]


def test_a_round_keeps_at_most_the_cap_oldest_first():
    frame = frame_entry(WireFrame(0.0, "tx", encode_frame(1, 0x14, b"\x01\x00")), 0.0)
    exchanges = [{"frames": [frame] * 100} for _ in range(3)]
    assert capped(exchanges) == 300 - MAX_ROUND_FRAMES
    assert [len(e["frames"]) for e in exchanges] == [100, 100, MAX_ROUND_FRAMES - 200]
    assert capped(exchanges, limit=50) == MAX_ROUND_FRAMES - 50
    assert [len(e["frames"]) for e in exchanges] == [50, 0, 0]
