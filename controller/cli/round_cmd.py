"""``croupier round``: the round in play and recorded rounds, through the daemon's socket.

- ``croupier round stake|withdraw|seats|decide|cards|misdeal|expose|lock|confirm``: what a dealer
  tablet (or the rig) enters; read without argparse when the command line is plain
  (controller.cli.quick);
- ``croupier round show|settle [ID|last]``: a recorded round for a dispute (credential).
"""

from __future__ import annotations

from controller.cli.argtypes import (
    OutOfLimits,
    UsageError,
    integer,
    journal_text,
    money,
    money_value,
    round_name,
)
from controller.cli.daemon_client import add_daemon_action, call
from controller.cli.main import add_command
from controller.cli.output import print_json
from controller.quick_json import dumps
from display.money import Currency, currency

TYPE_CHECKING = False
if TYPE_CHECKING:  # for the type checker only: importing typing costs every command time
    import argparse
    from typing import Any

    from controller.engine.games.results import RoundResult

# The engine is imported by the commands that need it: `croupier round lock` stays quick on a
# Pi (controller/cli/main.py).

EXAMPLES = {
    "round": [
        "croupier round stake 2 ante=1000 blind=1000 --decision 4x",
        "croupier round withdraw 2",
        "croupier round lock",
        "CROUPIER_CREDENTIAL=... croupier round show last",
        "croupier round expose --community 4 --community 5",
    ],
}


def register(sub: argparse._SubParsersAction) -> None:
    r = add_command(sub, "round")
    ra = r.add_subparsers(dest="action", metavar="ACTION", required=True)
    s = add_daemon_action(
        ra, "stake", "enter a seat's whole stakes (minor units) and decision", round_stake
    )
    s.description = (  # the formatter keeps the lines as written (the examples' epilog)
        "Enter a seat's whole stakes, in minor units (ante=1000 is EUR 10.00), and its\n"
        "decision. An entry REPLACES the stakes entered for the seat before: give every\n"
        "wager each time (UTH-2: the Blind equal to the Ante, in the same entry; an Ante\n"
        "or a Blind alone is refused, naming the rule). The reply shows the seat's stakes\n"
        "now, as money. A progressive stake is the sensor's: LOCK takes the fixed stake of\n"
        "each seat whose sensor holds one, and 'round lock' says which entered progressive\n"
        "stakes it did not take, and why (PRG-2)."
    )
    s.add_argument("seat", type=integer(1, 99), help="the seat number")
    s.add_argument(
        "stakes",
        nargs="+",
        metavar="WAGER=AMOUNT",
        help="every wager of the seat, e.g. ante=1000 blind=1000 trips=500",
    )
    s.add_argument("--decision", help="UTH 4x 3x 2x 1x fold (no-play: uth-it, MD-X4); CH play fold")
    w = add_daemon_action(
        ra,
        "withdraw",
        "take back the stakes entered for a seat (before LOCK; hold'em: until the showdown)",
        round_withdraw,
    )
    w.add_argument("seat", type=integer(1, 99), help="the seat number")
    se = add_daemon_action(
        ra, "seats", "declare the seats in play besides the sensed ones", round_seats
    )
    se.add_argument("seats", type=integer(1, 99), nargs="+", metavar="SEAT", help="seat numbers")
    d = add_daemon_action(
        ra, "decide", "a seat's decision (UTH/CH decision, blackjack action)", round_decide
    )
    d.add_argument("seat", type=integer(1, 99), help="the seat number")
    d.add_argument(
        "decision",
        help="4x 3x 2x 1x fold no-play (uth-it, MD-X4) | play fold"
        " | hit stand double split insurance",
    )
    d.add_argument(
        "--amount", type=money, default=0, help="insurance stake (minor units; default 0)"
    )
    cards = add_daemon_action(ra, "cards", "enter the cards of a manually dealt round", round_cards)
    cards.add_argument("destination", help="community, dealer or seat:N")
    cards.add_argument("cards", nargs="+", metavar="CARD", help="e.g. As Kd")
    m = add_daemon_action(
        ra,
        "misdeal",
        "declare a misdeal with its rule: MD-S* from a shuffler or shoe, MD-M* by hand"
        " (MD-M2/M4/M6/M7 before any player acted)",
        round_misdeal,
    )
    m.add_argument("rule", help="e.g. MD-S3 (shuffler), MD-M2 (by hand)")
    m.add_argument("reason", type=journal_text, help="what happened (journaled)")
    x = add_daemon_action(
        ra,
        "expose",
        "cards exposed at the wrong time: replace them (dealer MD-X1/MD-X3, community MD-X2)",
        round_expose,
    )
    x.add_argument(
        "--card",
        type=integer(1, 2),
        action="append",
        dest="positions",
        metavar="N",
        help="which of the dealer's cards (1 or 2; default both)",
    )
    x.add_argument(
        "--community",
        type=integer(1, 5),
        action="append",
        metavar="N",
        help="a wrongly exposed community card instead (flop 1-3, turn 4, river 5; MD-X2)",
    )
    add_daemon_action(ra, "lock", "press LOCK (bets closed)", round_button)
    add_daemon_action(ra, "confirm", "press CONFIRM", round_button)
    for name, help_text in (
        ("show", "a recorded round (surveillance)"),
        ("settle", "settle a recorded round again (dispute)"),
    ):
        x = add_daemon_action(ra, name, help_text, round_recorded, privileged=True)
        x.add_argument(
            "round", nargs="?", default="last", type=round_name, help="round ID or 'last'"
        )


def _parse_stakes(items: list[str]) -> dict[str, int]:
    """``ante=1000 blind=1000`` as wager -> amount: each a wager named once, with an amount of
    money in ASCII digits (argtypes.money_value); a usage error otherwise, before the daemon
    is asked. Which wagers the game has is the daemon's to say (the profile is the table's)."""
    stakes: dict[str, int] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name or not (value.isascii() and value.isdigit()):
            raise UsageError(f"stake {item!r}: write WAGER=AMOUNT in minor units, e.g. ante=1000")
        if name in stakes:
            raise UsageError(f"stake {item!r}: {name} is given twice (one amount per wager)")
        try:
            stakes[name] = money_value(value)
        except OutOfLimits as exc:
            raise UsageError(f"stake {item!r}: {exc}") from None
    return stakes


def round_stake(args: argparse.Namespace) -> int:
    result = call(
        args,
        "round.stake",
        seat=args.seat,
        stakes=_parse_stakes(args.stakes),
        decision=args.decision,
    )
    print_json(result) if args.json else print(f"seat {args.seat}: {result}")
    return 0


def round_withdraw(args: argparse.Namespace) -> int:
    result = call(args, "round.withdraw", seat=args.seat)
    print_json(result) if args.json else print(f"seat {args.seat}: {result}")
    return 0


def round_seats(args: argparse.Namespace) -> int:
    result = call(args, "round.seats", seats=args.seats)
    print_json(result) if args.json else print(result)
    return 0


def round_expose(args: argparse.Namespace) -> int:
    if args.positions and args.community:
        raise UsageError("--card and --community: one exposure at a time (dealer or community)")
    if args.community:
        result = call(args, "round.expose", destination="community", positions=args.community)
    else:
        result = call(args, "round.expose", positions=args.positions or [1, 2])
    where = "community cards" if args.community else "dealer cards"
    print_json(result) if args.json else print(f"{where}: {result}")
    return 0


def round_decide(args: argparse.Namespace) -> int:
    result = call(args, "round.decide", seat=args.seat, action=args.decision, amount=args.amount)
    print_json(result) if args.json else print(f"seat {args.seat}: {result}")
    return 0


def round_cards(args: argparse.Namespace) -> int:
    result = call(args, "round.cards", destination=args.destination, cards=args.cards)
    print_json(result) if args.json else print(f"{args.destination}: {result}")
    return 0


def round_misdeal(args: argparse.Namespace) -> int:
    result = call(args, "round.misdeal", rule=args.rule, reason=args.reason)
    print_json(result) if args.json else print(f"misdeal {args.rule} {result}")
    return 0


def round_button(args: argparse.Namespace) -> int:
    result = call(args, f"round.{args.action}")
    print_json(result) if args.json else print(f"{args.action.upper()} {result}")
    return 0


def _result_from_json(data: dict[str, Any]) -> RoundResult:
    from controller.engine.games.results import RoundResult, SeatResult, Wager

    seats = [
        SeatResult(
            s["seat"],
            s.get("hand"),
            {
                n: Wager(w["stake"], w["result"], w["paid"], w["rule"], w.get("line"))
                for n, w in s["wagers"].items()
            },
            s.get("cards", []),
        )
        for s in data["seats"]
    ]
    return RoundResult("", data["profile"], data["dealer"], seats, data.get("pools", {}))


def round_recorded(args: argparse.Namespace) -> int:
    result = call(args, f"round.{args.action}", privileged=True, round=args.round)
    if args.json:
        print_json(result)
        return 0
    # the engine for the person's view only: not for --json, nor before the daemon answered
    from controller.cli.settle_cmd import print_human
    from controller.engine.profiles import load_profile

    def _currency(profile: str) -> Currency:
        return currency(load_profile(profile).money.currency)

    pool_wagers = result.get("pool_wagers")  # the table's pool names (older daemons: none)
    if args.action == "show":
        print(f"round {result['round']} (profile {result['profile']})")
        for line in record_lines(result["record"], _currency(result["profile"]), pool_wagers):
            print(line)
    else:
        verdict = "matches" if result["matches"] else "DIFFERS from"
        print(f"round {result['round']}: the engine's settlement {verdict} the table's")
    settled = result["result"]  # round.settle's reply has the profile only in its result
    print_human(_result_from_json(settled), _currency(settled["profile"]), pool_wagers)
    return 0


# The keys of a recorded round that record_lines writes itself; any other is shown as JSON
RECORD_SHOWN = ("profile", "dealer", "community", "shoe", "seats", "pools", "limits")


def record_lines(
    record: dict[str, Any], cur: Currency, pool_wagers: dict[str, str] | None = None
) -> list[str]:
    """A recorded round (the settlement's input, ``croupier settle``'s file format) for a
    person: the cards, each seat's stakes as money, the pool as it stood, the limits. The
    record itself (minor units) is ``round show --json``."""
    from controller.texts import pool_of_wager
    from display.money import format_money

    def money(amount: Any) -> str:
        if isinstance(amount, int) and not isinstance(amount, bool):
            return format_money(amount, cur)
        return dumps(amount)

    def cards(value: Any) -> str:
        return " ".join(value) if isinstance(value, list) else str(value)

    lines: list[str] = []
    for key in ("dealer", "community", "shoe"):
        if key in record:
            lines.append(f"  {key}: {cards(record[key])}")
    for seat in record.get("seats", []):
        if not isinstance(seat, dict):
            continue
        parts = [f"cards {cards(seat['cards'])}"] if seat.get("cards") else []
        stakes = seat.get("stakes") or {}
        staked = ", ".join(f"{w} {money(a)}" for w, a in stakes.items())
        parts.append(f"stakes {staked or 'none'}")
        other = [k for k in seat if k not in ("seat", "cards", "stakes")]
        parts += [f"{k} {dumps(seat[k])}" for k in other]  # decision, actions: as recorded
        lines.append(f"  seat {seat.get('seat')}: " + "; ".join(parts))
    for bet, pool in (record.get("pools") or {}).items():
        title = pool_of_wager(bet, pool_wagers)
        if isinstance(pool, dict):
            shown = ", ".join(f"{k} {money(v)}" for k, v in pool.items())
        else:
            shown = money(pool)
        lines.append(f"  {title} at the round: {shown}")
    for wager, limit in (record.get("limits") or {}).items():
        if isinstance(limit, dict):
            shown = " .. ".join(money(limit.get(k)) for k in ("min", "max"))
            lines.append(f"  limits {wager}: {shown}")
    for key, value in record.items():
        if key not in RECORD_SHOWN:
            lines.append(f"  {key}: {dumps(value)}")
    return lines
