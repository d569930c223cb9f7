"""The bounded sweep the simulator's tests share: seeds across profiles until a violation."""

from __future__ import annotations

from controller.rig.sim.run import SimReport, simulate
from controller.rig.sim.world import SimSettings


def first_violation(
    profile: str, seeds: range, rounds: int, *, faults: float = 0.3, crash_rate: float = 0.0
) -> SimReport | None:
    """The first run of ``seeds`` that reports a violation, or ``None``."""
    for seed in seeds:
        report = simulate(SimSettings(profile, seed, faults, crash_rate), rounds)
        if report.violations:
            return report
    return None
