"""The device side of the shuffler link (docs/protocol.md), sans-I/O.

Theory of operation. ``receive_data(bytes, now)`` feeds the shared frame codec; every intact
frame passes the ``rx`` fault line, then is handled:

- ``PING`` is answered ``PONG`` at once, busy or not;
- a request is first looked up in the **memory of the last 16 requests** of the session
  (sec. 2.2): a retransmission is answered ``ACK`` while its operation runs and with the
  remembered reply bytes once done, and is never executed twice, so a retransmitted DEAL
  never deals twice; a new mechanical request while an operation runs gets ``NAK BUSY``
  (IDENTIFY and STATUS are answered at any time);
- otherwise the request runs on the :class:`~.machine.ShufflerMachine`. An instant operation
  is answered with its reply; a mechanical one (duration > 0) with ``ACK`` now and the reply
  when ``poll(now)`` reaches its end;
- events (faults, shoe cards) queue in order; one is in flight until the host ACKs it,
  retransmitted with a doubling timeout, never given up. None is sent before the first
  ``IDENTIFY`` of this boot, so the host knows the new ``boot_id`` (and resets its event
  window) before event 1 of the boot arrives (sec. 2.4).

Outgoing frames pass the ``tx`` fault line. The I/O layer calls ``poll(now)`` at
``next_deadline()`` and writes ``data_to_send()``. Nothing here reads a clock or sleeps.
"""

from __future__ import annotations

import logging
import random
from collections import OrderedDict, deque
from dataclasses import dataclass, field

from firmware_bridge.codes import ErrorCode, NakCode
from firmware_bridge.emulator.digest import firmware_digest
from firmware_bridge.emulator.faults import FrameFaultLine, flip_bit
from firmware_bridge.emulator.machine import MachineError, ShufflerMachine
from firmware_bridge.errors import MessageError
from firmware_bridge.framing import IDLE_GAP, Frame, FrameDecoder, Garbage, encode_frame
from firmware_bridge.messages import (
    MAX_DECKS,
    PROTOCOL_VERSION,
    REQUESTS,
    Ack,
    Capability,
    DealRequest,
    DeckCheckRequest,
    ErrorReply,
    FaultEvent,
    IdentifyReply,
    IdentifyRequest,
    Message,
    Nak,
    Ping,
    Pong,
    ReinsertRequest,
    ResetRequest,
    ShuffleRequest,
    StatusRequest,
    UnknownMessageType,
    decode_message,
)

log = logging.getLogger(__name__)

FW_VERSION = "emu-1.0"


@dataclass(frozen=True)
class DeviceIdentity:
    model: str = "CR-EMU shuffler emulator"
    serial: str = "EMU-000001"
    fw_version: str = FW_VERSION
    fw_sha256: bytes = field(default_factory=firmware_digest)
    max_decks: int = MAX_DECKS


@dataclass(frozen=True)
class DeviceTiming:
    event_rto: float = 0.2
    event_rto_ceiling: float = 2.0
    corrupt_nak_interval: float = 0.05  # at most one NAK CORRUPT per interval
    idle_gap: float = IDLE_GAP
    remembered: int = 16
    event_queue: int = 64


@dataclass
class _Remembered:
    type: int
    payload: bytes
    reply: bytes | None  # None while the operation runs


@dataclass
class _Running:
    seq: int
    done_at: float
    reply: bytes
    session: int


@dataclass
class _InFlight:
    seq: int
    frame: bytes
    deadline: float
    rto: float


def _garbled(frame: Frame, rng: random.Random) -> None:
    """rx corruption: the frame arrives with a bad CRC, i.e. as garbage."""


class DeviceFirmware:
    def __init__(
        self,
        machine: ShufflerMachine,
        *,
        identity: DeviceIdentity | None = None,
        timing: DeviceTiming = DeviceTiming(),
        rng: random.Random | None = None,
    ) -> None:
        self.machine = machine
        self.identity = identity or DeviceIdentity()
        self.timing = timing
        rng = rng or random.SystemRandom()
        self.boot_id = rng.getrandbits(32)
        self.decoder = FrameDecoder()
        self.rx: FrameFaultLine[Frame | None] = FrameFaultLine(_garbled, rng)
        self.tx: FrameFaultLine[bytes] = FrameFaultLine(flip_bit, rng)
        self.nonce: int | None = None
        self._session = 0
        self._memory: OrderedDict[int, _Remembered] = OrderedDict()
        self._running: _Running | None = None
        self._events: deque[Message] = deque()
        self._event_seq = 0
        self._in_flight: _InFlight | None = None
        self._out = bytearray()
        self._last_rx = 0.0
        self._last_corrupt_nak = float("-inf")
        self.stats = {
            "requests": 0,
            "retransmissions_answered": 0,
            "naks": 0,
            "events_lost": 0,
            "corrupt": 0,
        }

    # --- I/O side ---------------------------------------------------------------------------

    def receive_data(self, data: bytes, now: float) -> None:
        self._last_rx = now
        self._absorb(self.decoder.feed(data), now)
        self.poll(now)

    def data_to_send(self) -> bytes:
        out = bytes(self._out)
        self._out.clear()
        return out

    def poll(self, now: float) -> None:
        if self.decoder.buffered and now >= self._last_rx + self.timing.idle_gap:
            self._absorb(self.decoder.idle(), now)
        for frame in self.rx.pop_due(now):
            if frame is None:
                self._corrupt_seen(now)
            else:
                self._handle(frame, now)
        run = self._running
        if run is not None and now >= run.done_at:
            self._running = None
            self.machine.busy = False
            if run.session == self._session and run.seq in self._memory:
                self._memory[run.seq].reply = run.reply
            self._send_raw(run.reply, now)
        flight = self._in_flight
        if flight is not None and now >= flight.deadline:
            flight.rto = min(flight.rto * 2, self.timing.event_rto_ceiling)
            self._resend_event(now)
        if self._in_flight is None and self._events and self.nonce is not None:
            self._send_next_event(now)  # events wait for the first IDENTIFY of this boot
        self._out += b"".join(self.tx.pop_due(now))

    def next_deadline(self) -> float | None:
        # called at every wake-up of a simulated line: no lists built
        first: float | None = None
        for t in (
            self.rx.next_deadline(),
            self.tx.next_deadline(),
            self._last_rx + self.timing.idle_gap if self.decoder.buffered else None,
            None if self._running is None else self._running.done_at,
            None if self._in_flight is None else self._in_flight.deadline,
        ):
            if t is not None and (first is None or t < first):
                first = t
        return first

    # --- physical events (fault injection, the dealer) --------------------------------------

    def power_cycle(self, rng: random.Random | None = None) -> None:
        """The device restarts: a new ``boot_id``, no session (every request but IDENTIFY and
        PING is answered NAK NO_SESSION), the request memory, the event queue and its
        numbering gone, the operation in progress and the shuffled stack lost."""
        self.boot_id = (rng or random.SystemRandom()).getrandbits(32)
        self.nonce = None
        self._session += 1
        self._memory.clear()
        self._running = None
        self._events.clear()
        self._event_seq = 0
        self._in_flight = None
        self.decoder = FrameDecoder()
        self.machine.busy = False
        self.machine.fault = ErrorCode.OK
        self.machine.cards_home()

    def raise_fault(self, code: ErrorCode, detail: str, now: float) -> None:
        """An asynchronous fault: the machine stops and the host gets a FAULT event."""
        self.machine.raise_fault(code)
        self.queue_event(FaultEvent(code, 1, detail))
        self.poll(now)

    def set_door(self, is_open: bool, now: float) -> None:
        if self.machine.door_open != is_open:
            self.machine.door_open = is_open
            detail = "door opened" if is_open else "door closed"
            self.queue_event(FaultEvent(ErrorCode.DOOR_OPEN, int(is_open), detail))
            self.poll(now)

    def draw_card(self, now: float) -> None:
        """The dealer draws a card from the shoe: a CARD event. Raises MachineError."""
        self.queue_event(self.machine.draw())
        self.poll(now)

    def queue_event(self, event: Message) -> None:
        if len(self._events) >= self.timing.event_queue:
            self.stats["events_lost"] += 1
            log.error("event queue full, %s lost", event)
            return
        self._events.append(event)

    # --- frames -----------------------------------------------------------------------------

    def _absorb(self, events: list[Frame | Garbage], now: float) -> None:
        for ev in events:
            if isinstance(ev, Frame):
                self.rx.push(ev, now)
            else:
                self._corrupt_seen(now)

    def _corrupt_seen(self, now: float) -> None:
        self.stats["corrupt"] += 1
        if now >= self._last_corrupt_nak + self.timing.corrupt_nak_interval:
            self._last_corrupt_nak = now
            self._send(0, Nak(NakCode.CORRUPT), now)

    def _send(self, seq: int, msg: Message, now: float) -> bytes:
        raw = encode_frame(seq, msg.TYPE, msg.encode())
        self._send_raw(raw, now)
        return raw

    def _send_raw(self, raw: bytes, now: float) -> None:
        self.tx.push(raw, now)
        self._out += b"".join(self.tx.pop_due(now))

    def _nak(self, seq: int, code: NakCode, now: float) -> None:
        self.stats["naks"] += 1
        self._send(seq, Nak(code), now)

    def _handle(self, frame: Frame, now: float) -> None:
        try:
            msg = decode_message(frame.type, frame.payload)
        except UnknownMessageType:
            return self._nak(frame.seq, NakCode.UNKNOWN_TYPE, now)
        except MessageError as exc:
            log.warning("bad payload from host: %s", exc)
            return self._nak(frame.seq, NakCode.BAD_PAYLOAD, now)
        if isinstance(msg, Ping):
            self._send(frame.seq, Pong(self.boot_id, self.machine.state), now)
        elif isinstance(msg, Ack | Nak):
            self._event_answer(frame.seq, msg, now)
        elif isinstance(msg, REQUESTS):
            self._request(frame, msg, now)
        else:
            self._nak(frame.seq, NakCode.UNKNOWN_TYPE, now)

    def _request(self, frame: Frame, msg: Message, now: float) -> None:
        if isinstance(msg, IdentifyRequest) and msg.nonce != self.nonce:
            self.nonce = msg.nonce
            self._session += 1
            self._memory.clear()
        elif self.nonce is None:
            return self._nak(frame.seq, NakCode.NO_SESSION, now)
        known = self._memory.get(frame.seq)
        if known is not None and known.type == frame.type and known.payload == frame.payload:
            self.stats["retransmissions_answered"] += 1
            if known.reply is None:
                self._send(frame.seq, Ack(), now)
            else:
                self._send_raw(known.reply, now)
            return
        if self._running is not None and msg.MECHANICAL:
            return self._nak(frame.seq, NakCode.BUSY, now)
        self.stats["requests"] += 1
        reply, duration = self._execute(msg)
        raw = encode_frame(frame.seq, reply.TYPE, reply.encode())
        self._memory[frame.seq] = _Remembered(frame.type, frame.payload, None)
        self._memory.move_to_end(frame.seq)
        while len(self._memory) > self.timing.remembered:
            self._memory.popitem(last=False)
        if duration > 0:
            self.machine.busy = True
            self._running = _Running(frame.seq, now + duration, raw, self._session)
            self._send(frame.seq, Ack(), now)
        else:
            self._memory[frame.seq].reply = raw
            self._send_raw(raw, now)

    def _execute(self, msg: Message) -> tuple[Message, float]:
        m = self.machine
        try:
            if isinstance(msg, IdentifyRequest):
                return self._identity(), 0.0
            if isinstance(msg, StatusRequest):
                return m.status(), 0.0
            if isinstance(msg, DeckCheckRequest):
                return m.deck_check(), m.duration("read", len(m.cards))
            if isinstance(msg, ShuffleRequest):
                return m.shuffle(msg.mode), m.duration("shuffle")
            if isinstance(msg, DealRequest):
                reply, fault = m.deal(msg.count, msg.tag)
                if fault:
                    detail = f"card jammed in the transport after {reply.count} card(s)"
                    self.queue_event(FaultEvent(fault, 1, detail))
                return reply, m.duration("deal", reply.count)
            if isinstance(msg, ReinsertRequest):
                return m.reinsert(msg.cards), m.duration("reinsert", len(msg.cards))
            assert isinstance(msg, ResetRequest)
            cleared = m.fault
            reset = m.reset(msg.level)
            if cleared:
                self.queue_event(FaultEvent(cleared, 0, f"{cleared.name} cleared"))
            return reset, m.duration("reset")
        except MachineError as exc:
            return ErrorReply(exc.code, exc.detail[:64]), 0.0

    def _identity(self) -> IdentifyReply:
        m, ident = self.machine, self.identity
        caps = Capability.HAND_FORMING | Capability.SHOE
        if m.recognition:
            caps |= Capability.RECOGNITION
        return IdentifyReply(
            PROTOCOL_VERSION,
            caps,
            ident.max_decks,
            m.decks,
            self.boot_id,
            ident.fw_sha256,
            ident.model,
            ident.serial,
            ident.fw_version,
        )

    # --- events -----------------------------------------------------------------------------

    def _send_next_event(self, now: float) -> None:
        event = self._events.popleft()
        self._event_seq = self._event_seq % 255 + 1
        raw = encode_frame(self._event_seq, event.TYPE, event.encode())
        rto = self.timing.event_rto
        self._in_flight = _InFlight(self._event_seq, raw, now + rto, rto)
        self._send_raw(raw, now)

    def _resend_event(self, now: float) -> None:
        flight = self._in_flight
        assert flight is not None
        flight.deadline = now + flight.rto
        self._send_raw(flight.frame, now)

    def _event_answer(self, seq: int, msg: Ack | Nak, now: float) -> None:
        flight = self._in_flight
        if flight is None:
            return
        if isinstance(msg, Nak) and msg.code == NakCode.CORRUPT:
            self._resend_event(now)
        elif seq == flight.seq:  # ACK, or a NAK saying the host cannot decode it: drop it
            self._in_flight = None
            if isinstance(msg, Nak):
                log.error("host rejected event seq %d: NAK %s", seq, NakCode(msg.code).name)
