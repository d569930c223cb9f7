"""The physical side of a simulated table's GPIO: the levels on the seat sensors and console
inputs, changed by the simulated dealer, with contact bounce, sensor chatter and a stake left
on a sensor (stuck) when the seed says so. Edges are scheduled at their times and handed to
the real GPIO core (:class:`drivers.gpio.core.TableCore`) as they fall due; the levels
survive a controller crash (the stakes are still on the table)."""

from __future__ import annotations

import heapq
import random

from drivers.gpio.core import TableCore

BOUNCE_GAP = 0.0004  # seconds between the edges of a bounce (well inside the debounce time)


class Console:
    def __init__(self, rng: random.Random, bounce: float, settle: float) -> None:
        self.rng = rng
        self.bounce = bounce  # probability that a change bounces
        self.settle = settle  # after an edge, when the GPIO core's debounce has decided
        self._settle_at: list[float] = []
        self.levels: dict[str, bool] = {}  # the settled level each input will have
        self._edges: list[tuple[float, int, str, bool]] = []
        self._order = 0

    def _edge(self, at: float, line: str, level: bool) -> None:
        self._order += 1
        heapq.heappush(self._edges, (at, self._order, line, level))

    def set(self, line: str, level: bool, now: float) -> float:
        """Move ``line`` to ``level`` at ``now`` (bouncing, maybe); returns when it is steady."""
        at = now
        if self.rng.random() < self.bounce:
            for _ in range(self.rng.randint(1, 3)):
                self._edge(at, line, level)
                at += BOUNCE_GAP
                self._edge(at, line, not level)
                at += BOUNCE_GAP
        self._edge(at, line, level)
        self.levels[line] = level
        return at

    def chatter(self, line: str, edges: int, now: float) -> None:
        """A failing sensor: ``edges`` edges in quick succession, ending where it was."""
        level = self.levels.get(line, False)
        at = now
        for _ in range(edges // 2):
            self._edge(at, line, not level)
            at += 0.005
            self._edge(at, line, level)
            at += 0.005

    def press(self, button: str, now: float, hold: float = 0.05) -> float:
        self.set(button, True, now)
        return self.set(button, False, now + hold)

    def next_time(self) -> float | None:
        """The next edge, or the next time the GPIO core's debounce settles an input (the
        only times its inputs change: the simulator does not wake for the lamps' blinking,
        which nobody watches)."""
        first = self._edges[0][0] if self._edges else None
        if self._settle_at and (first is None or self._settle_at[0] < first):
            return self._settle_at[0]
        return first

    def apply(self, core: TableCore, now: float) -> bool:
        """Hand the edges due at ``now`` to the GPIO core; True when the core has inputs to
        settle (poll it)."""
        due = False
        while self._edges and self._edges[0][0] <= now:
            at, _, line, level = heapq.heappop(self._edges)
            core.edge(line, level, at)
            heapq.heappush(self._settle_at, at + self.settle)
            due = True
        while self._settle_at and self._settle_at[0] <= now:
            heapq.heappop(self._settle_at)
            due = True
        return due

    def initial(self) -> dict[str, bool]:
        """The levels a GPIO core built now finds (a restart: the stakes are still on)."""
        return {line: level for line, level in self.levels.items() if level}
