"""Every random choice of a simulation from one seed, split into named streams, so that a
change in how often one part draws (the wire, say) does not shift what another part draws."""

from __future__ import annotations

import random


class Streams:
    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._streams: dict[str, random.Random] = {}

    def __call__(self, name: str) -> random.Random:
        """The stream ``name`` (created on first use, seeded from the seed and the name)."""
        stream = self._streams.get(name)
        if stream is None:
            stream = self._streams[name] = random.Random(f"{self.seed}/{name}")
        return stream
