"""How many connections and live streams croupier-web holds at once (docs/web.md, Connections).

Theory of operation. Every connection costs a file descriptor and some memory, and a live
stream (server-sent events) holds its connection for as long as the page is open. Without a
bound, a client on the pit network that opens thousands of sockets, or thousands of streams,
runs the service out of file descriptors and nobody gets a page.

- **Connections** (:class:`ConnectionGate`, the listening socket's protocol factory): at most
  ``max_connections`` at once. At the cap, a new connection takes the place of the oldest one
  that has no request in progress (a keep-alive connection between requests, or one that has
  not sent a whole request yet: a slow or silent client); it is closed, as the idle timeout
  would close it later. Only when every connection is busy (a request in progress or a live
  stream) is the new one refused: ``503 Service Unavailable`` with ``Retry-After``, written
  at once without reading the request, then the connection is closed (after at most
  :data:`LINGER` seconds, so that the client reads the answer instead of a reset; at most
  :data:`MAX_LINGERING` such closings wait at once, beyond that they close at once). A
  running stream is never closed for a newcomer: the pit's screens that watch stay.
- **Live streams** (:class:`StreamLimits`, pure): streams of visitors who are not logged in
  count against ``max_streams`` in all and ``max_streams_per_client`` per client address (an
  IPv6 one by its /64); ``max_streams`` is below ``max_connections``, so they can never hold
  every connection. A logged-in session's streams count against that session alone
  (:data:`STREAMS_PER_SESSION`, a browser's tabs), never against the strangers': a flood of
  anonymous streams does not keep a logged-in pit user's page from going live. Beyond a
  limit the stream is refused with 503 and ``Retry-After``; the page tries again.
- **The log**: refusals and closings are counted per kind in a
  :class:`~firmware_bridge.log_budget.LogBudget`: the first of a quiet period is logged at
  once, the rest of the window (:data:`LOG_INTERVAL`) in one summary line at its end.

What a flood can still do: nothing is known of a connection before its request is read, so a
flood that keeps every connection busy with requests in progress (a few hundred clients
each asking for ``/metrics`` without pause) keeps newcomers out, logged in or not, while it
lasts; the pit's running streams stay. Behind the TLS reverse proxy every client has the
proxy's address, so there ``max_streams_per_client`` bounds all anonymous streams that come
through the proxy together.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from typing import Any

from aiohttp import web

from controller.table.log_summaries import SummaryTimer
from firmware_bridge.log_budget import LogBudget, Suppressed

log = logging.getLogger("croupier-web.limits")
RETRY_AFTER = 5  # seconds a refused client is asked to wait (the Retry-After header)
LINGER = 1.0  # seconds a refused connection stays open for its client to read the 503
MAX_LINGERING = 64  # refused connections lingering at once; beyond, closed at once
STREAMS_PER_SESSION = 8  # live streams of one logged-in session (a browser's pages)
STALL_SECONDS = 15.0  # writing paused this long (no client time known): the peer is dropped
LOG_INTERVAL = 60.0  # seconds: one line, then one summary, per kind of refusal
REFUSAL = (
    "HTTP/1.1 503 Service Unavailable\r\n"
    "Content-Type: text/plain; charset=utf-8\r\n"
    f"Retry-After: {RETRY_AFTER}\r\n"
    "Cache-Control: no-store\r\n"
    "Connection: close\r\n"
    "Content-Length: {length}\r\n"
    "\r\n"
    "{body}"
)
REFUSAL_BODY = f"too many connections: try again in {RETRY_AFTER} s\n"
REFUSAL_BYTES = REFUSAL.format(length=len(REFUSAL_BODY), body=REFUSAL_BODY).encode()


class StreamsFull(Exception):
    """A live stream refused: the reason names the limit (for the 503's text)."""


class StreamLimits:
    """The live streams open now, by who holds them (pure: no clock needed)."""

    def __init__(self, total: int, per_client: int, per_session: int = STREAMS_PER_SESSION) -> None:
        self.total, self.per_client, self.per_session = total, per_client, per_session
        self._clients: Counter[str] = Counter()  # anonymous streams per client address key
        self._sessions: Counter[str] = Counter()  # logged-in streams per session ID
        self.anonymous = 0

    def open(self, client: str, session: str | None) -> tuple[str, str | None]:
        """Count a stream of ``client`` (an address key), or of the logged-in ``session``
        (its ID, None when not logged in); its ticket for :meth:`close`. Raises
        :class:`StreamsFull` with the limit it would pass."""
        if session is not None:
            if self._sessions[session] >= self.per_session:
                raise StreamsFull(f"{self.per_session} live pages open in this session")
            self._sessions[session] += 1
            return client, session
        if self.anonymous >= self.total:
            raise StreamsFull(f"{self.total} live pages open without a login")
        if self._clients[client] >= self.per_client:
            raise StreamsFull(f"{self.per_client} live pages open from this address")
        self._clients[client] += 1
        self.anonymous += 1
        return client, None

    def close(self, ticket: tuple[str, str | None]) -> None:
        client, session = ticket
        counts = self._sessions if session is not None else self._clients
        key = session if session is not None else client
        counts[key] -= 1
        if counts[key] <= 0:
            del counts[key]
        if session is None:
            self.anonymous -= 1

    def __len__(self) -> int:
        return self.anonymous + sum(self._sessions.values())


class Complaints:
    """One log line per kind of refusal per window, and a summary of the rest when the
    window ends (controller.table.log_summaries: on the next complaint, or the timer armed
    for it)."""

    def __init__(
        self, interval: float = LOG_INTERVAL, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.budget: LogBudget[str] = LogBudget(interval)
        self.clock = clock
        self.counts: Counter[str] = Counter()  # every complaint, logged or not
        self.summaries = SummaryTimer(self.budget, self._summary, clock)

    def __call__(self, kind: str, message: str, *args: Any) -> None:
        self.counts[kind] += 1
        now = self.clock()
        self.summaries.flush()
        if self.budget.allow(kind, now):
            log.warning(message, *args)
        self.summaries.arm()

    def _summary(self, late: Suppressed[str], now: float, closing: bool) -> None:
        if closing:
            log.warning("%d more %s before the stop", late.count, late.kind)
        else:
            log.warning(
                "%d more %s in the last %.0f s", late.count, late.kind, self.budget.interval
            )

    def close(self) -> None:
        """At the stop: the summaries of every window, ended or not."""
        self.summaries.close()


class _Counted(asyncio.Protocol):
    """aiohttp's protocol for one connection, counted by the gate until it is lost."""

    def __init__(self, gate: ConnectionGate, handler: Any) -> None:
        self.gate, self.handler = gate, handler
        self.transport: asyncio.Transport | None = None
        self.evicted = False  # evicted before it started (a burst of accepts): closed then
        self.started = False  # aiohttp's protocol has the connection
        self.stalled: asyncio.TimerHandle | None = None  # writing paused: dropped then

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        if self.evicted:
            transport.close()  # aiohttp never sees it
            return
        self.started = True
        self.handler.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        self.handler.data_received(data)

    def eof_received(self) -> bool | None:
        return self.handler.eof_received()  # type: ignore[no-any-return]

    def pause_writing(self) -> None:
        """The peer reads slower than we write. A peer that reads nothing at all (answers
        asked for and left unread, a stream never read) held its request in progress for
        good, waiting to drain: a busy connection the gate could never evict. Dropped when
        writing stays paused for the client time (the runner's keep-alive timeout)."""
        self.handler.pause_writing()
        stall = getattr(self.handler, "keepalive_timeout", 0) or STALL_SECONDS
        if self.transport is not None and self.stalled is None:
            self.stalled = asyncio.get_running_loop().call_later(stall, self.transport.abort)

    def resume_writing(self) -> None:
        if self.stalled is not None:
            self.stalled.cancel()
            self.stalled = None
        self.handler.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.stalled is not None:
            self.stalled.cancel()
            self.stalled = None
        self.gate._open.pop(self, None)
        if self.started:
            self.handler.connection_lost(exc)

    def is_idle(self) -> bool:
        """No request to lose: none whole yet (a slow or silent client; or not even started:
        accepted in the same burst), or aiohttp's loop waits for the next one (its own test
        for an idle keep-alive, RequestHandler._process_keepalive). Not its
        ``_request_in_progress``: that is set when the handler's task first runs, on Python
        3.11 an iteration or two after the request arrived, and it is unset while pipelined
        requests wait. aiohttp keeps both in private attributes; without them, nothing
        started is idle and the gate refuses instead."""
        if self.transport is None or getattr(self.handler, "_request_count", 1) == 0:
            return True
        waiter = getattr(self.handler, "_waiter", None)
        return waiter is not None and not waiter.done()

    def close(self) -> None:
        self.evicted = True
        transport = self.transport
        if transport is None:
            return  # closed as it starts
        if transport.get_write_buffer_size():
            transport.abort()  # a peer that does not read would hold a close() open
        else:
            transport.close()


class _Refused(asyncio.Protocol):
    """A connection beyond the cap: the 503 written at once, then closed."""

    def __init__(self, gate: ConnectionGate) -> None:
        self.gate = gate
        self.timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        transport.write(REFUSAL_BYTES)
        if self.gate.lingering >= MAX_LINGERING or transport.is_closing():
            transport.abort()
            return
        try:
            transport.write_eof()  # the answer is whole; the client's request is read and dropped
        except OSError:  # the client is gone already (ENOTCONN): nothing to linger for
            transport.abort()
            return
        self.gate.lingering += 1
        self.timer = asyncio.get_running_loop().call_later(LINGER, transport.abort)

    def data_received(self, data: bytes) -> None:
        pass

    def eof_received(self) -> bool:
        return False  # the client has read the answer and gone: close

    def connection_lost(self, exc: Exception | None) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.gate.lingering -= 1


class ConnectionGate:
    """The protocol factory of the listening socket: aiohttp's own protocol for at most
    ``max_connections`` connections at once (the module's header says how the cap is kept)."""

    def __init__(self, server: web.Server, max_connections: int, complaints: Complaints) -> None:
        self.server = server
        self.max_connections = max_connections
        self.complaints = complaints
        self._open: OrderedDict[_Counted, None] = OrderedDict()  # oldest accepted first
        self.lingering = 0
        self.refused = 0
        self.evicted = 0

    @property
    def connections(self) -> int:
        return len(self._open)

    def __call__(self) -> asyncio.BaseProtocol:
        if len(self._open) >= self.max_connections and not self._evict_one():
            self.refused += 1
            self.complaints(
                "connections refused",
                "%d connections, every one busy: new connections are refused (503) while they last",
                len(self._open),
            )
            return _Refused(self)
        counted = _Counted(self, self.server())
        self._open[counted] = None
        return counted

    def _evict_one(self) -> bool:
        for conn in self._open:
            if conn.is_idle():
                del self._open[conn]  # no longer counted: its place is the newcomer's
                conn.close()
                self.evicted += 1
                self.complaints(
                    "idle connections closed",
                    "%d connections: the oldest idle one is closed for a new one",
                    self.max_connections,
                )
                return True
        return False


class GatedSite(web.BaseSite):
    """A TCP site whose connections go through a :class:`ConnectionGate`."""

    def __init__(self, runner: web.BaseRunner, host: str, port: int, gate: ConnectionGate) -> None:
        super().__init__(runner)
        self._host, self._port, self.gate = host, port, gate

    @property
    def name(self) -> str:
        return f"http://{self._host}:{self.port}"

    @property
    def port(self) -> int:
        if self._server is not None and self._server.sockets:
            return int(self._server.sockets[0].getsockname()[1])
        return self._port

    async def start(self) -> None:
        await super().start()
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(
            self.gate, self._host, self._port, backlog=self._backlog
        )
