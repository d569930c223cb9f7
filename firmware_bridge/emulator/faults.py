"""Fault injection for the emulator, switchable at run time (from a test, or from the rig
through :mod:`.control`).

Two kinds:

- :class:`FrameFaults` act on whole frames in one direction (``rx`` = host to device, ``tx`` =
  device to host): drop, corrupt (one bit flipped), duplicate, delay, reorder. Counted faults
  hit the next N frames, so a test can say exactly "lose the next ACK"; rates hit frames at
  random (seeded RNG) for soak runs.
- :class:`MachineFaults` act on the machine: a jam at packet k, a wrong count or exposed cards
  in packet k, a biased (single shelf-pass) shuffle, card-reader failure. Deck faults (missing,
  duplicate, foreign cards) change the physical cards: see ``ShufflerMachine.tamper_deck``.

Both serialise to and from plain dicts (JSON) with every key checked, so a bad control
command gets a clear error and changes nothing.
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Generic, Self, TypeVar

from firmware_bridge.errors import LocalProtocolError

T = TypeVar("T")


class FaultSettings:
    """Shared dict conversion with validation for the fault dataclasses."""

    def to_dict(self) -> dict[str, Any]:
        settings: dict[str, Any] = asdict(self)  # type: ignore[call-overload]
        return settings

    def updated(self, changes: dict[str, Any]) -> Self:
        """A copy with ``changes`` applied; raises LocalProtocolError naming a bad key/value."""
        known = {f.name: f for f in fields(self)}  # type: ignore[arg-type]
        clean = {}
        for key, value in changes.items():
            if key not in known:
                raise LocalProtocolError(
                    f"unknown fault setting {key!r} (known: {', '.join(sorted(known))})"
                )
            kind = type(getattr(type(self)(), key))
            ok = isinstance(value, kind) and (kind is bool or not isinstance(value, bool))
            if kind is float and isinstance(value, int) and not isinstance(value, bool):
                value, ok = float(value), True
            if not ok:
                raise LocalProtocolError(f"fault setting {key}={value!r} must be a {kind.__name__}")
            if kind is not bool and value < 0:
                raise LocalProtocolError(f"fault setting {key}={value!r} must not be negative")
            clean[key] = value
        return replace(self, **clean)  # type: ignore[type-var]


@dataclass(frozen=True)
class FrameFaults(FaultSettings):
    drop: int = 0
    corrupt: int = 0
    duplicate: int = 0
    delay: int = 0
    delay_s: float = 0.0
    reorder: int = 0
    drop_rate: float = 0.0
    corrupt_rate: float = 0.0


@dataclass(frozen=True)
class MachineFaults(FaultSettings):
    jam_at_packet: int = 0  # 1-based packet index since the shuffle; 0 = off
    wrong_count_at_packet: int = 0
    wrong_count_delta: int = 1  # cards added (the machine cannot deliver fewer than 0)
    exposed_at_packet: int = 0
    exposed_cards: int = 2
    biased_shuffle: bool = False  # single pass of a 10-shelf shuffler instead of Fisher-Yates
    reader_failure: bool = False  # card recognition fails: cards come out unrecognised


_CLEAN = FrameFaults()


class FrameFaultLine(Generic[T]):
    """One direction of frames passing through :class:`FrameFaults`.

    ``push(item, now)`` puts a frame in; ``pop_due(now)`` takes out those whose time has
    come, in order. Counted faults are consumed as they hit.
    """

    REORDER_HOLD = 1.0  # a reordered frame with no follower is released after this long

    def __init__(self, corrupt: Any, rng: random.Random) -> None:
        self.faults = FrameFaults()
        self._corrupt = corrupt
        self._rng = rng
        self._queue: list[tuple[float, int, T]] = []
        self._order = 0
        self._held: tuple[float, T] | None = None
        self.stats = dict.fromkeys(("drop", "corrupt", "duplicate", "delay", "reorder"), 0)

    def _take(self, name: str) -> bool:
        if getattr(self.faults, name) > 0:
            self.faults = replace(self.faults, **{name: getattr(self.faults, name) - 1})
            return True
        return False

    def _put(self, when: float, item: T) -> None:
        self._queue.append((when, self._order, item))
        self._order += 1

    def push(self, item: T, now: float) -> None:
        f = self.faults
        if f == _CLEAN and self._held is None:  # the usual case: no fault set, nothing held
            self._put(now, item)
            return
        if self._take("drop") or (f.drop_rate and self._rng.random() < f.drop_rate):
            self.stats["drop"] += 1
            return
        if self._take("corrupt") or (f.corrupt_rate and self._rng.random() < f.corrupt_rate):
            self.stats["corrupt"] += 1
            item = self._corrupt(item, self._rng)
        when = now
        if self._take("delay"):
            self.stats["delay"] += 1
            when = now + f.delay_s
        copies = 2 if self._take("duplicate") else 1
        self.stats["duplicate"] += copies - 1
        if self._held is None and self._take("reorder"):
            self.stats["reorder"] += 1
            self._held = (now + self.REORDER_HOLD, item)
            return
        for _ in range(copies):
            self._put(when, item)
        if self._held is not None:
            self._put(when, self._held[1])
            self._held = None

    def pop_due(self, now: float) -> list[T]:
        if self._held is not None and self._held[0] <= now:
            self._put(now, self._held[1])
            self._held = None
        if not self._queue:  # the usual case: polled at every wake-up of the line
            return []
        due = sorted(e for e in self._queue if e[0] <= now)
        if not due:
            return []
        self._queue = [e for e in self._queue if e[0] > now]
        return [item for _, _, item in due]

    def next_deadline(self) -> float | None:
        first = min(self._queue)[0] if self._queue else None
        if self._held is not None and (first is None or self._held[0] < first):
            return self._held[0]
        return first


def flip_bit(data: bytes, rng: random.Random) -> bytes:
    """Corrupt a frame on the wire: one bit flipped at random."""
    out = bytearray(data)
    bit = rng.randrange(len(out) * 8)
    out[bit // 8] ^= 1 << (bit % 8)
    return bytes(out)
