"""One table's control socket, from the web service's event loop (asyncio).

The same newline-delimited JSON as the CLI's blocking client
(:mod:`controller.table.control.protocol`), one request at a time on one connection that is
opened again after any failure. Every call has a deadline: a daemon that does not answer
within it counts as not answering (the floor page shows the table offline).
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

from controller.table.control.wire import MAX_LINE, ControlError, decode_reply, encode_request

# the only commands the web service sends: reading, and the two credentialed acknowledgements
READ_COMMANDS = frozenset(
    {"status", "alerts", "sign.state", "shuffler.audit", "metrics", "meters", "events.tail"}
)
ACK_COMMANDS = frozenset({"alert.ack", "jackpot.ack"})
MAX_REPLY = 8 * MAX_LINE  # a meters or journal answer may be longer than a request


class DaemonUnreachable(ControlError):
    """The daemon did not answer (no socket, refused, closed, or too slow)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "internal")


class DaemonLink:
    def __init__(self, path: Path, timeout: float) -> None:
        self.path = path
        self.timeout = timeout
        self._lock = asyncio.Lock()
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._next_id = 1

    async def call(self, cmd: str, credential: str | None = None, **args: Any) -> Any:
        """The command's result; ControlError with the daemon's refusal, DaemonUnreachable
        when it cannot be asked. Only :data:`READ_COMMANDS` and :data:`ACK_COMMANDS`."""
        if cmd not in READ_COMMANDS | ACK_COMMANDS:
            raise ControlError(f"the web service does not send {cmd!r}", "refused")
        async with self._lock:
            try:
                async with asyncio.timeout(self.timeout):
                    return await self._ask(cmd, credential, args)
            except TimeoutError:
                await self.close()
                raise DaemonUnreachable(f"no answer within {self.timeout:g} s") from None
            except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError) as exc:
                await self.close()
                raise DaemonUnreachable(f"control socket {self.path}: {exc}") from None

    async def _ask(self, cmd: str, credential: str | None, args: dict[str, Any]) -> Any:
        if self._writer is None:
            self._reader, self._writer = await asyncio.open_unix_connection(
                str(self.path), limit=MAX_REPLY
            )
        assert self._reader is not None
        self._writer.write(encode_request(cmd, args, self._next_id, credential))
        self._next_id += 1
        await self._writer.drain()
        line = await self._reader.readuntil(b"\n")
        return decode_reply(line)

    async def close(self) -> None:
        writer, self._reader, self._writer = self._writer, None, None
        if writer is not None:
            writer.close()
            with contextlib.suppress(OSError, asyncio.CancelledError):
                await writer.wait_closed()
