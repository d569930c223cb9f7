"""House edges from the exact PAR engine, for the theoretical win on ``/metrics``.

A full PAR sheet counts every hand (seconds here, minutes on a Pi), so it is worked out once
per profile in a child process on one core at the lowest priority (``nice 19``: the table's
daemon comes first) while the service keeps serving, and kept; until it is ready the
theoretical win is simply absent from the scrape. The child is killed when the service stops,
and dies with it if the service is killed (``PR_SET_PDEATHSIG``).

    python -m controller.web.par PROFILE [PARENT_PID]   # prints {"wager": house edge, ...}
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import sys

log = logging.getLogger(__name__)


def house_edges(profile: str) -> dict[str, float]:
    """Wager -> house edge (a fraction of the handle) of every bet the PAR sheet prices."""
    from controller.engine.games import par_sheet
    from controller.engine.profiles import load_profile

    sheet = par_sheet(load_profile(profile))
    return {name: float(bet["house_edge"]) for name, bet in sheet["bets"].items()}


class HouseEdges:
    def __init__(self) -> None:
        self._known: dict[str, dict[str, float]] = {}
        self._working: dict[str, asyncio.subprocess.Process | None] = {}
        self._closing = False

    def get(self, profile: str | None) -> dict[str, float] | None:
        """The house edges of ``profile`` if known; starts working them out otherwise."""
        if not profile:
            return None
        if profile not in self._known and profile not in self._working:
            self._working[profile] = None
            asyncio.get_running_loop().create_task(self._work(profile))
        return self._known.get(profile)

    async def _work(self, profile: str) -> None:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "controller.web.par",
            profile,
            str(os.getpid()),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        self._working[profile] = proc
        out, err = await proc.communicate()
        edges: dict[str, float] = {}
        if proc.returncode == 0:
            with contextlib.suppress(ValueError):
                edges = {str(k): float(v) for k, v in json.loads(out).items()}
        elif not self._closing:
            lines = err.decode(errors="replace").strip().splitlines() or ["(no message)"]
            log.warning("no PAR sheet for profile %s: %s", profile, lines[-1])
        self._known[profile] = edges
        self._working.pop(profile, None)

    async def close(self) -> None:
        self._closing = True
        # a copy: each worker's own task removes it from _working as it ends
        for proc in list(self._working.values()):
            if proc is not None and proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                await proc.wait()


def _behind_the_daemon(parent: int) -> None:
    """One core, lowest priority, and die with the parent ``parent`` (Linux)."""
    os.nice(19)
    with contextlib.suppress(AttributeError, OSError):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # the count runs in-process
    with contextlib.suppress(OSError, AttributeError):
        import ctypes
        import signal

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the service died before the line above: nobody to answer
        sys.exit(1)


if __name__ == "__main__":
    _behind_the_daemon(int(sys.argv[2]) if len(sys.argv) > 2 else os.getppid())
    print(json.dumps(house_edges(sys.argv[1])))
