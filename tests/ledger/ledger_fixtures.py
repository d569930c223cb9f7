"""Helpers of the ledger tests: pool configurations and a fake wall clock."""

import itertools

from controller.engine.pools.config import pool_config
from controller.engine.profiles import load_profile

UTH = load_profile("uth-gr").progressive
JUMBO = load_profile("ch-bg").progressive


def uth_pool(**kw):
    kw.setdefault("seed", 500_000)
    return pool_config("uth", UTH, **kw)


def jumbo_pool(**kw):
    kw.setdefault("seed", 10_000_000)
    return pool_config("j7", JUMBO, **kw)


class FakeWall:
    """A wall clock that moves one second per reading, so timestamps are distinct."""

    def __init__(self) -> None:
        self._ticks = itertools.count()

    def __call__(self) -> float:
        return 1_800_000_000.0 + next(self._ticks)
