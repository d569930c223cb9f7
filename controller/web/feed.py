"""Each table's live picture: poll the daemon, keep the latest card-free page, tell watchers.

Theory of operation. One :class:`TableFeed` per configured table runs one asyncio task: it
asks the daemon for its ``status`` every ``poll`` seconds while a page watches the table
(every ``idle_poll`` seconds otherwise, so an idle service costs next to nothing), for the
``alerts`` and ``sign.state`` too when the status changed or :data:`FULL_EVERY` seconds have
passed (an alert's on-delay, a sign's roll-up move without the status), and the slower things
(shuffle audit, the ledger's hits, pace and totals) every
:data:`SLOW_EVERY` seconds or when the round changes. A new page is built
(:func:`controller.web.view.table_view`) and, only when it differs from the last one,
published to the watchers (server-sent events). A table that has not answered for
``offline_after`` seconds is offline; its last page stays, marked so.

The daemon has no push channel; polling its status over the Unix socket is cheap (one small
JSON line each way) and keeps the daemon unchanged. The ledger is read on one thread of its
own (SQLite connections belong to a thread).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from controller.books.ledger.errors import LedgerError
from controller.table.control.wire import ControlError
from controller.web.config import TableSource, WebConfig
from controller.web.daemon_link import DaemonLink, DaemonUnreachable
from controller.web.ledger_stats import LedgerStats
from controller.web.view import table_view, tile_view

log = logging.getLogger(__name__)
SLOW_EVERY = 5.0
FULL_EVERY = 1.0  # seconds between reads of the alerts and the sign while the status holds


class TableFeed:
    def __init__(
        self,
        source: TableSource,
        config: WebConfig,
        ledger_thread: ThreadPoolExecutor,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        self.source = source
        self.config = config
        self.link = DaemonLink(source.socket, timeout=config.offline_after)
        self.stats = LedgerStats(source.ledger) if source.ledger else None
        self.ledger_thread = ledger_thread
        self.wall_clock = wall_clock
        self.page: dict[str, Any] | None = None
        self.status: dict[str, Any] | None = None  # the daemon's last status (for /metrics)
        self.sign: dict[str, Any] | None = None  # the last sign.state (cells, kind)
        self.online = False
        self.problem = "not asked yet"
        self.last_answer: float | None = None  # loop time
        self.version = 0
        self.watchers = 0
        self._changed = asyncio.Condition()
        self._wake = asyncio.Event()
        self._audit: dict[str, Any] | None = None
        self._slow_at = float("-inf")
        self._full_at = float("-inf")
        self._slow_round: str | None = None
        self._task: asyncio.Task[None] | None = None

    # --- the task ----------------------------------------------------------------------

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(
            self._run(), name=f"feed-{self.source.name}"
        )

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await self.link.close()
        if self.stats is not None:
            await asyncio.get_running_loop().run_in_executor(self.ledger_thread, self.stats.close)

    async def _run(self) -> None:
        while True:
            await self.poll_once()
            interval = self.config.poll if self.watchers else self.config.idle_poll
            self._wake.clear()
            with contextlib.suppress(TimeoutError):  # asyncio.timeout, not wait_for: see
                async with asyncio.timeout(interval):  # tests/unit/test_no_wait_for.py
                    await self._wake.wait()

    def wake(self) -> None:
        """Poll everything now (after an acknowledgement, or when a page starts watching)."""
        self._full_at = float("-inf")
        self._wake.set()

    async def poll_once(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            status = await self.link.call("status")
            if status == self.status and loop.time() - self._full_at < FULL_EVERY:
                self.last_answer = loop.time()
                return  # nothing moved: the alerts and the sign follow the status
            self._full_at = loop.time()
            alerts = await self.link.call("alerts")
            sign = await self._sign()
        except DaemonUnreachable as exc:
            self._unanswered(str(exc), loop.time())
            return
        except ControlError as exc:  # the daemon answered, but refused (starting...)
            self._unanswered(f"the daemon refused: {exc}", loop.time())
            return
        self.last_answer, self.online, self.problem = loop.time(), True, ""
        self.status = status
        await self._slow(status)
        page = table_view(
            status,
            alerts,
            code=self.config.currency,
            audit=self._audit,
            hits=self.stats.hits if self.stats else None,
            pace=self.stats.rounds_per_hour if self.stats else None,
            sign=sign,
        )
        if page != self.page:
            self.page = page
            await self._publish()

    async def _sign(self) -> str | None:
        try:
            sign = await self.link.call("sign.state")
        except DaemonUnreachable:
            raise
        except ControlError:
            return None  # this table has no sign
        self.sign = sign
        cells = sign.get("cells") if isinstance(sign, dict) else None
        return hashlib.sha256(f"{sign.get('kind')}:{cells}".encode()).hexdigest()[:16]

    async def _slow(self, status: dict[str, Any]) -> None:
        now = asyncio.get_running_loop().time()
        if now - self._slow_at < SLOW_EVERY and status.get("round") == self._slow_round:
            return
        self._slow_at, self._slow_round = now, status.get("round")
        try:
            self._audit = await self.link.call("shuffler.audit")
        except ControlError:
            self._audit = None
        if self.stats is not None:
            stats, wall = self.stats, self.wall_clock()
            try:
                await asyncio.get_running_loop().run_in_executor(
                    self.ledger_thread, lambda: stats.refresh(wall)
                )
            except LedgerError as exc:
                log.warning("table %s: %s", self.source.name, exc)

    def _unanswered(self, problem: str, now: float) -> None:
        self.problem = problem
        stale = self.last_answer is None or now - self.last_answer >= self.config.offline_after
        if stale and (self.online or self.version == 0):  # once, when it goes offline
            log.warning("table %s offline: %s", self.source.name, problem)
            self.online = False
            asyncio.get_running_loop().create_task(self._publish())

    async def _publish(self) -> None:
        async with self._changed:
            self.version += 1
            self._changed.notify_all()

    async def wait_change(self, seen: int, timeout: float) -> int:
        """Wait until the page's version differs from ``seen`` (or ``timeout``)."""
        async with self._changed:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout):
                    await self._changed.wait_for(lambda: self.version != seen)
            return self.version

    # --- for the pages -----------------------------------------------------------------

    def age(self) -> float | None:
        if self.last_answer is None:
            return None
        return asyncio.get_running_loop().time() - self.last_answer

    def tile(self) -> dict[str, Any]:
        age = self.age()
        return tile_view(
            self.source.name, self.online, self.page, None if age is None else round(age, 1)
        )

    def page_json(self) -> str:
        page = dict(self.page or {})
        page.update(
            name=self.source.name, online=self.online, problem=None if self.online else self.problem
        )
        return json.dumps(page, separators=(",", ":"))
