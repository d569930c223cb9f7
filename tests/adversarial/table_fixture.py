"""A real control server and table runner in this process, on an event loop thread: the
commands, the round machine and the ledger as the daemon wires them, without the hardware
(a manually dealt UTH table, uth-sk, so CONFIRM reaches the showdown without a shuffler)."""

from __future__ import annotations

import asyncio
import json
import threading
import tomllib
from pathlib import Path
from typing import Any

from controller.table.commands import Commands
from controller.table.control.guard import Peer
from controller.table.control.server import ControlServer
from controller.table.control.wire import encode_request
from controller.table.runner import TableRunner
from controller.table.tableconfig import parse_table_config

ROOT = Path(__file__).resolve().parents[2]
CREDENTIAL = "1234"  # sim.toml's technician credential
PEER = Peer(4242, 1000, 1000)  # a dealer's tablet: an unprivileged member of the group


def manual_table_config(**sections: dict[str, Any]) -> Any:
    data = tomllib.loads((ROOT / "config" / "sim.toml").read_text())
    for name in ("gpio", "sign", "pools"):
        data.pop(name)
    data["table"]["profile"] = "uth-sk"
    for name, values in sections.items():
        data.setdefault(name, {}).update(values)
    return parse_table_config(data, "in-process")


class InProcessTable:
    """Start with :meth:`start`; :meth:`request` sends one request line as the socket would."""

    def __init__(self, tmp: Path, config: Any = None) -> None:
        self.tmp = tmp
        self.config = config or manual_table_config()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.runner: TableRunner | None = None
        self.server: ControlServer | None = None
        self.commands: Commands | None = None
        self._stop: asyncio.Event | None = None
        self._task: Any = None

    def run(self, coro: Any, timeout: float = 30.0) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def start(self) -> InProcessTable:
        self.thread.start()

        async def start() -> None:
            self.runner = TableRunner(self.config, state_dir=self.tmp / "state")
            await self.runner.open()
            await self.runner.warm_up()  # as croupierd does after READY: open at once here
            self.server = ControlServer(self.tmp / "run" / "control.sock", max_connections=8)
            self.commands = Commands(self.runner)
            self.commands.register(self.server)
            await self.server.start()
            self._stop = asyncio.Event()
            self._task = asyncio.ensure_future(self.runner.run(self._stop))
            await self.settle_down()

        self.run(start())
        return self

    async def settle_down(self) -> None:
        """Let the machine handle what the last request posted."""
        runner = self.runner
        assert runner is not None
        quiet = 0
        for _ in range(500):
            await asyncio.sleep(0.002)
            await runner.idle()  # the journal writes and surveillance jobs under way
            quiet = quiet + 1 if runner.queue.empty() else 0
            if quiet >= 3:
                break

    def wait_for(self, ok: Any, what: str, timeout: float = 20.0) -> Any:
        """Poll ``ok()`` until it is true (a ledger commit may take a while under load)."""
        import time

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = ok()
            if value:
                return value
            time.sleep(0.01)
        raise AssertionError(f"timed out waiting for {what}")

    def request(
        self, cmd: str, credential: str | None = None, peer: Peer = PEER, **args: Any
    ) -> dict[str, Any]:
        return self.raw(encode_request(cmd, args, 1, credential), peer)

    def raw(self, line: bytes, peer: Peer = PEER) -> dict[str, Any]:
        async def go() -> bytes:
            assert self.server is not None
            reply = await self.server.dispatch(line, peer)
            await self.settle_down()
            return reply

        return json.loads(self.run(go()))

    def close(self) -> None:
        async def stop() -> None:
            assert self._stop is not None and self.server and self.commands and self.runner
            self._stop.set()
            await self._task
            await self.server.close()
            await self.commands.aclose()
            await self.runner.close()

        try:
            if self._task is not None:
                self.run(stop())
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(5)
