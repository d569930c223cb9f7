"""The shuffler of a simulated table: the real :class:`~firmware_bridge.session.HostSession`
and the emulator's real firmware and machine, joined by a simulated line (:mod:`.wire`), and
the daemon's link logic in synchronous form.

What the daemon's :class:`~controller.table.shuffler_link.ShufflerLink` does with asyncio
tasks, this does with generators: a *job* yields the requests it wants answered and is resumed
with each reply (or the request's error thrown into it). Two jobs may wait at once, as in the
daemon: the supervisor's identify (after a link that came back, a device that restarted) and
the table's current command (commands run one at a time, in order; a command of a round that
is over is dropped). What the answers mean for the table comes from the same pure functions
the daemon uses (:mod:`controller.table.shuffler_events`).
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Generator
from typing import Any

from controller.rig.sim.times import earliest
from controller.rig.sim.wire import Direction, LineFaults
from controller.table.events import (
    CheckDeck,
    Condition,
    ConditionChanged,
    Event,
    ReinsertCards,
    RequestPacket,
    ShoeShuffled,
    ShuffleDeck,
    ShufflerFault,
)
from controller.table.shuffler_events import (
    IDENTIFY_RETRY_FIRST,
    IDENTIFY_RETRY_MAX,
    ResetShuffler,
    deal_events,
    deck_condition,
    describe_deck,
    device_event,
    firmware_condition,
    status_condition,
    tag_of,
)
from drivers.reconnect import Backoff
from firmware_bridge.emulator.firmware import DeviceFirmware
from firmware_bridge.emulator.machine import MachineTiming, ShufflerMachine
from firmware_bridge.errors import RequestFailed
from firmware_bridge.messages import (
    DealReply,
    DealRequest,
    DeckCheckReply,
    DeckCheckRequest,
    IdentifyReply,
    Message,
    ReinsertRequest,
    ResetRequest,
    ShuffleMode,
    ShuffleReply,
    ShuffleRequest,
    StatusReply,
    StatusRequest,
)
from firmware_bridge.session import (
    Completed,
    DeviceEvent,
    DeviceRebooted,
    Failed,
    HostSession,
    LinkDownEvent,
    LinkUp,
    ProtocolViolation,
)

Job = Generator[Message, Message, None]


class _CheckStatus:
    """STATUS after a fault event: open or close the ``shuffler`` condition."""


Command = RequestPacket | ShuffleDeck | ReinsertCards | CheckDeck | ResetShuffler | _CheckStatus
# the emulator at the speed of a real machine (shuffle 10 s would only slow the clock down)
FAST_MACHINE = MachineTiming(shuffle=0.5, per_card=0.005, reset=0.5)
# a machine that slows down: a packet takes longer than the table waits (packet_timeout)
SLOW_MACHINE = MachineTiming(shuffle=0.5, per_card=3.0, reset=0.5)


class SimShuffler:
    """``post`` takes the table's events; ``is_current`` says whether a round is still in
    play; ``deals`` is told each delivered DEAL reply with its round (the tally's record of
    what the machine dealt)."""

    def __init__(
        self,
        *,
        decks: int,
        shoe: bool,
        allow: set[str],
        rng: Callable[[str], random.Random],
        line: LineFaults,
        post: Callable[[Event], None],
        is_current: Callable[[str], bool],
        deals: Callable[[str | None, DealReply], None],
        now: float,
    ) -> None:
        self.machine = ShufflerMachine(decks, rng=rng("machine"), timing=FAST_MACHINE)
        self.device = DeviceFirmware(self.machine, rng=rng("firmware"))
        self._rng = rng
        self.host: HostSession | None = None  # the controller's side: gone while it is down
        self.to_device = Direction(rng("wire-out"), line)
        self.to_host = Direction(rng("wire-in"), line)
        self.cable = True
        self.shoe = shoe
        self.allow = allow
        self.post = post
        self.is_current = is_current
        self.deals = deals
        self._commands: deque[tuple[Command, str | None]] = deque()
        self._work: tuple[Job, int] | None = None  # the command being carried out, its handle
        self._supervisor: tuple[Job, int] | None = None
        self._identified = False
        # an identify job is under way, the supervisor's or a technician's reset's in the
        # command slot: another would shuffle the shoe a second time under the table (the
        # daemon's ShufflerLink waits for its identify lock, then skips it: only_if_needed)
        self._identifying = False
        self._identify_ended = False  # an identify job just ended (either way): see _after_job
        self._link_down = False
        self._retry = Backoff(initial=IDENTIFY_RETRY_FIRST, ceiling=IDENTIFY_RETRY_MAX)
        self._retry_at: float | None = None  # when a refused identify is tried again

    # --- the controller's side (lost in a crash) ---------------------------------------------

    def connect(self, now: float) -> None:
        """The controller (re)started: a new session (a new nonce), nothing pending."""
        self.host = HostSession(nonce=self._rng("nonce").getrandbits(32))
        self._commands.clear()
        self._work = self._supervisor = None
        self._identified = self._identifying = self._identify_ended = self._link_down = False
        self._retry = Backoff(initial=IDENTIFY_RETRY_FIRST, ceiling=IDENTIFY_RETRY_MAX)
        self._retry_at = None
        self.host.connection_made(now)
        self._start_supervisor(self._identify(), now)

    def host_lost(self, now: float) -> None:
        self.host = None

    # --- the table's side ------------------------------------------------------------------

    def submit(self, command: Command, round_id: str | None, now: float) -> None:
        self._commands.append((command, round_id))
        self._next_command(now)

    def submit_check_deck(self, now: float) -> None:
        """A technician has the deck counted again."""
        self.submit(CheckDeck(), None, now)

    # --- physical events (the sim's dealer and faults) ---------------------------------------

    def pull_cable(self) -> None:
        self.cable = False
        self.to_device.drop_all()
        self.to_host.drop_all()

    def put_cable_back(self) -> None:
        self.cable = True

    def reboot(self, now: float) -> None:
        self.device.power_cycle(self._rng("boots"))
        self.to_host.drop_all()

    def line_counts(self) -> dict[str, int]:
        """Chunks sent and the line's faults, both ways together."""
        return {k: n + self.to_host.counts[k] for k, n in self.to_device.counts.items()}

    # --- time ------------------------------------------------------------------------------

    def next_time(self) -> float | None:
        return earliest(
            self.host.next_deadline() if self.host else None,
            self._retry_at if self.host else None,
            self.device.next_deadline(),
            self.to_device.next_time(),
            self.to_host.next_time(),
        )

    def advance(self, now: float) -> None:
        """Everything due at ``now``: timers, bytes on the line, the session's events."""
        if self.host is not None:
            self.host.poll(now)
            if self._retry_at is not None and now >= self._retry_at:
                self._retry_at = None
                if not (self._identified or self._link_down or self._identifying):
                    self._start_supervisor(self._identify(), now)
        self.device.poll(now)
        self.pump(now)

    def pump(self, now: float) -> None:
        host = self.host
        while True:
            moved = False
            if host is not None:
                self.to_device.send(host.data_to_send(), now, self.cable)
            self.to_host.send(self.device.data_to_send(), now, self.cable)
            for chunk in self.to_device.due(now):
                self.device.receive_data(chunk, now)
                moved = True
            for chunk in self.to_host.due(now):
                if host is not None:  # nobody listens while the controller is down
                    host.receive_data(chunk, now)
                    moved = True
            while host is not None and (event := host.next_event()) is not None:
                self._session_event(event, now)
                moved = True
            if not moved:
                return

    # --- the session's events ----------------------------------------------------------------

    def _session_event(self, event: Any, now: float) -> None:
        if isinstance(event, Completed | Failed):
            for slot in ("_work", "_supervisor"):
                waiting = getattr(self, slot)
                if waiting is not None and waiting[1] == event.handle:
                    self._resume(slot, waiting[0], event, now)
                    return
        elif isinstance(event, LinkUp):
            self._link_down = False
            if not (self._identified or self._identifying):
                self._start_supervisor(self._identify(), now)
        elif isinstance(event, LinkDownEvent):
            self._link_down = True
            self._identified = False
            self.post(ConditionChanged(Condition.LINK, True, event.reason))
        elif isinstance(event, DeviceRebooted):
            self.post(ShufflerFault("the shuffler restarted"))
            if self._supervisor is None:
                self._start_supervisor(self._identify(), now)
        elif isinstance(event, ProtocolViolation):
            self.post(ShufflerFault(f"the shuffler broke the protocol: {event.reason}"))
        elif isinstance(event, DeviceEvent):
            self._device_event(event.message, now)

    def _device_event(self, message: Message, now: float) -> None:
        events, check_status = device_event(message, self.shoe)
        for event in events:
            self.post(event)
        if check_status:
            self._commands.append((_CheckStatus(), None))
            self._next_command(now)

    def _resume(self, slot: str, job: Job, outcome: Completed | Failed, now: float) -> None:
        setattr(self, slot, None)
        try:
            if isinstance(outcome, Completed):
                request = job.send(outcome.reply)
            else:
                request = job.throw(outcome.error)
        except StopIteration:
            self._after_job(now)
            if slot == "_work":
                self._next_command(now)
            return
        setattr(self, slot, (job, self._submit(request, now)))

    def _after_job(self, now: float) -> None:
        """As the daemon's ``ShufflerLink._identify``: an identify refused with the link up
        is tried again after the backoff's pause; one that worked resets the backoff."""
        if not self._identify_ended:
            return
        self._identify_ended = False
        if self._identified:
            self._retry.succeeded()
        elif not self._link_down and self._retry_at is None:
            self._retry_at = self._retry.failed(now)

    def _submit(self, request: Message, now: float) -> int:
        assert self.host is not None
        return self.host.submit(request, now)

    def _start_supervisor(self, job: Job, now: float) -> None:
        self._supervisor = (job, self._submit(next(job), now))

    def _next_command(self, now: float) -> None:
        while self.host is not None and self._work is None and self._commands:
            command, round_id = self._commands.popleft()
            if round_id is not None and not self.is_current(round_id):
                continue  # a voided round's packets are never dealt
            job = self._command(command, round_id)
            try:
                self._work = (job, self._submit(next(job), now))
            except StopIteration:
                continue

    # --- jobs ------------------------------------------------------------------------------

    def _identify(self) -> Job:
        assert self.host is not None
        self._identifying = True
        try:
            identity = yield self.host.identify_request()
        except RequestFailed as exc:
            self.post(ConditionChanged(Condition.LINK, True, f"shuffler does not identify: {exc}"))
            self._identifying, self._identify_ended = False, True
            return
        assert isinstance(identity, IdentifyReply)
        self.post(firmware_condition(identity, self.allow))
        yield from self._check_status()
        yield from self._check_deck()
        if self.shoe:
            try:
                shuffled = yield ShuffleRequest(ShuffleMode.SHOE)
            except RequestFailed as exc:
                self.post(ConditionChanged(Condition.LINK, True, f"shoe mode refused: {exc}"))
                self._identifying, self._identify_ended = False, True
                return
            assert isinstance(shuffled, ShuffleReply)
            self.post(ShoeShuffled(shuffled.cards))
        self._identifying = False
        self._identified = self._identify_ended = True
        self.post(ConditionChanged(Condition.LINK, False))

    def _command(self, command: Command, round_id: str | None) -> Job:
        try:
            if isinstance(command, ShuffleDeck):
                yield from self._shuffle()
            elif isinstance(command, RequestPacket):
                reply = yield DealRequest(command.count, tag_of(command.destination))
                assert isinstance(reply, DealReply)
                self.deals(round_id, reply)
                for event in deal_events(reply, command, round_id, None):
                    self.post(event)
            elif isinstance(command, ReinsertCards):
                yield ReinsertRequest(tuple(command.cards))
            elif isinstance(command, CheckDeck):
                yield from self._check_deck()
            elif isinstance(command, _CheckStatus):
                yield from self._check_status()
            elif isinstance(command, ResetShuffler):
                yield ResetRequest(0)
                yield from self._check_status()
                yield from self._check_deck()
                if not self._identified:  # e.g. a shoe refused SHOE mode for a misfeed
                    yield from self._identify()
        except RequestFailed as exc:
            self.post(ShufflerFault(f"{type(command).__name__}: {exc}"))

    def _shuffle(self) -> Job:
        """As the daemon's ``ShufflerLink._shuffle``: a shoe at its cut card is shuffled in
        SHOE mode; one whose SHUFFLE failed is identified again after the identify's pause."""
        if not self.shoe:
            yield ShuffleRequest(ShuffleMode.HAND_FORMING)
            return
        yield from self._check_status()  # as the identify's: late cards still on their way
        try:
            shuffled = yield ShuffleRequest(ShuffleMode.SHOE)
        except RequestFailed:
            self._identified = False
            self._identify_ended = True  # tried again as a refused identify (_after_job)
            raise
        assert isinstance(shuffled, ShuffleReply)
        self.post(ShoeShuffled(shuffled.cards))

    def _check_status(self) -> Job:
        try:
            status = yield StatusRequest()
        except RequestFailed:
            return
        assert isinstance(status, StatusReply)
        self.post(status_condition(status))

    def _check_deck(self) -> Job:
        try:
            reply = yield DeckCheckRequest()
        except RequestFailed as exc:
            self.post(ConditionChanged(Condition.DECK, True, f"deck check failed: {exc}"))
            return
        assert isinstance(reply, DeckCheckReply)
        self.post(deck_condition(*describe_deck(reply, None)))
