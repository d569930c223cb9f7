"""The simulated clock's arithmetic, kept cheap: it runs at every wake-up of the loop."""

from __future__ import annotations


def earliest(*times: float | None) -> float | None:
    """The earliest of ``times`` that is not ``None`` (``None`` when none is set)."""
    first = None
    for t in times:
        if t is not None and (first is None or t < first):
            first = t
    return first
