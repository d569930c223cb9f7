"""House edges from the exact PAR engine, for the theoretical win on ``/metrics``.

A full PAR sheet counts every hand (seconds here, longer on a Pi), so it is worked out once per
profile in a separate process (the web service's event loop keeps serving meanwhile) and kept;
until it is ready the theoretical win is simply absent from the scrape.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ProcessPoolExecutor

from controller.engine.games import par_sheet
from controller.engine.profiles import load_profile
from controller.errors import CroupierError

log = logging.getLogger(__name__)


def house_edges(profile: str) -> dict[str, float]:
    """Wager -> house edge (a fraction of the handle) of every bet the PAR sheet prices."""
    sheet = par_sheet(load_profile(profile))
    return {name: float(bet["house_edge"]) for name, bet in sheet["bets"].items()}


class HouseEdges:
    def __init__(self) -> None:
        self._known: dict[str, dict[str, float]] = {}
        self._working: set[str] = set()

    def get(self, profile: str | None) -> dict[str, float] | None:
        """The house edges of ``profile`` if known; starts working them out otherwise."""
        if not profile:
            return None
        if profile not in self._known and profile not in self._working:
            self._working.add(profile)
            asyncio.get_running_loop().create_task(self._work(profile))
        return self._known.get(profile)

    async def _work(self, profile: str) -> None:
        with ProcessPoolExecutor(1) as pool:
            try:
                edges = await asyncio.get_running_loop().run_in_executor(pool, house_edges, profile)
            except (CroupierError, OSError) as exc:
                log.warning("no PAR sheet for profile %s: %s", profile, exc)
                edges = {}
        self._known[profile] = edges
        self._working.discard(profile)
