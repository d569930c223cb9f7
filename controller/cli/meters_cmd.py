"""``croupier meters``: progressive meters, hit history, verify, corrections (PRG-1..6).

- ``croupier meters [--db PATH]``: every pool's meters and the self-check status (read-only;
  without ``--db``, the running daemon's answer: ledger_args.from_daemon);
- ``croupier meters verify``: every invariant of the ledger (exit status 1 on a problem);
- ``croupier meters hits [-n N] [--pool P]``: the hit history, newest first;
- ``croupier meters correct POOL current|reserve VALUE --technician T --reason R``: a
  technician's correction (takes the writer's lock: the daemon must be stopped);
- ``croupier meters rebuild --technician T --reason R``: rewrite the pools from the journal;
- ``croupier meters retire POOL --reason-code closure|malfunction ...``: retire a pool
  (controller/cli/lifecycle_cmd.py).
"""

from __future__ import annotations

import time

from controller.cli import lifecycle_cmd
from controller.cli.argtypes import integer, money, pool_name
from controller.cli.ledger_args import (
    add_action,
    add_db_flag,
    add_technician_flags,
    db_path,
    from_daemon,
    reader,
    writer,
)
from controller.cli.main import add_command
from controller.cli.money import add_currency_config, currency_json, table_currency
from controller.cli.output import add_json_flag, print_json
from controller.table.control.wire import HITS_MAX
from display.money import Currency, currency, format_money

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any

# The ledger's code and the engine are imported by the actions that open the file: `croupier
# meters` beside the running daemon asks it instead, and stays quick on a Pi (ledger_args).

# The meters shown to people, with their labels, in the order regulators read them.
SHOWN = (
    ("current", "amount displayed"),
    ("stakes_in", "qualifying stakes in"),
    ("rounds", "rounds"),
    ("contributions", "contributions"),
    ("reserve", "reserve (hidden)"),
    ("reserve_contributions", "reserve contributions"),
    ("overflow", "overflow to reserve (cap)"),
    ("hits", "jackpot hits"),
    ("won_from_pool", "won from the pool"),
    ("won_fixed", "won on fixed lines (house)"),
    ("envy_paid", "envy bonuses (house)"),
    ("voids", "rounds voided"),
    ("stakes_returned", "stakes returned"),
    ("seeded_house", "seeds funded by the house"),
    ("seeded_reserve", "seeds funded by the reserve"),
    ("corrections", "technician corrections"),
    ("cycle", "cycle (resets)"),
)
COUNTS = {"rounds", "hits", "voids", "corrections", "cycle"}  # the other meters are money


def meter_text(key: str, value: int, cur: Currency) -> str:
    """A meter as people read it: a count, or an amount of money."""
    return f"{value:,}" if key in COUNTS else format_money(value, cur)


EXAMPLES = {
    "meters": [
        "croupier meters",
        "croupier meters verify --db /var/lib/croupier/ledger.sqlite3",
        "croupier meters hits -n 10 --pool main",
        "croupier meters correct main current 500000 --technician T-4 --reason 'seed'",
    ],
}


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "meters")
    add_db_flag(p)
    add_currency_config(p)
    add_json_flag(p)
    p.set_defaults(func=show)
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    add_action(actions, "verify", "check every invariant of the ledger", verify)
    h = add_action(actions, "hits", "the hit history, newest first", hits)
    h.add_argument("-n", type=integer(1), default=100, help="how many hits (default 100)")
    h.add_argument("--pool", type=pool_name, help="only this pool")
    add_currency_config(h)
    c = add_action(actions, "correct", "a technician sets a pool's amount or reserve", correct)
    c.add_argument("pool", help="the pool's name (croupier meters lists them)")
    c.add_argument(
        "meter",
        choices=lifecycle_cmd.CORRECTABLE_METERS,
        metavar="METER",
        help="which meter: %(choices)s",
    )
    c.add_argument("value", type=money, help="the new value, minor units")
    add_technician_flags(c)
    add_currency_config(c)
    r = add_action(actions, "rebuild", "rewrite every pool's meters from the journal", rebuild)
    add_technician_flags(r)
    add_currency_config(r)
    lifecycle_cmd.add_retire(actions, add_action)


def show(args: argparse.Namespace) -> int:
    summary = _summary(args)
    if getattr(args, "config", None) is None and "currency" in summary:
        cur = currency(summary["currency"])  # the running table's
    else:
        cur = table_currency(args)
    pools, rounds, status = summary["pools"], summary["rounds"], summary["selfcheck"]
    if args.json:
        print_json({"pools": pools, "rounds": rounds, "selfcheck": status, **currency_json(cur)})
        return 0
    print(f"ledger {summary['ledger']}")
    state = "OK" if status["table_may_open"] else "FAILED: the table stays closed"
    print(f"self-check: {state}")
    for failure in status["failures"][:5]:
        print(f"  {failure}")
    print("rounds: " + (", ".join(f"{n} {s}" for s, n in sorted(rounds.items())) or "none"))
    if not pools:
        print("no pools")
    for pool in pools:
        m = pool["meters"]
        cap = format_money(pool["cap"], cur) if pool["cap"] is not None else "none"
        print(
            f"\npool {pool['pool']} (bet {pool['bet']}, seed {format_money(pool['seed'], cur)}, "
            f"rate {pool['contribution_rate']}, reserve rate {pool['reserve_rate']}, cap {cap})"
        )
        for key, label in SHOWN:
            print(f"  {label:<30} {meter_text(key, m[key], cur):>20}")
        print(f"  {'fraction carried (units)':<30} {m['carry']:>20}")
        for problem in pool["problems"]:
            print(f"  PROBLEM: {problem}")
    return 0


def _summary(args: argparse.Namespace) -> dict[str, Any]:
    """The ledger's path, pools, rounds by state and self-check (as JSON), from the running
    daemon (with its currency) or from the file."""
    summary: dict[str, Any] | None = from_daemon(args, "meters.summary")
    if summary is not None:
        return summary
    with reader(args) as ledger:
        return {
            "ledger": db_path(args),
            "pools": ledger.meters(),
            "rounds": ledger.round_counts(),
            "selfcheck": ledger.selfcheck_status().to_json(),
        }


def verify(args: argparse.Namespace) -> int:
    from controller.books.ledger.verify import verify_ledger
    from controller.cli.progress import progress_bar

    started = time.perf_counter()
    with reader(args) as ledger:
        entries = ledger.journal.head()[0]
        # the chain walks every entry, the replay the money entries (at most as many)
        with progress_bar(args, total=2 * entries, unit="entries", what="verify") as step:
            report = verify_ledger(ledger, step)
    seconds = round(time.perf_counter() - started, 3)
    if args.json:
        print_json(
            {"ok": report.ok, "problems": report.problems, **report.stats, "seconds": seconds}
        )
    else:
        rounds = ", ".join(f"{n} {s}" for s, n in sorted(report.stats.get("rounds", {}).items()))
        print(
            f"ledger {db_path(args)}: {report.stats.get('entries', 0)} journal entries, rounds: "
            f"{rounds or 'none'} ({seconds} s)"
        )
        for problem in report.problems:
            print(f"PROBLEM: {problem}")
        print("verify: OK" if report.ok else f"verify: {len(report.problems)} problem(s)")
    return 0 if report.ok else 1


def hits(args: argparse.Namespace) -> int:
    """The hit history: from the running daemon (its ledger and currency: none of the ledger's
    code or the configuration loaded here) when it can send that many, else from the file."""
    answer = (
        from_daemon(args, "meters.hits", pool=args.pool, n=args.n) if args.n <= HITS_MAX else None
    )
    if answer is not None:
        records: list[dict[str, Any]] = answer["hits"]
        from_table = getattr(args, "config", None) is None
        cur = currency(answer["currency"]) if from_table else table_currency(args)
    else:
        with reader(args) as ledger:
            records = [h.to_json() for h in ledger.hits(args.pool, args.n)]
        cur = table_currency(args)
    if args.json:
        print_json([{**h, **currency_json(cur)} for h in records])
        return 0
    if not records:
        pool = f" of pool {args.pool}" if args.pool else ""
        print(f"no hits{pool} (croupier meters lists the pools)")
    for h in records:
        print(hit_line(h, cur))
    return 0


def hit_line(h: dict[str, Any], cur: Currency) -> str:
    """One hit for a person: every column labelled (the pay line and the hand were two bare
    ``full-house`` columns), every amount with its currency."""
    extra = "".join(
        f", {label} {format_money(h[label], cur)}" for label in ("share", "envy") if h[label]
    )
    line = (
        f"{h['wall']}  pool {h['pool']}  round {h['round_id']}  seat {h['seat']}  "
        f"line {h['line'] or '-'}  paid {format_money(h['amount'], cur)}"
        f" (from the pool {format_money(h['from_pool'], cur)}{extra})"
    )
    return f"{line}  hand {h['hand']}" if h["hand"] else line


def correct(args: argparse.Namespace) -> int:
    with writer(args) as ledger:
        state = ledger.correct_meter(
            args.pool,
            args.meter,
            args.value,
            time.monotonic(),
            technician=args.technician,
            reason=args.reason,
        )
    if args.json:
        print_json(state.to_row())
    else:
        shown = format_money(args.value, table_currency(args))
        print(f"pool {args.pool}: {args.meter} set to {shown} (journaled)")
    return 0


def rebuild(args: argparse.Namespace) -> int:
    with writer(args) as ledger:
        pools = ledger.rebuild_pools(
            time.monotonic(), technician=args.technician, reason=args.reason
        )
    if args.json:
        print_json({name: state.to_row() for name, state in pools.items()})
    else:
        for name, state in pools.items():
            shown = format_money(state.current, table_currency(args))
            print(f"pool {name}: rebuilt from the journal, displays {shown}")
    return 0
