"""The asyncio adapter over the sans-I/O shuffler session: what the daemon and the CLI use.

    client = ShufflerClient(open_transport("/dev/shuffler"))   # drivers.transport
    await client.connect()              # opens the port, identifies the device
    await client.shuffle()
    packet = await client.deal(2, tag=3)
    async for event in client.events(): # faults, shoe cards, link up/down, device reboots
        ...

Theory of operation: the client owns one :class:`~firmware_bridge.session.HostSession` and
one transport. Received bytes and timer expiries go into the session with ``loop.time()`` as
``now``; whatever the session wants sent is written; its events resolve request futures or go
to the event stream. When the transport is lost the session fails what is pending
(``LinkDown``) and the client reopens the transport with a :class:`~drivers.reconnect.Backoff`
(the table stays CLOSED meanwhile), then re-identifies with the same session nonce so the
device's duplicate memory still protects a retransmitted DEAL.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections.abc import AsyncIterator

from drivers.errors import TransportError
from drivers.reconnect import Backoff
from drivers.transport import Transport
from firmware_bridge.errors import RequestFailed
from firmware_bridge.log_budget import LogBudget
from firmware_bridge.messages import (
    DealReply,
    DealRequest,
    DeckCheckReply,
    DeckCheckRequest,
    IdentifyReply,
    Message,
    ReinsertReply,
    ReinsertRequest,
    ResetReply,
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
    LinkTiming,
    LinkUp,
    ProtocolViolation,
)

log = logging.getLogger(__name__)

ClientEvent = DeviceEvent | LinkUp | LinkDownEvent | DeviceRebooted | ProtocolViolation
# Events waiting for the controller. Past this the oldest goes, and the controller is told
# (a ProtocolViolation: a machine malfunction for the round in play, MD-S2), never silently:
# a card or a fault it never saw would leave the round wrong without a verdict.
EVENT_BACKLOG = 1000


class ShufflerClient:
    def __init__(
        self,
        transport: Transport,
        *,
        timing: LinkTiming | None = None,
        backoff: Backoff | None = None,
        nonce: int | None = None,
    ) -> None:
        self.transport = transport
        self.session = HostSession(timing, nonce)
        self.backoff = backoff or Backoff()
        self._futures: dict[int, asyncio.Future[Completed]] = {}
        self._events: asyncio.Queue[ClientEvent] = asyncio.Queue(EVENT_BACKLOG)
        self._timer: asyncio.TimerHandle | None = None
        self._reconnect: asyncio.Task[None] | None = None
        self._closed = False
        self.events_dropped = 0
        self._dropped_unreported = 0
        self._log_budget: LogBudget[str] = LogBudget()

    @property
    def identity(self) -> IdentifyReply | None:
        return self.session.identity

    @property
    def link_up(self) -> bool:
        return self.session.link_up

    # --- lifecycle --------------------------------------------------------------------------

    async def connect(self, identify: bool = True) -> None:
        """Open the transport (raises TransportError at once if it cannot be opened) and,
        by default, identify the device (raises RequestFailed if it does not answer)."""
        loop = asyncio.get_running_loop()
        await self.transport.open(self._on_data, self._on_lost)
        self.session.connection_made(loop.time())
        self._flush()
        if identify:
            await self.identify()

    async def close(self) -> None:
        self._closed = True
        if self._timer is not None:
            self._timer.cancel()
        if self._reconnect is not None:
            self._reconnect.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reconnect
        self.transport.close()
        now = asyncio.get_running_loop().time()
        self.session.connection_lost(now, "closed by the host", expected=True)
        self._dispatch()
        self._log_drop_summaries(now, closing=True)  # no timer after this: none are lost

    async def __aenter__(self) -> ShufflerClient:
        await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def events(self) -> AsyncIterator[ClientEvent]:
        while True:
            yield await self._events.get()

    # --- requests ---------------------------------------------------------------------------

    async def request(self, msg: Message) -> Message:
        """Send one request; returns its reply or raises a RequestFailed subclass."""
        return (await self.exchange(msg)).reply

    async def exchange(self, msg: Message) -> Completed:
        """Send one request; returns its reply with every frame of the exchange (exact
        bytes, ``loop.time()`` of each), or raises a RequestFailed subclass."""
        loop = asyncio.get_running_loop()
        handle = self.session.submit(msg, loop.time())
        future: asyncio.Future[Completed] = loop.create_future()
        self._futures[handle] = future
        self._flush()
        return await future

    async def identify(self) -> IdentifyReply:
        return await self.request(self.session.identify_request())  # type: ignore[return-value]

    async def status(self) -> StatusReply:
        return await self.request(StatusRequest())  # type: ignore[return-value]

    async def deck_check(self) -> DeckCheckReply:
        return await self.request(DeckCheckRequest())  # type: ignore[return-value]

    async def shuffle(self, mode: ShuffleMode = ShuffleMode.HAND_FORMING) -> ShuffleReply:
        return await self.request(ShuffleRequest(mode))  # type: ignore[return-value]

    async def deal(self, count: int, tag: int = 0) -> DealReply:
        return await self.request(DealRequest(count, tag))  # type: ignore[return-value]

    async def reinsert(self, cards: tuple[int | None, ...]) -> ReinsertReply:
        return await self.request(ReinsertRequest(tuple(cards)))  # type: ignore[return-value]

    async def reset(self, level: int = 0) -> ResetReply:
        return await self.request(ResetRequest(level))  # type: ignore[return-value]

    # --- plumbing ---------------------------------------------------------------------------

    def _on_data(self, data: bytes) -> None:
        self.session.receive_data(data, asyncio.get_running_loop().time())
        self._flush()

    def _on_lost(self, exc: Exception | None) -> None:
        if self._closed:
            return
        now = asyncio.get_running_loop().time()
        reason = f"{self.transport.description} lost: {exc or 'closed'}"
        log.error("%s", reason)
        self.transport.close()
        self.session.connection_lost(now, reason)
        self._dispatch()
        if not self._closed and (self._reconnect is None or self._reconnect.done()):
            self.backoff.failed(now)
            self._reconnect = asyncio.create_task(self._reopen(), name="shuffler-reconnect")

    async def _reopen(self) -> None:
        loop = asyncio.get_running_loop()
        while not self._closed:
            await asyncio.sleep(max(0.0, self.backoff.next_attempt - loop.time()))
            try:
                await self.transport.open(self._on_data, self._on_lost)
            except TransportError as exc:
                when = self.backoff.failed(loop.time())
                log.warning(
                    "reopening %s failed (%s); next try in %.2f s",
                    self.transport.description,
                    exc,
                    when - loop.time(),
                )
                continue
            self.backoff.succeeded()
            self.session.connection_made(loop.time())
            self._flush()
            with contextlib.suppress(RequestFailed):
                await self.identify()  # same nonce: the device keeps its duplicate memory
            return

    def _flush(self) -> None:
        """Write what the session produced, hand out its events, re-arm its timer."""
        data = self.session.data_to_send()
        if data:
            self.transport.write(data)
        self._dispatch()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        deadline = self.session.next_deadline()
        summary = self._log_budget.next_due()  # the drop summary, even if nothing else wakes
        if summary is not None:
            deadline = summary if deadline is None else min(deadline, summary)
        if deadline is not None and not self._closed:
            self._timer = asyncio.get_running_loop().call_at(deadline, self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        self.session.poll(asyncio.get_running_loop().time())
        self._flush()

    def _dispatch(self) -> None:
        now = asyncio.get_running_loop().time()
        self._log_drop_summaries(now)
        while (ev := self.session.next_event()) is not None:
            if isinstance(ev, Completed | Failed):
                future = self._futures.pop(ev.handle, None)
                if future is None or future.done():
                    continue
                if isinstance(ev, Completed):
                    future.set_result(ev)
                else:
                    future.set_exception(ev.error)
            else:
                self._queue_event(ev)
        if self._dropped_unreported:
            dropped, self._dropped_unreported = self._dropped_unreported, 0
            why = (
                f"{dropped} shuffler event(s) dropped: more than {EVENT_BACKLOG} waited for"
                " the controller"
            )
            if self._log_budget.allow("dropped", now, count=dropped):
                log.error("shuffler: %s", why)  # each report is an event of its own too
            self._queue_event(ProtocolViolation(why))

    def _log_drop_summaries(self, now: float, *, closing: bool = False) -> None:
        """The events dropped in a budget window after its first report was logged: one
        line with their count when the window ends (:meth:`_flush` arms the timer for it),
        or, ``closing``, for every window still open."""
        for summary in self._log_budget.due(math.inf if closing else now):
            log.warning(
                "shuffler: %d more event(s) dropped in the last %.1f s (more than %d waited for"
                " the controller), each reported to it; counted in events_dropped, not logged"
                " one by one",
                summary.count,
                now - summary.since,
                EVENT_BACKLOG,
            )

    def _queue_event(self, ev: ClientEvent) -> None:
        """Queue an event for :meth:`events`; with the backlog full the oldest goes, counted
        (``events_dropped``) and reported by :meth:`_dispatch` as a ProtocolViolation."""
        if self._events.full():
            self._events.get_nowait()
            self.events_dropped += 1
            self._dropped_unreported += 1
        self._events.put_nowait(ev)
