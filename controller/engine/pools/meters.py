"""The state and meters of one pool, and every money movement on it, in exact minor units.

Pure functions from a :class:`PoolState` to the next one: the ledger (SQLite) and the linked
pool store apply them inside their transactions and store the result; the verifier replays
them over the journal. Nothing here reads a clock or a file.

Contributions and the remainder rule
------------------------------------
A qualifying stake ``S`` contributes exactly ``S x contribution_rate`` to the displayed amount
and ``S x reserve_rate`` to the reserve. These are fractions of a minor unit in general (15% of
1 cent is 3/20 of a cent). Each of the two streams keeps a **carry**, the fraction of a minor
unit it has received but not yet paid out, an exact ratio ``0 <= num/den < 1``:

    whole, carry' = divmod(carry + S x rate)     (floor and fractional part)

``whole`` minor units move to the meter; ``carry'`` waits for the next stake. So, per stream,
``minor units credited + carry = the exact sum of S x rate`` at every instant: no fraction of a
cent is ever created, rounded away or lost, whatever the rates and stakes. Only the carry is
remembered, per pool; a rate change between rounds keeps it.

A cap diverts the whole units that would lift the displayed amount above it to the reserve
("overflow"); the carry stays with the contribution stream.

A void (MD) reverses a round's contribution exactly: it subtracts ``S x rate`` from each
stream with the same rule (``divmod`` of a negative amount floors), so the carry returns to
where it was when no other round moved in between, and stays exact when one did. The units
taken back come first from the round's own overflow (reserve), then from the displayed amount.

Meters (lifetime unless prefixed ``cycle_``; a cycle starts at a reset to the seed, PRG-5)
satisfy, at every instant (:func:`identity_problems`):

    current = seeded_house + seeded_reserve + contributions - won_from_pool + corrections
    current = cycle_start + cycle_contributions - cycle_won + cycle_corrections
    reserve = reserve_contributions + overflow - seeded_reserve + reserve_corrections
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from fractions import Fraction
from math import gcd
from typing import Any

from controller.engine.paytable import Pay
from controller.engine.pools.awards import LinkSeat, ProgressiveOutcome, resolve_awards
from controller.engine.pools.config import PoolConfig


class PoolArithmeticError(ValueError):
    """A movement would break the pool's arithmetic (negative amount, stale outcome, above
    the cap). The ledger turns it into a LedgerError; nothing is applied."""


@dataclass(frozen=True)
class Carry:
    """A fraction of a minor unit, ``num/den`` in lowest terms with ``0 <= num < den``."""

    num: int = 0
    den: int = 1

    def add(self, num: int, den: int) -> tuple[int, Carry]:
        """Add ``num/den`` minor units: (whole units to credit, new carry). ``num`` may be
        negative (a reversal); the whole part is then floored, so the carry stays in [0, 1)."""
        whole, rem = divmod(self.num * den + num * self.den, self.den * den)
        if rem == 0:
            return whole, Carry()
        g = gcd(rem, self.den * den)
        return whole, Carry(rem // g, self.den * den // g)

    def __str__(self) -> str:
        return f"{self.num}/{self.den}"


@dataclass(frozen=True)
class PoolState:
    name: str
    cycle: int = 0  # resets to the seed so far
    current: int = 0  # the amount displayed
    carry: Carry = Carry()  # of the contribution stream
    reserve: int = 0  # hidden; funds the next seed
    reserve_carry: Carry = Carry()
    rounds: int = 0  # rounds with a qualifying stake (voided rounds are taken out)
    stakes_in: int = 0  # qualifying stakes (net of voids)
    voids: int = 0  # rounds voided after contributing (MD)
    stakes_returned: int = 0
    contributions: int = 0  # units added to the displayed amount (net of reversals)
    reserve_contributions: int = 0
    overflow: int = 0  # units the cap diverted to the reserve
    seeded_house: int = 0  # seeds the house funded (the first one, and resets)
    seeded_reserve: int = 0  # seeds the reserve funded
    hits: int = 0  # seats that won (a share of) the pool with their own line
    won_from_pool: int = 0
    won_fixed: int = 0  # progressive lines paid by the house (odds, fixed amounts)
    envy_paid: int = 0  # PRG-4, paid by the house
    corrections: int = 0  # net technician change of the displayed amount
    reserve_corrections: int = 0
    cycle_start: int = 0  # the seed the cycle started from
    cycle_contributions: int = 0
    cycle_won: int = 0
    cycle_corrections: int = 0

    def to_row(self) -> dict[str, Any]:
        """Plain values by meter name, carries as ``"num/den"`` (asdict is far slower)."""
        row = {name: getattr(self, name) for name in METER_COLUMNS}
        row["carry"], row["reserve_carry"] = str(self.carry), str(self.reserve_carry)
        return row

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> PoolState:
        values = {name: row[name] for name in METER_COLUMNS}
        for name in ("carry", "reserve_carry"):
            num, den = str(values[name]).split("/")
            values[name] = Carry(int(num), int(den))
        return cls(**values)


METER_COLUMNS: tuple[str, ...] = tuple(f.name for f in fields(PoolState))


def _evolve(state: PoolState, **changes: Any) -> PoolState:
    """``dataclasses.replace`` without its per-field checks: a state changes on every money
    event and replace() dominated the journal replay. The result is still a frozen PoolState;
    only names of existing fields may change."""
    unknown = changes.keys() - state.__dict__.keys()
    if unknown:
        raise TypeError(f"PoolState has no field {sorted(unknown)[0]!r}")
    new = object.__new__(PoolState)
    new.__dict__.update(state.__dict__, **changes)
    return new


@dataclass(frozen=True)
class Contribution:
    """What one round's qualifying stake moved on one pool."""

    stake: int
    rate: Fraction
    reserve_rate: Fraction
    to_current: int
    overflow: int  # whole units diverted by the cap to the reserve
    to_reserve: int

    def to_json(self) -> dict[str, Any]:
        return {
            "stake": self.stake,
            "rate": str(self.rate),
            "reserve_rate": str(self.reserve_rate),
            "to_current": self.to_current,
            "overflow": self.overflow,
            "to_reserve": self.to_reserve,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Contribution:
        return cls(
            data["stake"],
            Fraction(data["rate"]),
            Fraction(data["reserve_rate"]),
            data["to_current"],
            data["overflow"],
            data["to_reserve"],
        )


@dataclass(frozen=True)
class Reversal:
    from_current: int
    from_overflow: int
    from_reserve: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Reversal:
        return cls(data["from_current"], data["from_overflow"], data["from_reserve"])


def new_pool(config: PoolConfig) -> PoolState:
    """A pool as created: the house funds the first seed."""
    return PoolState(
        name=config.name,
        current=config.seed,
        seeded_house=config.seed,
        cycle_start=config.seed,
    )


def contribute(state: PoolState, config: PoolConfig, stake: int) -> tuple[PoolState, Contribution]:
    if stake <= 0:
        raise PoolArithmeticError(f"a qualifying stake must be positive, got {stake}")
    rate, reserve_rate = config.contribution_rate, config.reserve_rate
    whole, carry = state.carry.add(stake * rate.numerator, rate.denominator)
    to_current, overflow = whole, 0
    if config.cap is not None and state.current + whole > config.cap:
        to_current = max(0, config.cap - state.current)
        overflow = whole - to_current
    to_reserve, reserve_carry = state.reserve_carry.add(
        stake * reserve_rate.numerator, reserve_rate.denominator
    )
    after = _evolve(
        state,
        current=state.current + to_current,
        carry=carry,
        reserve=state.reserve + overflow + to_reserve,
        reserve_carry=reserve_carry,
        rounds=state.rounds + 1,
        stakes_in=state.stakes_in + stake,
        contributions=state.contributions + to_current,
        cycle_contributions=state.cycle_contributions + to_current,
        reserve_contributions=state.reserve_contributions + to_reserve,
        overflow=state.overflow + overflow,
    )
    return after, Contribution(stake, rate, reserve_rate, to_current, overflow, to_reserve)


def reverse(state: PoolState, c: Contribution) -> tuple[PoolState, Reversal]:
    """Take a voided round's contribution back exactly (MD)."""
    whole, carry = state.carry.add(-c.stake * c.rate.numerator, c.rate.denominator)
    from_overflow = min(-whole, c.overflow)
    from_current = -whole - from_overflow
    back, reserve_carry = state.reserve_carry.add(
        -c.stake * c.reserve_rate.numerator, c.reserve_rate.denominator
    )
    from_reserve = -back
    if from_current > state.current or from_overflow + from_reserve > state.reserve:
        raise PoolArithmeticError(
            f"pool {state.name}: reversing this round would take the pool below zero"
        )
    after = _evolve(
        state,
        current=state.current - from_current,
        carry=carry,
        reserve=state.reserve - from_overflow - from_reserve,
        reserve_carry=reserve_carry,
        rounds=state.rounds - 1,
        stakes_in=state.stakes_in - c.stake,
        voids=state.voids + 1,
        stakes_returned=state.stakes_returned + c.stake,
        contributions=state.contributions - from_current,
        cycle_contributions=state.cycle_contributions - from_current,
        reserve_contributions=state.reserve_contributions - from_reserve,
        overflow=state.overflow - from_overflow,
    )
    return after, Reversal(from_current, from_overflow, from_reserve)


def resolve(
    state: PoolState,
    config: PoolConfig,
    hits: dict[int, str | None],
    stakes: dict[int, int],
    others: Mapping[LinkSeat, int] | None = None,
    received: Mapping[int, int] | None = None,
) -> ProgressiveOutcome:
    """The awards of a round on this pool as it stands (see controller.engine.pools.awards).
    ``hits`` names each progressive seat's best line of this pool's pay table, or None;
    ``others`` and ``received`` are CH-9's across the link (``share_scope = "link"``)."""
    lines: dict[int, tuple[str, Pay] | None] = {
        seat: None if line is None else (line, config.pay_for(line)) for seat, line in hits.items()
    }
    return resolve_awards(
        hits=lines,
        stakes=stakes,
        pool=state.current,
        seed=config.seed,
        unit_stake=config.rules.stake,
        award=config.rules.award,
        multiple_hits=config.rules.multiple_hits,
        envy_bonus=config.rules.envy_bonus,
        envy_to_winner=config.rules.envy_to_winner,
        others=others,
        received=received,
    )


def award(state: PoolState, config: PoolConfig, outcome: ProgressiveOutcome) -> PoolState:
    """Apply a round's resolved awards: draw on the pool, reset to the seed after a 100%
    award (PRG-5), the seed funded by the reserve as far as it goes, then by the house."""
    if outcome.pool_before != state.current:
        raise PoolArithmeticError(
            f"pool {state.name}: awards were resolved on {outcome.pool_before} but the pool "
            f"stands at {state.current}"
        )
    expected = state.current - outcome.jackpot_paid + outcome.resets * config.seed
    if expected != outcome.pool_after or outcome.pool_after < 0:
        raise PoolArithmeticError(
            f"pool {state.name}: awards do not add up ({state.current} - "
            f"{outcome.jackpot_paid} + {outcome.resets} seeds != {outcome.pool_after})"
        )
    reserve, from_reserve = state.reserve, 0
    for _ in range(outcome.resets):
        funded = min(reserve, config.seed)
        reserve -= funded
        from_reserve += funded
    seeded = outcome.resets * config.seed
    house_lines = sum(a.amount + a.share - a.from_pool for a in outcome.awards.values())
    after = _evolve(
        state,
        current=outcome.pool_after,
        reserve=reserve,
        seeded_reserve=state.seeded_reserve + from_reserve,
        seeded_house=state.seeded_house + seeded - from_reserve,
        hits=state.hits + len(outcome.order),
        won_from_pool=state.won_from_pool + outcome.jackpot_paid,
        won_fixed=state.won_fixed + house_lines,
        envy_paid=state.envy_paid + sum(a.envy for a in outcome.awards.values()),
    )
    if outcome.resets:
        return _evolve(
            after,
            cycle=state.cycle + outcome.resets,
            cycle_start=config.seed,
            cycle_contributions=0,
            cycle_won=config.seed - outcome.pool_after,
            cycle_corrections=0,
        )
    return _evolve(after, cycle_won=state.cycle_won + outcome.jackpot_paid)


@dataclass(frozen=True)
class SharesReturned:
    """CH-9: the shares a hit fixed for a round voided before it paid them, back in the pool."""

    seats: dict[int, int]  # seat -> share
    to_current: int
    to_reserve: int  # what the cap kept off the displayed amount (counted as overflow)

    def to_json(self) -> dict[str, Any]:
        return {
            "seats": {str(s): v for s, v in sorted(self.seats.items())},
            "to_current": self.to_current,
            "to_reserve": self.to_reserve,
        }


def return_shares(
    state: PoolState, config: PoolConfig, seats: Mapping[int, int]
) -> tuple[PoolState, SharesReturned]:
    """Give back to the pool the shares of another table's hit that a voided round will never
    pay (CH-9 [interpretation]). They were drawn on the pool at the hit, so they come off
    ``won_from_pool`` and ``cycle_won``; a cap diverts what would lift the displayed amount
    above it to the reserve, as it does a contribution (``overflow``)."""
    amount = sum(seats.values())
    if amount < 0 or any(v < 0 for v in seats.values()):
        raise PoolArithmeticError(f"pool {state.name}: a returned share cannot be negative")
    to_current = amount
    if config.cap is not None:
        to_current = min(amount, max(0, config.cap - state.current))
    to_reserve = amount - to_current
    after = _evolve(
        state,
        current=state.current + to_current,
        reserve=state.reserve + to_reserve,
        overflow=state.overflow + to_reserve,
        won_from_pool=state.won_from_pool - to_current,
        cycle_won=state.cycle_won - to_current,
    )
    return after, SharesReturned(dict(seats), to_current, to_reserve)


CORRECTABLE = ("current", "reserve")


def correct(state: PoolState, config: PoolConfig, meter: str, value: int) -> PoolState:
    """A technician sets the displayed amount or the reserve; the change is kept in the
    correction meters so the identities still hold."""
    if meter not in CORRECTABLE:
        raise PoolArithmeticError(f"only {' and '.join(CORRECTABLE)} can be corrected")
    if value < 0:
        raise PoolArithmeticError(f"{meter} cannot be negative")
    delta = value - getattr(state, meter)
    if meter == "reserve":
        return _evolve(state, reserve=value, reserve_corrections=state.reserve_corrections + delta)
    if config.cap is not None and value > config.cap:
        raise PoolArithmeticError(f"{value} is above the pool's cap {config.cap}")
    return _evolve(
        state,
        current=value,
        corrections=state.corrections + delta,
        cycle_corrections=state.cycle_corrections + delta,
    )


def identity_problems(state: PoolState, config: PoolConfig | None = None) -> list[str]:
    """Every meter identity the state breaks (empty when sound)."""
    s = state
    problems = []
    lifetime = s.seeded_house + s.seeded_reserve + s.contributions - s.won_from_pool
    if s.current != lifetime + s.corrections:
        problems.append(
            f"current {s.current} != seeds {s.seeded_house + s.seeded_reserve} + contributions "
            f"{s.contributions} - won {s.won_from_pool} + corrections {s.corrections}"
        )
    cycle = s.cycle_start + s.cycle_contributions - s.cycle_won + s.cycle_corrections
    if s.current != cycle:
        problems.append(
            f"current {s.current} != cycle seed {s.cycle_start} + contributions "
            f"{s.cycle_contributions} - won {s.cycle_won} + corrections {s.cycle_corrections}"
        )
    reserve = s.reserve_contributions + s.overflow - s.seeded_reserve + s.reserve_corrections
    if s.reserve != reserve:
        problems.append(
            f"reserve {s.reserve} != contributions {s.reserve_contributions} + overflow "
            f"{s.overflow} - seeds funded {s.seeded_reserve} + corrections {s.reserve_corrections}"
        )
    for name in ("carry", "reserve_carry"):
        c = getattr(s, name)
        if not (c.den > 0 and 0 <= c.num < c.den and gcd(c.num, c.den) == 1):
            problems.append(f"{name} {c} is not a fraction of a unit in lowest terms")
    if s.current < 0 or s.reserve < 0:
        problems.append("a balance is negative")
    if config is not None and config.cap is not None and s.current > config.cap:
        problems.append(f"current {s.current} is above the cap {config.cap}")
    return problems
