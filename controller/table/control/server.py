"""The control socket server (asyncio). The blocking client the CLI uses is
:mod:`controller.table.control.client` (re-exported here): the CLI loads it without asyncio.

The daemon registers one handler per command: ``async def handler(request) -> result`` (or a
plain function). Handlers raise :class:`ControlError` for a refusal the caller should see; any
other exception is logged (one line) and answered as ``internal`` without stopping the server.
The socket file is created with mode 0660 (group-restricted: the technicians' group), replacing
a stale socket left by a crash.

Limits (docs/daemon.md, docs/security.md): at most ``max_connections`` at once; root and the
daemon's own user get :data:`RESERVED_SLOTS` more, so a technician's ``sudo croupier status``
gets through a socket filled by someone else; a connection that sends no complete request for
``idle_timeout`` seconds (or does not read its replies) is closed. Each request carries the
peer's identity from ``SO_PEERCRED`` (:class:`~controller.table.control.guard.Peer`). When
the process runs out of file descriptors, asyncio's accept errors go through a
:class:`~firmware_bridge.log_budget.LogBudget` instead of a traceback per attempt: the first
failure of a quiet period is logged at once naming the error, the others of the next 10 s are
counted (``failed_accepts``) and summarised in one line when the 10 s are over.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import grp
import inspect
import logging
import os
import socket
import struct
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from controller.errors import CroupierError
from controller.files import clear_socket_path, file_identity, remove_if_same
from controller.table.control.guard import Peer
from controller.table.control.protocol import BadRequest, Request, decode_request, encode_reply
from controller.table.control.wire import MAX_LINE, ControlError
from controller.table.log_summaries import SummaryTimer
from firmware_bridge.log_budget import LogBudget, Suppressed

log = logging.getLogger(__name__)


Handler = Callable[[Request], Any | Awaitable[Any]]
RESERVED_SLOTS = 4  # connections beyond the cap for root and the daemon's own user
_PEERCRED = struct.Struct("3i")  # struct ucred: pid, uid, gid


def peer_of(sock: socket.socket | None) -> Peer | None:
    """The peer process of a Unix stream socket (SO_PEERCRED), or None if unknown."""
    if sock is None:
        return None
    try:
        pid, uid, gid = _PEERCRED.unpack(
            sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _PEERCRED.size)
        )
    except OSError:
        return None
    return Peer(pid, uid, gid)


class ControlServer:
    def __init__(
        self,
        path: str | Path,
        *,
        group: str | None = None,
        max_connections: int = 32,
        idle_timeout: float = 300.0,
    ) -> None:
        self.path = Path(path)
        self.group = group
        self.max_connections = max_connections
        self.idle_timeout = idle_timeout
        self.handlers: dict[str, Handler] = {}
        self.privileged_uids = {0, os.getuid()}
        self.connections = 0
        self.refused_connections = 0
        self._server: asyncio.AbstractServer | None = None
        self._bound: tuple[int, int] | None = None  # the socket this server made
        self.failed_accepts = 0
        self._accept_log: LogBudget[str] = LogBudget()  # kinds: the error's text
        # written even if the failures stop
        self._accept_summaries = SummaryTimer(self._accept_log, self._accept_summary)
        self._previous_handler: Any = None
        self._closed = False

    def register(self, cmd: str, handler: Handler) -> None:
        self.handlers[cmd] = handler

    async def start(self) -> None:
        """Listen. CroupierError for a control group that does not exist."""
        gid = None
        if self.group:
            try:
                gid = grp.getgrnam(self.group).gr_gid
            except KeyError:
                raise CroupierError(
                    f"control.group: no group {self.group!r} on this system"
                    " (create it, or fix [control] group)"
                ) from None
        loop = asyncio.get_running_loop()
        self._previous_handler = loop.get_exception_handler()
        loop.set_exception_handler(self._loop_exception)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        clear_socket_path(self.path)  # a stale one goes; a live daemon's is refused
        old_umask = os.umask(0o117)
        try:
            self._server = await asyncio.start_unix_server(
                self._serve, path=str(self.path), limit=MAX_LINE + 1
            )
        finally:
            os.umask(old_umask)
        self._bound = file_identity(self.path)
        os.chmod(self.path, 0o660)
        if gid is not None and os.stat(self.path).st_gid != gid:
            # under the unit (Group=croupier) the socket is born in its group: chown is a
            # @privileged system call that the unit's filter refuses
            os.chown(self.path, -1, gid)

    def _loop_exception(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """asyncio reports a failed accept (EMFILE, ENFILE, ENOBUFS...) through the loop's
        exception handler, with a traceback, every time it retries; summarise them instead."""
        if self._server is not None and "accept" in str(context.get("message", "")):
            self.failed_accepts += 1
            now = loop.time()
            self._accept_summaries.flush()
            exc = context.get("exception")
            reason = str(getattr(exc, "strerror", None) or exc or context.get("message"))
            if self._accept_log.allow(reason, now):
                log.warning(
                    "control socket: a connection could not be accepted (%s); the socket"
                    " keeps serving the connections it holds",
                    reason,
                )
            else:
                self._accept_summaries.arm()
            return
        if self._closed and "_start_serving" in str(context.get("message", "")):
            # asyncio retries a failed accept a second later on the listening socket; after a
            # stop within that second the socket is closed ("Invalid file descriptor: -1"):
            # nothing is left to serve, and no traceback is owed to the log
            log.debug("control socket: an accept retry after the socket closed, dropped")
            return
        if self._previous_handler is not None:
            self._previous_handler(loop, context)
        else:
            loop.default_exception_handler(context)

    @staticmethod
    def _accept_summary(summary: Suppressed[str], now: float, closing: bool) -> None:
        """The failed accepts counted, not logged, in a window (``closing``: at the stop)."""
        log.warning(
            "control socket: %d more connection(s) could not be accepted (%s) in the last"
            " %.1f s, counted, not logged one by one",
            summary.count,
            summary.kind,
            now - summary.since,
        )

    async def close(self) -> None:
        if self._server is not None:
            self._accept_summaries.close()
            self._server.close()
            await self._server.wait_closed()
            self._server = None
            self._closed = True  # the handler stays: an accept retry may still be due
        remove_if_same(self.path, self._bound)  # its own socket, not another daemon's since

    def _admit(self, peer: Peer | None) -> bool:
        if self.connections < self.max_connections:
            return True
        privileged = peer is not None and peer.uid in self.privileged_uids
        return privileged and self.connections < self.max_connections + RESERVED_SLOTS

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = peer_of(writer.get_extra_info("socket"))
        if not self._admit(peer):
            self.refused_connections += 1
            err = ControlError(
                f"too many connections ({self.connections}); try again, or as root", "refused"
            )
            with contextlib.suppress(ConnectionError, OSError):
                writer.write(encode_reply(None, error=err))
            writer.close()
            return
        self.connections += 1
        try:
            while True:
                try:
                    async with asyncio.timeout(self.idle_timeout):
                        line = await reader.readuntil(b"\n")
                except asyncio.LimitOverrunError:
                    err = ControlError(f"request longer than {MAX_LINE} bytes", "bad-request")
                    writer.write(encode_reply(None, error=err))
                    await self._drain(writer)
                    break  # the stream position is lost: close this connection
                except (asyncio.IncompleteReadError, TimeoutError):
                    break  # the peer left, or sat idle (or half a line) too long
                writer.write(await self.dispatch(line, peer))
                await self._drain(writer)
        except (ConnectionError, OSError, TimeoutError):
            pass
        except asyncio.CancelledError:
            # the server is closing: end this connection quietly (asyncio 3.11's stream
            # callback would otherwise log the cancellation as an error)
            writer.close()
            return
        finally:
            self.connections -= 1
            writer.close()
        # the server closing meanwhile cancels this wait: as quiet as above
        with contextlib.suppress(ConnectionError, OSError, asyncio.CancelledError):
            await writer.wait_closed()

    async def _drain(self, writer: asyncio.StreamWriter) -> None:
        """Wait until the peer has read enough of its replies (TimeoutError after
        ``idle_timeout``)."""
        async with asyncio.timeout(self.idle_timeout):
            await writer.drain()

    async def dispatch(self, line: bytes, peer: Peer | None = None) -> bytes:
        request_id = None
        try:
            request = dataclasses.replace(decode_request(line), peer=peer)
            request_id = request.id
            handler = self.handlers.get(request.cmd)
            if handler is None:
                known = ", ".join(sorted(self.handlers))
                raise ControlError(
                    f"unknown command {request.cmd!r} (known: {known})", "unknown-command"
                )
            result = handler(request)
            if inspect.isawaitable(result):
                result = await result
            return encode_reply(request_id, result=result)
        except BadRequest as exc:  # the request's own id, when it was a valid one
            return encode_reply(exc.request_id, error=exc)
        except ControlError as exc:
            return encode_reply(request_id, error=exc)
        except Exception as exc:  # a handler bug must not take the daemon down
            log.error("control command failed: %s: %s", type(exc).__name__, exc)
            return encode_reply(
                request_id,
                error=ControlError(f"internal error: {str(exc)[:200]}", "internal"),
            )
