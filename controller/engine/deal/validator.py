"""The deal validator: every packet the shuffler delivers, checked against the deal plan and
the misdeal rules (MD-S1..S3), pure and synchronous.

Theory of operation. At LOCK the daemon builds a :class:`DealPlan` from the profile and the
seats in play (UTH-11: community 5, then 2 per active seat left to right, then the dealer's
2). A :class:`DealValidator` then takes the shuffler's events in order:

- :meth:`~DealValidator.packet` for each delivered packet (destination, count, recognised card
  identities or None, a face-up flag per card);
- :meth:`~DealValidator.fault` for an asynchronous shuffler fault (jam, door, misfeed...);
- :meth:`~DealValidator.poll` with the current time, so a packet that never comes is a
  shuffler malfunction after ``packet_timeout`` seconds (time is an input; the validator never
  reads a clock). :meth:`~DealValidator.next_deadline` says when to poll.

Each returns a :class:`Verdict`, its :class:`VerdictStatus` ``OK`` (go on), ``VERIFIED`` (the
whole plan arrived with the right counts: the green light of UTH-11 Italian), or ``MISDEAL``
with its rule:

- MD-S1: a wrong number of cards to a player, the dealer or the board (a packet with the
  wrong count, to the wrong place, or more packets than planned);
- MD-S2: a shuffler malfunction: a fault event, a packet overdue, or a deck error seen in the
  recognised cards (a card delivered twice, a code outside the declared deck);
- MD-S3: two or more cards exposed (face up) in the round.

A single exposed card is not a misdeal (MD-S3 needs two); it is reported in ``notes`` so the
daemon journals it. After a MISDEAL the validator stays in that verdict: the round is void.

Exposed cards that are not a misdeal (MD-X1 and MD-X2, Greek; MD-X3, Italian): once the deal
is VERIFIED, :meth:`DealValidator.replace` takes cards of one destination (the dealer's, the
community's) back into the machine and plans one more packet of as many replacements to it;
the verdict is OK again until it arrives, and that packet is checked like any other (a wrong
count or place is MD-S1, face-up cards count towards MD-S3). The cards taken back are no
longer counted as delivered, so they may come out again without being a deck error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

COMMUNITY, DEALER = "community", "dealer"


def seat_destination(seat: int) -> str:
    return f"seat:{seat}"


@dataclass(frozen=True)
class PlannedPacket:
    destination: str
    count: int


@dataclass(frozen=True)
class DealPlan:
    packets: tuple[PlannedPacket, ...]
    decks: int = 1

    @property
    def total_cards(self) -> int:
        return sum(p.count for p in self.packets)


def holdem_plan(seats: Sequence[int], *, game: str = "uth") -> DealPlan:
    """UTH-11 with a shuffler: community 5, then 2 per active seat left to right (ascending
    seat numbers), then the dealer's 2. Casino Hold'em is dealt in the same order (CH-3: the
    same cards, 5 community, 2 each)."""
    if not seats:
        raise ValueError("a deal plan needs at least one active seat")
    if game not in ("uth", "casino-holdem"):
        raise ValueError(f"no hand-forming deal plan for game {game!r}")
    packets = [PlannedPacket(COMMUNITY, 5)]
    packets += [PlannedPacket(seat_destination(s), 2) for s in sorted(seats)]
    packets.append(PlannedPacket(DEALER, 2))
    return DealPlan(tuple(packets))


@dataclass(frozen=True)
class Packet:
    """A delivered packet as the shuffler reported it."""

    destination: str
    cards: tuple[int | None, ...]  # recognised card codes, None where not recognised
    face_up: tuple[bool, ...]

    @property
    def count(self) -> int:
        return len(self.cards)


class VerdictStatus(StrEnum):
    """Where the deal stands, as the validator sees it. Not the table's state
    (:class:`~controller.table.machine.TableState`), whose VERIFIED follows this one's. The
    values are what the table's status reports as ``verdict.status``."""

    OK = "ok"  # go on
    VERIFIED = "verified"  # the whole plan arrived with the right counts
    MISDEAL = "misdeal"  # the round is void (``rule`` says why)


@dataclass(frozen=True)
class Verdict:
    status: VerdictStatus
    rule: str | None = None  # the MD rule of a misdeal
    reason: str = ""  # for anyone: never names a card
    notes: tuple[str, ...] = ()  # things to journal that are not misdeals
    detail: str = ""  # for the journal and surveillance only: may name cards
    deck_error: bool = False  # the recognised cards show a bad deck

    @property
    def is_misdeal(self) -> bool:
        return self.status == VerdictStatus.MISDEAL


@dataclass
class DealValidator:
    plan: DealPlan
    started: float  # when the deal was requested (seconds, the daemon's clock)
    packet_timeout: float = 10.0
    delivered: list[Packet] = field(default_factory=list)
    verdict: Verdict = field(default_factory=lambda: Verdict(VerdictStatus.OK))
    _last_activity: float = field(init=False)
    _seen: dict[int, list[str]] = field(default_factory=dict, init=False)
    _exposed: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        self._last_activity = self.started

    def restart(self, now: float) -> None:
        """Start the packet clock again (the deal really starts when the round is open)."""
        self._last_activity = now

    @property
    def is_done(self) -> bool:
        return self.verdict.status != VerdictStatus.OK

    def expected(self) -> PlannedPacket | None:
        """The next packet of the plan, or None when the plan is complete."""
        index = len(self.delivered)
        return self.plan.packets[index] if index < len(self.plan.packets) else None

    def next_deadline(self) -> float | None:
        return None if self.is_done else self._last_activity + self.packet_timeout

    def _misdeal(
        self, rule: str, reason: str, detail: str = "", deck_error: bool = False
    ) -> Verdict:
        self.verdict = Verdict(VerdictStatus.MISDEAL, rule, reason, (), detail, deck_error)
        return self.verdict

    def packet(self, packet: Packet, now: float) -> Verdict:
        if self.is_done:
            if self.verdict.status == VerdictStatus.VERIFIED:  # a packet after the complete deal
                return self._misdeal(
                    "MD-S1",
                    f"extra packet of {packet.count} card(s) to {packet.destination}"
                    " after the deal was complete",
                )
            return self.verdict
        self._last_activity = now
        expected = self.expected()
        assert expected is not None
        self.delivered.append(packet)
        if len(packet.face_up) != packet.count:
            return self._misdeal(
                "MD-S2", "the shuffler reported face-up flags that do not match the card count"
            )
        if packet.destination != expected.destination:
            return self._misdeal(
                "MD-S1",
                f"{packet.count} card(s) went to {packet.destination} but the plan"
                f" expected {expected.count} to {expected.destination}",
            )
        if packet.count != expected.count:
            return self._misdeal(
                "MD-S1",
                f"{packet.destination} received {packet.count} card(s), expected {expected.count}",
            )
        deck_error = self._check_identities(packet)
        if deck_error:
            public, detail = deck_error
            return self._misdeal("MD-S2", public, detail, deck_error=True)
        notes: tuple[str, ...] = ()
        exposed = sum(packet.face_up)
        if exposed:
            self._exposed += exposed
            if self._exposed >= 2:
                return self._misdeal(
                    "MD-S3",
                    f"{self._exposed} cards exposed face up (latest: {exposed} in the"
                    f" {packet.destination} packet)",
                )
            notes = (
                f"one card exposed face up in the {packet.destination} packet (MD-S3 needs"
                " two for a misdeal)",
            )
        if self.expected() is None:
            self.verdict = Verdict(VerdictStatus.VERIFIED, None, "card count verified", notes)
            return self.verdict
        return Verdict(VerdictStatus.OK, None, "", notes)

    def _check_identities(self, packet: Packet) -> tuple[str, str] | None:
        """(public reason, detail naming the cards) of a deck error, or None."""
        for card in packet.cards:
            if card is None:
                continue
            if not 0 <= card < 52:
                reason = "deck error: the shuffler reported a card code outside the deck"
                return reason, f"card code {card} in the {packet.destination} packet"
            places = self._seen.setdefault(card, [])
            places.append(packet.destination)
            if len(places) > self.plan.decks:
                decks = "one deck" if self.plan.decks == 1 else f"{self.plan.decks} decks"
                return (
                    f"deck error: a card delivered more often than {decks} holds",
                    # where, not which: the journal and status carry no card identity
                    f"a card delivered {len(places)} times ({', '.join(places)})",
                )
        return None

    @property
    def exposed(self) -> int:
        """The cards the shuffler delivered face up in this round (MD-S3 counts them)."""
        return self._exposed

    def replace(self, destination: str, cards: Sequence[int | None], now: float) -> None:
        """MD-X1, MD-X2, MD-X3: ``cards`` of ``destination`` went back into the shuffler; one
        more packet of as many replacements to ``destination`` is due. Only after a verified
        deal (ValueError otherwise)."""
        if self.verdict.status != VerdictStatus.VERIFIED:
            raise ValueError("cards are replaced only after the deal was verified (MD-X1..X3)")
        for card in cards:
            places = self._seen.get(card) if card is not None else None
            if places and destination in places:
                places.remove(destination)
        extra = PlannedPacket(destination, len(cards))
        self.plan = DealPlan((*self.plan.packets, extra), self.plan.decks)
        self.verdict = Verdict(VerdictStatus.OK)
        self._last_activity = now

    def fault(self, description: str, now: float) -> Verdict:
        """A shuffler fault during the deal voids the round (MD-S2)."""
        if self.is_done and self.verdict.status == VerdictStatus.MISDEAL:
            return self.verdict
        if self.verdict.status == VerdictStatus.VERIFIED:
            return self.verdict  # a fault after a verified deal does not void the cards dealt
        return self._misdeal("MD-S2", f"shuffler fault during the deal: {description}")

    def poll(self, now: float) -> Verdict:
        deadline = self.next_deadline()
        if deadline is not None and now >= deadline:
            expected = self.expected()
            where = f"{expected.count} card(s) to {expected.destination}" if expected else "?"
            return self._misdeal(
                "MD-S2",
                f"shuffler malfunction: no packet for {self.packet_timeout:g} s"
                f" (waiting for {where})",
            )
        return self.verdict

    def cards_by_destination(self) -> dict[str, tuple[int | None, ...]]:
        return {p.destination: p.cards for p in self.delivered}
