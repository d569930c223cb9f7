"""The message set of the shuffler link (docs/protocol.md sec. 3-4): typed, validated.

Every message is a frozen dataclass with a ``TYPE`` code. Its payload layout is declared once
in ``LAYOUT`` (field name, wire kind) and a generic encoder/decoder walks it, so the layouts in
the protocol document map line by line onto the classes here. Range checks live in
``__post_init__``: a message that exists is valid, whether built locally or decoded from the
wire. :func:`decode_message` raises :class:`UnknownMessageType` or
:class:`~firmware_bridge.errors.MessageError` (the session answers them with NAK) and nothing
else, whatever the bytes.

Wire kinds: ``u8 u16 u32`` big-endian integers; ``str8`` length-prefixed printable ASCII
(<= 64); ``sha256`` 32 raw bytes; ``card`` one card code (0..51, 0xFF = not recognised ->
``None``); ``dealt`` u8 count + (card, flags) pairs; ``codes`` u8 count + card codes;
``tally`` u8 count + (card, times) pairs.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, ClassVar

from firmware_bridge.codes import ErrorCode, NakCode
from firmware_bridge.errors import MessageError

PROTOCOL_VERSION = 1
DECK_SIZE = 52
UNRECOGNISED = 0xFF
FACE_UP = 0x01
MAX_STR = 64
MAX_DEAL = 52
MAX_DELIVERED = 64
MAX_REINSERT = 16
MAX_DECKS = 8


class DeviceState(IntEnum):
    IDLE = 0
    READY = 1
    SHOE = 2
    BUSY = 3
    FAULT = 4


class ShuffleMode(IntEnum):
    HAND_FORMING = 0
    SHOE = 1


class Capability(IntEnum):
    RECOGNITION = 1
    HAND_FORMING = 2
    SHOE = 4


class UnknownMessageType(MessageError):
    """The frame's TYPE is not in the protocol."""


@dataclass(frozen=True, slots=True)
class DealtCard:
    """One card of a packet: its code (``None`` if the device did not recognise it) and
    whether it left the machine face up."""

    card: int | None
    face_up: bool = False

    def __post_init__(self) -> None:
        _check_card(self.card, "card")


def _check(ok: bool, what: str) -> None:
    if not ok:
        raise MessageError(what)


# The checks below run for every field of every message: each builds its message only when
# it fails (a message built and thrown away on every call was a good share of the link's cost).


def _check_range(value: int, lo: int, hi: int, name: str) -> None:
    if not (isinstance(value, int) and lo <= value <= hi):
        raise MessageError(f"{name}={value!r} outside {lo}..{hi}")


def _check_card(card: int | None, name: str) -> None:
    if not (card is None or (isinstance(card, int) and 0 <= card < DECK_SIZE)):
        raise MessageError(f"{name}={card!r} is not a card code 0..51")


def _check_enum(value: int, enum: type[IntEnum], name: str) -> None:
    if value not in enum._value2member_map_:
        raise MessageError(f"{name}={value!r} is not a {enum.__name__}")


class Message:
    """Base of all messages. Subclasses set ``TYPE`` and ``LAYOUT``."""

    TYPE: ClassVar[int]
    LAYOUT: ClassVar[tuple[tuple[str, str], ...]] = ()
    #: mechanical requests may be ACKed first and get a longer time ceiling (protocol 2.1)
    MECHANICAL: ClassVar[bool] = False

    def encode(self) -> bytes:
        out = bytearray()
        for name, kind in self.LAYOUT:
            _ENCODERS[kind](out, getattr(self, name))
        return bytes(out)

    @classmethod
    def decode(cls, payload: bytes) -> Message:
        reader = _Reader(payload, cls.__name__)
        values = [_DECODERS[kind](reader) for _, kind in cls.LAYOUT]
        reader.end()
        try:
            return cls(*values)
        except (TypeError, ValueError) as exc:
            raise MessageError(f"{cls.__name__}: {exc}") from None


class _Reader:
    def __init__(self, data: bytes, what: str) -> None:
        self.data = data
        self.pos = 0
        self.what = what

    def take(self, n: int) -> bytes:
        end = self.pos + n
        if end > len(self.data):
            raise MessageError(f"{self.what}: payload too short ({len(self.data)} bytes)")
        chunk = self.data[self.pos : end]
        self.pos = end
        return chunk

    def end(self) -> None:
        if self.pos != len(self.data):
            raise MessageError(f"{self.what}: {len(self.data) - self.pos} unexpected bytes")


def _card_in(code: int) -> int | None:
    return None if code == UNRECOGNISED else code


def _card_out(card: int | None) -> int:
    return UNRECOGNISED if card is None else card


def _str8_in(r: _Reader) -> str:
    raw = r.take(r.take(1)[0])
    _check(all(0x20 <= b <= 0x7E for b in raw), f"{r.what}: text is not printable ASCII")
    return raw.decode("ascii")


def _str8_out(out: bytearray, text: str) -> None:
    raw = text.encode("ascii")
    out.append(len(raw))
    out += raw


def _dealt_in(r: _Reader) -> tuple[DealtCard, ...]:
    n = r.take(1)[0]
    raw = r.take(2 * n)
    for flags in raw[1::2]:
        if flags & ~FACE_UP:
            raise MessageError(f"{r.what}: reserved card flag bits set ({flags:#x})")
    return tuple(
        DealtCard(_card_in(raw[i]), bool(raw[i + 1] & FACE_UP)) for i in range(0, len(raw), 2)
    )


def _dealt_out(out: bytearray, cards: tuple[DealtCard, ...]) -> None:
    out.append(len(cards))
    for c in cards:
        out += bytes((_card_out(c.card), FACE_UP if c.face_up else 0))


def _codes_in(r: _Reader) -> tuple[int | None, ...]:
    return tuple(_card_in(b) for b in r.take(r.take(1)[0]))


def _codes_out(out: bytearray, cards: tuple[int | None, ...]) -> None:
    out.append(len(cards))
    out += bytes(_card_out(c) for c in cards)


def _tally_in(r: _Reader) -> tuple[tuple[int, int], ...]:
    raw = r.take(2 * r.take(1)[0])
    return tuple((raw[i], raw[i + 1]) for i in range(0, len(raw), 2))


def _tally_out(out: bytearray, tally: tuple[tuple[int, int], ...]) -> None:
    out.append(len(tally))
    for card, times in tally:
        out += bytes((card, times))


_Encoder = Callable[[bytearray, Any], None]
_Decoder = Callable[["_Reader"], Any]


def _int_codec(fmt: str) -> tuple[_Encoder, _Decoder]:
    s = struct.Struct(fmt)

    def enc(out: bytearray, v: int) -> None:
        out += s.pack(v)

    def dec(r: _Reader) -> int:
        value: int = s.unpack(r.take(s.size))[0]
        return value

    return enc, dec


_ENCODERS: dict[str, _Encoder] = {}
_DECODERS: dict[str, _Decoder] = {}
for _kind, _fmt in (("u8", ">B"), ("u16", ">H"), ("u32", ">I")):
    _ENCODERS[_kind], _DECODERS[_kind] = _int_codec(_fmt)
_ENCODERS["str8"], _DECODERS["str8"] = _str8_out, _str8_in
_ENCODERS["sha256"], _DECODERS["sha256"] = (lambda out, v: out.extend(v)), (lambda r: r.take(32))
_ENCODERS["card"] = lambda out, card: out.append(_card_out(card))
_DECODERS["card"] = lambda r: _card_in(r.take(1)[0])
_ENCODERS["dealt"], _DECODERS["dealt"] = _dealt_out, _dealt_in
_ENCODERS["codes"], _DECODERS["codes"] = _codes_out, _codes_in
_ENCODERS["tally"], _DECODERS["tally"] = _tally_out, _tally_in

_RANGES = {"u8": 0xFF, "u16": 0xFFFF, "u32": 0xFFFFFFFF}


def _check_layout(msg: Message) -> None:
    """Checks every message gets from its layout: integer widths and text."""
    for name, kind in msg.LAYOUT:
        value = getattr(msg, name)
        if kind in _RANGES:
            _check_range(value, 0, _RANGES[kind], name)
        elif kind == "str8" and not (
            isinstance(value, str)
            and len(value) <= MAX_STR
            and all(" " <= ch <= "~" for ch in value)
        ):
            raise MessageError(
                f"{name}={value!r} must be printable ASCII of at most {MAX_STR} characters"
            )


# --- link messages --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Ack(Message):
    TYPE: ClassVar[int] = 0x01


@dataclass(frozen=True, slots=True)
class Nak(Message):
    TYPE: ClassVar[int] = 0x02
    LAYOUT: ClassVar = (("code", "u8"),)
    code: int

    def __post_init__(self) -> None:
        _check_enum(self.code, NakCode, "code")


@dataclass(frozen=True, slots=True)
class Ping(Message):
    TYPE: ClassVar[int] = 0x03


@dataclass(frozen=True, slots=True)
class Pong(Message):
    TYPE: ClassVar[int] = 0x04
    LAYOUT: ClassVar = (("boot_id", "u32"), ("state", "u8"))
    boot_id: int
    state: int

    def __post_init__(self) -> None:
        _check_layout(self)
        _check_enum(self.state, DeviceState, "state")


# --- requests and replies -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class IdentifyRequest(Message):
    TYPE: ClassVar[int] = 0x10
    LAYOUT: ClassVar = (("protocol", "u8"), ("nonce", "u32"))
    protocol: int
    nonce: int

    def __post_init__(self) -> None:
        _check_layout(self)


@dataclass(frozen=True, slots=True)
class IdentifyReply(Message):
    TYPE: ClassVar[int] = 0x90
    LAYOUT: ClassVar = (
        ("protocol", "u8"), ("capabilities", "u8"), ("max_decks", "u8"), ("decks", "u8"),
        ("boot_id", "u32"), ("fw_sha256", "sha256"),
        ("model", "str8"), ("serial", "str8"), ("fw_version", "str8"),
    )  # fmt: skip
    protocol: int
    capabilities: int
    max_decks: int
    decks: int
    boot_id: int
    fw_sha256: bytes
    model: str
    serial: str
    fw_version: str

    def __post_init__(self) -> None:
        _check_layout(self)
        _check(self.capabilities & ~0x07 == 0, f"capabilities={self.capabilities:#x}: bits 3..7")
        _check_range(self.max_decks, 1, MAX_DECKS, "max_decks")
        _check_range(self.decks, 1, self.max_decks, "decks")
        _check(
            isinstance(self.fw_sha256, bytes) and len(self.fw_sha256) == 32,
            "fw_sha256 must be 32 bytes",
        )

    def has(self, capability: Capability) -> bool:
        return bool(self.capabilities & capability)


@dataclass(frozen=True, slots=True)
class StatusRequest(Message):
    TYPE: ClassVar[int] = 0x11


@dataclass(frozen=True, slots=True)
class StatusReply(Message):
    TYPE: ClassVar[int] = 0x91
    LAYOUT: ClassVar = (
        ("state", "u8"), ("door_open", "u8"), ("fault", "u8"),
        ("cards_loaded", "u16"), ("cards_ready", "u16"), ("packets", "u16"),
    )  # fmt: skip
    state: int
    door_open: int
    fault: int
    cards_loaded: int
    cards_ready: int
    packets: int

    def __post_init__(self) -> None:
        _check_layout(self)
        _check_enum(self.state, DeviceState, "state")
        _check_range(self.door_open, 0, 1, "door")
        _check_enum(self.fault, ErrorCode, "fault")
        _check(self.cards_ready <= self.cards_loaded, "cards_ready exceeds cards_loaded")


@dataclass(frozen=True, slots=True)
class DeckCheckRequest(Message):
    TYPE: ClassVar[int] = 0x12
    MECHANICAL: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class DeckCheckReply(Message):
    """Result of a deck check. ``missing`` and ``duplicate`` are (card, times) pairs."""

    TYPE: ClassVar[int] = 0x92
    LAYOUT: ClassVar = (
        ("expected", "u16"), ("counted", "u16"), ("foreign", "u8"),
        ("missing", "tally"), ("duplicate", "tally"),
    )  # fmt: skip
    expected: int
    counted: int
    foreign: int
    missing: tuple[tuple[int, int], ...] = ()
    duplicate: tuple[tuple[int, int], ...] = ()

    def __post_init__(self) -> None:
        _check_layout(self)
        _check(
            self.expected % DECK_SIZE == 0 and 0 < self.expected <= DECK_SIZE * MAX_DECKS,
            f"expected={self.expected} is not 52 x 1..8 decks",
        )
        seen: set[int] = set()
        for card, times in (*self.missing, *self.duplicate):
            _check_card(card, "card")
            _check(card is not None and card not in seen, f"card {card} listed twice")
            _check_range(times, 1, 0xFF, "times")
            seen.add(card)
        balance = (
            self.expected
            - sum(t for _, t in self.missing)
            + sum(t for _, t in self.duplicate)
            + self.foreign
        )
        _check(
            balance == self.counted,
            f"counted={self.counted} disagrees with expected, missing, duplicate, foreign",
        )

    @property
    def is_ok(self) -> bool:
        return not (self.missing or self.duplicate or self.foreign)


@dataclass(frozen=True, slots=True)
class ShuffleRequest(Message):
    TYPE: ClassVar[int] = 0x13
    MECHANICAL: ClassVar[bool] = True
    LAYOUT: ClassVar = (("mode", "u8"),)
    mode: int = ShuffleMode.HAND_FORMING

    def __post_init__(self) -> None:
        _check_enum(self.mode, ShuffleMode, "mode")


@dataclass(frozen=True, slots=True)
class ShuffleReply(Message):
    TYPE: ClassVar[int] = 0x93
    LAYOUT: ClassVar = (("cards", "u16"), ("mode", "u8"))
    cards: int
    mode: int

    def __post_init__(self) -> None:
        _check_range(self.cards, 0, DECK_SIZE * MAX_DECKS, "cards")
        _check_enum(self.mode, ShuffleMode, "mode")


@dataclass(frozen=True, slots=True)
class DealRequest(Message):
    """Deal ``count`` cards to the destination ``tag`` (hand forming)."""

    TYPE: ClassVar[int] = 0x14
    MECHANICAL: ClassVar[bool] = True
    LAYOUT: ClassVar = (("count", "u8"), ("tag", "u8"))
    count: int
    tag: int = 0

    def __post_init__(self) -> None:
        _check_range(self.count, 1, MAX_DEAL, "count")
        _check_range(self.tag, 0, 0xFF, "tag")


@dataclass(frozen=True, slots=True)
class DealReply(Message):
    """One delivered packet. ``status`` is 0 (complete) or the error code that stopped it."""

    TYPE: ClassVar[int] = 0x94
    LAYOUT: ClassVar = (("status", "u8"), ("tag", "u8"), ("requested", "u8"), ("cards", "dealt"))
    status: int
    tag: int
    requested: int
    cards: tuple[DealtCard, ...] = field(default=())

    def __post_init__(self) -> None:
        _check_layout(self)
        _check_enum(self.status, ErrorCode, "status")
        _check_range(self.requested, 1, MAX_DEAL, "requested")
        if len(self.cards) > MAX_DELIVERED:
            raise MessageError(f"{len(self.cards)} cards in one packet")
        _check(all(isinstance(c, DealtCard) for c in self.cards), "cards must be DealtCard")

    @property
    def count(self) -> int:
        return len(self.cards)

    @property
    def face_up(self) -> int:
        return sum(c.face_up for c in self.cards)


@dataclass(frozen=True, slots=True)
class ReinsertRequest(Message):
    """Put delivered cards back into the machine (MD-X1..X3: the dealer's or community cards);
    ``None`` for a card the dealer cannot name."""

    TYPE: ClassVar[int] = 0x15
    MECHANICAL: ClassVar[bool] = True
    LAYOUT: ClassVar = (("cards", "codes"),)
    cards: tuple[int | None, ...]

    def __post_init__(self) -> None:
        _check_range(len(self.cards), 1, MAX_REINSERT, "count")
        for c in self.cards:
            _check_card(c, "card")


@dataclass(frozen=True, slots=True)
class ReinsertReply(Message):
    TYPE: ClassVar[int] = 0x95
    LAYOUT: ClassVar = (("accepted", "u8"), ("cards_ready", "u16"))
    accepted: int
    cards_ready: int

    def __post_init__(self) -> None:
        _check_range(self.accepted, 0, MAX_REINSERT, "accepted")
        _check_range(self.cards_ready, 0, DECK_SIZE * MAX_DECKS, "cards_ready")


@dataclass(frozen=True, slots=True)
class ResetRequest(Message):
    """``level`` 0 clears the active fault, 1 is a full reset (shuffled stack dropped)."""

    TYPE: ClassVar[int] = 0x16
    MECHANICAL: ClassVar[bool] = True
    LAYOUT: ClassVar = (("level", "u8"),)
    level: int = 0

    def __post_init__(self) -> None:
        _check_range(self.level, 0, 1, "level")


@dataclass(frozen=True, slots=True)
class ResetReply(Message):
    TYPE: ClassVar[int] = 0x96
    LAYOUT: ClassVar = (("state", "u8"),)
    state: int

    def __post_init__(self) -> None:
        _check_enum(self.state, DeviceState, "state")


@dataclass(frozen=True, slots=True)
class ErrorReply(Message):
    TYPE: ClassVar[int] = 0x7F
    LAYOUT: ClassVar = (("code", "u8"), ("detail", "str8"))
    code: int
    detail: str = ""

    def __post_init__(self) -> None:
        _check_layout(self)
        _check(self.code != ErrorCode.OK, "an ERROR reply needs a non-zero code")
        _check_enum(self.code, ErrorCode, "code")


# --- events ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FaultEvent(Message):
    TYPE: ClassVar[int] = 0x40
    LAYOUT: ClassVar = (("code", "u8"), ("active", "u8"), ("detail", "str8"))
    code: int
    active: int = 1
    detail: str = ""

    def __post_init__(self) -> None:
        _check_layout(self)
        _check_enum(self.code, ErrorCode, "code")
        _check(self.code != ErrorCode.OK, "a FAULT needs a non-zero code")
        _check_range(self.active, 0, 1, "active")


@dataclass(frozen=True, slots=True)
class CardEvent(Message):
    """A card the dealer drew from the shoe (shoe mode); ``index`` counts from 1."""

    TYPE: ClassVar[int] = 0x41
    LAYOUT: ClassVar = (("index", "u16"), ("card", "card"), ("flags", "u8"))
    index: int
    card: int | None
    flags: int = 0

    def __post_init__(self) -> None:
        _check_range(self.index, 1, DECK_SIZE * MAX_DECKS, "index")
        _check_card(self.card, "card")
        _check_range(self.flags, 0, FACE_UP, "flags")

    @property
    def face_up(self) -> bool:
        return bool(self.flags & FACE_UP)


REQUESTS: tuple[type[Message], ...] = (
    IdentifyRequest,
    StatusRequest,
    DeckCheckRequest,
    ShuffleRequest,
    DealRequest,
    ReinsertRequest,
    ResetRequest,
)
REPLIES: tuple[type[Message], ...] = (
    IdentifyReply,
    StatusReply,
    DeckCheckReply,
    ShuffleReply,
    DealReply,
    ReinsertReply,
    ResetReply,
    ErrorReply,
)
EVENTS: tuple[type[Message], ...] = (FaultEvent, CardEvent)
LINK: tuple[type[Message], ...] = (Ack, Nak, Ping, Pong)
ALL_MESSAGES = LINK + REQUESTS + REPLIES + EVENTS
BY_TYPE: dict[int, type[Message]] = {cls.TYPE: cls for cls in ALL_MESSAGES}
REPLY_OF: dict[int, int] = {req.TYPE: req.TYPE | 0x80 for req in REQUESTS}


def decode_message(msg_type: int, payload: bytes) -> Message:
    """Decode one payload. Raises :class:`UnknownMessageType` or ``MessageError`` only."""
    cls = BY_TYPE.get(msg_type)
    if cls is None:
        raise UnknownMessageType(f"unknown message type {msg_type:#04x}")
    return cls.decode(payload)
