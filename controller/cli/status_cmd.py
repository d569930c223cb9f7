"""``croupier status``: the live table, as the daemon sees it (state, round, conditions,
shuffler, pools as money, seats and sensors).

The command a technician types most, so it stays quick on a Pi-class CPU: read without
argparse (controller.cli.quick), the daemon's answer read and printed by the C JSON codec
(controller.quick_json), the C socket type, our small modules; no json, re, dataclasses,
typing or pathlib (tests/unit/cli/test_cli_imports.py keeps it so).
"""

from __future__ import annotations

from controller.cli.daemon_client import add_socket_flag, call
from controller.cli.main import add_command
from controller.cli.money import DEFAULT_CURRENCY
from controller.cli.output import add_json_flag, print_json
from controller.texts import pool_title
from display.money import currency, format_money

TYPE_CHECKING = False
if TYPE_CHECKING:  # for the type checker only: argparse is read by the parser alone
    import argparse

EXAMPLES = {
    "status": [
        "croupier status",
        "croupier --socket /tmp/sim/run/control.sock status --json",
    ],
}


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "status")
    add_socket_flag(p)
    add_json_flag(p)
    p.set_defaults(func=status)


def status(args: argparse.Namespace) -> int:
    data = call(args, "status")
    if args.json:
        print_json(data)
        return 0
    print(
        f"table {data['table']} ({data['profile']}): {data['state'].upper()}"
        + (f"  round {data['round']}" if data["round"] else "")
    )
    for name, detail in data["conditions"].items():
        print(f"  closed by {name}: {detail}")
    v = data.get("verdict")
    if v:
        print(
            f"  last verdict: {v['status']}" + (f" {v['rule']}: {v['reason']}" if v["rule"] else "")
        )
    sh = data["shuffler"]
    print(
        f"shuffler: link {sh['link']}, {sh['model'] or '?'} firmware {sh['firmware'] or '?'},"
        f" deck {sh['deck'] or '?'}"
    )
    shoe = data.get("shoe")  # a blackjack shoe, once shuffled (controller/table/shoe.py)
    if shoe:
        print(f"shoe: {shoe['left']} of {shoe['size']} cards left, shuffled at {shoe['cut']}")
    cur = currency(data.get("currency", DEFAULT_CURRENCY))
    wagers = data.get("pool_wagers", {})  # pool -> the wager that feeds it (older daemons: none)
    for pool, amount in data["pools"].items():
        print(f"{pool_title(pool, wagers.get(pool))}: {format_money(amount, cur)}")
    sensors = data.get("sensors", {})
    for seat, info in data["seats"].items():
        flags = [k for k in ("stake", "locked", "in_play") if info[k]]
        if info["excluded"]:
            flags.append(f"EXCLUDED ({info['excluded']})")
        print(f"  seat {seat}: {sensors.get(seat, '-')}  {' '.join(flags)}")
    if data.get("recovered_rounds"):
        print(f"voided at start-up (MD-S2): {', '.join(data['recovered_rounds'])}")
    return 0
