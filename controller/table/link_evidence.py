"""The shuffler link's exchanges as the jackpot evidence bundle keeps them (docs/evidence.md,
"Frames").

One *exchange* is one request to the shuffler and everything that answered it: each frame
(:class:`~firmware_bridge.session.WireFrame`) exactly as it crossed the wire, with its SEQ,
TYPE and CRC as the shared framing codec reads them (never parsed here by hand), its time on
the table's clock (``at``, the event loop's monotonic clock) and on the wall (``wall``, UTC
seconds: ``at`` plus the offset between the two clocks when the exchange was kept). A round
keeps at most :data:`MAX_ROUND_FRAMES` frames; frames over it are counted, not kept.
"""

from __future__ import annotations

from typing import Any

from firmware_bridge.framing import CRC_LEN, Frame, FrameDecoder
from firmware_bridge.messages import Message
from firmware_bridge.session import WireFrame

MAX_ROUND_FRAMES = 256  # a 6-seat UTH deal is 8 exchanges of 2 or 3 frames


def frame_entry(frame: WireFrame, wall_offset: float) -> dict[str, Any]:
    """One frame as a JSON object: ``dir``, ``raw`` (hex), ``seq``, ``type``, ``crc``,
    ``at``, ``wall``. Raises ValueError for bytes that are not one intact frame."""
    decoded = FrameDecoder().feed(frame.raw)
    if len(decoded) != 1 or not isinstance(decoded[0], Frame):
        raise ValueError(f"not one intact frame: {frame.raw.hex()}")
    crc = int.from_bytes(frame.raw[-CRC_LEN:], "big")
    return {
        "dir": frame.direction,
        "raw": frame.raw.hex(),
        "seq": decoded[0].seq,
        "type": f"0x{decoded[0].type:02x}",
        "crc": f"0x{crc:04x}",
        "at": frame.now,
        "wall": frame.now + wall_offset,
    }


def exchange_entry(
    kind: str,
    round_id: str | None,
    reply: Message,
    frames: tuple[WireFrame, ...],
    wall_offset: float,
    text: str | None = None,
) -> dict[str, Any]:
    """One exchange: ``kind`` (``deal``, ``deck-check``), ``round``, the reply's ``type``
    and ``payload`` (hex) and when it arrived (``at``, ``wall``), the deck check's ``text``,
    and its ``frames`` (:func:`frame_entry`), oldest first."""
    arrived = max((f.now for f in frames if f.direction == "rx"), default=None)
    return {
        "kind": kind,
        "round": round_id,
        "at": arrived,
        "wall": None if arrived is None else arrived + wall_offset,
        "type": f"0x{reply.TYPE:02x}",
        "payload": reply.encode().hex(),
        "text": text,
        "frames": [frame_entry(f, wall_offset) for f in frames],
    }


def capped(exchanges: list[dict[str, Any]], limit: int = MAX_ROUND_FRAMES) -> int:
    """Cut the exchanges' frames to ``limit`` in all, oldest kept (in place); returns how
    many frames were dropped."""
    room, dropped = limit, 0
    for exchange in exchanges:
        frames = exchange["frames"]
        kept = frames[: max(room, 0)]
        dropped += len(frames) - len(kept)
        room -= len(kept)
        exchange["frames"] = kept
    return dropped
