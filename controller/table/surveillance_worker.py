"""The surveillance store on a thread of its own, off the daemon's event loop.

Every round the table keeps three things for surveillance (docs/evidence.md): the settled
round with the shuffle audit's counts, the round's DEAL frames, and each deck check as it is
made. Each is a SQLite commit with ``synchronous=FULL``: an fsync, several ms on an SD card.
On the loop they held up the round pipeline (the table reported settled only after them) and
every other event. Here one thread owns the store's connection (a SQLite connection belongs to
the thread that made it) and runs the jobs in the order they were given:

- :meth:`SurveillanceWorker.post`: a write the table does not wait for. An exception in it is
  logged and handed to the ``when_failed`` callback on the event loop (the daemon journals
  a reused round ID and closes the table: :mod:`controller.table.runner`), never swallowed;
- :meth:`SurveillanceWorker.call`: a read the caller awaits (``round show``, an evidence
  bundle). The thread runs jobs in order, so a read sees every write posted before it;
- :meth:`SurveillanceWorker.close`: runs every job still queued, then closes the store: an
  orderly stop loses nothing.

Crash semantics: the ledger's settlement is durable before the table reports settled, as
before; the surveillance record of a round follows it by the jobs queued ahead (normally none:
one commit, a few ms). A process killed, or a power cut, in that window loses the records not
yet committed: the ledger still holds the round (stakes, result, payouts), the surveillance
store lacks its cards, deal frames or a deck check, as when a commit of the store fails, and
``croupier round show`` says the round is not recorded. Before this thread the window was the
same in kind, one commit long.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

from controller.books.surveillance import SurveillanceStore

log = logging.getLogger(__name__)
T = TypeVar("T")


class SurveillanceWorker:
    """One thread that opens the store (``open_store``, called on the thread) and runs every
    job on it, in order. Start it with :meth:`start` (awaited: it raises what opening the
    store raised), stop it with :meth:`close`."""

    def __init__(self, open_store: Callable[[], SurveillanceStore]) -> None:
        self._open_store = open_store
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="croupier-surveillance")
        self._store: SurveillanceStore | None = None
        self._closed = False

    async def start(self) -> None:
        def opened() -> None:
            self._store = self._open_store()

        await asyncio.wrap_future(self._thread.submit(opened))

    def _submit(self, job: Callable[[SurveillanceStore], T]) -> Future[T]:
        if self._closed:
            raise RuntimeError("the surveillance worker is closed")

        def run() -> T:
            if self._store is None:
                raise RuntimeError("the surveillance store is not open")
            return job(self._store)

        return self._thread.submit(run)

    async def call(self, job: Callable[[SurveillanceStore], T]) -> T:
        """Run ``job(store)`` on the thread after every job given before; its result (or its
        exception)."""
        return await asyncio.wrap_future(self._submit(job))

    def post(
        self,
        job: Callable[[SurveillanceStore], T],
        when_failed: Callable[[BaseException], None],
        what: str,
        when_done: Callable[[T], None] | None = None,
    ) -> None:
        """Run ``job(store)`` on the thread without waiting for it; ``when_done(result)`` then
        runs on the caller's event loop. Should it raise, ``what`` and the exception are
        logged and ``when_failed(exc)`` runs on that loop instead (while the loop runs; at
        shutdown the log line is all)."""
        loop = asyncio.get_running_loop()

        def done(future: Future[T]) -> None:  # on the worker's thread
            exc = future.exception()
            if exc is not None:
                log.error("%s: %s", what, exc)
            with contextlib.suppress(RuntimeError):  # the loop is closed: the log line is all
                if exc is not None:
                    loop.call_soon_threadsafe(when_failed, exc)
                elif when_done is not None:
                    loop.call_soon_threadsafe(when_done, future.result())

        self._submit(job).add_done_callback(done)

    def close(self) -> None:
        """Run the jobs still queued, close the store and join the thread (blocking)."""
        if self._closed:
            return

        def close_store() -> None:
            if self._store is not None:
                self._store.close()
                self._store = None

        self._thread.submit(close_store)
        self._closed = True
        self._thread.shutdown(wait=True)
