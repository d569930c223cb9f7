"""The rig's worker threads, stopped within a wait by a stop signal (Ctrl-C, SIGTERM, SIGHUP).

Python runs signal handlers in the main thread only, so :class:`StopSignal` (or Ctrl-C's
KeyboardInterrupt) interrupts the main thread where it waits for the workers, never the
workers. ``croupier rig soak`` waited in ``with ThreadPoolExecutor(...)``, whose exit joins
the workers: a SIGTERM to the rig's PID left it playing every remaining round (a second one
did nothing), then it exited with no report. Ctrl-C at a terminal seemed to work only because
it reaches the whole process group, the daemons included, so the workers failed at once.

:class:`Workers` runs the calls in threads and waits for them in the main thread. When that
wait ends with an exception (a stop signal, or one worker's failure), :attr:`Workers.stopping`
is set: every wait of a table that shares the event (``TableUnderTest.stopping``) raises
:class:`~controller.rig.errors.RigStopped` within a poll, so the workers return at once, the
round in play cut short (not booked); the main thread gives them :data:`STOP_GRACE` seconds,
then raises on, and its ``finally`` blocks stop the daemons and remove what the rig created.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from typing import TypeVar

T = TypeVar("T")
STOP_GRACE = 5.0  # seconds the workers have to return once stopping is set


class Workers:
    """``Workers("croupier-soak").run([call, ...])``; share :attr:`stopping` with the tables
    the calls play on (``table.stopping = workers.stopping``)."""

    def __init__(self, name: str, grace: float = STOP_GRACE) -> None:
        self.name = name
        self.grace = grace
        self.stopping = threading.Event()

    def run(self, calls: Sequence[Callable[[], T]]) -> list[T]:
        """Each call in a thread of its own; their results, in order. Raises what a failed
        call raised (as soon as one fails), or the KeyboardInterrupt (:class:`StopSignal`)
        that reached the main thread meanwhile, once the other calls have returned (at most
        :attr:`grace` seconds after :attr:`stopping` was set). A worker still running after that is
        abandoned to its table's close (its daemon gone, its next request fails)."""
        pool = ThreadPoolExecutor(len(calls), thread_name_prefix=self.name)
        try:
            futures = [pool.submit(call) for call in calls]
            try:
                wait(futures, return_when=FIRST_EXCEPTION)
                for future in futures:  # the first that failed, if one did
                    if future.done() and future.exception() is not None:
                        future.result()
                return [future.result() for future in futures]
            except BaseException:
                self.stopping.set()
                wait(futures, timeout=self.grace)  # a second signal ends this wait too
                raise
        finally:
            pool.shutdown(wait=False, cancel_futures=True)
