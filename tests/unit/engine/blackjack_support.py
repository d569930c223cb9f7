"""Helpers shared by the blackjack tests: profiles with changed options, rounds as JSON."""

from __future__ import annotations

import tomllib
from typing import Any

from controller.engine.games import settle
from controller.engine.profiles import Profile, find_profile, parse_profile


def trilux_profile(
    money: dict[str, Any] | None = None,
    paytables: dict[str, dict[str, str]] | None = None,
    **rules: Any,
) -> Profile:
    """trilux-gr with some [rules] (and [money], whole [paytables.X]) changed."""
    path = find_profile("trilux-gr")
    data = tomllib.loads(path.read_text())
    data["rules"].update(rules)
    data["money"].update(money or {})
    data["paytables"].update(paytables or {})
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
