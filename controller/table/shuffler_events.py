"""What the shuffler's answers mean for the table, as events (pure): used by the daemon's
:class:`~controller.table.shuffler_link.ShufflerLink` and by the deterministic simulator
(:mod:`controller.rig.sim`), which drive the same requests over different transports.

- :func:`firmware_condition`: an identify's firmware SHA-256 against the allow-list;
- :func:`status_condition`: a STATUS reply's fault and door;
- :func:`describe_deck`, :func:`deck_condition`: a deck check, counted (no card identities in
  status or journal);
- :class:`ResetShuffler`: the technician's command to reset the machine;
- ``IDENTIFY_RETRY_*``: when an identify refused with the link up is tried again.
- :func:`deal_events`: a DEAL reply as the table's events; a packet cut short by a jam is
  reported as the fault first (MD-S2, a malfunction), then as the packet.
- :class:`FaultStorm`: faults reported faster than a machine with a person at it makes them
  (a bouncing door switch, a loose connector, a hostile device) are one storm, not one
  journal entry and one STATUS request each.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from controller.engine.deal.validator import COMMUNITY, DEALER, Packet
from controller.table.events import (
    Condition,
    ConditionChanged,
    Event,
    PacketDelivered,
    RequestPacket,
    ShufflerFault,
)
from firmware_bridge.codes import ErrorCode
from firmware_bridge.messages import (
    CardEvent,
    DealReply,
    DeckCheckReply,
    FaultEvent,
    IdentifyReply,
    Message,
    StatusReply,
)

DEALER_TAG = 15
# An identify (with its deck check and, a shoe, SHOE mode) refused while the link is up is
# tried again after IDENTIFY_RETRY_FIRST seconds, the pause doubling to IDENTIFY_RETRY_MAX: a
# shoe still busy with the operation a controller's crash interrupted answers NAK BUSY, and
# nothing else would identify it (the link stays up, the machine does not restart).
IDENTIFY_RETRY_FIRST = 1.0
IDENTIFY_RETRY_MAX = 60.0
# A STATUS that failed with the link up (a reply lost, a timeout) is asked again after this
# many seconds: the ``shuffler`` condition never stays on an answer that did not come (a
# fault storm's end, a door shut). With the link down, the next identify asks it.
STATUS_RETRY = 2.0
SHOE = "shoe"  # the destination of a card from the shoe
# More than STORM_FAULTS faults (FAULT events raised or cleared, protocol violations) within
# STORM_WINDOW seconds is a storm; it ends after STORM_WINDOW seconds without one. A jam
# cleared by a technician, with the door opened and shut, is four or five events in a minute.
STORM_FAULTS = 20
STORM_WINDOW = 10.0


@dataclass(frozen=True)
class ResetShuffler:
    """RESET 0 (a technician cleared the fault), then STATUS and a deck count."""

    technician: str


def device_event(message: Message, shoe: bool) -> tuple[list[Event], bool]:
    """What an event the shuffler sent by itself means for the table: the events to post, and
    whether its STATUS must be asked again (after any fault event, raised or cleared). A CARD
    event is a one-card packet only from a shoe."""
    if isinstance(message, FaultEvent):
        events: list[Event] = []
        if message.active:
            name = ErrorCode(message.code).name.lower().replace("_", " ")
            detail = f": {message.detail}" if message.detail else ""
            events.append(ShufflerFault(f"{name}{detail}"))
        return events, True
    if isinstance(message, CardEvent) and shoe:
        return [PacketDelivered(Packet(SHOE, (message.card,), (message.face_up,)))], False
    return [], False


def tag_of(destination: str) -> int:
    """A destination as its one-byte tag: community 0, seat N is N, the dealer 15."""
    if destination == COMMUNITY:
        return 0
    if destination == DEALER:
        return DEALER_TAG
    return int(destination.split(":", 1)[1])


def destination_of(tag: int) -> str:
    if tag == 0:
        return COMMUNITY
    if tag == DEALER_TAG:
        return DEALER
    return f"seat:{tag}"


def firmware_condition(identity: IdentifyReply, allow: set[str]) -> ConditionChanged:
    digest = identity.fw_sha256.hex()
    if digest in allow:
        return ConditionChanged(Condition.FIRMWARE, False)
    return ConditionChanged(
        Condition.FIRMWARE,
        True,
        f"shuffler firmware {identity.fw_version} sha256 {digest} is not on the"
        " allow-list ([shuffler] firmware_allow)",
    )


def status_condition(status: StatusReply | None, storm: str = "") -> ConditionChanged:
    """The ``shuffler`` condition from the last STATUS (``None``: none answered yet) and a
    fault storm's description (``""``: no storm)."""
    problems = [storm] if storm else []
    if status is not None and status.fault != ErrorCode.OK:
        problems.append(
            f"{ErrorCode(status.fault).name} active: clear it, then reset the"
            " shuffler (croupier shuffler reset)"
        )
    if status is not None and status.door_open:
        problems.append("the shuffler's door is open")
    return ConditionChanged(Condition.SHUFFLER, bool(problems), "; ".join(problems))


def describe_deck(reply: DeckCheckReply, name: Callable[[int], str] | None) -> tuple[bool, str]:
    """(deck is good, one line for a technician), e.g. "51 cards, missing 7h"; without
    ``name`` the cards are counted, not named ("missing 1 card")."""
    parts = [f"{reply.counted} of {reply.expected} cards"]
    if reply.missing:
        if name is None:
            parts.append(f"missing {sum(n for _c, n in reply.missing)} card(s)")
        else:
            parts.append("missing " + " ".join(name(c) for c, _n in reply.missing))
    if reply.duplicate:
        if name is None:
            parts.append(f"{len(reply.duplicate)} card(s) duplicated")
        else:
            parts.append("duplicate " + " ".join(f"{name(c)} x{n}" for c, n in reply.duplicate))
    if reply.foreign:
        parts.append(f"{reply.foreign} foreign card(s)")
    good = (
        reply.counted == reply.expected
        and not reply.missing
        and not reply.duplicate
        and not reply.foreign
    )
    return good, ", ".join(parts)


def deck_condition(good: bool, text: str) -> ConditionChanged:
    """``good`` and ``text`` from :func:`describe_deck`."""
    return ConditionChanged(Condition.DECK, not good, "" if good else f"deck check: {text}")


def deal_events(
    reply: DealReply, request: RequestPacket, round_id: str | None, arrived: float | None
) -> list[Event]:
    packet = Packet(
        destination_of(reply.tag),
        tuple(c.card for c in reply.cards),
        tuple(c.face_up for c in reply.cards),
    )
    events: list[Event] = []
    if reply.status != ErrorCode.OK:
        # a malfunction explains a short packet: the fault (MD-S2) comes first
        events.append(
            ShufflerFault(
                f"{ErrorCode(reply.status).name.lower()} during the packet to {request.destination}"
            )
        )
    events.append(PacketDelivered(packet, arrived, round_id))
    return events


class Storm(Enum):
    """What :meth:`FaultStorm.report` says about one more fault."""

    PASS = "pass"  # an ordinary fault: the table hears of it
    BEGINS = "begins"  # this one makes the storm: say so once, then count
    WITHIN = "within"  # the storm goes on: counted only


class FaultStorm:
    """Faults the machine reports, in a sliding window (pure, time is an input).

    Before this, every FAULT event was a ``shuffler-fault`` journal entry (a ledger commit),
    a STATUS request and, with the door, a ``condition`` entry and two transitions, however
    fast they came: a bouncing door switch or a babbling device grew the ledger and the
    request queue without bound. During a storm the table is closed (the ``shuffler``
    condition says why) and the faults are counted; a round being dealt when it begins is
    void (MD-S2, the storm is a malfunction); once the machine is quiet for a whole window
    the storm is over, its count is logged and the STATUS the link then asks opens the table
    again."""

    def __init__(self, limit: int = STORM_FAULTS, window: float = STORM_WINDOW) -> None:
        self.limit = limit
        self.window = window
        self.raging = False
        self.counted = 0  # faults not passed on during the storm
        self._times: deque[float] = deque(maxlen=limit + 1)

    def report(self, now: float) -> Storm:
        times = self._times
        times.append(now)
        while times[0] <= now - self.window:
            times.popleft()
        if self.raging:
            self.counted += 1
            return Storm.WITHIN
        if len(times) > self.limit:
            self.raging = True
            return Storm.BEGINS
        return Storm.PASS

    def calm_at(self) -> float | None:
        """When the storm may be over (``None``: no storm)."""
        return self._times[-1] + self.window if self.raging else None

    def calm(self, now: float) -> int | None:
        """End the storm if the machine has been quiet for a whole window: the faults it
        counted; ``None`` while it goes on (or there is none)."""
        at = self.calm_at()
        if at is None or now < at:
            return None
        counted, self.counted, self.raging = self.counted, 0, False
        self._times.clear()
        return counted

    @property
    def detail(self) -> str:
        """The storm as the ``shuffler`` condition says it (``""``: no storm)."""
        if not self.raging:
            return ""
        return (
            f"the shuffler reports faults faster than {self.limit} in {self.window:g} s"
            " (a bouncing door switch, a loose connector?): counted, not journaled one by one,"
            f" until it is quiet for {self.window:g} s"
        )
