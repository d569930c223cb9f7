"""A progressive pool's configuration at one table (PRG-1..6): the casino's settings beside the
profile's rules.

The profile (``[progressive]`` of a rule profile) fixes the rules: the bet, the unit stake, the
band the contribution rate must fall in, the envy bonus, the award policy and the pay table.
The table configuration adds what the casino sets per pool:

- ``seed``: the amount the pool starts from and resets to after a 100% award (PRG-5);
- ``contribution_rate``: the share of each qualifying stake added to the displayed amount,
  checked against the profile's band (PRG-1); defaults to the profile's rate;
- ``reserve_rate``: an optional hidden share of each stake put in the reserve, which funds the
  next seed; ``contribution_rate + reserve_rate`` may not exceed the whole stake;
- ``cap``: an optional ceiling of the displayed amount, at or above the seed; what a
  contribution would add above it goes to the reserve instead ("overflow").

:func:`pool_config` validates all of it at once and raises
:class:`~controller.validation.ConfigError` listing every problem. A :class:`PoolConfig`
serialises to plain JSON (:meth:`PoolConfig.to_json`), which is how the ledger stores and
journals it; :meth:`PoolConfig.from_json` restores exactly the same value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from controller.engine.paytable import FixedPerUnit, Odds, Pay, PayTable, PoolPercent, parse_pay
from controller.engine.profiles import Progressive
from controller.validation import ConfigError, Problems, parse_fraction

NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}\Z")


@dataclass(frozen=True)
class PoolConfig:
    name: str
    seed: int  # minor units
    contribution_rate: Fraction  # share of a qualifying stake added to the displayed amount
    reserve_rate: Fraction  # share added to the hidden reserve
    cap: int | None  # ceiling of the displayed amount, None = no cap
    rules: Progressive  # the profile's progressive rules (bet, stake, envy, award, pay table)

    @property
    def bet(self) -> str:
        return self.rules.bet

    def pay_for(self, line: str) -> Pay:
        """The pay of a line of this pool's pay table; KeyError names an unknown line."""
        try:
            return self.rules.paytable.pays[line]
        except KeyError:
            known = ", ".join(self.rules.paytable.pays)
            raise KeyError(f"pool {self.name!r} pays no line {line!r} (it pays {known})") from None

    def to_json(self) -> dict[str, Any]:
        r = self.rules
        return {
            "name": self.name,
            "seed": self.seed,
            "contribution_rate": _fraction_text(self.contribution_rate),
            "reserve_rate": _fraction_text(self.reserve_rate),
            "cap": self.cap,
            "bet": r.bet,
            "stake": r.stake,
            "contribution_band": [_fraction_text(x) for x in r.contribution_band],
            "envy_bonus": r.envy_bonus,
            "award": r.award,
            "share_scope": r.share_scope,
            "multiple_hits": r.multiple_hits,
            "linked": r.linked,
            "paytable": {line: pay_to_json(pay) for line, pay in r.paytable.pays.items()},
            # PRG-4: only when set, so pools stored before the key read back the same
            **({"envy_to_winner": True} if r.envy_to_winner else {}),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PoolConfig:
        band = tuple(Fraction(x) for x in data["contribution_band"])
        rate = Fraction(data["contribution_rate"])
        rules = Progressive(
            bet=data["bet"],
            stake=data["stake"],
            contribution_rate=rate,
            contribution_band=(band[0], band[1]),
            envy_bonus=data["envy_bonus"],
            envy_to_winner=data.get("envy_to_winner", False),  # PRG-4, stored only when set
            award=data["award"],
            share_scope=data.get("share_scope", "table"),  # stored before CH-9 changed
            multiple_hits=data["multiple_hits"],
            linked=data["linked"],
            paytable=PayTable(
                data["bet"], {ln: parse_pay(p) for ln, p in data["paytable"].items()}
            ),
        )
        return cls(
            name=data["name"],
            seed=data["seed"],
            contribution_rate=rate,
            reserve_rate=Fraction(data["reserve_rate"]),
            cap=data["cap"],
            rules=rules,
        )


def pay_to_json(pay: Pay) -> Any:
    """The TOML/JSON spelling :func:`~controller.engine.paytable.parse_pay` reads back."""
    if isinstance(pay, Odds):
        return f"{pay.to_win}:{pay.per}"
    if isinstance(pay, PoolPercent):
        return f"{_fraction_text(pay.percent)}%"
    if isinstance(pay, FixedPerUnit):
        return {"fixed": pay.amount}
    raise TypeError(f"not a pay: {pay!r}")


def _fraction_text(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else str(value)


def pool_config(
    name: str,
    rules: Progressive,
    *,
    seed: int,
    contribution_rate: Fraction | str | None = None,
    reserve_rate: Fraction | str = Fraction(0),
    cap: int | None = None,
    source: str = "pool",
) -> PoolConfig:
    """Validate a table's settings for a pool against the profile's rules.

    Raises ConfigError listing every problem (keys are ``pools.<name>.<setting>``)."""
    problems = Problems(source)
    key = f"pools.{name}"

    def fraction(setting: str, value: Fraction | str) -> Fraction | None:
        try:
            return value if isinstance(value, Fraction) else parse_fraction(value)
        except ValueError as exc:
            problems.add(f"{key}.{setting}", str(exc))
            return None

    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        problems.add(key, "a pool name is 1-40 lower-case letters, digits, '-' or '_'")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        problems.add(f"{key}.seed", f"must be zero or more minor units, got {seed!r}")
    rate = fraction(
        "contribution_rate",
        rules.contribution_rate if contribution_rate is None else contribution_rate,
    )
    if rate is not None:
        reason = rules.check_rate(rate)
        if reason:
            problems.add(f"{key}.contribution_rate", reason)
    reserve = fraction("reserve_rate", reserve_rate)
    if reserve is not None and reserve < 0:
        problems.add(f"{key}.reserve_rate", "must be zero or more")
    if rate is not None and reserve is not None and rate + reserve > 1:
        problems.add(
            f"{key}.reserve_rate",
            f"contribution rate + reserve rate = {float(rate + reserve):.4g}: "
            "more than the whole stake",
        )
    if cap is not None:
        if isinstance(cap, bool) or not isinstance(cap, int):
            problems.add(f"{key}.cap", f"must be an amount in minor units, got {cap!r}")
        elif isinstance(seed, int) and cap < seed:
            problems.add(f"{key}.cap", f"the cap {cap} is below the seed {seed} (PRG-5)")
    problems.raise_if_any()
    assert rate is not None and reserve is not None
    rules = replace(rules, contribution_rate=rate)
    return PoolConfig(name, seed, rate, reserve, cap, rules)


def check_change(old: PoolConfig, new: PoolConfig, current: int) -> None:
    """A configuration change of a live pool: the cap may only be set at or above the amount
    displayed now. Raises ConfigError."""
    if new.cap is not None and new.cap < current:
        raise ConfigError(
            f"pool {new.name}",
            [("cap", f"the cap {new.cap} is below the amount displayed now ({current})")],
        )
    if new.bet != old.bet:
        raise ConfigError(
            f"pool {new.name}", [("bet", f"a pool fed by {old.bet!r} cannot change to {new.bet!r}")]
        )
