"""``croupier status | jackpot | round | config``: the live table, through the daemon's socket.

- ``croupier status``: table state, round, conditions keeping it closed, link, sensors, pools;
- ``croupier jackpot ack``: acknowledge a 100% award (technician credential, journaled);
- ``croupier seat clear N``: a seat excluded for a stuck or chattering sensor takes stakes
  again (technician);
- ``croupier round stake|seats|decide|expose|lock|confirm``: what a dealer tablet (or the rig)
  enters;
- ``croupier round show|settle [ID|last]``: a recorded round for a dispute (credential);
- ``croupier config check [FILE]`` (default /etc/croupier/table.toml) and
  ``config hash-credential``: work without a daemon.
"""

from __future__ import annotations

import sys

from controller.cli.argtypes import UsageError, integer
from controller.cli.daemon_client import add_socket_flag, call
from controller.cli.main import add_command
from controller.cli.output import add_json_flag, print_json
from controller.cli.paths import SYSTEM_CONFIG
from controller.errors import CroupierError
from controller.quick_json import dumps
from display.money import Currency, currency

TYPE_CHECKING = False
if TYPE_CHECKING:  # for the type checker only: importing typing costs every command time
    import argparse
    from typing import Any

    from controller.engine.games.results import RoundResult

# The engine, the configuration loader and the credential hashing are imported by the
# commands that need them: `croupier status` stays quick on a Pi (controller/cli/main.py).


def _sub(actions: argparse._SubParsersAction, name: str, help: str, func: Any) -> Any:
    p = actions.add_parser(name, help=help)
    add_socket_flag(p)
    add_json_flag(p)
    p.set_defaults(func=func)
    return p


EXAMPLES = {
    "jackpot": [
        "CROUPIER_CREDENTIAL=... croupier jackpot ack --technician T-4",
    ],
    "seat": [
        "croupier seat clear 3 --technician T-4",
    ],
    "round": [
        "croupier round stake 2 ante=1000 blind=1000 --decision 4x",
        "croupier round lock",
        "croupier round show last",
    ],
    "config": [
        "croupier config check                (checks /etc/croupier/table.toml)",
        "croupier config check config/sim.toml --json",
        "croupier config hash-credential",
    ],
}


def register(sub: argparse._SubParsersAction) -> None:
    j = add_command(sub, "jackpot")
    ja = j.add_subparsers(dest="action", metavar="ACTION", required=True)
    ack = _sub(ja, "ack", "acknowledge the 100%% award; the table reopens", jackpot_ack)
    ack.add_argument("--technician", required=True, help="who acknowledges (journaled)")

    st = add_command(sub, "seat")
    sta = st.add_subparsers(dest="action", metavar="ACTION", required=True)
    cl = _sub(sta, "clear", "the sensor was checked: the seat takes stakes again", seat_clear)
    cl.add_argument("seat", type=integer(1, 99), help="the seat number")
    cl.add_argument("--technician", required=True, help="who clears it (journaled)")

    r = add_command(sub, "round")
    ra = r.add_subparsers(dest="action", metavar="ACTION", required=True)
    s = _sub(ra, "stake", "enter a seat's stakes (minor units) and decision", round_stake)
    s.add_argument("seat", type=integer(1, 99), help="the seat number")
    s.add_argument("stakes", nargs="+", metavar="WAGER=AMOUNT", help="e.g. ante=1000 blind=1000")
    s.add_argument("--decision", help="UTH 4x 3x 2x 1x fold; CH play fold")
    se = _sub(ra, "seats", "declare the seats in play besides the sensed ones", round_seats)
    se.add_argument("seats", type=integer(1, 99), nargs="+", metavar="SEAT", help="seat numbers")
    d = _sub(ra, "decide", "a seat's decision (UTH/CH decision, blackjack action)", round_decide)
    d.add_argument("seat", type=integer(1, 99), help="the seat number")
    d.add_argument(
        "decision", help="4x 3x 2x 1x fold | play fold | hit stand double split insurance"
    )
    d.add_argument("--amount", type=integer(0), default=0, help="insurance stake (minor units)")
    cards = _sub(ra, "cards", "enter the cards of a manually dealt round", round_cards)
    cards.add_argument("destination", help="community, dealer or seat:N")
    cards.add_argument("cards", nargs="+", metavar="CARD", help="e.g. As Kd")
    m = _sub(ra, "misdeal", "declare a misdeal with its rule (MD-S*, MD-M*)", round_misdeal)
    m.add_argument("rule", help="e.g. MD-M2")
    m.add_argument("reason", help="what happened (journaled)")
    x = _sub(ra, "expose", "the dealer exposed his cards: re-insert them (MD-X3)", round_expose)
    x.add_argument(
        "--card",
        type=integer(1, 2),
        action="append",
        dest="positions",
        metavar="N",
        help="which of the dealer's cards (1 or 2; default both)",
    )
    _sub(ra, "lock", "press LOCK (bets closed)", round_button)
    _sub(ra, "confirm", "press CONFIRM", round_button)
    for name, help_text in (
        ("show", "a recorded round (surveillance)"),
        ("settle", "settle a recorded round again (dispute)"),
    ):
        x = _sub(ra, name, help_text, round_recorded)
        x.add_argument("round", nargs="?", default="last", help="round ID or 'last'")

    c = add_command(sub, "config")
    ca = c.add_subparsers(dest="action", metavar="ACTION", required=True)
    ck = ca.add_parser("check", help="report every problem of a table.toml")
    ck.add_argument(
        "file",
        nargs="?",
        default=SYSTEM_CONFIG,
        help=f"the configuration (default {SYSTEM_CONFIG})",
    )
    add_json_flag(ck)
    ck.set_defaults(func=config_check)
    hc = ca.add_parser("hash-credential", help="salted hash of a technician credential")
    hc.set_defaults(func=hash_cmd)


def jackpot_ack(args: argparse.Namespace) -> int:
    result = call(args, "jackpot.ack", privileged=True, technician=args.technician)
    print_json(result) if args.json else print(f"jackpot {result}")
    return 0


def seat_clear(args: argparse.Namespace) -> int:
    result = call(args, "seat.clear", privileged=True, seat=args.seat, technician=args.technician)
    print_json(result) if args.json else print(f"seat {args.seat}: {result}")
    return 0


def _parse_stakes(items: list[str]) -> dict[str, int]:
    stakes = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not value.isdigit():
            raise UsageError(f"stake {item!r}: write WAGER=AMOUNT in minor units, e.g. ante=1000")
        stakes[name] = int(value)
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


def round_seats(args: argparse.Namespace) -> int:
    result = call(args, "round.seats", seats=args.seats)
    print_json(result) if args.json else print(result)
    return 0


def round_expose(args: argparse.Namespace) -> int:
    result = call(args, "round.expose", positions=args.positions or [1, 2])
    print_json(result) if args.json else print(f"dealer cards: {result}")
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
    from controller.cli.settle_cmd import print_human
    from controller.engine.profiles import load_profile

    def _currency(profile: str) -> Currency:
        return currency(load_profile(profile).money.currency)

    result = call(args, f"round.{args.action}", privileged=True, round=args.round)
    if args.json:
        print_json(result)
        return 0
    if args.action == "show":
        print(f"round {result['round']} (profile {result['profile']})")
        print(dumps(result["record"]))
    else:
        verdict = "matches" if result["matches"] else "DIFFERS from"
        print(f"round {result['round']}: the engine's settlement {verdict} the table's")
    print_human(_result_from_json(result["result"]), _currency(result["profile"]))
    return 0


def config_check(args: argparse.Namespace) -> int:
    from controller.table.tableconfig import load_table_config

    try:
        config = load_table_config(args.file)
    except CroupierError as exc:
        problems = getattr(exc, "problems", [("", str(exc))])
        if args.json:
            print_json({"ok": False, "problems": [{"key": k, "reason": r} for k, r in problems]})
        else:
            print(f"{args.file}: {len(problems)} problem(s)")
            for key, reason in problems:
                print(f"  {key}: {reason}")
        return 1
    summary = {
        "ok": True,
        "table": config.table_id,
        "profile": config.profile.name,
        "seats": list(config.seats),
        "pools": list(config.pools),
        "shuffler": config.shuffler.port or "emulator",
    }
    if args.json:
        print_json(summary)
    else:
        print(
            f"{args.file}: OK (table {config.table_id}, profile {config.profile.name},"
            f" seats {', '.join(map(str, config.seats))}, shuffler {summary['shuffler']})"
        )
    return 0


def hash_cmd(args: argparse.Namespace) -> int:
    import getpass

    from controller.table.credentials import hash_credential

    first = (
        getpass.getpass("new technician credential: ")
        if sys.stdin.isatty()
        else sys.stdin.readline().rstrip("\n")
    )
    if sys.stdin.isatty() and getpass.getpass("again: ") != first:
        raise CroupierError("the two entries differ")
    print(hash_credential(first))
    return 0
