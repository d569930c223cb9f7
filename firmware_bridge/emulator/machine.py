"""The physical shuffler as the reference firmware models it.

It holds the physical cards (1 to 8 decks, plus whatever a fault injected), shuffles them
into a stack, and delivers packets to a destination tag (hand forming) or single cards to the
dealer's hand (shoe mode), reading each card as it passes (card recognition). Each operation
either returns the reply message or raises :class:`MachineError` with the protocol error
code; it never raises anything else on valid requests.

Shuffle: Fisher-Yates over ``random.SystemRandom`` (the operating system's CSPRNG). A seeded
``random.Random`` is accepted **for tests only**. The *biased* fault replaces it by a single
pass of a 10-shelf shuffler (each card goes to the top or bottom of a random shelf, shelves
are stacked), which keeps most of the collected order and is what a statistical audit must
catch. Cards are collected for the next shuffle in the order they left the machine.

Arranged order (tests and the hardware-in-the-loop rig only, like the seed): :meth:`arrange`
puts chosen cards on top of the next shuffle (a hand-forming host shuffles before every deal)
or, for a shoe already in play, on top of the stack at once; the other cards stay in their
random order below. A real machine has no such command: it is reachable only through the
emulator's control socket, never over the wire protocol.

Card flow: ``cards`` is every physical card (codes 0..51, ``None`` = a foreign card);
``stack`` is the shuffled stack (top = end of the list); ``out`` is what was delivered since
the shuffle, in delivery order. A shuffle collects ``out`` + ``stack`` back.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TypeVar

from firmware_bridge.codes import ErrorCode
from firmware_bridge.emulator.faults import MachineFaults
from firmware_bridge.messages import (
    DECK_SIZE,
    FACE_UP,
    MAX_DECKS,
    CardEvent,
    DealReply,
    DealtCard,
    DeckCheckReply,
    DeviceState,
    ReinsertReply,
    ResetReply,
    ShuffleMode,
    ShuffleReply,
    StatusReply,
)

SHELVES = 10

T = TypeVar("T")


class MachineError(Exception):
    """An operation the machine cannot carry out: ``code`` is a protocol ErrorCode."""

    def __init__(self, code: ErrorCode, detail: str) -> None:
        self.code = code
        self.detail = detail
        super().__init__(f"{code.name}: {detail}")


@dataclass(frozen=True)
class MachineTiming:
    """Mechanical durations in seconds (0 = instant, the default for benchmarks)."""

    per_card: float = 0.0
    shuffle: float = 0.0
    reset: float = 0.0


def fisher_yates(cards: list[T], rng: random.Random) -> None:
    """Uniform in-place shuffle (Durstenfeld's Fisher-Yates)."""
    for i in range(len(cards) - 1, 0, -1):
        j = rng.randrange(i + 1)
        cards[i], cards[j] = cards[j], cards[i]


def shelf_pass(cards: list[T], rng: random.Random, shelves: int = SHELVES) -> list[T]:
    """One pass of a shelf shuffler: strongly biased towards the input order."""
    piles: list[list[T]] = [[] for _ in range(shelves)]
    for card in cards:
        pile = piles[rng.randrange(shelves)]
        if rng.random() < 0.5:
            pile.append(card)
        else:
            pile.insert(0, card)
    return [card for pile in piles for card in pile]


class ShufflerMachine:
    def __init__(
        self,
        decks: int = 1,
        *,
        recognition: bool = True,
        rng: random.Random | None = None,
        timing: MachineTiming = MachineTiming(),
    ) -> None:
        if not 1 <= decks <= MAX_DECKS:
            raise ValueError(f"decks={decks}: a shuffler holds 1 to {MAX_DECKS} decks")
        self.decks = decks
        self.recognition = recognition
        self.rng = rng or random.SystemRandom()
        self.timing = timing
        self.faults = MachineFaults()
        self.cards: list[int | None] = [c for _ in range(decks) for c in range(DECK_SIZE)]
        self.stack: list[int | None] = []
        self.out: list[int | None] = []
        self.mode = ShuffleMode.HAND_FORMING
        self.shuffled = False
        self.packets = 0
        self.fault = ErrorCode.OK
        self.door_open = False
        self.busy = False
        self.arranged: list[int] = []  # top first: laid on top of the next shuffle

    # --- state ------------------------------------------------------------------------------

    @property
    def state(self) -> DeviceState:
        if self.fault:
            return DeviceState.FAULT
        if self.busy:
            return DeviceState.BUSY
        if not self.shuffled:
            return DeviceState.IDLE
        return DeviceState.SHOE if self.mode == ShuffleMode.SHOE else DeviceState.READY

    def status(self) -> StatusReply:
        return StatusReply(
            self.state,
            int(self.door_open),
            self.fault,
            len(self.cards),
            len(self.stack),
            self.packets,
        )

    def raise_fault(self, code: ErrorCode) -> None:
        self.fault = code

    def _require_ready(self, mode: ShuffleMode | None = None) -> None:
        if self.door_open:
            raise MachineError(ErrorCode.DOOR_OPEN, "the door is open: close it")
        if self.fault:
            raise MachineError(
                ErrorCode.FAULT_ACTIVE, f"{self.fault.name} is active: fix it, then RESET 0"
            )
        if mode is not None and not self.shuffled:
            raise MachineError(ErrorCode.NOT_SHUFFLED, "no shuffled cards: SHUFFLE first")
        if mode is not None and self.mode != mode:
            raise MachineError(ErrorCode.WRONG_MODE, f"the machine is in {self.mode.name} mode")

    def duration(self, kind: str, cards: int = 0) -> float:
        t = self.timing
        return {"shuffle": t.shuffle, "reset": t.reset}.get(kind, t.per_card * cards)

    # --- operations -------------------------------------------------------------------------

    def deck_check(self) -> DeckCheckReply:
        self._require_ready()
        counts = [0] * DECK_SIZE
        foreign = 0
        for card in self.cards:
            if card is None:
                foreign += 1
            else:
                counts[card] += 1
        missing = tuple((c, self.decks - n) for c, n in enumerate(counts) if n < self.decks)
        duplicate = tuple((c, n - self.decks) for c, n in enumerate(counts) if n > self.decks)
        return DeckCheckReply(DECK_SIZE * self.decks, len(self.cards), foreign, missing, duplicate)

    def shuffle(self, mode: int) -> ShuffleReply:
        self._require_ready()
        collected = self.out + self.stack[::-1] if self.shuffled else list(self.cards)
        if self.faults.biased_shuffle:
            collected = shelf_pass(collected, self.rng)
        else:
            fisher_yates(collected, self.rng)
        if self.arranged:
            collected = _on_top(collected, self.arranged)
            self.arranged = []
        self.stack = collected
        self.out = []
        self.mode = ShuffleMode(mode)
        self.shuffled = True
        self.packets = 0
        return ShuffleReply(len(self.stack), self.mode)

    def _read(self, card: int | None, face_up: bool) -> DealtCard:
        recognised = self.recognition and not self.faults.reader_failure
        return DealtCard(card if recognised else None, face_up)

    def deal(self, count: int, tag: int) -> tuple[DealReply, ErrorCode]:
        """Deliver one packet. Returns the reply and the fault it raised (``OK`` if none)."""
        self._require_ready(ShuffleMode.HAND_FORMING)
        f = self.faults
        packet = self.packets + 1
        n = count + (f.wrong_count_delta if f.wrong_count_at_packet == packet else 0)
        if n > len(self.stack):
            raise MachineError(
                ErrorCode.NOT_ENOUGH_CARDS,
                f"{len(self.stack)} cards left, {n} requested: SHUFFLE again",
            )
        status = ErrorCode.OK
        if f.jam_at_packet == packet:
            n, status = n // 2, ErrorCode.JAM
            self.fault = ErrorCode.JAM
        exposed = f.exposed_cards if f.exposed_at_packet == packet else 0
        self.packets = packet
        cards = []
        for i in range(n):
            card = self.stack.pop()
            self.out.append(card)
            cards.append(self._read(card, face_up=i < exposed))
        return DealReply(status, tag, count, tuple(cards)), status

    def draw(self) -> CardEvent:
        """The dealer pulls one card from the shoe; none comes out while it shuffles (its
        SHUFFLE reply still to come: a card then would belong to no shoe the host knows)."""
        self._require_ready(ShuffleMode.SHOE)
        if self.busy:
            raise MachineError(ErrorCode.NOT_SHUFFLED, "the shoe is shuffling: draw when done")
        if not self.stack:
            raise MachineError(ErrorCode.NOT_ENOUGH_CARDS, "the shoe is empty: SHUFFLE again")
        card = self.stack.pop()
        self.out.append(card)
        read = self._read(card, face_up=False)
        return CardEvent(len(self.out), read.card, FACE_UP if read.face_up else 0)

    def reinsert(self, cards: tuple[int | None, ...]) -> ReinsertReply:
        """Delivered cards (any destination) come back into the remaining stack, which is
        shuffled again (MD-X1..X3)."""
        self._require_ready(self.mode)
        still_out = list(self.out)
        for card in cards:
            if card is None:
                if not still_out:
                    raise MachineError(ErrorCode.BAD_ARGUMENT, "no delivered card to put back")
                still_out.pop()
            elif card in still_out:
                still_out.remove(card)
            else:
                raise MachineError(
                    ErrorCode.BAD_ARGUMENT, f"card code {card} was not delivered since the shuffle"
                )
        back = list(self.out)
        for card in still_out:
            back.remove(card)
        self.out = still_out
        self.stack += back
        fisher_yates(self.stack, self.rng)
        return ReinsertReply(len(back), len(self.stack))

    def reset(self, level: int) -> ResetReply:
        self.fault = ErrorCode.OK
        if level >= 1:
            self.cards_home()
        return ResetReply(self.state)

    def cards_home(self) -> None:
        self.stack, self.out, self.shuffled, self.packets = [], [], False, 0

    def arrange(self, top: list[int], *, now: bool = False) -> None:
        """Lay ``top`` (card codes, top first) on top of the next shuffle, or with ``now`` on
        top of the shuffled stack in play. Raises MachineError for a card the machine does
        not hold (or, with ``now``, that is not in the stack any more); changes nothing then."""
        pool = self.stack if now else self.cards
        if now and not self.shuffled:
            raise MachineError(
                ErrorCode.NOT_SHUFFLED, "no shuffled cards to arrange: SHUFFLE first"
            )
        _on_top(list(pool), top)  # validates before anything changes
        if now:
            self.stack = _on_top(self.stack, top)
        else:
            self.arranged = list(top)

    # --- deck tampering (fault injection) ---------------------------------------------------

    def tamper_deck(
        self,
        remove: tuple[int, ...] = (),
        duplicate: tuple[int, ...] = (),
        foreign: int = 0,
    ) -> None:
        """Take cards out of the machine, add extra copies, or add foreign cards. The shuffled
        stack is dropped: the change shows from the next deck check or shuffle on."""
        for card in remove:
            if card not in self.cards:
                raise MachineError(ErrorCode.BAD_ARGUMENT, f"card code {card} is not loaded")
            self.cards.remove(card)
        for card in duplicate:
            if not 0 <= card < DECK_SIZE:
                raise MachineError(ErrorCode.BAD_ARGUMENT, f"card code {card} outside 0..51")
            self.cards.append(card)
        self.cards += [None] * foreign
        self.cards_home()


def _on_top(stack: list[int | None], top: list[int]) -> list[int | None]:
    """``stack`` (top = end) with the cards of ``top`` (top first) taken out and laid on it."""
    rest = list(stack)
    for card in top:
        if card not in rest:
            raise MachineError(
                ErrorCode.BAD_ARGUMENT,
                f"card code {card} is not available to arrange (each card only as often as loaded)",
            )
        rest.remove(card)
    return rest + list(reversed(top))
