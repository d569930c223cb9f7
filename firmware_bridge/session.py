"""The host side of the shuffler link (docs/protocol.md sec. 2), sans-I/O.

Theory of operation (after Klipper's serialqueue, in h11's shape). The caller feeds bytes with
``receive_data(data, now)``, asks for timers with ``poll(now)`` at ``next_deadline()``, writes
``data_to_send()`` and drains ``next_event()``. Nothing here reads a clock, sleeps or does I/O.

- Requests are submitted into a FIFO; **one is in flight**. It is retransmitted (same SEQ,
  same bytes) when the RTO expires; the RTO is ``SRTT + 4 RTTVAR`` (RFC 6298, Karn's rule:
  no sample from a retransmitted request) clamped to [floor, ceiling], doubled per retry, and
  the request fails with :class:`LinkTimeout` after ``max_retransmits`` unanswered tries.
  After an ``ACK`` (the device is working) it is re-sent every ``poll_interval`` so a lost
  reply is recovered; the device's duplicate suppression makes that safe. Every request type
  has a ceiling on its total time.
- Events from the device are ACKed (duplicates too) and delivered once: a window of the
  sequence numbers of the current device boot, wrap safe (``ordering.EventWindow``), reset
  when the ``boot_id`` changes. Shoe ``CARD`` indexes must follow each other
  (``ordering.CardOrder``); a break is a :class:`ProtocolViolation`, not a card. A card drawn
  before a ``SHUFFLE`` whose event comes after the reply is late: counted
  (``cards_before_shuffle``) and logged, never delivered (the shuffle took it back).
- A reply must answer its request: type, then tag and count (``ordering.reply_mismatch``);
  otherwise the request fails with :class:`RemoteProtocolError`.
- The last :data:`RING_FRAMES` frames each way are kept in a ring (``recent_frames``) and
  dumped to the log when the link goes down or the device breaks the protocol (after
  Klipper's ``dump_debug``), so the technician sees what led to it.
- Every frame of one request's exchange (the request and its retransmissions, the device's
  ACK, NAK and reply with the request's SEQ) is kept with the request, exact bytes and
  ``now``, and handed out in its :class:`Completed` (``frames``, :class:`WireFrame`): the raw
  deal frames of the jackpot evidence bundle (docs/evidence.md). At most
  :data:`EXCHANGE_FRAMES` are kept per request.
- Heartbeat: ``PING`` after ``heartbeat_interval`` without sending; the link is **down** after
  ``link_timeout`` without an intact frame (everything pending fails with :class:`LinkDown`)
  and **up** again at the next intact frame.
- A bad frame is a counted, logged event (``stats``), answered ``NAK CORRUPT`` (rate-limited)
  so the device retransmits at once. Nothing the device sends can raise out of here.
- What the device does wrong is logged within a budget (:mod:`firmware_bridge.log_budget`):
  per :class:`Complaint`, the first of a quiet period at once, the rest of its window counted
  and summarised in one line; the frame ring is dumped at most once per window. A device
  babbling at line speed costs a few lines, not one per byte or 64 per frame.
"""

from __future__ import annotations

import logging
import random
from collections import deque
from dataclasses import dataclass, field
from enum import Enum
from typing import NamedTuple

from firmware_bridge.codes import NakCode
from firmware_bridge.errors import (
    DeviceError,
    LinkDown,
    LinkTimeout,
    LocalProtocolError,
    MessageError,
    Rejected,
    RemoteProtocolError,
    RequestFailed,
)
from firmware_bridge.framing import IDLE_GAP, Frame, FrameDecoder, Garbage, encode_frame
from firmware_bridge.log_budget import LogBudget
from firmware_bridge.messages import (
    EVENTS,
    PROTOCOL_VERSION,
    REPLY_OF,
    REQUESTS,
    Ack,
    CardEvent,
    DealRequest,
    DeckCheckRequest,
    DeviceState,
    ErrorReply,
    IdentifyReply,
    IdentifyRequest,
    Message,
    Nak,
    Ping,
    Pong,
    ReinsertReply,
    ReinsertRequest,
    ResetRequest,
    ShuffleReply,
    ShuffleRequest,
    StatusReply,
    UnknownMessageType,
    decode_message,
)
from firmware_bridge.ordering import CardOrder, EventWindow, Verdict, reply_mismatch

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LinkTiming:
    """Host timing, in seconds (defaults = docs/protocol.md sec. 2)."""

    rto_initial: float = 0.2
    rto_floor: float = 0.05
    rto_ceiling: float = 1.0
    max_retransmits: int = 6
    poll_interval: float = 0.5
    heartbeat_interval: float = 1.0
    link_timeout: float = 3.0
    idle_gap: float = IDLE_GAP
    corrupt_nak_interval: float = 0.05
    max_queued: int = 32
    ceilings: dict[int, float] = field(
        default_factory=lambda: {
            DealRequest.TYPE: 30.0,
            DeckCheckRequest.TYPE: 120.0,
            ReinsertRequest.TYPE: 30.0,
            ShuffleRequest.TYPE: 120.0,
            ResetRequest.TYPE: 60.0,
        }
    )
    default_ceiling: float = 5.0

    def ceiling(self, msg_type: int) -> float:
        return self.ceilings.get(msg_type, self.default_ceiling)


# --- events the session emits ---------------------------------------------------------------


class WireFrame(NamedTuple):
    """One frame of a request's exchange exactly as it crossed the link: ``now`` (the
    caller's clock when it was written or received), ``direction`` (``tx`` host to device,
    ``rx``) and the whole frame, SOF to CRC."""

    now: float
    direction: str
    raw: bytes


EXCHANGE_FRAMES = 64  # frames kept with one request (a 30 s DEAL polled every 0.5 s)


@dataclass(frozen=True)
class Completed:
    handle: int
    request: Message
    reply: Message
    frames: tuple[WireFrame, ...] = ()


@dataclass(frozen=True)
class Failed:
    handle: int
    request: Message
    error: RequestFailed


@dataclass(frozen=True)
class DeviceEvent:
    """An unsolicited message from the device: FaultEvent or CardEvent."""

    message: Message


@dataclass(frozen=True)
class LinkUp:
    pass


@dataclass(frozen=True)
class LinkDownEvent:
    reason: str


@dataclass(frozen=True)
class DeviceRebooted:
    old_boot_id: int
    new_boot_id: int


@dataclass(frozen=True)
class ProtocolViolation:
    """The device sent something well-formed that breaks the protocol's order (a shoe card
    out of sequence): the controller treats it as a machine malfunction (MD-S2)."""

    reason: str


SessionEvent = (
    Completed | Failed | DeviceEvent | LinkUp | LinkDownEvent | DeviceRebooted | ProtocolViolation
)

RING_FRAMES = 32  # frames kept each way for the debug dump


class Complaint(Enum):
    """What the device did wrong, as the log budget counts it; the value names it in the
    summary of the complaints not logged one by one."""

    GARBAGE = "runs of discarded bytes"
    UNDECODABLE = "undecodable frames"
    EVENT_GAP = "events that skip sequence numbers"
    CARD_ORDER = "shoe cards out of order"
    BAD_REPLY = "replies that do not answer their request"
    RING_DUMP = "dumps of the frame ring"


class RingFrame(NamedTuple):
    """One frame as it crossed the link: when, which way (``tx`` host to device, ``rx``),
    its SEQ, TYPE and payload (bytes discarded as garbage are only counted, in ``note``)."""

    now: float
    direction: str
    seq: int
    type: int
    payload: bytes
    note: str = ""

    def line(self) -> str:
        if self.note:
            return f"{self.now:12.6f} {self.direction} {self.note}"
        return (
            f"{self.now:12.6f} {self.direction} seq={self.seq} type={self.type:#04x} "
            f"payload={self.payload.hex(' ') or '-'}"
        )


@dataclass
class _Pending:
    handle: int
    request: Message
    frame: bytes = b""
    seq: int = 0
    first_sent: float = 0.0
    sent_at: float = 0.0
    deadline: float = 0.0
    retransmits: int = 0
    acked: bool = False
    fast_retransmitted: bool = False
    frames: list[WireFrame] = field(default_factory=list)

    def keep(self, frame: WireFrame) -> None:
        if len(self.frames) < EXCHANGE_FRAMES:
            self.frames.append(frame)


class RttEstimator:
    """RFC 6298 retransmission timeout with a floor and a ceiling."""

    def __init__(self, timing: LinkTiming) -> None:
        self.timing = timing
        self.srtt: float | None = None
        self.rttvar = 0.0

    def sample(self, rtt: float) -> None:
        if self.srtt is None:
            self.srtt, self.rttvar = rtt, rtt / 2
        else:
            self.rttvar = 0.75 * self.rttvar + 0.25 * abs(self.srtt - rtt)
            self.srtt = 0.875 * self.srtt + 0.125 * rtt

    @property
    def rto(self) -> float:
        t = self.timing
        raw = t.rto_initial if self.srtt is None else self.srtt + 4 * self.rttvar
        return min(max(raw, t.rto_floor), t.rto_ceiling)


class HostSession:
    """One host end of a shuffler link. Create one per host process; after a transport is
    re-opened call :meth:`connection_made` and keep the same session (same nonce), so that
    the device's duplicate memory survives a reconnect (protocol sec. 2.3)."""

    def __init__(self, timing: LinkTiming | None = None, nonce: int | None = None) -> None:
        self.timing = timing or LinkTiming()
        self.nonce = random.SystemRandom().getrandbits(32) if nonce is None else nonce
        self.rtt = RttEstimator(self.timing)
        self.decoder = FrameDecoder()
        self.link_up = False
        self.connected = False
        self.boot_id: int | None = None
        self.identity: IdentifyReply | None = None
        self.stats = {
            "bad_frames": 0,
            "retransmits": 0,
            "stale_replies": 0,
            "duplicate_events": 0,
            "undecodable": 0,
            "event_gaps": 0,
            "mismatched_replies": 0,
            "card_order": 0,
            "cards_before_shuffle": 0,
        }
        self._queue: deque[_Pending] = deque()
        self._in_flight: _Pending | None = None
        self._next_handle = 1
        self._seq = 0
        self._ping_seq = 0
        self.events_window = EventWindow()
        self.cards = CardOrder()
        self.recent_frames: deque[RingFrame] = deque(maxlen=2 * RING_FRAMES)
        self.log_budget: LogBudget[Complaint] = LogBudget()
        self._out = bytearray()
        self._events: deque[SessionEvent] = deque()
        self._last_rx = 0.0
        self._last_rx_bytes = 0.0
        self._last_tx = 0.0
        self._last_corrupt_nak = float("-inf")

    # --- API --------------------------------------------------------------------------------

    def identify_request(self) -> IdentifyRequest:
        return IdentifyRequest(PROTOCOL_VERSION, self.nonce)

    def connection_made(self, now: float) -> None:
        """A transport is open: start the silence clock and probe the device with PING."""
        self.connected = True
        self.decoder = FrameDecoder()
        self._last_rx = self._last_rx_bytes = now
        self._ping(now)

    def connection_lost(
        self, now: float, reason: str = "transport closed", expected: bool = False
    ) -> None:
        """The transport is gone (``expected``: the host closed it on purpose)."""
        self.connected = False
        self._out.clear()
        self._go_down(reason, logging.INFO if expected else logging.ERROR)

    def submit(self, request: Message, now: float) -> int:
        """Queue a request; returns its handle. The outcome is a Completed/Failed event.
        Raises :class:`LocalProtocolError` for a non-request or a full queue."""
        if not isinstance(request, REQUESTS):
            raise LocalProtocolError(f"{type(request).__name__} is not a request")
        if len(self._queue) >= self.timing.max_queued:
            raise LocalProtocolError(f"more than {self.timing.max_queued} requests queued")
        pending = _Pending(self._next_handle, request)
        self._next_handle += 1
        if not self.connected or (not self.link_up and self._silent_for(now)):
            self._fail(pending, LinkDown("the shuffler link is down"))
        else:
            self._queue.append(pending)
            self._start_next(now)
        return pending.handle

    def receive_data(self, data: bytes, now: float) -> None:
        self._last_rx_bytes = now
        for ev in self.decoder.feed(data):
            self._on_frame_event(ev, now)
        self.poll(now)

    def data_to_send(self) -> bytes:
        out = bytes(self._out)
        self._out.clear()
        return out

    def next_event(self) -> SessionEvent | None:
        return self._events.popleft() if self._events else None

    def poll(self, now: float) -> None:
        t = self.timing
        self._log_summaries(now)
        if self.decoder.buffered and now >= self._last_rx_bytes + t.idle_gap:
            for ev in self.decoder.idle():
                self._on_frame_event(ev, now)
        if self.connected and self.link_up and now >= self._last_rx + t.link_timeout:
            self._go_down(f"no frame from the shuffler for {t.link_timeout:g} s")
        p = self._in_flight
        if p is not None and now >= p.first_sent + t.ceiling(p.request.TYPE):
            limit = t.ceiling(p.request.TYPE)
            error = LinkTimeout(f"{type(p.request).__name__} not done after {limit:g} s")
            self._finish_failed(error, now)
        elif p is not None and now >= p.deadline:
            self._retransmit(p, now)
        if self.connected and now >= self._last_tx + t.heartbeat_interval:
            self._ping(now)

    def next_deadline(self) -> float | None:
        if not self.connected:
            return None
        # asked at every wake-up of a simulated line: no lists built
        t = self.timing
        first = self._last_tx + t.heartbeat_interval
        if self.link_up:
            first = min(first, self._last_rx + t.link_timeout)
        if self.decoder.buffered:
            first = min(first, self._last_rx_bytes + t.idle_gap)
        p = self._in_flight
        if p is not None:
            first = min(first, p.deadline, p.first_sent + t.ceiling(p.request.TYPE))
        return first

    @property
    def busy(self) -> bool:
        return self._in_flight is not None or bool(self._queue)

    # --- sending ----------------------------------------------------------------------------

    def _write(self, raw: bytes, now: float) -> None:
        self._out += raw
        self._last_tx = now
        # a frame written by this session: SOF LEN SEQ TYPE HCHK payload CRC
        self.recent_frames.append(RingFrame(now, "tx", raw[2], raw[3], raw[5:-2]))

    def _send_request(self, p: _Pending, now: float) -> None:
        """Write the request's frame (first time or again), kept with its exchange."""
        self._write(p.frame, now)
        p.keep(WireFrame(now, "tx", p.frame))

    def dump_recent_frames(self, why: str) -> None:
        """Log the frames kept in the ring, oldest first (Klipper's ``dump_debug``)."""
        lines = [f.line() for f in self.recent_frames]
        log.error(
            "shuffler link %s; the last %d frames (time, tx = to the shuffler):\n%s",
            why,
            len(lines),
            "\n".join(lines) or "(none)",
        )

    def _complain(
        self,
        kind: Complaint,
        now: float,
        text: str,
        *,
        level: int = logging.ERROR,
        dump: bool = False,
    ) -> None:
        """Log ``text`` (the device did something wrong) within the log budget; ``dump``:
        with the frame ring (itself at most once per budget window, else the line alone)."""
        self._log_summaries(now)
        if not self.log_budget.allow(kind, now):
            return
        if dump and self.log_budget.allow(Complaint.RING_DUMP, now):
            self.dump_recent_frames(text)
        else:
            log.log(level, "shuffler link: %s", text)

    def _log_summaries(self, now: float) -> None:
        for summary in self.log_budget.due(now):
            if summary.kind is not Complaint.RING_DUMP:  # each dump was a complaint's line
                log.warning(
                    "shuffler link: %d more %s in the last %.1f s, counted, not logged one by one",
                    summary.count,
                    summary.kind.value,
                    now - summary.since,
                )

    def _ping(self, now: float) -> None:
        self._ping_seq = self._ping_seq % 255 + 1
        self._write(encode_frame(self._ping_seq, Ping.TYPE), now)

    def _start_next(self, now: float) -> None:
        if self._in_flight is not None or not self._queue:
            return
        p = self._queue.popleft()
        self._seq = self._seq % 255 + 1
        p.seq = self._seq
        p.frame = encode_frame(p.seq, p.request.TYPE, p.request.encode())
        p.first_sent = p.sent_at = now
        p.deadline = now + self.rtt.rto
        self._in_flight = p
        self._send_request(p, now)

    def _retransmit(self, p: _Pending, now: float) -> None:
        if not p.acked:
            if p.retransmits >= self.timing.max_retransmits:
                error = LinkTimeout(
                    f"no answer from the shuffler to {type(p.request).__name__} after "
                    f"{p.retransmits} retransmissions"
                )
                return self._finish_failed(error, now)
            p.retransmits += 1
            rto = min(self.rtt.rto * 2**p.retransmits, self.timing.rto_ceiling)
            p.deadline = now + rto
        else:
            p.deadline = now + self.timing.poll_interval
        self.stats["retransmits"] += 1
        p.sent_at = now
        p.fast_retransmitted = False
        self._send_request(p, now)

    # --- receiving --------------------------------------------------------------------------

    def _on_frame_event(self, ev: Frame | Garbage, now: float) -> None:
        if isinstance(ev, Garbage):
            self.stats["bad_frames"] += 1
            self.recent_frames.append(
                RingFrame(now, "rx", 0, 0, b"", f"<{ev.nbytes} bytes discarded: {ev.reason}>")
            )
            text = f"discarded {ev.nbytes} bytes ({ev.reason})"
            self._complain(Complaint.GARBAGE, now, text, level=logging.WARNING)
            if self.connected and now >= self._last_corrupt_nak + self.timing.corrupt_nak_interval:
                self._last_corrupt_nak = now
                self._write(encode_frame(0, Nak.TYPE, Nak(NakCode.CORRUPT).encode()), now)
            return
        self._last_rx = now
        self.recent_frames.append(RingFrame(now, "rx", ev.seq, ev.type, ev.payload))
        if not self.link_up:
            self.link_up = True
            self._events.append(LinkUp())
        try:
            msg = decode_message(ev.type, ev.payload)
        except MessageError as exc:
            return self._undecodable(ev, exc, now)
        if isinstance(msg, Ack | Nak):
            self._on_answer(ev.seq, msg, now, ev.raw)
        elif isinstance(msg, Pong):
            self._boot(msg.boot_id)
        elif isinstance(msg, EVENTS):
            self._write(encode_frame(ev.seq, Ack.TYPE), now)
            self._on_device_event(ev.seq, msg, now)
        else:
            self._on_reply(ev.seq, msg, now, ev.raw)

    def _boot(self, boot_id: int) -> None:
        """The device's boot as just reported: a new one resets the event window and the
        shoe's card order (both are numbered again from 1 after a restart)."""
        if self.boot_id is not None and boot_id != self.boot_id:
            self._events.append(DeviceRebooted(self.boot_id, boot_id))
        self.boot_id = boot_id
        if self.events_window.new_boot(boot_id):
            self.cards.forget()

    def _on_device_event(self, seq: int, msg: Message, now: float) -> None:
        verdict = self.events_window.accept(seq)
        if verdict is Verdict.DUPLICATE:
            self.stats["duplicate_events"] += 1
            return
        if verdict is Verdict.GAP:
            self.stats["event_gaps"] += 1
            self._complain(Complaint.EVENT_GAP, now, f"event seq {seq} skips events")
        if isinstance(msg, CardEvent):
            if self.cards.late(msg.index):
                self.stats["cards_before_shuffle"] += 1
                log.warning(
                    "shoe card index %d was drawn before the last SHUFFLE, which took it back:"
                    " not a card of this shoe",
                    msg.index,
                )
                return
            problem = self.cards.check(msg.index)
            if problem is not None:
                self.stats["card_order"] += 1
                self._complain(
                    Complaint.CARD_ORDER, now, f"protocol violation: {problem}", dump=True
                )
                self._events.append(ProtocolViolation(problem))
                return
        self._events.append(DeviceEvent(msg))

    def _undecodable(self, ev: Frame, exc: MessageError, now: float) -> None:
        self.stats["undecodable"] += 1
        what = f"protocol error: an undecodable {ev.type:#04x} frame ({exc})"
        self._complain(Complaint.UNDECODABLE, now, what, dump=True)
        if ev.type in {cls.TYPE for cls in EVENTS}:
            code = (
                NakCode.UNKNOWN_TYPE if isinstance(exc, UnknownMessageType) else NakCode.BAD_PAYLOAD
            )
            self._write(encode_frame(ev.seq, Nak.TYPE, Nak(code).encode()), now)
        p = self._in_flight
        if p is not None and ev.seq == p.seq and ev.type in (REPLY_OF[p.request.TYPE], 0x7F):
            p.keep(WireFrame(now, "rx", ev.raw))
            error = RemoteProtocolError(f"malformed reply from the shuffler: {exc}")
            self._finish_failed(error, now)

    def _on_answer(self, seq: int, msg: Ack | Nak, now: float, raw: bytes) -> None:
        p = self._in_flight
        if isinstance(msg, Nak) and msg.code == NakCode.CORRUPT:
            if p is not None and not p.fast_retransmitted:
                p.fast_retransmitted = True
                self.stats["retransmits"] += 1
                self._send_request(p, now)
            return
        if p is None or seq != p.seq:
            self.stats["stale_replies"] += 1
            return
        p.keep(WireFrame(now, "rx", raw))
        if isinstance(msg, Nak):
            return self._finish_failed(Rejected(msg.code), now)
        if not p.acked:
            p.acked = True
            self._rtt_sample(p, now)
            p.deadline = now + self.timing.poll_interval

    def _on_reply(self, seq: int, msg: Message, now: float, raw: bytes) -> None:
        p = self._in_flight
        if p is None or seq != p.seq:
            self.stats["stale_replies"] += 1
            return
        p.keep(WireFrame(now, "rx", raw))
        if isinstance(msg, ErrorReply):
            return self._finish_failed(DeviceError(msg.code, msg.detail), now)
        if REPLY_OF[p.request.TYPE] != msg.TYPE:
            what = f"the shuffler answered {type(p.request).__name__} with {type(msg).__name__}"
            self._complain(Complaint.BAD_REPLY, now, f"protocol error: {what}", dump=True)
            return self._finish_failed(RemoteProtocolError(what), now)
        mismatch = reply_mismatch(p.request, msg)
        if mismatch is not None:
            self.stats["mismatched_replies"] += 1
            self._complain(Complaint.BAD_REPLY, now, f"protocol error: {mismatch}", dump=True)
            error = RemoteProtocolError(f"the shuffler's reply does not match: {mismatch}")
            return self._finish_failed(error, now)
        if not p.acked:
            self._rtt_sample(p, now)
        if isinstance(msg, IdentifyReply):
            self.identity = msg
            self._boot(msg.boot_id)
        elif isinstance(msg, StatusReply) and msg.state == DeviceState.SHOE:
            self.cards.device_drawn(msg.cards_loaded - msg.cards_ready)
        elif isinstance(msg, ShuffleReply):
            self.cards.shuffled()
        elif isinstance(msg, ReinsertReply):
            self.cards.reinserted(msg.accepted)
        self._in_flight = None
        self._events.append(Completed(p.handle, p.request, msg, tuple(p.frames)))
        self._start_next(now)

    def _rtt_sample(self, p: _Pending, now: float) -> None:
        if p.retransmits == 0 and not p.fast_retransmitted:  # Karn's rule
            self.rtt.sample(now - p.sent_at)

    # --- failure ----------------------------------------------------------------------------

    def _fail(self, p: _Pending, error: RequestFailed) -> None:
        log.warning("shuffler request %s failed: %s", type(p.request).__name__, error)
        self._events.append(Failed(p.handle, p.request, error))

    def _finish_failed(self, error: RequestFailed, now: float) -> None:
        p = self._in_flight
        assert p is not None
        self._in_flight = None
        self._fail(p, error)
        if self.connected:
            self._start_next(now)

    def _silent_for(self, now: float) -> bool:
        return now >= self._last_rx + self.timing.link_timeout

    def _go_down(self, reason: str, level: int = logging.ERROR) -> None:
        was_up = self.link_up
        self.link_up = False
        pending = ([self._in_flight] if self._in_flight else []) + list(self._queue)
        self._in_flight = None
        self._queue.clear()
        for p in pending:
            self._fail(p, LinkDown(f"shuffler link down: {reason}"))
        if was_up:
            log.log(level, "shuffler link down: %s", reason)
            if level >= logging.ERROR:
                self.dump_recent_frames(f"down ({reason})")
            self._events.append(LinkDownEvent(reason))
