"""What a scenario expects of the table, checked the way the rig sees it.

Each expectation of an ``expect`` step (see :mod:`controller.rig.scenario`) reads one thing:

- the daemon's ``status`` (``state``, ``verdict``: a rule ID, ``verified`` or ``none``,
  ``reason`` text, ``conditions`` keeping the table closed, ``seats``: each seat's sensor
  state, ``recovered``: rounds voided at start-up);
- the lamps on the rig's pins: ``on`` or ``off`` (steady for :data:`LAMP_WINDOW`) or
  ``blink`` (two changes or more within it, the last within half of it), from the pin
  history the rig keeps;
- the sign read back from its LEDs (``sign``: the text it shows; ``sign_mode``);
- ``meters`` (the table's pool), ``round`` (``round.last``: the last round closed, settled or
  voided, with each seat's stakes, what each wager paid, its rule and pay line under
  ``seat.N.wagers``), ``journal`` (an entry of that kind whose data holds these values);
- ``cards_as_delivered``: the controller's record of the last round (``round show``, the
  technician's surveillance view) deals exactly the cards the shuffler delivered, in order
  (the emulator's own record); ``"same cards"``: the same cards in any order (community
  cards replaced, MD-X2, sit in the board's positions but came out of the machine last).

Tables are compared as subsets: only the keys written in the scenario must match.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from controller.engine.cards import card_name
from controller.rig.target import TableUnderTest
from display.money import money_writer

SAME_CARDS = "same cards"  # cards_as_delivered: the same cards, in any order
LAMP_WINDOW = 1.2  # seconds: a slow blink (1 Hz) changes twice within it


# Meters that count (the others are money); round.last's amounts of money (keys, and every
# leaf under ``paid``, seat -> wager -> amount)
COUNT_METERS = frozenset({"rounds", "hits", "voids", "corrections", "cycle", "carry"})
ROUND_MONEY = frozenset({"stake", "paid", "returned", "paid_total"})

Shown = Callable[[str, Any], str]  # (dotted path, value) -> the value as the report shows it


def subset_mismatch(
    expected: Any, actual: Any, path: str = "", shown: Shown | None = None
) -> str | None:
    """Where ``actual`` differs from ``expected`` (tables: only the keys of ``expected``);
    ``shown`` writes the values of the report's line (money as money), else ``repr``."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{path or 'value'}: expected a table, saw {actual!r}"
        for key, want in expected.items():
            got = actual.get(str(key))
            if got is None and str(key) not in actual:
                return f"{path}{key}: missing (saw keys {sorted(actual)})"
            if (why := subset_mismatch(want, got, f"{path}{key}.", shown)) is not None:
                return why
        return None
    if expected == actual:
        return None
    where = path.rstrip(".")
    show = shown or (lambda _path, value: repr(value))
    return f"{where}: expected {show(where, expected)}, saw {show(where, actual)}"


def money_shown(code: str, is_money: Callable[[str], bool]) -> Shown:
    """Amounts (integers at a path ``is_money`` names) as ``EUR 5,000.31 (500031)``: money for
    the person reading the report, with the minor units the scenario file is written in."""
    write = money_writer(code)

    def show(path: str, value: Any) -> str:
        if is_money(path) and isinstance(value, int) and not isinstance(value, bool):
            return f"{write(value)} ({value})"
        return repr(value)

    return show


def is_meter_money(path: str) -> bool:
    return path.rsplit(".", 1)[-1] not in COUNT_METERS


def is_round_money(path: str) -> bool:
    return path.startswith("paid.") or path.rsplit(".", 1)[-1] in ROUND_MONEY


def round_view(last: dict[str, Any] | None) -> dict[str, Any]:
    """``round.last`` with the seats by number (``seat.2.wagers.play.paid``)."""
    if last is None:
        return {"state": "none"}
    view = {k: v for k, v in last.items() if k != "seats"}
    if "seats" in last:
        view["seat"] = {str(s["seat"]): s for s in last["seats"]}
    return view


def lamp_pattern(table: TableUnderTest, lamp: str, now: float) -> str:
    """``blink`` (two changes or more within the window, the last one recent), ``on`` or
    ``off`` (no change within the window), else ``changing`` (it just went on or off)."""
    io = table.io
    if io is None:
        return "no rig pins"
    changes = [t for t, _lit in io.lamp_history(lamp) if t > now - LAMP_WINDOW]
    if len(changes) >= 2 and changes[-1] > now - LAMP_WINDOW / 2:
        return "blink"
    if changes:
        return "changing"
    lit = io.lamp_lit(lamp)
    return "unset" if lit is None else ("on" if lit else "off")


def dealt_in_order(record: dict[str, Any]) -> list[str]:
    """The cards of a recorded round in the order a shuffler delivers them."""
    if "shoe" in record:  # blackjack: the shoe's cards as they left it
        return record["shoe"].split()
    cards = list(record["community"])
    for seat in record["seats"]:
        cards += seat["cards"]
    return cards + list(record["dealer"])


class Expectations:
    """Checks one ``expect`` table; :meth:`mismatches` reads the table afresh each call."""

    def __init__(self, table: TableUnderTest, expect: dict[str, Any]) -> None:
        self.table = table
        self.expect = expect

    def mismatches(self) -> list[str]:
        table, found = self.table, []
        status = table.status()
        for key, want in self.expect.items():
            why = getattr(self, f"_{key}")(want, status)
            if why:
                found.append(f"{key}: {why}")
        return found

    def _state(self, want: Any, status: dict[str, Any]) -> str | None:
        states = want if isinstance(want, list) else [want]
        return None if status["state"] in states else f"table is {status['state']}"

    def _verdict(self, want: str, status: dict[str, Any]) -> str | None:
        v = status.get("verdict")
        seen = "none" if v is None else (v["rule"] or v["status"])
        return None if seen == want else f"saw {seen} ({(v or {}).get('reason', '')})"

    def _reason(self, want: str, status: dict[str, Any]) -> str | None:
        reason = (status.get("verdict") or {}).get("reason", "")
        return None if want in reason else f"reason is {reason!r}"

    def _conditions(self, want: list[str], status: dict[str, Any]) -> str | None:
        seen = status["conditions"]
        return None if set(seen) == set(want) else f"saw {seen}"

    def _seats(self, want: dict[str, str], status: dict[str, Any]) -> str | None:
        return subset_mismatch(want, status.get("sensors", {}))

    def _recovered(self, want: list[str], status: dict[str, Any]) -> str | None:
        seen = status.get("recovered_rounds", [])
        return None if seen == want else f"saw {seen}"

    def _lamps(self, want: dict[str, str], status: dict[str, Any]) -> str | None:
        now = time.monotonic()
        seen = {lamp: lamp_pattern(self.table, lamp, now) for lamp in want}
        return None if seen == want else f"saw {seen}"

    def _sign(self, want: str, status: dict[str, Any]) -> str | None:
        seen = self.table.sign_text()
        return None if seen == want else f"the sign shows {seen!r}"

    def _sign_mode(self, want: str, status: dict[str, Any]) -> str | None:
        seen = self.table.call("sign.state")["mode"]
        return None if seen == want else f"saw {seen}"

    def _meters(self, want: dict[str, Any], status: dict[str, Any]) -> str | None:
        pools = self.table.call("meters")
        if not pools:
            return "the table has no pool"
        shown = money_shown(status.get("currency", "EUR"), is_meter_money)
        return subset_mismatch(want, pools[0]["meters"], shown=shown)

    def _round(self, want: dict[str, Any], status: dict[str, Any]) -> str | None:
        shown = money_shown(status.get("currency", "EUR"), is_round_money)
        return subset_mismatch(want, round_view(self.table.call("round.last")), shown=shown)

    def _journal(
        self, want: dict[str, Any] | list[dict[str, Any]], status: dict[str, Any]
    ) -> str | None:
        entries = self.table.call("events.tail", n=500)
        for wanted in want if isinstance(want, list) else [want]:
            data = {k: v for k, v in wanted.items() if k != "kind"}
            if not any(
                e["kind"] == wanted.get("kind", e["kind"])
                and subset_mismatch(data, e["data"]) is None
                for e in entries
            ):
                return f"no entry like {wanted}"
        return None

    def _cards_as_delivered(self, want: bool | str, status: dict[str, Any]) -> str | None:
        shown = self.table.call("round.show", privileged=True, round="last")
        recorded = dealt_in_order(shown["record"])
        delivered = [
            card_name(c) if c is not None else "?" for c in self.table.emulate("state")["delivered"]
        ]
        if want == SAME_CARDS:
            same, want = sorted(recorded) == sorted(delivered), True
        else:
            same = recorded == delivered
        return None if same == want else f"recorded {recorded}, the shuffler delivered {delivered}"
