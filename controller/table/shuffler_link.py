"""The daemon's side of the shuffler: keeps the link up and turns it into table events.

:class:`ShufflerLink` owns a :class:`~drivers.shuffler_client.ShufflerClient`. It

- connects, retrying with backoff while the device is absent (the table stays CLOSED with the
  ``link`` condition meanwhile), and lets the client reconnect by itself after that;
- checks trust on every identify: the firmware SHA-256 must be on the allow-list, or the
  ``firmware`` condition keeps the table CLOSED; then counts the deck (``deck`` condition);
- translates the client's events: link up/down -> ``ConditionChanged(LINK)``, a device fault
  -> ``ShufflerFault``, a card leaving the shoe -> ``PacketDelivered`` (shoe mode);
- keeps the table closed while the machine reports a fault or an open door (the ``shuffler``
  condition, from a STATUS asked at identify and after fault events, one STATUS waiting at
  most): a jam stays until a technician clears it and resets the machine
  (:class:`ResetShuffler`, ``croupier shuffler reset``);
- bounds what a machine reporting faults faster than people make them costs
  (:class:`~controller.table.shuffler_events.FaultStorm`): the storm closes the table once,
  its faults are counted, and it ends after a quiet window;
- carries out the machine's shuffler effects one at a time, in order (shuffle, deal a packet,
  take cards back for MD-X1..X3, count the deck), feeding each outcome back as an event. A packet
  cut short by a jam is reported as the fault first (MD-S2, a malfunction), then as the
  packet.

Destinations travel as one-byte tags: community 0, seat N is N, the dealer 15.

For the jackpot evidence bundle (docs/evidence.md) it keeps every DEAL exchange, each frame
exactly as it crossed the wire (:mod:`controller.table.link_evidence`), the last
:data:`RECORDED` of them in :attr:`recorded` until the runner stores the round's in the
surveillance store when the round closes (:meth:`exchanges_of`); each deck check's exchange
goes to ``keep_deck_check`` (the surveillance store) as it is made. They hold card
identities and leave the daemon only in a credentialed bundle.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

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
from controller.table.link_evidence import exchange_entry
from controller.table.shuffler_events import (
    IDENTIFY_RETRY_FIRST,
    IDENTIFY_RETRY_MAX,
    STATUS_RETRY,
    FaultStorm,
    ResetShuffler,
    Storm,
    deal_events,
    deck_condition,
    describe_deck,
    device_event,
    firmware_condition,
    status_condition,
    tag_of,
)
from drivers.errors import DriverError
from drivers.reconnect import Backoff
from drivers.shuffler_client import ShufflerClient
from firmware_bridge.errors import LinkError
from firmware_bridge.messages import (
    DealReply,
    DealRequest,
    DeckCheckReply,
    DeckCheckRequest,
    FaultEvent,
    IdentifyReply,
    ShuffleMode,
    StatusReply,
)
from firmware_bridge.session import (
    Completed,
    DeviceEvent,
    DeviceRebooted,
    LinkDownEvent,
    LinkUp,
    ProtocolViolation,
)

log = logging.getLogger(__name__)

RECORDED = 2000  # DEAL exchanges kept in memory until their round is stored


@dataclass(frozen=True)
class _CheckStatus:
    """STATUS: open or close the ``shuffler`` condition from the machine's fault and door."""


class ShufflerLink:
    def __init__(
        self,
        client: ShufflerClient,
        post: Callable[[Event], None],
        *,
        firmware_allow: set[str],
        shoe: bool,
        card_name: Callable[[int], str],
        is_current: Callable[[str], bool] = lambda round_id: True,
        keep_deck_check: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self.client = client
        self.is_current = is_current
        self.keep_deck_check = keep_deck_check
        self.post = post
        self.firmware_allow = firmware_allow
        self.shoe = shoe
        self.card_name = card_name
        self.identity: IdentifyReply | None = None
        self.last_deck: str = ""
        self.recorded: deque[dict[str, Any]] = deque(maxlen=RECORDED)
        # the same exchanges by round: a settled round's are found without walking them all
        # (2,000 of them, each round; docs/daemon.md, "Fast on a slow CPU")
        self._by_round: dict[str | None, deque[dict[str, Any]]] = {}
        self._identified = False  # identified (and, a shoe, in SHOE mode) since the link came up
        self._link_down = False  # the session reported the link down and not up again since
        self._identifying = asyncio.Lock()  # one identify at a time (supervisor, reset, retry)
        # An identify refused while the link is up (a shoe busy with the operation a crash
        # interrupted answers NAK BUSY) is tried again after a growing pause: nothing else
        # would identify it, and the table would stay closed until the daemon restarts.
        self._retry = Backoff(initial=IDENTIFY_RETRY_FIRST, ceiling=IDENTIFY_RETRY_MAX)
        self._retry_task: asyncio.Task[None] | None = None
        self._closing = False
        self._commands: asyncio.Queue[tuple[Any, str | None]] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []
        self._status_queued = False  # a STATUS waits in _commands: another would read the same
        self._last_status: StatusReply | None = None
        self.storm = FaultStorm()
        self._storm_timer: asyncio.TimerHandle | None = None
        self._status_retry: asyncio.TimerHandle | None = None  # a failed STATUS asked again

    async def start(self) -> None:
        self.post(
            ConditionChanged(
                Condition.LINK, True, f"connecting to {self.client.transport.description}"
            )
        )
        self._tasks = [
            asyncio.create_task(self._supervise(), name="shuffler-supervisor"),
            asyncio.create_task(self._work(), name="shuffler-commands"),
        ]

    async def close(self) -> None:
        self._closing = True
        for timer in (self._storm_timer, self._status_retry):
            if timer is not None:
                timer.cancel()
        if self._retry_task is not None:
            self._tasks.append(self._retry_task)
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self.client.close()

    def submit(
        self,
        effect: RequestPacket | ShuffleDeck | ReinsertCards | CheckDeck | ResetShuffler,
        round_id: str | None = None,
    ) -> None:
        """Queue a command; with ``round_id`` it is dropped if that round is over by the time
        its turn comes (a voided round's packets are never dealt)."""
        self._commands.put_nowait((effect, round_id))

    # --- connection and events ---------------------------------------------------------

    async def _supervise(self) -> None:
        loop = asyncio.get_running_loop()
        backoff = Backoff()
        while True:
            try:
                await self.client.connect(identify=False)
                break
            except (DriverError, LinkError, OSError) as exc:
                when = backoff.failed(loop.time())
                self.post(ConditionChanged(Condition.LINK, True, f"shuffler not reachable: {exc}"))
                await asyncio.sleep(max(0.0, when - loop.time()))
        # The session reports LinkUp at the first frame it receives, i.e. during the identify
        # just made: only a link that went down since (or an identify that failed) calls for
        # another. A second identify would put a shoe into SHOE mode again: a fresh shuffle
        # under a table that is already open.
        await self._identify()
        async for event in self.client.events():
            if isinstance(event, LinkUp):
                self._link_down = False
                await self._identify(only_if_needed=True)
            elif isinstance(event, LinkDownEvent):
                self._link_down = True
                self._identified = False
                self.post(ConditionChanged(Condition.LINK, True, event.reason))
            elif isinstance(event, DeviceRebooted):
                self.post(ShufflerFault("the shuffler restarted"))
                # its session is gone (every request would be NAK NO_SESSION) and it sends
                # no event before the next IDENTIFY (docs/protocol.md sec. 2.3, 2.4)
                await self._identify()
            elif isinstance(event, ProtocolViolation):
                if self._passes_storm():
                    self.post(ShufflerFault(f"the shuffler broke the protocol: {event.reason}"))
            elif isinstance(event, DeviceEvent):
                self._device_event(event)

    async def _identify(self, *, only_if_needed: bool = False) -> None:
        """Identify, check the machine and (shoe) start SHOE mode; ``_identified`` says
        whether that worked. A failure with the link up is tried again later
        (:meth:`_retry_later`). ``only_if_needed``: not when the machine is identified by the
        time this one's turn comes (another identify ran meanwhile: a second would put a shoe
        into SHOE mode again, a fresh shuffle under an open table)."""
        async with self._identifying:
            if only_if_needed and self._identified:
                return
            await self._identify_once()
        if self._identified:
            self._retry.succeeded()
        elif not self._link_down:
            self._retry_later()

    def _retry_later(self) -> None:
        pending = self._retry_task
        if self._closing or (
            pending is not None and not pending.done() and pending is not asyncio.current_task()
        ):
            return
        loop = asyncio.get_running_loop()
        when = self._retry.failed(loop.time())

        async def again() -> None:
            await asyncio.sleep(max(0.0, when - loop.time()))
            if not self._link_down and not self._closing:
                log.info("shuffler: identifying again (attempt %d)", self._retry.failures + 1)
                await self._identify(only_if_needed=True)

        self._retry_task = asyncio.create_task(again(), name="shuffler-identify-again")

    async def _identify_once(self) -> None:
        self._identified = False
        try:
            identity = await self.client.identify()
        except (LinkError, DriverError) as exc:
            self.post(ConditionChanged(Condition.LINK, True, f"shuffler does not identify: {exc}"))
            return
        self.identity = identity
        self.post(firmware_condition(identity, self.firmware_allow))
        await self._check_status()
        await self._check_deck()
        if self.shoe:  # blackjack: the machine works as a shoe, reporting every card
            try:
                shuffled = await self.client.shuffle(ShuffleMode.SHOE)
            except (LinkError, DriverError) as exc:
                self.post(ConditionChanged(Condition.LINK, True, f"shoe mode refused: {exc}"))
                return
            self.post(ShoeShuffled(shuffled.cards))
        self._identified = True
        self.post(ConditionChanged(Condition.LINK, False))

    def _device_event(self, event: DeviceEvent) -> None:
        if isinstance(event.message, FaultEvent) and not self._passes_storm():
            return
        events, check_status = device_event(event.message, self.shoe)
        for posted in events:
            self.post(posted)
        if check_status:
            self._want_status()

    def _want_status(self) -> None:
        """Ask the machine's STATUS, unless a STATUS is already waiting its turn (it will
        read the state this one would)."""
        if not self._status_queued:
            self._status_queued = True
            self._commands.put_nowait((_CheckStatus(), None))

    def _passes_storm(self) -> bool:
        """Count one fault the machine reported; False when it is part of a storm (counted,
        not passed on). The fault that begins a storm is a malfunction (MD-S2 for a round
        being dealt) and closes the table with the ``shuffler`` condition."""
        loop = asyncio.get_running_loop()
        verdict = self.storm.report(loop.time())
        if verdict is Storm.BEGINS:
            detail = self.storm.detail
            log.error("shuffler: %s", detail)
            self.post(ShufflerFault(detail))
            self.post(status_condition(self._last_status, detail))
            self._storm_timer = loop.call_at(self.storm.calm_at() or loop.time(), self._storm_over)
        return verdict is Storm.PASS

    def _storm_over(self) -> None:
        loop = asyncio.get_running_loop()
        counted = self.storm.calm(loop.time())
        if counted is None:  # faults came meanwhile: wait for a whole quiet window
            self._storm_timer = loop.call_at(self.storm.calm_at() or loop.time(), self._storm_over)
            return
        self._storm_timer = None
        log.warning("shuffler: the fault storm is over (%d faults counted during it)", counted)
        self._want_status()  # the condition follows the machine again

    # --- commands ----------------------------------------------------------------------

    async def _work(self) -> None:
        while True:
            effect, round_id = await self._commands.get()
            if round_id is not None and not self.is_current(round_id):
                log.info(
                    "dropped %s of round %s: the round is over", type(effect).__name__, round_id
                )
                continue
            try:
                if isinstance(effect, ShuffleDeck):
                    await self._shuffle()
                elif isinstance(effect, RequestPacket):
                    await self._deal(effect, round_id)
                elif isinstance(effect, ReinsertCards):
                    await self.client.reinsert(effect.cards)
                elif isinstance(effect, CheckDeck):
                    await self._check_deck()
                elif isinstance(effect, _CheckStatus):
                    self._status_queued = False  # a fault from now on needs a STATUS of its own
                    await self._check_status()
                elif isinstance(effect, ResetShuffler):
                    await self.client.reset(0)
                    await self._check_status()
                    await self._check_deck()
                    # e.g. a shoe refused SHOE mode for a misfeed
                    await self._identify(only_if_needed=True)
            except (LinkError, DriverError) as exc:
                self.post(ShufflerFault(f"{type(effect).__name__}: {exc}"))

    async def _shuffle(self) -> None:
        """Hand-forming: the deck of the next round. A shoe at its cut card: every card back
        in it and shuffled (controller.table.shoe); a shoe whose SHUFFLE failed is identified
        again, SHOE mode and all, after the identify's pause, the table closed meanwhile."""
        if not self.shoe:
            await self.client.shuffle(ShuffleMode.HAND_FORMING)
            return
        # the cards the machine says left the shoe, before it takes them back: late ones may
        # still be on their way (firmware_bridge/ordering.py), as before an identify's SHUFFLE
        await self._check_status()
        try:
            shuffled = await self.client.shuffle(ShuffleMode.SHOE)
        except (LinkError, DriverError):
            self._identified = False
            if not self._link_down:  # a link down identifies it when it comes back
                self._retry_later()
            raise
        self.post(ShoeShuffled(shuffled.cards))

    def identity_json(self) -> dict[str, Any] | None:
        """The shuffler as the link identified it (model, serial, firmware and its SHA-256)."""
        identity = self.identity
        return (
            None
            if identity is None
            else {
                "model": identity.model,
                "serial": getattr(identity, "serial", None),
                "firmware": identity.fw_version,
                "firmware_sha256": identity.fw_sha256.hex(),
            }
        )

    def exchanges_of(self, round_id: str) -> list[dict[str, Any]]:
        """The DEAL exchanges of a round still in memory, oldest first."""
        return list(self._by_round.get(round_id, ()))

    def _record(self, entry: dict[str, Any]) -> None:
        """Keep a DEAL exchange (the oldest kept goes once :data:`RECORDED` are)."""
        if len(self.recorded) == RECORDED:
            oldest = self.recorded[0]
            same = self._by_round[oldest["round"]]
            same.popleft()  # the round's oldest is the oldest of all
            if not same:
                del self._by_round[oldest["round"]]
        self.recorded.append(entry)
        self._by_round.setdefault(entry["round"], deque()).append(entry)

    def _entry(
        self, kind: str, round_id: str | None, done: Completed, text: str | None = None
    ) -> dict[str, Any]:
        offset = time.time() - asyncio.get_running_loop().time()  # the wall clock's lead
        return exchange_entry(kind, round_id, done.reply, done.frames, offset, text)

    async def _deal(self, request: RequestPacket, round_id: str | None) -> None:
        done = await self.client.exchange(DealRequest(request.count, tag_of(request.destination)))
        reply = done.reply
        assert isinstance(reply, DealReply)  # the session matched it to the request
        arrived = asyncio.get_running_loop().time()
        self._record(self._entry("deal", round_id, done))
        for event in deal_events(reply, request, round_id, arrived):
            self.post(event)

    async def _check_status(self) -> None:
        try:
            status = await self.client.status()
        except (LinkError, DriverError) as exc:
            log.warning("shuffler status: %s", exc)
            if self.client.link_up and not self._closing:  # down: the identify asks again
                # one retry pending at most: a STATUS asked meanwhile for another reason
                # (a fault, a storm's end) would otherwise start a chain of its own
                if self._status_retry is not None:
                    self._status_retry.cancel()
                self._status_retry = asyncio.get_running_loop().call_later(
                    STATUS_RETRY, self._want_status
                )
            return
        self._last_status = status
        self.post(status_condition(status, self.storm.detail))

    async def _check_deck(self) -> None:
        try:
            done = await self.client.exchange(DeckCheckRequest())
        except (LinkError, DriverError) as exc:
            self.post(ConditionChanged(Condition.DECK, True, f"deck check failed: {exc}"))
            return
        reply = done.reply
        assert isinstance(reply, DeckCheckReply)  # the session matched it to the request
        # counts only: the text reaches status and the journal (no card identities there);
        # `croupier shuffler deck-check` on the port names the cards for a technician
        good, text = describe_deck(reply, None)
        # the evidence bundle (credentialed, like the surveillance store) names the cards
        _, named = describe_deck(reply, self.card_name)
        if self.keep_deck_check is not None:
            self.keep_deck_check(self._entry("deck-check", None, done, named))
        self.last_deck = text
        self.post(deck_condition(good, text))
