"""A simulated serial line between the host session and the device firmware: bytes written
at time t arrive after a delay; the line may lose, corrupt (one bit), duplicate or reorder
chunks, and the cable may be pulled (nothing passes) and put back. Every choice from the
seeded ``rng``; no clock is read: ``now`` comes in."""

from __future__ import annotations

import heapq
import random
from dataclasses import dataclass

LATENCY = 0.001  # one way, seconds


@dataclass(frozen=True)
class LineFaults:
    """Per-chunk probabilities of the line's faults (0: a clean line)."""

    loss: float = 0.0
    corrupt: float = 0.0
    duplicate: float = 0.0
    reorder: float = 0.0
    delay: float = 0.0  # a chunk held back up to ``max_delay``
    max_delay: float = 0.3

    @classmethod
    def scaled(cls, level: float) -> LineFaults:
        """The line of a run with ``--faults level`` (0..1)."""
        return cls(
            loss=0.02 * level,
            corrupt=0.02 * level,
            duplicate=0.02 * level,
            reorder=0.02 * level,
            delay=0.05 * level,
        )


class Direction:
    """One direction of the line: chunks in flight, ordered by arrival time."""

    def __init__(self, rng: random.Random, faults: LineFaults) -> None:
        self.rng = rng
        self.faults = faults
        self._flight: list[tuple[float, int, bytes]] = []
        self._order = 0
        self.counts = {"chunks": 0, "lost": 0, "corrupted": 0, "duplicated": 0, "reordered": 0}

    def send(self, data: bytes, now: float, connected: bool) -> None:
        if not data:
            return
        self.counts["chunks"] += 1
        f = self.faults
        if not connected or self.rng.random() < f.loss:
            self.counts["lost"] += 1
            return
        if self.rng.random() < f.corrupt:
            self.counts["corrupted"] += 1
            buf = bytearray(data)
            buf[self.rng.randrange(len(buf))] ^= 1 << self.rng.randrange(8)
            data = bytes(buf)
        at = now + LATENCY
        if self.rng.random() < f.delay:
            at += self.rng.uniform(0.0, f.max_delay)
        if self.rng.random() < f.reorder:
            self.counts["reordered"] += 1
            if self._flight:
                at = min(at, self._flight[0][0])  # overtakes what is in flight
            else:
                at += self.rng.uniform(0.002, 0.02)  # held back: what follows overtakes it
        self._put(at, data)
        if self.rng.random() < f.duplicate:
            self.counts["duplicated"] += 1
            self._put(at + self.rng.uniform(0.0, 0.05), data)

    def _put(self, at: float, data: bytes) -> None:
        self._order += 1
        heapq.heappush(self._flight, (at, self._order, data))

    def due(self, now: float) -> list[bytes]:
        out = []
        while self._flight and self._flight[0][0] <= now:
            out.append(heapq.heappop(self._flight)[2])
        return out

    def drop_all(self) -> None:
        self._flight.clear()

    def next_time(self) -> float | None:
        return self._flight[0][0] if self._flight else None
