"""What the sign shows for a table state, at a given time: :class:`SignRenderer`.

Theory of operation. The controller gives the renderer a :class:`SignState` (pool meters,
currency, table mode, a message, the winning amount, a test pattern) whenever something
changes, and asks for the frame at ``now``. The renderer turns the state into a **program**: a
loop of steps (a pool's name, its amount, the message, "JACKPOT" blinking...), each lasting a
known time, played from the moment the program started. The frame at ``now`` is a pure function
of the program, the odometers and ``now``, and every render also says when the frame may next
change, so the device loop sleeps until then and an idle sign costs nothing.

Scenes (one per :class:`Mode`; ``docs/sign.md`` shows each):

- ``OPEN``: the pool amount, right-aligned, rolling up when contributions arrive
  (:mod:`display.odometer`); with several pools each is announced by its name and shown in
  turn; a message, if any, scrolls by after the pools.
- ``CLOSED`` / ``OFFLINE``: ``PROGRESSIVE CLOSED`` / ``PROGRESSIVE OFFLINE`` (the progressive
  takes no stakes; offline: the linked pool cannot be reached), then the message if any.
- ``JACKPOT``: ``JACKPOT`` blinks three times, then the winning amount, in a loop, until the
  technician acknowledges the hit (the controller then changes the mode).
- ``TEST``: technician patterns: ``all`` (every segment or LED on), ``digits`` (each digit or
  module in turn), ``brightness`` (all on, the 16 MAX7219 levels in turn).

Amounts follow the rule of :mod:`display.money`; text that does not fit scrolls through.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

from display.errors import SignStateError
from display.geometry import Geometry, SignFrame
from display.money import currency
from display.odometer import Odometer
from display.sign_amount import Shown, fit_amount, spellings


class Mode(Enum):
    OPEN = "open"
    CLOSED = "closed"
    OFFLINE = "offline"
    JACKPOT = "jackpot"
    TEST = "test"


TEST_PATTERNS = ("all", "digits", "brightness")
# A deadline handed out by render() and fed back as ``now`` may come back a rounding error
# early; a time within EPSILON of a step boundary counts as past it, so that the caller never
# spins on the same frame.
EPSILON = 1e-6
BRIGHTNESS_LEVELS = 16  # MAX7219 intensity register: 0..15


@dataclass(frozen=True)
class Pool:
    """A progressive pool as the sign shows it: a short name and its meter (minor units)."""

    name: str
    amount: int


@dataclass(frozen=True)
class SignState:
    """Everything the sign depends on, except time."""

    pools: tuple[Pool, ...] = ()
    currency: str = "EUR"
    mode: Mode = Mode.OPEN
    message: str = ""
    jackpot: int | None = None  # the winning amount, in JACKPOT mode
    pattern: str = "all"  # the test pattern, in TEST mode

    def __post_init__(self) -> None:
        cur = currency(self.currency)  # raises on an unknown code
        for pool in self.pools:
            next(spellings(pool.amount, cur))  # raises on a negative or non-integer amount
        names = [p.name for p in self.pools]
        if len(set(names)) != len(names):
            raise SignStateError(f"pool names must differ: {names}")
        if self.mode is Mode.JACKPOT:
            if self.jackpot is None:
                raise SignStateError("the JACKPOT scene needs the winning amount")
            next(spellings(self.jackpot, cur))
        if self.pattern not in TEST_PATTERNS:
            raise SignStateError(
                f"unknown test pattern {self.pattern!r} (patterns: {', '.join(TEST_PATTERNS)})"
            )


@dataclass(frozen=True)
class Timing:
    frame_rate: float = 20.0  # cap, frames per second; also the roll-up tick
    roll_seconds: float = 2.0  # odometer roll-up duration
    pool_seconds: float = 6.0  # how long each pool's amount stays up in a rotation
    label_seconds: float = 1.5  # how long a pool's name stays up before its amount
    message_seconds: float = 3.0  # how long a message that fits stays up
    pattern_step: float = 0.5  # seconds per step of a test pattern


@dataclass(frozen=True)
class Rendered:
    """A frame, when it may next change (``None``: not before the state changes), and whether
    an amount was too long for the sign (dashes shown, :mod:`display.money` step 3)."""

    frame: SignFrame
    next_change: float | None
    overflow: bool = False


# A step draws its frame given the time since the step began and the absolute time; it returns
# the frame, the absolute time of its next change within the step (or None) and the overflow flag.
Draw = Callable[[float, float], tuple[SignFrame, float | None, bool]]


@dataclass(frozen=True)
class _Step:
    duration: float
    draw: Draw


@dataclass
class _Program:
    key: tuple[object, ...]
    started: float
    steps: list[_Step] = field(default_factory=list)


class SignRenderer:
    """Sign state + time -> :class:`Rendered`. Pure: no clock, no device."""

    def __init__(self, geometry: Geometry, timing: Timing | None = None) -> None:
        self.geometry = geometry
        self.timing = timing or Timing()
        self.state = SignState()
        self._odometers: dict[str, Odometer] = {}
        self._program = _Program(key=(), started=0.0)
        self.update(self.state, 0.0)

    def update(self, state: SignState, now: float) -> None:
        """Take a new state. Raises :class:`SignStateError` if the sign cannot draw a name or
        the message; the previous state then stays."""
        bad = {ch for text in (state.message, *(p.name for p in state.pools)) for ch in text}
        bad -= {ch for ch in bad if self.geometry.can_draw(ch)}
        if bad:
            raise SignStateError(
                f"the {self.geometry.kind} sign cannot draw {''.join(sorted(bad))!r}"
                " (use capitals, digits and - . ! : ? / ')"
            )
        odometers = {}
        for pool in state.pools:
            odo = self._odometers.get(pool.name) or Odometer(pool.amount, self.timing.roll_seconds)
            odo.set(pool.amount, now)
            odometers[pool.name] = odo
        self._odometers = odometers
        self.state = state
        key = (
            state.mode,
            tuple(p.name for p in state.pools),
            state.message,
            state.jackpot,
            state.pattern,
            state.currency,
        )
        if key != self._program.key:
            self._program = _Program(key, now, self._steps(state))

    def render(self, now: float) -> Rendered:
        """The frame at ``now`` and when it may next change (always later than ``now``)."""
        program = self._program
        steps = program.steps
        total = sum(s.duration for s in steps)
        now = max(now, program.started)
        elapsed = now - program.started + EPSILON
        cycle_start = program.started
        if math.isfinite(total):
            cycles = math.floor(elapsed / total)
            cycle_start += cycles * total
            elapsed -= cycles * total
        begin = cycle_start
        for step in steps:
            end = begin + step.duration
            if elapsed < end - cycle_start or step is steps[-1]:
                frame, change, overflow = step.draw(now - begin, now)
                if math.isfinite(end):
                    change = end if change is None else min(change, end)
                return Rendered(frame, change, overflow)
            begin = end
        raise AssertionError("a program has at least one step")

    # -- programs ---------------------------------------------------------------------------

    def _steps(self, state: SignState) -> list[_Step]:
        if state.mode is Mode.OPEN:
            steps = self._pool_steps(state)
        elif state.mode is Mode.CLOSED:
            steps = self._text_steps("PROGRESSIVE CLOSED")
        elif state.mode is Mode.OFFLINE:
            steps = self._text_steps("PROGRESSIVE OFFLINE")
        elif state.mode is Mode.JACKPOT:
            steps = self._jackpot_steps(state)
        else:
            return self._pattern_steps(state.pattern)
        if state.message:
            steps += self._text_steps(state.message)
        if not steps:
            steps = [_Step(math.inf, self._still(self.geometry.blank()))]
        if len(steps) == 1:  # nothing to rotate through: hold it, no wake-ups
            steps = [_Step(math.inf, steps[0].draw)]
        return steps

    def _pool_steps(self, state: SignState) -> list[_Step]:
        if len(state.pools) == 1:
            return [_Step(self.timing.pool_seconds, self._meter(state.pools[0].name))]
        steps: list[_Step] = []
        for pool in state.pools:
            steps += self._text_steps(pool.name, self.timing.label_seconds)
            steps.append(_Step(self.timing.pool_seconds, self._meter(pool.name)))
        return steps

    def _jackpot_steps(self, state: SignState) -> list[_Step]:
        word = "JACKPOT"
        if self.geometry.fits(word):
            on = self._still(self.geometry.static(word, "center"))
            off = self._still(self.geometry.blank())
            steps = [_Step(d, draw) for _ in range(3) for d, draw in ((0.4, on), (0.2, off))]
        else:
            steps = self._text_steps(word)
        frame, overflow = self._amount_frame(state.jackpot or 0)
        steps.append(_Step(2.5, lambda t, now: (frame, None, overflow)))
        steps.append(_Step(0.3, self._still(self.geometry.blank())))
        return steps

    def _pattern_steps(self, pattern: str) -> list[_Step]:
        g, step = self.geometry, self.timing.pattern_step
        if pattern == "all":
            return [_Step(math.inf, self._still(g.all_on()))]
        if pattern == "digits":
            return [_Step(step, self._still(g.one_on(i))) for i in range(g.test_positions)]
        return [_Step(step, self._still(g.all_on(level))) for level in range(BRIGHTNESS_LEVELS)]

    def _text_steps(self, text: str, hold: float | None = None) -> list[_Step]:
        """``text`` centred for ``hold`` seconds if it fits, else one pass of a marquee."""
        g = self.geometry
        if g.fits(text):
            return [
                _Step(hold or self.timing.message_seconds, self._still(g.static(text, "center")))
            ]
        rate = g.scroll_rate

        def scroll(t: float, now: float) -> tuple[SignFrame, float | None, bool]:
            step = math.floor(t * rate + EPSILON)
            return g.marquee(text, step), now - t + (step + 1) / rate, False

        return [_Step(g.marquee_steps(text) / rate, scroll)]

    # -- frames -----------------------------------------------------------------------------

    @staticmethod
    def _still(frame: SignFrame) -> Draw:
        return lambda t, now: (frame, None, False)

    def _meter(self, name: str) -> Draw:
        def draw(t: float, now: float) -> tuple[SignFrame, float | None, bool]:
            odo = self._odometers[name]
            frame, overflow = self._amount_frame(odo.value(now))
            tick = odo.next_tick(now, 1.0 / self.timing.frame_rate)
            return frame, tick, overflow

        return draw

    def _amount_frame(self, amount: int) -> tuple[SignFrame, bool]:
        shown = fit_amount(amount, currency(self.state.currency), self.geometry.fits)
        if shown.shown is Shown.OVERFLOW or shown.text is None:
            return self.geometry.dashes(), True
        return self.geometry.static(shown.text, "right"), False
