"""The control socket server (asyncio). The blocking client the CLI uses is
:mod:`controller.table.control.client` (re-exported here): the CLI loads it without asyncio.

The daemon registers one handler per command: ``async def handler(request) -> result`` (or a
plain function). Handlers raise :class:`ControlError` for a refusal the caller should see; any
other exception is logged and answered as ``internal`` without stopping the server. The socket
file is created with mode 0660 (group-restricted: the technicians' group), replacing a stale
socket left by a crash.
"""

from __future__ import annotations

import asyncio
import contextlib
import grp
import inspect
import logging
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from controller.table.control.client import ControlClient
from controller.table.control.protocol import (
    MAX_LINE,
    ControlError,
    Request,
    decode_request,
    encode_reply,
)

log = logging.getLogger(__name__)

__all__ = ["ControlClient", "ControlServer"]

Handler = Callable[[Request], Any | Awaitable[Any]]


class ControlServer:
    def __init__(self, path: str | Path, *, group: str | None = None) -> None:
        self.path = Path(path)
        self.group = group
        self.handlers: dict[str, Handler] = {}
        self._server: asyncio.AbstractServer | None = None

    def register(self, cmd: str, handler: Handler) -> None:
        self.handlers[cmd] = handler

    async def start(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.is_socket():
            self.path.unlink()  # stale socket from a previous run
        old_umask = os.umask(0o117)
        try:
            self._server = await asyncio.start_unix_server(
                self._serve, path=str(self.path), limit=MAX_LINE + 1
            )
        finally:
            os.umask(old_umask)
        os.chmod(self.path, 0o660)
        if self.group:
            gid = grp.getgrnam(self.group).gr_gid
            # under the unit (Group=croupier) the socket is born in its group: chown is a
            # @privileged system call that the unit's filter kills the daemon for
            if os.stat(self.path).st_gid != gid:
                os.chown(self.path, -1, gid)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                try:
                    line = await reader.readuntil(b"\n")
                except asyncio.LimitOverrunError:
                    err = ControlError(f"request longer than {MAX_LINE} bytes", "bad-request")
                    writer.write(encode_reply(None, error=err))
                    await writer.drain()
                    break  # the stream position is lost: close this connection
                except asyncio.IncompleteReadError:
                    break
                writer.write(await self.dispatch(line))
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        except asyncio.CancelledError:
            # the server is closing: end this connection quietly (asyncio 3.11's stream
            # callback would otherwise log the cancellation as an error)
            writer.close()
            return
        finally:
            writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await writer.wait_closed()

    async def dispatch(self, line: bytes) -> bytes:
        request_id = None
        try:
            request = decode_request(line)
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
        except ControlError as exc:
            return encode_reply(request_id, error=exc)
        except Exception as exc:  # a handler bug must not take the daemon down
            log.exception("control command failed")
            return encode_reply(
                request_id, error=ControlError(f"internal error: {exc}", "internal")
            )
