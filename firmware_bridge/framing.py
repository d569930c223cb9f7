"""Frame codec of the shuffler link: bytes in, frames out, and back (docs/protocol.md sec. 1).

Theory of operation. A frame is ``SOF LEN SEQ TYPE HCHK PAYLOAD CRC16``. The decoder keeps
at most one maximum frame of unparsed bytes. It looks for ``SOF``; with the 5 header bytes
it checks ``LEN`` and the header check byte, so a stray ``SOF`` in garbage is usually rejected
before any payload is awaited; with the whole frame it checks the CRC. Any failure discards
exactly **one** byte (the ``SOF``) and rescans, so an intact frame hidden behind a corrupted
one (even inside the span a corrupted ``LEN`` claimed) is still found, as in Klipper's
``msgproto``. A partial frame that the line never completes (a sender never pauses inside a
frame) is given up by :meth:`FrameDecoder.idle`, which the I/O layer calls after the idle gap.

Wire input never raises: each frame is a :class:`Frame`, each run of discarded bytes a
:class:`Garbage` event with the reason, and :class:`CodecStats` counts both. Constants are
defined here once for the host and the device (emulator) sides.
"""

from __future__ import annotations

from binascii import crc_hqx
from dataclasses import dataclass, field
from typing import Final

from firmware_bridge.errors import LocalProtocolError

SOF: Final = 0xA5
MAX_PAYLOAD: Final = 240
HEADER_LEN: Final = 5  # SOF LEN SEQ TYPE HCHK
CRC_LEN: Final = 2
OVERHEAD: Final = HEADER_LEN + CRC_LEN
MAX_FRAME: Final = OVERHEAD + MAX_PAYLOAD
CRC_INIT: Final = 0xFFFF
IDLE_GAP: Final = 0.05  # seconds of silence after which a partial frame is given up
_SOF_BYTE: Final = bytes([SOF])


def crc16(data: bytes | bytearray | memoryview, crc: int = CRC_INIT) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final XOR)."""
    return crc_hqx(data, crc)


def header_check(length: int, seq: int, msg_type: int) -> int:
    return crc_hqx(bytes((length, seq, msg_type)), CRC_INIT) & 0xFF


@dataclass(frozen=True, slots=True)
class Frame:
    """One intact frame: sequence number, message type and raw payload; ``raw`` is the whole
    frame exactly as it crossed the wire (SOF to CRC), for evidence (not compared)."""

    seq: int
    type: int
    payload: bytes = b""
    raw: bytes = field(default=b"", compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Garbage:
    """Bytes the decoder discarded, and why (``noise``, ``header``, ``crc``, ``truncated``)."""

    nbytes: int
    reason: str


FrameEvent = Frame | Garbage


@dataclass(slots=True)
class CodecStats:
    frames: int = 0
    bytes_discarded: int = 0
    header_errors: int = 0
    crc_errors: int = 0
    truncated: int = 0


def encode_frame(seq: int, msg_type: int, payload: bytes = b"") -> bytes:
    """The wire bytes of one frame. Raises :class:`LocalProtocolError` for a field out of
    range or a payload over :data:`MAX_PAYLOAD` bytes."""
    if not 0 <= seq <= 0xFF or not 0 <= msg_type <= 0xFF:
        raise LocalProtocolError(f"frame seq {seq} / type {msg_type} must be 0..255")
    n = len(payload)
    if n > MAX_PAYLOAD:
        raise LocalProtocolError(f"payload of {n} bytes exceeds the {MAX_PAYLOAD}-byte limit")
    body = bytes((n, seq, msg_type, header_check(n, seq, msg_type))) + payload
    crc = crc16(body)
    return _SOF_BYTE + body + bytes((crc >> 8, crc & 0xFF))


class FrameDecoder:
    """Incremental decoder. ``feed(data)`` returns the events the new bytes completed.

    Memory: after every call fewer than :data:`MAX_FRAME` bytes stay buffered.
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self._noise = 0  # discarded bytes not yet reported
        self._noise_reason = "noise"
        self.stats = CodecStats()

    @property
    def buffered(self) -> int:
        return len(self._buf)

    def feed(self, data: bytes | bytearray | memoryview) -> list[FrameEvent]:
        self._buf += data
        events: list[FrameEvent] = []
        self._parse(events, give_up_partial=False)
        return events

    def idle(self) -> list[FrameEvent]:
        """The line has been quiet for :data:`IDLE_GAP`: a pending partial frame can never
        complete, so discard its start and recover whatever frames follow it."""
        events: list[FrameEvent] = []
        self._parse(events, give_up_partial=True)
        return events

    def _discard(self, n: int, reason: str, events: list[FrameEvent]) -> None:
        del self._buf[:n]
        if self._noise and reason != self._noise_reason:
            self._flush_noise(events)
        self._noise += n
        self._noise_reason = reason
        self.stats.bytes_discarded += n

    def _flush_noise(self, events: list[FrameEvent]) -> None:
        if self._noise:
            events.append(Garbage(self._noise, self._noise_reason))
            self._noise = 0

    def _parse(self, events: list[FrameEvent], give_up_partial: bool) -> None:
        buf = self._buf
        stats = self.stats
        while buf:
            start = buf.find(_SOF_BYTE)
            if start != 0:
                self._discard(len(buf) if start < 0 else start, "noise", events)
                continue
            if len(buf) >= HEADER_LEN:
                n, seq, msg_type, check = buf[1], buf[2], buf[3], buf[4]
                if n > MAX_PAYLOAD or check != header_check(n, seq, msg_type):
                    stats.header_errors += 1
                    self._discard(1, "header", events)
                    continue
                end = OVERHEAD + n
                if len(buf) >= end:
                    crc = (buf[end - 2] << 8) | buf[end - 1]
                    if crc16(memoryview(buf)[1 : end - 2]) != crc:
                        stats.crc_errors += 1
                        self._discard(1, "crc", events)
                        continue
                    self._flush_noise(events)
                    raw = bytes(buf[:end])
                    events.append(Frame(seq, msg_type, raw[HEADER_LEN : end - 2], raw))
                    stats.frames += 1
                    del buf[:end]
                    continue
            if not give_up_partial:
                break
            stats.truncated += 1
            self._discard(1, "truncated", events)
        if give_up_partial or not buf:
            self._flush_noise(events)
