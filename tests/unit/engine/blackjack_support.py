"""Helpers shared by the blackjack tests: profiles with changed options, rounds as JSON."""

from __future__ import annotations

import tomllib
from typing import Any

from controller.engine.games import settle
from controller.engine.profiles import Profile, find_profile, parse_profile

# What a profile file claims no rule-book profile with (controller.engine.rulebook): a house
# variant, which may choose what the Greek rules of seeds/001 fix (BJ-1's cap, BJ-6's 2 to 11)
HOUSE_VARIANT = {"name": "trilux-house", "source": "a house variant of the Greek Trilux rules"}


def trilux_profile(
    money: dict[str, Any] | None = None,
    paytables: dict[str, dict[str, str]] | None = None,
    *,
    house: bool = False,
    **rules: Any,
) -> Profile:
    """trilux-gr with some [rules] (and [money], whole [paytables.X]) changed; ``house``: as
    a house variant (:data:`HOUSE_VARIANT`), for the options trilux-gr's document fixes."""
    path = find_profile("trilux-gr")
    data = tomllib.loads(path.read_text())
    data["rules"].update(rules)
    data["money"].update(money or {})
    data["paytables"].update(paytables or {})
    if house:
        data["profile"].update(HOUSE_VARIANT)
    return parse_profile(data, str(path))


def seat(number: int, main: int = 1000, actions: Any = None, **stakes: int) -> dict[str, Any]:
    entry: dict[str, Any] = {"seat": number, "stakes": {"main": main, **stakes}}
    if actions is not None:
        entry["actions"] = actions
    return entry


def play(shoe: str, *seats: dict[str, Any], profile: Profile | None = None, **extra: Any):
    """Settle a round given as the shoe order and the seats; returns the JSON result."""
    data = {"profile": "trilux-gr", "shoe": shoe, "seats": list(seats), **extra}
    return settle(profile or trilux_profile(), data).to_json()


def wager(result: dict[str, Any], seat_number: int, name: str) -> dict[str, Any]:
    for entry in result["seats"]:
        if entry["seat"] == seat_number:
            return entry["wagers"][name]
    raise KeyError(seat_number)


def outcome(result: dict[str, Any], seat_number: int, name: str) -> tuple[str, int, int, str]:
    """(result, stake, paid, rule) of one wager."""
    w = wager(result, seat_number, name)
    return w["result"], w["stake"], w["paid"], w["rule"]
