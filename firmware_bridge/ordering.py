"""What the host checks about the order and the pairing of what the device sends (pure).

- :class:`EventWindow`: event de-duplication (docs/protocol.md sec. 2.4). Event ``SEQ`` runs
  1..255 and wraps to 1; ``0`` is never an event. With one event in flight at the device, a
  new event is always the next ``SEQ`` after the last one accepted; anything in the
  :data:`WINDOW` sequence numbers behind it (by serial-number arithmetic, RFC 1982, so it is
  wrap safe) is a late or repeated copy and is not delivered again. A ``SEQ`` further ahead
  than the next one is delivered and counted as a gap (the device broke the one-in-flight
  rule, or it restarted unnoticed). The window belongs to one device boot: it is reset when
  the ``boot_id`` changes (``IDENTIFY`` reply or ``PONG``), so the first event after a reboot,
  numbered 1 again, is never mistaken for a duplicate.
- :class:`CardOrder`: shoe ``CARD`` events carry ``index`` = cards drawn since the shuffle,
  from 1; each must be the next one. A ``SHUFFLE`` reply starts again at 1; a ``REINSERT``
  reply that accepted ``k`` cards steps back by ``k`` (they are in the machine again). Events
  and replies travel apart (an event waits for its ACK, retransmitted on its own timer), so a
  card drawn *before* a ``SHUFFLE`` can reach the host *after* its reply: e.g. a card drawn
  while the cable was out, whose event is retransmitted once the link is back and the host
  has put the shoe in play again. Such a card continues the order of the shoe before the
  shuffle, which took it back: it is **late** (:meth:`CardOrder.late`), not a card of this
  shoe and no protocol violation. The retransmission backs off to 2 s, so the link may go down
  and up again, and the host shuffle again, before it arrives: late cards may belong to any
  earlier shoe (the last :data:`OLD_SHOES`), each continuing its own order. Events keep their
  order, so late cards come oldest shoe first, and none after the first card of the current
  shoe. When no card of a shoe came before the next SHUFFLE (two in a row), the late card's
  index is the new shoe's first too: then the ``STATUS`` the host asks before every SHUFFLE
  settles it (:meth:`CardOrder.device_drawn`: the cards the machine says left the shoe, less
  those the host saw, are still on their way).
- :func:`reply_mismatch`: a reply that decodes and carries the request's ``SEQ`` must also
  answer *that* request: a ``DEAL`` reply echoes the tag and the count requested and holds at
  most that many cards when complete; a ``SHUFFLE`` reply names the mode asked for; a
  ``REINSERT`` reply accepts at most the cards sent. After ``SEQ`` wraps (every 255 requests) a
  very late reply to an older request could carry the current ``SEQ``; this is what tells
  them apart.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from firmware_bridge.messages import (
    DealReply,
    DealRequest,
    Message,
    ReinsertReply,
    ReinsertRequest,
    ShuffleReply,
    ShuffleRequest,
)

SEQ_SPACE = 255  # event and request SEQ run 1..255
WINDOW = 127  # SEQ numbers behind the last accepted event that are duplicates (half the space)


def seq_distance(last: int, seq: int) -> int:
    """How far ``seq`` is ahead of ``last`` in the 1..255 space (0..254, wrap safe)."""
    return (seq - last) % SEQ_SPACE


class Verdict(Enum):
    NEW = "new"  # the next event: deliver it
    GAP = "gap"  # ahead of the next one: deliver it, but events were skipped
    DUPLICATE = "duplicate"  # already delivered (or a late copy): acknowledge only


class EventWindow:
    """Accepted event SEQ numbers of one device boot (see the module docstring)."""

    def __init__(self) -> None:
        self.last: int | None = None
        self.boot_id: int | None = None

    def new_boot(self, boot_id: int) -> bool:
        """The device's ``boot_id`` as just reported; True (window reset) when it changed."""
        if boot_id == self.boot_id:
            return False
        self.boot_id = boot_id
        self.last = None
        return True

    def accept(self, seq: int) -> Verdict:
        if self.last is None:
            self.last = seq
            return Verdict.NEW
        distance = seq_distance(self.last, seq)
        if distance == 0 or distance >= SEQ_SPACE - WINDOW:
            return Verdict.DUPLICATE
        self.last = seq
        return Verdict.NEW if distance == 1 else Verdict.GAP


@dataclass
class OldShoe:
    """A shoe a shuffle took back whose cards may still arrive (see the module docstring)."""

    next: int  # the index its next late card would carry
    unseen: int  # cards its last STATUS said left it that the host had not seen then
    uncounted: int = 0  # late cards taken beyond those (drawn after that STATUS)


OLD_SHOES = 16  # the earlier shoes remembered; a shuffle beyond forgets the oldest
# Late cards of a shoe beyond what its STATUS counted: a card drawn in the milliseconds between
# the STATUS and the SHUFFLE that follows it. More is no late card but a device out of order
# (one that dispensed while it shuffled): taking every next index as late would hide the
# current shoe's cards for good, so the next one is checked, and a break is a violation.
UNCOUNTED_LATE = 2


@dataclass
class CardOrder:
    """The next shoe card index expected (None: not known yet, the next one sets it), and the
    shoes before the last shuffles whose late cards may still come, oldest first (empty once a
    card of the current shoe arrived: events keep their order)."""

    expected: int | None = None
    unseen: int = 0  # cards the machine's last STATUS says left the shoe, not yet seen
    old: list[OldShoe] = field(default_factory=list)

    def device_drawn(self, drawn: int) -> None:
        """A ``STATUS`` in shoe mode: ``drawn`` cards left the shoe since its shuffle."""
        if self.expected is not None:
            self.unseen = max(0, drawn - (self.expected - 1))

    def shuffled(self) -> None:
        if self.expected is not None:
            self.old = [*self.old, OldShoe(self.expected, self.unseen)][-OLD_SHOES:]
        self.expected, self.unseen = 1, 0

    def reinserted(self, accepted: int) -> None:
        if self.expected is not None:
            self.expected = max(1, self.expected - accepted)

    def forget(self) -> None:
        self.expected, self.unseen, self.old = None, 0, []

    def late(self, index: int) -> bool:
        """True for a card of a shoe before the last shuffle(s) (see the module docstring):
        the next card of one of them, oldest first; when that index is also the current
        shoe's next one, only while that shoe's STATUS says a card of it is still to come;
        beyond what the STATUS counted, at most :data:`UNCOUNTED_LATE` of them. A late card
        of a shoe means none of the shoes before it has any left to send; a card of the
        current shoe, that none has."""
        for n, shoe in enumerate(self.old):
            counted = shoe.unseen > 0
            uncounted = index != self.expected and shoe.uncounted < UNCOUNTED_LATE
            if shoe.next == index and (counted or uncounted):
                del self.old[:n]
                shoe.next = index + 1
                if counted:
                    shoe.unseen -= 1
                else:
                    shoe.uncounted += 1
                return True
        self.old.clear()
        return False

    def check(self, index: int) -> str | None:
        """None when ``index`` is the next card; else what is wrong (the order re-bases on
        ``index`` so one fault is reported once). Ask :meth:`late` first."""
        expected, self.expected = self.expected, index + 1
        if expected is None or index == expected:
            return None
        what = "repeated" if index < expected else f"{index - expected} card(s) skipped"
        return f"shoe card index {index} where {expected} was next ({what})"


def reply_mismatch(request: Message, reply: Message) -> str | None:
    """Why ``reply`` cannot be the answer to ``request`` (None when it can)."""
    if isinstance(request, DealRequest) and isinstance(reply, DealReply):
        if (reply.tag, reply.requested) != (request.tag, request.count):
            return (
                f"DEAL reply for tag {reply.tag}, {reply.requested} card(s) answers a DEAL of "
                f"{request.count} card(s) for tag {request.tag}"
            )
    elif isinstance(request, ShuffleRequest) and isinstance(reply, ShuffleReply):
        if reply.mode != request.mode:
            return f"SHUFFLE reply in mode {reply.mode} answers a SHUFFLE in mode {request.mode}"
    elif (
        isinstance(request, ReinsertRequest)
        and isinstance(reply, ReinsertReply)
        and reply.accepted > len(request.cards)
    ):
        return f"REINSERT reply accepting {reply.accepted} of {len(request.cards)} card(s) sent"
    return None
